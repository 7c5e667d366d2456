// TimeSteppingRigidBodySystem with robots: the shipped quadruped stands
// under joint PD control for 10 s, the shipped 7-DoF arm pushes a box.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "examples/quadruped/quadruped_stance.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/pid_controller.h"

namespace tern {
namespace {

using ActuatorList = std::vector<std::shared_ptr<const Actuator<double>>>;
using SensorList = std::vector<std::shared_ptr<const Sensor<double>>>;
using BilateralList =
    std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>;

// Wires plant "state" -> select -> PID(kp, 0, kd) <- x_des, PID -> the
// plant's "motors" input; returns the diagram.
std::unique_ptr<Diagram<double>> WithPd(DiagramBuilder<double>* builder,
                                        TimeSteppingRigidBodySystem* plant,
                                        const MatrixX<double>& select,
                                        double kp, double kd,
                                        const VectorX<double>& x_des) {
  ConnectJointPd(builder, plant, select, x_des, kp, kd);
  return builder->Build();
}

// Issue 15: the shipped quadruped standing under joint PD control (hip
// flexion 0.6 rad, knee -1.2 rad: feet under the hips) on the time-stepping
// plant stays up for 10 s, on its four feet.
TEST(TimeStepping, QuadrupedStandsForTenSeconds) {
  ContactProperties ground;
  ground.friction = 0.9;
  const QuadrupedStance s = MakeQuadrupedStance(
      TERN_MODELS_DIR, QuadrupedFeetOnGroundHeight() + 1e-3, ground);
  const RigidBodyTree<double>& tree = s.tree;
  const VectorX<double>& q0 = s.q0;
  const int nv = tree.num_velocities();
  auto motors =
      std::make_shared<TorqueSource<double>>(tree, s.joints, 0.0, "motors");
  TimeSteppingOptions plant_options;
  plant_options.state_output = true;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<TimeSteppingRigidBodySystem>(
      tree, s.geometry, 1e-3, ActuatorList{motors}, SensorList{},
      BilateralList{}, plant_options);
  auto diagram = WithPd(&builder, plant, s.select, 300, 10, s.x_des);
  Simulator<double> sim(*diagram);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), q0,
      VectorX<double>::Zero(nv));
  for (int k = 1; k <= 10; ++k) {
    sim.AdvanceTo(1.0 * k);
    const VectorX<double>& x =
        plant->GetState(plant->GetMyContextFromRoot(sim.get_context()));
    ASSERT_GT(x[2], 0.8 * q0[2]) << "fell at t = " << k;
    ASSERT_GT(std::abs(x[3]), 0.98) << "tipped at t = " << k;  // qw
  }
  const auto& stats =
      plant->GetStepStats(plant->GetMyContextFromRoot(sim.get_context()));
  EXPECT_EQ(stats.num_contacts, 4);  // the four feet
}

// The shipped 7-DoF arm, its base yaw driven by PD to a new angle, sweeps
// its tool into a box resting on the ground and pushes it.
TEST(TimeStepping, ArmPushesBox) {
  RigidBodyTree<double> tree =
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/arm7.urdf").tree;
  ASSERT_EQ(tree.num_positions(), 7);
  // Reach down: shoulder bent 1.2 rad, the elbow chosen so that the tool
  // is 6 cm above the ground.
  VectorX<double> q_arm = VectorX<double>::Zero(7);
  q_arm[1] = 1.2;
  KinematicsCache<double> arm_cache(tree);
  const int tool = tree.FindBodyIndex("tool");
  double best = 1e9, best_q3 = 0;
  for (double q3 = 0; q3 <= 2.0; q3 += 0.005) {
    q_arm[3] = q3;
    ForwardKinematics(tree, &arm_cache, q_arm);
    const double z = (arm_cache.X_WB[tool] * Vector3<double>(0, 0, 0.03)).z();
    if (std::abs(z - 0.06) < best) best = std::abs(z - 0.06), best_q3 = q3;
  }
  q_arm[3] = best_q3;
  ForwardKinematics(tree, &arm_cache, q_arm);
  const Vector3<double> p_tool =
      arm_cache.X_WB[tool] * Vector3<double>(0, 0, 0.03);
  ASSERT_LT(std::abs(p_tool.z() - 0.06), 0.01);
  // The box: 10 cm, 0.5 kg, on the tool's circle 0.5 rad ahead.
  Joint<double> free;
  free.type = JointType::kFloating;
  free.name = "box_free";
  const int box =
      tree.AddBody("box", 0, free,
                   SpatialInertia<double>::FromCom(
                       0.5, Vector3<double>::Zero(),
                       Matrix3<double>::Identity() * 0.5 * 0.01 / 6));
  const int nq = tree.num_positions(), nv = tree.num_velocities();
  // FromTree excludes the arm's parent-child pairs but not the floating
  // box with the world; the arm's links that overlap elsewhere at their
  // joints are excluded below.
  GeometryModel model = GeometryModel::FromTree(tree);
  {
    VectorX<double> qz = tree.GetZeroConfiguration();
    qz.head(7) = q_arm;
    KinematicsCache<double> cache(tree);
    ForwardKinematics(tree, &cache, qz);
    ExcludeBodyPairsInContact(&model, cache.X_WB);
  }
  Geometry g;
  g.name = "box";
  g.body = box;
  g.shape = Shape::Box(0.1, 0.1, 0.1);
  g.properties.friction = 0.5;
  model.AddGeometry(g);
  Geometry ground;
  ground.name = "ground";
  ground.shape = Shape::HalfSpace();
  ground.properties.friction = 0.5;
  model.AddGeometry(ground);

  std::vector<std::string> joints;
  for (int i = 1; i <= 7; ++i) joints.push_back("joint" + std::to_string(i));
  auto motors =
      std::make_shared<TorqueSource<double>>(tree, joints, 0.0, "motors");
  TimeSteppingOptions options;
  options.state_output = true;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<TimeSteppingRigidBodySystem>(
      tree, model, 1e-3, ActuatorList{motors}, SensorList{}, BilateralList{},
      options);
  MatrixX<double> select = MatrixX<double>::Zero(14, nq + nv);
  for (int i = 0; i < 7; ++i) {
    select(i, i) = 1;
    select(7 + i, nq + i) = 1;
  }
  VectorX<double> x_des = VectorX<double>::Zero(14);
  x_des.head(7) = q_arm;
  x_des[0] = 1.2;  // swing the base yaw by 1.2 rad
  auto diagram = WithPd(&builder, plant, select, 400, 20, x_des);
  Simulator<double> sim(*diagram);
  VectorX<double> q0 = tree.GetZeroConfiguration();
  q0.head(7) = q_arm;
  const double a = 0.5;
  const Vector3<double> p_box(
      std::cos(a) * p_tool.x() - std::sin(a) * p_tool.y(),
      std::sin(a) * p_tool.x() + std::cos(a) * p_tool.y(), 0.05);
  q0.segment<3>(7) = p_box;
  q0.segment<4>(10) << std::cos(a / 2), 0, 0, std::sin(a / 2);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), q0,
      VectorX<double>::Zero(nv));
  sim.AdvanceTo(2.0);
  const VectorX<double>& x =
      plant->GetState(plant->GetMyContextFromRoot(sim.get_context()));
  const Vector3<double> moved = x.segment<3>(7) - p_box;
  EXPECT_GT(moved.head<2>().norm(), 0.05) << moved.transpose();
  EXPECT_NEAR(x[7 + 2], 0.05, 5e-3);  // still on the ground, not launched
  EXPECT_NEAR(x[0], 1.2, 0.1);        // the arm got there
}

}  // namespace
}  // namespace tern
