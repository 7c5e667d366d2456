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
  EXPECT_EQ(tree.num_positions(),
            7 + 1 + 1 + 4 + 1 + 3 + 0 + 1 + 1 + 4 + 1 + 3 + 0);
  EXPECT_EQ(tree.num_velocities(),
            6 + 1 + 1 + 3 + 1 + 3 + 0 + 1 + 1 + 3 + 1 + 3 + 0);
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
  EXPECT_DOUBLE_EQ(ad.body(4).joint.damping.value(),
                   tree.body(4).joint.damping);
}

TEST(RigidBodyTreeTest, BadBodiesAreRejectedByName) {
  RigidBodyTree<double> tree("t");
  Joint<double> j;
  j.name = "j1";
  j.type = JointType::kRevolute;
  const auto M = SpatialInertia<double>::FromCom(1, Vector3<double>::Zero(),
                                                 Matrix3<double>::Identity());
  tree.AddBody("a", 0, j, M);
  EXPECT_NE(ErrorOf([&] {
              j.name = "j2";
              tree.AddBody("a", 0, j, M);
            }).find("'a' already exists"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              j.name = "j1";
              tree.AddBody("b", 0, j, M);
            }).find("joint 'j1'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              j.name = "j3";
              tree.AddBody("c", 7, j, M);
            }).find("body 'c' has parent index 7"),
            std::string::npos);
  auto negative = M;
  negative.m = -1;
  EXPECT_NE(ErrorOf([&] {
              j.name = "j4";
              tree.AddBody("d", 0, j, negative);
            }).find("body 'd' has mass -1"),
            std::string::npos);
  auto bad = M;
  bad.I(0, 0) = -3;
  EXPECT_NE(ErrorOf([&] {
              j.name = "j5";
              tree.AddBody("e", 0, j, bad);
            }).find("'e' has a rotational inertia"),
            std::string::npos);
  auto massless = M;
  massless.m = 0;
  massless.h = Vector3<double>(0, 0.1, 0);
  EXPECT_NE(ErrorOf([&] {
              j.name = "j7";
              tree.AddBody("g", 0, j, massless);
            }).find("body 'g' has zero mass but a nonzero first moment"),
            std::string::npos);
  j.axis.setZero();
  EXPECT_NE(ErrorOf([&] {
              j.name = "j6";
              tree.AddBody("f", 0, j, M);
            }).find("zero axis"),
            std::string::npos);
  EXPECT_THROW(tree.AddFrame("a", 0, RigidTransform<double>()),
               std::invalid_argument);
  EXPECT_THROW(tree.AddFrame("g", 9, RigidTransform<double>()),
               std::invalid_argument);
}

// Issue 12, item 11: principal moments must satisfy A + B >= C.
TEST(RigidBodyTreeTest, InertiaTriangleInequalityNamesTheBody) {
  RigidBodyTree<double> tree("t");
  Joint<double> j;
  j.type = JointType::kRevolute;
  j.name = "j";
  Matrix3<double> I_c = Vector3<double>(1, 1, 2.5).asDiagonal();
  try {
    tree.AddBody(
        "impossible", 0, j,
        SpatialInertia<double>::FromCom(1, Vector3<double>(0.1, 0, 0), I_c));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'impossible'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("A + B >= C"), std::string::npos);
  }
  // A thin disk (A + B = C) and a thin rod (A = 0, B = C) are fine.
  I_c = Vector3<double>(1, 1, 2).asDiagonal();
  EXPECT_NO_THROW(tree.AddBody(
      "disk", 0, j,
      SpatialInertia<double>::FromCom(1, Vector3<double>::Zero(), I_c)));
  j.name = "j2";
  I_c = Vector3<double>(0, 1, 1).asDiagonal();
  EXPECT_NO_THROW(tree.AddBody(
      "rod", 0, j,
      SpatialInertia<double>::FromCom(1, Vector3<double>::Zero(), I_c)));
}

// Issue 12, item 11: a mass matrix singular by construction is found at
// build time, naming the joint and its body.
TEST(RigidBodyTreeTest, SingularMassMatrixIsRejectedNamingTheJoint) {
  const auto body_inertia = SpatialInertia<double>::FromCom(
      1.0, Vector3<double>(0, 0, -0.5), Matrix3<double>::Identity() * 0.01);
  auto make = [&](const SpatialInertia<double>& leaf, double armature,
                  const Vector3<double>& leaf_axis) {
    RigidBodyTree<double> tree("arm");
    Joint<double> j;
    j.type = JointType::kRevolute;
    j.axis = Vector3<double>::UnitY();
    j.name = "shoulder";
    const int arm = tree.AddBody("upper", 0, j, body_inertia);
    j.name = "wrist";
    j.axis = leaf_axis;
    j.armature = armature;
    j.X_PJ.p = Vector3<double>(0, 0, -1);
    tree.AddBody("hand", arm, j, leaf);
    return tree;
  };
  const Vector3<double> x = Vector3<double>::UnitX();
  EXPECT_NO_THROW(CheckMassMatrixNonsingular(make(body_inertia, 0, x)));
  // A massless leaf on a revolute joint.
  try {
    CheckMassMatrixNonsingular(make(SpatialInertia<double>(), 0, x));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("joint 'wrist'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("body 'hand'"), std::string::npos);
  }
  // ... unless the joint has armature.
  EXPECT_NO_THROW(
      CheckMassMatrixNonsingular(make(SpatialInertia<double>(), 0.1, x)));
  // A point mass on its own revolute axis has no inertia about it.
  const auto point_on_axis = SpatialInertia<double>::FromCom(
      2.0, Vector3<double>(0.3, 0, 0), Matrix3<double>::Zero());
  EXPECT_EQ(FindSingularMassMatrixJoint(make(point_on_axis, 0, x), nullptr), 2);
  EXPECT_EQ(FindSingularMassMatrixJoint(
                make(point_on_axis, 0, Vector3<double>::UnitY()), nullptr),
            -1);
  // A massless middle body whose child's joint turns about the same axis
  // through the same point: the composite of the subtree about the first
  // joint has inertia, but the articulated inertia is zero (the child spins
  // freely), so a composite test alone would miss it.
  {
    RigidBodyTree<double> tree("coaxial");
    Joint<double> j;
    j.type = JointType::kRevolute;
    j.axis = Vector3<double>::UnitZ();
    j.name = "outer";
    const int mid = tree.AddBody("ring", 0, j, SpatialInertia<double>());
    j.name = "inner";
    tree.AddBody(
        "rotor", mid, j,
        SpatialInertia<double>::FromCom(1.0, Vector3<double>::Zero(),
                                        Matrix3<double>::Identity() * 0.01));
    std::string why;
    EXPECT_EQ(FindSingularMassMatrixJoint(tree, &why), 1) << why;
    EXPECT_NE(why.find("joint 'outer'"), std::string::npos) << why;
  }
  // A massless floating base whose only child slides along x.
  {
    RigidBodyTree<double> tree("cart");
    Joint<double> fj;
    fj.type = JointType::kFloating;
    fj.name = "floating_base";
    const int rail = tree.AddBody("rail", 0, fj, SpatialInertia<double>());
    Joint<double> pj;
    pj.type = JointType::kPrismatic;
    pj.name = "slider";
    pj.axis = Vector3<double>::UnitX();
    tree.AddBody("cart", rail, pj, body_inertia);
    std::string why;
    EXPECT_EQ(FindSingularMassMatrixJoint(tree, &why), 1) << why;
    EXPECT_NE(why.find("joint 'floating_base'"), std::string::npos) << why;
    EXPECT_NE(why.find("body 'rail'"), std::string::npos) << why;
  }
  // The random test trees (all joint types) are fine.
  for (unsigned seed : {1u, 2u, 3u}) {
    EXPECT_NO_THROW(CheckMassMatrixNonsingular(
        test::MakeRandomTree(14, seed, true, false)));
  }
}

}  // namespace
}  // namespace tern
