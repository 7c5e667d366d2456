#include "tern/systems/analysis/monte_carlo.h"

#include <fmt/format.h>

#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>

#include "tern/common/thread_pool.h"

namespace tern {
namespace {

void CheckArguments(const char* func, const SimulatorFactory& make_simulator,
                    const ScalarSystemFunction& output, double final_time,
                    const RandomGenerator* generator) {
  // An infinite final time would run each sample forever.
  if (!std::isfinite(final_time)) {
    throw std::invalid_argument(
        fmt::format("{}: final_time must be finite, got {}", func, final_time));
  }
  if (!make_simulator) {
    throw std::invalid_argument(
        fmt::format("{}: make_simulator is empty", func));
  }
  if (!output) {
    throw std::invalid_argument(fmt::format("{}: output is empty", func));
  }
  if (generator == nullptr) {
    throw std::invalid_argument(fmt::format("{}: generator is null", func));
  }
}

double RunOne(const SimulatorFactory& make_simulator,
              const ScalarSystemFunction& output, double final_time,
              RandomGenerator* generator) {
  std::unique_ptr<Simulator<double>> simulator = make_simulator(generator);
  if (simulator == nullptr) {
    throw std::invalid_argument(
        "RandomSimulation: make_simulator returned a null simulator");
  }
  const System<double>& system = simulator->get_system();
  Context<double>& context = simulator->get_mutable_context();
  system.SetRandomContext(&context, generator);
  simulator->Initialize();
  simulator->AdvanceTo(final_time);
  return output(system, context);
}

}  // namespace

double RandomSimulation(const SimulatorFactory& make_simulator,
                        const ScalarSystemFunction& output, double final_time,
                        RandomGenerator* generator) {
  CheckArguments("RandomSimulation", make_simulator, output, final_time,
                 generator);
  return RunOne(make_simulator, output, final_time, generator);
}

RandomSimulationResult RunMonteCarloSample(
    const SimulatorFactory& make_simulator, const ScalarSystemFunction& output,
    double final_time, std::int64_t index, std::uint64_t seed) {
  RandomSimulationResult r;
  r.seed = seed;
  RandomGenerator sample_generator(seed);
  try {
    r.output = RunOne(make_simulator, output, final_time, &sample_generator);
  } catch (const std::exception& e) {
    r.output = std::numeric_limits<double>::quiet_NaN();
    r.error = fmt::format("sample {} (seed {}): {}", index, seed, e.what());
  } catch (...) {
    r.output = std::numeric_limits<double>::quiet_NaN();
    r.error =
        fmt::format("sample {} (seed {}): unknown exception", index, seed);
  }
  return r;
}

void CheckMonteCarloArguments(const char* func,
                              const SimulatorFactory& make_simulator,
                              const ScalarSystemFunction& output,
                              double final_time, int num_samples,
                              const RandomGenerator* generator,
                              int num_parallel_executions) {
  CheckArguments(func, make_simulator, output, final_time, generator);
  if (num_samples < 0) {
    throw std::invalid_argument(
        fmt::format("{}: num_samples must be >= 0, got {}", func, num_samples));
  }
  if (num_parallel_executions < 0) {
    throw std::invalid_argument(fmt::format(
        "{}: num_parallel_executions must be >= 0 (kNumThreadsAutomatic), got "
        "{}",
        func, num_parallel_executions));
  }
}

std::vector<RandomSimulationResult> MonteCarloSimulation(
    const SimulatorFactory& make_simulator, const ScalarSystemFunction& output,
    double final_time, int num_samples, RandomGenerator* generator,
    int num_parallel_executions) {
  CheckMonteCarloArguments("MonteCarloSimulation", make_simulator, output,
                           final_time, num_samples, generator,
                           num_parallel_executions);
  // All seeds first, in order, so no result depends on scheduling.
  std::vector<RandomSimulationResult> results(num_samples);
  for (RandomSimulationResult& r : results) r.seed = generator->NextSeed();
  if (num_samples == 0) return results;

  int threads = num_parallel_executions == kNumThreadsAutomatic
                    ? ThreadPool::HardwareConcurrency()
                    : num_parallel_executions;
  if (threads > num_samples) threads = num_samples;
  // With several threads the caller only waits: see ThreadPool's
  // constructor (false sharing with the diagram through the heap).
  ThreadPool pool(threads, /*caller_works=*/threads == 1);
  pool.ParallelFor(num_samples, [&](std::int64_t i, int) {
    results[i] = RunMonteCarloSample(make_simulator, output, final_time, i,
                                     results[i].seed);
  });
  return results;
}

ProportionEstimate EstimateProportion(std::int64_t successes,
                                      std::int64_t trials, double z) {
  if (trials < 1 || successes < 0 || successes > trials) {
    throw std::invalid_argument(fmt::format(
        "EstimateProportion: need 0 <= successes <= trials and trials >= 1, "
        "got successes = {}, trials = {}",
        successes, trials));
  }
  if (!(z > 0) || !std::isfinite(z)) {
    throw std::invalid_argument(fmt::format(
        "EstimateProportion: z must be positive and finite, got {}", z));
  }
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half =
      z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {p, std::max(0.0, center - half), std::min(1.0, center + half)};
}

}  // namespace tern
