// Every model shipped in models/ loads, has the expected size, and satisfies
// ForwardDynamics = H⁻¹(tau - C) and InverseDynamics(ForwardDynamics(tau)) =
// tau at random states.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

struct ModelCase {
  const char* file;
  bool floating;
  int nq;
  int nv;
};

class ShippedModelTest : public ::testing::TestWithParam<ModelCase> {};

VectorX<double> RandomState(const RigidBodyTree<double>& tree, int n,
                            std::mt19937* gen, bool configuration) {
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  VectorX<double> x(n);
  for (int i = 0; i < n; ++i) x(i) = s(*gen);
  if (configuration) NormalizeQuaternions(tree, &x);
  return x;
}

TEST_P(ShippedModelTest, LoadsAndDynamicsAreConsistent) {
  const ModelCase& c = GetParam();
  UrdfParseOptions options;
  options.floating_base = c.floating;
  const UrdfModel model =
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/" + c.file, options);
  EXPECT_TRUE(model.warnings.empty()) << model.warnings[0].ToString();
  const RigidBodyTree<double>& tree = model.tree;
  ASSERT_EQ(tree.num_positions(), c.nq);
  ASSERT_EQ(tree.num_velocities(), c.nv);
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(42);
  for (int trial = 0; trial < 5; ++trial) {
    const VectorX<double> q = RandomState(tree, c.nq, &gen, true);
    const VectorX<double> v = RandomState(tree, c.nv, &gen, false);
    const VectorX<double> tau = RandomState(tree, c.nv, &gen, false);
    const MatrixX<double> H = MassMatrix(tree, &cache, q);
    Eigen::LLT<MatrixX<double>> llt(H);
    ASSERT_EQ(llt.info(), Eigen::Success) << "H not positive definite";
    EXPECT_TRUE(H.isApprox(H.transpose(), 1e-14));
    const VectorX<double> C = BiasTerm(tree, &cache, q, v);
    const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
    const VectorX<double> expected = llt.solve(tau - C);
    EXPECT_LT((vdot - expected).norm(), 1e-10 * std::max(1.0, expected.norm()));
    const VectorX<double> tau2 = InverseDynamics(tree, &cache, q, v, vdot);
    EXPECT_LT((tau2 - tau).norm(), 1e-10 * std::max(1.0, tau.norm()));
  }
  // No allocation in any algorithm once the cache exists.
  const VectorX<double> q = RandomState(tree, c.nq, &gen, true);
  const VectorX<double> v = RandomState(tree, c.nv, &gen, false);
  test::ScopedAllocationCounter counter;
  ForwardKinematics(tree, &cache, q, v, v);
  MassMatrix(tree, &cache, q);
  InverseDynamics(tree, &cache, q, v, v);
  ForwardDynamics(tree, &cache, q, v, v);
  EXPECT_EQ(counter.count(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Models, ShippedModelTest,
    ::testing::Values(ModelCase{"pendulum.urdf", false, 1, 1},
                      ModelCase{"acrobot.urdf", false, 2, 2},
                      ModelCase{"cart_pole.urdf", false, 2, 2},
                      ModelCase{"arm7.urdf", false, 7, 7},
                      ModelCase{"quadruped.urdf", true, 19, 18},
                      ModelCase{"humanoid.urdf", true, 36, 35}),
    [](const auto& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

TEST(ShippedModelTest, AcrobotMatchesClosedForm) {
  // Spong's acrobot: l1 = 1, l2 = 2, m1 = m2 = 1, rods (thin-rod inertia
  // plus the cylinder radius term r^2/4 * m about the transverse axis).
  const UrdfModel model =
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/acrobot.urdf");
  KinematicsCache<double> cache(model.tree);
  VectorX<double> q(2);
  q << 0.3, -0.8;
  const double r = 0.03;
  const double Ic1 = (3 * r * r + 1.0) / 12, Ic2 = (3 * r * r + 4.0) / 12;
  const double I1 = Ic1 + 0.25, I2 = Ic2 + 1.0, l1 = 1, lc2 = 1;
  const double c2 = std::cos(q(1));
  MatrixX<double> H(2, 2);
  H << I1 + I2 + l1 * l1 + 2 * l1 * lc2 * c2, I2 + l1 * lc2 * c2,
      I2 + l1 * lc2 * c2, I2;
  EXPECT_TRUE(MassMatrix(model.tree, &cache, q).isApprox(H, 1e-12));
}

}  // namespace
}  // namespace tern
