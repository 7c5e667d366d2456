#include "tern/systems/primitives/gain.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(GainTest, ScalarAndElementwiseGains) {
  Gain<double> scalar(2.5, 3);
  auto context = scalar.CreateDefaultContext();
  scalar.get_input_port().FixValue(context.get(), Eigen::Vector3d(1, -2, 4));
  EXPECT_EQ(scalar.get_output_port().Eval(*context),
            Eigen::Vector3d(2.5, -5, 10));
  EXPECT_TRUE(scalar.HasDirectFeedthrough(0, 0));

  Gain<double> vector_gain(Eigen::Vector2d(-1, 3));
  auto c2 = vector_gain.CreateDefaultContext();
  vector_gain.get_input_port().FixValue(c2.get(), Eigen::Vector2d(4, 5));
  EXPECT_EQ(vector_gain.get_output_port().Eval(*c2), Eigen::Vector2d(-4, 15));
}

TEST(GainTest, AutoDiffGradientIsTheGain) {
  Gain<AutoDiffXd> gain(Eigen::Vector2d(2, -7));
  auto context = gain.CreateDefaultContext();
  gain.get_input_port().FixValue(context.get(),
                                 InitializeAutoDiff(Eigen::Vector2d(1, 1)));
  const Eigen::MatrixXd J =
      ExtractGradient(gain.get_output_port().Eval(*context));
  EXPECT_EQ(J, Eigen::Vector2d(2, -7).asDiagonal().toDenseMatrix());
}

TEST(GainTest, RejectsEmptySize) {
  try {
    Gain<double> gain(1.0, 0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Gain: size must be at least 1, got 0");
  }
}

}  // namespace
}  // namespace tern
