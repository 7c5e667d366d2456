// TimeSteppingRigidBodySystem: joint Coulomb friction as bounded rows
// (TimeSteppingJointFriction), checked against closed forms (stiction, the
// sliding acceleration (tau - F) / I, the stopping distance m v0^2 / (2 F)),
// the energy invariant, the continuous plant's regularized friction, and
// the URDF and MJCF elements that carry it.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

using Solver = TimeSteppingOptions::Solver;
constexpr double kG = 9.81;
constexpr double kH = 1e-3;
const Solver kSolvers[] = {Solver::kConvex, Solver::kPgs, Solver::kLemke,
                           Solver::kAuto};
const char* Name(Solver s) {
  switch (s) {
    case Solver::kConvex:
      return "convex";
    case Solver::kPgs:
      return "pgs";
    case Solver::kLemke:
      return "lemke";
    case Solver::kAuto:
      return "auto";
  }
  return "?";
}

// A hinge pendulum about y: mass m at l below the axis (a small sphere of
// radius 0.01 m about its center), joint friction F. Inertia about the
// axis I = m l^2 + 2/5 m r^2; gravity torque -m g l sin(theta).
constexpr double kM = 1.0, kL = 1.0, kR = 0.01;
constexpr double kI = kM * kL * kL + 0.4 * kM * kR * kR;
RigidBodyTree<double> Pendulum(double F) {
  RigidBodyTree<double> tree("pendulum");
  Joint<double> j;
  j.name = "hinge";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitY();
  j.friction = F;
  tree.AddBody("bob", 0, j,
               SpatialInertia<double>::FromCom(
                   kM, Vector3<double>(0, 0, -kL),
                   Matrix3<double>::Identity() * 0.4 * kM * kR * kR));
  return tree;
}

// A block of mass m on a slider along x (gravity along -z does no work on
// it), joint friction F.
RigidBodyTree<double> Slider(double m, double F) {
  RigidBodyTree<double> tree("slider");
  Joint<double> j;
  j.name = "slide";
  j.type = JointType::kPrismatic;
  j.axis = Vector3<double>::UnitX();
  j.friction = F;
  tree.AddBody("block", 0, j,
               SpatialInertia<double>::FromCom(m, Vector3<double>::Zero(),
                                               Matrix3<double>::Identity()));
  return tree;
}

struct Sim {
  std::unique_ptr<TimeSteppingRigidBodySystem> plant;
  std::unique_ptr<Simulator<double>> sim;
  double q() const { return plant->GetState(sim->get_context())[0]; }
  double v() const { return plant->GetState(sim->get_context())[1]; }
  const TimeSteppingStepStats& stats() const {
    return plant->GetStepStats(sim->get_context());
  }
};

Sim Start(const RigidBodyTree<double>& tree, double q0, double v0,
          TimeSteppingOptions options = {}) {
  Sim r;
  r.plant = std::make_unique<TimeSteppingRigidBodySystem>(
      tree, GeometryModel(tree.num_bodies()), kH,
      std::vector<TimeSteppingRigidBodySystem::ActuatorPtr>{},
      std::vector<TimeSteppingRigidBodySystem::SensorPtr>{},
      std::vector<TimeSteppingRigidBodySystem::BilateralPtr>{}, options);
  r.sim = std::make_unique<Simulator<double>>(*r.plant);
  r.plant->SetPositionsAndVelocities(&r.sim->get_mutable_context(),
                                     VectorX<double>::Constant(1, q0),
                                     VectorX<double>::Constant(1, v0));
  return r;
}

TimeSteppingOptions With(Solver s) {
  TimeSteppingOptions o;
  o.solver = s;
  return o;
}

// Held by friction: m g l sin(theta0) = 0.49 N m < F = 1 N m. The pendulum
// stays put to 1e-6 rad over 1 s with every solver; under kConvex it
// moves only in the steps before its friction impulse is steady (1e-9
// rad: anchored friction, convex_anchor_sticking, the default), and
// unanchored it creeps within the bound the header states, sigma h tau / I
// per second of holding (tau the gravity torque, here about 4.9e-7
// rad/s).
TEST(TimeSteppingJointFriction, PendulumBelowTheFrictionStaysPut) {
  const double F = 1.0, theta0 = 0.05;
  const double tau = kM * kG * kL * std::sin(theta0);
  ASSERT_LT(tau, F);
  for (Solver s : kSolvers) {
    SCOPED_TRACE(Name(s));
    Sim r = Start(Pendulum(F), theta0, 0.0, With(s));
    r.sim->AdvanceTo(1.0);
    const double drift = std::abs(r.q() - theta0);
    EXPECT_LT(drift, 1e-6);
    if (s == Solver::kConvex) {
      EXPECT_LE(drift, 1e-9);  // anchored by default
      TimeSteppingOptions unanchored = With(s);
      unanchored.convex_anchor_sticking = false;
      Sim u = Start(Pendulum(F), theta0, 0.0, unanchored);
      u.sim->AdvanceTo(1.0);
      const double creep = std::abs(u.q() - theta0);
      EXPECT_LE(creep, 1e-3 * kH * tau / kI * 1.0 * 1.01);
      EXPECT_GT(creep, 0.5 * 1e-3 * kH * tau / kI * 1.0);
    }
    EXPECT_TRUE(r.stats().converged);
    EXPECT_EQ(r.stats().num_rows, 1);
    EXPECT_EQ(r.stats().num_islands, 1);
  }
}

// Beyond the friction: m g l sin(theta0) = 4.70 N m > F = 2 N m. The
// pendulum starts with the acceleration (tau_g - F) / I (1%), toward the
// bottom, as long as theta has not moved much (10 steps: 5e-4 rad).
TEST(TimeSteppingJointFriction,
     PendulumBeyondTheFrictionAcceleratesAtTauMinusF) {
  const double F = 2.0, theta0 = 0.5;
  const double tau = kM * kG * kL * std::sin(theta0);
  const double expected = -(tau - F) / kI;
  for (Solver s : kSolvers) {
    SCOPED_TRACE(Name(s));
    Sim r = Start(Pendulum(F), theta0, 0.0, With(s));
    r.sim->AdvanceTo(10 * kH);
    EXPECT_NEAR(r.v() / (10 * kH), expected, 0.01 * std::abs(expected));
    EXPECT_TRUE(r.stats().converged);
  }
  // Without friction, (tau_g - 0) / I: the row is what slows it.
  Sim frictionless = Start(Pendulum(0.0), theta0, 0.0);
  frictionless.sim->AdvanceTo(10 * kH);
  EXPECT_NEAR(frictionless.v() / (10 * kH), -tau / kI, 0.01 * tau / kI);
  EXPECT_EQ(frictionless.stats().num_rows, 0);
}

// A slider with initial speed v0 and friction F stops after m v0^2 / (2 F)
// (1%; the semi-implicit step is 0.2% short at h = 1 ms) and stays stopped.
TEST(TimeSteppingJointFriction, SliderStopsAfterTheClosedFormDistance) {
  const double m = 1.5, F = 3.0, v0 = 1.2;
  const double distance = m * v0 * v0 / (2 * F);  // 0.36 m
  const double t_stop = m * v0 / F;               // 0.6 s
  for (Solver s : kSolvers) {
    SCOPED_TRACE(Name(s));
    Sim r = Start(Slider(m, F), 0.0, v0, With(s));
    r.sim->AdvanceTo(t_stop + 0.01);
    EXPECT_NEAR(r.q(), distance, 0.01 * distance);
    EXPECT_LT(std::abs(r.v()), 1e-6);
    const double q_stop = r.q();
    r.sim->AdvanceTo(t_stop + 0.5);
    EXPECT_LT(std::abs(r.q() - q_stop), 1e-9);
    EXPECT_TRUE(r.stats().converged);
  }
}

// Friction and a joint limit in one island: the slider reaches its limit
// at 0.2 m (short of the free stopping distance 0.36 m) and rests there
// with the limit row's impulse, not moving after; every solver agrees.
TEST(TimeSteppingJointFriction, SharesItsIslandWithAJointLimit) {
  const double m = 1.5, F = 3.0, v0 = 1.2, limit = 0.2;
  RigidBodyTree<double> tree("slider");
  Joint<double> j;
  j.name = "slide";
  j.type = JointType::kPrismatic;
  j.axis = Vector3<double>::UnitX();
  j.friction = F;
  j.position_lower = -1;
  j.position_upper = limit;
  tree.AddBody("block", 0, j,
               SpatialInertia<double>::FromCom(m, Vector3<double>::Zero(),
                                               Matrix3<double>::Identity()));
  for (Solver s : kSolvers) {
    SCOPED_TRACE(Name(s));
    Sim r = Start(tree, 0.0, v0, With(s));
    // It reaches the limit at t = (v0 - sqrt(v0^2 - 2 F d / m)) m / F.
    const double t_hit =
        (v0 - std::sqrt(v0 * v0 - 2 * F * limit / m)) * m / F;  // 0.2 s
    r.sim->AdvanceTo(t_hit + 0.05);
    EXPECT_NEAR(r.q(), limit, 1e-4);
    EXPECT_LT(std::abs(r.v()), 1e-6);
    EXPECT_EQ(r.stats().num_rows, 2);
    EXPECT_EQ(r.stats().num_islands, 1);
    EXPECT_TRUE(r.stats().converged);
    const double q_rest = r.q();
    r.sim->AdvanceTo(t_hit + 0.3);
    EXPECT_LT(std::abs(r.q() - q_rest), 1e-9);
  }
}

// Energy (kinetic + potential) of a double pendulum with friction on both
// joints, released from rest at an angle, never increases from one step to
// the next (1e-9 of the start), and friction takes more than half of what
// lies above rest in 3 s. Without the friction rows the same step
// (semi-implicit Euler) gains energy in some steps: the check can fail.
TEST(TimeSteppingJointFriction, EnergyNeverIncreases) {
  // Rods of 1 kg, 0.5 m and 0.8 kg, 0.4 m, friction 0.4 N m on both hinges.
  const RigidBodyTree<double> tree =
      test::MakeDoublePendulum(1.0, 0.5, 0.8, 0.4, 0.4);
  KinematicsCache<double> cache(tree);
  auto energy = [&](const VectorX<double>& x) {
    ForwardKinematics(tree, &cache, VectorX<double>(x.head(2)),
                      VectorX<double>(x.tail(2)));
    return KineticEnergy(tree, cache) + PotentialEnergy(tree, cache);
  };
  // The largest gain of a step and the last energy, over 3 s.
  auto run = [&](TimeSteppingOptions o, double* e_end) {
    TimeSteppingRigidBodySystem plant(tree, GeometryModel(tree.num_bodies()),
                                      kH, {}, {}, {}, o);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                    Eigen::Vector2d(1.0, -0.5),
                                    Eigen::Vector2d::Zero());
    double e = energy(plant.GetState(sim.get_context()));
    double worst = -1e300;
    for (int k = 1; k <= 3000; ++k) {
      sim.AdvanceTo(k * kH);
      const double en = energy(plant.GetState(sim.get_context()));
      worst = std::max(worst, en - e);
      e = en;
    }
    *e_end = e;
    return worst;
  };
  double e0 = 0;
  {
    VectorX<double> x0(4);
    x0 << 1.0, -0.5, 0, 0;
    e0 = energy(x0);
  }
  const double e_min = energy(VectorX<double>::Zero(4));  // hanging at rest
  for (Solver s : {Solver::kConvex, Solver::kPgs, Solver::kLemke}) {
    SCOPED_TRACE(Name(s));
    double e = 0;
    EXPECT_LE(run(With(s), &e), 1e-9 * std::abs(e0))
        << "largest energy gain in a step";
    EXPECT_LT(e - e_min, 0.5 * (e0 - e_min)) << "friction took less than half";
  }
  TimeSteppingOptions off;
  off.joint_friction = false;
  double e = 0;
  EXPECT_GT(run(off, &e), 1e-6 * std::abs(e0));
}

// The continuous plant applies the same F regularized (-F v / sqrt(v^2 +
// v_s^2)): where that law is close to Coulomb's (|v| >> v_s) both plants
// agree, loosely: the slider's stopping distance within 2%; the
// pendulum's speed after 0.1 s within 5% (the regularized law lets it slip
// freely until |v| ~ v_s, 2 ms: a lead of about 0.005 rad/s).
TEST(TimeSteppingJointFriction, AgreesWithTheContinuousPlant) {
  auto continuous = [](const RigidBodyTree<double>& tree, double q0, double v0,
                       double t) {
    RigidBodySystem<double> plant(tree, {});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                    VectorX<double>::Constant(1, q0),
                                    VectorX<double>::Constant(1, v0));
    sim.reset_integrator<RK4>(1e-4);
    sim.AdvanceTo(t);
    return Eigen::Vector2d(sim.get_context().get_continuous_state_vector());
  };
  const double m = 1.5, F = 3.0, v0 = 1.2;
  Sim slider = Start(Slider(m, F), 0.0, v0);
  slider.sim->AdvanceTo(1.0);
  const Eigen::Vector2d c = continuous(Slider(m, F), 0.0, v0, 1.0);
  EXPECT_NEAR(c[0], slider.q(), 0.02 * slider.q());
  Sim pendulum = Start(Pendulum(2.0), 0.5, 0.0);
  pendulum.sim->AdvanceTo(0.1);
  const Eigen::Vector2d p = continuous(Pendulum(2.0), 0.5, 0.0, 0.1);
  EXPECT_NEAR(p[1], pendulum.v(), 0.05 * std::abs(pendulum.v()));
}

// A robot without friction pays nothing: no row, no island, no solve.
// One with friction but no contact forms an island of its own, solved by
// the convex solver in about one Newton iteration per step.
TEST(TimeSteppingJointFriction, RowsOnlyWhereThereIsFriction) {
  Sim none = Start(Pendulum(0.0), 0.5, 0.0);
  EXPECT_EQ(none.plant->constraints().size(), 1u);  // contact only
  none.sim->AdvanceTo(0.1);
  EXPECT_EQ(none.stats().num_rows, 0);
  EXPECT_EQ(none.stats().num_islands, 0);
  EXPECT_EQ(none.stats().convex_iterations, 0);
  Sim some = Start(Pendulum(1.0), 0.5, 0.0);
  ASSERT_EQ(some.plant->constraints().size(), 2u);
  EXPECT_EQ(some.plant->constraints()[1]->name(), "joint_friction");
  some.sim->AdvanceTo(0.1);
  EXPECT_EQ(some.stats().num_islands, 1);
  EXPECT_LE(some.stats().convex_iterations, 3);
  // The option turns it off.
  TimeSteppingOptions off;
  off.joint_friction = false;
  Sim ignored = Start(Pendulum(1.0), 0.05, 0.0, off);
  ignored.sim->AdvanceTo(0.1);
  EXPECT_GT(std::abs(ignored.q() - 0.05), 1e-3);
}

// URDF <dynamics friction> and MJCF frictionloss reach both plants: the
// slider decelerates at F / m on each.
TEST(TimeSteppingJointFriction, UrdfAndMjcfFrictionApplyOnBothPlants) {
  const std::string urdf = R"(
<robot name="slider">
  <link name="base"/>
  <link name="block">
    <inertial><mass value="2"/>
      <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="base"/><child link="block"/><axis xyz="1 0 0"/>
    <limit lower="-10" upper="10" effort="100" velocity="100"/>
    <dynamics friction="3"/>
  </joint>
</robot>)";
  const std::string mjcf = R"(
<mujoco model="slider">
  <worldbody>
    <body name="block">
      <joint name="slide" type="slide" axis="1 0 0" frictionloss="3"/>
      <inertial pos="0 0 0" mass="2" diaginertia="1 1 1"/>
    </body>
  </worldbody>
</mujoco>)";
  const RigidBodyTree<double> trees[] = {ParseUrdfString(urdf).tree,
                                         ParseMjcfString(mjcf).tree};
  for (const RigidBodyTree<double>& tree : trees) {
    SCOPED_TRACE(tree.name());
    ASSERT_EQ(tree.num_velocities(), 1);
    const int nq = tree.num_positions();
    // Discrete: after 0.1 s at 1 m/s, v = 1 - 0.1 F / m = 0.85.
    TimeSteppingRigidBodySystem plant(tree, GeometryModel(tree.num_bodies()),
                                      kH);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                    VectorX<double>::Zero(nq),
                                    VectorX<double>::Ones(1));
    sim.AdvanceTo(0.1);
    EXPECT_NEAR(plant.GetState(sim.get_context())[nq], 0.85, 1e-9);
    // Continuous: the same to the regularization (v >> v_s).
    RigidBodySystem<double> cplant(tree, {});
    Simulator<double> csim(cplant);
    cplant.SetPositionsAndVelocities(&csim.get_mutable_context(),
                                     VectorX<double>::Zero(nq),
                                     VectorX<double>::Ones(1));
    csim.reset_integrator<RK4>(1e-3);
    csim.AdvanceTo(0.1);
    EXPECT_NEAR(csim.get_context().get_continuous_state_vector()[nq], 0.85,
                1e-3);
  }
}

}  // namespace
}  // namespace tern
