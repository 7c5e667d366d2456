// Framework overhead: a chain of 10 standard blocks (an Integrator, eight
// Gains and an Adder) stepped 10^5 times with fixed-step RK4 through the
// Simulator, against a hand-written loop doing the same arithmetic with the
// same rule. Prints the ratio Simulator / hand-written.
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdio>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/adder.h"
#include "tern/systems/primitives/gain.h"
#include "tern/systems/primitives/integrator.h"

namespace {

using tern::VectorX;

constexpr int kSteps = 100000;
constexpr double kStep = 1e-4;
// Gains of the chain; their product with the adder makes xdot = a x with
// a = g1...g8 + g1...g4.
constexpr std::array<double, 8> kGains = {-1.0, 0.5, 2.0, 1.0,
                                          0.25, 4.0, 1.0, 0.5};

std::unique_ptr<tern::Diagram<double>> MakeChain() {
  tern::DiagramBuilder<double> builder;
  auto* x =
      builder.AddSystem<tern::Integrator<double>>(VectorX<double>::Ones(1));
  const tern::OutputPort<double>* previous = &x->get_output_port();
  const tern::OutputPort<double>* fourth = nullptr;
  for (int i = 0; i < 8; ++i) {
    auto* g = builder.AddSystem<tern::Gain<double>>(kGains[i], 1);
    builder.Connect(*previous, g->get_input_port());
    previous = &g->get_output_port();
    if (i == 3) fourth = previous;
  }
  auto* adder = builder.AddSystem<tern::Adder<double>>(2, 1);
  builder.Connect(*previous, adder->get_input_port(0));
  builder.Connect(*fourth, adder->get_input_port(1));
  builder.Connect(adder->get_output_port(), x->get_input_port());
  return builder.Build();
}

double g_simulator_ns = 0, g_hand_ns = 0;
volatile double g_sink = 0;

void BM_Simulator(benchmark::State& state) {
  auto diagram = MakeChain();
  tern::Simulator<double> simulator(*diagram);
  simulator.reset_integrator<tern::RK4>(kStep);
  double x = 0;
  for (auto _ : state) {
    auto& ctx = simulator.get_mutable_context();
    ctx.SetTime(0.0);
    ctx.SetContinuousState(VectorX<double>::Ones(1));
    simulator.Initialize();
    simulator.AdvanceTo(kSteps * kStep);
    x = ctx.get_continuous_state_vector()[0];
  }
  state.counters["ns_per_step"] = benchmark::Counter(
      static_cast<double>(kSteps) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["x_final"] = x;
}

// The same arithmetic by hand: each block's output computed in order, with
// RK4 from tern/integrators on a fixed-size state.
void BM_HandWritten(benchmark::State& state) {
  using Vec = Eigen::Matrix<double, 1, 1>;
  tern::RK4<Vec> rk4;
  auto f = [](double, const Vec& x, Vec* xdot) {
    double signal = x[0], fourth = 0;
    for (int i = 0; i < 8; ++i) {
      signal = kGains[i] * signal;
      if (i == 3) fourth = signal;
    }
    (*xdot)[0] = signal + fourth;
  };
  double x_final = 0;
  for (auto _ : state) {
    Vec x = Vec::Ones();
    for (int k = 0; k < kSteps; ++k) rk4.Step(f, k * kStep, kStep, &x);
    // Storing to a volatile keeps the loop (benchmark 1.7's DoNotOptimize
    // on a double lvalue miscompiles with GCC 12 -O3).
    g_sink = x[0];
    x_final = x[0];
  }
  state.counters["ns_per_step"] = benchmark::Counter(
      static_cast<double>(kSteps) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["x_final"] = x_final;
}

BENCHMARK(BM_Simulator)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HandWritten)->Unit(benchmark::kMillisecond);

// Records each benchmark's time per iteration to print the ratio.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      // With --benchmark_repetitions, use the median (stddev and cv are
      // aggregates too and must not be taken for a time).
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median")
        continue;
      const double ns = run.GetAdjustedCPUTime() *
                        (run.time_unit == benchmark::kMillisecond ? 1e6 : 1.0);
      if (run.benchmark_name().find("Simulator") != std::string::npos)
        g_simulator_ns = ns;
      if (run.benchmark_name().find("HandWritten") != std::string::npos)
        g_hand_ns = ns;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  if (g_hand_ns > 0 && g_simulator_ns > 0) {
    std::printf(
        "framework_overhead: Simulator / hand-written = %.2fx (target <= 3x)\n",
        g_simulator_ns / g_hand_ns);
  }
  benchmark::Shutdown();
  return 0;
}
