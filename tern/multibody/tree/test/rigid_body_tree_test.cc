#include "tern/multibody/tree/rigid_body_tree.h"

#include <gtest/gtest.h>

#include "tern/multibody/tree/test/test_trees.h"

namespace tern {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(RigidBodyTreeTest, SizesNamesAndLookup) {
  const auto tree = test::MakeRandomTree(12, 1, true, false);
  // floating(7/6) + cycle of revolute, prismatic, ball, revolute, planar,
  // fixed for bodies 2..12 (11 bodies).
  EXPECT_EQ(tree.num_bodies(), 13);
  EXPECT_EQ(tree.num_positions(), 7 + 1 + 1 + 4 + 1 + 3 + 0 + 1 + 1 + 4 + 1 + 3 + 0);
  EXPECT_EQ(tree.num_velocities(), 6 + 1 + 1 + 3 + 1 + 3 + 0 + 1 + 1 + 3 + 1 + 3 + 0);
  EXPECT_EQ(tree.FindBodyIndex("body5"), 5);
  EXPECT_EQ(tree.FindJointBodyIndex("joint5"), 5);
  EXPECT_EQ(tree.frame(tree.FindFrameIndex("body5")).body, 5);
  EXPECT_TRUE(tree.HasBody("world"));
  EXPECT_FALSE(tree.HasJoint("nope"));
  EXPECT_EQ(static_cast<int>(tree.GetPositionNames().size()),
            tree.num_positions());
  EXPECT_EQ(tree.GetPositionNames()[3], "joint1_qw");
  EXPECT_EQ(static_cast<int>(tree.GetVelocityNames().size()),
            tree.num_velocities());
  const VectorX<double> q0 = tree.GetZeroConfiguration();
  EXPECT_EQ(q0(3), 1.0);
  EXPECT_NE(ErrorOf([&] { tree.FindBodyIndex("nope"); }).find("'nope'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { tree.FindJointBodyIndex("j"); }).find("'j'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { tree.FindFrameIndex("f"); }).find("'f'"),
            std::string::npos);
}

TEST(RigidBodyTreeTest, CastKeepsEverything) {
  auto tree = test::MakeRandomTree(6, 2, true, true);
  tree.AddFrame("tool", 3, RigidTransform<double>());
  tree.AddMimicConstraint(MimicConstraint{"joint3", "joint2", 3, 2, 2.0, 0.1});
  const auto ad = CastTree<AutoDiffXd>(tree);
  EXPECT_EQ(ad.num_positions(), tree.num_positions());
  EXPECT_EQ(ad.num_frames(), tree.num_frames());
  EXPECT_EQ(ad.mimic_constraints().size(), 1u);
  EXPECT_EQ(ad.frame(ad.FindFrameIndex("tool")).body, 3);
  EXPECT_DOUBLE_EQ(ad.body(4).inertia.m.value(), tree.body(4).inertia.m);
  EXPECT_DOUBLE_EQ(ad.body(4).joint.damping.value(), tree.body(4).joint.damping);
}

TEST(RigidBodyTreeTest, BadBodiesAreRejectedByName) {
  RigidBodyTree<double> tree("t");
  Joint<double> j;
  j.name = "j1";
  j.type = JointType::kRevolute;
  const auto M = SpatialInertia<double>::FromCom(1, Vector3<double>::Zero(),
                                                 Matrix3<double>::Identity());
  tree.AddBody("a", 0, j, M);
  EXPECT_NE(ErrorOf([&] { j.name = "j2"; tree.AddBody("a", 0, j, M); })
                .find("'a' already exists"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { j.name = "j1"; tree.AddBody("b", 0, j, M); })
                .find("joint 'j1'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { j.name = "j3"; tree.AddBody("c", 7, j, M); })
                .find("body 'c' has parent index 7"),
            std::string::npos);
  auto negative = M;
  negative.m = -1;
  EXPECT_NE(ErrorOf([&] { j.name = "j4"; tree.AddBody("d", 0, j, negative); })
                .find("body 'd' has mass -1"),
            std::string::npos);
  auto bad = M;
  bad.I(0, 0) = -3;
  EXPECT_NE(ErrorOf([&] { j.name = "j5"; tree.AddBody("e", 0, j, bad); })
                .find("'e' has a rotational inertia"),
            std::string::npos);
  auto massless = M;
  massless.m = 0;
  massless.h = Vector3<double>(0, 0.1, 0);
  EXPECT_NE(ErrorOf([&] { j.name = "j7"; tree.AddBody("g", 0, j, massless); })
                .find("body 'g' has zero mass but a nonzero first moment"),
            std::string::npos);
  j.axis.setZero();
  EXPECT_NE(ErrorOf([&] { j.name = "j6"; tree.AddBody("f", 0, j, M); })
                .find("zero axis"),
            std::string::npos);
  EXPECT_THROW(tree.AddFrame("a", 0, RigidTransform<double>()),
               std::invalid_argument);
  EXPECT_THROW(tree.AddFrame("g", 9, RigidTransform<double>()),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern
