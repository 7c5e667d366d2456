#include "tern/multibody/plant/actuator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tern/multibody/plant/actuator_system.h"
#include "tern/multibody/plant/test/plant_test_models.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"

namespace tern {
namespace {

// Evaluates an actuator at (q, v) with command u and state z.
struct Eval {
  explicit Eval(const RigidBodyTree<double>& t)
      : tree(t), cache(t), J(6, t.num_velocities()), tau(t.num_velocities()) {}
  const VectorX<double>& operator()(const Actuator<double>& a,
                                    const VectorX<double>& q,
                                    const VectorX<double>& v, const double* u,
                                    const double* z = nullptr) {
    qq = q;
    vv = v;
    ForwardKinematics(tree, &cache, qq, vv);
    ForceElementInputs<double> in;
    in.tree = &tree;
    in.cache = &cache;
    in.q = &qq;
    in.v = &vv;
    in.u = u;
    in.z = z;
    in.J = &J;
    a.CalcGeneralizedForce(in, &tau);
    return tau;
  }
  const RigidBodyTree<double>& tree;
  KinematicsCache<double> cache;
  Matrix6X<double> J;
  VectorX<double> tau, qq, vv;
};

RigidBodyTree<double> Slider() {
  RigidBodyTree<double> tree("slider");
  Joint<double> j;
  j.name = "slide";
  j.type = JointType::kPrismatic;
  j.axis = Vector3<double>::UnitX();
  j.effort_limit = 2.0;
  tree.AddBody("block", 0, j,
               SpatialInertia<double>::FromCom(1.0, Vector3<double>::Zero(),
                                               Matrix3<double>::Identity()));
  return tree;
}

TEST(TorqueSource, ClampsToEffortLimitAndLags) {
  const RigidBodyTree<double> tree = Slider();
  Eval eval(tree);
  const VectorX<double> q = VectorX<double>::Zero(1), v = q;
  TorqueSource<double> direct(tree, {"slide"});
  EXPECT_EQ(direct.num_states(), 0);
  double u = 5.0;
  EXPECT_EQ(eval(direct, q, v, &u)[0], 2.0);
  u = -5.0;
  EXPECT_EQ(eval(direct, q, v, &u)[0], -2.0);
  u = 1.5;
  EXPECT_EQ(eval(direct, q, v, &u)[0], 1.5);
  TorqueSource<double> lagged(tree, {"slide"}, 0.1);
  ASSERT_EQ(lagged.num_states(), 1);
  const double z = 0.5;
  u = 5.0;
  EXPECT_EQ(eval(lagged, q, v, &u, &z)[0], 0.5);  // applies its state
  ForceElementInputs<double> in;
  in.u = &u;
  in.z = &z;
  double zdot = 0;
  lagged.CalcStateDerivatives(in, &zdot);
  EXPECT_DOUBLE_EQ(zdot, (2.0 - 0.5) / 0.1);  // towards the clamped command
}

// LimitCommand and Clamps are the clamp CalcGeneralizedForce applies (the
// CLI logs and counts through them); effort_limits override the URDF's.
TEST(TorqueSource, LimitCommandIsTheAppliedEffortAndOverridesApply) {
  const RigidBodyTree<double> tree = Slider();
  Eval eval(tree);
  const VectorX<double> q = VectorX<double>::Zero(1), v = q;
  TorqueSource<double> direct(tree, {"slide"});
  EXPECT_EQ(direct.effort_limits(), std::vector<double>{2.0});
  for (double u : {-5.0, -2.0, 0.3, 2.0, 2.5}) {
    double limited = NAN, clamped = NAN;
    direct.LimitCommand(&u, &limited, &clamped);
    EXPECT_EQ(limited, eval(direct, q, v, &u)[0]) << u;
    EXPECT_EQ(clamped, std::abs(u) > 2.0 ? 1.0 : 0.0) << u;
    EXPECT_EQ(direct.Clamps(0, u), std::abs(u) > 2.0) << u;
  }
  TorqueSource<double> five(tree, {"slide"}, 0, "five", {5.0});
  double u = 4.0;
  EXPECT_EQ(eval(five, q, v, &u)[0], 4.0);
  EXPECT_FALSE(five.Clamps(0, u));
  TorqueSource<double> none(tree, {"slide"}, 0, "none", {INFINITY});
  u = 1e6;
  EXPECT_EQ(eval(none, q, v, &u)[0], 1e6);
  try {
    TorqueSource<double>(tree, {"slide"}, 0, "bad", {-1.0});
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'bad': joint 'slide': effort limit "
                                         "-1 is not positive"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(TorqueSource<double>(tree, {"slide"}, 0, "two", {1.0, 2.0}),
               std::invalid_argument);
}

// The wrench mapped by J^T gives the same accelerations as handing it to
// ForwardDynamics as an external body force: two independent code paths.
TEST(SpatialForceActuator, EqualsExternalForceInForwardDynamics) {
  const RigidBodyTree<double> tree = test::MakeRandomTree(6, 11, true, false);
  std::mt19937 gen(2);
  const VectorX<double> q = test::RandomConfiguration(tree, &gen);
  const VectorX<double> v = test::RandomVector(tree.num_velocities(), &gen);
  const int body = 4;
  const Vector3<double> p_BP(0.1, -0.2, 0.3);
  SpatialForceActuator<double> a(tree, tree.body(body).name, p_BP);
  const Vector6<double> u = test::RandomVector(6, &gen);
  Eval eval(tree);
  const VectorX<double> tau = eval(a, q, v, u.data());
  KinematicsCache<double> cache(tree);
  const VectorX<double> vdot1 = ForwardDynamics(tree, &cache, q, v, tau);
  std::vector<SpatialForce<double>> f_ext(tree.num_bodies(),
                                          SpatialForce<double>::Zero());
  // In B about B's origin: torque n + p x f.
  f_ext[body].head<3>() =
      u.head<3>() + p_BP.cross(Vector3<double>(u.tail<3>()));
  f_ext[body].tail<3>() = u.tail<3>();
  const VectorX<double> zero = VectorX<double>::Zero(tree.num_velocities());
  const VectorX<double> vdot2 =
      ForwardDynamics(tree, &cache, q, v, zero, &f_ext);
  EXPECT_LT((vdot1 - vdot2).norm(), 1e-10);
}

TEST(LinearSpringDamper, HookeAndDashpotAlongTheLine) {
  const RigidBodyTree<double> tree = Slider();
  // Block origin tied to the world point (3, 0, 0), rest length 1.
  LinearSpringDamper<double> s(tree, "block", Vector3<double>::Zero(), "world",
                               Vector3<double>(3, 0, 0), 10.0, 2.0, 1.0);
  Eval eval(tree);
  const VectorX<double> q = VectorX<double>::Constant(1, 0.5);
  const VectorX<double> v = VectorX<double>::Constant(1, -0.25);
  // Length 2.5 (stretched by 1.5), lengthening at 0.25 m/s: tension 15.5
  // pulls the block towards +x.
  EXPECT_NEAR(eval(s, q, v, nullptr)[0], 10.0 * 1.5 + 2.0 * 0.25, 1e-14);
}

TEST(AerodynamicDrag, QuadraticInSpeed) {
  const RigidBodyTree<double> tree = Slider();
  AerodynamicDrag<double> d(tree, "block", Vector3<double>::Zero(), 0.4);
  Eval eval(tree);
  const VectorX<double> q = VectorX<double>::Zero(1);
  EXPECT_NEAR(eval(d, q, VectorX<double>::Constant(1, 3.0), nullptr)[0],
              -0.4 * 9.0, 1e-14);
  EXPECT_NEAR(eval(d, q, VectorX<double>::Constant(1, -2.0), nullptr)[0],
              0.4 * 4.0, 1e-14);
}

TEST(Propeller, ThrustAndReactionTorque) {
  const RigidBodyTree<double> tree = test::MakeQuadrotorTree(1.0);
  const Vector3<double> p(0.2, 0, 0);
  Propeller<double> prop(tree, "body", p, Vector3<double>::UnitZ(), 2e-5, 3e-7,
                         -1);
  Eval eval(tree);
  const VectorX<double> q = tree.GetZeroConfiguration();
  const VectorX<double> v = VectorX<double>::Zero(6);
  const double w = 400;
  const VectorX<double>& tau = eval(prop, q, v, &w);
  // Floating-joint velocities are [w_B; v_B], so tau = [n_B; f_B] about B.
  const Vector3<double> f(0, 0, 2e-5 * w * w);
  const Vector3<double> n = Vector3<double>(0, 0, 3e-7 * w * w) + p.cross(f);
  EXPECT_LT((tau.head<3>() - n).norm(), 1e-12);
  EXPECT_LT((tau.tail<3>() - f).norm(), 1e-12);
}

TEST(ActuatorSystem, PortsAndState) {
  const RigidBodyTree<double> tree = Slider();
  auto lagged = std::make_shared<TorqueSource<double>>(
      tree, std::vector<std::string>{"slide"}, 0.1, "motor");
  ActuatorSystem<double> sys(tree, lagged);
  EXPECT_EQ(sys.get_name(), "motor");
  EXPECT_EQ(sys.num_input_ports(), 2);
  EXPECT_EQ(sys.num_continuous_states(), 1);
  auto context = sys.CreateDefaultContext();
  sys.get_input_port("state").FixValue(context.get(), Eigen::Vector2d(0, 0));
  sys.get_input_port("command").FixValue(context.get(), 1.0);
  context->get_mutable_continuous_state_vector()[0] = 0.25;
  EXPECT_EQ(sys.get_output_port().Eval(*context)[0], 0.25);
  VectorX<double> zdot(1);
  sys.CalcTimeDerivatives(*context, &zdot);
  EXPECT_DOUBLE_EQ(zdot[0], (1.0 - 0.25) / 0.1);
}

// JointPdActuator::ImplicitGains is its law: tau from the gains equals
// CalcGeneralizedForce (inside the effort limit and beyond it) at random
// states and commands; actuators of other laws have none.
TEST(JointPdActuator, ImplicitGainsAreItsLaw) {
  RigidBodyTree<double> tree = test::MakeDoublePendulum(1.0, 0.5, 2.0, 0.4);
  const std::vector<std::string> joints = {tree.body(2).joint.name,
                                           tree.body(1).joint.name};
  const JointPdActuator<double> pd(tree, joints, {30.0, 7.0}, {2.0, 0.5});
  const Actuator<double>& a = pd;
  const ImplicitJointGains* g = a.ImplicitGains();
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->velocity_indices.size(), 2u);
  EXPECT_EQ(g->velocity_indices[0], tree.body(2).velocity_start);
  EXPECT_EQ(g->position_indices[1], tree.body(1).position_start);
  Eval eval(tree);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> r(-2, 2);
  for (int trial = 0; trial < 10; ++trial) {
    const VectorX<double> q = Eigen::Vector2d(r(rng), r(rng));
    const VectorX<double> v = Eigen::Vector2d(r(rng), r(rng));
    const double u[4] = {r(rng), r(rng), r(rng), r(rng)};
    const VectorX<double>& tau = eval(pd, q, v, u);
    VectorX<double> expected = VectorX<double>::Zero(2);
    for (int i = 0; i < 2; ++i) {
      const double t = g->kp[i] * (u[i] - q[g->position_indices[i]]) +
                       g->kd[i] * (u[2 + i] - v[g->velocity_indices[i]]);
      expected[g->velocity_indices[i]] =
          std::clamp(t, -g->effort_limits[i], g->effort_limits[i]);
    }
    EXPECT_EQ(tau, expected) << "trial " << trial;
  }
  // Beyond the effort limit (the slider's 2 N) both clamp alike.
  const RigidBodyTree<double> slider = Slider();
  const JointPdActuator<double> stiff(slider, {"slide"}, {100.0}, {1.0});
  const ImplicitJointGains& gs = *stiff.ImplicitGains();
  Eval eval_slider(slider);
  int clamped = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const VectorX<double> q = VectorX<double>::Constant(1, 0.05 * r(rng));
    const VectorX<double> v = VectorX<double>::Constant(1, r(rng));
    const double u[2] = {0.05 * r(rng), r(rng)};
    const double t = gs.kp[0] * (u[0] - q[0]) + gs.kd[0] * (u[1] - v[0]);
    clamped += std::abs(t) > 2.0;
    EXPECT_EQ(eval_slider(stiff, q, v, u)[0],
              std::clamp(t, -gs.effort_limits[0], gs.effort_limits[0]));
  }
  EXPECT_GT(clamped, 0);
  EXPECT_LT(clamped, 10);
  const TorqueSource<double> torque(tree, joints);
  const GeneralizedForce<double> generalized(tree);
  EXPECT_EQ(static_cast<const Actuator<double>&>(torque).ImplicitGains(),
            nullptr);
  EXPECT_EQ(static_cast<const Actuator<double>&>(generalized).ImplicitGains(),
            nullptr);
}

TEST(Actuators, BadInputNamesTheCulprit) {
  const RigidBodyTree<double> tree = test::MakeQuadrotorTree(1.0);
  EXPECT_THROW(TorqueSource<double>(tree, {"floating"}), std::invalid_argument);
  try {
    Propeller<double>(tree, "rotor", Vector3<double>::Zero(),
                      Vector3<double>::UnitZ(), 1, 1, 1, "p0");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'rotor'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'p0'"), std::string::npos);
  }
  EXPECT_THROW(
      LinearSpringDamper<double>(tree, "body", Vector3<double>::Zero(), "body",
                                 Vector3<double>::Ones(), 1, 1, 0),
      std::invalid_argument);
  EXPECT_THROW(
      AerodynamicDrag<double>(tree, "body", Vector3<double>::Zero(), -1.0),
      std::invalid_argument);
}

}  // namespace
}  // namespace tern
