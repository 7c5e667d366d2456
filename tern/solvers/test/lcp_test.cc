#include "tern/solvers/lcp.h"

#include <gtest/gtest.h>

#include <string>

namespace tern::solvers {
namespace {

TEST(LcpTest, NaturalResidualMeasuresInfeasibilityAndComplementarity) {
  // A solution: residual 0.
  EXPECT_EQ(LcpNaturalResidual(Eigen::Vector3d(0.0, 2.0, 0.0),
                               Eigen::Vector3d(1.0, 0.0, 0.0)),
            0.0);
  // Complementarity violated by z_1 = 2, w_1 = 0.5: min = 0.5.
  EXPECT_EQ(LcpNaturalResidual(Eigen::Vector3d(0.0, 2.0, 0.0),
                               Eigen::Vector3d(1.0, 0.5, 0.0)),
            0.5);
  // Infeasible: w_2 = -3.
  EXPECT_EQ(LcpNaturalResidual(Eigen::Vector3d(0.0, 2.0, 1.0),
                               Eigen::Vector3d(1.0, 0.0, -3.0)),
            3.0);
  // Infeasible: z_0 = -0.25.
  EXPECT_EQ(LcpNaturalResidual(Eigen::Vector2d(-0.25, 0.0),
                               Eigen::Vector2d(0.0, 1.0)),
            0.25);
}

TEST(LcpTest, StatusNames) {
  EXPECT_EQ(std::string(ToString(LcpStatus::kSolved)), "solved");
  EXPECT_EQ(std::string(ToString(LcpStatus::kRayTermination)),
            "ray termination");
  EXPECT_EQ(std::string(ToString(LcpStatus::kIterationLimit)),
            "iteration limit");
  EXPECT_EQ(std::string(ToString(LcpStatus::kInaccurate)), "inaccurate");
  EXPECT_EQ(std::string(ToString(LcpStatus::kBlockFailure)), "block failure");
  LcpResult r;
  EXPECT_FALSE(r.ok());
  r.status = LcpStatus::kSolved;
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace tern::solvers
