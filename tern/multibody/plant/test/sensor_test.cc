#include "tern/multibody/plant/sensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "tern/math/rotation.h"
#include "tern/multibody/plant/sensor_system.h"
#include "tern/multibody/plant/test/plant_test_models.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"

namespace tern {
namespace {

VectorX<double> Read(const RigidBodyTree<double>& tree, const Sensor<double>& s,
                     const VectorX<double>& q, const VectorX<double>& v,
                     const VectorX<double>& vdot,
                     const double* noise = nullptr) {
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, q, v);
  Matrix6X<double> J(6, tree.num_velocities());
  SensorInputs<double> in;
  in.tree = &tree;
  in.cache = &cache;
  in.q = &q;
  in.v = &v;
  in.vdot = &vdot;
  in.noise = noise;
  in.J = &J;
  VectorX<double> y(s.num_outputs());
  s.CalcOutput(in, y.data());
  return y;
}

TEST(Imu, AtRestReadsGravityUpAndZeroRate) {
  const RigidBodyTree<double> tree = test::MakeDoublePendulum(1, 1, 1, 1);
  const VectorX<double> zero = VectorX<double>::Zero(2);
  Imu<double> imu(tree, "link2",
                  RigidTransform<double>(Matrix3<double>::Identity(),
                                         Vector3<double>(0, 0, -0.3)));
  const VectorX<double> y = Read(tree, imu, zero, zero, zero);
  EXPECT_LT((y.head<3>() - Vector3<double>(0, 0, 9.81)).norm(), 1e-14);
  EXPECT_LT(y.tail<3>().norm(), 1e-14);
  // A sensor frame rotated by +90 deg about x sees "up" along its -y.
  Imu<double> turned(
      tree, "link1",
      RigidTransform<double>(RollPitchYawToRotationMatrix(
                                 Vector3<double>(std::numbers::pi / 2, 0, 0)),
                             Vector3<double>::Zero()));
  const VectorX<double> y2 = Read(tree, turned, zero, zero, zero);
  EXPECT_LT((y2.head<3>() - Vector3<double>(0, 9.81, 0)).norm(), 1e-13);
}

TEST(Imu, FreeFallReadsZeroAndSpinReadsRate) {
  const RigidBodyTree<double> tree = test::MakeQuadrotorTree(1.0);
  const VectorX<double> q = tree.GetZeroConfiguration();
  VectorX<double> v = VectorX<double>::Zero(6);
  v.head<3>() = Vector3<double>(0.3, -0.1, 2.0);  // spinning
  KinematicsCache<double> cache(tree);
  const VectorX<double> tau = VectorX<double>::Zero(6);
  const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
  Imu<double> imu(tree, "body", RigidTransform<double>());
  const VectorX<double> y = Read(tree, imu, q, v, vdot);
  EXPECT_LT(y.head<3>().norm(), 1e-12);  // free fall: no specific force
  EXPECT_LT((y.tail<3>() - v.head<3>()).norm(), 1e-14);
}

TEST(Imu, NoiseIsScaledSample) {
  const RigidBodyTree<double> tree = test::MakeDoublePendulum(1, 1, 1, 1);
  const VectorX<double> zero = VectorX<double>::Zero(2);
  Imu<double> imu(tree, "link1", RigidTransform<double>(), 0.5, 0.01);
  EXPECT_EQ(imu.num_noise_inputs(), 6);
  const double noise[6] = {1, 2, 3, 4, 5, 6};
  const VectorX<double> y = Read(tree, imu, zero, zero, zero, noise);
  EXPECT_NEAR(y[0], 0.5, 1e-14);
  EXPECT_NEAR(y[2], 9.81 + 1.5, 1e-13);
  EXPECT_NEAR(y[5], 0.06, 1e-15);
}

TEST(Encoder, CountsAreFloorOfTicks) {
  const RigidBodyTree<double> tree = test::MakeDoublePendulum(1, 1, 1, 1);
  Encoder<double> enc(tree, {"elbow", "shoulder"}, 1000);
  const VectorX<double> zero = VectorX<double>::Zero(2);
  for (double q0 : {0.0, 0.001, -0.001, 1.0, -2.5, 7.0}) {
    const VectorX<double> q = Eigen::Vector2d(q0, 0.5 * q0 + 0.0123);
    const VectorX<double> y = Read(tree, enc, q, zero, zero);
    EXPECT_EQ(y[0], std::floor(q[1] * 1000 / (2 * std::numbers::pi)));
    EXPECT_EQ(y[1], std::floor(q0 * 1000 / (2 * std::numbers::pi)));
  }
  EXPECT_EQ(Read(tree, enc, Eigen::Vector2d(-0.001, 0), zero, zero)[1], -1);
}

TEST(SensorSystem, PortsFollowTheSensor) {
  const RigidBodyTree<double> tree = test::MakeDoublePendulum(1, 1, 1, 1);
  SensorSystem<double> full(tree,
                            std::make_shared<FullStateSensor<double>>(tree));
  EXPECT_EQ(full.num_input_ports(), 1);
  auto c = full.CreateDefaultContext();
  full.get_input_port(0).FixValue(c.get(), Eigen::Vector4d(1, 2, 3, 4));
  EXPECT_EQ(full.get_output_port().Eval(*c), Eigen::Vector4d(1, 2, 3, 4));
  SensorSystem<double> imu(
      tree, std::make_shared<Imu<double>>(tree, "link1",
                                          RigidTransform<double>(), 1, 1));
  EXPECT_EQ(imu.num_input_ports(), 3);  // state, vdot, noise
  EXPECT_TRUE(imu.get_input_port("noise").is_random());
}

TEST(Sensors, BadInputNamesTheCulprit) {
  const RigidBodyTree<double> tree = test::MakeQuadrotorTree(1.0);
  try {
    Encoder<double>(tree, {"floating"}, 100, "enc");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'floating'"), std::string::npos);
  }
  EXPECT_THROW(Encoder<double>(tree, {"x"}, 0), std::invalid_argument);
  EXPECT_THROW(Imu<double>(tree, "body", RigidTransform<double>(), -1, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// S^T of the measured wrench is the net joint torque, here the applied tau
// (no damping): Newton-Euler on the subtree against ABA's accelerations.
TEST(ForceTorqueSensor, AxisComponentIsTheJointTorque) {
  const RigidBodyTree<double> tree = test::MakeRandomTree(6, 4, false, false);
  std::mt19937 gen(5);
  const VectorX<double> q = test::RandomConfiguration(tree, &gen);
  const VectorX<double> v = test::RandomVector(tree.num_velocities(), &gen);
  const VectorX<double> tau = test::RandomVector(tree.num_velocities(), &gen);
  KinematicsCache<double> cache(tree);
  const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
  int checked = 0;
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const RigidBody<double>& body = tree.body(b);
    if (body.num_velocities != 1) continue;
    ForceTorqueSensor<double> ft(tree, body.joint.name);
    KinematicsCache<double> c2(tree);
    ForwardKinematics(tree, &c2, q, v, vdot);
    Matrix6X<double> J(6, tree.num_velocities());
    SensorInputs<double> in;
    in.tree = &tree;
    in.cache = &c2;
    in.q = &q;
    in.v = &v;
    in.vdot = &vdot;
    in.J = &J;
    Vector6<double> y;
    ft.CalcOutput(in, y.data());
    const Vector6<double> S = c2.S[b].col(0);
    EXPECT_NEAR(S.dot(y), tau[body.velocity_start], 1e-10) << body.joint.name;
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

// A pendulum hanging at rest: the pivot carries m g up and no torque.
TEST(ForceTorqueSensor, HangingPendulumCarriesItsWeight) {
  const RigidBodyTree<double> tree = test::MakePendulum(2.0, 0.7);
  const VectorX<double> zero = VectorX<double>::Zero(1);
  ForceTorqueSensor<double> ft(tree, "pivot");
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, zero, zero, zero);
  Matrix6X<double> J(6, 1);
  SensorInputs<double> in;
  in.tree = &tree;
  in.cache = &cache;
  in.q = &zero;
  in.v = &zero;
  in.vdot = &zero;
  in.J = &J;
  Vector6<double> y;
  ft.CalcOutput(in, y.data());
  EXPECT_LT(y.head<3>().norm(), 1e-12);
  EXPECT_LT((y.tail<3>() - Vector3<double>(0, 0, 2.0 * 9.81)).norm(), 1e-12);
  EXPECT_THROW(ForceTorqueSensor<double>(tree, "hinge"), std::invalid_argument);
}

}  // namespace
}  // namespace tern
