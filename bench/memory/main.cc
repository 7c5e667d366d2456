// Bytes per body of a scene of N free boxes (issue 27, finding 3: the cost
// was quadratic in the bodies): the peak of live heap bytes while the
// scenario is loaded, its world built (tree, geometry) and RunScenario runs
// it for two steps (diagram, context, plant workspace, simulator, log),
// divided by N, for N = 100, 1,000 and 10,000 on the continuous plant (RK4,
// compliant contact) and the time-stepping plant. Counted by replacing
// global operator new/delete in this program (malloc_usable_size), so the
// figure is the heap, not the resident set. Goal: flat within 2x in N, and
// 10,000 boxes under 1 GB. Allocations are counted by interposing malloc
// and friends (below), so Eigen's aligned allocations count too.
//   build/release/bench/memory/memory_bench
// Measured (Release, 2026-11-26, malloc counted): continuous 100 / 1,000 /
// 10,000 boxes 21.1 / 18.7 / 19.0 kB per body (peak 181 MB at 10,000);
// time-stepping 21.5 / 19.0 / 19.6 kB per body (187 MB): flat, and 10,000
// boxes under 1 GB. The earlier 321 kB per body was the log: each
// VectorLogSink preallocated 1,000 samples of its full width (13 values per
// box) in its model value and again in the Context's copy; a wide log now
// starts within VectorLog::kDefaultValueBudget and grows by doubling.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <string>

#include "tern/io/scenario.h"
#include "tern/io/simulation.h"

namespace {

std::atomic<long long> g_live{0};
std::atomic<long long> g_peak{0};

void Count(long long bytes) {
  const long long now = g_live.fetch_add(bytes) + bytes;
  long long peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

}  // namespace

// Every heap allocation goes through malloc (operator new and Eigen's
// aligned allocator alike), so the program interposes glibc's allocation
// functions and forwards to their __libc_ implementations.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

namespace {
void* Counted(void* p) {
  if (p != nullptr) Count(static_cast<long long>(malloc_usable_size(p)));
  return p;
}
}  // namespace

void* malloc(std::size_t n) { return Counted(__libc_malloc(n)); }
void* calloc(std::size_t n, std::size_t size) {
  return Counted(__libc_calloc(n, size));
}
void free(void* p) {
  if (p == nullptr) return;
  Count(-static_cast<long long>(malloc_usable_size(p)));
  __libc_free(p);
}
void* realloc(void* p, std::size_t n) {
  const long long old =
      p == nullptr ? 0 : static_cast<long long>(malloc_usable_size(p));
  void* q = __libc_realloc(p, n);
  if (q == nullptr) return nullptr;  // p is untouched (or n == 0 freed it)
  Count(static_cast<long long>(malloc_usable_size(q)) - old);
  return q;
}
void* memalign(std::size_t alignment, std::size_t n) {
  return Counted(__libc_memalign(alignment, n));
}
void* aligned_alloc(std::size_t alignment, std::size_t n) {
  return Counted(__libc_memalign(alignment, n));
}
int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  void* p = Counted(__libc_memalign(alignment, n));
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"

namespace {

std::string Boxes(int n, const char* plant) {
  // A grid 0.5 m apart, 0.2 m up: no box touches another or the ground in
  // the two steps run.
  const int side = static_cast<int>(std::ceil(std::sqrt(n)));
  std::string yaml = fmt::format(
      "name: boxes\nduration: 0.001\nplant: {{kind: {}, dt: 5e-4}}\n"
      "integrator: {{name: rk4, step: 5e-4}}\nlog: {{rate: 1000}}\nboxes:\n",
      plant);
  for (int i = 0; i < n; ++i) {
    yaml += fmt::format("  - {{position: [{}, {}, 0.2]}}\n", 0.5 * (i % side),
                        0.5 * (i / side));
  }
  return yaml;
}

void BytesPerBody(benchmark::State& state, const char* plant) {
  const int n = static_cast<int>(state.range(0));
  const std::string yaml = Boxes(n, plant);
  long long peak = 0;
  for (auto _ : state) {
    const long long base = g_live.load();
    g_peak.store(base);
    const tern::io::Scenario s =
        tern::io::LoadScenarioString(yaml, "boxes.yaml", ".");
    const tern::io::World w = tern::io::BuildWorld(s);
    tern::io::RunOptions options;
    const tern::io::RunLog log = tern::io::RunScenario(s, w, options, nullptr);
    benchmark::DoNotOptimize(log.times.data());
    peak = g_peak.load() - base;
  }
  state.counters["bytes_per_body"] = static_cast<double>(peak) / n;
  state.counters["peak_MB"] = static_cast<double>(peak) / (1 << 20);
}

void Continuous(benchmark::State& state) { BytesPerBody(state, "continuous"); }
void TimeStepping(benchmark::State& state) {
  BytesPerBody(state, "time-stepping");
}

BENCHMARK(Continuous)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(TimeStepping)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
