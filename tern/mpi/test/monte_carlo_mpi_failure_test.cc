// A rank that dies or stops fails the job with a message naming it, and the
// job never hangs: runs `mpirun -np 2 monte_carlo_mpi_crash <mode>` and
// checks its exit status, its output and how long it took.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>

namespace {

struct JobRun {
  int status{0};
  std::string output;
  double seconds{0};
};

JobRun Launch(const std::string& mode) {
  const std::string command = std::string(TERN_MPIEXEC) +
                              " -np 2 --oversubscribe " +
                              TERN_MPI_CRASH_PROGRAM + " " + mode + " 2>&1";
  const auto start = std::chrono::steady_clock::now();
  JobRun run;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return run;
  }
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) {
    run.output += buffer.data();
  }
  run.status = pclose(pipe);
  run.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return run;
}

bool ExitedWithZero(int status) {
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The same job without failures finishes with the threaded run's results,
// whether the sample threads communicate (MPI_THREAD_SERIALIZED) or only
// the main threads (MPI_THREAD_FUNNELED).
TEST(DistributedMonteCarloFailureTest, HealthyJobFinishes) {
  for (const char* mode : {"ok", "funneled"}) {
    const JobRun run = Launch(mode);
    EXPECT_TRUE(ExitedWithZero(run.status)) << mode << ": " << run.output;
    EXPECT_NE(
        run.output.find("finished 200 samples, identical to the threaded run"),
        std::string::npos)
        << mode << ": " << run.output;
  }
}

// A crash in a sample on rank 1: Open MPI's mpirun kills the job and names
// the rank ("mpirun noticed that process rank 1 ... exited on signal 6").
TEST(DistributedMonteCarloFailureTest, CrashedRankFailsTheJobNamingIt) {
  const JobRun run = Launch("abort");
  EXPECT_FALSE(ExitedWithZero(run.status)) << run.output;
  EXPECT_NE(run.output.find("rank 1"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("finished"), std::string::npos) << run.output;
  EXPECT_LT(run.seconds, 60) << run.output;
}

// Rank 1 stops (alive, silent): the launcher sees nothing wrong, so the
// watchdog (rank_timeout = 2 s) must abort the job, naming rank 1.
TEST(DistributedMonteCarloFailureTest, SilentRankIsAbortedByTheWatchdog) {
  const JobRun run = Launch("stop");
  EXPECT_FALSE(ExitedWithZero(run.status)) << run.output;
  EXPECT_NE(run.output.find("DistributedMonteCarloSimulation: rank 1 has "
                            "sent nothing for 2 s while holding"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(run.output.find("finished"), std::string::npos) << run.output;
  EXPECT_LT(run.seconds, 60) << run.output;
}

}  // namespace
