#pragma once
// Counts heap allocations made by this thread, for tests that prove a code
// path does not allocate. Linking tern_test_support replaces global operator
// new; counting is off until a ScopedAllocationCounter is alive.
#include <cstdint>

namespace tern::test {

// While alive, counts calls to operator new on this thread.
class ScopedAllocationCounter {
 public:
  ScopedAllocationCounter();
  ~ScopedAllocationCounter();
  ScopedAllocationCounter(const ScopedAllocationCounter&) = delete;
  ScopedAllocationCounter& operator=(const ScopedAllocationCounter&) = delete;
  // Allocations since construction.
  std::int64_t count() const;

 private:
  std::int64_t start_;
  bool was_enabled_;
};

}  // namespace tern::test
