#include "tern/multibody/tree/kinematics_cache.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tern
