// RigidBodyDynamicsModel: its analytic Jacobian equals autodiff through the
// tree, and DiscreteJacobian chains it through every explicit rule to the
// autodiff discrete Jacobian (issue 20), on every shipped model and a tree
// with every joint type, at states whose quaternions are off the unit
// sphere as an integration stage leaves them.
#include "tern/systems/analysis/rigid_body_model.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"
#include "tern/systems/analysis/discrete_jacobian.h"

namespace tern {
namespace {

RigidBodyTree<double> LoadModel(const char* file, bool floating) {
  UrdfParseOptions options;
  options.floating_base = floating;
  return ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/" + file, options).tree;
}

std::vector<RigidBodyTree<double>> AllTrees() {
  std::vector<RigidBodyTree<double>> trees;
  trees.push_back(LoadModel("acrobot.urdf", false));
  trees.push_back(LoadModel("cart_pole.urdf", false));
  trees.push_back(LoadModel("arm7.urdf", false));
  trees.push_back(LoadModel("quadruped.urdf", true));
  trees.push_back(LoadModel("humanoid.urdf", true));
  trees.push_back(test::MakeRandomTree(9, 5, true, true));
  return trees;
}

// x = [q; v] with quaternions scaled by 1.02 (off the sphere) and u.
void RandomState(const RigidBodyTree<double>& tree, std::mt19937* gen,
                 VectorX<double>* x, VectorX<double>* u) {
  const int nq = tree.num_positions(), nv = tree.num_velocities();
  VectorX<double> q = test::RandomConfiguration(tree, gen);
  for (const auto& b : tree.bodies()) {
    if (b.joint.type == JointType::kFloating)
      q.segment<4>(b.position_start + 3) *= 1.02;
    if (b.joint.type == JointType::kBall)
      q.segment<4>(b.position_start) *= 1.02;
  }
  x->resize(nq + nv);
  *x << q, test::RandomVector(nv, gen);
  *u = test::RandomVector(nv, gen);
}

double RelErr(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

TEST(RigidBodyDynamicsModelTest, AnalyticJacobianMatchesAutoDiff) {
  for (const auto& tree : AllTrees()) {
    SCOPED_TRACE(tree.name());
    RigidBodyDynamicsModel model(tree);
    std::mt19937 gen(4);
    VectorX<double> x, u;
    RandomState(tree, &gen, &x, &u);
    Eigen::MatrixXd J, Jad;
    VectorX<double> f, fad;
    internal::ContinuousJacobianAnalytic(model, x, u, 0.0, &f, &J);
    internal::ContinuousJacobianAutoDiff(model, x, u, 0.0, &fad, &Jad);
    EXPECT_LT(RelErr(f, fad), 1e-12);
    EXPECT_LT(RelErr(J, Jad), 1e-9);
  }
}

template <template <typename> class Rule>
void ExpectDiscreteJacobiansAgree(const RigidBodyTree<double>& tree,
                                  double tol) {
  SCOPED_TRACE(tree.name());
  RigidBodyDynamicsModel model(tree);
  std::mt19937 gen(5);
  VectorX<double> x, u;
  RandomState(tree, &gen, &x, &u);
  Eigen::MatrixXd an, ad, cd;
  DiscreteJacobian<Rule>(model, x, u, 0.0, 0.01, &an,
                         JacobianMethod::kAnalytic);
  DiscreteJacobian<Rule>(model, x, u, 0.0, 0.01, &ad,
                         JacobianMethod::kAutoDiff);
  DiscreteJacobian<Rule>(model, x, u, 0.0, 0.01, &cd,
                         JacobianMethod::kCentralDifference);
  EXPECT_LT(RelErr(an, ad), tol);
  EXPECT_LT(RelErr(an, cd), 1e-6);
}

TEST(RigidBodyDynamicsModelTest, RK4DiscreteJacobianOfArmAndHumanoid) {
  ExpectDiscreteJacobiansAgree<RK4>(LoadModel("arm7.urdf", false), 1e-9);
  ExpectDiscreteJacobiansAgree<RK4>(LoadModel("humanoid.urdf", true), 1e-9);
}

TEST(RigidBodyDynamicsModelTest, EveryExplicitRuleOnEveryJointType) {
  const auto tree = test::MakeRandomTree(9, 5, true, true);
  ExpectDiscreteJacobiansAgree<ExplicitEuler>(tree, 1e-9);
  ExpectDiscreteJacobiansAgree<RK2>(tree, 1e-9);
  ExpectDiscreteJacobiansAgree<RK3>(tree, 1e-9);
  ExpectDiscreteJacobiansAgree<RK4>(tree, 1e-9);
}

}  // namespace
}  // namespace tern
