#pragma once
// Monte Carlo across processes and machines on MPI (issue 18, seed 002).
// The same study as MonteCarloSimulation (tern/systems/analysis/
// monte_carlo.h), with the samples spread over the ranks of a communicator
// and over threads within each rank. Every rank calls it with the same
// arguments (a collective call); rank 0 draws every sample's seed from its
// generator, exactly as MonteCarloSimulation does, hands the samples out in
// chunks and gathers the results in sample order. The results on rank 0 are
// bit-identical to MonteCarloSimulation's with the same generator, for any
// number of ranks and threads:
//
//   MpiSession mpi(&argc, &argv);               // MPI_THREAD_SERIALIZED
//   RandomGenerator generator(2024);
//   auto results = DistributedMonteCarloSimulation(
//       make_simulator, output, 10.0, 100000, &generator, {});
//   if (mpi.rank() == 0) { ... results[i] ... }  // empty on other ranks
//
// Load balancing. Rank 0 is a coordinator that also works: it answers
// requests for work while its threads run samples, taking them one at a
// time from the shared counter. Another rank asks rank 0 for a chunk of
// samples whenever fewer than two samples per thread are waiting, so the
// next chunk arrives while the current one runs, and sends each chunk's
// results back as soon as the chunk is done. Messages are handled by the
// sample threads between two samples (under a lock, when MPI provides
// MPI_THREAD_SERIALIZED) and by each rank's main thread, which otherwise
// sleeps: no core is spent waiting. Chunks are guided (Polychronopoulos &
// Kuck, IEEE Trans. Computers 36(12), 1987): a rank gets
// ceil(remaining / (2 ranks)) samples (at least its thread count), so
// chunks are large while much work remains (few messages) and small at the
// end (ranks finish together). options.chunk_size fixes the
// size instead. docs/stochastic.md has the measurements behind the choice.
//
// Failures. A sample that throws is recorded with its message as in
// MonteCarloSimulation and the study goes on. A rank that dies (a crash in
// a sample, a lost node) fails the whole job: Open MPI's mpirun notices and
// kills the job with a message naming the rank; independently of the
// launcher, a watchdog aborts the job (MPI_Abort) with a message naming the
// rank when rank 0 hears nothing from a rank that holds work for
// options.rank_timeout seconds (worker ranks send a heartbeat every
// rank_timeout / 8), or when a rank's request to rank 0 stays unanswered
// that long. No call in here blocks on MPI: every wait polls with a timeout,
// so a job never hangs in this function, unless a sample itself never
// returns (its rank still sends heartbeats; bound the simulation).
//
// Messages use tags kMpiFirstTag to kMpiFirstTag + 3 on `comm` (successive
// calls on one communicator alternate between two pairs, so a rank that has
// finished a call and starts the next cannot be mistaken for one still in
// the first); the calling program must not use those tags on that
// communicator. The call count lives on the communicator (an MPI attribute).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "tern/systems/analysis/monte_carlo.h"

namespace tern {

inline constexpr int kMpiFirstTag = 31001;

struct DistributedMonteCarloOptions {
  MPI_Comm comm{MPI_COMM_WORLD};
  // Worker threads per rank (kNumThreadsAutomatic: every hardware thread).
  // Each rank's main thread only communicates.
  int threads_per_rank{1};
  // Samples per chunk; 0 chooses guided chunks (see above).
  int chunk_size{0};
  // Seconds of silence after which a rank is declared dead (see above).
  double rank_timeout{120.0};
  // Longest sleep, in seconds, of an idle main thread between two polls of
  // the network. With MPI_THREAD_SERIALIZED or more (what MpiSession asks
  // for) the sample threads poll between samples and the main thread is a
  // fallback for long samples; with MPI_THREAD_FUNNELED the main thread
  // polls alone and sleeps at most min(poll_interval, 0.5 ms).
  double poll_interval{0.05};
  // Rank 0's threads take no sample until every other rank has been granted
  // its first chunk (or told there is none), so that each rank's first
  // chunk is the guided share of all num_samples whatever the ranks' start
  // times. For tests and for measurements that must not depend on
  // scheduling; off by default (rank 0 starts at once).
  bool wait_for_all_ranks{false};
  // Called on the rank that runs a sample, on its sample thread, just
  // before it, with the sample's index: a seam to inject slowness or faults
  // in tests. Empty by default.
  std::function<void(std::int64_t index)> before_sample;
};

// What a call did, for benchmarks and tests (filled on every rank).
struct DistributedMonteCarloStats {
  std::int64_t samples_run{0};  // samples this rank ran
  std::int64_t chunks_run{0};   // chunks this rank received (0 on rank 0)
  int num_ranks{0};
  std::int64_t first_chunk{0};    // samples in this rank's first chunk
  std::int64_t largest_chunk{0};  // ... in its largest (0 on rank 0)
};

// Runs num_samples RandomSimulations over the ranks of options.comm (see
// above). Rank 0 returns the num_samples results in sample order, the other
// ranks an empty vector. `generator` is advanced on rank 0 by num_samples
// draws; on return every rank's generator equals rank 0's. Throws
// std::invalid_argument (on every rank, before any message) for the
// arguments MonteCarloSimulation rejects and for chunk_size < 0, a
// non-positive rank_timeout or poll_interval, or a null communicator; throws
// std::logic_error if MPI is not initialized with at least
// MPI_THREAD_FUNNELED, or with exactly that level and the caller is not the
// thread that initialized it. With MPI_THREAD_SERIALIZED the program's other
// threads must not call MPI during the call.
std::vector<RandomSimulationResult> DistributedMonteCarloSimulation(
    const SimulatorFactory& make_simulator, const ScalarSystemFunction& output,
    double final_time, int num_samples, RandomGenerator* generator,
    const DistributedMonteCarloOptions& options = {},
    DistributedMonteCarloStats* stats = nullptr);

// MPI for the lifetime of the object: MPI_Init_thread asking for
// MPI_THREAD_SERIALIZED (DistributedMonteCarloSimulation needs
// MPI_THREAD_FUNNELED and is cheaper with SERIALIZED), unless MPI is
// already initialized, and MPI_Finalize in the destructor if this object
// initialized it. Throws std::runtime_error if MPI cannot provide
// MPI_THREAD_FUNNELED.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }  // in MPI_COMM_WORLD
  int size() const { return size_; }

 private:
  bool owns_{false};
  int rank_{0};
  int size_{1};
};

}  // namespace tern
