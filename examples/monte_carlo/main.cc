// Monte Carlo estimate of a failure probability (seed 002, issue 5).
//
// A damped pendulum starts at a random angle, has a random damping
// coefficient, and is pushed by a Gaussian disturbance torque that enters
// through a random input port fed by a RandomSource (AddRandomInputs). A run
// "fails" if the pendulum ever swings beyond kFailureAngle within
// kFinalTime. MonteCarloSimulation runs the samples on a thread pool; each
// result carries the seed that replays it. The program prints the failure
// probability with its 95% Wilson interval, replays one failing sample from
// its seed to show it is reproducible, and writes a histogram of the peak
// angle as CSV.
//
// Usage: monte_carlo [num_samples = 1000] [threads = 2] [histogram.csv]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "examples/monte_carlo/stochastic_pendulum.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/random_source.h"

namespace {

using tern::examples::StochasticPendulum;

constexpr double kFinalTime = 10.0;    // s
constexpr double kFailureAngle = 0.6;  // rad

std::unique_ptr<tern::Diagram<double>> MakeDiagram() {
  tern::DiagramBuilder<double> builder;
  auto* pendulum = builder.AddSystem<StochasticPendulum>();
  const int added =
      tern::AddRandomInputs(pendulum->options().sampling_interval, &builder);
  if (added != 1) throw std::logic_error("expected one random input");
  builder.ExportOutput(pendulum->get_output_port("max_abs_angle"),
                       "max_abs_angle");
  return builder.Build();
}

}  // namespace

int main(int argc, char** argv) {
  const int num_samples = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const std::string csv = argc > 3 ? argv[3] : "monte_carlo_histogram.csv";
  if (num_samples < 1 || threads < 1) {
    std::fprintf(stderr, "usage: %s [num_samples >= 1] [threads >= 1] [csv]\n",
                 argv[0]);
    return 2;
  }

  // One immutable diagram shared by every sample; each simulator owns its
  // own Context.
  const std::unique_ptr<tern::Diagram<double>> diagram = MakeDiagram();
  const tern::SimulatorFactory make_simulator = [&](tern::RandomGenerator*) {
    return std::make_unique<tern::Simulator<double>>(*diagram);
  };
  const tern::ScalarSystemFunction peak_angle =
      [](const tern::System<double>& system,
         const tern::Context<double>& context) {
        return system.get_output_port(0).Eval(context)[0];
      };

  tern::RandomGenerator generator(2024);
  const auto results = tern::MonteCarloSimulation(
      make_simulator, peak_angle, kFinalTime, num_samples, &generator, threads);

  int failures = 0, errors = 0, first_failure = -1;
  std::vector<double> peaks;
  for (int i = 0; i < num_samples; ++i) {
    if (!results[i].ok()) {
      ++errors;
      std::printf("error: %s\n", results[i].error.c_str());
      continue;
    }
    peaks.push_back(results[i].output);
    if (results[i].output > kFailureAngle) {
      ++failures;
      if (first_failure < 0) first_failure = i;
    }
  }
  const int n = num_samples - errors;
  if (n == 0) return 1;
  const auto p = tern::EstimateProportion(failures, n, 1.96);
  std::printf(
      "pendulum: P(max |theta| > %.2f rad within %.0f s) = %.4f, 95%% "
      "interval [%.4f, %.4f] (%d of %d samples, %d threads)\n",
      kFailureAngle, kFinalTime, p.estimate, p.lower, p.upper, failures, n,
      threads);

  // Replay one failing sample from its seed alone.
  if (first_failure >= 0) {
    tern::RandomGenerator replay(results[first_failure].seed);
    const double again =
        tern::RandomSimulation(make_simulator, peak_angle, kFinalTime, &replay);
    std::printf(
        "replay of sample %d (seed %llu): peak %.17g, %s\n", first_failure,
        static_cast<unsigned long long>(results[first_failure].seed), again,
        again == results[first_failure].output ? "bit-identical" : "DIFFERENT");
    if (again != results[first_failure].output) return 1;
  }

  // Histogram of the peak angle: 30 bins over [0, max].
  constexpr int kBins = 30;
  const double top = *std::max_element(peaks.begin(), peaks.end());
  const double width = top / kBins;
  std::vector<int> counts(kBins, 0);
  for (double peak : peaks) {
    counts[std::min(kBins - 1, static_cast<int>(peak / width))] += 1;
  }
  std::FILE* f = std::fopen(csv.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", csv.c_str());
    return 1;
  }
  std::fprintf(f, "bin_lower_rad,bin_upper_rad,count\n");
  for (int b = 0; b < kBins; ++b) {
    std::fprintf(f, "%.6f,%.6f,%d\n", b * width, (b + 1) * width, counts[b]);
  }
  std::fclose(f);
  std::printf("histogram of the peak angle (%d bins) written to %s\n", kBins,
              csv.c_str());
  return 0;
}
