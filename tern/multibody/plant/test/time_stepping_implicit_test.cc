// TimeSteppingRigidBodySystem: implicit joint servos (JointPdActuator with
// TimeSteppingOptions::implicit_pd), checked against the closed form of
// backward Euler, the effort limit, and the explicit servo's divergence.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "examples/quadruped/quadruped_stance.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using ActuatorList = std::vector<std::shared_ptr<const Actuator<double>>>;

// One light link on a revolute joint about z, no gravity, no geometry:
// I = 1e-4 kg m^2 about the axis.
constexpr double kI = 1e-4;
RigidBodyTree<double> LightLink(double effort_limit) {
  RigidBodyTree<double> tree("light_link");
  tree.set_gravity(Vector3<double>::Zero());
  Joint<double> j;
  j.name = "hinge";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitZ();
  j.effort_limit = effort_limit;
  // 0.1 kg at 0.02 m from the axis, 6e-5 kg m^2 about its center of mass.
  const double m = 0.1, r = 0.02;
  Matrix3<double> I_c = Matrix3<double>::Identity() * 3e-5;
  I_c(2, 2) = kI - m * r * r;
  tree.AddBody(
      "link", 0, j,
      SpatialInertia<double>::FromCom(m, Vector3<double>(r, 0, 0), I_c));
  return tree;
}

struct Servo {
  std::unique_ptr<TimeSteppingRigidBodySystem> plant;
  std::unique_ptr<Simulator<double>> sim;
};

// A servo of the user's own (not a JointPdActuator) with the PD law: the
// plant finds its gains through Actuator::ImplicitGains, not by its type.
class CustomServo final : public Actuator<double> {
 public:
  CustomServo(const RigidBodyTree<double>& tree, double kp, double kd)
      : Actuator<double>("servo", tree, 2, 0, false) {
    gains_.velocity_indices = {0};
    gains_.position_indices = {0};
    gains_.kp = {kp};
    gains_.kd = {kd};
    gains_.effort_limits = {tree.body(1).joint.effort_limit};
  }
  void CalcGeneralizedForce(const ForceElementInputs<double>& in,
                            VectorX<double>* tau) const override {
    const double t = gains_.kp[0] * (in.u[0] - (*in.q)[0]) +
                     gains_.kd[0] * (in.u[1] - (*in.v)[0]);
    (*tau)[0] =
        std::clamp(t, -gains_.effort_limits[0], gains_.effort_limits[0]);
  }
  const ImplicitJointGains* ImplicitGains() const override { return &gains_; }

 private:
  ImplicitJointGains gains_;
};

Servo MakeServo(double kp, double kd, double q_d, double effort_limit,
                bool implicit, double q0, double h = 1e-3,
                bool custom = false) {
  const RigidBodyTree<double> tree = LightLink(effort_limit);
  std::shared_ptr<const Actuator<double>> pd;
  if (custom) {
    pd = std::make_shared<CustomServo>(tree, kp, kd);
  } else {
    pd = std::make_shared<JointPdActuator<double>>(
        tree, std::vector<std::string>{"hinge"}, std::vector<double>{kp},
        std::vector<double>{kd}, "servo");
  }
  TimeSteppingOptions options;
  options.implicit_pd = implicit;
  Servo s;
  s.plant = std::make_unique<TimeSteppingRigidBodySystem>(
      tree, GeometryModel(tree.num_bodies()), h, ActuatorList{pd},
      std::vector<std::shared_ptr<const Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
      options);
  s.sim = std::make_unique<Simulator<double>>(*s.plant);
  s.plant->get_actuator_input_port("servo").FixValue(
      &s.sim->get_mutable_context(), Eigen::Vector2d(q_d, 0.0));
  s.plant->SetPositionsAndVelocities(&s.sim->get_mutable_context(),
                                     VectorX<double>::Constant(1, q0),
                                     VectorX<double>::Zero(1));
  return s;
}

// Whether the servo's run to 0.2 s diverges: the step reports a non-finite
// velocity or the link spins off.
bool Diverges(Servo* s) {
  try {
    s->sim->AdvanceTo(0.2);
    return std::abs(s->plant->GetState(s->sim->get_context())[0]) > 1e3;
  } catch (const std::runtime_error& e) {
    return std::string(e.what()).find("non-finite") != std::string::npos;
  }
}

// A stiff servo on the light link (h sqrt(kp / I) = 3.2, h kd / I = 10 at
// h = 1 ms): the implicit step is backward Euler on the linear system
// I qdd = kp (q_d - q) - kd qd, x_{n+1} = (1 - h A)^-1 x_n in the error
// coordinates, to roundoff; and it settles on the target.
TEST(TimeSteppingImplicitPd, StiffServoIsBackwardEuler) {
  const double kp = 1000, kd = 1, q_d = 0.3, h = 1e-3;
  Servo s = MakeServo(kp, kd, q_d, 1e9, true, 0.0, h);
  Eigen::Matrix2d A;
  A << 0, 1, -kp / kI, -kd / kI;
  // Backward Euler with q updated from vn: [e; v]_{n+1} from
  // (I + h kd + h^2 kp) vn = I v - h kp e, e_{n+1} = e + h vn.
  Eigen::Matrix2d step;
  const double d = kI + h * kd + h * h * kp;
  step << 1 - h * h * kp / d, h * kI / d,  //
      -h * kp / d, kI / d;
  Eigen::Vector2d x(0.0 - q_d, 0.0);
  for (int n = 1; n <= 200; ++n) {
    s.sim->AdvanceTo(n * h);
    x = step * x;
    const VectorX<double>& state = s.plant->GetState(s.sim->get_context());
    ASSERT_NEAR(state[0] - q_d, x[0], 1e-12) << "step " << n;
    ASSERT_NEAR(state[1], x[1], 1e-9) << "step " << n;
    // The reported torque is the one applied at the step's end state.
    ASSERT_NEAR(s.plant->GetActuatorForces(s.sim->get_context())[0],
                kp * (q_d - state[0]) - kd * state[1], 1e-9)
        << "step " << n;
  }
  // (1 - h A) x_{n+1} = x_n is the same map.
  EXPECT_LT(((Eigen::Matrix2d::Identity() - h * A).inverse() - step).norm(),
            1e-12);
  s.sim->AdvanceTo(0.5);
  EXPECT_NEAR(s.plant->GetState(s.sim->get_context())[0], q_d, 1e-9);
}

// A servo of the user's own type that declares its gains
// (Actuator::ImplicitGains) is stepped implicitly as JointPdActuator is:
// the same states bit for bit, on the stiff servo and at the effort limit.
TEST(TimeSteppingImplicitPd, AnyActuatorWithImplicitGainsIsImplicit) {
  for (const double limit : {1e9, 0.01}) {
    Servo pd = MakeServo(1000, 1, 0.3, limit, true, 0.0);
    Servo custom = MakeServo(1000, 1, 0.3, limit, true, 0.0, 1e-3, true);
    for (int n = 1; n <= 100; ++n) {
      pd.sim->AdvanceTo(n * 1e-3);
      custom.sim->AdvanceTo(n * 1e-3);
      ASSERT_EQ(pd.plant->GetState(pd.sim->get_context()),
                custom.plant->GetState(custom.sim->get_context()))
          << "limit " << limit << " step " << n;
    }
  }
  // Stepped explicitly (implicit_pd = false) the custom servo diverges.
  Servo s = MakeServo(1000, 1, 0.3, 1e9, false, 0.0, 1e-3, true);
  EXPECT_TRUE(Diverges(&s));
}

// The same servo evaluated explicitly (implicit_pd = false) diverges: the
// step reports a non-finite velocity or the link spins off.
TEST(TimeSteppingImplicitPd, StiffServoExplicitDiverges) {
  Servo s = MakeServo(1000, 1, 0.3, 1e9, false, 0.0);
  EXPECT_TRUE(Diverges(&s));
}

// Effort limit 0.01 N m, target 0.05 rad away (kp 10, kd 0.2): for the
// first steps the servo applies the limit (exactly, reported as such) and
// the link accelerates at limit / I (q_n = h^2 a n (n + 1) / 2 under the
// step's update); then the torque is implicit, never beyond the limit, and
// the link settles on the target.
TEST(TimeSteppingImplicitPd, EffortLimitHolds) {
  const double limit = 0.01, h = 1e-3, a = limit / kI, q_d = 0.05;
  Servo s = MakeServo(10, 0.2, q_d, limit, true, 0.0, h);
  for (int n = 1; n <= 10; ++n) {
    s.sim->AdvanceTo(n * h);
    const VectorX<double>& x = s.plant->GetState(s.sim->get_context());
    ASSERT_NEAR(x[0], h * h * a * n * (n + 1) / 2, 1e-12) << "step " << n;
    ASSERT_EQ(s.plant->GetActuatorForces(s.sim->get_context())[0], limit);
  }
  double max_tau = 0;
  for (int n = 11; n <= 1000; ++n) {
    s.sim->AdvanceTo(n * h);
    max_tau = std::max(
        max_tau, std::abs(s.plant->GetActuatorForces(s.sim->get_context())[0]));
  }
  EXPECT_LE(max_tau, limit);
  EXPECT_NEAR(s.plant->GetState(s.sim->get_context())[0], q_d, 1e-6);
}

// Kinetic energy of a body on a ball joint spinning off its principal
// axes in zero gravity (a top without gravity: energy is conserved in
// continuous time), after each of 1000 steps of 1 ms, as a ratio to the
// start. Returns the largest and the last ratio.
std::pair<double, double> SpinningTopEnergy(bool implicit_velocity_products) {
  RigidBodyTree<double> tree("top");
  tree.set_gravity(Vector3<double>::Zero());
  Joint<double> j;
  j.name = "pivot";
  j.type = JointType::kBall;
  Matrix3<double> I_c = Vector3<double>(1e-3, 2e-3, 3e-3).asDiagonal();
  tree.AddBody(
      "top", 0, j,
      SpatialInertia<double>::FromCom(1.0, Vector3<double>(0, 0, 0.1), I_c));
  TimeSteppingOptions options;
  options.implicit_velocity_products = implicit_velocity_products;
  TimeSteppingRigidBodySystem plant(tree, GeometryModel(tree.num_bodies()),
                                    1e-3, ActuatorList{}, {}, {}, options);
  Simulator<double> sim(plant);
  const Vector3<double> w0(20, 5, 30);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                  tree.GetZeroConfiguration(), w0);
  // The inertia about the pivot, in the body frame.
  const Matrix3<double> I =
      SpatialInertia<double>::FromCom(1.0, Vector3<double>(0, 0, 0.1), I_c).I;
  const double e0 = w0.dot(I * w0) / 2;
  double max_ratio = 0, ratio = 0, prev = e0;
  bool monotone = true;
  for (int n = 1; n <= 1000; ++n) {
    sim.AdvanceTo(n * 1e-3);
    const Vector3<double> w = plant.GetState(sim.get_context()).tail<3>();
    const double e = w.dot(I * w) / 2;
    monotone &= e <= prev * (1 + 1e-14);
    prev = e;
    ratio = e / e0;
    max_ratio = std::max(max_ratio, ratio);
  }
  return {monotone ? max_ratio : 1e9, ratio};
}

// The explicit velocity products make the spinning top gain energy; with
// them implicit the energy never increases in any step. The price is
// backward Euler's dissipation: 25% of the energy in 1 s at h |w| = 0.036
// (so the option is off by default).
TEST(TimeSteppingImplicitVelocityProducts, SpinningTopEnergyDoesNotGrow) {
  const auto [explicit_max, explicit_end] = SpinningTopEnergy(false);
  EXPECT_GT(explicit_max, 1.01) << "the explicit step should gain energy";
  const auto [implicit_max, implicit_end] = SpinningTopEnergy(true);
  EXPECT_LE(implicit_max, 1.0) << "energy rose in some step";
  EXPECT_GT(implicit_end, 0.7);
}

// The shipped quadruped standing on the ground, its 12 joints servoed to
// the stance (kp 300, kd 10) by one implicit JointPdActuator, against the
// same gains applied explicitly by a PidController wired through ports:
// both hold the stance for 1 s and end at the same base height within 1 cm
// (6.8 mm apart: with sticking feet the equilibrium depends on how the
// feet spread during the landing transient, which the implicit servo damps
// differently); the implicit servos' applied torques stay within the
// joints' effort limits.
TEST(TimeSteppingImplicitPd, QuadrupedStandsLikeTheExplicitServo) {
  ContactProperties ground;
  ground.friction = 0.9;
  const QuadrupedStance s = MakeQuadrupedStance(
      TERN_MODELS_DIR, QuadrupedFeetOnGroundHeight() + 1e-3, ground);
  const int nv = s.tree.num_velocities();
  std::vector<double> kp(12, 300.0), kd(12, 10.0);
  auto servo = std::make_shared<JointPdActuator<double>>(s.tree, s.joints, kp,
                                                         kd, "servo");
  TimeSteppingRigidBodySystem plant(s.tree, s.geometry, 1e-3,
                                    ActuatorList{servo}, {}, {}, {});
  Simulator<double> sim(plant);
  plant.get_actuator_input_port("servo").FixValue(&sim.get_mutable_context(),
                                                  s.x_des);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), s.q0,
                                  VectorX<double>::Zero(nv));
  double max_excess = 0;
  for (int n = 1; n <= 1000; ++n) {
    sim.AdvanceTo(n * 1e-3);
    const VectorX<double>& tau = plant.GetActuatorForces(sim.get_context());
    for (const std::string& joint : s.joints) {
      const RigidBody<double>& b =
          s.tree.body(s.tree.FindJointBodyIndex(joint));
      max_excess = std::max(
          max_excess, std::abs(tau[b.velocity_start]) - b.joint.effort_limit);
    }
  }
  const VectorX<double> x = plant.GetState(sim.get_context());
  EXPECT_GT(x[2], 0.8 * s.q0[2]);
  EXPECT_GT(std::abs(x[3]), 0.98);  // qw: upright
  EXPECT_EQ(plant.GetStepStats(sim.get_context()).num_contacts, 4);
  EXPECT_LE(max_excess, 0.0);

  TimeSteppingOptions options;
  options.state_output = true;
  auto motors =
      std::make_shared<TorqueSource<double>>(s.tree, s.joints, 0.0, "motors");
  DiagramBuilder<double> builder;
  auto* pid_plant = builder.AddSystem<TimeSteppingRigidBodySystem>(
      s.tree, s.geometry, 1e-3, ActuatorList{motors},
      std::vector<std::shared_ptr<const Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
      options);
  ConnectJointPd(&builder, pid_plant, s.select, s.x_des, 300, 10);
  auto diagram = builder.Build();
  Simulator<double> pid_sim(*diagram);
  pid_plant->SetPositionsAndVelocities(
      &pid_plant->GetMyMutableContextFromRoot(&pid_sim.get_mutable_context()),
      s.q0, VectorX<double>::Zero(nv));
  pid_sim.AdvanceTo(1.0);
  const VectorX<double>& y = pid_plant->GetState(
      pid_plant->GetMyContextFromRoot(pid_sim.get_context()));
  EXPECT_NEAR(x[2], y[2], 1e-2);
}

// After the first steps, a step with implicit servos, a floating robot's
// momentum correction and contact does not allocate (DESIGN.md).
TEST(TimeSteppingImplicitPd, StepDoesNotAllocate) {
  ContactProperties ground;
  ground.friction = 0.9;
  const QuadrupedStance s = MakeQuadrupedStance(
      TERN_MODELS_DIR, QuadrupedFeetOnGroundHeight() + 1e-3, ground);
  std::vector<double> kp(12, 300.0), kd(12, 10.0);
  auto servo = std::make_shared<JointPdActuator<double>>(s.tree, s.joints, kp,
                                                         kd, "servo");
  TimeSteppingRigidBodySystem plant(s.tree, s.geometry, 1e-3,
                                    ActuatorList{servo}, {}, {}, {});
  auto context = plant.CreateDefaultContext();
  plant.get_actuator_input_port("servo").FixValue(context.get(), s.x_des);
  plant.SetPositionsAndVelocities(
      context.get(), s.q0, VectorX<double>::Zero(s.tree.num_velocities()));
  State<double> state = context->get_mutable_state();
  for (int n = 0; n < 50; ++n) plant.CalcNextState(*context, &state);
  std::int64_t allocations = 0;
  {
    test::ScopedAllocationCounter counter;
    for (int n = 0; n < 20; ++n) plant.CalcNextState(*context, &state);
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(plant.GetStepStats(*context).num_contacts, 4);
}

TEST(TimeSteppingImplicitPd, BadGainsNameTheJoint) {
  const RigidBodyTree<double> tree = LightLink(1);
  try {
    JointPdActuator<double> pd(tree, {"hinge"}, {-1.0}, {0.0}, "servo");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'servo' joint 'hinge'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(JointPdActuator<double>(tree, {"elbow"}, {1.0}, {0.0}),
               std::invalid_argument);
  EXPECT_THROW(JointPdActuator<double>(tree, {"hinge"}, {1.0, 2.0}, {0.0}),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern
