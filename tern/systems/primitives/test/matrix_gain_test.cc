#include "tern/systems/primitives/matrix_gain.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(MatrixGainTest, OutputIsDTimesU) {
  Eigen::MatrixXd D(2, 3);
  D << 1, 2, 3, -4, 5, -6;
  MatrixGain<double> gain(D);
  auto context = gain.CreateDefaultContext();
  const Eigen::Vector3d u(0.5, -1, 2);
  gain.get_input_port().FixValue(context.get(), u);
  EXPECT_TRUE(gain.get_output_port().Eval(*context).isApprox(D * u, 1e-15));
  EXPECT_EQ(gain.get_output_port().size(), 2);
  MatrixGain<double> identity(4);
  EXPECT_EQ(identity.D(), Eigen::MatrixXd::Identity(4, 4));
}

TEST(MatrixGainTest, AutoDiffJacobianIsD) {
  Eigen::MatrixXd D(3, 2);
  D << 1, 2, 3, 4, 5, 6;
  MatrixGain<AutoDiffXd> gain(D);
  auto context = gain.CreateDefaultContext();
  gain.get_input_port().FixValue(context.get(),
                                 InitializeAutoDiff(Eigen::Vector2d(0.1, 0.2)));
  EXPECT_EQ(ExtractGradient(gain.get_output_port().Eval(*context)), D);
}

TEST(MatrixGainTest, RejectsEmptyMatrix) {
  try {
    MatrixGain<double> gain(Eigen::MatrixXd(0, 2));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "MatrixGain: number of rows of D must be at least 1, got 0");
  }
}

}  // namespace
}  // namespace tern
