// An MPI program whose rank 1 fails inside a sample, for
// monte_carlo_mpi_failure_test:
//   monte_carlo_mpi_crash abort   rank 1 calls std::abort() (a crash)
//   monte_carlo_mpi_crash stop    rank 1 stops itself (SIGSTOP): alive but
//                                 silent, as a hung or unreachable node
//   monte_carlo_mpi_crash ok      nothing fails
//   monte_carlo_mpi_crash funneled  nothing fails; MPI initialized with
//                                 MPI_THREAD_FUNNELED only, so the main
//                                 threads communicate alone
// Prints "finished" on rank 0 if the study completes, and whether its
// results equal the threaded run's.
#include <bit>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "tern/mpi/monte_carlo_mpi.h"
#include "tern/systems/analysis/test/monte_carlo_test_models.h"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ok";
  int provided = 0;
  if (mode == "funneled") {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  }
  std::optional<tern::MpiSession> session;
  session.emplace(&argc, &argv);
  const tern::MpiSession& mpi = *session;
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
  // Rank 1 is granted its first chunk before rank 0 samples, so that it
  // runs (and fails in) a sample whatever the ranks' start times: without
  // this, on a loaded machine rank 0 once ran all 200 samples before rank 1
  // asked for work, and the "stop" job finished normally.
  options.wait_for_all_ranks = true;
  tern::RandomGenerator generator(1);
  const auto results = tern::DistributedMonteCarloSimulation(
      factory, output, 1.0, 200, &generator, options);
  if (rank == 0) {
    tern::RandomGenerator threaded_generator(1);
    const auto threaded = tern::MonteCarloSimulation(
        factory, tern::test::kOutputX, 1.0, 200, &threaded_generator);
    bool same = threaded.size() == results.size();
    for (std::size_t i = 0; same && i < results.size(); ++i) {
      same = std::bit_cast<std::uint64_t>(threaded[i].output) ==
             std::bit_cast<std::uint64_t>(results[i].output);
    }
    std::printf("finished %zu samples, %s the threaded run\n", results.size(),
                same ? "identical to" : "DIFFERENT from");
  }
  session.reset();
  if (mode == "funneled") MPI_Finalize();
  return 0;
}
