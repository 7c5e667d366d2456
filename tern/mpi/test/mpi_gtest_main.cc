// main() for GoogleTest programs run under mpirun: every rank runs every
// test and checks its own assertions; rank 0 prints the usual report, the
// other ranks print only their failures, prefixed with their rank. The exit
// code is nonzero on every rank if a test failed on any rank, so mpirun
// fails too.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "tern/mpi/monte_carlo_mpi.h"

namespace {

class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  tern::MpiSession mpi(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  if (mpi.rank() != 0) {
    testing::TestEventListeners& listeners =
        testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(mpi.rank()));
  }
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (mpi.rank() == 0 && any_failed && !failed) {
    std::fprintf(stderr,
                 "a test failed on another rank (see [rank n] lines)\n");
  }
  return any_failed;
}
