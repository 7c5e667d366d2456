// Monte Carlo estimate of a failure probability (seed 002, issue 5).
//
// A damped pendulum starts at a random angle, has a random damping
// coefficient, and is pushed by a Gaussian disturbance torque that enters
// through a random input port fed by a RandomSource (AddRandomInputs). A run
// "fails" if the pendulum ever swings beyond kPendulumFailureAngle within
// kPendulumFinalTime. MonteCarloSimulation runs the samples on a thread pool;
// each result carries the seed that replays it. The program prints the failure
// probability with its 95% Wilson interval, replays one failing sample from
// its seed to show it is reproducible, and writes a histogram of the peak
// angle as CSV.
//
// Usage: monte_carlo [num_samples = 1000] [threads = 2] [histogram.csv]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "examples/monte_carlo/stochastic_pendulum.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/analysis/simulator.h"

namespace {

using tern::examples::kPendulumFinalTime;

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
  const std::unique_ptr<tern::Diagram<double>> diagram =
      tern::examples::MakeStochasticPendulumDiagram();
  const tern::SimulatorFactory make_simulator = [&](tern::RandomGenerator*) {
    return std::make_unique<tern::Simulator<double>>(*diagram);
  };
  const tern::ScalarSystemFunction peak_angle = tern::examples::PeakAngle;

  tern::RandomGenerator generator(2024);
  const auto results =
      tern::MonteCarloSimulation(make_simulator, peak_angle, kPendulumFinalTime,
                                 num_samples, &generator, threads);
  const int first_failure = tern::examples::PrintPendulumStudy(results);
  std::printf("ran on %d threads\n", threads);
  std::vector<double> peaks;
  for (const auto& r : results) {
    if (r.ok()) peaks.push_back(r.output);
  }

  // Replay one failing sample from its seed alone.
  if (first_failure >= 0) {
    tern::RandomGenerator replay(results[first_failure].seed);
    const double again = tern::RandomSimulation(make_simulator, peak_angle,
                                                kPendulumFinalTime, &replay);
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
