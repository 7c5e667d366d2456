#include "tern/multibody/plant/mjcf_elements.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/multibody/plant/joint_lookup.h"

namespace tern {

template <typename T>
JointSpring<T>::JointSpring(const RigidBodyTree<T>& tree,
                            const std::vector<std::string>& joints,
                            const std::vector<double>& stiffness,
                            const std::vector<double>& reference,
                            std::string name)
    : Actuator<T>(name, tree, 0, 0, false), k_(stiffness), ref_(reference) {
  const std::string who = "JointSpring '" + name + "'";
  if (stiffness.size() != joints.size() || reference.size() != joints.size()) {
    throw std::invalid_argument(
        fmt::format("{}: {} joints but {} stiffnesses and {} references", who,
                    joints.size(), stiffness.size(), reference.size()));
  }
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const std::string& joint = joints[i];
    const RigidBody<T>& b = internal::FindSingleDofJoint(
        tree, who, joint, "a spring needs a single-dof joint");
    if (!(stiffness[i] >= 0) || !std::isfinite(stiffness[i]) ||
        !std::isfinite(reference[i])) {
      throw std::invalid_argument(fmt::format(
          "{}: joint '{}' has stiffness {} and reference {} (need a finite "
          "stiffness >= 0 and a finite reference)",
          who, joint, stiffness[i], reference[i]));
    }
    dofs_.push_back(b.velocity_start);
    qs_.push_back(b.position_start);
  }
}

template <typename T>
void JointSpring<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                          VectorX<T>* tau) const {
  tau->setZero();
  const VectorX<T>& q = *in.q;
  for (std::size_t i = 0; i < dofs_.size(); ++i) {
    (*tau)(dofs_[i]) = -k_[i] * (q(qs_[i]) - ref_[i]);
  }
}

std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeEqualityConstraints(const RigidBodyTree<double>& tree,
                        const std::vector<EqualityConstraintSpec>& specs,
                        BaumgarteGains gains) {
  std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>> out;
  for (const EqualityConstraintSpec& c : specs) {
    for (const std::string& b : {c.body1, c.body2}) {
      if (!tree.HasBody(b)) {
        throw std::invalid_argument(
            fmt::format("constraint '{}': no body '{}' in tree '{}'", c.name, b,
                        tree.name()));
      }
    }
    if (c.type == EqualityConstraintSpec::Type::kPoint) {
      out.push_back(std::make_shared<PointToPointConstraint<double>>(
          tree, c.body1, c.X_1F.p, c.body2, c.X_2G.p, gains, c.name));
    } else {
      out.push_back(std::make_shared<WeldConstraint<double>>(
          tree, c.body1, c.X_1F, c.body2, c.X_2G, gains, c.name));
    }
  }
  return out;
}

std::shared_ptr<const Actuator<double>> MakeJointSprings(
    const RigidBodyTree<double>& tree,
    const std::vector<JointSpringSpec>& specs, const std::string& name) {
  if (specs.empty()) return nullptr;
  std::vector<std::string> joints;
  std::vector<double> k, ref;
  for (const JointSpringSpec& s : specs) {
    joints.push_back(s.joint);
    k.push_back(s.stiffness);
    ref.push_back(s.reference);
  }
  return std::make_shared<JointSpring<double>>(tree, joints, k, ref, name);
}

std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeMjcfEqualityConstraints(const MjcfModel& model, BaumgarteGains gains) {
  return MakeEqualityConstraints(model.tree, ResolveMjcfEqualities(model),
                                 gains);
}

std::shared_ptr<const Actuator<double>> MakeMjcfJointSprings(
    const MjcfModel& model) {
  return MakeJointSprings(model.tree, model.springs);
}

// ---- MjcfActuators.
template <typename T>
MjcfActuators<T>::MjcfActuators(const RigidBodyTree<T>& tree,
                                const std::vector<MjcfActuator>& actuators,
                                std::string name)
    : Actuator<T>(name, tree, static_cast<int>(actuators.size()), 0, false),
      specs_(actuators) {
  for (const MjcfActuator& a : actuators) {
    const std::string who = fmt::format("MJCF actuator '{}'", a.name);
    const RigidBody<T>& b = internal::FindSingleDofJoint(
        tree, who, a.joint,
        "a motor or position actuator needs a hinge or slide joint");
    if (!std::isfinite(a.gear) || !std::isfinite(a.kp) || !(a.kp >= 0)) {
      throw std::invalid_argument(fmt::format(
          "{} on joint '{}': gear {} and kp {} (need finite values, kp >= 0)",
          who, a.joint, a.gear, a.kp));
    }
    if ((a.ctrl_limited && !(a.ctrl_lower <= a.ctrl_upper)) ||
        (a.force_limited && !(a.force_lower <= a.force_upper))) {
      throw std::invalid_argument(fmt::format(
          "{} on joint '{}': ctrlrange [{}, {}] or forcerange [{}, {}] is not "
          "ordered",
          who, a.joint, a.ctrl_lower, a.ctrl_upper, a.force_lower,
          a.force_upper));
    }
    dofs_.push_back(b.velocity_start);
    qs_.push_back(b.position_start);
  }
}

template <typename T>
T MjcfActuators<T>::Force(std::size_t k, const VectorX<T>& q, T c, int* cc,
                          int* fc) const {
  const MjcfActuator& a = specs_[k];
  *cc = *fc = 0;
  if (a.ctrl_limited) {
    if (c < a.ctrl_lower) c = a.ctrl_lower, *cc = 1;
    if (c > a.ctrl_upper) c = a.ctrl_upper, *cc = 1;
  }
  T f = c;
  if (a.kind == MjcfActuator::Kind::kPosition) {
    // gainprm kp, biasprm [0, -kp, 0], on actuator_length = gear q.
    f = a.kp * c - a.kp * (a.gear * q(qs_[k]));
  }
  if (a.force_limited) {
    if (f < a.force_lower) f = a.force_lower, *fc = 1;
    if (f > a.force_upper) f = a.force_upper, *fc = 1;
  }
  return f;
}

template <typename T>
void MjcfActuators<T>::CalcActuatorForces(const VectorX<T>& q, const T* ctrl,
                                          T* force, int* ctrl_clamped,
                                          int* force_clamped) const {
  for (std::size_t k = 0; k < specs_.size(); ++k) {
    int cc = 0, fc = 0;
    force[k] = Force(k, q, ctrl[k], &cc, &fc);
    if (ctrl_clamped != nullptr) ctrl_clamped[k] = cc;
    if (force_clamped != nullptr) force_clamped[k] = fc;
  }
}

template <typename T>
void MjcfActuators<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                            VectorX<T>* tau) const {
  tau->setZero();
  int cc = 0, fc = 0;
  for (std::size_t k = 0; k < specs_.size(); ++k) {
    // qfrc_actuator = moment * actuator_force, the moment being the gear.
    (*tau)(dofs_[k]) += specs_[k].gear * Force(k, *in.q, in.u[k], &cc, &fc);
  }
}

// ---- JointPositionSensor.
template <typename T>
JointPositionSensor<T>::JointPositionSensor(
    const RigidBodyTree<T>& tree, const std::vector<std::string>& joints,
    std::string name)
    : Sensor<T>(name, tree, static_cast<int>(joints.size()), false, false, 0) {
  for (const std::string& joint : joints) {
    qs_.push_back(internal::FindSingleDofJoint(
                      tree, "jointpos sensor '" + name + "'", joint,
                      "a jointpos sensor needs a hinge or slide joint")
                      .position_start);
  }
}

template <typename T>
void JointPositionSensor<T>::CalcOutput(const SensorInputs<T>& in, T* y) const {
  for (std::size_t i = 0; i < qs_.size(); ++i) y[i] = (*in.q)(qs_[i]);
}

// ---- FrameImuSensor.
namespace {

template <typename T>
const Frame<T>& FindSensorFrame(const RigidBodyTree<T>& tree,
                                const std::string& frame,
                                const std::string& name) {
  for (const Frame<T>& f : tree.frames()) {
    if (f.name == frame) return f;
  }
  throw std::invalid_argument(
      fmt::format("sensor '{}': no site or frame '{}' in tree '{}'", name,
                  frame, tree.name()));
}

}  // namespace

template <typename T>
FrameImuSensor<T>::FrameImuSensor(const RigidBodyTree<T>& tree,
                                  const std::string& frame, Kind kind,
                                  std::string name)
    : Sensor<T>(name, tree, 3, true, kind == Kind::kAccelerometer, 0) {
  const Frame<T>& f = FindSensorFrame(tree, frame, name);
  body_ = f.body;
  R_BF_ = f.X_BF.R;
  if (kind == Kind::kAccelerometer) {
    const RigidTransform<double> X_BF(ExtractValue(f.X_BF.R),
                                      ExtractValue(f.X_BF.p));
    imu_ = std::make_unique<Imu<T>>(tree, tree.body(f.body).name, X_BF, 0, 0,
                                    name);
  }
}

template <typename T>
void FrameImuSensor<T>::CalcOutput(const SensorInputs<T>& in, T* y) const {
  if (imu_ != nullptr) {
    T reading[6];
    imu_->CalcOutput(in, reading);
    for (int i = 0; i < 3; ++i) y[i] = reading[i];
    return;
  }
  // The gyro needs no acceleration (the Imu would ask the plant for vdot):
  // the body's angular velocity in B (cache.V), in F, as the Imu reads it.
  const Vector3<T> w_F =
      R_BF_.transpose() * in.cache->V[body_].template head<3>();
  for (int i = 0; i < 3; ++i) y[i] = w_F[i];
}

std::shared_ptr<const MjcfActuators<double>> MakeMjcfActuators(
    const RigidBodyTree<double>& tree,
    const std::vector<MjcfActuator>& actuators, const std::string& name) {
  if (actuators.empty()) return nullptr;
  return std::make_shared<MjcfActuators<double>>(tree, actuators, name);
}

int MjcfSensorSize(const MjcfSensor& sensor) {
  return sensor.type == "jointpos" ? 1 : 3;
}

std::vector<std::shared_ptr<const Sensor<double>>> MakeMjcfSensors(
    const RigidBodyTree<double>& tree, const std::vector<MjcfSensor>& sensors) {
  std::vector<std::shared_ptr<const Sensor<double>>> out;
  for (const MjcfSensor& s : sensors) {
    if (s.type == "jointpos") {
      out.push_back(std::make_shared<JointPositionSensor<double>>(
          tree, std::vector<std::string>{s.target}, s.name));
    } else if (s.type == "accelerometer" || s.type == "gyro") {
      out.push_back(std::make_shared<FrameImuSensor<double>>(
          tree, s.target,
          s.type == "gyro" ? FrameImuSensor<double>::Kind::kGyro
                           : FrameImuSensor<double>::Kind::kAccelerometer,
          s.name));
    } else {
      throw std::invalid_argument(
          fmt::format("MJCF sensor '{}': type <{}> is not supported (jointpos, "
                      "accelerometer, gyro)",
                      s.name, s.type));
    }
  }
  return out;
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(JointSpring)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(MjcfActuators)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(JointPositionSensor)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(FrameImuSensor)

}  // namespace tern
