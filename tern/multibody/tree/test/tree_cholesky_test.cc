#include "tern/multibody/tree/tree_cholesky.h"

#include <gtest/gtest.h>

#include <random>

#include "tern/common/autodiff.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/test/test_trees.h"

namespace tern {
namespace {

using test::MakeRandomTree;
using test::RandomConfiguration;
using test::RandomInertia;
using test::RandomTransform;

// A forest: three trees from the world (a floating chain, a revolute chain
// with a welded link and a ball joint, a planar body), so the factor has
// several roots and joints of 1, 3, 6 dofs and of none.
RigidBodyTree<double> MakeForest(unsigned seed) {
  std::mt19937 gen(seed);
  RigidBodyTree<double> tree("forest");
  auto add = [&](const char* name, int parent, JointType type) {
    Joint<double> j;
    j.name = std::string("j_") + name;
    j.type = type;
    j.X_PJ = RandomTransform(&gen);
    j.axis = Vector3<double>(0.3, -0.5, 0.8).normalized();
    j.armature = 0.01;
    return tree.AddBody(name, parent, j, RandomInertia(&gen));
  };
  const int a = add("a", 0, JointType::kFloating);
  const int b = add("b", 0, JointType::kRevolute);
  const int a1 = add("a1", a, JointType::kRevolute);
  const int b1 = add("b1", b, JointType::kFixed);
  add("c", 0, JointType::kPlanar);
  add("a2", a1, JointType::kPrismatic);
  add("b2", b1, JointType::kBall);
  add("a3", a, JointType::kRevolute);
  return tree;
}

// Solves against Eigen's dense LLT of the same H, for full and sparse
// right-hand sides, on random trees and a forest.
TEST(TreeCholesky, SolvesAsTheDenseCholesky) {
  std::mt19937 gen(7);
  std::vector<RigidBodyTree<double>> trees;
  for (unsigned seed : {1u, 2u, 3u}) {
    trees.push_back(MakeRandomTree(14, seed, /*all_types=*/true, true));
  }
  trees.push_back(MakeForest(4));
  for (const RigidBodyTree<double>& tree : trees) {
    KinematicsCache<double> cache(tree, true);
    const MatrixX<double> H =
        MassMatrix(tree, &cache, RandomConfiguration(tree, &gen));
    const int n = tree.num_velocities();
    TreeCholesky<double> factor(tree);
    ASSERT_EQ(factor.Compute(H), -1) << tree.name();
    // A matrix of columns: random, and unit vectors (a joint-limit row).
    MatrixX<double> X(n, n + 2);
    X.leftCols(2) = MatrixX<double>::Random(n, 2);
    X.rightCols(n) = MatrixX<double>::Identity(n, n);
    const MatrixX<double> expected = H.llt().solve(X);
    factor.SolveInPlace(X);
    EXPECT_LT((X - expected).norm(), 1e-10 * expected.norm()) << tree.name();
    VectorX<double> x = VectorX<double>::Ones(n);
    factor.SolveInPlace(&x);
    EXPECT_LT((H * x - VectorX<double>::Ones(n)).norm(), 1e-10 * H.norm());
  }
}

// The factor reads only the ancestor paths: garbage elsewhere in H (the
// entries that are zero for a tree) changes nothing.
TEST(TreeCholesky, ReadsOnlyTheAncestorPaths) {
  const RigidBodyTree<double> tree = MakeForest(5);
  KinematicsCache<double> cache(tree, true);
  std::mt19937 gen(3);
  const MatrixX<double> H =
      MassMatrix(tree, &cache, RandomConfiguration(tree, &gen));
  TreeCholesky<double> factor(tree);
  const std::vector<int>& parent = factor.dof_parents();
  MatrixX<double> dirty = H;
  int off_path = 0;
  for (int k = 0; k < H.rows(); ++k) {
    for (int i = 0; i < k; ++i) {
      bool ancestor = false;
      for (int j = parent[k]; j >= 0; j = parent[j]) ancestor |= j == i;
      if (ancestor) continue;
      EXPECT_EQ(H(k, i), 0.0) << k << ", " << i;  // a tree's H
      dirty(k, i) = dirty(i, k) = 1e3;
      ++off_path;
    }
  }
  ASSERT_GT(off_path, 0);  // the forest has unrelated dofs
  ASSERT_EQ(factor.Compute(dirty), -1);
  VectorX<double> x = VectorX<double>::LinSpaced(H.rows(), -1, 1);
  const VectorX<double> expected = H.llt().solve(x);
  factor.SolveInPlace(&x);
  EXPECT_LT((x - expected).norm(), 1e-10 * expected.norm());
}

// A matrix that is not positive definite names the dof; a wrong size is
// refused.
TEST(TreeCholesky, BadInput) {
  const RigidBodyTree<double> tree = MakeForest(6);
  KinematicsCache<double> cache(tree, true);
  MatrixX<double> H = MassMatrix(tree, &cache, tree.GetZeroConfiguration());
  TreeCholesky<double> factor(tree);
  const int n = tree.num_velocities();
  H(n - 1, n - 1) = -1;
  EXPECT_EQ(factor.Compute(H), n - 1);
  VectorX<double> wrong(n + 1);
  EXPECT_THROW(factor.SolveInPlace(&wrong), std::invalid_argument);
}

// With AutoDiff scalars the derivatives pass through (no update is skipped
// where a value is zero but its derivatives are not): d(H^-1 b)/db = H^-1.
TEST(TreeCholesky, AutoDiffDerivatives) {
  const RigidBodyTree<double> tree = MakeForest(8);
  KinematicsCache<double> cache(tree, true);
  const MatrixX<double> H =
      MassMatrix(tree, &cache, tree.GetZeroConfiguration());
  const int n = tree.num_velocities();
  const RigidBodyTree<AutoDiffXd> tree_ad = CastTree<AutoDiffXd>(tree);
  TreeCholesky<AutoDiffXd> factor(tree_ad);
  ASSERT_EQ(factor.Compute(H.cast<AutoDiffXd>()), -1);
  VectorX<AutoDiffXd> b(n);
  for (int i = 0; i < n; ++i) {
    b[i].value() = 0;  // zero values, unit derivatives
    b[i].derivatives() = VectorX<double>::Unit(n, i);
  }
  factor.SolveInPlace(&b);
  const MatrixX<double> Hinv = H.inverse();
  for (int i = 0; i < n; ++i) {
    EXPECT_LT((b[i].derivatives() - Hinv.row(i).transpose()).norm(),
              1e-10 * Hinv.norm());
  }
}

}  // namespace
}  // namespace tern
