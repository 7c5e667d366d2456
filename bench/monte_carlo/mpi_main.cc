// Distributed Monte Carlo throughput (issue 18): samples per second of the
// stochastic pendulum study (examples/monte_carlo) with
//   1 rank x 1 thread, 2 ranks x 1 thread, 1 rank x 2 threads,
// next to the threaded MonteCarloSimulation on 1 and 2 threads, in one run,
// and the ratio line `monte carlo mpi: 2 ranks / 1 rank = X`.
//
// Launch. Run it plainly: it re-launches itself as
// `mpiexec -np 2 --oversubscribe <itself> <arguments>` (allowing root, as
// Open MPI documents, when run as root). Rank 0 runs Google Benchmark;
// rank 1 waits for commands and joins the 2-rank runs, so every number comes
// from one job and the ratios are side by side. 1-rank runs use
// MPI_COMM_SELF on rank 0 while rank 1 sleeps.
//
// Samples last ~1 ms (the pendulum simulated for 20 s, twice the example's
// time) so that the per-sample overhead of the distribution is measured for
// the sample cost the issue asks about. On a shared machine the wall-clock
// ratio measures free cores, so the program also measures the CPU time of
// both processes per sample: the difference to the threaded run on one
// thread is the cost of the distribution (messages, the coordinator's
// polling, the extra thread), and 2 x cpu(1 rank) / cpu(2 ranks) is the
// scaling to expect on two free cores.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/timing_reporter.h"
#include "examples/monte_carlo/stochastic_pendulum.h"
#include "tern/mpi/monte_carlo_mpi.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/analysis/simulator.h"

namespace {

constexpr double kFinalTime = 2 * tern::examples::kPendulumFinalTime;
constexpr int kSamplesPerIteration = 256;
constexpr int kCommandTag = 100;  // rank 0 -> rank 1: what to run
constexpr int kCpuTag = 101;      // rank 1 -> rank 0: its CPU seconds

struct Command {
  std::int32_t run{0};  // 0: quit, 1: the distributed study, 2: a threaded
                        // study of its own (two independent processes)
  std::int32_t chunk_size{0};
};

struct Study {
  std::unique_ptr<tern::Diagram<double>> diagram =
      tern::examples::MakeStochasticPendulumDiagram();
  tern::SimulatorFactory make_simulator = [this](tern::RandomGenerator*) {
    return std::make_unique<tern::Simulator<double>>(*diagram);
  };
  tern::ScalarSystemFunction output = tern::examples::PeakAngle;
};

std::vector<tern::RandomSimulationResult> RunThreaded(const Study& study,
                                                      int threads,
                                                      std::uint64_t seed) {
  tern::RandomGenerator generator(seed);
  return tern::MonteCarloSimulation(study.make_simulator, study.output,
                                    kFinalTime, kSamplesPerIteration,
                                    &generator, threads);
}

std::vector<tern::RandomSimulationResult> RunDistributed(const Study& study,
                                                         MPI_Comm comm,
                                                         int threads,
                                                         int chunk_size,
                                                         std::uint64_t seed) {
  tern::DistributedMonteCarloOptions options;
  options.comm = comm;
  options.threads_per_rank = threads;
  options.chunk_size = chunk_size;
  tern::RandomGenerator generator(seed);
  return tern::DistributedMonteCarloSimulation(
      study.make_simulator, study.output, kFinalTime, kSamplesPerIteration,
      &generator, options);
}

// One benchmark: `ranks` 1 or 2 with the distributed driver, 0 for the
// threaded MonteCarloSimulation, -1 for the threaded study run by both
// processes at once, independently (the baseline of the 2-rank case: the
// same processes and the same load, no distribution).
void BM_Study(benchmark::State& state, const Study* study, int ranks,
              int threads, int chunk_size) {
  std::uint64_t seed = 1;
  double cpu = 0;
  for (auto _ : state) {
    const double start = tern::bench::ProcessCpuSeconds();
    if (ranks == 0) {
      auto results = RunThreaded(*study, threads, seed);
      benchmark::DoNotOptimize(results.data());
    } else if (ranks == 1) {
      auto results =
          RunDistributed(*study, MPI_COMM_SELF, threads, chunk_size, seed);
      benchmark::DoNotOptimize(results.data());
    } else {
      const Command command{ranks == 2 ? 1 : 2, chunk_size};
      MPI_Send(&command, sizeof(command), MPI_BYTE, 1, kCommandTag,
               MPI_COMM_WORLD);
      auto results = ranks == 2 ? RunDistributed(*study, MPI_COMM_WORLD,
                                                 threads, chunk_size, seed)
                                : RunThreaded(*study, threads, seed);
      benchmark::DoNotOptimize(results.data());
      // Rank 1's CPU time, polled: a blocking MPI_Recv would spin.
      double rank1_cpu = 0;
      MPI_Request request;
      MPI_Irecv(&rank1_cpu, 1, MPI_DOUBLE, 1, kCpuTag, MPI_COMM_WORLD,
                &request);
      for (int done = 0;;) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) break;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
      cpu += rank1_cpu;
    }
    cpu += tern::bench::ProcessCpuSeconds() - start;
    ++seed;
  }
  const std::int64_t per_iteration =
      (ranks == -1 ? 2 : 1) * kSamplesPerIteration;
  const double samples =
      static_cast<double>(state.iterations() * per_iteration);
  state.SetItemsProcessed(state.iterations() * per_iteration);
  state.counters["cpu_ms_per_sample"] = 1e3 * cpu / samples;
}

// Rank 1: joins each 2-rank run rank 0 announces; sleeps (polling with a
// backoff up to 2 ms, so an idle rank 1 costs no core) in between.
void ServeRank1(const Study& study) {
  double sleep = 50e-6;
  for (;;) {
    int flag = 0;
    MPI_Iprobe(0, kCommandTag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::duration<double>(sleep));
      sleep = std::min(2 * sleep, 2e-3);
      continue;
    }
    sleep = 50e-6;
    Command command;
    MPI_Recv(&command, sizeof(command), MPI_BYTE, 0, kCommandTag,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (command.run == 0) return;
    const double start = tern::bench::ProcessCpuSeconds();
    if (command.run == 1) {
      RunDistributed(study, MPI_COMM_WORLD, 1, command.chunk_size, 0);
    } else {
      RunThreaded(study, 1, 0);
    }
    const double cpu = tern::bench::ProcessCpuSeconds() - start;
    MPI_Send(&cpu, 1, MPI_DOUBLE, 0, kCpuTag, MPI_COMM_WORLD);
  }
}

// Re-runs this program under mpiexec with 2 ranks; returns only on failure.
int Relaunch(int argc, char** argv) {
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  std::vector<std::string> args = {TERN_MPIEXEC, "-np", "2", "--oversubscribe",
                                   "/proc/self/exe"};
  std::vector<char> self(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n > 0) args[4] = self.data();
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  std::fflush(stdout);
  execv(TERN_MPIEXEC, c_args.data());
  std::perror("monte_carlo_mpi_bench: cannot run " TERN_MPIEXEC);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr &&
      std::getenv("PMI_RANK") == nullptr) {
    return Relaunch(argc, argv);
  }
  tern::MpiSession mpi(&argc, &argv);
  if (mpi.size() != 2) {
    if (mpi.rank() == 0) {
      std::fprintf(stderr, "monte_carlo_mpi_bench: needs 2 ranks, got %d\n",
                   mpi.size());
    }
    return 2;
  }
  const Study study;
  if (mpi.rank() == 1) {
    ServeRank1(study);
    return 0;
  }

  benchmark::Initialize(&argc, argv);
  struct Case {
    const char* name;
    int ranks, threads, chunk_size;
  };
  const Case cases[] = {
      {"threaded/threads:1", 0, 1, 0},
      {"threaded/threads:2", 0, 2, 0},
      {"threaded/processes:2", -1, 1, 0},
      {"mpi/ranks:1/threads:1", 1, 1, 0},
      {"mpi/ranks:2/threads:1", 2, 1, 0},
      {"mpi/ranks:2/threads:1/chunk:1", 2, 1, 1},
      {"mpi/ranks:1/threads:2", 1, 2, 0},
  };
  for (const Case& c : cases) {
    benchmark::RegisterBenchmark(c.name, BM_Study, &study, c.ranks, c.threads,
                                 c.chunk_size)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(2.0);
  }
  tern::bench::CounterReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const Command quit{0, 0};
  MPI_Send(&quit, sizeof(quit), MPI_BYTE, 1, kCommandTag, MPI_COMM_WORLD);

  auto rate = [&](const char* name) {
    return reporter.Get(name, "items_per_second");
  };
  auto cpu = [&](const char* name) {
    return reporter.Get(name, "cpu_ms_per_sample");
  };
  const double t1 = rate("threaded/threads:1"),
               r1 = rate("mpi/ranks:1/threads:1");
  const double r2 = rate("mpi/ranks:2/threads:1");
  const double r1t2 = rate("mpi/ranks:1/threads:2");
  if (r1 > 0 && r2 > 0 && r1t2 > 0 && t1 > 0) {
    std::printf(
        "monte carlo mpi: %.1f samples/s on 1 rank, %.1f on 2 ranks (1 thread "
        "each), %.1f on 1 rank x 2 threads; threaded: %.1f on 1 thread, %.1f "
        "on 2\n",
        r1, r2, r1t2, t1, rate("threaded/threads:2"));
    std::printf(
        "monte carlo mpi: 2 ranks / 1 rank = %.2f (goal >= 1.8 on 2 "
        "free cores)\n",
        r2 / r1);
    std::printf("monte carlo mpi: 1 rank x 2 threads / 1 rank = %.2f\n",
                r1t2 / r1);
    const double c_t1 = cpu("threaded/threads:1");
    const double c_p2 = cpu("threaded/processes:2");
    const double c_r1 = cpu("mpi/ranks:1/threads:1");
    const double c_r2 = cpu("mpi/ranks:2/threads:1");
    const double c_r2c1 = cpu("mpi/ranks:2/threads:1/chunk:1");
    std::printf(
        "monte carlo mpi: CPU per sample (all processes) %.4f ms threaded, "
        "%.4f ms threaded in 2 processes at once, %.4f ms on 1 rank, %.4f ms "
        "on 2 ranks (guided chunks), %.4f ms on 2 ranks (chunks of 1); "
        "projected 2 ranks / 1 rank on 2 free cores = 2 x %.4f / %.4f = "
        "%.2f\n",
        c_t1, c_p2, c_r1, c_r2, c_r2c1, c_r1, c_r2, 2 * c_r1 / c_r2);
    std::printf(
        "monte carlo mpi: per-sample overhead of the distribution (CPU): 1 "
        "rank vs threaded %.1f us (%.2f%%); 2 ranks vs 2 independent "
        "processes %.1f us (%.2f%%), with chunks of 1 %.1f us (%.2f%%); "
        "samples of %.3f ms\n",
        1e3 * (c_r1 - c_t1), 100 * (c_r1 - c_t1) / c_t1, 1e3 * (c_r2 - c_p2),
        100 * (c_r2 - c_p2) / c_p2, 1e3 * (c_r2c1 - c_p2),
        100 * (c_r2c1 - c_p2) / c_p2, c_t1);
  }
  benchmark::Shutdown();
  return 0;
}
