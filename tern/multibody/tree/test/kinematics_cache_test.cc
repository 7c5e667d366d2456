#include "tern/multibody/tree/kinematics_cache.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/test/test_trees.h"

namespace tern {
namespace {

TEST(KinematicsCacheTest, SizedForTheTree) {
  const auto tree = test::MakeRandomTree(5, 1, true, false);
  const KinematicsCache<double> cache(tree);
  EXPECT_EQ(cache.num_bodies, tree.num_bodies());
  EXPECT_EQ(static_cast<int>(cache.X_WB.size()), tree.num_bodies());
  EXPECT_EQ(cache.H.rows(), tree.num_velocities());
  EXPECT_EQ(cache.vdot.size(), tree.num_velocities());
  const KinematicsCache<AutoDiffXd> cache_ad(CastTree<AutoDiffXd>(tree));
  EXPECT_EQ(cache_ad.tau.size(), tree.num_velocities());
}

// Without the mass matrix (issue 27: nv x nv was the cost of a scene of
// many free bodies) the cache holds no H, MassMatrix refuses it naming the
// tree, and the O(n) algorithms give the same numbers as with a full cache.
TEST(KinematicsCacheTest, WithoutTheMassMatrixHoldsNoHAndMassMatrixRefusesIt) {
  const auto tree = test::MakeRandomTree(6, 3, true, true);
  KinematicsCache<double> lean(tree, /*with_mass_matrix=*/false);
  KinematicsCache<double> full(tree);
  EXPECT_EQ(lean.H.size(), 0);
  const VectorX<double> q = tree.GetZeroConfiguration();
  const VectorX<double> v =
      VectorX<double>::LinSpaced(tree.num_velocities(), -1, 1);
  const VectorX<double> tau = VectorX<double>::Ones(tree.num_velocities());
  try {
    MassMatrix(tree, &lean, q);
    ADD_FAILURE() << "MassMatrix accepted a cache without H";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'" + tree.name() + "'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("without the mass matrix"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ForwardDynamics(tree, &lean, q, v, tau),
            ForwardDynamics(tree, &full, q, v, tau));
  EXPECT_EQ(BiasTerm(tree, &lean, q, v), BiasTerm(tree, &full, q, v));
}

}  // namespace
}  // namespace tern
