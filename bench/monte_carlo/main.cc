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
#include <time.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "examples/monte_carlo/stochastic_pendulum.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/random_source.h"

namespace {

constexpr double kFinalTime = 10.0;  // s, as in the example
constexpr int kSamplesPerIteration = 32;

// CPU time of all threads of this process, s.
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

std::unique_ptr<tern::Diagram<double>> MakeDiagram() {
  tern::DiagramBuilder<double> builder;
  auto* pendulum = builder.AddSystem<tern::examples::StochasticPendulum>();
  tern::AddRandomInputs(pendulum->options().sampling_interval, &builder);
  builder.ExportOutput(pendulum->get_output_port("max_abs_angle"));
  return builder.Build();
}

void BM_MonteCarloPendulum(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto diagram = MakeDiagram();
  const tern::SimulatorFactory make_simulator = [&](tern::RandomGenerator*) {
    return std::make_unique<tern::Simulator<double>>(*diagram);
  };
  const tern::ScalarSystemFunction output =
      [](const tern::System<double>& system,
         const tern::Context<double>& context) {
        return system.get_output_port(0).Eval(context)[0];
      };
  tern::RandomGenerator generator(1);
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    auto results =
        tern::MonteCarloSimulation(make_simulator, output, kFinalTime,
                                   kSamplesPerIteration, &generator, threads);
    benchmark::DoNotOptimize(results.data());
  }
  const double cpu = ProcessCpuSeconds() - cpu_start;
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

// Console output plus the samples/s of each thread count, for the ratio.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const auto it = run.counters.find("items_per_second");
      if (it != run.counters.end()) {
        rate_[run.run_name.args] = it->second.value;  // "1" or "2"
      }
      const auto c = run.counters.find("cpu_ms_per_sample");
      if (c != run.counters.end()) cpu_[run.run_name.args] = c->second.value;
    }
  }
  std::map<std::string, double> rate_;
  std::map<std::string, double> cpu_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto one = reporter.rate_.find("1");
  const auto two = reporter.rate_.find("2");
  if (one != reporter.rate_.end() && two != reporter.rate_.end()) {
    std::printf(
        "monte_carlo: %.1f samples/s on 1 thread, %.1f on 2 threads, scaling "
        "2/1 = %.2fx (target >= 1.8x on 2 free cores)\n",
        one->second, two->second, two->second / one->second);
    const double cpu1 = reporter.cpu_["1"], cpu2 = reporter.cpu_["2"];
    std::printf(
        "monte_carlo: process CPU per sample %.3f ms on 1 thread, %.3f ms on "
        "2 threads; projected scaling on 2 free cores 2 x %.3f / %.3f = "
        "%.2fx\n",
        cpu1, cpu2, cpu1, cpu2, 2 * cpu1 / cpu2);
  }
  benchmark::Shutdown();
  return 0;
}
