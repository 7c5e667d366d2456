#include "tern/multibody/plant/sensor.h"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

template <typename T>
Sensor<T>::Sensor(std::string name, const RigidBodyTree<T>& tree,
                  int num_outputs, bool needs_kinematics,
                  bool needs_acceleration, int num_noise)
    : name_(std::move(name)),
      num_outputs_(num_outputs),
      needs_kinematics_(needs_kinematics),
      needs_acceleration_(needs_acceleration),
      num_noise_(num_noise),
      nq_(tree.num_positions()),
      nv_(tree.num_velocities()) {}

template <typename T>
Sensor<T>::~Sensor() = default;

// ---- FullStateSensor.
template <typename T>
FullStateSensor<T>::FullStateSensor(const RigidBodyTree<T>& tree,
                                    std::string name)
    : Sensor<T>(std::move(name), tree,
                tree.num_positions() + tree.num_velocities(), false, false, 0) {
}

template <typename T>
void FullStateSensor<T>::CalcOutput(const SensorInputs<T>& in, T* y) const {
  const Eigen::Index nq = in.q->size();
  for (Eigen::Index i = 0; i < nq; ++i) y[i] = (*in.q)[i];
  for (Eigen::Index i = 0; i < in.v->size(); ++i) y[nq + i] = (*in.v)[i];
}

// ---- Encoder.
template <typename T>
Encoder<T>::Encoder(const RigidBodyTree<T>& tree,
                    const std::vector<std::string>& joints,
                    int ticks_per_revolution, std::string name)
    : Sensor<T>(name, tree, static_cast<int>(joints.size()), false, false, 0),
      ticks_per_radian_(ticks_per_revolution / (2 * std::numbers::pi)) {
  if (ticks_per_revolution <= 0) {
    throw std::invalid_argument(
        fmt::format("Encoder '{}': ticks_per_revolution must be > 0, got {}",
                    name, ticks_per_revolution));
  }
  if (joints.empty()) {
    throw std::invalid_argument(
        fmt::format("Encoder '{}': no joints given", name));
  }
  for (const std::string& joint : joints) {
    if (!tree.HasJoint(joint)) {
      throw std::invalid_argument(
          fmt::format("Encoder '{}': joint '{}' does not exist in tree '{}'",
                      name, joint, tree.name()));
    }
    const RigidBody<T>& b = tree.body(tree.FindJointBodyIndex(joint));
    if (b.num_positions != 1) {
      throw std::invalid_argument(fmt::format(
          "Encoder '{}': joint '{}' is {}; encoders read single-dof joints",
          name, joint, JointTypeName(b.joint.type)));
    }
    positions_.push_back(b.position_start);
  }
}

template <typename T>
void Encoder<T>::CalcOutput(const SensorInputs<T>& in, T* y) const {
  // Counts are integers: no derivative flows through them.
  const int n = static_cast<int>(positions_.size());
  for (int i = 0; i < n; ++i) {
    y[i] = T(std::floor(ExtractDoubleOrThrow((*in.q)[positions_[i]]) *
                        ticks_per_radian_));
  }
}

// ---- Imu.
template <typename T>
Imu<T>::Imu(const RigidBodyTree<T>& tree, const std::string& body,
            const RigidTransform<double>& X_BS, double accel_noise_stddev,
            double gyro_noise_stddev, std::string name)
    : Sensor<T>(name, tree, 6, true, true,
                (accel_noise_stddev > 0 || gyro_noise_stddev > 0) ? 6 : 0),
      X_BS_(X_BS.cast<T>()),
      accel_stddev_(accel_noise_stddev),
      gyro_stddev_(gyro_noise_stddev) {
  if (!tree.HasBody(body)) {
    throw std::invalid_argument(
        fmt::format("Imu '{}': body '{}' does not exist in tree '{}'", name,
                    body, tree.name()));
  }
  if (!(accel_noise_stddev >= 0) || !(gyro_noise_stddev >= 0) ||
      !std::isfinite(accel_noise_stddev) || !std::isfinite(gyro_noise_stddev)) {
    throw std::invalid_argument(fmt::format(
        "Imu '{}': noise deviations must be finite and >= 0, got {} and {}",
        name, accel_noise_stddev, gyro_noise_stddev));
  }
  frame_ = tree.FindFrameIndex(body);
}

template <typename T>
void Imu<T>::CalcOutput(const SensorInputs<T>& in, T* y) const {
  const RigidBodyTree<T>& tree = *in.tree;
  const KinematicsCache<T>& cache = *in.cache;
  const int body = tree.frame(frame_).body;
  // Acceleration of S's origin in world: J vdot + Jdot v (the classical
  // acceleration, RBDA sec. 2.11).
  WorldAlignedJacobian(tree, cache, frame_, X_BS_.p, in.J);
  const Vector6<T> Jdot_v =
      WorldAlignedJacobianDotTimesV(tree, cache, frame_, X_BS_.p);
  const Vector3<T> a_W =
      in.J->template bottomRows<3>() * (*in.vdot) + Jdot_v.template tail<3>();
  const Matrix3<T> R_WS = cache.X_WB[body].R * X_BS_.R;
  const Vector3<T> f_S = R_WS.transpose() * (a_W - tree.gravity());
  // Angular velocity: the body's, in B (cache.V), re-expressed in S.
  const Vector3<T> w_S = X_BS_.R.transpose() * cache.V[body].template head<3>();
  for (int i = 0; i < 3; ++i) {
    y[i] = f_S[i];
    y[3 + i] = w_S[i];
  }
  if (in.noise != nullptr) {
    for (int i = 0; i < 3; ++i) {
      y[i] += accel_stddev_ * in.noise[i];
      y[3 + i] += gyro_stddev_ * in.noise[3 + i];
    }
  }
}

// ---- ForceTorqueSensor.
template <typename T>
ForceTorqueSensor<T>::ForceTorqueSensor(const RigidBodyTree<T>& tree,
                                        const std::string& joint,
                                        std::string name)
    : Sensor<T>(name, tree, 6, true, true, 0) {
  if (!tree.HasJoint(joint)) {
    throw std::invalid_argument(fmt::format(
        "ForceTorqueSensor '{}': joint '{}' does not exist in tree '{}'", name,
        joint, tree.name()));
  }
  body_ = tree.FindJointBodyIndex(joint);
  // Bodies are stored parents first: a body is in the subtree if its
  // parent is.
  std::vector<char> in(tree.num_bodies(), 0);
  in[body_] = 1;
  subtree_.push_back(body_);
  for (int k = body_ + 1; k < tree.num_bodies(); ++k) {
    if (in[tree.body(k).parent]) {
      in[k] = 1;
      subtree_.push_back(k);
    }
  }
}

template <typename T>
void ForceTorqueSensor<T>::CalcOutput(const SensorInputs<T>& in, T* y) const {
  const RigidBodyTree<T>& tree = *in.tree;
  const KinematicsCache<T>& cache = *in.cache;
  SpatialForce<T> f_W = SpatialForce<T>::Zero();
  for (int k : subtree_) {
    const RigidTransform<T>& X_WK = cache.X_WB[k];
    // Spatial acceleration with gravity (RBDA's a_0 = -g trick), in K.
    SpatialMotion<T> a = cache.A[k];
    a.template tail<3>() -= X_WK.R.transpose() * tree.gravity();
    const SpatialInertia<T>& I = tree.body(k).inertia;
    const SpatialForce<T> f_K = I * a + CrossForce(cache.V[k], I * cache.V[k]);
    f_W += TransformForce(X_WK, f_K);
  }
  const SpatialForce<T> f_B = InverseTransformForce(cache.X_WB[body_], f_W);
  for (int i = 0; i < 6; ++i) y[i] = f_B[i];
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Sensor)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(FullStateSensor)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Encoder)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Imu)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(ForceTorqueSensor)

}  // namespace tern
