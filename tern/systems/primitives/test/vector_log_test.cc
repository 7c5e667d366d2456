#include "tern/systems/primitives/vector_log.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(VectorLogTest, StoresSamplesColumnByColumnAndGrows) {
  VectorLog<double> log(2, 3);
  EXPECT_EQ(log.capacity(), 3);
  for (int k = 0; k < 10; ++k) log.AddData(0.5 * k, Eigen::Vector2d(k, -k * k));
  EXPECT_EQ(log.num_samples(), 10);
  EXPECT_GE(log.capacity(), 10);
  for (int k = 0; k < 10; ++k) {
    EXPECT_EQ(log.sample_times()[k], 0.5 * k);
    EXPECT_EQ(log.data().col(k), Eigen::Vector2d(k, -k * k));
  }
  const int capacity = log.capacity();
  log.Clear();
  EXPECT_EQ(log.num_samples(), 0);
  EXPECT_EQ(log.capacity(), capacity);
  log.Reserve(100);
  EXPECT_EQ(log.capacity(), 100);
  EXPECT_EQ(log.data().cols(), 0);
}

TEST(VectorLogTest, AutoDiffAndSizeErrors) {
  VectorLog<AutoDiffXd> log(1);
  log.AddData(AutoDiffXd(1.0),
              InitializeAutoDiff(Eigen::VectorXd::Constant(1, 2.0)));
  EXPECT_EQ(log.data()(0, 0).value(), 2.0);
  try {
    log.AddData(AutoDiffXd(2.0), VectorX<AutoDiffXd>(3));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "VectorLog::AddData: sample has size 3 but the log records size 1");
  }
  EXPECT_THROW(VectorLog<double>(-1), std::invalid_argument);
}

// A wide log (a scene of many bodies) starts small and grows (issue 27:
// 1,000 samples of 13,000 entries were preallocated per Context, twice).
TEST(VectorLogTest, WideLogsPreallocateWithinABudget) {
  EXPECT_EQ(VectorLog<double>(13).capacity(),
            VectorLog<double>::kDefaultCapacity);
  const VectorLog<double> wide(13000);
  EXPECT_EQ(wide.capacity(), 16);
  const VectorLog<double> medium(1000);
  EXPECT_EQ(medium.capacity(), VectorLog<double>::kDefaultValueBudget / 1000);
  VectorLog<double> log(13000);
  for (int k = 0; k < 40; ++k) {
    log.AddData(k, Eigen::VectorXd::Constant(13000, k));
  }
  EXPECT_EQ(log.num_samples(), 40);
  EXPECT_EQ(log.data()(12999, 39), 39.0);
  EXPECT_EQ(VectorLog<double>(5, 3).capacity(), 3);
}

}  // namespace
}  // namespace tern
