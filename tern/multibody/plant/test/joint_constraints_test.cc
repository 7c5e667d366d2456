#include "tern/multibody/plant/joint_constraints.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A chain: a limited hinge with friction, a continuous hinge, a prismatic
// joint limited above only, a ball joint with friction, a hinge mimicking
// the first.
RigidBodyTree<double> MakeTree(double hinge_lower = -1.0,
                               double ball_friction = 0.2) {
  RigidBodyTree<double> tree("joints");
  const auto inertia = SpatialInertia<double>::FromCom(
      1.0, Vector3<double>(0, 0, -0.1), Matrix3<double>::Identity() * 0.01);
  auto joint = [](const std::string& name, JointType type) {
    Joint<double> j;
    j.name = name;
    j.type = type;
    j.axis = Vector3<double>::UnitY();
    return j;
  };
  Joint<double> hinge = joint("hinge", JointType::kRevolute);
  hinge.position_lower = hinge_lower;
  hinge.position_upper = 2.0;
  hinge.friction = 0.5;
  int parent = tree.AddBody("a", 0, hinge, inertia);
  parent =
      tree.AddBody("b", parent, joint("spin", JointType::kRevolute), inertia);
  Joint<double> slide = joint("slide", JointType::kPrismatic);
  slide.position_upper = 0.5;
  parent = tree.AddBody("c", parent, slide, inertia);
  Joint<double> ball = joint("ball", JointType::kBall);
  ball.friction = ball_friction;
  parent = tree.AddBody("d", parent, ball, inertia);
  const int e = tree.AddBody("e", parent,
                             joint("follower", JointType::kRevolute), inertia);
  MimicConstraint m;
  m.joint = "follower";
  m.leader_joint = "hinge";
  m.body = e;
  m.leader_body = tree.FindBodyIndex("a");
  m.multiplier = 2.0;
  tree.AddMimicConstraint(m);
  return tree;
}

TEST(JointConstraints, ReadOnceForBothPlants) {
  const RigidBodyTree<double> tree = MakeTree();
  const auto limits = LimitedJoints(tree, "test");
  ASSERT_EQ(limits.size(), 2u);  // the hinge and the slide, in body order
  EXPECT_EQ(limits[0].name, "hinge");
  EXPECT_EQ(limits[0].dof, tree.body(tree.FindBodyIndex("a")).velocity_start);
  EXPECT_EQ(limits[0].q, tree.body(tree.FindBodyIndex("a")).position_start);
  EXPECT_EQ(limits[0].lower, -1.0);
  EXPECT_EQ(limits[0].upper, 2.0);
  EXPECT_EQ(limits[1].name, "slide");
  EXPECT_EQ(limits[1].lower, -kInf);
  EXPECT_EQ(limits[1].upper, 0.5);

  const auto friction = JointFrictionDofs(tree, "test");
  ASSERT_EQ(friction.size(), 4u);  // the hinge's dof, the ball's three
  EXPECT_EQ(friction[0].force, 0.5);
  const int ball_v = tree.body(tree.FindBodyIndex("d")).velocity_start;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(friction[1 + i].dof, ball_v + i);
    EXPECT_EQ(friction[1 + i].force, 0.2);
  }

  const auto mimic = MimicConstraints(tree);
  ASSERT_EQ(mimic.size(), 1u);
  EXPECT_EQ(mimic[0]->name(), "mimic_follower");

  // Both plants constrain the same joints.
  const RigidBodySystem<double> continuous(tree);
  EXPECT_EQ(continuous.num_limited_joints(), 2);
  EXPECT_EQ(continuous.num_constraint_rows(), 1);  // the mimic row
  const TimeSteppingRigidBodySystem discrete(
      tree, GeometryModel::FromTree(tree), 1e-3);
  int limited = 0, friction_dofs = 0, bilateral = 0;
  for (const auto& c : discrete.constraints()) {
    if (auto* l = dynamic_cast<const TimeSteppingJointLimits*>(c.get())) {
      limited += l->num_limited_joints();
    }
    if (auto* f = dynamic_cast<const TimeSteppingJointFriction*>(c.get())) {
      friction_dofs += f->num_friction_dofs();
    }
    bilateral += dynamic_cast<const TimeSteppingBilateralConstraint*>(
                     c.get()) != nullptr;
  }
  EXPECT_EQ(limited, 2);
  EXPECT_EQ(friction_dofs, 4);
  EXPECT_EQ(bilateral, 1);
}

// The same bad joint is refused by both plants, naming it.
TEST(JointConstraints, BadJointsAreRefusedByBothPlants) {
  auto expect_both_throw = [](const RigidBodyTree<double>& tree,
                              const std::string& what) {
    for (int plant = 0; plant < 2; ++plant) {
      try {
        if (plant == 0) {
          RigidBodySystem<double> p(tree);
        } else {
          TimeSteppingRigidBodySystem p(tree, GeometryModel::FromTree(tree),
                                        1e-3);
        }
        ADD_FAILURE() << "plant " << plant << " accepted " << what;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
            << "plant " << plant << ": " << e.what();
      }
    }
  };
  expect_both_throw(MakeTree(3.0),
                    "joint 'hinge' has lower limit 3 above upper limit 2");
  expect_both_throw(MakeTree(-1.0, kInf),
                    "joint 'ball' has friction inf (must be finite)");
  expect_both_throw(MakeTree(-1.0, std::nan("")),
                    "joint 'ball' has friction nan (must be finite)");
}

}  // namespace
}  // namespace tern
