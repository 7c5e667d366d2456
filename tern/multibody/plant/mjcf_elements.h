#pragma once
// The parts of a model file that are plant elements rather than tree
// (tern/multibody/parsing/model_elements.h): equality constraints (MJCF
// <equality> connect and weld) become bilateral constraints, joint springs
// (MJCF joint stiffness, SDFormat <spring_stiffness>) one JointSpring, MJCF
// <motor> and <position> actuators one MjcfActuators with a `ctrl` input,
// MJCF <jointpos>, <accelerometer> and <gyro> sensors one Sensor each. They
// live here, above the parsers, because the parsers do not know the plants.
// MakeEqualityConstraints and MakeJointSprings build them from the
// descriptions on any tree holding the named bodies and joints: the model's
// own, or a world the model was copied into (tern/io's scenarios map the
// names through tern/multibody/scene).
// The same constraint list serves both plants: RigidBodySystem takes it as
// its `constraints`, TimeSteppingRigidBodySystem as its `bilateral` list
// (rows J vn = -erp phi / h), as URDF mimic joints reach both plants.
#include <memory>
#include <string>
#include <vector>

#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/parsing/model_elements.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/continuous_time_constraint_force.h"
#include "tern/multibody/plant/sensor.h"

namespace tern {

// Passive joint springs (MuJoCo's joint stiffness): on each single-dof
// joint i, tau_i = -k_i (q_i - q_ref,i), N m or N. No input, no state.
// Throws std::invalid_argument naming the element and joint if a joint is
// missing or has not exactly one dof, a stiffness is negative or a value
// is not finite, or the sizes differ.
template <typename T>
class JointSpring final : public Actuator<T> {
 public:
  JointSpring(const RigidBodyTree<T>& tree,
              const std::vector<std::string>& joints,
              const std::vector<double>& stiffness,  // N m/rad or N/m
              const std::vector<double>& reference,  // rad or m
              std::string name = "joint_springs");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;

 private:
  std::vector<int> dofs_, qs_;  // velocity and position index of each joint
  std::vector<double> k_, ref_;
};

// One constraint per spec, on `tree`, named after the spec: kPoint a
// PointToPointConstraint between the origins of F and G, kWeld a
// WeldConstraint between F and G. Throws std::invalid_argument naming the
// constraint and body if a body is not in `tree`.
std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeEqualityConstraints(const RigidBodyTree<double>& tree,
                        const std::vector<EqualityConstraintSpec>& specs,
                        BaumgarteGains gains = {});

// One JointSpring over every spec, on `tree`, or null if `specs` is empty.
// Throws as JointSpring does.
std::shared_ptr<const Actuator<double>> MakeJointSprings(
    const RigidBodyTree<double>& tree,
    const std::vector<JointSpringSpec>& specs,
    const std::string& name = "joint_springs");

// The active <equality> connect and weld constraints of `model`, on
// model.tree, in file order (ResolveMjcfEqualities, then
// MakeEqualityConstraints). connect: PointToPointConstraint between body1's
// anchor and the point of body2 that coincides with it in qpos0. weld:
// WeldConstraint keeping body2's pose in body1 at relpose (or at its value
// in qpos0), measured at the anchor (a point of body2). Equalities with
// active="false" are left out (MuJoCo starts them disabled).
std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeMjcfEqualityConstraints(const MjcfModel& model, BaumgarteGains gains = {});

// MakeJointSprings(model.tree, model.springs).
std::shared_ptr<const Actuator<double>> MakeMjcfJointSprings(
    const MjcfModel& model);

// MuJoCo 2.2.2's <motor> and <position> actuators with joint transmission
// (https://mujoco.readthedocs.io/en/2.2.2/computation.html#actuation-model
// and XMLreference.html#actuator): one input `ctrl` (num_inputs = number
// of actuators, file order). Actuator k on single-dof joint j with gear g:
//   c     = clamp(ctrl_k, ctrlrange)              when ctrllimited
//   l     = g q_j                                 (actuator_length)
//   f     = c                                     (motor: gain 1, no bias)
//   f     = kp c - kp l = kp (c - g q_j)          (position: gainprm kp,
//                                                  biasprm [0, -kp, 0])
//   f     = clamp(f, forcerange)                  when forcelimited
//   tau_j += g f                                  (qfrc_actuator = moment f)
// so a position servo with gear 1 is kp (ctrl - q), and with gear g pulls
// q to ctrl / g. Several actuators on one joint add. No state; the law is
// explicit on both plants (as MuJoCo's Euler integrator applies it).
// A clamp is part of MuJoCo's law, so it is applied silently here; callers
// that report it (tern/io's scenarios count the clamped steps) read
// CalcActuatorForces' flags. Throws std::invalid_argument naming the
// actuator and joint if a joint is missing or has not exactly one dof, a
// gear or kp is not finite (kp < 0), or a range is not ordered.
template <typename T>
class MjcfActuators final : public Actuator<T> {
 public:
  MjcfActuators(const RigidBodyTree<T>& tree,
                const std::vector<MjcfActuator>& actuators,
                std::string name = "mjcf_actuators");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;
  // MuJoCo's actuator_force (num_inputs) at positions q (nq; a longer
  // vector starting with q, such as [q; v], serves) and command
  // ctrl (num_inputs), after the clamps; ctrl_clamped and force_clamped
  // (num_inputs, 1 where that clamp acted, else 0) may be null.
  void CalcActuatorForces(const VectorX<T>& q, const T* ctrl, T* force,
                          int* ctrl_clamped, int* force_clamped) const;
  // The descriptions, in input order.
  const std::vector<MjcfActuator>& actuators() const { return specs_; }

 private:
  // Actuator k's force at command c (the one law), with its clamp flags.
  T Force(std::size_t k, const VectorX<T>& q, T c, int* ctrl_clamped,
          int* force_clamped) const;
  std::vector<MjcfActuator> specs_;
  std::vector<int> dofs_, qs_;  // velocity and position index of each
};

// MuJoCo's <jointpos> on single-dof joints: y_i = q_j(i) exactly (rad or
// m), one output per joint. Throws naming the sensor and joint as
// JointSpring does.
template <typename T>
class JointPositionSensor final : public Sensor<T> {
 public:
  JointPositionSensor(const RigidBodyTree<T>& tree,
                      const std::vector<std::string>& joints,
                      std::string name = "jointpos");
  void CalcOutput(const SensorInputs<T>& in, T* y) const override;

 private:
  std::vector<int> qs_;  // position index of each joint
};

// Half of an Imu (sensor.h) at a frame F of the tree (an MJCF <site>):
// kAccelerometer reads the specific force of F's origin in F, a_F - g
// (m/s^2; MuJoCo's <accelerometer> likewise includes -gravity, so a sensor
// at rest reads +9.81 along up), kGyro the angular velocity of F's body in
// F (rad/s). Output 3. The accelerometer is the Imu at F's body with
// X_BS = X_BF (one code path); the gyro reads the body's angular velocity
// as the Imu does, without asking the plant for vdot. Throws naming the
// sensor if the frame is missing.
template <typename T>
class FrameImuSensor final : public Sensor<T> {
 public:
  enum class Kind { kAccelerometer, kGyro };
  FrameImuSensor(const RigidBodyTree<T>& tree, const std::string& frame,
                 Kind kind, std::string name);
  void CalcOutput(const SensorInputs<T>& in, T* y) const override;

 private:
  std::unique_ptr<Imu<T>> imu_;  // the accelerometer's; null for a gyro
  int body_;                     // F's body
  Matrix3<T> R_BF_;
};

// One MjcfActuators over `actuators` on `tree` (named joints; a world's
// prefixed names once the specs are mapped), or null if empty.
std::shared_ptr<const MjcfActuators<double>> MakeMjcfActuators(
    const RigidBodyTree<double>& tree,
    const std::vector<MjcfActuator>& actuators,
    const std::string& name = "mjcf_actuators");

// One sensor per spec, named after it, in file order: jointpos a
// JointPositionSensor on its joint, accelerometer and gyro a FrameImuSensor
// at the site's frame. The noise attribute is not applied (MuJoCo 2.2.2
// does not apply it either: it is metadata for the user). Throws
// std::invalid_argument naming the sensor and its joint or site if it is
// not in `tree`, and an unknown type.
std::vector<std::shared_ptr<const Sensor<double>>> MakeMjcfSensors(
    const RigidBodyTree<double>& tree, const std::vector<MjcfSensor>& sensors);

// The width of a sensor's reading (jointpos 1, accelerometer and gyro 3).
int MjcfSensorSize(const MjcfSensor& sensor);

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(JointSpring)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(MjcfActuators)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(JointPositionSensor)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(FrameImuSensor)

}  // namespace tern
