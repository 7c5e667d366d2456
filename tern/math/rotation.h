#pragma once
// Rotations: unit quaternions (stored as Vector4 [w, x, y, z]), rotation
// matrices and roll-pitch-yaw angles (URDF convention: R = Rz(yaw) Ry(pitch)
// Rx(roll), extrinsic rotations about fixed x, y, z), with conversions.
// The tiny conversions used in inner loops of the rigid-body algorithms are
// inline; the rest are instantiated for double and AutoDiffXd in rotation.cc.
#include <cmath>

#include "tern/common/eigen_types.h"

namespace tern {

// The cross-product matrix [w]x such that [w]x u = w x u.
template <typename T>
inline Matrix3<T> Skew(const Vector3<T>& w) {
  Matrix3<T> S;
  S << T(0), -w(2), w(1), w(2), T(0), -w(0), -w(1), w(0), T(0);
  return S;
}

// Rotation matrix of a unit quaternion q = [w, x, y, z] (not renormalized).
template <typename T>
inline Matrix3<T> QuaternionToRotationMatrix(const Vector4<T>& q) {
  const T w = q(0), x = q(1), y = q(2), z = q(3);
  const T xx = x * x, yy = y * y, zz = z * z;
  const T xy = x * y, xz = x * z, yz = y * z;
  const T wx = w * x, wy = w * y, wz = w * z;
  Matrix3<T> R;
  R(0, 0) = T(1) - T(2) * (yy + zz);
  R(0, 1) = T(2) * (xy - wz);
  R(0, 2) = T(2) * (xz + wy);
  R(1, 0) = T(2) * (xy + wz);
  R(1, 1) = T(1) - T(2) * (xx + zz);
  R(1, 2) = T(2) * (yz - wx);
  R(2, 0) = T(2) * (xz - wy);
  R(2, 1) = T(2) * (yz + wx);
  R(2, 2) = T(1) - T(2) * (xx + yy);
  return R;
}

// Rotation by `angle` (rad) about the unit vector `axis` (Rodrigues' formula).
template <typename T>
inline Matrix3<T> AxisAngleToRotationMatrix(const Vector3<T>& axis,
                                            const T& angle) {
  using std::cos;
  using std::sin;
  const T s = sin(angle), c = cos(angle), t = T(1) - c;
  const T x = axis(0), y = axis(1), z = axis(2);
  Matrix3<T> R;
  R(0, 0) = t * x * x + c;
  R(0, 1) = t * x * y - s * z;
  R(0, 2) = t * x * z + s * y;
  R(1, 0) = t * x * y + s * z;
  R(1, 1) = t * y * y + c;
  R(1, 2) = t * y * z - s * x;
  R(2, 0) = t * x * z - s * y;
  R(2, 1) = t * y * z + s * x;
  R(2, 2) = t * z * z + c;
  return R;
}

// Hamilton product a * b of quaternions [w, x, y, z].
template <typename T>
inline Vector4<T> QuaternionMultiply(const Vector4<T>& a, const Vector4<T>& b) {
  Vector4<T> r;
  r(0) = a(0) * b(0) - a(1) * b(1) - a(2) * b(2) - a(3) * b(3);
  r(1) = a(0) * b(1) + a(1) * b(0) + a(2) * b(3) - a(3) * b(2);
  r(2) = a(0) * b(2) - a(1) * b(3) + a(2) * b(0) + a(3) * b(1);
  r(3) = a(0) * b(3) + a(1) * b(2) - a(2) * b(1) + a(3) * b(0);
  return r;
}

// Unit quaternion [w, x, y, z] of a rotation matrix (Shepperd's method), with
// w >= 0.
template <typename T>
Vector4<T> RotationMatrixToQuaternion(const Matrix3<T>& R);

// R = Rz(rpy(2)) * Ry(rpy(1)) * Rx(rpy(0)).
template <typename T>
Matrix3<T> RollPitchYawToRotationMatrix(const Vector3<T>& rpy);

// Roll-pitch-yaw angles with pitch in [-pi/2, pi/2], roll and yaw in
// (-pi, pi]. At pitch = +-pi/2 (gimbal lock) roll is set to zero.
template <typename T>
Vector3<T> RotationMatrixToRollPitchYaw(const Matrix3<T>& R);

template <typename T>
Vector4<T> RollPitchYawToQuaternion(const Vector3<T>& rpy);

template <typename T>
Vector3<T> QuaternionToRollPitchYaw(const Vector4<T>& q);

// Rotation of `angle` about `axis` as a unit quaternion; axis must be unit.
template <typename T>
Vector4<T> AxisAngleToQuaternion(const Vector3<T>& axis, const T& angle);

}  // namespace tern
