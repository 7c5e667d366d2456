// TimeSteppingRigidBodySystem: a floating robot in zero gravity keeps the
// world-frame spatial momentum of its tree (issue 28, Checks), without
// contact to roundoff and with a ball hitting it to the contact solver's
// tolerance.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/test/time_stepping_test_scene.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

RigidBodyTree<double> FloatingQuadruped() {
  UrdfParseOptions options;
  options.floating_base = true;
  // (Built with append: GCC 12 warns, wrongly, -Warray-bounds on the
  // temporary of std::string + "..." at -O3.)
  std::string path = TERN_MODELS_DIR;
  path += "/quadruped.urdf";
  RigidBodyTree<double> tree = ParseUrdfFile(path, options).tree;
  tree.set_gravity(Vector3<double>::Zero());
  return tree;
}

// [angular about the world origin; linear] of the whole tree at x = [q; v].
Vector6<double> Momentum(const RigidBodyTree<double>& tree,
                         const VectorX<double>& x) {
  KinematicsCache<double> cache(tree);
  const int nq = tree.num_positions();
  const VectorX<double> q = x.head(nq), v = x.tail(tree.num_velocities());
  ForwardKinematics(tree, &cache, q, v);
  return SpatialMomentumInWorld(tree, cache);
}

// Random joint angles (inside the limits) and random base and joint
// velocities, the base away from the world origin so that the angular
// momentum about it has a moment-arm part.
void RandomState(const RigidBodyTree<double>& tree, unsigned seed,
                 VectorX<double>* q, VectorX<double>* v) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  *q = tree.GetZeroConfiguration();
  *v = VectorX<double>::Zero(tree.num_velocities());
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const RigidBody<double>& body = tree.body(b);
    if (body.joint.type == JointType::kRevolute) {
      (*q)[body.position_start] = 0.3 * u(gen);
      (*v)[body.velocity_start] = 2.0 * u(gen);
    }
  }
  q->head<3>() << 0.4, -0.3, 0.7;
  const Eigen::Quaterniond quat(
      Eigen::AngleAxisd(0.5, Vector3<double>(1, 2, 3).normalized()));
  (*q)[3] = quat.w();
  (*q)[4] = quat.x();
  (*q)[5] = quat.y();
  (*q)[6] = quat.z();
  for (int i = 0; i < 6; ++i) (*v)[i] = u(gen);
}

// No contact: 1000 steps of 1 ms with the legs swinging under no
// actuation. The explicit velocity-product terms alone drift the momentum
// by O(h) (2.8e-3 relative here, angular; 1.8e-3 linear); the step keeps
// it to 1e-9.
TEST(TimeSteppingMomentum, FloatingQuadrupedInZeroGravity) {
  const RigidBodyTree<double> tree = FloatingQuadruped();
  TimeSteppingRigidBodySystem plant(tree, GeometryModel(tree.num_bodies()),
                                    1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q, v;
  RandomState(tree, 7, &q, &v);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
  const Vector6<double> h0 = Momentum(tree, plant.GetState(sim.get_context()));
  ASSERT_GT(h0.head<3>().norm(), 0.1);
  ASSERT_GT(h0.tail<3>().norm(), 0.1);
  sim.AdvanceTo(1.0);
  const VectorX<double> x = plant.GetState(sim.get_context());
  const Vector6<double> h1 = Momentum(tree, x);
  // The joints did move (the test is not of a rigid body).
  EXPECT_GT((x.head(tree.num_positions()) - q).tail(12).norm(), 0.3);
  EXPECT_LT((h1 - h0).head<3>().norm(), 1e-9 * h0.head<3>().norm())
      << "angular " << h0.head<3>().transpose() << " -> "
      << h1.head<3>().transpose();
  EXPECT_LT((h1 - h0).tail<3>().norm(), 1e-9 * h0.tail<3>().norm())
      << "linear " << h0.tail<3>().transpose() << " -> "
      << h1.tail<3>().transpose();
}

// A free body whose center of mass is 5 cm off its origin, tumbling in
// zero gravity: its momentum is kept to 1e-9 over 1 s; with
// conserve_momentum off the explicit velocity products drift it.
TEST(TimeSteppingMomentum, OffCenterFreeBody) {
  RigidBodyTree<double> tree("tumbler");
  tree.set_gravity(Vector3<double>::Zero());
  Joint<double> free;
  free.type = JointType::kFloating;
  free.name = "free";
  tree.AddBody("body", 0, free,
               SpatialInertia<double>::FromCom(
                   2.0, Vector3<double>(0.05, 0.0, -0.03),
                   Vector3<double>(0.01, 0.02, 0.025).asDiagonal()));
  VectorX<double> q = tree.GetZeroConfiguration(), v(6);
  q.head<3>() << 0.2, 0.1, -0.3;
  v << 3, -5, 8, 0.4, 0.2, -0.1;
  double drift[2];  // largest relative change, angular or linear
  for (int on = 0; on < 2; ++on) {
    TimeSteppingOptions options;
    options.conserve_momentum = on;
    TimeSteppingRigidBodySystem plant(tree, GeometryModel(tree.num_bodies()),
                                      1e-3, {}, {}, {}, options);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
    const Vector6<double> h0 =
        Momentum(tree, plant.GetState(sim.get_context()));
    sim.AdvanceTo(1.0);
    const Vector6<double> h1 =
        Momentum(tree, plant.GetState(sim.get_context()));
    drift[on] = std::max((h1 - h0).head<3>().norm() / h0.head<3>().norm(),
                         (h1 - h0).tail<3>().norm() / h0.tail<3>().norm());
  }
  EXPECT_GT(drift[0], 1e-6) << "explicit products should drift";
  EXPECT_LT(drift[1], 1e-9);
}

// A ball (free body, 0.5 kg, friction 0.5 on the robot's default 1) thrown at
// the floating quadruped's base in zero gravity: the momentum of robot plus
// ball is kept to roundoff through the impact, and the ball did hit (its
// momentum changed). Before the fix: 1.0e-2 relative (linear) after 0.3 s; with
// the robot's momentum kept but each body pushed at its own witness point,
// 2e-4 (angular, from the friction impulse's moment (p_WA - p_WB) x f).
TEST(TimeSteppingMomentum, BallHitsFloatingQuadruped) {
  RigidBodyTree<double> tree = FloatingQuadruped();
  Joint<double> free;
  free.type = JointType::kFloating;
  free.name = "ball_free";
  const double m = 0.5, r = 0.05;
  const int ball =
      tree.AddBody("ball", 0, free,
                   SpatialInertia<double>::FromCom(
                       m, Vector3<double>::Zero(),
                       Matrix3<double>::Identity() * 0.4 * m * r * r));
  GeometryModel geometry = GeometryModel::FromTree(tree);
  VectorX<double> q, v;
  RandomState(tree, 11, &q, &v);
  v.head<6>() *= 0.1;
  {
    KinematicsCache<double> cache(tree);
    ForwardKinematics(tree, &cache, q);
    ExcludeBodyPairsInContact(&geometry, cache.X_WB);
  }
  Geometry g;
  g.name = "ball";
  g.body = ball;
  g.shape = Shape::Sphere(r);
  g.properties.friction = 0.5;
  geometry.AddGeometry(g);
  // The ball starts 0.3 m beside the base's center, moving at it (with a
  // spin and an offset so that the impact is oblique and has friction).
  const RigidBody<double>& ball_body = tree.body(ball);
  const Vector3<double> base = q.head<3>();
  q.segment<3>(ball_body.position_start) =
      base + Vector3<double>(0.0, 0.35, 0.03);
  q[ball_body.position_start + 3] = 1;
  v.segment<3>(ball_body.velocity_start) << 5, -3, 2;
  v.segment<3>(ball_body.velocity_start + 3) << 0.5, -4.0, 0.0;
  TimeSteppingRigidBodySystem plant(tree, geometry, 1e-3);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
  const Vector6<double> h0 = Momentum(tree, plant.GetState(sim.get_context()));
  int contact_steps = 0;
  for (int step = 1; step <= 300; ++step) {
    sim.AdvanceTo(step * 1e-3);
    contact_steps += plant.GetStepStats(sim.get_context()).num_contacts > 0;
  }
  const VectorX<double> x = plant.GetState(sim.get_context());
  const Vector6<double> h1 = Momentum(tree, x);
  EXPECT_GT(contact_steps, 0);
  const int nq = tree.num_positions();
  const Vector3<double> ball_v =
      x.segment<3>(nq + ball_body.velocity_start + 3);
  EXPECT_GT((ball_v - Vector3<double>(0, -4, 0)).norm(), 0.5)
      << "the ball did not hit the robot";
  // Better than the solver's tolerance: whatever impulse the solver
  // returns acts on robot and ball, equal and opposite, at one point.
  const double tol = 1e-10;
  EXPECT_LT((h1 - h0).head<3>().norm(), tol * h0.head<3>().norm())
      << "angular " << h0.head<3>().transpose() << " -> "
      << h1.head<3>().transpose();
  EXPECT_LT((h1 - h0).tail<3>().norm(), tol * h0.tail<3>().norm())
      << "linear " << h0.tail<3>().transpose() << " -> "
      << h1.tail<3>().transpose();
}

// The head of a robot's URDF: the world and a pelvis box (0.3 x 0.3 x 0.2
// m, mass m, inertia i about each axis) on a floating joint; the caller
// appends its links and "</robot>".
std::string FloatingPelvisUrdf(const char* name, double m, double i) {
  return fmt::format(R"(<robot name="{0}"><link name="world"/>
  <link name="pelvis"><inertial><mass value="{1}"/><inertia ixx="{2}"
    iyy="{2}" izz="{2}" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.3 0.3 0.2"/></geometry></collision>
  </link>
  <joint name="root" type="floating"><parent link="world"/>
    <child link="pelvis"/></joint>)",
                     name, m, i);
}

// A floating arm folding onto its own base in zero gravity: a pelvis box,
// an upper arm hinged at its side and a forearm with a ball at its tip,
// hinged at the elbow and swung back so that the ball hits the pelvis. The
// contact is between two bodies of one subtree: its rows leave out the
// pelvis's floating dofs (their common ancestor's: they move both bodies
// together; computed, they were round-off, 1e-17) and act through the two
// hinges. The ball stops on the pelvis (no deeper than 1 mm) and bounces
// back, and the momentum stays to 1e-10.
TEST(TimeSteppingMomentum, ArmFoldingOntoItsBaseStopsOnIt) {
  const std::string urdf = FloatingPelvisUrdf("fold", 10, 0.1) + R"(
  <link name="upper"><inertial><origin xyz="0.2 0 0"/><mass value="1"/>
    <inertia ixx="1e-3" iyy="0.013" izz="0.013" ixy="0" ixz="0" iyz="0"/>
    </inertial></link>
  <joint name="shoulder" type="revolute"><parent link="pelvis"/>
    <child link="upper"/><origin xyz="0.2 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="10"/></joint>
  <link name="fore"><inertial><origin xyz="0.25 0 0"/><mass value="1"/>
    <inertia ixx="1e-3" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/>
    </inertial><collision><origin xyz="0.5 0 0"/><geometry>
    <sphere radius="0.03"/></geometry></collision></link>
  <joint name="elbow" type="revolute"><parent link="upper"/>
    <child link="fore"/><origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3.1" upper="3.1" effort="100" velocity="20"/></joint>
  </robot>)";
  RigidBodyTree<double> tree = ParseUrdfString(urdf).tree;
  tree.set_gravity(Vector3<double>::Zero());
  const GeometryModel geometry = GeometryModel::FromTree(tree);
  TimeSteppingRigidBodySystem plant(tree, geometry, 1e-3);
  Simulator<double> sim(plant);
  // The elbow at 2.4 rad (the ball above the upper arm, 0.23 m from the
  // pelvis's side), closing at 6 rad/s toward the pelvis; the shoulder at
  // rest, the shoulder's x axis offset 0.2 m from the pelvis's centre.
  VectorX<double> q = tree.GetZeroConfiguration();
  VectorX<double> v = VectorX<double>::Zero(tree.num_velocities());
  const int shoulder = tree.body(tree.FindBodyIndex("upper")).position_start;
  const int elbow = tree.body(tree.FindBodyIndex("fore")).position_start;
  const int elbow_v = tree.body(tree.FindBodyIndex("fore")).velocity_start;
  q[elbow] = -2.4;
  v[elbow_v] = -6.0;
  ASSERT_EQ(q[shoulder], 0.0);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
  const Vector6<double> h0 = Momentum(tree, plant.GetState(sim.get_context()));
  KinematicsCache<double> cache(tree);
  const int pelvis = tree.FindBodyIndex("pelvis");
  const int fore = tree.FindBodyIndex("fore");
  double deepest = 1;  // the ball's least clearance from the pelvis box, m
  int contact_steps = 0;
  const int nq = tree.num_positions();
  for (int step = 1; step <= 400; ++step) {
    sim.AdvanceTo(step * 1e-3);
    contact_steps += plant.GetStepStats(sim.get_context()).num_contacts > 0;
    const VectorX<double>& x = plant.GetState(sim.get_context());
    ForwardKinematics(tree, &cache, VectorX<double>(x.head(nq)));
    // The ball's centre in the pelvis's frame, and its distance to the box.
    const Vector3<double> c_W =
        cache.X_WB[fore].p + cache.X_WB[fore].R * Vector3<double>(0.5, 0, 0);
    const Vector3<double> c_P =
        cache.X_WB[pelvis].R.transpose() * (c_W - cache.X_WB[pelvis].p);
    const Vector3<double> half(0.15, 0.15, 0.1);
    const Vector3<double> outside = (c_P.cwiseAbs() - half).cwiseMax(0.0);
    deepest = std::min(deepest, outside.norm() - 0.03);
  }
  const VectorX<double> x = plant.GetState(sim.get_context());
  EXPECT_GT(contact_steps, 0);
  EXPECT_GT(deepest, -1e-3);
  EXPECT_LT(deepest, 5e-3) << "the ball did not reach the pelvis";
  // The elbow no longer closes (it hit and bounced or stopped).
  EXPECT_GT(x[nq + elbow_v], -1.0);
  const Vector6<double> h1 = Momentum(tree, x);
  ASSERT_GT(h0.head<3>().norm(), 0.1);
  ASSERT_GT(h0.tail<3>().norm(), 0.1);
  EXPECT_LT((h1 - h0).head<3>().norm(), 1e-10 * h0.head<3>().norm());
  EXPECT_LT((h1 - h0).tail<3>().norm(), 1e-10 * h0.tail<3>().norm());
}

// Links that overlap their own robot's base at the start (a pelvis box with
// two legs whose tops are 5 cm inside it, in zero gravity, at rest): their
// contacts are internal, so the center of mass must stay where it is. The
// overlap cannot be resolved by the hip joints, whose motion barely changes
// the normal; the split-impulse correction swung the legs through the
// pelvis by 0.2 rad every step and the finite rotations ratcheted the robot
// away (0.67 m in 0.5 s under PGS and Lemke, with zero velocity), until the
// correction was cut to 1 cm or 0.01 rad per coordinate and step; and the
// kinetic energy stays small (the push-out is bounded).
TEST(TimeSteppingMomentum, OverlappingLinksAreCorrectedGently) {
  std::string legs;
  for (const char* side : {"l", "r"}) {
    const double y = side[0] == 'l' ? 0.07 : -0.07;
    legs += fmt::format(R"(
  <link name="hip_{0}"><inertial><mass value="0.5"/><inertia ixx="1e-3"
    iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="leg_{0}"><inertial><origin xyz="0 0 -0.2"/><mass value="5"/>
    <inertia ixx="0.07" iyy="0.07" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial><collision><origin xyz="0 0 -0.2"/><geometry>
    <cylinder radius="0.06" length="0.5"/></geometry></collision></link>
  <joint name="hz_{0}" type="revolute"><parent link="pelvis"/>
    <child link="hip_{0}"/><origin xyz="0 {1} -0.1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="100" velocity="10"/></joint>
  <joint name="hx_{0}" type="revolute"><parent link="hip_{0}"/>
    <child link="leg_{0}"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="10"/></joint>)",
                        side, y);
  }
  const std::string urdf =
      FloatingPelvisUrdf("overlap", 20, 0.2) + legs + "</robot>";
  RigidBodyTree<double> tree = ParseUrdfString(urdf).tree;
  tree.set_gravity(Vector3<double>::Zero());
  const GeometryModel geometry = GeometryModel::FromTree(tree);
  using Solver = TimeSteppingOptions::Solver;
  for (Solver solver : {Solver::kPgs, Solver::kLemke, Solver::kConvex}) {
    TimeSteppingOptions options;
    options.solver = solver;
    TimeSteppingRigidBodySystem plant(tree, geometry, 1e-3, {}, {}, {},
                                      options);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                    tree.GetZeroConfiguration(),
                                    VectorX<double>::Zero(10));
    KinematicsCache<double> cache(tree);
    ForwardKinematics(tree, &cache, tree.GetZeroConfiguration());
    const Vector3<double> c0 = CenterOfMass(tree, cache);
    double most = 0;  // kinetic energy, J
    for (int k = 1; k <= 500; ++k) {
      sim.AdvanceTo(k * 1e-3);
      const VectorX<double>& x = plant.GetState(sim.get_context());
      ForwardKinematics(tree, &cache, VectorX<double>(x.head(11)),
                        VectorX<double>(x.tail(10)));
      most = std::max(most, KineticEnergy(tree, cache));
    }
    EXPECT_LT((CenterOfMass(tree, cache) - c0).norm(), 5e-3)
        << "solver " << static_cast<int>(solver);
    // The push-out of the convex solver's position term gained 49.6 J in
    // the first step before it was bounded (SolveConvex).
    EXPECT_LT(most, 1.0) << "solver " << static_cast<int>(solver);
  }
}

// The position correction of deep overlaps is cut per subtree: a cube
// 10 cm into the ground (its push-out cut to 1 cm a step) does not slow
// the push-out of another cube elsewhere, 2 mm deep. One cut for the whole
// plant had let the deepest body throttle every other (MuJoCo's
// humanoid100 at 4-5 ms steps: a body 5 cm into the floor rose at an
// eighth of its rate and sank).
TEST(TimeSteppingMomentum, DeepOverlapsAreCorrectedIndependently) {
  auto rise = [](bool with_deep_cube) {
    test::Scene scene;
    scene.AddCube(0.2);
    if (with_deep_cube) scene.AddCube(0.2);
    scene.tree.set_gravity(Vector3<double>::Zero());
    TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
    Simulator<double> sim(plant);
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    const Matrix3<double> I = Matrix3<double>::Identity();
    test::SetPose(&q, 1, Vector3<double>(0, 0, 0.1 - 0.002), I);
    if (with_deep_cube) {
      test::SetPose(&q, 2, Vector3<double>(2, 0, 0.1 - 0.1), I);
    }
    plant.SetPositionsAndVelocities(
        &sim.get_mutable_context(), q,
        VectorX<double>::Zero(scene.tree.num_velocities()));
    sim.AdvanceTo(1e-3);
    const VectorX<double>& x = plant.GetState(sim.get_context());
    if (with_deep_cube) {
      // The deep cube's correction is cut: 1 cm, not erp * 10 cm = 2 cm.
      EXPECT_LT(x[test::Pos(2) + 2] - 0.0, 0.0101);
      EXPECT_GT(x[test::Pos(2) + 2] - 0.0, 0.0099);
    }
    return x[test::Pos(1) + 2] - (0.1 - 0.002);
  };
  const double alone = rise(false);
  EXPECT_GT(alone, 3e-4);  // erp (2 mm - slop), and the velocity's push
  EXPECT_NEAR(rise(true), alone, 1e-9);  // the sweeps differ: round-off
}

}  // namespace
}  // namespace tern
