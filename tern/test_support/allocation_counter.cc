#include "tern/test_support/allocation_counter.h"

#include <cstdlib>
#include <new>

namespace {
thread_local std::int64_t g_count = 0;
thread_local bool g_enabled = false;

void* CountedAlloc(std::size_t n) {
  if (g_enabled) ++g_count;
  if (n == 0) n = 1;
  void* p = std::malloc(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* CountedAlignedAlloc(std::size_t n, std::align_val_t al) {
  if (g_enabled) ++g_count;
  std::size_t a = static_cast<std::size_t>(al);
  std::size_t size = (n + a - 1) / a * a;
  void* p = std::aligned_alloc(a, size == 0 ? a : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t n) { return CountedAlloc(n); }
void* operator new[](std::size_t n) { return CountedAlloc(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  return CountedAlignedAlloc(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return CountedAlignedAlloc(n, a);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace tern::test {

ScopedAllocationCounter::ScopedAllocationCounter()
    : start_(g_count), was_enabled_(g_enabled) {
  g_enabled = true;
}
ScopedAllocationCounter::~ScopedAllocationCounter() {
  g_enabled = was_enabled_;
}
std::int64_t ScopedAllocationCounter::count() const { return g_count - start_; }

}  // namespace tern::test
