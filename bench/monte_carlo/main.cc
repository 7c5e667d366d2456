// Monte Carlo throughput: samples per second of MonteCarloSimulation on the
// stochastic pendulum of examples/monte_carlo, with 1 and 2 threads, and the
// scaling ratio (target >= 1.8 on 2 free cores). Wall-clock time is measured
// (UseRealTime), since the worker threads' CPU time is not the caller's.
//
// On a shared machine the wall-clock ratio only says how many cores were
// free. So the program also measures the CPU time of the whole process (all
// threads) per sample: if it is the same with 2 threads as with 1, the
// threads do not slow each other down (no lock, allocator or cache
// contention), and on 2 free cores the scaling would be 2 x cpu1 / cpu2.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

#include "bench/common/timing_reporter.h"
#include "examples/monte_carlo/stochastic_pendulum.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/analysis/simulator.h"

namespace {

constexpr double kFinalTime = tern::examples::kPendulumFinalTime;
constexpr int kSamplesPerIteration = 32;

void BM_MonteCarloPendulum(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto diagram = tern::examples::MakeStochasticPendulumDiagram();
  const tern::SimulatorFactory make_simulator = [&](tern::RandomGenerator*) {
    return std::make_unique<tern::Simulator<double>>(*diagram);
  };
  const tern::ScalarSystemFunction output = tern::examples::PeakAngle;
  tern::RandomGenerator generator(1);
  const double cpu_start = tern::bench::ProcessCpuSeconds();
  for (auto _ : state) {
    auto results =
        tern::MonteCarloSimulation(make_simulator, output, kFinalTime,
                                   kSamplesPerIteration, &generator, threads);
    benchmark::DoNotOptimize(results.data());
  }
  const double cpu = tern::bench::ProcessCpuSeconds() - cpu_start;
  state.SetItemsProcessed(state.iterations() * kSamplesPerIteration);
  state.counters["threads"] = threads;
  state.counters["cpu_ms_per_sample"] =
      1e3 * cpu /
      static_cast<double>(state.iterations() * kSamplesPerIteration);
}
BENCHMARK(BM_MonteCarloPendulum)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  tern::bench::CounterReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const char* kOne = "BM_MonteCarloPendulum/1";
  const char* kTwo = "BM_MonteCarloPendulum/2";
  const double one = reporter.Get(kOne, "items_per_second");
  const double two = reporter.Get(kTwo, "items_per_second");
  if (one > 0 && two > 0) {
    std::printf(
        "monte_carlo: %.1f samples/s on 1 thread, %.1f on 2 threads, scaling "
        "2/1 = %.2fx (target >= 1.8x on 2 free cores)\n",
        one, two, two / one);
    const double cpu1 = reporter.Get(kOne, "cpu_ms_per_sample");
    const double cpu2 = reporter.Get(kTwo, "cpu_ms_per_sample");
    std::printf(
        "monte_carlo: process CPU per sample %.3f ms on 1 thread, %.3f ms on "
        "2 threads; projected scaling on 2 free cores 2 x %.3f / %.3f = "
        "%.2fx\n",
        cpu1, cpu2, cpu1, cpu2, 2 * cpu1 / cpu2);
  }
  benchmark::Shutdown();
  return 0;
}
