#include "tern/systems/primitives/saturation.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(SaturationTest, ClampsEachEntry) {
  const double inf = std::numeric_limits<double>::infinity();
  Saturation<double> sat(Eigen::Vector3d(-1, 0, -inf),
                         Eigen::Vector3d(1, 2, 5));
  auto context = sat.CreateDefaultContext();
  EXPECT_TRUE(sat.HasDirectFeedthrough(0, 0));
  for (const Eigen::Vector3d& u :
       {Eigen::Vector3d(-3, 1, -1e300), Eigen::Vector3d(0.5, 3, 7),
        Eigen::Vector3d(1, -0.1, 5)}) {
    sat.get_input_port().FixValue(context.get(), u);
    const Eigen::Vector3d expected =
        u.cwiseMax(sat.lower()).cwiseMin(sat.upper());
    EXPECT_EQ(sat.get_output_port().Eval(*context), expected);
  }
}

TEST(SaturationTest, AutoDiffDerivativeIsZeroWhereSaturated) {
  Saturation<AutoDiffXd> sat(-1.0, 1.0, 3);
  auto context = sat.CreateDefaultContext();
  sat.get_input_port().FixValue(
      context.get(), InitializeAutoDiff(Eigen::Vector3d(-2, 0.5, 2)));
  const Eigen::MatrixXd J =
      ExtractGradient(sat.get_output_port().Eval(*context), 3);
  EXPECT_EQ(J, Eigen::Vector3d(0, 1, 0).asDiagonal().toDenseMatrix());
}

TEST(SaturationTest, RejectsCrossedLimits) {
  try {
    Saturation<double> sat(Eigen::Vector2d(0, 3), Eigen::Vector2d(1, 2));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "Saturation: limits of entry 1 are [3, 2]; need lower <= upper");
  }
  EXPECT_THROW(
      Saturation<double>(Eigen::Vector2d(0, 0), Eigen::Vector3d(1, 1, 1)),
      std::invalid_argument);
  EXPECT_THROW(Saturation<double>(0, 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
