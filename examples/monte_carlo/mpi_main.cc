// The Monte Carlo study of examples/monte_carlo (the stochastic pendulum)
// across MPI ranks (issue 18): DistributedMonteCarloSimulation gives rank 0
// the same results, to the bit, as the threaded MonteCarloSimulation with the
// same seed, so it prints the same failure probability.
//
// Usage: mpirun -np <ranks> monte_carlo_mpi [num_samples = 1000]
//            [threads_per_rank = 1] [--check]
// --check also runs the threaded study on rank 0 and compares every sample.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "examples/monte_carlo/stochastic_pendulum.h"
#include "tern/mpi/monte_carlo_mpi.h"
#include "tern/systems/analysis/simulator.h"

int main(int argc, char** argv) {
  tern::MpiSession mpi(&argc, &argv);
  bool check = false;
  std::vector<int> numbers;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--check") == 0) {
      check = true;
    } else {
      numbers.push_back(std::atoi(argv[i]));
    }
  }
  const int num_samples = numbers.size() > 0 ? numbers[0] : 1000;
  const int threads = numbers.size() > 1 ? numbers[1] : 1;
  if (num_samples < 1 || threads < 1) {
    if (mpi.rank() == 0) {
      std::fprintf(stderr,
                   "usage: mpirun -np <ranks> %s [num_samples >= 1] "
                   "[threads_per_rank >= 1] [--check]\n",
                   argv[0]);
    }
    return 2;
  }

  // Every rank builds the same diagram and calls the same function.
  const auto diagram = tern::examples::MakeStochasticPendulumDiagram();
  const tern::SimulatorFactory make_simulator = [&](tern::RandomGenerator*) {
    return std::make_unique<tern::Simulator<double>>(*diagram);
  };
  tern::DistributedMonteCarloOptions options;
  options.threads_per_rank = threads;
  tern::DistributedMonteCarloStats stats;
  tern::RandomGenerator generator(2024);  // as examples/monte_carlo
  const auto results = tern::DistributedMonteCarloSimulation(
      make_simulator, tern::examples::PeakAngle,
      tern::examples::kPendulumFinalTime, num_samples, &generator, options,
      &stats);

  // How the samples were shared, gathered for the report.
  std::vector<long long> per_rank(mpi.size());
  const long long mine = stats.samples_run;
  MPI_Gather(&mine, 1, MPI_LONG_LONG, per_rank.data(), 1, MPI_LONG_LONG, 0,
             MPI_COMM_WORLD);
  if (mpi.rank() != 0) return 0;

  tern::examples::PrintPendulumStudy(results);
  std::printf("ran on %d ranks x %d threads; samples per rank:", mpi.size(),
              threads);
  for (long long n : per_rank) std::printf(" %lld", n);
  std::printf("\n");
  if (!check) return 0;
  tern::RandomGenerator threaded_generator(2024);
  const auto threaded = tern::MonteCarloSimulation(
      make_simulator, tern::examples::PeakAngle,
      tern::examples::kPendulumFinalTime, num_samples, &threaded_generator, 1);
  int different = 0;
  for (int i = 0; i < num_samples; ++i) {
    if (std::bit_cast<std::uint64_t>(threaded[i].output) !=
            std::bit_cast<std::uint64_t>(results[i].output) ||
        threaded[i].seed != results[i].seed ||
        threaded[i].error != results[i].error) {
      ++different;
    }
  }
  std::printf("threaded run on 1 thread: %s\n",
              different == 0 ? "bit-identical results" : "DIFFERENT results");
  return different == 0 ? 0 : 1;
}
