// Monte Carlo throughput: samples per second of MonteCarloSimulation on the
// stochastic pendulum of examples/monte_carlo, with 1 and 2 threads, and the
// scaling ratio (target >= 1.8 on 2 free cores). Wall-clock time is measured
// (UseRealTime), since the worker threads' CPU time is not the caller's.
#include <benchmark/benchmark.h>

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
  for (auto _ : state) {
    auto results =
        tern::MonteCarloSimulation(make_simulator, output, kFinalTime,
                                   kSamplesPerIteration, &generator, threads);
    benchmark::DoNotOptimize(results.data());
  }
  state.SetItemsProcessed(state.iterations() * kSamplesPerIteration);
  state.counters["threads"] = threads;
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
    }
  }
  std::map<std::string, double> rate_;
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
  }
  benchmark::Shutdown();
  return 0;
}
