#pragma once
// Monte Carlo over random simulations (seed 002). A sample is one run of a
// freshly made Simulator whose context was randomized by
// System::SetRandomContext (random initial state, parameters and the seeds of
// every RandomSource) from a generator seeded with the sample's seed. The
// seeds are drawn from the caller's generator before any sample runs, and
// results are stored by sample index, so the results are bit-identical
// whatever the number of threads, and any sample can be replayed alone:
//
//   auto results = MonteCarloSimulation(make_simulator, output, 10.0, 1000,
//                                       &generator, 2);
//   RandomGenerator replay(results[17].seed);
//   double y = RandomSimulation(make_simulator, output, 10.0, &replay);
//   // y == results[17].output, to the bit
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tern/common/random_generator.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {

// Makes a new Simulator (with its own Context) for one sample. It may use
// `generator` to randomize what SetRandomContext cannot (e.g. the diagram's
// structure). MonteCarloSimulation calls it from several threads at once, so
// it must not modify shared data; sharing an immutable System among the
// simulators is fine (a System is never modified by simulation).
using SimulatorFactory = std::function<std::unique_ptr<Simulator<double>>(
    RandomGenerator* generator)>;

// The scalar a sample reports, computed from the final context.
using ScalarSystemFunction = std::function<double(
    const System<double>& system, const Context<double>& context)>;

// Makes a simulator with make_simulator(generator), calls
// SetRandomContext(context, generator) on its system, initializes it, advances
// it to final_time and returns output(system, context). Throws
// std::invalid_argument for a null generator or simulator or an empty
// function; exceptions of the simulation propagate.
double RandomSimulation(const SimulatorFactory& make_simulator,
                        const ScalarSystemFunction& output, double final_time,
                        RandomGenerator* generator);

// One Monte Carlo sample: the seed that replays it, and its output, or the
// error that stopped it (then output is NaN).
struct RandomSimulationResult {
  std::uint64_t seed{0};
  double output{0.0};
  std::string error;  // empty if the sample succeeded
  bool ok() const { return error.empty(); }
};

// Uses every hardware thread.
inline constexpr int kNumThreadsAutomatic = 0;

// Runs sample `index` of a Monte Carlo study: RandomSimulation with a
// generator seeded with `seed`. Never throws: an exception of the sample is
// recorded as "sample <index> (seed <seed>): <what>" with a NaN output. The
// one code path of every Monte Carlo driver (threads here, ranks in
// tern/mpi/monte_carlo_mpi.h), so their results are bit-identical.
RandomSimulationResult RunMonteCarloSample(
    const SimulatorFactory& make_simulator, const ScalarSystemFunction& output,
    double final_time, std::int64_t index, std::uint64_t seed);

// The argument checks of MonteCarloSimulation, for drivers that take the
// same arguments; messages start with `func`. Throws std::invalid_argument.
void CheckMonteCarloArguments(const char* func,
                              const SimulatorFactory& make_simulator,
                              const ScalarSystemFunction& output,
                              double final_time, int num_samples,
                              const RandomGenerator* generator,
                              int num_parallel_executions);

// Runs num_samples RandomSimulations. Sample i uses a generator seeded with
// the i-th generator->NextSeed(); `generator` is advanced by num_samples
// draws. Samples run on num_parallel_executions threads (the caller
// included; kNumThreadsAutomatic for all hardware threads). A sample that
// throws is recorded with its seed and message ("sample i (seed s): ...")
// and does not stop the others. Throws std::invalid_argument for
// num_samples < 0, num_parallel_executions < 0, a null generator or empty
// functions.
std::vector<RandomSimulationResult> MonteCarloSimulation(
    const SimulatorFactory& make_simulator, const ScalarSystemFunction& output,
    double final_time, int num_samples, RandomGenerator* generator,
    int num_parallel_executions = 1);

// A proportion estimated from Bernoulli trials with its Wilson score
// interval (Wilson, JASA 22, 1927), which keeps good coverage near 0 and 1
// where the normal approximation p ± z sqrt(p(1-p)/n) fails.
struct ProportionEstimate {
  double estimate{0};  // successes / trials
  double lower{0};
  double upper{1};
};
// z is the standard-normal quantile (1.96 for 95%). Throws
// std::invalid_argument unless 0 <= successes <= trials, trials >= 1 and
// z > 0.
ProportionEstimate EstimateProportion(std::int64_t successes,
                                      std::int64_t trials, double z = 1.96);

}  // namespace tern
