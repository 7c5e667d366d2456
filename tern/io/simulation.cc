#include "tern/io/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "tern/integrators/integrator_base.h"
#include "tern/io/checkpoint.h"
#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/model_file.h"
#include "tern/multibody/parsing/srdf_parser.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/compliant_contact.h"
#include "tern/multibody/plant/contact_stability.h"
#include "tern/multibody/plant/mjcf_elements.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/scene/scene.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram.h"
#include "tern/systems/framework/diagram_builder.h"
#ifdef TERN_CLI_WITH_LCM
#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_signals.h"
#include "tern/lcm/lcm_system_server.h"
#include "tern/lcm/lcm_translators.h"
#endif
#include "tern/systems/framework/leaf_system.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/pid_controller.h"
#include "tern/systems/primitives/trajectory_source.h"
#include "tern/systems/primitives/vector_log_sink.h"
#include "tern/version.h"

namespace tern {
class LcmInterface;  // tern/lcm, when built
}  // namespace tern

namespace tern::io {
namespace {

// A controller's command as the plant's TorqueSource applies it: its output
// is the command after the actuator's effort limits (TorqueSource::
// LimitCommand, the one clamp; the plant receives the command itself), the
// effort logged; and it counts, per joint, the simulator steps whose command
// the actuator clamped (a per-step publish: at the initial state and after
// every step). With a motor lag the output is the lag's target.
class AppliedEffort final : public LeafSystem<double> {
 public:
  AppliedEffort(std::shared_ptr<const TorqueSource<double>> actuator,
                std::shared_ptr<std::vector<long long>> clamped_steps)
      : actuator_(std::move(actuator)), clamped_(std::move(clamped_steps)) {
    const int n = actuator_->num_inputs();
    // One counter per joint, then the number of steps seen.
    clamped_->assign(n + 1, 0);
    this->DeclareVectorInputPort("command", n);
    this->DeclareVectorOutputPort(
        "effort", n, [this](const Context<double>& c, VectorX<double>* y) {
          actuator_->LimitCommand(this->get_input_port(0).Eval(c).data(),
                                  y->data(), nullptr);
        });
    this->DeclarePerStepPublishEvent([this, n](const Context<double>& c) {
      const VectorX<double>& u = this->get_input_port(0).Eval(c);
      for (int i = 0; i < n; ++i) {
        if (actuator_->Clamps(i, u[i])) ++(*clamped_)[i];
      }
      ++(*clamped_)[n];
      return EventStatus::Succeeded();
    });
  }

 private:
  std::shared_ptr<const TorqueSource<double>> actuator_;
  std::shared_ptr<std::vector<long long>> clamped_;
};

// The ctrl of the plant's MjcfActuators (n actuators): one input per
// mjcf_ctrl controller, whose entries go to that controller's actuators;
// an actuator no controller drives gets 0, as MuJoCo holds ctrl.
class MjcfCtrl final : public LeafSystem<double> {
 public:
  // `targets[c]`: for controller c's input entries, the actuator indices.
  MjcfCtrl(int n, std::vector<std::vector<int>> targets)
      : targets_(std::move(targets)) {
    for (std::size_t c = 0; c < targets_.size(); ++c) {
      this->DeclareVectorInputPort(fmt::format("ctrl{}", c),
                                   static_cast<int>(targets_[c].size()));
    }
    this->DeclareVectorOutputPort(
        "ctrl", n, [this](const Context<double>& context, VectorX<double>* y) {
          y->setZero();
          for (std::size_t c = 0; c < targets_.size(); ++c) {
            const VectorX<double>& u =
                this->get_input_port(static_cast<int>(c)).Eval(context);
            for (std::size_t i = 0; i < targets_[c].size(); ++i) {
              (*y)[targets_[c][i]] = u[static_cast<Eigen::Index>(i)];
            }
          }
        });
  }

 private:
  std::vector<std::vector<int>> targets_;
};

// Counts, per MJCF actuator, the simulator steps (a per-step publish: the
// initial state and after every step) whose ctrl MuJoCo's law clamped to
// ctrlrange and whose force it clamped to forcerange (MjcfActuators::
// CalcActuatorForces, the one law); inputs "ctrl" (n) and the plant's
// "state" [q; v].
class MjcfClampCounter final : public LeafSystem<double> {
 public:
  MjcfClampCounter(std::shared_ptr<const MjcfActuators<double>> actuators,
                   int nq, int nv,
                   std::shared_ptr<std::vector<long long>> ctrl_clamped,
                   std::shared_ptr<std::vector<long long>> force_clamped)
      : actuators_(std::move(actuators)),
        ctrl_(std::move(ctrl_clamped)),
        force_(std::move(force_clamped)) {
    const int n = actuators_->num_inputs();
    ctrl_->assign(n + 1, 0);
    force_->assign(n + 1, 0);
    this->DeclareVectorInputPort("ctrl", n);
    this->DeclareVectorInputPort("state", nq + nv);
    // Preallocated: no heap allocation per step.
    scratch_->force.resize(n);
    scratch_->ctrl_clamped.resize(n);
    scratch_->force_clamped.resize(n);
    this->DeclarePerStepPublishEvent([this, n](const Context<double>& c) {
      const VectorX<double>& u = this->get_input_port(0).Eval(c);
      // [q; v]: its head is q, all the law reads.
      const VectorX<double>& x = this->get_input_port(1).Eval(c);
      Scratch& w = *scratch_;
      actuators_->CalcActuatorForces(x, u.data(), w.force.data(),
                                     w.ctrl_clamped.data(),
                                     w.force_clamped.data());
      for (int i = 0; i < n; ++i) {
        (*ctrl_)[i] += w.ctrl_clamped[i];
        (*force_)[i] += w.force_clamped[i];
      }
      ++(*ctrl_)[n];
      ++(*force_)[n];
      return EventStatus::Succeeded();
    });
  }

 private:
  struct Scratch {
    std::vector<double> force;
    std::vector<int> ctrl_clamped, force_clamped;
  };
  std::shared_ptr<const MjcfActuators<double>> actuators_;
  std::shared_ptr<std::vector<long long>> ctrl_, force_;
  std::shared_ptr<Scratch> scratch_{std::make_shared<Scratch>()};
};

std::string JoinNames(const std::vector<std::string>& names) {
  return names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, ", "));
}

// Names of the joints with exactly one coordinate (those a scenario can
// set, control or sense).
std::vector<std::string> SingleDofJoints(const RigidBodyTree<double>& tree) {
  std::vector<std::string> out;
  for (int b = 1; b < tree.num_bodies(); ++b) {
    if (tree.body(b).num_positions == 1) out.push_back(tree.body(b).joint.name);
  }
  return out;
}

int JointBody(const RigidBodyTree<double>& tree, const std::string& joint,
              const std::string& file, const std::string& where) {
  if (!tree.HasJoint(joint)) {
    throw ScenarioError(
        fmt::format("{}: {}: no joint '{}' in the model; single-dof joints: {}",
                    file, where, joint, JoinNames(SingleDofJoints(tree))));
  }
  const int b = tree.FindJointBodyIndex(joint);
  if (tree.body(b).num_positions != 1) {
    throw ScenarioError(fmt::format(
        "{}: {}: joint '{}' is a {} joint with {} coordinates; only "
        "single-dof joints can be used here",
        file, where, joint, JointTypeName(tree.body(b).joint.type),
        tree.body(b).num_positions));
  }
  return b;
}

// Merges `model` into `world` (scene.h's CopyBodies) with the scenario's
// effort limits, collecting the model's floating roots.
// Returns, per body of `model`, its index in `world`.
std::vector<int> MergeModel(const std::string& file,
                            const RigidBodyTree<double>& model,
                            const std::string& prefix,
                            const RigidTransform<double>& X_WM,
                            const EffortLimitsSpec& effort_limits,
                            RigidBodyTree<double>* world,
                            std::vector<int>* floating_roots) {
  const auto limits = [&effort_limits](int, RigidBody<double>* body) {
    Joint<double>& joint = body->joint;
    if (effort_limits.disable_all) {
      joint.effort_limit = std::numeric_limits<double>::infinity();
    }
    if (const auto it = effort_limits.joints.find(joint.name);
        it != effort_limits.joints.end()) {
      joint.effort_limit = it->second;
    }
  };
  std::vector<int> index;
  try {
    index = CopyBodies(model, prefix, X_WM, limits, world);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(fmt::format("{}: {}", file, e.what()));
  }
  for (int b = 1; b < model.num_bodies(); ++b) {
    if (model.body(b).parent == 0 &&
        model.body(b).joint.type == JointType::kFloating) {
      floating_roots->push_back(index[b]);
    }
  }
  return index;
}

RigidTransform<double> Pose(const Vector3<double>& p,
                            const Vector3<double>& rpy) {
  return RigidTransform<double>(RollPitchYawToRotationMatrix(rpy), p);
}

ContactProperties ScenarioContact(const ContactSpec& c) {
  ContactProperties p;
  p.stiffness = c.stiffness;
  p.dissipation = c.dissipation;
  p.friction = c.friction;
  return p;
}

struct Diagram_ {
  // The LCM connection of the scenario's `lcm` key (or null); first, so
  // that it outlives the diagram whose systems use it.
  std::shared_ptr<LcmInterface> lcm;
  std::unique_ptr<Diagram<double>> diagram;
  // The time-stepping plant (subsystem 0), or null for the continuous one.
  const TimeSteppingRigidBodySystem* time_stepping{nullptr};
  struct Log {
    const VectorLogSink<double>* sink;
    std::vector<std::string> columns;
  };
  std::vector<Log> logs;
  // Per controller: its joints' limits and clamped-step counters.
  struct Limiter {
    std::string kind;  // "" (TorqueSource) | ctrlrange | forcerange (MJCF)
    std::string controller;
    std::vector<std::string> joints;
    std::vector<double> limits;
    std::shared_ptr<std::vector<long long>> clamped_steps;
  };
  std::vector<Limiter> limiters;
};

std::vector<std::string> SensorColumns(const SensorSpec& s) {
  std::vector<std::string> c;
  if (s.type == "imu") {
    for (const char* a : {"ax", "ay", "az", "wx", "wy", "wz"})
      c.push_back(s.name + "." + a);
  } else if (s.type == "encoder") {
    for (const std::string& j : s.joints) c.push_back(s.name + "." + j);
  } else {
    for (const char* a : {"tx", "ty", "tz", "fx", "fy", "fz"})
      c.push_back(s.name + "." + a);
  }
  return c;
}

// jointpos: its name; accelerometer and gyro: <name>.x, .y, .z (in the
// site's frame).
std::vector<std::string> MjcfSensorColumns(const MjcfSensor& s) {
  if (MjcfSensorSize(s) == 1) return {s.name};
  return {s.name + ".x", s.name + ".y", s.name + ".z"};
}

std::vector<std::string> StateColumns(const RigidBodyTree<double>& tree) {
  std::vector<std::string> c;
  for (const std::string& n : tree.GetPositionNames()) c.push_back("q." + n);
  for (const std::string& n : tree.GetVelocityNames()) c.push_back("v." + n);
  return c;
}

// The scenario's `lcm` key (docs/signals.md): publishes the named plant
// outputs, and fills `commands` with the port of each subscribed (lcm)
// controller's command; the logic is tern/lcm's AddLcmSignals.
void ConnectLcm(const Scenario& s, const RigidBodyTree<double>& tree,
                const System<double>& plant, DiagramBuilder<double>* builder,
                std::shared_ptr<LcmInterface>* lcm,
                std::map<std::string, const OutputPort<double>*>* commands) {
#ifdef TERN_CLI_WITH_LCM
  const double period = s.lcm.period > 0 ? s.lcm.period : s.plant.dt;
  if (!(s.lcm.period > 0) && s.plant.kind != "time-stepping") {
    throw ScenarioError(
        fmt::format("{}: 'lcm' needs a 'period' (s) with a continuous plant",
                    s.source_file));
  }
  *lcm = std::make_shared<LcmInterface>(s.lcm.url);
  std::vector<LcmSignalOut> publish;
  for (const std::string& name : s.lcm.publish) {
    const OutputPort<double>& port = plant.get_output_port(name);
    std::shared_ptr<const LcmTranslator> translator;
    if (name == "state") {
      translator = std::make_shared<LcmRobotStateTranslator>(
          tree.num_positions(), tree.num_velocities());
    } else {
      for (const SensorSpec& k : s.sensors) {
        if (k.name == name) {
          translator =
              std::make_shared<LcmVectorTranslator>(k.type, port.size());
        }
      }
    }
    publish.push_back({name, &port, translator});
  }
  std::vector<LcmSignalIn> subscribe;
  for (const std::string& name : s.lcm.subscribe) {
    for (const ControllerSpec& c : s.controllers) {
      if (c.name != name) continue;
      const int n = static_cast<int>(c.joints.size());
      subscribe.push_back(
          {name, std::make_shared<LcmVectorTranslator>("joint_command", n),
           VectorX<double>::Zero(n)});
    }
  }
  LcmSignalsOptions options;
  options.period = period;
  options.lockstep = s.lcm.lockstep;
  options.timeout = s.lcm.timeout;
  const std::vector<const OutputPort<double>*> ports =
      AddLcmSignals(builder, lcm->get(), publish, subscribe, options);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    (*commands)[s.lcm.subscribe[i]] = ports[i];
  }
#else
  (void)tree, (void)plant, (void)builder, (void)lcm, (void)commands;
  throw ScenarioError(fmt::format(
      "{}: 'lcm': this tern was built without LCM (install liblcm-dev and "
      "liblcm-bin, see docs/signals.md)",
      s.source_file));
#endif
}

Diagram_ BuildDiagram(const Scenario& s, const World& w, bool with_logs) {
  const RigidBodyTree<double>& tree = w.tree;
  std::vector<std::shared_ptr<const Actuator<double>>> actuators;
  // The plant's TorqueSource of each controller, by name.
  std::map<std::string, std::shared_ptr<const TorqueSource<double>>>
      torque_sources;
  if (w.geometry.num_geometries() > 1 || s.ground.enabled) {
    CompliantContactParameters p;
    p.tangential_damping = s.plant.contact.tangential_damping;
    p.normal_law = s.plant.contact.normal_law == "hunt_crossley"
                       ? CompliantContactParameters::NormalLaw::kHuntCrossley
                       : CompliantContactParameters::NormalLaw::kLinear;
    p.hunt_crossley_dissipation = s.plant.contact.hunt_crossley_dissipation;
    actuators.push_back(std::make_shared<CompliantContact>(
        tree, w.geometry, p, "compliant_contact"));
  }
  // Per mjcf_ctrl controller, the index of each of its actuators in
  // w.mjcf_actuators.
  std::vector<std::vector<int>> mjcf_targets;
  std::vector<int> mjcf_driver(w.mjcf_actuators.size(), -1);
  for (std::size_t ci = 0; ci < s.controllers.size(); ++ci) {
    const ControllerSpec& c = s.controllers[ci];
    if (c.type == "mjcf_ctrl") {
      std::vector<int> targets;
      std::vector<std::string> names;
      for (const MjcfActuator& a : w.mjcf_actuators) names.push_back(a.name);
      for (const std::string& a : c.actuators) {
        const auto it = std::find(names.begin(), names.end(), a);
        if (it == names.end()) {
          throw ScenarioError(fmt::format(
              "{}: controller '{}': no MJCF actuator '{}' in the models; MJCF "
              "actuators: {}",
              s.source_file, c.name, a, JoinNames(names)));
        }
        const int k = static_cast<int>(it - names.begin());
        if (mjcf_driver[k] >= 0) {
          throw ScenarioError(fmt::format(
              "{}: controller '{}': MJCF actuator '{}' is driven by controller "
              "'{}' already",
              s.source_file, c.name, a, s.controllers[mjcf_driver[k]].name));
        }
        mjcf_driver[k] = static_cast<int>(ci);
        targets.push_back(k);
      }
      mjcf_targets.push_back(std::move(targets));
      continue;
    }
    for (const std::string& j : c.joints) {
      JointBody(tree, j, s.source_file, fmt::format("controller '{}'", c.name));
    }
    auto source = std::make_shared<TorqueSource<double>>(
        tree, c.joints, c.motor_time_constant, c.name);
    torque_sources[c.name] = source;
    actuators.push_back(std::move(source));
  }
  // The models' joint springs and equality constraints (both plants).
  std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
      constraints;
  // The models' MJCF actuators (both plants) and sensors.
  std::shared_ptr<const MjcfActuators<double>> mjcf;
  std::vector<std::shared_ptr<const Sensor<double>>> mjcf_sensors;
  try {
    if (auto springs =
            MakeJointSprings(tree, w.springs, "model_joint_springs")) {
      actuators.push_back(std::move(springs));
    }
    mjcf = MakeMjcfActuators(tree, w.mjcf_actuators, "mjcf_actuators");
    if (mjcf != nullptr) actuators.push_back(mjcf);
    mjcf_sensors = MakeMjcfSensors(tree, w.mjcf_sensors);
    constraints = MakeEqualityConstraints(tree, w.equalities);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(fmt::format("{}: {}", s.source_file, e.what()));
  }
  std::vector<std::shared_ptr<const Sensor<double>>> sensors;
  for (const SensorSpec& k : s.sensors) {
    const std::string where = fmt::format("sensor '{}'", k.name);
    if (k.type == "imu") {
      if (!tree.HasBody(k.body)) {
        std::vector<std::string> bodies;
        for (const auto& b : tree.bodies()) bodies.push_back(b.name);
        throw ScenarioError(
            fmt::format("{}: {}: no body '{}' in the model; bodies: {}",
                        s.source_file, where, k.body, JoinNames(bodies)));
      }
      sensors.push_back(std::make_shared<Imu<double>>(
          tree, k.body, RigidTransform<double>(), 0, 0, k.name));
    } else if (k.type == "encoder") {
      for (const std::string& j : k.joints) {
        JointBody(tree, j, s.source_file, where);
      }
      sensors.push_back(std::make_shared<Encoder<double>>(
          tree, k.joints, k.ticks_per_revolution, k.name));
    } else {
      if (!tree.HasJoint(k.joint)) {
        throw ScenarioError(fmt::format("{}: {}: no joint '{}' in the model",
                                        s.source_file, where, k.joint));
      }
      sensors.push_back(
          std::make_shared<ForceTorqueSensor<double>>(tree, k.joint, k.name));
    }
  }
  sensors.insert(sensors.end(), mjcf_sensors.begin(), mjcf_sensors.end());
  Diagram_ d;
  DiagramBuilder<double> builder;
  const System<double>* plant = nullptr;
  if (s.plant.kind == "time-stepping") {
    // Contact is the plant's own constraint over the geometry model, not
    // an actuator.
    if (!actuators.empty() &&
        actuators.front()->name() == "compliant_contact") {
      actuators.erase(actuators.begin());
    }
    TimeSteppingOptions options;
    options.state_output = true;
    const TimeSteppingSpec& t = s.plant.time_stepping;
    using Solver = TimeSteppingOptions::Solver;
    options.solver = t.solver == "lemke"  ? Solver::kLemke
                     : t.solver == "pgs"  ? Solver::kPgs
                     : t.solver == "auto" ? Solver::kAuto
                                          : Solver::kConvex;
    options.convex_tolerance = t.tolerance;
    options.convex_max_iterations = t.max_iterations;
    options.convex_creep_velocity = t.creep_velocity;
    options.convex_anchor_sticking = t.anchor_sticking;
    options.on_nonconvergence =
        t.on_nonconvergence == "warn"
            ? TimeSteppingOptions::OnNonConvergence::kWarnAndCount
            : TimeSteppingOptions::OnNonConvergence::kThrow;
    auto* time_stepping = builder.AddNamedSystem<TimeSteppingRigidBodySystem>(
        "plant", tree, w.geometry, s.plant.dt, actuators, sensors, constraints,
        options);
    // Every context (a run's, a Monte Carlo sample's) starts there.
    time_stepping->SetDefaultPositionsAndVelocities(w.q0, w.v0);
    d.time_stepping = time_stepping;
    plant = d.time_stepping;
  } else {
    RigidBodySystemOptions options;
    options.state_output = true;
    options.default_positions = w.q0;
    options.default_velocities = w.v0;
    plant = builder.AddNamedSystem<RigidBodySystem<double>>(
        "plant", tree, actuators, sensors, constraints, options);
  }
  const int nq = tree.num_positions(), nv = tree.num_velocities();
  // Issue 26: the commands of lcm controllers from another process.
  std::map<std::string, const OutputPort<double>*> lcm_commands;
  if (s.lcm.enabled()) {
    ConnectLcm(s, tree, *plant, &builder, &d.lcm, &lcm_commands);
  }
  std::vector<const OutputPort<double>*> controller_outputs;
  std::vector<const OutputPort<double>*> mjcf_commands;
  for (const ControllerSpec& c : s.controllers) {
    const int n = static_cast<int>(c.joints.size());
    const OutputPort<double>* command = nullptr;
    if (c.type == "mjcf_ctrl") {
      const int na = static_cast<int>(c.actuators.size());
      if (c.trajectory_times.empty()) {
        auto* src = builder.AddNamedSystem<ConstantVectorSource<double>>(
            c.name + "_ctrl",
            Eigen::Map<const Eigen::VectorXd>(c.ctrl.data(), na));
        command = &src->get_output_port();
      } else {
        // The trajectory's positions part [q_d; v_d] -> q_d is the ctrl.
        auto* traj = builder.AddNamedSystem<TrajectorySource>(
            c.name + "_trajectory", c.trajectory_times, c.trajectory);
        Eigen::MatrixXd top = Eigen::MatrixXd::Zero(na, 2 * na);
        top.leftCols(na).setIdentity();
        auto* gain =
            builder.AddNamedSystem<MatrixGain<double>>(c.name + "_ctrl", top);
        builder.Connect(traj->get_output_port(0), gain->get_input_port(0));
        command = &gain->get_output_port(0);
      }
      mjcf_commands.push_back(command);
      controller_outputs.push_back(command);
      continue;
    }
    if (c.type == "lcm") {
      command = lcm_commands.at(c.name);
    } else if (c.type == "constant_effort") {
      auto* src = builder.AddNamedSystem<ConstantVectorSource<double>>(
          c.name + "_effort",
          Eigen::Map<const Eigen::VectorXd>(c.effort.data(), n));
      command = &src->get_output_port();
    } else {
      // [q_j; v_j] of the controlled joints out of the plant's [q; v].
      Eigen::MatrixXd select = Eigen::MatrixXd::Zero(2 * n, nq + nv);
      for (int i = 0; i < n; ++i) {
        const RigidBody<double>& b =
            tree.body(tree.FindJointBodyIndex(c.joints[i]));
        select(i, b.position_start) = 1;
        select(n + i, nq + b.velocity_start) = 1;
      }
      auto* gain = builder.AddNamedSystem<MatrixGain<double>>(
          c.name + "_select", select);
      auto* pid = builder.AddNamedSystem<PidController<double>>(
          c.name, Eigen::Map<const Eigen::VectorXd>(c.kp.data(), n),
          Eigen::VectorXd::Zero(n),
          Eigen::Map<const Eigen::VectorXd>(c.kd.data(), n));
      builder.Connect(plant->get_output_port("state"), gain->get_input_port(0));
      builder.Connect(gain->get_output_port(0),
                      pid->get_input_port_estimated_state());
      if (c.trajectory_times.empty()) {
        Eigen::VectorXd xd = Eigen::VectorXd::Zero(2 * n);
        for (int i = 0; i < n; ++i) xd[i] = c.target[i];
        auto* target = builder.AddNamedSystem<ConstantVectorSource<double>>(
            c.name + "_target", xd);
        builder.Connect(target->get_output_port(),
                        pid->get_input_port_desired_state());
      } else {
        auto* traj = builder.AddNamedSystem<TrajectorySource>(
            c.name + "_trajectory", c.trajectory_times, c.trajectory);
        builder.Connect(traj->get_output_port(0),
                        pid->get_input_port_desired_state());
      }
      command = &pid->get_output_port_control();
    }
    Diagram_::Limiter limiter{"", c.name, c.joints,
                              torque_sources.at(c.name)->effort_limits(),
                              std::make_shared<std::vector<long long>>()};
    // The plant's TorqueSource clamps the command; AppliedEffort reports
    // what that actuator applies (logged) and counts its clamped steps.
    auto* applied = builder.AddNamedSystem<AppliedEffort>(
        c.name + "_applied_effort", torque_sources.at(c.name),
        limiter.clamped_steps);
    builder.Connect(*command, applied->get_input_port(0));
    d.limiters.push_back(std::move(limiter));
    builder.Connect(*command, plant->get_input_port(c.name));
    controller_outputs.push_back(&applied->get_output_port(0));
  }
  if (mjcf != nullptr) {
    // ctrl: the mjcf_ctrl controllers' commands, 0 elsewhere.
    auto* ctrl = builder.AddNamedSystem<MjcfCtrl>(
        "mjcf_ctrl", mjcf->num_inputs(), mjcf_targets);
    for (std::size_t k = 0; k < mjcf_commands.size(); ++k) {
      builder.Connect(*mjcf_commands[k],
                      ctrl->get_input_port(static_cast<int>(k)));
    }
    builder.Connect(ctrl->get_output_port(0),
                    plant->get_input_port("mjcf_actuators"));
    // The clamps of MuJoCo's law, counted per actuator and reported.
    Diagram_::Limiter ctrl_limiter{"ctrlrange",
                                   "mjcf_actuators",
                                   {},
                                   {},
                                   std::make_shared<std::vector<long long>>()};
    Diagram_::Limiter force_limiter{"forcerange",
                                    "mjcf_actuators",
                                    {},
                                    {},
                                    std::make_shared<std::vector<long long>>()};
    const double inf = std::numeric_limits<double>::infinity();
    for (const MjcfActuator& a : w.mjcf_actuators) {
      ctrl_limiter.joints.push_back(a.name);
      force_limiter.joints.push_back(a.name);
      ctrl_limiter.limits.push_back(
          a.ctrl_limited
              ? std::max(std::abs(a.ctrl_lower), std::abs(a.ctrl_upper))
              : inf);
      force_limiter.limits.push_back(
          a.force_limited
              ? std::max(std::abs(a.force_lower), std::abs(a.force_upper))
              : inf);
    }
    auto* counter = builder.AddNamedSystem<MjcfClampCounter>(
        "mjcf_clamps", mjcf, nq, nv, ctrl_limiter.clamped_steps,
        force_limiter.clamped_steps);
    builder.Connect(ctrl->get_output_port(0), counter->get_input_port(0));
    builder.Connect(plant->get_output_port("state"),
                    counter->get_input_port(1));
    d.limiters.push_back(std::move(ctrl_limiter));
    d.limiters.push_back(std::move(force_limiter));
  }
  if (with_logs) {
    const double period = 1.0 / s.log.rate;
    for (const std::string& signal : s.log.signals) {
      const OutputPort<double>* port = nullptr;
      std::vector<std::string> columns;
      if (signal == "state") {
        port = &plant->get_output_port("state");
        columns = StateColumns(tree);
      }
      for (std::size_t k = 0; k < s.sensors.size(); ++k) {
        if (s.sensors[k].name == signal) {
          port = &plant->get_output_port(signal);
          columns = SensorColumns(s.sensors[k]);
        }
      }
      for (std::size_t k = 0; k < s.controllers.size(); ++k) {
        if (s.controllers[k].name == signal) {
          port = controller_outputs[k];
          const ControllerSpec& c = s.controllers[k];
          for (const std::string& j :
               c.type == "mjcf_ctrl" ? c.actuators : c.joints) {
            columns.push_back(signal + "." + j);
          }
        }
      }
      auto* sink = builder.AddNamedSystem<VectorLogSink<double>>(
          "log_" + signal, static_cast<int>(columns.size()), period);
      builder.Connect(*port, sink->get_input_port(0));
      d.logs.push_back({sink, columns});
    }
    // The models' MJCF sensors, after the listed signals.
    for (std::size_t k = 0; s.log.model_sensors && k < w.mjcf_sensors.size();
         ++k) {
      const std::vector<std::string> columns =
          MjcfSensorColumns(w.mjcf_sensors[k]);
      auto* sink = builder.AddNamedSystem<VectorLogSink<double>>(
          "log_" + w.mjcf_sensors[k].name, static_cast<int>(columns.size()),
          period);
      builder.Connect(plant->get_output_port(w.mjcf_sensors[k].name),
                      sink->get_input_port(0));
      d.logs.push_back({sink, columns});
    }
  }
  d.diagram = builder.Build();
  return d;
}

// The scenario's integration rule and settings.
void SetIntegrator(const Scenario& s, Simulator<double>* sim) {
  IntegratorSettings settings;
  settings.fixed_step = s.integrator.step;
  settings.rtol = s.integrator.rtol;
  settings.atol = s.integrator.atol;
  sim->reset_integrator(s.integrator.name, settings);
}

double Draw(const Distribution& d, RandomGenerator* g) {
  switch (d.kind) {
    case Distribution::Kind::kUniform:
      return d.a + (d.b - d.a) * g->Uniform();
    case Distribution::Kind::kGaussian:
      return d.a + d.b * g->Gaussian();
    default:
      return d.a;
  }
}

// The link `name` of model i, as a world body index; the error names the
// scenario key and lists the model's links.
int ModelLink(const Scenario& s, std::size_t i, std::pair<int, int> bodies,
              const GeometryModel& geometry, const std::string& name,
              const std::string& key) {
  const ModelSpec& m = s.models[i];
  const std::string where =
      fmt::format("{}: models[{}].{}", s.source_file, i, key);
  if (name == "world") return 0;
  for (int b = bodies.first; b < bodies.second; ++b) {
    if (geometry.body_name(b) == m.prefix + name) return b;
  }
  std::vector<std::string> links;
  for (int b = bodies.first; b < bodies.second; ++b) {
    links.push_back(geometry.body_name(b).substr(m.prefix.size()));
  }
  throw ScenarioError(fmt::format("{}: no link '{}' in '{}'; links: {}", where,
                                  name, m.file, JoinNames(links)));
}

}  // namespace

void ApplyCollisionFilters(const Scenario& s, std::size_t i,
                           std::pair<int, int> bodies,
                           GeometryModel* geometry) {
  const ModelSpec& m = s.models[i];
  if (!m.self_collision) {
    std::vector<int> all;
    for (int b = bodies.first; b < bodies.second; ++b) all.push_back(b);
    geometry->ExcludeWithin(all);
  }
  for (const auto& [a, b] : m.exclude_collisions) {
    geometry->ExcludeBodyPair(
        ModelLink(s, i, bodies, *geometry, a, "exclude_collisions"),
        ModelLink(s, i, bodies, *geometry, b, "exclude_collisions"));
  }
  if (!m.srdf_path.empty()) {
    for (const auto& [a, b] : ParseSrdfDisabledCollisions(m.srdf_path)) {
      geometry->ExcludeBodyPair(
          ModelLink(s, i, bodies, *geometry, a, "srdf (" + m.srdf_path + ")"),
          ModelLink(s, i, bodies, *geometry, b, "srdf (" + m.srdf_path + ")"));
    }
  }
  std::map<std::string, std::vector<int>> groups;
  for (const CollisionGroupSpec& g : m.collision_groups) {
    std::vector<int>& members = groups[g.name];
    for (const std::string& link : g.links) {
      members.push_back(ModelLink(s, i, bodies, *geometry, link,
                                  "collision_groups." + g.name));
    }
  }
  for (const CollisionGroupSpec& g : m.collision_groups) {
    for (const std::string& other : g.ignore) {
      geometry->ExcludeGroupPair(groups.at(g.name), groups.at(other));
    }
  }
}

namespace {

// What a scenario does not apply of an MJCF model, and the <option> that
// differs from the scenario's plant, as warnings naming the element. Its
// <motor> and <position> actuators and <jointpos>, <accelerometer> and
// <gyro> sensors are applied (World::mjcf_actuators, mjcf_sensors); the
// parser names the other actuator and sensor types in its own warnings.
// A sensor's noise is not applied (MuJoCo does not apply it either).
void WarnMjcfLeftOut(const Scenario& s, const ModelSpec& m,
                     const ModelFile& model, std::vector<std::string>* out) {
  const MjcfModel& x = model.mjcf;
  for (const MjcfSensor& k : x.sensors) {
    if (k.noise > 0) {
      out->push_back(fmt::format(
          "{}:{}: <{}> sensor '{}': noise {} is not applied (MuJoCo does not "
          "apply it either)",
          m.file, k.line, k.type, k.name, k.noise));
    }
  }
  if (!x.sensors.empty() && !s.log.model_sensors) {
    out->push_back(fmt::format(
        "{}: the model's {} MJCF sensors are not logged (log.model_sensors is "
        "false)",
        m.file, x.sensors.size()));
  }
  if (x.gravity != s.plant.gravity) {
    out->push_back(fmt::format(
        "{}: <option gravity=\"{} {} {}\"> differs from the scenario's "
        "plant.gravity [{}, {}, {}], which is used",
        m.file, x.gravity.x(), x.gravity.y(), x.gravity.z(),
        s.plant.gravity.x(), s.plant.gravity.y(), s.plant.gravity.z()));
  }
  if (s.plant.kind == "time-stepping" && x.has_timestep &&
      x.timestep != s.plant.dt) {
    out->push_back(fmt::format(
        "{}: <option timestep=\"{}\"> differs from the scenario's plant.dt "
        "{}, which is used",
        m.file, x.timestep, s.plant.dt));
  }
}

}  // namespace

World BuildWorld(const Scenario& s) {
  World w{RigidBodyTree<double>(s.name.empty() ? "world" : s.name),
          GeometryModel(1),
          {},
          {},
          {},
          {},
          {},
          {},
          {},
          {},
          {}};
  w.tree.set_gravity(s.plant.gravity);
  // A floating body's initial pose: p and quaternion [w x y z].
  struct Root {
    int body;
    Vector3<double> p;
    Vector4<double> quat;
  };
  std::vector<Root> roots;
  // Coordinates the models' files give (MJCF qpos0, SDFormat poses), by
  // world body, before the scenario's initial_state.
  std::vector<std::pair<int, VectorX<double>>> file_positions;
  // MJCF <contact><exclude> pairs and MuJoCo's own filtered pairs, as
  // world bodies, and the bodies whose models filter their pairs so
  // (SceneGeometry's own_pair_filter).
  std::vector<std::pair<int, int>> excludes;
  std::vector<char> own_pair_filter;
  for (const ModelSpec& m : s.models) {
    UrdfParseOptions options;
    options.floating_base = m.floating;
    options.inertia = m.inertia;
    options.check_mass_matrix = false;  // checked once, on the whole world
    ApplyPackages(s.packages, &options);
    // URDF, MJCF or SDFormat (ParseModelFile picks by extension and root).
    ModelFileOptions file_options;
    file_options.urdf = options;
    file_options.mjcf.packages = file_options.sdf.packages = options.packages;
    file_options.mjcf.check_mass_matrix = false;
    file_options.sdf.check_mass_matrix = false;
    ModelFile model = ParseModelFile(m.path, file_options);
    for (const UrdfWarning& warning : model.warnings) {
      w.warnings.push_back(warning.ToString());
    }
    std::vector<int> floating;
    const int first = w.tree.num_bodies();
    const RigidTransform<double> X_WM = Pose(m.position, m.rpy);
    const std::vector<int> index =
        MergeModel(s.source_file, model.tree, m.prefix, X_WM, s.effort_limits,
                   &w.tree, &floating);
    w.model_bodies.emplace_back(first, w.tree.num_bodies());
    // A root link named "world" is welded even when floating was asked.
    w.model_floating.push_back(!floating.empty());
    // Each body starts where the file puts it, in the model frame X_WM: a
    // floating root at X_WM times its pose in the model (X_WM itself for a
    // URDF, whose q0 is zero), the other joints at the file's q.
    const VectorX<double>& q0 = model.q0.size() == model.tree.num_positions()
                                    ? model.q0
                                    : model.tree.GetZeroConfiguration();
    for (int b = 1; b < model.tree.num_bodies(); ++b) {
      const RigidBody<double>& body = model.tree.body(b);
      if (body.num_positions == 0) continue;
      const VectorX<double> qb =
          q0.segment(body.position_start, body.num_positions);
      if (body.parent != 0 || body.joint.type != JointType::kFloating) {
        file_positions.emplace_back(index[b], qb);
        continue;
      }
      const Vector4<double> quat = qb.segment<4>(3);
      if (qb.head<3>().isZero() && quat == Vector4<double>(1, 0, 0, 0)) {
        roots.push_back(
            {index[b], m.position, RollPitchYawToQuaternion(m.rpy)});
      } else {
        const RigidTransform<double> X_WB =
            X_WM * RigidTransform<double>(
                       QuaternionToRotationMatrix<double>(quat.normalized()),
                       qb.head<3>());
        roots.push_back(
            {index[b], X_WB.p, RotationMatrixToQuaternion<double>(X_WB.R)});
      }
    }
    // The model's plant elements follow its bodies into the world.
    try {
      for (const EqualityConstraintSpec& e : model.equalities) {
        w.equalities.push_back(
            MapEqualityConstraint(e, model.tree, index, X_WM, w.tree));
        // Named as the model's bodies are, so that two copies' differ.
        w.equalities.back().name = m.prefix + e.name;
      }
      for (const JointSpringSpec& k : model.springs) {
        w.springs.push_back(MapJointSpring(k, model.tree, index, w.tree));
      }
      if (model.format == ModelFormat::kMjcf) {
        for (const MjcfActuator& a : model.mjcf.actuators) {
          w.mjcf_actuators.push_back(
              MapMjcfActuator(a, model.tree, index, m.prefix, w.tree));
        }
        for (const MjcfSensor& k : model.mjcf.sensors) {
          w.mjcf_sensors.push_back(
              MapMjcfSensor(k, model.tree, index, m.prefix, w.tree));
        }
      }
    } catch (const std::invalid_argument& e) {
      throw ScenarioError(
          fmt::format("{}: {}: {}", s.source_file, m.file, e.what()));
    }
    if (model.format == ModelFormat::kMjcf) {
      const auto [first, end] = w.model_bodies.back();
      own_pair_filter.resize(end, 0);
      std::fill(own_pair_filter.begin() + first, own_pair_filter.end(), 1);
      for (const MjcfContactExclude& x : model.mjcf.contact_excludes) {
        excludes.emplace_back(index.at(model.tree.FindBodyIndex(x.body1)),
                              index.at(model.tree.FindBodyIndex(x.body2)));
      }
      WarnMjcfLeftOut(s, m, model, &w.warnings);
    } else if (model.format == ModelFormat::kSdf &&
               model.tree.gravity() != s.plant.gravity) {
      const Vector3<double> g = model.tree.gravity();
      w.warnings.push_back(fmt::format(
          "{}: the world's <gravity> {} {} {} differs from the scenario's "
          "plant.gravity [{}, {}, {}], which is used",
          m.file, g.x(), g.y(), g.z(), s.plant.gravity.x(), s.plant.gravity.y(),
          s.plant.gravity.z()));
    }
  }
  for (const auto& [joint, limit] : s.effort_limits.joints) {
    JointBody(w.tree, joint, s.source_file, "effort_limits");
  }
  // Bounded memory: the plants' workspaces grow with the bodies.
  const long long num_bodies =
      w.tree.num_bodies() - 1 + static_cast<long long>(s.boxes.size());
  if (num_bodies > kMaxBodies) {
    throw ScenarioError(fmt::format(
        "{}: {} bodies (model links and boxes); a scenario may have at most {} "
        "bodies",
        s.source_file, num_bodies, kMaxBodies));
  }
  for (const BoxSpec& b : s.boxes) {
    if (w.tree.HasBody(b.name)) {
      throw ScenarioError(
          fmt::format("{}: box '{}': a body of that name exists already",
                      s.source_file, b.name));
    }
    int body = 0;
    try {
      body = AddBox({b.name, b.size, b.mass, Pose(b.position, b.rpy), b.color},
                    &w.tree);
    } catch (const std::invalid_argument& e) {
      throw ScenarioError(fmt::format("{}: {}", s.source_file, e.what()));
    }
    if (b.mass > 0) {
      roots.push_back({body, b.position, RollPitchYawToQuaternion(b.rpy)});
    }
  }
  try {
    CheckMassMatrixNonsingular(w.tree);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(fmt::format("{}: {}", s.source_file, e.what()));
  }
  w.q0 = w.tree.GetZeroConfiguration();
  w.v0 = Eigen::VectorXd::Zero(w.tree.num_velocities());
  for (const auto& [body, q] : file_positions) {
    w.q0.segment(w.tree.body(body).position_start, q.size()) = q;
  }
  for (const Root& r : roots) {
    const int start = w.tree.body(r.body).position_start;
    w.q0.segment<3>(start) = r.p;
    w.q0.segment<4>(start + 3) = r.quat;
  }
  for (const auto& [joint, x] : s.initial_positions) {
    const int b =
        JointBody(w.tree, joint, s.source_file, "initial_state.positions");
    w.q0[w.tree.body(b).position_start] = x;
  }
  for (const auto& [joint, x] : s.initial_velocities) {
    const int b =
        JointBody(w.tree, joint, s.source_file, "initial_state.velocities");
    w.v0[w.tree.body(b).velocity_start] = x;
  }

  // A constraint the initial state violates (an initial_state entry that
  // breaks a loop) is pulled together by the plants from t = 0, with forces
  // no model asked for: say so.
  if (!w.equalities.empty()) {
    KinematicsCache<double> cache(w.tree, /*with_mass_matrix=*/false);
    ForwardKinematics(w.tree, &cache, w.q0);
    for (const EqualityConstraintSpec& e : w.equalities) {
      const RigidTransform<double> X_WF =
          cache.X_WB[w.tree.FindBodyIndex(e.body1)] * e.X_1F;
      const RigidTransform<double> X_WG =
          cache.X_WB[w.tree.FindBodyIndex(e.body2)] * e.X_2G;
      const double gap = (X_WF.p - X_WG.p).norm();
      const double twist =
          e.type == EqualityConstraintSpec::Type::kWeld
              ? Eigen::AngleAxis<double>(X_WF.R.transpose() * X_WG.R).angle()
              : 0.0;
      if (gap > 1e-6 || twist > 1e-6) {
        w.warnings.push_back(fmt::format(
            "{}: constraint '{}' ({} - {}) is violated at the initial state "
            "({:.3g} m apart{}); the plants pull it together from t = 0 "
            "(check initial_state)",
            s.source_file, e.name, e.body1, e.body2, gap,
            e.type == EqualityConstraintSpec::Type::kWeld
                ? fmt::format(", turned {:.3g} rad", twist)
                : ""));
      }
    }
  }

  // Collision geometry: the tree's (parent-child pairs excluded, except a
  // floating root with the world; MJCF models' pairs as MuJoCo filters
  // them), with the scenario's contact material
  // where the model gives none (property by property), the models' filters, and
  // the ground plane.
  w.geometry = SceneGeometry(
      w.tree, ScenarioContact(s.plant.contact),
      s.ground.enabled ? std::optional<double>(s.ground.height) : std::nullopt,
      own_pair_filter);
  for (std::size_t i = 0; i < s.models.size(); ++i) {
    ApplyCollisionFilters(s, i, w.model_bodies[i], &w.geometry);
  }
  for (const auto& [a, b] : excludes) w.geometry.ExcludeBodyPair(a, b);
  // A fixed-step rule the compliant contact of a light link makes unstable
  // (DRC-Hubo's finger links under RK4 at 0.5 ms) is named before the run.
  // (An unknown rule is named where the integrator is made, not here.)
  bool known_rule = true;
  try {
    MakeIntegrator<double>(s.integrator.name);
  } catch (const std::invalid_argument&) {
    known_rule = false;
  }
  if (s.plant.kind == "continuous" && known_rule && s.integrator.step > 0) {
    if (const auto f = CheckContactStability(
            w.tree, w.geometry, w.q0, s.integrator.name, s.integrator.step,
            s.plant.contact.normal_law == "hunt_crossley")) {
      w.warnings.push_back(fmt::format(
          "{}: integrator {} at step {} s is unstable on the contact of body "
          "'{}' (geometry '{}': effective mass {:.3g} kg at its box's "
          "corners, {:.3g} N/m and {:.3g} N s/m in series with what it "
          "touches; {:.3g}x growth per step): the run would diverge at its "
          "first contact there; take integrator.step <= {:.2g} s, an implicit "
          "rule, or a softer contact material (docs/plant.md)",
          s.source_file, s.integrator.name, s.integrator.step, f->body,
          f->geometry, f->effective_mass, f->stiffness, f->dissipation,
          f->amplification, f->stable_step));
    }
  }
  return w;
}

std::vector<std::string> AvailableSignals(const Scenario& s) {
  std::vector<std::string> out{"state"};
  for (const SensorSpec& k : s.sensors) out.push_back(k.name);
  for (const ControllerSpec& c : s.controllers) out.push_back(c.name);
  return out;
}

int LogSamples(const Scenario& s) {
  // In double, so that no duration overflows the count (1e10 s did).
  const double samples = std::ceil(s.duration * s.log.rate) + 2;
  if (!(samples <= static_cast<double>(kMaxLogSamples))) {
    throw ScenarioError(fmt::format(
        "{}: duration {} s at log.rate {} Hz is {} samples, more than the {} "
        "a run's log may hold: lower log.rate or the duration",
        s.source_file, s.duration, s.log.rate, samples, kMaxLogSamples));
  }
  return static_cast<int>(samples);
}

void ValidateScenario(const Scenario& s, const World& w) {
  LogSamples(s);
  if (w.tree.num_velocities() == 0) {
    // (E.g. an MJCF file whose moving parts are composites, which Tern
    // leaves out: what is left is welded.)
    throw ScenarioError(fmt::format(
        "{}: nothing moves: the world has no joint with a degree of freedom "
        "(every model and box is welded); add a floating model or a box",
        s.source_file));
  }
  if (s.plant.kind != "continuous" && s.plant.kind != "time-stepping") {
    throw ScenarioError(
        fmt::format("{}: plant kind '{}'; accepted: continuous, time-stepping",
                    s.source_file, s.plant.kind));
  }
  if (s.plant.kind == "time-stepping") {
    for (const auto& [key, dist] : s.monte_carlo.vary) {
      if (key == "contact.stiffness" || key == "contact.dissipation") {
        throw ScenarioError(fmt::format(
            "{}: monte_carlo.vary: '{}' has no effect on the time-stepping "
            "plant (its contact is rigid and uses the friction only)",
            s.source_file, key));
      }
    }
    for (const ControllerSpec& c : s.controllers) {
      if (c.motor_time_constant > 0) {
        throw ScenarioError(fmt::format(
            "{}: controller '{}': motor_time_constant needs the continuous "
            "plant (time-stepping actuators have no state)",
            s.source_file, c.name));
      }
    }
  }
  try {
    MakeIntegrator<double>(s.integrator.name);
  } catch (const std::invalid_argument&) {
    throw ScenarioError(fmt::format("{}: unknown integrator '{}'; known: {}",
                                    s.source_file, s.integrator.name,
                                    KnownIntegratorNames()));
  }
  std::set<std::string> names;
  const std::vector<std::string> available = AvailableSignals(s);
  std::vector<std::string> all = available;
  // The models' MJCF sensors are plant outputs too.
  for (const MjcfSensor& k : w.mjcf_sensors) all.push_back(k.name);
  for (const std::string& n : all) {
    if (n == "compliant_contact" || n == "mjcf_actuators" ||
        !names.insert(n).second) {
      throw ScenarioError(fmt::format(
          "{}: the name '{}' is used twice (sensors, controllers and the "
          "models' MJCF sensors need distinct names, other than 'state', "
          "'compliant_contact' and 'mjcf_actuators')",
          s.source_file, n));
    }
  }
  for (const std::string& n : s.log.signals) {
    if (!names.count(n)) {
      throw ScenarioError(
          fmt::format("{}: log.signals: unknown signal '{}'; available: {}",
                      s.source_file, n, JoinNames(available)));
    }
  }
  if (std::find(s.log.signals.begin(), s.log.signals.end(), "state") ==
      s.log.signals.end()) {
    throw ScenarioError(fmt::format(
        "{}: log.signals must include 'state' (the report replays it)",
        s.source_file));
  }
  if (s.monte_carlo.samples > 0) {
    const std::vector<std::string> cols = StateColumns(w.tree);
    if (std::find(cols.begin(), cols.end(), s.monte_carlo.output) ==
        cols.end()) {
      throw ScenarioError(fmt::format(
          "{}: monte_carlo.output: unknown column '{}'; state columns: {}",
          s.source_file, s.monte_carlo.output, JoinNames(cols)));
    }
  }
  // Builds the diagram once, so bad joint or body names fail here.
  BuildDiagram(s, w, false);
}

std::vector<InitialContact> FindInitialContacts(const Scenario& /*s*/,
                                                const World& w) {
  KinematicsCache<double> cache(w.tree, /*with_mass_matrix=*/false);
  ForwardKinematics(w.tree, &cache, w.q0);
  GeometryWorkspace ws(w.geometry);
  UpdateGeometryPoses(w.geometry, cache.X_WB, &ws);
  std::map<std::pair<int, int>, InitialContact> deepest;
  for (const Contact& c : ComputeContacts(w.geometry, &ws, 0)) {
    const double depth = -c.signed_distance;
    const auto key = std::minmax(c.body_a, c.body_b);
    auto it = deepest.find(key);
    if (it != deepest.end() && it->second.depth >= depth) continue;
    // The body of lower index first (the world before the others).
    const bool flip = c.body_a > c.body_b;
    InitialContact ic{
        w.tree.body(key.first).name,
        w.tree.body(key.second).name,
        w.geometry.geometry(flip ? c.geometry_b : c.geometry_a).name,
        w.geometry.geometry(flip ? c.geometry_a : c.geometry_b).name,
        std::max(depth, 0.0),
        -1};
    for (std::size_t i = 0; i < w.model_bodies.size(); ++i) {
      const auto [first, end] = w.model_bodies[i];
      if (c.body_a >= first && c.body_a < end && c.body_b >= first &&
          c.body_b < end) {
        ic.model = static_cast<int>(i);
      }
    }
    deepest[key] = ic;
  }
  std::vector<InitialContact> out;
  for (auto& [key, c] : deepest) out.push_back(c);
  std::stable_sort(out.begin(), out.end(),
                   [](const InitialContact& a, const InitialContact& b) {
                     return a.depth > b.depth;
                   });
  return out;
}

std::string InitialOverlapWarning(const Scenario& s, const World& w) {
  constexpr double kDeep = 2e-3;  // m: deeper than resting contact
  const std::vector<InitialContact> contacts = FindInitialContacts(s, w);
  const auto deep =
      std::count_if(contacts.begin(), contacts.end(),
                    [](const InitialContact& c) { return c.depth > kDeep; });
  if (deep == 0) return "";
  const InitialContact& c = contacts.front();  // the deepest
  return fmt::format(
      "{}: {} body pair(s) overlap by more than {} mm at the initial state, "
      "the deepest {} - {} by {:.4g} m: their contact pushes them apart from "
      "t = 0 with forces no model asked for, which can throw the model; "
      "`tern check {}` lists them with the keys that filter them (or place "
      "the model with its position)",
      s.source_file, deep, kDeep * 1e3, c.body_a, c.body_b, c.depth,
      s.source_file);
}

std::string DescribeInitialContacts(const Scenario& s, const World& w) {
  const std::vector<InitialContact> contacts = FindInitialContacts(s, w);
  std::ostringstream o;
  o << fmt::format(
      "initial contacts ({} body pairs in contact or "
      "overlapping at the initial state):\n",
      contacts.size());
  if (contacts.empty()) o << "  (none)\n";
  // The deepest first; a pile of n boxes has n (n - 1) / 2 pairs, so the
  // list is cut (issue 27: 2,725 boxes at one spot printed 3.7 M lines).
  constexpr std::size_t kMaxListed = 100;
  std::map<int, std::vector<std::string>> suggest;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const InitialContact& c = contacts[k];
    if (k == kMaxListed) {
      o << fmt::format("  ... and {} more pairs\n", contacts.size() - k);
    }
    if (k >= kMaxListed) continue;
    o << fmt::format("  {} - {}: depth {:.4f} m (geometries '{}', '{}')\n",
                     c.body_a, c.body_b, c.depth, c.geometry_a, c.geometry_b);
    if (c.model >= 0 && c.depth > 0) {
      const std::string& prefix = s.models[c.model].prefix;
      suggest[c.model].push_back(fmt::format("[{}, {}]",
                                             c.body_a.substr(prefix.size()),
                                             c.body_b.substr(prefix.size())));
    }
  }
  for (const auto& [model, pairs] : suggest) {
    o << fmt::format(
        "warning: links of model '{}' overlap at the initial state (their "
        "contact forces act from t = 0); if the overlap is an artifact of "
        "the model, filter it in the scenario under models[{}]:\n"
        "  exclude_collisions: [{}]\n"
        "or turn the model's self-collision off:\n"
        "  self_collision: false\n",
        s.models[model].file, model, fmt::join(pairs, ", "));
  }
  return o.str();
}

std::string DescribeModel(const Scenario& s, const World& w) {
  const RigidBodyTree<double>& tree = w.tree;
  std::ostringstream o;
  o << fmt::format("scenario '{}' ({}): {} plant, {} s, integrator {}\n",
                   s.name, s.source_file, s.plant.kind, s.duration,
                   s.integrator.name);
  o << fmt::format("bodies ({}), with their joints:\n", tree.num_bodies() - 1);
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const RigidBody<double>& body = tree.body(b);
    o << fmt::format("  {:<20} mass {:8.3f} kg  joint '{}' ({}) to '{}'\n",
                     body.name, body.inertia.m, body.joint.name,
                     JointTypeName(body.joint.type),
                     tree.body(body.parent).name);
  }
  o << fmt::format("coordinates: nq = {}, nv = {}\n", tree.num_positions(),
                   tree.num_velocities());
  o << "actuators:\n";
  if (s.controllers.empty()) o << "  (none)\n";
  for (const ControllerSpec& c : s.controllers) {
    if (c.type == "mjcf_ctrl") {
      o << fmt::format("  {} ({}): ctrl of MJCF actuators {}\n", c.name, c.type,
                       fmt::join(c.actuators, ", "));
      continue;
    }
    o << fmt::format("  {} ({}): torque source on {}\n", c.name, c.type,
                     fmt::join(c.joints, ", "));
  }
  if (!w.mjcf_actuators.empty()) {
    o << "MJCF actuators (from the model files; ctrl 0 unless an mjcf_ctrl "
         "controller drives them):\n";
    for (const MjcfActuator& a : w.mjcf_actuators) {
      o << fmt::format(
          "  {} ({}): joint {}, gear {}{}\n", a.name,
          a.kind == MjcfActuator::Kind::kMotor ? "motor" : "position", a.joint,
          a.gear,
          a.kind == MjcfActuator::Kind::kPosition ? fmt::format(", kp {}", a.kp)
                                                  : "");
    }
  }
  if (!w.springs.empty()) {
    o << "joint springs (from the model files):\n";
    for (const JointSpringSpec& k : w.springs) {
      o << fmt::format("  {}: stiffness {}, reference {}\n", k.joint,
                       k.stiffness, k.reference);
    }
  }
  if (!w.equalities.empty()) {
    o << "constraints (from the model files):\n";
    for (const EqualityConstraintSpec& e : w.equalities) {
      o << fmt::format(
          "  {} ({}): {} - {}\n", e.name,
          e.type == EqualityConstraintSpec::Type::kPoint ? "point" : "weld",
          e.body1, e.body2);
    }
  }
  o << "sensors:\n";
  if (s.sensors.empty() && w.mjcf_sensors.empty()) o << "  (none)\n";
  for (const SensorSpec& k : s.sensors) {
    o << fmt::format("  {} ({})\n", k.name, k.type);
  }
  for (const MjcfSensor& k : w.mjcf_sensors) {
    o << fmt::format("  {} (MJCF {} on {})\n", k.name, k.type, k.target);
  }
  o << fmt::format(
      "contact: {} collision geometries (compliant, k = {} N/m, "
      "mu = {}){}\n",
      w.geometry.num_geometries(), s.plant.contact.stiffness,
      s.plant.contact.friction, s.ground.enabled ? ", ground plane" : "");
  for (const std::string& warning : w.warnings) {
    o << "warning: " << warning << "\n";
  }
  return o.str();
}

namespace {

// The samples of every sink, as one table.
RunLog CollectLog(const Scenario& s, const World& w, const Diagram_& d,
                  const Context<double>& context) {
  RunLog out;
  std::size_t n = 0;
  for (std::size_t k = 0; k < d.logs.size(); ++k) {
    const VectorLog<double>& log = d.logs[k].sink->GetLog(context);
    if (k == 0) {
      n = static_cast<std::size_t>(log.num_samples());
      out.times.assign(log.sample_times().data(),
                       log.sample_times().data() + n);
      out.rows.assign(n, {});
    }
    if (k < s.log.signals.size() && s.log.signals[k] == "state") {
      out.q_offset = static_cast<int>(out.columns.size());
      out.num_q = w.tree.num_positions();
    }
    const auto data = log.data();
    for (std::size_t i = 0;
         i < n && i < static_cast<std::size_t>(log.num_samples()); ++i) {
      for (Eigen::Index j = 0; j < data.rows(); ++j) {
        out.rows[i].push_back(data(j, static_cast<Eigen::Index>(i)));
      }
    }
    for (const std::string& c : d.logs[k].columns) out.columns.push_back(c);
  }
  return out;
}

// Puts the checkpoint's time and state into the simulator's context (before
// Initialize). Every count is checked against the diagram first; the
// plant checks its memory (TimeSteppingRigidBodySystem::RestoreState).
void RestoreState(const Checkpoint& c, const Diagram_& d,
                  Context<double>* context) {
  const std::string& path = c.path;
  if (c.xc.size() != context->num_continuous_states()) {
    throw std::runtime_error(fmt::format(
        "{}: xc has {} numbers, this scenario's diagram has {} continuous "
        "states",
        path, c.xc.size(), context->num_continuous_states()));
  }
  if (static_cast<int>(c.xd.size()) != context->num_discrete_state_groups()) {
    throw std::runtime_error(
        fmt::format("{}: xd has {} groups, this scenario's diagram has {}",
                    path, c.xd.size(), context->num_discrete_state_groups()));
  }
  for (int g = 0; g < context->num_discrete_state_groups(); ++g) {
    if (c.xd[g].size() != context->get_discrete_state(g).size()) {
      throw std::runtime_error(fmt::format(
          "{}: xd group {} has {} numbers, this scenario's diagram has {}",
          path, g, c.xd[g].size(), context->get_discrete_state(g).size()));
    }
  }
  if (d.time_stepping == nullptr && !c.memory.empty()) {
    throw std::runtime_error(
        fmt::format("{}: memory has {} numbers, the continuous plant has none",
                    path, c.memory.size()));
  }
  context->SetTime(c.time);
  context->SetContinuousState(c.xc);
  for (int g = 0; g < context->num_discrete_state_groups(); ++g) {
    context->SetDiscreteState(g, c.xd[g]);
  }
  if (d.time_stepping != nullptr) {
    // Its discrete groups are set (they are the diagram's); the memory
    // follows, checked against the plant.
    Context<double>& plant = context->get_mutable_subcontext(0);
    TimeSteppingSavedState state = d.time_stepping->SaveState(plant);
    state.memory = c.memory;
    try {
      d.time_stepping->RestoreState(state, &plant);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
    }
  }
}

// Puts the checkpoint's log into the simulator's context and its clamp
// counters into the limiters (after Initialize, whose publish at the resume
// time it replaces).
void Restore(const Checkpoint& c, const Diagram_& d, Context<double>* context) {
  std::size_t counters = 0;
  for (const Diagram_::Limiter& l : d.limiters) {
    counters += l.clamped_steps->size();
  }
  if (c.clamped.size() != counters) {
    throw std::runtime_error(fmt::format(
        "{}: clamped has {} counters, this scenario's controllers have {}",
        c.path, c.clamped.size(), counters));
  }
  auto next = c.clamped.begin();
  for (const Diagram_::Limiter& l : d.limiters) {
    for (long long& n : *l.clamped_steps) n = *next++;
  }
  std::size_t offset = 0;
  for (const auto& log : d.logs) {
    VectorLog<double>& out = log.sink->GetMutableLog(context);
    out.Clear();
    const std::size_t m = log.columns.size();
    Eigen::VectorXd sample(static_cast<Eigen::Index>(m));
    for (std::size_t i = 0; i < c.log.times.size(); ++i) {
      if (c.log.rows[i].size() < offset + m) {
        throw std::runtime_error(fmt::format(
            "{}: log sample {} has {} columns, this scenario's signals need "
            "{}",
            c.path, i, c.log.rows[i].size(), offset + m));
      }
      for (std::size_t j = 0; j < m; ++j) {
        sample[static_cast<Eigen::Index>(j)] = c.log.rows[i][offset + j];
      }
      out.AddData(c.log.times[i], sample);
    }
    offset += m;
  }
}

}  // namespace

RunLog RunScenario(const Scenario& s, const World& w, const RunOptions& opt,
                   RunStatistics* stats) {
  Diagram_ d = BuildDiagram(s, w, true);
#ifdef TERN_CLI_WITH_LCM
  if (d.lcm != nullptr && s.lcm.lockstep) {
    // UDP drops what is sent before the peer listens: wait for its
    // LcmSystemServer to announce itself (docs/signals.md).
    WaitForLcmPeer(d.lcm.get(), s.lcm.subscribe[0], s.lcm.timeout);
  }
#endif
  auto sim = std::make_unique<Simulator<double>>(*d.diagram);
  SetIntegrator(s, sim.get());
  Context<double>& context = sim->get_mutable_context();
  // A checkpoint holds the plant's abstract state (the time-stepping
  // plant's warm-start memory) and no other.
  const int plant_abstract = d.time_stepping != nullptr ? 1 : 0;
  if ((opt.checkpoint_every > 0 || opt.resume != nullptr) &&
      context.num_abstract_states() != plant_abstract) {
    throw std::runtime_error(fmt::format(
        "{}: checkpoints cannot save this diagram: it has {} abstract states "
        "where the plant has {}",
        s.source_file, context.num_abstract_states(), plant_abstract));
  }
  const int num_samples = LogSamples(s);
  for (const auto& log : d.logs) {
    log.sink->GetMutableLog(&context).Reserve(num_samples);
  }
  if (opt.realtime_rate > 0) sim->set_target_realtime_rate(opt.realtime_rate);
  if (opt.stop != nullptr || opt.progress) {
    sim->set_monitor([&opt](const Context<double>& c) {
      if (opt.progress) opt.progress(c.get_time());
      if (opt.stop != nullptr && opt.stop->load()) {
        return EventStatus::ReachedTermination("interrupted");
      }
      return EventStatus::Succeeded();
    });
  }
  bool interrupted = false;
  int first_chunk = 1;
  if (opt.resume != nullptr) {
    // A Checkpoint may come from elsewhere than ReadCheckpoint: its chunk
    // and time are checked here too (chunks_done + 1 must not overflow).
    if (opt.resume->chunks_done < 1 || opt.resume->chunks_done >= kRunChunks) {
      throw std::runtime_error(
          fmt::format("{}: chunks_done {} is not in [1, {}]", opt.resume->path,
                      opt.resume->chunks_done, kRunChunks - 1));
    }
    CheckTime(opt.resume->path, *opt.resume, s);
    RestoreState(*opt.resume, d, &context);
    first_chunk = opt.resume->chunks_done + 1;
  }
  const auto start = std::chrono::steady_clock::now();
  sim->Initialize();
  if (opt.resume != nullptr) Restore(*opt.resume, d, &context);
  const bool reset_each_chunk =
      opt.checkpoint_every > 0 || opt.resume != nullptr;
  double next_checkpoint =
      opt.checkpoint_every > 0
          ? opt.checkpoint_every *
                (std::floor(context.get_time() / opt.checkpoint_every) + 1)
          : std::numeric_limits<double>::infinity();
  for (int k = first_chunk; k <= kRunChunks; ++k) {
    const double t = k == kRunChunks ? s.duration : s.duration * k / kRunChunks;
    const SimulatorStatus status = sim->AdvanceTo(t);
    if (status.reason == SimulatorStatus::kReachedTerminationCondition) {
      interrupted = true;
      break;
    }
    if (reset_each_chunk) sim->get_mutable_integrator().Reset();
    if (opt.progress) opt.progress(t);
    if (k < kRunChunks && t >= next_checkpoint * (1 - 1e-12)) {
      Checkpoint c;
      c.version = kVersion;
      c.scenario_hash = ScenarioHash(s);
      c.plant = s.plant.kind;
      c.chunks_done = k;
      c.time = context.get_time();
      c.xc = context.get_continuous_state_vector();
      for (int g = 0; g < context.num_discrete_state_groups(); ++g) {
        c.xd.push_back(context.get_discrete_state(g));
      }
      if (d.time_stepping != nullptr) {
        c.memory = d.time_stepping->SaveState(context.get_subcontext(0)).memory;
      }
      for (const Diagram_::Limiter& l : d.limiters) {
        c.clamped.insert(c.clamped.end(), l.clamped_steps->begin(),
                         l.clamped_steps->end());
      }
      c.log = CollectLog(s, w, d, context);
      WriteCheckpoint(
          (std::filesystem::path(opt.checkpoint_dir) /
           fmt::format("checkpoint-{}s.tck", fmt::format("{:.6g}", t)))
              .string(),
          c);
      while (next_checkpoint <= t * (1 + 1e-12)) {
        next_checkpoint += opt.checkpoint_every;
      }
    }
  }
  const auto end = std::chrono::steady_clock::now();
  if (stats != nullptr) {
    stats->wall_seconds = std::chrono::duration<double>(end - start).count();
    stats->steps = sim->get_statistics().steps;
    stats->derivative_evaluations =
        sim->get_statistics().derivative_evaluations;
  }
  RunLog out = CollectLog(s, w, d, context);
  out.interrupted = interrupted;
  out.end_time = context.get_time();
  out.steps = sim->get_statistics().steps;
  if (d.time_stepping != nullptr) {
    out.unconverged_islands =
        d.time_stepping->GetStepStats(context.get_subcontext(0)).warnings;
  }
  for (const Diagram_::Limiter& l : d.limiters) {
    for (std::size_t j = 0; j < l.joints.size(); ++j) {
      out.clamped.push_back({l.kind, l.controller, l.joints[j], l.limits[j],
                             (*l.clamped_steps)[j], l.clamped_steps->back()});
    }
  }
  return out;
}

std::vector<std::string> RunLog::Notes() const {
  std::vector<std::string> notes;
  if (interrupted) {
    notes.push_back(fmt::format(
        "interrupted at t = {:.6g} s: the log and report are partial",
        end_time));
  }
  if (unconverged_islands > 0) {
    notes.push_back(fmt::format(
        "the time-stepping solver did not converge on {} islands up to t "
        "= {:.6g} s and kept their last iterates (plant.time_stepping."
        "on_nonconvergence: warn): those steps are not answers to the "
        "tolerance",
        unconverged_islands, end_time));
  }
  for (const Clamped& c : clamped) {
    if (c.steps == 0) continue;
    if (!c.kind.empty()) {
      notes.push_back(fmt::format(
          "MJCF actuator '{}': its {} clamped the {} in {} of {} steps "
          "({:.1f}%), as MuJoCo's law does; the log shows the ctrl",
          c.joint, c.kind, c.kind == "ctrlrange" ? "ctrl" : "force", c.steps,
          c.of_steps, c.of_steps > 0 ? 100.0 * c.steps / c.of_steps : 0.0));
      continue;
    }
    notes.push_back(fmt::format(
        "controller '{}', joint '{}': the effort limit {:g} clamped the "
        "command in {} of {} steps ({:.1f}%); the log shows the clamped "
        "effort (override with effort_limits)",
        c.controller, c.joint, c.limit, c.steps, c.of_steps,
        c.of_steps > 0 ? 100.0 * c.steps / c.of_steps : 0.0));
  }
  return notes;
}

std::vector<RandomSimulationResult> RunMonteCarlo(
    const Scenario& scenario, const MonteCarloRunner& runner) {
  const MonteCarloSpec& mc = scenario.monte_carlo;
  // Each sample draws its varied values from its own generator and builds
  // its own world and diagram (a varied mass or stiffness changes the model,
  // not only the context).
  const SimulatorFactory factory = [&scenario](RandomGenerator* generator) {
    Scenario s = scenario;
    std::map<std::string, double> mass_scale;
    for (const auto& [key, dist] : scenario.monte_carlo.vary) {
      const double x = Draw(dist, generator);
      const std::string pos = "initial_state.positions.";
      const std::string vel = "initial_state.velocities.";
      if (key.rfind(pos, 0) == 0) {
        s.initial_positions[key.substr(pos.size())] = x;
      } else if (key.rfind(vel, 0) == 0) {
        s.initial_velocities[key.substr(vel.size())] = x;
      } else if (key == "contact.stiffness") {
        s.plant.contact.stiffness = x;
      } else if (key == "contact.dissipation") {
        s.plant.contact.dissipation = x;
      } else if (key == "contact.friction") {
        s.plant.contact.friction = x;
      } else {
        mass_scale[key.substr(5)] = x;
      }
    }
    World w = BuildWorld(s);
    if (!mass_scale.empty()) {
      // The tree is immutable: scaled through the one tree-editing function
      // (CopyBodies), which keeps frames and mimic constraints.
      try {
        w.tree = ScaleBodyMasses(w.tree, mass_scale);
      } catch (const std::invalid_argument& e) {
        throw ScenarioError(fmt::format("{}: monte_carlo.vary: {}",
                                        scenario.source_file, e.what()));
      }
    }
    Diagram_ d = BuildDiagram(s, w, false);
    auto sim = std::make_unique<Simulator<double>>(
        std::unique_ptr<const System<double>>(std::move(d.diagram)));
    SetIntegrator(s, sim.get());
    return sim;
  };
  // The output column is a state entry of the plant (subsystem 0).
  const World nominal = BuildWorld(scenario);
  const std::vector<std::string> cols = StateColumns(nominal.tree);
  const int index = static_cast<int>(
      std::find(cols.begin(), cols.end(), mc.output) - cols.begin());
  // The time-stepping plant's [q; v] is its discrete group 0.
  const bool discrete = scenario.plant.kind == "time-stepping";
  const ScalarSystemFunction output =
      [index, discrete](const System<double>&, const Context<double>& c) {
        const Context<double>& plant = c.get_subcontext(0);
        return discrete ? plant.get_discrete_state(0)[index]
                        : plant.get_continuous_state_vector()[index];
      };
  RandomGenerator generator(scenario.seed);
  const MonteCarloRunner run =
      runner ? runner : MonteCarloRunner(MonteCarloSimulation);
  return run(factory, output, scenario.duration, mc.samples, &generator,
             mc.threads == 0 ? kNumThreadsAutomatic : mc.threads);
}

std::string LogCsv(const RunLog& log) {
  std::string text = "time";
  for (const std::string& c : log.columns) text += "," + c;
  text += "\n";
  for (std::size_t i = 0; i < log.times.size(); ++i) {
    // Shortest form that reads back to the same double.
    text += fmt::format("{}", log.times[i]);
    for (double x : log.rows[i]) text += fmt::format(",{}", x);
    text += "\n";
  }
  return text;
}

std::string MonteCarloCsv(const std::string& output,
                          const std::vector<RandomSimulationResult>& results) {
  std::string text = "sample,seed," + output + ",error\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    text += fmt::format("{},{},{},{}\n", i, results[i].seed, results[i].output,
                        results[i].error);
  }
  return text;
}

MonteCarloSummary SummarizeMonteCarlo(
    const std::vector<RandomSimulationResult>& results) {
  MonteCarloSummary s;
  s.samples = static_cast<int>(results.size());
  double sum = 0, sum2 = 0;
  for (const RandomSimulationResult& r : results) {
    if (!r.ok()) continue;
    sum += r.output;
    sum2 += r.output * r.output;
    ++s.ok;
  }
  s.mean = s.ok > 0 ? sum / s.ok : 0;
  const double var =
      s.ok > 1 ? (sum2 - s.ok * s.mean * s.mean) / (s.ok - 1) : 0;
  s.std_dev = std::sqrt(std::max(var, 0.0));
  return s;
}

}  // namespace tern::io
