// An MPI program whose rank 1 fails inside a sample, for
// monte_carlo_mpi_failure_test:
//   monte_carlo_mpi_crash abort   rank 1 calls std::abort() (a crash)
//   monte_carlo_mpi_crash stop    rank 1 stops itself (SIGSTOP): alive but
//                                 silent, as a hung or unreachable node
//   monte_carlo_mpi_crash ok      nothing fails
// Prints "finished" on rank 0 if the study completes.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tern/mpi/monte_carlo_mpi.h"
#include "tern/systems/analysis/test/monte_carlo_test_models.h"

int main(int argc, char** argv) {
  tern::MpiSession mpi(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "ok";
  const auto diagram = tern::test::MakeDiagram<tern::test::NoisyDecay>(0.1);
  const auto factory = tern::test::Factory(*diagram, 0.05);
  const int rank = mpi.rank();
  const tern::ScalarSystemFunction output =
      [&](const tern::System<double>& system,
          const tern::Context<double>& context) {
        if (rank == 1 && mode == "abort") std::abort();
        if (rank == 1 && mode == "stop") std::raise(SIGSTOP);
        return tern::test::kOutputX(system, context);
      };
  tern::DistributedMonteCarloOptions options;
  options.rank_timeout = 2.0;
  tern::RandomGenerator generator(1);
  const auto results = tern::DistributedMonteCarloSimulation(
      factory, output, 1.0, 200, &generator, options);
  if (rank == 0) std::printf("finished %zu samples\n", results.size());
  return 0;
}
