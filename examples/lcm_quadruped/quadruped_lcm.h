#pragma once
// The shipped quadruped under joint PD control, in one process or with the
// controller in another process over LCM (docs/signals.md). Shared by the
// example, the tests of tern/lcm and bench/lcm.
//
//   one process:   plant "state" -> PD -> plant "motors"
//   two processes: plant "state" -> LcmLockstepSystem -> plant "motors"
//                  ... and in the peer, LcmSystemServer(PD)
// The PD is the same diagram in both (QuadrupedPdController), so the two
// simulations agree bit for bit.
#include <memory>
#include <string>
#include <vector>

#include "examples/quadruped/quadruped_stance.h"
#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_lockstep_system.h"
#include "tern/lcm/lcm_translators.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/systems/framework/diagram.h"
#include "tern/systems/framework/diagram_builder.h"

namespace tern {

inline constexpr double kQuadrupedLcmPeriod = 1e-3;  // s, plant step
inline constexpr double kQuadrupedKp = 300, kQuadrupedKd = 10;

inline QuadrupedStance MakeQuadrupedLcmStance(const std::string& models_dir) {
  ContactProperties ground;
  ground.friction = 0.9;
  return MakeQuadrupedStance(models_dir, QuadrupedFeetOnGroundHeight() + 1e-3,
                             ground);
}

// The controller as a diagram: input "state" ([q; v] of the plant), output
// "tau" (12 joint torques). ConnectJointPd's blocks, exported.
inline std::unique_ptr<Diagram<double>> MakeQuadrupedPdController(
    const QuadrupedStance& s) {
  const int n = static_cast<int>(s.x_des.size()) / 2;
  DiagramBuilder<double> builder;
  auto* pick = builder.AddSystem<MatrixGain<double>>(s.select);
  auto* pd = builder.AddSystem<PidController<double>>(
      VectorX<double>::Constant(n, kQuadrupedKp), VectorX<double>::Zero(n),
      VectorX<double>::Constant(n, kQuadrupedKd));
  auto* target = builder.AddSystem<ConstantVectorSource<double>>(s.x_des);
  builder.Connect(pick->get_output_port(),
                  pd->get_input_port_estimated_state());
  builder.Connect(target->get_output_port(),
                  pd->get_input_port_desired_state());
  builder.ExportInput(pick->get_input_port(), "state");
  builder.ExportOutput(pd->get_output_port_control(), "tau");
  return builder.Build();
}

// The state and command translators of the quadruped's two channels.
inline std::shared_ptr<const LcmTranslator> QuadrupedStateTranslator(
    const QuadrupedStance& s) {
  return std::make_shared<LcmRobotStateTranslator>(s.tree.num_positions(),
                                                   s.tree.num_velocities());
}
inline std::shared_ptr<const LcmTranslator> QuadrupedCommandTranslator(
    const QuadrupedStance& s) {
  return std::make_shared<LcmVectorTranslator>(
      "joint_command", static_cast<int>(s.joints.size()));
}

// The plant, and (if lcm is null) the PD in the same diagram, else an
// LcmLockstepSystem to a peer serving MakeQuadrupedPdController on
// `state_channel` -> `command_channel`.
struct QuadrupedLcmDiagram {
  std::unique_ptr<Diagram<double>> diagram;
  TimeSteppingRigidBodySystem* plant{nullptr};
  LcmLockstepSystem* lockstep{nullptr};  // null in one process
};

inline QuadrupedLcmDiagram MakeQuadrupedLcmDiagram(
    const QuadrupedStance& s, LcmInterface* lcm,
    const std::string& state_channel = "",
    const std::string& command_channel = "", LcmLockstepOptions options = {}) {
  using ActuatorList = std::vector<std::shared_ptr<const Actuator<double>>>;
  using SensorList = std::vector<std::shared_ptr<const Sensor<double>>>;
  using BilateralList =
      std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>;
  auto motors =
      std::make_shared<TorqueSource<double>>(s.tree, s.joints, 0.0, "motors");
  TimeSteppingOptions plant_options;
  plant_options.state_output = true;
  DiagramBuilder<double> builder;
  QuadrupedLcmDiagram d;
  d.plant = builder.AddSystem<TimeSteppingRigidBodySystem>(
      s.tree, s.geometry, kQuadrupedLcmPeriod, ActuatorList{motors},
      SensorList{}, BilateralList{}, plant_options);
  if (lcm == nullptr) {
    ConnectJointPd(&builder, d.plant, s.select, s.x_des, kQuadrupedKp,
                   kQuadrupedKd);
  } else {
    d.lockstep = builder.AddSystem<LcmLockstepSystem>(
        state_channel, QuadrupedStateTranslator(s), command_channel,
        QuadrupedCommandTranslator(s), lcm, kQuadrupedLcmPeriod,
        VectorX<double>::Zero(static_cast<int>(s.joints.size())), options);
    builder.Connect(d.plant->get_output_port("state"),
                    d.lockstep->get_input_port(0));
    builder.Connect(d.lockstep->get_output_port(0),
                    d.plant->get_actuator_input_port("motors"));
  }
  d.diagram = builder.Build();
  return d;
}

}  // namespace tern
