#include "tern/multibody/plant/rigid_body_system.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <random>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/actuator_system.h"
#include "tern/multibody/plant/sensor_system.h"
#include "tern/multibody/plant/test/plant_test_models.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/adder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/random_source.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using test::MakeDoublePendulum;

double Energy(const RigidBodyTree<double>& tree, const VectorX<double>& x) {
  KinematicsCache<double> cache(tree);
  const int nq = tree.num_positions();
  ForwardKinematics(tree, &cache, VectorX<double>(x.head(nq)),
                    VectorX<double>(x.segment(nq, tree.num_velocities())));
  return KineticEnergy(tree, cache) + PotentialEnergy(tree, cache);
}

TEST(RigidBodySystem, StateLayoutAndDefaults) {
  RigidBodySystem<double> plant(MakeDoublePendulum(1, 1, 1, 1));
  EXPECT_EQ(plant.num_positions(), 2);
  EXPECT_EQ(plant.num_velocities(), 2);
  EXPECT_EQ(plant.num_misc_continuous_states(), 0);
  EXPECT_EQ(plant.num_input_ports(), 0);
  EXPECT_EQ(plant.num_output_ports(), 0);  // sensors only, by default
}

TEST(RigidBodySystem, DefaultStateFromOptions) {
  RigidBodySystemOptions options;
  options.default_positions = Eigen::Vector2d(0.3, -0.2);
  options.default_velocities = Eigen::Vector2d(1, 2);
  RigidBodySystem<double> plant(MakeDoublePendulum(1, 1, 1, 1), {}, {}, {},
                                options);
  auto context = plant.CreateDefaultContext();
  EXPECT_EQ(context->get_continuous_state_vector(),
            Eigen::Vector4d(0.3, -0.2, 1, 2));
  options.default_velocities = Eigen::Vector3d(1, 2, 3);
  try {
    RigidBodySystem<double> bad(MakeDoublePendulum(1, 1, 1, 1), {}, {}, {},
                                options);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("default_velocities has size 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(RigidBodySystem, DerivativesEqualForwardDynamics) {
  const RigidBodyTree<double> tree = test::MakeRandomTree(8, 3, true, true);
  RigidBodySystem<double> plant(tree);
  auto context = plant.CreateDefaultContext();
  std::mt19937 gen(1);
  const VectorX<double> q = test::RandomConfiguration(tree, &gen);
  const VectorX<double> v = test::RandomVector(tree.num_velocities(), &gen);
  plant.SetPositionsAndVelocities(context.get(), q, v);
  VectorX<double> xdot(plant.num_continuous_states());
  plant.CalcTimeDerivatives(*context, &xdot);
  KinematicsCache<double> cache(tree);
  const VectorX<double> tau = VectorX<double>::Zero(tree.num_velocities());
  const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
  VectorX<double> qdot(tree.num_positions());
  MapVelocityToQDot(tree, q, v, &qdot);
  EXPECT_EQ(xdot.head(tree.num_positions()), qdot);
  EXPECT_EQ(xdot.tail(tree.num_velocities()), vdot);
}

// Undamped double pendulum under RK4: the energy error is O(h^4), so it
// shrinks about 16x when h halves.
TEST(RigidBodySystem, DoublePendulumConservesEnergyToIntegratorOrder) {
  const RigidBodyTree<double> tree = MakeDoublePendulum(1.0, 1.0, 0.8, 0.7);
  auto drift = [&](double h) {
    RigidBodySystem<double> plant(tree);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                    Eigen::Vector2d(1.2, -0.4),
                                    Eigen::Vector2d(0.0, 0.5));
    const double e0 =
        Energy(tree, sim.get_context().get_continuous_state_vector());
    sim.reset_integrator<RK4>(h);
    sim.AdvanceTo(2.0);
    return std::abs(
        Energy(tree, sim.get_context().get_continuous_state_vector()) - e0);
  };
  const double d1 = drift(4e-3);
  const double d2 = drift(2e-3);
  EXPECT_LT(d1, 1e-5);
  EXPECT_GT(d1 / d2, 10.0);
}

TEST(RigidBodySystem, FourBarLoopStaysClosed) {
  test::FourBar fb;
  auto closure = std::make_shared<PointToPointConstraint<double>>(
      fb.tree, "coupler", Vector3<double>(fb.b, 0, 0), "rocker",
      Vector3<double>(fb.c, 0, 0));
  RigidBodySystem<double> plant(fb.tree, {}, {}, {closure});
  EXPECT_EQ(plant.num_constraint_rows(), 3);
  Simulator<double> sim(plant);
  const VectorX<double> q0 = fb.ClosedConfiguration(1.3);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0,
                                  VectorX<double>::Zero(3));
  sim.reset_integrator<RK4>(1e-3);
  KinematicsCache<double> cache(fb.tree);
  double max_gap = 0, max_angle_change = 0;
  for (int k = 1; k <= 100; ++k) {
    sim.AdvanceTo(0.1 * k);
    const VectorX<double> q =
        sim.get_context().get_continuous_state_vector().head(3);
    ForwardKinematics(fb.tree, &cache, q);
    const Vector3<double> p1 = cache.X_WB[fb.tree.FindBodyIndex("coupler")] *
                               Vector3<double>(fb.b, 0, 0);
    const Vector3<double> p2 = cache.X_WB[fb.tree.FindBodyIndex("rocker")] *
                               Vector3<double>(fb.c, 0, 0);
    max_gap = std::max(max_gap, (p1 - p2).norm());
    max_angle_change = std::max(max_angle_change, std::abs(q[0] - q0[0]));
  }
  EXPECT_LT(max_gap, 1e-8);
  EXPECT_GT(max_angle_change, 0.3);  // it did move under gravity
}

TEST(RigidBodySystem, UnconstrainedLinkageDoesNotStayClosed) {
  // Guards the previous test: without the constraint the loop opens.
  test::FourBar fb;
  RigidBodySystem<double> plant(fb.tree);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                  fb.ClosedConfiguration(1.3),
                                  VectorX<double>::Zero(3));
  sim.reset_integrator<RK4>(1e-3);
  sim.AdvanceTo(1.0);
  KinematicsCache<double> cache(fb.tree);
  ForwardKinematics(
      fb.tree, &cache,
      VectorX<double>(sim.get_context().get_continuous_state_vector().head(3)));
  const Vector3<double> gap = cache.X_WB[2] * Vector3<double>(fb.b, 0, 0) -
                              cache.X_WB[3] * Vector3<double>(fb.c, 0, 0);
  EXPECT_GT(gap.norm(), 1e-2);
}

TEST(RigidBodySystem, MimicJointFollowsLeader) {
  RigidBodyTree<double> tree = MakeDoublePendulum(1, 1, 1, 1);
  MimicConstraint m;
  m.joint = "elbow";
  m.leader_joint = "shoulder";
  m.body = tree.FindJointBodyIndex("elbow");
  m.leader_body = tree.FindJointBodyIndex("shoulder");
  m.multiplier = -0.5;
  m.offset = 0.1;
  tree.AddMimicConstraint(m);
  RigidBodySystem<double> plant(tree);
  EXPECT_EQ(plant.num_constraint_rows(), 1);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                  Eigen::Vector2d(0.8, -0.3),
                                  Eigen::Vector2d(0.0, 0.0));
  sim.reset_integrator<RK4>(1e-3);
  for (int k = 1; k <= 20; ++k) {
    sim.AdvanceTo(0.1 * k);
    const auto x = sim.get_context().get_continuous_state_vector();
    EXPECT_NEAR(x[1], -0.5 * x[0] + 0.1, 1e-8) << "t = " << 0.1 * k;
  }
  EXPECT_LT(sim.get_context().get_continuous_state_vector()[0], 0.7);
}

TEST(RigidBodySystem, CoulombFrictionIsRegularized) {
  RigidBodyTree<double> tree("friction");
  Joint<double> j;
  j.name = "slide";
  j.type = JointType::kPrismatic;
  j.axis = Vector3<double>::UnitX();
  j.friction = 3.0;
  tree.AddBody("block", 0, j,
               SpatialInertia<double>::FromCom(2.0, Vector3<double>::Zero(),
                                               Matrix3<double>::Identity()));
  RigidBodySystemOptions options;
  options.coulomb_regularization_velocity = 0.01;
  RigidBodySystem<double> plant(tree, {}, {}, {}, options);
  auto context = plant.CreateDefaultContext();
  plant.SetPositionsAndVelocities(context.get(),
                                  VectorX<double>::Constant(1, 0),
                                  VectorX<double>::Constant(1, 0.5));
  VectorX<double> xdot(2);
  plant.CalcTimeDerivatives(*context, &xdot);
  EXPECT_NEAR(xdot[1], -3.0 * 0.5 / std::sqrt(0.25 + 1e-4) / 2.0, 1e-14);
  plant.SetPositionsAndVelocities(context.get(),
                                  VectorX<double>::Constant(1, 0),
                                  VectorX<double>::Constant(1, 0.0));
  plant.CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot[1], 0.0);
}

TEST(RigidBodySystem, QuadrotorHoversOnPropellerThrust) {
  const double m = 0.5, kf = 1e-5, km = 2e-7, L = 0.17;
  const RigidBodyTree<double> tree = test::MakeQuadrotorTree(m);
  std::vector<std::shared_ptr<const Actuator<double>>> props;
  const Vector3<double> arms[4] = {
      {L, 0, 0}, {0, L, 0}, {-L, 0, 0}, {0, -L, 0}};
  for (int i = 0; i < 4; ++i) {
    props.push_back(std::make_shared<Propeller<double>>(
        tree, "body", arms[i], Vector3<double>::UnitZ(), kf, km,
        i % 2 == 0 ? 1 : -1, "prop" + std::to_string(i)));
  }
  RigidBodySystem<double> plant(tree, props);
  ASSERT_EQ(plant.num_input_ports(), 4);
  auto run = [&](double w_scale) {
    auto context = plant.CreateDefaultContext();
    const double w = std::sqrt(m * 9.81 / (4 * kf)) * w_scale;
    for (int i = 0; i < 4; ++i) {
      plant.get_actuator_input_port("prop" + std::to_string(i))
          .FixValue(context.get(), w);
    }
    Simulator<double> sim(plant, std::move(context));
    sim.reset_integrator<RK4>(1e-3);
    sim.AdvanceTo(2.0);
    return VectorX<double>(sim.get_context().get_continuous_state_vector());
  };
  const VectorX<double> hover = run(1.0);
  EXPECT_LT(hover.head<3>().norm(), 1e-9);  // position
  EXPECT_NEAR(hover[3], 1.0, 1e-12);        // qw
  EXPECT_LT(hover.tail<6>().norm(), 1e-9);  // twist
  // 1% more speed: 2% more thrust, z = 0.5 (0.0201 g) t^2.
  const VectorX<double> climb = run(1.01);
  EXPECT_NEAR(climb[2], 0.5 * 0.0201 * 9.81 * 4.0, 1e-9);
}

TEST(RigidBodySystem, DerivativesDoNotAllocate) {
  const RigidBodyTree<double> tree = MakeDoublePendulum(1, 1, 1, 1);
  std::vector<std::shared_ptr<const Actuator<double>>> actuators = {
      std::make_shared<TorqueSource<double>>(
          tree, std::vector<std::string>{"shoulder", "elbow"}, 0.05),
      std::make_shared<LinearSpringDamper<double>>(
          tree, "link2", Vector3<double>(0, 0, -1), "world",
          Vector3<double>(0.5, 0, -1.5), 20.0, 1.0, 0.1),
      std::make_shared<AerodynamicDrag<double>>(
          tree, "link2", Vector3<double>(0, 0, -0.5), 0.3),
      std::make_shared<SpatialForceActuator<double>>(
          tree, "link1", Vector3<double>(0, 0, -0.5))};
  std::vector<std::shared_ptr<const Sensor<double>>> sensors = {
      std::make_shared<Imu<double>>(tree, "link2", RigidTransform<double>())};
  test::FourBar fb;
  for (bool constrained : {false, true}) {
    SCOPED_TRACE(constrained ? "four-bar with closure" : "pendulum");
    std::unique_ptr<RigidBodySystem<double>> plant;
    if (constrained) {
      plant = std::make_unique<RigidBodySystem<double>>(
          fb.tree, std::vector<std::shared_ptr<const Actuator<double>>>{},
          std::vector<std::shared_ptr<const Sensor<double>>>{},
          std::vector<
              std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{
              std::make_shared<PointToPointConstraint<double>>(
                  fb.tree, "coupler", Vector3<double>(fb.b, 0, 0), "rocker",
                  Vector3<double>(fb.c, 0, 0))});
    } else {
      plant =
          std::make_unique<RigidBodySystem<double>>(tree, actuators, sensors);
    }
    auto context = plant->CreateDefaultContext();
    if (!constrained) {
      plant->get_input_port(0).FixValue(context.get(), Eigen::Vector2d(1, 2));
      plant->get_input_port(1).FixValue(context.get(),
                                        Vector6<double>::Constant(0.5));
    }
    auto x = context->get_mutable_continuous_state_vector();
    for (int i = 0; i < x.size(); ++i) x[i] = 0.1 * (i + 1);
    VectorX<double> xdot(plant->num_continuous_states());
    plant->CalcTimeDerivatives(*context, &xdot);
    VectorX<double> y(6);
    test::ScopedAllocationCounter counter;
    for (int k = 0; k < 3; ++k) {
      context->get_mutable_continuous_state_vector()[0] += 0.01;
      plant->CalcTimeDerivatives(*context, &xdot);
    }
    EXPECT_EQ(counter.count(), 0);
    EXPECT_TRUE(xdot.allFinite());
  }
}

// AutoDiffXd through the plant (an actuator with motor lag, a spring that
// needs forward kinematics, ABA), against central differences. The tree has
// random joint axes: with axis-aligned revolute joints the tree's fast paths
// write constant rotation entries with empty derivatives, which Eigen's
// AutoDiffScalar cannot add to sized ones (an Eigen debug assertion); that
// is the tree's to fix.
TEST(RigidBodySystem, AutoDiffDerivativesMatchDouble) {
  const RigidBodyTree<double> tree = test::MakeRandomTree(2, 5, false, true);
  ASSERT_EQ(tree.num_positions(), 2);
  const RigidBodyTree<AutoDiffXd> tree_ad = CastTree<AutoDiffXd>(tree);
  auto motor = std::make_shared<TorqueSource<double>>(
      tree, std::vector<std::string>{"joint1"}, 0.2);
  auto motor_ad = std::make_shared<TorqueSource<AutoDiffXd>>(
      tree_ad, std::vector<std::string>{"joint1"}, 0.2);
  auto spring = std::make_shared<LinearSpringDamper<double>>(
      tree, "body2", Vector3<double>(0.1, 0.2, 0), "world",
      Vector3<double>(0.3, 0, -1.0), 10.0, 0.5, 0.2);
  auto spring_ad = std::make_shared<LinearSpringDamper<AutoDiffXd>>(
      tree_ad, "body2", Vector3<double>(0.1, 0.2, 0), "world",
      Vector3<double>(0.3, 0, -1.0), 10.0, 0.5, 0.2);
  RigidBodySystem<double> plant(tree, {motor, spring});
  RigidBodySystem<AutoDiffXd> plant_ad(tree_ad, {motor_ad, spring_ad});
  auto c = plant.CreateDefaultContext();
  auto c_ad = plant_ad.CreateDefaultContext();
  plant.get_input_port(0).FixValue(c.get(), 0.7);
  plant_ad.get_input_port(0).FixValue(c_ad.get(), 0.7);
  const Eigen::Vector<double, 5> x(0.3, -0.2, 0.5, 0.1, 0.4);
  c->get_mutable_continuous_state_vector() = x;
  c_ad->get_mutable_continuous_state_vector() = InitializeAutoDiff(x);
  VectorX<double> xdot(5);
  VectorX<AutoDiffXd> xdot_ad(5);
  plant.CalcTimeDerivatives(*c, &xdot);
  plant_ad.CalcTimeDerivatives(*c_ad, &xdot_ad);
  EXPECT_LT((ExtractValue(xdot_ad) - xdot).norm(), 1e-12);
  // The Jacobian against central differences.
  const Eigen::MatrixXd J = ExtractGradient(xdot_ad);
  for (int i = 0; i < 5; ++i) {
    Eigen::Vector<double, 5> xp = x, xm = x;
    xp[i] += 1e-6;
    xm[i] -= 1e-6;
    VectorX<double> fp(5), fm(5);
    c->get_mutable_continuous_state_vector() = xp;
    plant.CalcTimeDerivatives(*c, &fp);
    c->get_mutable_continuous_state_vector() = xm;
    plant.CalcTimeDerivatives(*c, &fm);
    EXPECT_LT((J.col(i) - (fp - fm) / 2e-6).norm(), 1e-6) << "column " << i;
  }
}

// In-plant actuators and sensors against the same ones as standalone
// Systems wired by ports: bit-identical trajectories and readings.
TEST(RigidBodySystem, InPlantAndStandaloneAreBitIdentical) {
  const RigidBodyTree<double> tree = MakeDoublePendulum(1, 1, 0.7, 0.9);
  std::vector<std::shared_ptr<const Actuator<double>>> actuators = {
      std::make_shared<TorqueSource<double>>(
          tree, std::vector<std::string>{"shoulder"}, 0.05, "motor"),
      std::make_shared<LinearSpringDamper<double>>(
          tree, "link2", Vector3<double>(0, 0, -0.9), "world",
          Vector3<double>(0.5, 0, -1.5), 20.0, 0.3, 0.1, "spring"),
      std::make_shared<AerodynamicDrag<double>>(
          tree, "link2", Vector3<double>(0, 0, -0.45), 0.3, "drag")};
  std::vector<std::shared_ptr<const Sensor<double>>> sensors = {
      std::make_shared<Encoder<double>>(
          tree, std::vector<std::string>{"shoulder", "elbow"}, 4096, "enc"),
      std::make_shared<Imu<double>>(
          tree, "link2",
          RigidTransform<double>(Matrix3<double>::Identity(),
                                 Vector3<double>(0.1, 0, -0.4)),
          0, 0, "imu"),
      std::make_shared<FullStateSensor<double>>(tree, "full"),
      std::make_shared<ForceTorqueSensor<double>>(tree, "elbow", "ft")};
  const Eigen::Vector4d x0(0.4, -0.7, 0.2, 0.0);

  // In-plant.
  DiagramBuilder<double> b1;
  auto* plant1 =
      b1.AddSystem<RigidBodySystem<double>>(tree, actuators, sensors);
  auto* cmd1 = b1.AddSystem<ConstantVectorSource<double>>(1.5);
  b1.Connect(cmd1->get_output_port(), plant1->get_actuator_input_port("motor"));
  for (const auto& s : sensors) {
    b1.ExportOutput(plant1->get_sensor_output_port(s->name()), s->name());
  }
  auto d1 = b1.Build();

  // Standalone.
  RigidBodySystemOptions options;
  options.state_output = true;
  options.acceleration_output = true;
  options.applied_generalized_force_input = true;
  DiagramBuilder<double> b2;
  auto* plant2 = b2.AddSystem<RigidBodySystem<double>>(
      tree, std::vector<std::shared_ptr<const Actuator<double>>>{},
      std::vector<std::shared_ptr<const Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
      options);
  auto* cmd2 = b2.AddSystem<ConstantVectorSource<double>>(1.5);
  auto* adder = b2.AddSystem<Adder<double>>(3, 2);
  for (int k = 0; k < 3; ++k) {
    auto* a = b2.AddSystem<ActuatorSystem<double>>(tree, actuators[k]);
    b2.Connect(plant2->get_output_port("state"), a->get_input_port("state"));
    if (k == 0)
      b2.Connect(cmd2->get_output_port(), a->get_input_port("command"));
    b2.Connect(a->get_output_port(), adder->get_input_port(k));
  }
  b2.Connect(adder->get_output_port(),
             plant2->get_input_port("applied_generalized_force"));
  for (const auto& s : sensors) {
    auto* ss = b2.AddSystem<SensorSystem<double>>(tree, s);
    b2.Connect(plant2->get_output_port("state"), ss->get_input_port("state"));
    if (s->needs_acceleration()) {
      b2.Connect(plant2->get_output_port("generalized_acceleration"),
                 ss->get_input_port("vdot"));
    }
    b2.ExportOutput(ss->get_output_port(), s->name());
  }
  auto d2 = b2.Build();

  Simulator<double> sim1(*d1), sim2(*d2);
  plant1->SetPositionsAndVelocities(
      &plant1->GetMyMutableContextFromRoot(&sim1.get_mutable_context()),
      x0.head(2), x0.tail(2));
  plant2->SetPositionsAndVelocities(
      &plant2->GetMyMutableContextFromRoot(&sim2.get_mutable_context()),
      x0.head(2), x0.tail(2));
  sim1.reset_integrator<RK4>(1e-3);
  sim2.reset_integrator<RK4>(1e-3);
  for (int k = 1; k <= 5; ++k) {
    sim1.AdvanceTo(0.2 * k);
    sim2.AdvanceTo(0.2 * k);
    const auto& c1 = plant1->GetMyContextFromRoot(sim1.get_context());
    const auto& c2 = plant2->GetMyContextFromRoot(sim2.get_context());
    const VectorX<double> s1 = c1.get_continuous_state_vector().head(4);
    const VectorX<double> s2 = c2.get_continuous_state_vector();
    ASSERT_EQ(s1, s2) << "t = " << 0.2 * k;
    for (int o = 0; o < static_cast<int>(sensors.size()); ++o) {
      const VectorX<double>& y1 =
          d1->get_output_port(o).Eval(sim1.get_context());
      const VectorX<double>& y2 =
          d2->get_output_port(o).Eval(sim2.get_context());
      ASSERT_EQ(y1, y2) << sensors[o]->name() << " at t = " << 0.2 * k;
    }
  }
  // The motor lag's state in the plant equals the standalone one's.
  EXPECT_GT(std::abs(plant1->GetMyContextFromRoot(sim1.get_context())
                         .get_continuous_state_vector()[4]),
            1.0);
}

TEST(RigidBodySystem, NoisyImuGetsRandomInputs) {
  const RigidBodyTree<double> tree = MakeDoublePendulum(1, 1, 1, 1);
  auto imu = std::make_shared<Imu<double>>(tree, "link1",
                                           RigidTransform<double>(), 0.1, 0.01);
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<RigidBodySystem<double>>(
      tree, std::vector<std::shared_ptr<const Actuator<double>>>{},
      std::vector<std::shared_ptr<const Sensor<double>>>{imu});
  ASSERT_EQ(plant->num_input_ports(), 1);
  EXPECT_TRUE(plant->get_input_port(0).is_random());
  builder.ExportOutput(plant->get_sensor_output_port("imu"), "imu");
  EXPECT_EQ(AddRandomInputs(0.01, &builder), 1);
  auto diagram = builder.Build();
  auto run = [&]() {
    Simulator<double> sim(*diagram);
    sim.reset_integrator<RK4>(1e-3);
    sim.AdvanceTo(0.05);
    return VectorX<double>(diagram->get_output_port(0).Eval(sim.get_context()));
  };
  const VectorX<double> y1 = run();
  EXPECT_EQ(y1, run());  // reproducible from the default seeds
  // At rest the noise-free reading would be (0, 0, g, 0, 0, 0).
  EXPECT_GT(
      (y1 - (VectorX<double>(6) << 0, 0, 9.81, 0, 0, 0).finished()).norm(),
      1e-6);
}

TEST(RigidBodySystem, BadInputNamesTheCulprit) {
  const RigidBodyTree<double> tree = MakeDoublePendulum(1, 1, 1, 1);
  const RigidBodyTree<double> other = test::MakePendulum(1, 1);
  auto expect_throw = [](auto f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no exception; expected one naming " << needle;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << e.what();
    }
  };
  expect_throw(
      [&] { TorqueSource<double>(tree, std::vector<std::string>{"wrist"}); },
      "'wrist'");
  expect_throw([&] { Imu<double>(tree, "link9", RigidTransform<double>()); },
               "'link9'");
  expect_throw(
      [&] {
        PointToPointConstraint<double>(tree, "link1", Vector3<double>::Zero(),
                                       "link1", Vector3<double>::Zero(),
                                       BaumgarteGains{}, "loop");
      },
      "'link1'");
  expect_throw(
      [&] {
        auto a = std::make_shared<TorqueSource<double>>(
            other, std::vector<std::string>{"pivot"}, 0, "small_motor");
        RigidBodySystem<double> plant(tree, {a});
      },
      "'small_motor'");
  expect_throw(
      [&] {
        auto a = std::make_shared<GeneralizedForce<double>>(tree, "same");
        auto b = std::make_shared<GeneralizedForce<double>>(tree, "same");
        RigidBodySystem<double> plant(tree, {a, b});
      },
      "'same'");
  expect_throw(
      [&] {
        auto a = std::make_shared<TorqueSource<double>>(
            tree, std::vector<std::string>{"shoulder"}, 0, "motor");
        RigidBodySystem<double> plant(tree, {a});
        auto context = plant.CreateDefaultContext();
        plant.get_input_port(0).FixValue(context.get(),
                                         Eigen::Vector3d(1, 2, 3));
      },
      "motor");
  expect_throw(
      [&] {
        RigidBodySystem<double> plant(tree);
        plant.get_actuator_input_port("nope");
      },
      "'nope'");
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

RigidBodyTree<double> LimitedPendulum(double lower = -0.5, double upper = 0.5) {
  RigidBodyTree<double> tree("limited_pendulum");
  Joint<double> j;
  j.name = "pivot";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitY();
  j.position_lower = lower;
  j.position_upper = upper;
  tree.AddBody("bob", 0, j,
               SpatialInertia<double>::FromCom(1.0, Vector3<double>(0, 0, -1),
                                               Matrix3<double>::Zero()));
  return tree;
}

// Pendulums from the world in one tree: P1 and P2 driven into their
// limits, P3 and P4 joined by a point-to-point constraint (a row across two
// trees). The constraint rows form islands by tree (P1, P2, P3 + P4), each
// solved alone; the accelerations equal those of each group as a plant of
// its own.
TEST(RigidBodySystem, ConstraintIslandsSolveAsTheirOwnPlants) {
  auto add = [](RigidBodyTree<double>* tree, const std::string& name,
                double x) {
    Joint<double> j;
    j.name = name + "_pivot";
    j.type = JointType::kRevolute;
    j.axis = Vector3<double>::UnitY();
    j.X_PJ.p = Vector3<double>(x, 0, 0);
    j.position_lower = -0.5;
    j.position_upper = 0.5;
    j.damping = 0.1;
    tree->AddBody(
        name, 0, j,
        SpatialInertia<double>::FromCom(1.0, Vector3<double>(0.1, 0, -1),
                                        Matrix3<double>::Identity() * 0.01));
  };
  using Constraints =
      std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>;
  auto joined = [](const RigidBodyTree<double>& tree) {
    return Constraints{std::make_shared<PointToPointConstraint<double>>(
        tree, "p3", Vector3<double>(0.1, 0, -1), "p4",
        Vector3<double>(-0.9, 0, -1))};
  };
  // q, v of P1..P4: into the upper stop, into the lower stop, free.
  const double q[] = {0.5, -0.5, 0.2, 0.3}, v[] = {1.0, -2.0, 0.5, -0.3};
  RigidBodyTree<double> all("all");
  for (int i = 0; i < 4; ++i) {
    add(&all, "p" + std::to_string(i + 1), i);
  }
  RigidBodySystem<double> plant(all, {}, {}, joined(all));
  auto context = plant.CreateDefaultContext();
  plant.SetPositionsAndVelocities(context.get(), Eigen::Vector4d(q),
                                  Eigen::Vector4d(v));
  VectorX<double> xdot(8);
  plant.CalcTimeDerivatives(*context, &xdot);
  // The groups alone: P1, P2, and P3 + P4.
  VectorX<double> expected(4);
  for (int i = 0; i < 2; ++i) {
    RigidBodyTree<double> one("one");
    add(&one, "p" + std::to_string(i + 1), i);
    RigidBodySystem<double> alone(one);
    auto c = alone.CreateDefaultContext();
    alone.SetPositionsAndVelocities(c.get(), VectorX<double>::Constant(1, q[i]),
                                    VectorX<double>::Constant(1, v[i]));
    VectorX<double> d(2);
    alone.CalcTimeDerivatives(*c, &d);
    expected[i] = d[1];
  }
  RigidBodyTree<double> pair("pair");
  add(&pair, "p3", 2);
  add(&pair, "p4", 3);
  RigidBodySystem<double> both(pair, {}, {}, joined(pair));
  auto c = both.CreateDefaultContext();
  both.SetPositionsAndVelocities(c.get(), Eigen::Vector2d(q[2], q[3]),
                                 Eigen::Vector2d(v[2], v[3]));
  VectorX<double> d(4);
  both.CalcTimeDerivatives(*c, &d);
  expected.tail<2>() = d.tail<2>();
  EXPECT_LT((xdot.tail<4>() - expected).norm(), 1e-12 * expected.norm())
      << xdot.tail<4>().transpose() << " vs " << expected.transpose();
  // The stops act (P1 and P2 decelerate hard), the pair is coupled.
  EXPECT_LT(expected[0], -50);
  EXPECT_GT(expected[1], 50);
}

// A pendulum pushed by 5 N m against its upper limit 0.5 rad (gravity's
// restoring torque there is 9.81 sin 0.5 = 4.70 N m) rests on the stop;
// without limit enforcement it swings through.
TEST(RigidBodySystem, JointLimitHoldsAPushedPendulum) {
  const RigidBodyTree<double> tree = LimitedPendulum();
  for (bool enforce : {true, false}) {
    auto motor = std::make_shared<TorqueSource<double>>(
        tree, std::vector<std::string>{"pivot"}, 0.0, "motor");
    RigidBodySystemOptions options;
    options.enforce_joint_limits = enforce;
    RigidBodySystem<double> plant(
        tree, {motor}, {},
        std::vector<
            std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
        options);
    EXPECT_EQ(plant.num_limited_joints(), enforce ? 1 : 0);
    auto context = plant.CreateDefaultContext();
    plant.get_input_port(0).FixValue(context.get(), 5.0);
    Simulator<double> sim(plant, std::move(context));
    sim.reset_integrator<RK4>(1e-3);
    double q_max = 0;
    for (int k = 1; k <= 300; ++k) {
      sim.AdvanceTo(0.01 * k);
      q_max =
          std::max(q_max, sim.get_context().get_continuous_state_vector()[0]);
    }
    const auto x = sim.get_context().get_continuous_state_vector();
    if (enforce) {
      EXPECT_NEAR(x[0], 0.5, 1e-6);
      EXPECT_NEAR(x[1], 0.0, 1e-6);
      EXPECT_LT(q_max, 0.5 + 0.01);
    } else {
      EXPECT_GT(q_max, 0.6);
    }
  }
}

// At the limit but moving away, no force acts: the accelerations are ABA's.
TEST(RigidBodySystem, JointLimitReleasesWhenLeaving) {
  const RigidBodyTree<double> tree = LimitedPendulum();
  RigidBodySystem<double> plant(tree);
  auto context = plant.CreateDefaultContext();
  VectorX<double> xdot(2);
  KinematicsCache<double> cache(tree);
  const VectorX<double> q = VectorX<double>::Constant(1, 0.5);
  const VectorX<double> zero = VectorX<double>::Zero(1);
  plant.SetPositionsAndVelocities(context.get(), q,
                                  VectorX<double>::Constant(1, -1.0));
  plant.CalcTimeDerivatives(*context, &xdot);
  const VectorX<double> v_away = VectorX<double>::Constant(1, -1.0);
  EXPECT_NEAR(xdot[1], ForwardDynamics(tree, &cache, q, v_away, zero)[0],
              1e-12);
  // Moving into the stop: the stop decelerates it (vdot > 0 would push
  // further in; the row makes it strongly negative).
  plant.SetPositionsAndVelocities(context.get(), q,
                                  VectorX<double>::Constant(1, 1.0));
  plant.CalcTimeDerivatives(*context, &xdot);
  EXPECT_NEAR(xdot[1], -2 * 100 * 1.0, 1e-9);
}

// A pendulum (1 kg at 1 m) released at rest from -1.2 rad swings toward the
// bottom, but its upper limit -0.2 rad stops it there at 3.5 rad/s: the
// impact law (a plastic impulse at the witness's crossing) stops it at the
// limit, and gravity then holds it against the stop. Energy never rises.
// Without the impact law the stabilization alone lets it through by about
// v / (2 alpha) = 17 mrad.
TEST(RigidBodySystem, JointLimitImpactStopsAPendulumAtTheLimit) {
  const RigidBodyTree<double> tree = LimitedPendulum(-2.0, -0.2);
  for (bool impacts : {true, false}) {
    RigidBodySystemOptions options;
    options.joint_limit_impacts = impacts;
    RigidBodySystem<double> plant(tree, {}, {}, {}, options);
    auto context = plant.CreateDefaultContext();
    plant.SetPositionsAndVelocities(context.get(),
                                    VectorX<double>::Constant(1, -1.2),
                                    VectorX<double>::Zero(1));
    Simulator<double> sim(plant, std::move(context));
    sim.reset_integrator<RK4>(1e-3);
    auto energy = [&] {
      const auto x = sim.get_context().get_continuous_state_vector();
      return 0.5 * x[1] * x[1] - 9.81 * std::cos(x[0]);
    };
    double e_prev = energy(), overshoot = 0, e_rise = 0;
    for (int k = 1; k <= 1000; ++k) {
      sim.AdvanceTo(1e-3 * k);
      const auto x = sim.get_context().get_continuous_state_vector();
      overshoot = std::max(overshoot, x[0] + 0.2);
      const double e = energy();
      e_rise = std::max(e_rise, e - e_prev);
      e_prev = e;
    }
    const auto x = sim.get_context().get_continuous_state_vector();
    if (impacts) {
      EXPECT_LT(overshoot, 1e-6);
      EXPECT_LE(e_rise, 1e-9);
      EXPECT_NEAR(x[0], -0.2, 1e-6);
      EXPECT_NEAR(x[1], 0.0, 1e-6);
      // The impact removed the kinetic energy at the stop (3.46 rad/s).
      EXPECT_NEAR(e_prev, -9.81 * std::cos(0.2), 1e-6);
    } else {
      EXPECT_GT(overshoot, 5e-3);
    }
  }
}

// The impact's options are checked.
TEST(RigidBodySystem, JointLimitImpactOptionsAreChecked) {
  RigidBodySystemOptions options;
  options.joint_limit_impact_velocity = 0;
  EXPECT_THROW(
      {
        try {
          RigidBodySystem<double>(LimitedPendulum(), {}, {}, {}, options);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("joint_limit_impact_velocity"),
                    std::string::npos);
          throw;
        }
      },
      std::invalid_argument);
}

// A light, damped link (10 g at 0.1 m: I = 1e-4 kg m^2, joint damping b =
// 1 N m s: b / I = 1e4 1/s). Explicit damping diverges once h b / I
// exceeds the rule's stability bound on the negative real axis (2 for
// explicit Euler, 2.785 for RK4): RK4 at h = 5e-4 (h b / I = 5) blows up,
// while an implicit rule at the same step settles, with the limit's
// witnesses, and the energy never rises.
TEST(RigidBodySystem, LightDampedLinkNeedsAnImplicitRule) {
  RigidBodyTree<double> tree("light_link");
  Joint<double> j;
  j.name = "pivot";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitY();
  j.position_lower = -0.5;
  j.position_upper = 0.5;
  j.damping = 1.0;
  tree.AddBody("link", 0, j,
               SpatialInertia<double>::FromCom(
                   0.01, Vector3<double>(0, 0, -0.1), Matrix3<double>::Zero()));
  RigidBodySystem<double> plant(tree);
  for (const char* rule : {"rk4", "implicit_euler_fixed"}) {
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                    VectorX<double>::Constant(1, 0.4),
                                    VectorX<double>::Constant(1, 1.0));
    IntegratorSettings settings;
    settings.fixed_step = 5e-4;
    sim.reset_integrator(rule, settings);
    auto energy = [&] {
      const auto x = sim.get_context().get_continuous_state_vector();
      return 0.5 * 1e-4 * x[1] * x[1] - 0.01 * 9.81 * 0.1 * std::cos(x[0]);
    };
    double e_prev = energy(), e_rise = 0, v_max = 0;
    for (int k = 1; k <= 50; ++k) {
      sim.AdvanceTo(1e-3 * k);
      const auto x = sim.get_context().get_continuous_state_vector();
      if (!x.allFinite()) {
        v_max = INFINITY;
        break;
      }
      v_max = std::max(v_max, std::abs(x[1]));
      e_rise = std::max(e_rise, energy() - e_prev);
      e_prev = energy();
    }
    if (std::string(rule) == "rk4") {
      EXPECT_GT(v_max, 1e3);  // diverged
    } else {
      EXPECT_LE(v_max, 1.0);
      EXPECT_LE(e_rise, 1e-12);
    }
  }
}

#ifdef TERN_DART_DATA_DIR
// The Barrett WAM from dart-doc hanging limp for 2 s (issue 28): its light
// wrist swings into its limits at several rad/s; with the impact law every
// joint stays within 1e-2 rad of its range and the energy never rises.
TEST(RigidBodySystem, LimpWamHoldsItsJointLimits) {
  const std::string urdf =
      std::string(TERN_DART_DATA_DIR) + "/urdf/wam/wam.urdf";
  if (!std::filesystem::exists(urdf)) {
    FAIL() << urdf
           << " is missing: install dart-doc (scripts/install-deps test)";
  }
  UrdfParseOptions parse;
  parse.load_collision_meshes = false;
  parse.require_meshes = false;
  const RigidBodyTree<double> tree = ParseUrdfFile(urdf, parse).tree;
  for (bool impacts : {true, false}) {
    RigidBodySystemOptions options;
    options.joint_limit_impacts = impacts;
    RigidBodySystem<double> plant(tree, {}, {}, {}, options);
    ASSERT_EQ(plant.num_limited_joints(), 7);
    Simulator<double> sim(plant);
    sim.reset_integrator<RK4>(5e-4);
    KinematicsCache<double> cache(tree);
    const int nq = tree.num_positions(), nv = tree.num_velocities();
    double e0 = 0, e_rise = 0, worst = 0;
    std::string worst_joint;
    for (int k = 0; k <= 200; ++k) {
      if (k > 0) sim.AdvanceTo(0.01 * k);
      const auto x = sim.get_context().get_continuous_state_vector();
      const VectorX<double> q = x.head(nq), v = x.segment(nq, nv);
      ASSERT_TRUE(q.allFinite() && v.allFinite());
      ForwardKinematics(tree, &cache, q, v);
      const double e =
          KineticEnergy(tree, cache) + PotentialEnergy(tree, cache);
      if (k == 0) e0 = e;
      e_rise = std::max(e_rise, e - e0);
      for (int b = 1; b < tree.num_bodies(); ++b) {
        const Joint<double>& j = tree.body(b).joint;
        if (tree.body(b).num_positions != 1) continue;
        const double qi = q[tree.body(b).position_start];
        const double out =
            std::max(j.position_lower - qi, qi - j.position_upper);
        if (out > worst) worst = out, worst_joint = j.name;
      }
    }
    std::printf(
        "limp WAM (impacts %s): worst limit violation %.3g rad (%s), energy "
        "rise %.3g J of %.4g J\n",
        impacts ? "on" : "off", worst, worst_joint.c_str(), e_rise, e0);
    if (impacts) {
      EXPECT_LT(worst, 1e-2) << worst_joint;
      EXPECT_LE(e_rise, 1e-6 * std::max(1.0, std::abs(e0)));
    } else {
      // The stabilization alone lets the wrist through (issue 28).
      EXPECT_GT(worst, 1e-2) << worst_joint;
    }
  }
}
#endif

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// Welding link2 to link1 at the initial relative pose freezes the elbow (6
// rows of which 5 are redundant: the regularization gives them no force).
TEST(RigidBodySystem, WeldFreezesTheElbow) {
  const RigidBodyTree<double> tree = MakeDoublePendulum(1, 1, 0.8, 0.7);
  const Eigen::Vector2d q0(0.9, -0.6);
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, VectorX<double>(q0));
  const RigidTransform<double> X_12 = cache.X_WB[1].inverse() * cache.X_WB[2];
  auto weld = std::make_shared<WeldConstraint<double>>(
      tree, "link2", RigidTransform<double>(), "link1", X_12);
  RigidBodySystem<double> plant(tree, {}, {}, {weld});
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0,
                                  Eigen::Vector2d(0.5, 0.0));
  sim.reset_integrator<RK4>(1e-3);
  for (int k = 1; k <= 20; ++k) {
    sim.AdvanceTo(0.1 * k);
    const auto x = sim.get_context().get_continuous_state_vector();
    EXPECT_NEAR(x[1], -0.6, 1e-8) << "t = " << 0.1 * k;
    EXPECT_NEAR(x[3], 0.0, 1e-8);
  }
  // The shoulder still swings.
  EXPECT_GT(std::abs(sim.get_context().get_continuous_state_vector()[0] - 0.9),
            0.1);
}

// Through the plant (vdot from the plant itself): an IMU at rest reads +g
// up and zero rate.
TEST(RigidBodySystem, InPlantImuAtRestReadsGravity) {
  const RigidBodyTree<double> tree = MakeDoublePendulum(1, 1, 1, 1);
  auto imu = std::make_shared<Imu<double>>(
      tree, "link2",
      RigidTransform<double>(Matrix3<double>::Identity(),
                             Vector3<double>(0.05, 0, -0.5)));
  RigidBodySystem<double> plant(
      tree, std::vector<std::shared_ptr<const Actuator<double>>>{}, {imu});
  auto context = plant.CreateDefaultContext();
  const VectorX<double>& y = plant.get_sensor_output_port("imu").Eval(*context);
  EXPECT_LT((y - (VectorX<double>(6) << 0, 0, 9.81, 0, 0, 0).finished()).norm(),
            1e-13);
}

}  // namespace
}  // namespace tern
