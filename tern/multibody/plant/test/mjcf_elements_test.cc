// MJCF <equality> connect and weld and joint stiffness as plant elements
// (mjcf_elements.h), on both plants: the constrained points and frames stay
// together during a simulation (closed form: zero separation, within the
// stabilization's drift), and a joint spring oscillates at its natural
// frequency.
#include "tern/multibody/plant/mjcf_elements.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/sdf_parser.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

// A hinged arm with a free box welded to its tip (the weld measured at an
// anchor off the box's origin), and a free bob hanging from a world point
// by a connect: a spherical pendulum of length 0.3 m released horizontal.
// No contact (contype 0).
constexpr char kEqualities[] = R"(<mujoco>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="arm" pos="0 0 1"><joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05"/>
    </body>
    <body name="box" pos="0.55 0 1" euler="0 0 20"><freejoint/>
      <geom type="box" size="0.05 0.05 0.05"/></body>
    <body name="bob" pos="1 0 1"><freejoint/><geom size="0.05"/></body>
  </worldbody>
  <equality>
    <weld name="tip" body1="box" body2="arm" anchor="0.5 0 0"/>
    <connect name="pivot" body1="bob" anchor="-0.3 0 0"/>
    <connect name="off" body1="bob" body2="arm" anchor="0 0 0" active="false"/>
  </equality>
</mujoco>)";

struct Separation {
  double point{0};   // connect: |p_W(anchor in bob) - pivot|, m
  double weld_p{0};  // weld: position error at the anchor, m
  double weld_R{0};  // weld: |R_arm,box - R_arm,box(0)|, Frobenius
};

Separation Measure(const MjcfModel& m, const VectorX<double>& q) {
  const RigidBodyTree<double>& tree = m.tree;
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, q);
  const RigidTransform<double>& X_Wbob = cache.X_WB[tree.FindBodyIndex("bob")];
  const RigidTransform<double>& X_Warm = cache.X_WB[tree.FindBodyIndex("arm")];
  const RigidTransform<double>& X_Wbox = cache.X_WB[tree.FindBodyIndex("box")];
  Separation s;
  s.point = (X_Wbob * Vector3<double>(-0.3, 0, 0) - Vector3<double>(0.7, 0, 1))
                .norm();
  // In qpos0 the box sits at (0.05, 0, 0) from the arm's tip, yawed 20 deg.
  const double a = 20 * std::numbers::pi / 180;
  Matrix3<double> R0;
  R0 << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  const RigidTransform<double> X_armbox = X_Warm.inverse() * X_Wbox;
  s.weld_p = (X_armbox.p - Vector3<double>(0.55, 0, 0)).norm();
  s.weld_R = (X_armbox.R - R0).norm();
  return s;
}

double BobDrop(const MjcfModel& m, const VectorX<double>& q) {
  const int i = m.tree.body(m.tree.FindBodyIndex("bob")).position_start;
  return 1.0 - q(i + 2);
}

TEST(MjcfElements, EqualitiesHoldOnBothPlants) {
  const MjcfModel m = ParseMjcfString(kEqualities);
  const auto constraints = MakeMjcfEqualityConstraints(m);
  ASSERT_EQ(constraints.size(), 2u);  // the inactive one is left out
  EXPECT_EQ(constraints[0]->name(), "tip");
  EXPECT_EQ(constraints[0]->num_constraints(), 6);
  EXPECT_EQ(constraints[1]->num_constraints(), 3);
  const Separation s0 = Measure(m, m.qpos0);
  EXPECT_LT(s0.point, 1e-15);
  EXPECT_LT(s0.weld_p, 1e-15);
  EXPECT_LT(s0.weld_R, 1e-15);
  const int nq = m.tree.num_positions(), nv = m.tree.num_velocities();
  const VectorX<double> v0 = VectorX<double>::Zero(nv);
  const double t_end = 1.0;
  {
    RigidBodySystem<double> plant(m.tree, {}, {}, constraints);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), m.qpos0, v0);
    sim.reset_integrator<RK4>(1e-3);
    Separation worst;
    for (int k = 1; k <= 50; ++k) {
      sim.AdvanceTo(t_end * k / 50);
      const VectorX<double> q =
          sim.get_context().get_continuous_state_vector().head(nq);
      ASSERT_TRUE(q.allFinite());
      const Separation s = Measure(m, q);
      worst.point = std::max(worst.point, s.point);
      worst.weld_p = std::max(worst.weld_p, s.weld_p);
      worst.weld_R = std::max(worst.weld_R, s.weld_R);
    }
    const VectorX<double> q =
        sim.get_context().get_continuous_state_vector().head(nq);
    std::printf("RigidBodySystem: connect %.1e m, weld %.1e m %.1e\n",
                worst.point, worst.weld_p, worst.weld_R);
    // Acceleration-level rows with Baumgarte stabilization: only the
    // integration error drifts (measured ~1e-10).
    EXPECT_LT(worst.point, 1e-8);
    EXPECT_LT(worst.weld_p, 1e-8);
    EXPECT_LT(worst.weld_R, 1e-8);
    EXPECT_GT(BobDrop(m, q), 0.1);  // it swung (unconstrained: it falls 4.9 m)
  }
  {
    TimeSteppingRigidBodySystem plant(
        m.tree, GeometryModel(m.tree.num_bodies()), 1e-3, {}, {}, constraints);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), m.qpos0, v0);
    Separation worst;
    for (int k = 1; k <= 50; ++k) {
      sim.AdvanceTo(t_end * k / 50);
      const VectorX<double> q = plant.GetState(sim.get_context()).head(nq);
      ASSERT_TRUE(q.allFinite());
      const Separation s = Measure(m, q);
      worst.point = std::max(worst.point, s.point);
      worst.weld_p = std::max(worst.weld_p, s.weld_p);
      worst.weld_R = std::max(worst.weld_R, s.weld_R);
    }
    const VectorX<double> q = plant.GetState(sim.get_context()).head(nq);
    std::printf(
        "TimeSteppingRigidBodySystem: connect %.1e m, weld %.1e m %.1e\n",
        worst.point, worst.weld_p, worst.weld_R);
    // Velocity-level rows: the position drifts by O(h^2 |a|) per step and is
    // pulled back at the rate erp / h (measured ~6e-5 m).
    EXPECT_LT(worst.point, 5e-4);
    EXPECT_LT(worst.weld_p, 5e-4);
    EXPECT_LT(worst.weld_R, 5e-4);
    EXPECT_GT(BobDrop(m, q), 0.1);
  }
}

TEST(MjcfElements, WeldRelposAndErrors) {
  const MjcfModel m = ParseMjcfString(R"(<mujoco><worldbody>
    <body name="a" pos="0 0 1"><freejoint/><geom size="0.1"/></body>
  </worldbody>
  <equality><weld body1="a" relpose="0 0 2 1 0 0 0"/></equality>
</mujoco>)");
  ASSERT_TRUE(m.equalities[0].has_relpose);
  const auto c = MakeMjcfEqualityConstraints(m);
  ASSERT_EQ(c.size(), 1u);
  // relpose: the world's origin 2 m above a's, so the weld holds with a at
  // z = -2; in qpos0 (a at z = 1) it is violated by 3 m along z:
  // phi = [0; p_WF - p_WG] = [0 0 0 0 0 3].
  KinematicsCache<double> cache(m.tree);
  const VectorX<double> v = VectorX<double>::Zero(6);
  ForwardKinematics(m.tree, &cache, m.qpos0, v);
  ForceElementInputs<double> in;
  in.tree = &m.tree;
  in.cache = &cache;
  in.q = &m.qpos0;
  in.v = &v;
  Matrix6X<double> J6(6, 6);  // the constraint's Jacobian scratch
  in.J = &J6;
  VectorX<double> phi(6), Jdot_v(6);
  MatrixX<double> J(6, 6);
  c[0]->CalcConstraint(in, phi.data(), J, Jdot_v.data());
  EXPECT_NEAR(phi(5), 3.0, 1e-15);
  EXPECT_NEAR(phi.head(5).norm(), 0, 1e-15);

  EXPECT_THROW(JointSpring<double>(m.tree, {"a"}, {1}, {0}),
               std::invalid_argument);
  try {
    ParseMjcfString(R"(<mujoco><worldbody>
      <body name="a"><freejoint/><geom size="0.1"/></body></worldbody>
      <equality><connect body1="a" body2="a" anchor="0 0 0"/></equality>
      </mujoco>)");
    ADD_FAILURE() << "no error";
  } catch (const MjcfError& e) {
    EXPECT_NE(std::string(e.what()).find("same body 'a'"), std::string::npos)
        << e.what();
  }
}

// A slide joint with stiffness k and springref r: the mass oscillates about
// r at omega = sqrt(k / m) (no gravity along the slide), on both plants.
TEST(MjcfElements, JointSpringOscillatesAtItsNaturalFrequency) {
  const MjcfModel m = ParseMjcfString(R"(<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="m"><joint name="s" type="slide" axis="1 0 0" stiffness="100"
        springref="0.2"/>
      <inertial pos="0 0 0" mass="4" diaginertia="1 1 1"/></body>
  </worldbody></mujoco>)");
  auto spring = MakeMjcfJointSprings(m);
  ASSERT_NE(spring, nullptr);
  const double w = std::sqrt(100.0 / 4), T = 2 * std::numbers::pi / w;
  VectorX<double> q0(1), v0(1);
  q0 << 0;
  v0 << 0;
  {
    RigidBodySystem<double> plant(m.tree, {spring});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0, v0);
    sim.reset_integrator<RK4>(1e-3);
    sim.AdvanceTo(T / 2);  // half a period: at the far turning point
    EXPECT_NEAR(sim.get_context().get_continuous_state_vector()(0), 0.4, 1e-9);
  }
  {
    TimeSteppingRigidBodySystem plant(
        m.tree, GeometryModel(m.tree.num_bodies()), 1e-4, {spring});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0, v0);
    sim.AdvanceTo(T / 2);
    // Semi-implicit Euler: first order in h, with the step ending near T/2.
    EXPECT_NEAR(plant.GetState(sim.get_context())(0), 0.4, 2e-3);
  }
}

// SDFormat springs take the same path (SdfModel::springs, MakeJointSprings):
// a prismatic joint with <spring_stiffness> k and <spring_reference> r in a
// world of two models (scoped joint names) oscillates about r at
// omega = sqrt(k / m), as the MJCF one does; MakeJointSprings names a
// joint the tree lacks.
TEST(MjcfElements, SdfJointSpringOscillatesAtItsNaturalFrequency) {
  if (!SdfSupported()) GTEST_SKIP() << "built without libsdformat";
  const std::string model = R"(<link name="m"><inertial><mass>4</mass>
      <inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link>
    <joint name="s" type="prismatic"><parent>world</parent><child>m</child>
      <axis><xyz>1 0 0</xyz><dynamics><spring_stiffness>100</spring_stiffness>
        <spring_reference>0.2</spring_reference></dynamics></axis></joint>)";
  const SdfModel m = ParseSdfString(
      "<sdf version='1.9'><world name='w'><gravity>0 0 0</gravity>"
      "<model name='one'>" +
      model + "</model><model name='two'><pose>0 1 0 0 0 0</pose>" + model +
      "</model></world></sdf>");
  ASSERT_EQ(m.springs.size(), 2u);
  // In the order of the tree's bodies.
  EXPECT_EQ(m.springs[0].joint,
            m.tree.body(m.tree.FindJointBodyIndex("one::s")).position_start == 0
                ? "one::s"
                : "two::s");
  for (const JointSpringSpec& k : m.springs) {
    EXPECT_EQ(k.stiffness, 100);
    EXPECT_EQ(k.reference, 0.2);
  }
  auto spring = MakeJointSprings(m.tree, m.springs);
  ASSERT_NE(spring, nullptr);
  const double w = std::sqrt(100.0 / 4), T = 2 * std::numbers::pi / w;
  const VectorX<double> v0 = VectorX<double>::Zero(2);
  RigidBodySystem<double> plant(m.tree, {spring});
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), m.q0, v0);
  sim.reset_integrator<RK4>(1e-3);
  sim.AdvanceTo(T / 2);  // half a period: both at the far turning point
  const VectorX<double> x = sim.get_context().get_continuous_state_vector();
  EXPECT_NEAR(x(0), 0.4, 1e-9);
  EXPECT_NEAR(x(1), 0.4, 1e-9);
  EqualityConstraintSpec c;
  c.name = "c";
  c.body1 = "one::m";
  c.body2 = "nowhere";
  try {
    MakeEqualityConstraints(m.tree, {c});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "constraint 'c': no body 'nowhere' in tree 'w'");
  }
  try {
    MakeJointSprings(m.tree, {{"three::s", 1, 0}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("three::s"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// A position servo with gain kp and gear g on a hinge of inertia I (no
// gravity) pulls q to ctrl / g: tau = g kp (ctrl - g q), so q oscillates
// about ctrl / g at omega = sqrt(kp g^2 / I). On both plants, through the
// plant's `mjcf_actuators` input.
TEST(MjcfActuators, PositionServoOscillatesAtSqrtKpGearSquaredOverI) {
  const MjcfModel m = ParseMjcfString(R"(<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="arm"><joint name="h" axis="0 0 1"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.5 0.5 0.2"/></body>
  </worldbody>
  <actuator><position name="servo" joint="h" kp="30" gear="2"/></actuator>
  </mujoco>)");
  auto act = MakeMjcfActuators(m.tree, m.actuators);
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->num_inputs(), 1);
  EXPECT_EQ(act->name(), "mjcf_actuators");
  const double ctrl = 0.6, g = 2, w = std::sqrt(30 * g * g / 0.2);
  const double T = 2 * std::numbers::pi / w;
  VectorX<double> q0(1), v0(1), u(1);
  q0 << 0;
  v0 << 0;
  u << ctrl;
  {
    RigidBodySystem<double> plant(m.tree, {act});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0, v0);
    plant.get_input_port("mjcf_actuators")
        .FixValue(&sim.get_mutable_context(), u);
    sim.reset_integrator<RK4>(1e-4);
    // Half a period: at the far turning point 2 ctrl / g; a quarter: at
    // ctrl / g with the speed w ctrl / g.
    sim.AdvanceTo(T / 4);
    const auto& x = sim.get_context().get_continuous_state_vector();
    EXPECT_NEAR(x(0), ctrl / g, 1e-9);
    EXPECT_NEAR(x(1), w * ctrl / g, 1e-8);
    sim.AdvanceTo(T / 2);
    EXPECT_NEAR(sim.get_context().get_continuous_state_vector()(0),
                2 * ctrl / g, 1e-9);
  }
  {
    TimeSteppingRigidBodySystem plant(
        m.tree, GeometryModel(m.tree.num_bodies()), 1e-4, {act});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0, v0);
    plant.get_input_port("mjcf_actuators")
        .FixValue(&sim.get_mutable_context(), u);
    sim.AdvanceTo(T / 2);
    EXPECT_NEAR(plant.GetState(sim.get_context())(0), 2 * ctrl / g, 3e-3);
  }
}

// The clamps of MuJoCo's law, flagged by CalcActuatorForces: a motor's
// ctrl clamped to ctrlrange, a servo's force clamped to forcerange; two
// actuators on one joint add; jointpos reads q exactly.
TEST(MjcfActuators, ClampsAreFlaggedAndForcesAdd) {
  const MjcfModel m = ParseMjcfString(R"(<mujoco>
  <worldbody>
    <body name="b"><joint name="s" type="slide" axis="1 0 0"/>
      <geom size="0.1"/></body>
  </worldbody>
  <actuator>
    <motor name="m" joint="s" gear="3" ctrllimited="true" ctrlrange="-1 2"/>
    <position name="p" joint="s" kp="10" forcelimited="true"
        forcerange="-4 5"/>
  </actuator>
  <sensor><jointpos name="x" joint="s"/></sensor>
  </mujoco>)");
  const auto act = MakeMjcfActuators(m.tree, m.actuators);
  VectorX<double> q(1);
  q << 0.2;
  double ctrl[2] = {5, 0.3}, force[2];
  int cc[2], fc[2];
  act->CalcActuatorForces(q, ctrl, force, cc, fc);
  EXPECT_EQ(force[0], 2);  // ctrl clamped to 2
  EXPECT_EQ(cc[0], 1);
  EXPECT_EQ(fc[0], 0);
  EXPECT_NEAR(force[1], 10 * (0.3 - 0.2), 1e-15);
  EXPECT_EQ(cc[1] + fc[1], 0);
  ctrl[1] = -3;  // 10 (-3 - 0.2) = -32, clamped to -4
  act->CalcActuatorForces(q, ctrl, force, cc, fc);
  EXPECT_EQ(force[1], -4);
  EXPECT_EQ(fc[1], 1);
  KinematicsCache<double> cache(m.tree);
  VectorX<double> v = VectorX<double>::Zero(1), tau(1);
  ForceElementInputs<double> in;
  in.tree = &m.tree;
  in.cache = &cache;
  in.q = &q;
  in.v = &v;
  in.u = ctrl;
  act->CalcGeneralizedForce(in, &tau);
  EXPECT_EQ(tau(0), 3 * 2 + 1 * -4);

  const auto sensors = MakeMjcfSensors(m.tree, m.sensors);
  ASSERT_EQ(sensors.size(), 1u);
  EXPECT_EQ(sensors[0]->name(), "x");
  SensorInputs<double> sin;
  sin.tree = &m.tree;
  sin.q = &q;
  double y = 0;
  sensors[0]->CalcOutput(sin, &y);
  EXPECT_EQ(y, 0.2);
}

TEST(MjcfActuators, ErrorsNameTheActuatorAndJoint) {
  const MjcfModel m = ParseMjcfString(R"(<mujoco>
  <worldbody>
    <body name="b"><joint name="ball" type="ball"/><geom size="0.1"/>
      <site name="tip" pos="0 0 0.1"/></body>
  </worldbody></mujoco>)");
  MjcfActuator a;
  a.name = "drive";
  a.joint = "ball";
  try {
    MakeMjcfActuators(m.tree, {a});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("MJCF actuator 'drive'"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'ball'"), std::string::npos);
  }
  a.joint = "nope";
  EXPECT_THROW(MakeMjcfActuators(m.tree, {a}), std::invalid_argument);
  EXPECT_EQ(MakeMjcfActuators(m.tree, {}), nullptr);
  MjcfSensor s;
  s.name = "imu";
  s.type = "gyro";
  s.target = "elsewhere";
  try {
    MakeMjcfSensors(m.tree, {s});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sensor 'imu'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'elsewhere'"), std::string::npos);
  }
  s.target = "tip";
  EXPECT_EQ(MakeMjcfSensors(m.tree, {s}).at(0)->num_outputs(), 3);
}

}  // namespace
}  // namespace tern
