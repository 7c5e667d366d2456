#pragma once
// Sensors (seed 004): a reading computed from the state (and, for some, the
// accelerations and a noise sample). Like actuators (actuator.h), a sensor
// is written once, as the function CalcOutput of (tree, kinematics cache,
// q, v, vdot, noise) -> y, and used two ways with the same numbers:
//  - inside RigidBodySystem or TimeSteppingRigidBodySystem, as one output
//    port of the plant per sensor, computed with the plant's shared cache;
//  - wrapped by SensorSystem (sensor_system.h), a System of its own with a
//    "state" input [q; v] (plus "vdot" and "noise" inputs when the sensor
//    needs them) and a reading output "y".
//
// The interface, for both plants:
//  - Built against a RigidBodyTree, names resolved in the constructor
//    (std::invalid_argument naming the sensor and the missing name);
//    immutable afterwards, shareable between a plant and a wrapper.
//  - num_outputs(): size of the reading.
//  - needs_kinematics(): reads the cache after ForwardKinematics(q, v)
//    (ForwardKinematics(q, v, vdot) when it also needs_acceleration()).
//  - needs_acceleration(): reads vdot (nv), e.g. an accelerometer. In a
//    plant such an output depends on the actuator inputs (direct
//    feedthrough); a discrete-time plant passes (vn - v) / h.
//  - num_noise_inputs(): size of a random input port (standard normal
//    samples, RandomDistribution::kGaussian) that the sensor scales into its
//    noise; 0 means noise-free and no port. AddRandomInputs then feeds it,
//    so Monte Carlo runs are reproducible.
//  - MakeScratch(): as for actuators, a per-Context workspace or null.
//  - Sensors here have no state of their own; one with internal dynamics
//    (a filter) would add num_states and CalcStateDerivatives exactly as
//    Actuator does.
#include <memory>
#include <string>
#include <vector>

#include "tern/common/default_scalars.h"
#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/plant/actuator.h"

namespace tern {

// What a sensor reads at one evaluation (owned by the caller).
template <typename T>
struct SensorInputs {
  const RigidBodyTree<T>* tree{nullptr};
  // After ForwardKinematics(q, v) when the sensor needs_kinematics().
  const KinematicsCache<T>* cache{nullptr};
  const VectorX<T>* q{nullptr};     // (nq)
  const VectorX<T>* v{nullptr};     // (nv)
  const VectorX<T>* vdot{nullptr};  // (nv), only if needs_acceleration()
  const T* noise{nullptr};          // (num_noise_inputs), null if none
  Matrix6X<T>* J{nullptr};          // (6 x nv) scratch
  AbstractValue* scratch{nullptr};  // the sensor's MakeScratch(), or null
};

template <typename T>
class Sensor {
 public:
  virtual ~Sensor();
  Sensor(const Sensor&) = delete;
  Sensor& operator=(const Sensor&) = delete;

  const std::string& name() const { return name_; }
  int num_outputs() const { return num_outputs_; }
  bool needs_kinematics() const { return needs_kinematics_; }
  bool needs_acceleration() const { return needs_acceleration_; }
  int num_noise_inputs() const { return num_noise_; }
  int num_positions() const { return nq_; }
  int num_velocities() const { return nv_; }

  // y (num_outputs).
  virtual void CalcOutput(const SensorInputs<T>& in, T* y) const = 0;
  // A fresh per-Context workspace (e.g. for ray casts), or null.
  virtual std::unique_ptr<AbstractValue> MakeScratch() const { return nullptr; }

 protected:
  Sensor(std::string name, const RigidBodyTree<T>& tree, int num_outputs,
         bool needs_kinematics, bool needs_acceleration, int num_noise);

 private:
  std::string name_;
  int num_outputs_;
  bool needs_kinematics_;
  bool needs_acceleration_;
  int num_noise_;
  int nq_;
  int nv_;
};

// The whole state y = [q; v] (nq + nv).
template <typename T>
class FullStateSensor final : public Sensor<T> {
 public:
  explicit FullStateSensor(const RigidBodyTree<T>& tree,
                           std::string name = "full_state");
  void CalcOutput(const SensorInputs<T>& in, T* y) const override;
};

// Incremental encoders on single-dof joints: y_i = floor(q_i N / (2 pi))
// counts, N = ticks_per_revolution (> 0). Throws naming the sensor and joint
// if a joint is missing or has not exactly one dof.
template <typename T>
class Encoder final : public Sensor<T> {
 public:
  Encoder(const RigidBodyTree<T>& tree, const std::vector<std::string>& joints,
          int ticks_per_revolution, std::string name = "encoder");
  void CalcOutput(const SensorInputs<T>& in, T* y) const override;

 private:
  std::vector<int> positions_;  // position index of each joint
  double ticks_per_radian_;
};

// An inertial measurement unit fixed in body `body` at pose X_BS. Output 6:
// [specific force (3), m/s^2; angular velocity (3), rad/s], both in the
// sensor frame S. The specific force is the acceleration of S's origin
// minus gravity, so an IMU at rest reads +g along the up axis. With
// accel_noise_stddev or gyro_noise_stddev > 0 the sensor has a 6-entry
// Gaussian noise input scaled by the deviations (m/s^2, rad/s), added to
// the reading.
template <typename T>
class Imu final : public Sensor<T> {
 public:
  Imu(const RigidBodyTree<T>& tree, const std::string& body,
      const RigidTransform<double>& X_BS, double accel_noise_stddev = 0,
      double gyro_noise_stddev = 0, std::string name = "imu");
  void CalcOutput(const SensorInputs<T>& in, T* y) const override;

 private:
  int frame_;
  RigidTransform<T> X_BS_;
  double accel_stddev_, gyro_stddev_;
};

// A six-axis force-torque sensor in the joint of body `child` (named by the
// joint): the wrench the parent exerts on the child through the joint,
// [torque (3), N m, about the child frame's origin; force (3), N], in the
// child body frame. It is computed from the motion of the child's subtree
// (Newton-Euler, RBDA sec. 5.3: sum over the subtree of I a + v x* I v
// with gravity), so it includes the joint's actuation and friction, and
// S^T of it is the net joint torque. It does not see wrenches applied
// inside the subtree by actuators that act on bodies (SpatialForceActuator,
// springs, drag, propellers) or by constraints: the plant passes those as
// generalized forces. Throws naming the sensor if the joint is missing.
template <typename T>
class ForceTorqueSensor final : public Sensor<T> {
 public:
  ForceTorqueSensor(const RigidBodyTree<T>& tree, const std::string& joint,
                    std::string name = "force_torque");
  void CalcOutput(const SensorInputs<T>& in, T* y) const override;

 private:
  int body_;                  // the child body of the joint
  std::vector<int> subtree_;  // body_ and its descendants
};

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(Sensor)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(FullStateSensor)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(Encoder)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(Imu)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(ForceTorqueSensor)

}  // namespace tern
