// Runs under `mpirun -np 3` (tern/mpi/CMakeLists.txt); every rank runs
// every test. Communicators of 1, 2 and 3 ranks are split off MPI_COMM_WORLD
// so one launch checks every rank count.
#include "tern/mpi/monte_carlo_mpi.h"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tern/systems/analysis/test/monte_carlo_test_models.h"

namespace tern {
namespace {

int WorldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int WorldSize() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// The first `k` ranks of MPI_COMM_WORLD (MPI_COMM_NULL on the others).
class FirstRanks {
 public:
  explicit FirstRanks(int k) {
    MPI_Comm_split(MPI_COMM_WORLD, WorldRank() < k ? 0 : MPI_UNDEFINED,
                   WorldRank(), &comm_);
  }
  ~FirstRanks() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_{MPI_COMM_NULL};
};

void ExpectSameResults(const std::vector<RandomSimulationResult>& a,
                       const std::vector<RandomSimulationResult>& b,
                       const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].seed, b[i].seed) << what << ", sample " << i;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a[i].output),
              std::bit_cast<std::uint64_t>(b[i].output))
        << what << ", sample " << i;
    EXPECT_EQ(a[i].error, b[i].error) << what << ", sample " << i;
  }
}

// Bit-identical to the threaded run for 1, 2 and 3 ranks, 1 and 2 threads
// per rank and guided or fixed chunks, failing samples and their messages
// included; every rank's generator ends where rank 0's does.
TEST(DistributedMonteCarloTest, BitIdenticalToThreadedRun) {
  // x0 > 0.8 throws: about one sample in five fails.
  const auto diagram = test::MakeDiagram<test::NoisyDecay>(0.1, 0.8);
  const auto factory = test::Factory(*diagram, 0.05);
  constexpr int kSamples = 40;
  RandomGenerator reference_generator(31);
  const auto reference = MonteCarloSimulation(
      factory, test::kOutputX, 1.0, kSamples, &reference_generator, 1);
  int failures = 0;
  for (const auto& r : reference) failures += r.ok() ? 0 : 1;
  ASSERT_GT(failures, 0);
  ASSERT_LT(failures, kSamples);

  for (int ranks = 1; ranks <= WorldSize(); ++ranks) {
    FirstRanks comm(ranks);
    if (comm.get() == MPI_COMM_NULL) continue;
    for (int threads : {1, 2}) {
      for (int chunk : {0, 1, 7}) {
        const std::string what = std::to_string(ranks) + " ranks, " +
                                 std::to_string(threads) + " threads, chunk " +
                                 std::to_string(chunk);
        DistributedMonteCarloOptions options;
        options.comm = comm.get();
        options.threads_per_rank = threads;
        options.chunk_size = chunk;
        DistributedMonteCarloStats stats;
        RandomGenerator generator(WorldRank() == 0 ? 31 : 1000 + WorldRank());
        const auto results = DistributedMonteCarloSimulation(
            factory, test::kOutputX, 1.0, kSamples, &generator, options,
            &stats);
        EXPECT_EQ(generator, reference_generator) << what;
        EXPECT_EQ(stats.num_ranks, ranks);
        std::int64_t total = 0;
        MPI_Allreduce(&stats.samples_run, &total, 1, MPI_INT64_T, MPI_SUM,
                      comm.get());
        EXPECT_EQ(total, kSamples) << what;
        if (WorldRank() == 0) {
          ExpectSameResults(results, reference, what);
        } else {
          EXPECT_TRUE(results.empty()) << what;
        }
      }
    }
  }
}

// Rank 1's samples are slow (a hook sleeps 20 ms before each), and with
// chunks handed out on demand a slow rank never holds more than a guided
// share of the remaining work. What the scheduler guarantees, whatever the
// machine's load (issue 26: the earlier "rank 0 ran at least 40" failed on a
// loaded 2-core machine when rank 1 started late): with wait_for_all_ranks,
// rank 1's first chunk is exactly ceil(60 / (2 * 2 ranks)) = 15 samples,
// no chunk it gets is larger, every sample runs once on one rank, and the
// results are the threaded run's.
TEST(DistributedMonteCarloTest, SlowRankHoldsAGuidedShare) {
  ASSERT_GE(WorldSize(), 2) << "run under mpirun with 2 or more ranks";
  const auto diagram = test::MakeDiagram<test::NoisyDecay>(0.1);
  const auto factory = test::Factory(*diagram, 0.05);
  constexpr int kSamples = 60;
  FirstRanks comm(2);
  if (comm.get() == MPI_COMM_NULL) return;
  DistributedMonteCarloOptions options;
  options.comm = comm.get();
  options.wait_for_all_ranks = true;
  std::atomic<int> hooked{0};
  options.before_sample = [&hooked](std::int64_t) {
    ++hooked;
    if (WorldRank() == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  DistributedMonteCarloStats stats;
  RandomGenerator generator(5);
  const auto results = DistributedMonteCarloSimulation(
      factory, test::kOutputX, 1.0, kSamples, &generator, options, &stats);
  EXPECT_EQ(hooked.load(), stats.samples_run);
  std::int64_t total = 0;
  MPI_Allreduce(&stats.samples_run, &total, 1, MPI_INT64_T, MPI_SUM,
                comm.get());
  EXPECT_EQ(total, kSamples);
  if (WorldRank() == 0) {
    RandomGenerator reference_generator(5);
    ExpectSameResults(results,
                      MonteCarloSimulation(factory, test::kOutputX, 1.0,
                                           kSamples, &reference_generator),
                      "slow rank 1");
  } else {
    EXPECT_GE(stats.chunks_run, 1);
    EXPECT_EQ(stats.first_chunk, 15);
    EXPECT_LE(stats.largest_chunk, 15);
    EXPECT_GE(stats.samples_run, 15);
  }
}

// More ranks than samples, and no samples at all.
TEST(DistributedMonteCarloTest, FewerSamplesThanRanks) {
  const auto diagram = test::MakeDiagram<test::NoisyDecay>(0.1);
  const auto factory = test::Factory(*diagram, 0.05);
  for (int n : {0, 1, 2}) {
    RandomGenerator generator(8), reference_generator(8);
    DistributedMonteCarloOptions options;
    options.threads_per_rank = 2;
    const auto results = DistributedMonteCarloSimulation(
        factory, test::kOutputX, 0.5, n, &generator, options);
    const auto reference = MonteCarloSimulation(factory, test::kOutputX, 0.5, n,
                                                &reference_generator);
    EXPECT_EQ(generator, reference_generator);
    if (WorldRank() == 0) {
      ExpectSameResults(results, reference, "few");
    }
  }
}

// Calls in quick succession on one communicator: a rank that has finished
// a call (rank 0 still waits for others) and starts the next must not be
// answered within the old call (the tags alternate between calls).
TEST(DistributedMonteCarloTest, BackToBackCallsDoNotMix) {
  const auto diagram = test::MakeDiagram<test::NoisyDecay>(0.1);
  const auto factory = test::Factory(*diagram, 0.05);
  RandomGenerator generator(12), reference_generator(12);
  for (int call = 0; call < 30; ++call) {
    const int n = call % 4;  // 0 to 3 samples: most ranks get none
    const auto results = DistributedMonteCarloSimulation(
        factory, test::kOutputX, 0.2, n, &generator);
    const auto reference = MonteCarloSimulation(factory, test::kOutputX, 0.2, n,
                                                &reference_generator);
    ASSERT_EQ(generator, reference_generator) << "call " << call;
    if (WorldRank() == 0) {
      ExpectSameResults(results, reference, "call " + std::to_string(call));
    }
  }
}

// Argument errors throw on every rank before any message is sent, so the
// job goes on.
TEST(DistributedMonteCarloTest, RejectsBadArguments) {
  const auto diagram = test::MakeDiagram<test::NoisyDecay>(0.1);
  const auto factory = test::Factory(*diagram, 0.05);
  RandomGenerator g(1);
  auto message = [&](const DistributedMonteCarloOptions& options,
                     int n = 4) -> std::string {
    try {
      DistributedMonteCarloSimulation(factory, test::kOutputX, 1.0, n, &g,
                                      options);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no invalid_argument)";
  };
  DistributedMonteCarloOptions options;
  EXPECT_EQ(message(options, -1),
            "DistributedMonteCarloSimulation: num_samples must be >= 0, got "
            "-1");
  options.chunk_size = -2;
  EXPECT_EQ(message(options),
            "DistributedMonteCarloSimulation: chunk_size must be >= 0 (0: "
            "guided), got -2");
  options = {};
  options.threads_per_rank = -1;
  EXPECT_NE(message(options).find("num_parallel_executions must be >= 0"),
            std::string::npos);
  options = {};
  options.rank_timeout = 0;
  EXPECT_NE(message(options).find("rank_timeout and poll_interval must be "
                                  "positive"),
            std::string::npos);
  options = {};
  options.comm = MPI_COMM_NULL;
  EXPECT_EQ(message(options),
            "DistributedMonteCarloSimulation: comm is MPI_COMM_NULL");
  EXPECT_THROW(
      DistributedMonteCarloSimulation(factory, test::kOutputX, 1.0, 4, nullptr),
      std::invalid_argument);
  // Nothing was consumed: the next call still works.
  RandomGenerator generator(3);
  const auto results = DistributedMonteCarloSimulation(factory, test::kOutputX,
                                                       1.0, 5, &generator);
  if (WorldRank() == 0) {
    EXPECT_EQ(results.size(), 5u);
  }
}

}  // namespace
}  // namespace tern
