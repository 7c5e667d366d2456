#include "tern/multibody/scene/scene.h"

#include <gtest/gtest.h>

#include <string>

#include "tern/math/rotation.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/kinematics_cache.h"

namespace tern {
namespace {

// Two links, the second mimicking the first, and a frame on the second.
const char* kMimicArm = R"(
<robot name="m">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0 0 -0.25"/><mass value="1"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.001" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <link name="b"><inertial><origin xyz="0.1 0 -0.25"/><mass value="2"/>
    <inertia ixx="0.03" iyy="0.02" izz="0.015" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <joint name="ja" type="revolute"><parent link="base"/><child link="a"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/>
  </joint>
  <joint name="jb" type="revolute"><origin xyz="0 0 -0.5"/>
    <parent link="a"/><child link="b"/><axis xyz="1 0 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="5"/>
    <mimic joint="ja" multiplier="2" offset="0.1"/>
  </joint>
</robot>)";

RigidBodyTree<double> MimicArm() {
  RigidBodyTree<double> tree = ParseUrdfString(kMimicArm).tree;
  tree.AddFrame("tip", tree.FindBodyIndex("b"),
                RigidTransform<double>(Matrix3<double>::Identity(),
                                       Vector3<double>(0, 0, -0.5)));
  return tree;
}

Eigen::MatrixXd H(const RigidBodyTree<double>& tree, const Eigen::VectorXd& q) {
  KinematicsCache<double> cache(tree);
  return MassMatrix(tree, &cache, q);
}

TEST(SceneTest, CopyBodiesPrefixesMovesTheRootAndKeepsMimicAndFrames) {
  const RigidBodyTree<double> model = MimicArm();
  RigidBodyTree<double> world("world");
  const RigidTransform<double> X_WM(
      RollPitchYawToRotationMatrix(Vector3<double>(0.3, -0.2, 1.1)),
      Vector3<double>(1, 2, 3));
  const std::vector<int> index = CopyBodies(model, "r_", X_WM, {}, &world);
  ASSERT_EQ(world.num_bodies(), model.num_bodies());
  for (int b = 1; b < model.num_bodies(); ++b) {
    EXPECT_EQ(world.body(index[b]).name, "r_" + model.body(b).name);
    EXPECT_EQ(world.body(index[b]).joint.name, "r_" + model.body(b).joint.name);
  }
  ASSERT_EQ(world.mimic_constraints().size(), 1u);
  const MimicConstraint& m = world.mimic_constraints()[0];
  EXPECT_EQ(m.joint, "r_jb");
  EXPECT_EQ(m.leader_joint, "r_ja");
  EXPECT_EQ(m.body, world.FindJointBodyIndex("r_jb"));
  EXPECT_EQ(m.leader_body, world.FindJointBodyIndex("r_ja"));
  EXPECT_EQ(m.multiplier, 2);
  EXPECT_EQ(m.offset, 0.1);
  EXPECT_EQ(world.frame(world.FindFrameIndex("r_tip")).body,
            world.FindBodyIndex("r_b"));
  // A rigid motion of a fixed base leaves the mass matrix as it was.
  const Eigen::VectorXd q = Eigen::Vector2d(0.4, -0.7);
  EXPECT_TRUE(H(world, q).isApprox(H(model, q), 1e-12));
  // The same model again needs another prefix; the message names the body.
  try {
    CopyBodies(model, "r_", X_WM, {}, &world);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "body 'r_base' is defined twice; give one model a 'prefix'");
  }
}

TEST(SceneTest, ScaleBodyMassesScalesTheMassMatrixAndKeepsTheMimic) {
  const RigidBodyTree<double> tree = MimicArm();
  const Eigen::VectorXd q = Eigen::Vector2d(0.4, -0.7);
  // Every body scaled by k: H scales by k.
  const RigidBodyTree<double> heavy =
      ScaleBodyMasses(tree, {{"a", 3.0}, {"b", 3.0}});
  EXPECT_TRUE(H(heavy, q).isApprox(3.0 * H(tree, q), 1e-12));
  EXPECT_NEAR(heavy.total_mass(), 9.0, 1e-12);
  EXPECT_EQ(heavy.name(), tree.name());
  EXPECT_EQ(heavy.gravity(), tree.gravity());
  ASSERT_EQ(heavy.mimic_constraints().size(), 1u);
  EXPECT_EQ(heavy.mimic_constraints()[0].joint, "jb");
  EXPECT_EQ(heavy.num_frames(), tree.num_frames());
  // One body: H is linear in each body's inertia, so H(a x2) - H equals
  // H(a x3) - H(a x2).
  const Eigen::MatrixXd h1 = H(tree, q);
  const Eigen::MatrixXd h2 = H(ScaleBodyMasses(tree, {{"a", 2.0}}), q);
  const Eigen::MatrixXd h3 = H(ScaleBodyMasses(tree, {{"a", 3.0}}), q);
  EXPECT_TRUE((h2 - h1).isApprox(h3 - h2, 1e-12));
  EXPECT_GT((h2 - h1).norm(), 1e-3);
  EXPECT_THROW(
      {
        try {
          ScaleBodyMasses(tree, {{"c", 2.0}});
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "ScaleBodyMasses: no body 'c' in tree 'm'");
          throw;
        }
      },
      std::invalid_argument);
  EXPECT_THROW(ScaleBodyMasses(tree, {{"a", -1.0}}), std::invalid_argument);
}

TEST(SceneTest, BoxInertiaIsTheSolidBoxs) {
  // A cube: I = m s^2 / 6 about every axis through its centre.
  const SpatialInertia<double> cube =
      BoxInertia(3.0, Vector3<double>(0.2, 0.2, 0.2));
  EXPECT_NEAR(cube.m, 3.0, 0);
  EXPECT_TRUE(
      cube.I.isApprox(Matrix3<double>::Identity() * 3.0 * 0.04 / 6, 1e-15));
  EXPECT_TRUE(cube.h.isZero());
  // A thin rod along x: I_yy = I_zz = m L^2 / 12, I_xx -> 0.
  const SpatialInertia<double> rod =
      BoxInertia(2.0, Vector3<double>(1.0, 1e-6, 1e-6));
  EXPECT_NEAR(rod.I(1, 1), 2.0 / 12, 1e-12);
  EXPECT_NEAR(rod.I(0, 0), 0, 1e-12);
}

TEST(SceneTest, AddBoxAndSceneGeometry) {
  RigidBodyTree<double> tree("scene");
  BoxBody free_box{"f", Vector3<double>(0.1, 0.2, 0.3), 2.0, {}, {}};
  BoxBody table{"t",
                Vector3<double>(1, 1, 0.1),
                0.0,
                RigidTransform<double>(Matrix3<double>::Identity(),
                                       Vector3<double>(0, 0, 0.5)),
                {}};
  const int f = AddBox(free_box, &tree);
  const int t = AddBox(table, &tree);
  EXPECT_EQ(tree.body(f).joint.type, JointType::kFloating);
  EXPECT_EQ(tree.body(f).joint.name, "f_joint");
  EXPECT_EQ(tree.body(t).joint.type, JointType::kFixed);
  EXPECT_EQ(tree.body(t).joint.X_PJ.p, Vector3<double>(0, 0, 0.5));
  EXPECT_EQ(tree.num_positions(), 7);
  try {
    AddBox(free_box, &tree);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "box 'f': a body of that name exists already");
  }
  BoxBody flat{"flat", Vector3<double>(1, 0, 1), 1.0, {}, {}};
  EXPECT_THROW(AddBox(flat, &tree), std::invalid_argument);

  ContactProperties material;
  material.friction = 0.4;
  material.stiffness = 2e5;
  const GeometryModel g = SceneGeometry(tree, material, -0.25);
  ASSERT_EQ(g.num_geometries(), 3);  // two boxes and the ground
  for (const Geometry& x : g.geometries()) {
    EXPECT_EQ(x.properties.friction, 0.4) << x.name;
    EXPECT_EQ(x.properties.stiffness, 2e5) << x.name;
  }
  EXPECT_EQ(g.geometries().back().name, "ground");
  EXPECT_EQ(g.geometries().back().X_BG.p.z(), -0.25);
  // The free box collides with the world (the ground), the welded one's
  // parent-child pair is excluded.
  EXPECT_FALSE(g.IsExcluded(f, 0));
  EXPECT_TRUE(g.IsExcluded(t, 0));
  EXPECT_EQ(SceneGeometry(tree, material, std::nullopt).num_geometries(), 2);
}

// A model's elements follow CopyBodies into a world holding a first copy:
// names become the second copy's (from the index, whatever the prefix), a
// frame on the model's world moves by X_WM. Cross-check: at the same q,
// the frames F and G of the mapped constraint sit in the world where the
// model's sit in the model frame, moved by X_WM.
TEST(SceneTest, ElementsFollowTheBodiesIntoTheWorld) {
  const RigidBodyTree<double> model = MimicArm();
  RigidBodyTree<double> world("world");
  CopyBodies(model, "first/", RigidTransform<double>(), {}, &world);
  const RigidTransform<double> X_WM(
      RollPitchYawToRotationMatrix(Vector3<double>(0.3, -0.2, 1.1)),
      Vector3<double>(1, 2, 3));
  const std::vector<int> index = CopyBodies(model, "r_", X_WM, {}, &world);
  EqualityConstraintSpec e;
  e.name = "hold";
  e.type = EqualityConstraintSpec::Type::kWeld;
  e.body1 = "b";
  e.X_1F = RigidTransform<double>(
      RollPitchYawToRotationMatrix(Vector3<double>(0.1, 0.2, 0.3)),
      Vector3<double>(0.1, 0, -0.5));
  e.body2 = "world";
  e.X_2G = RigidTransform<double>(
      RollPitchYawToRotationMatrix(Vector3<double>(-0.4, 0, 0.2)),
      Vector3<double>(0.5, 0.2, -1));
  const EqualityConstraintSpec m =
      MapEqualityConstraint(e, model, index, X_WM, world);
  EXPECT_EQ(m.name, "hold");
  EXPECT_EQ(m.body1, "r_b");
  EXPECT_EQ(m.body2, "world");
  const Eigen::VectorXd q_model = Eigen::Vector2d(0.4, -0.7);
  Eigen::VectorXd q_world(4);
  q_world << 0, 0, q_model;
  KinematicsCache<double> cm(model, false), cw(world, false);
  ForwardKinematics(model, &cm, q_model);
  ForwardKinematics(world, &cw, q_world);
  const auto pose = [](const RigidBodyTree<double>& tree,
                       const KinematicsCache<double>& c, const std::string& b,
                       const RigidTransform<double>& X) {
    return c.X_WB[tree.FindBodyIndex(b)] * X;
  };
  const RigidTransform<double> F_model = X_WM * pose(model, cm, "b", e.X_1F);
  const RigidTransform<double> G_model =
      X_WM * pose(model, cm, "world", e.X_2G);
  const RigidTransform<double> F_world = pose(world, cw, "r_b", m.X_1F);
  const RigidTransform<double> G_world = pose(world, cw, "world", m.X_2G);
  EXPECT_TRUE(F_world.p.isApprox(F_model.p, 1e-14));
  EXPECT_TRUE(F_world.R.isApprox(F_model.R, 1e-14));
  EXPECT_TRUE(G_world.p.isApprox(G_model.p, 1e-14));
  EXPECT_TRUE(G_world.R.isApprox(G_model.R, 1e-14));
  // A spring by joint name.
  const JointSpringSpec k =
      MapJointSpring({"jb", 3, 0.25}, model, index, world);
  EXPECT_EQ(k.joint, "r_jb");
  EXPECT_EQ(k.stiffness, 3);
  EXPECT_EQ(k.reference, 0.25);
  // Names the model lacks are named.
  e.body1 = "c";
  try {
    MapEqualityConstraint(e, model, index, X_WM, world);
    FAIL();
  } catch (const std::invalid_argument& x) {
    EXPECT_STREQ(x.what(), "constraint 'hold': no body 'c' in model 'm'");
  }
  try {
    MapJointSpring({"jc", 1, 0}, model, index, world);
    FAIL();
  } catch (const std::invalid_argument& x) {
    EXPECT_STREQ(x.what(), "joint spring: no joint 'jc' in model 'm'");
  }
}

}  // namespace
}  // namespace tern
