// A URDF robot as a System: the acrobot of models/acrobot.urdf in a
// RigidBodySystem with joint motors (TorqueSource with a 20 ms lag), an
// encoder and an IMU, driven towards a target pose by a PD controller wired
// through the plant's state output (a PD law: gravity leaves an offset). Prints
// the encoder counts, the IMU reading and the joint angles every 0.5 s.
//
//   plant_acrobot [file.urdf]
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/pid_controller.h"

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(TERN_MODELS_DIR) + "/acrobot.urdf";
  tern::RigidBodyTree<double> tree;
  try {
    tree = tern::ParseUrdfFile(path).tree;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  const std::vector<std::string> joints = {"shoulder", "elbow"};
  auto motors = std::make_shared<tern::TorqueSource<double>>(tree, joints, 0.02,
                                                             "motors");
  auto encoder =
      std::make_shared<tern::Encoder<double>>(tree, joints, 4096, "encoder");
  auto imu = std::make_shared<tern::Imu<double>>(
      tree, "lower_link", tern::RigidTransform<double>(), 0, 0, "imu");

  tern::RigidBodySystemOptions options;
  options.state_output = true;  // for the controller
  tern::DiagramBuilder<double> builder;
  auto* plant = builder.AddNamedSystem<tern::RigidBodySystem<double>>(
      "acrobot", tree,
      std::vector<std::shared_ptr<const tern::Actuator<double>>>{motors},
      std::vector<std::shared_ptr<const tern::Sensor<double>>>{encoder, imu},
      std::vector<
          std::shared_ptr<const tern::ContinuousTimeConstraintForce<double>>>{},
      options);
  auto* pd = builder.AddNamedSystem<tern::PidController<double>>(
      "pd", Eigen::Vector2d(40, 20), Eigen::Vector2d(0, 0),
      Eigen::Vector2d(8, 4));
  auto* target = builder.AddNamedSystem<tern::ConstantVectorSource<double>>(
      "target", Eigen::Vector4d(0.6, -0.9, 0, 0));
  builder.Connect(plant->get_output_port("state"),
                  pd->get_input_port_estimated_state());
  builder.Connect(target->get_output_port(),
                  pd->get_input_port_desired_state());
  builder.Connect(pd->get_output_port_control(),
                  plant->get_actuator_input_port("motors"));
  builder.ExportOutput(plant->get_sensor_output_port("encoder"), "encoder");
  builder.ExportOutput(plant->get_sensor_output_port("imu"), "imu");
  builder.ExportOutput(plant->get_output_port("state"), "state");
  auto diagram = builder.Build();

  tern::Simulator<double> sim(*diagram);
  sim.reset_integrator<tern::RK4>(1e-3);
  std::printf("%5s %18s %30s %18s\n", "t", "encoder counts",
              "imu specific force (m/s^2)", "q (rad)");
  for (int k = 0; k <= 6; ++k) {
    sim.AdvanceTo(0.5 * k);
    const auto& c = sim.get_context();
    const Eigen::VectorXd& counts = diagram->get_output_port(0).Eval(c);
    const Eigen::VectorXd& y = diagram->get_output_port(1).Eval(c);
    const Eigen::VectorXd& x = diagram->get_output_port(2).Eval(c);
    std::printf("%5.1f %8.0f %9.0f %9.3f %9.3f %9.3f %8.3f %8.3f\n", 0.5 * k,
                counts[0], counts[1], y[0], y[1], y[2], x[0], x[1]);
  }
  return 0;
}
