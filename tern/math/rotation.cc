#include "tern/math/rotation.h"

#include "tern/common/default_scalars.h"

namespace tern {

template <typename T>
Vector4<T> RotationMatrixToQuaternion(const Matrix3<T>& R) {
  using std::sqrt;
  // Shepperd (1978): pick the largest of 4w^2, 4x^2, 4y^2, 4z^2 to divide by.
  const T trace = R(0, 0) + R(1, 1) + R(2, 2);
  Vector4<T> q;
  if (trace >= R(0, 0) && trace >= R(1, 1) && trace >= R(2, 2)) {
    const T s = sqrt(T(1) + trace) * T(2);  // 4w
    q << T(0.25) * s, (R(2, 1) - R(1, 2)) / s, (R(0, 2) - R(2, 0)) / s,
        (R(1, 0) - R(0, 1)) / s;
  } else if (R(0, 0) >= R(1, 1) && R(0, 0) >= R(2, 2)) {
    const T s = sqrt(T(1) + R(0, 0) - R(1, 1) - R(2, 2)) * T(2);  // 4x
    q << (R(2, 1) - R(1, 2)) / s, T(0.25) * s, (R(0, 1) + R(1, 0)) / s,
        (R(0, 2) + R(2, 0)) / s;
  } else if (R(1, 1) >= R(2, 2)) {
    const T s = sqrt(T(1) + R(1, 1) - R(0, 0) - R(2, 2)) * T(2);  // 4y
    q << (R(0, 2) - R(2, 0)) / s, (R(0, 1) + R(1, 0)) / s, T(0.25) * s,
        (R(1, 2) + R(2, 1)) / s;
  } else {
    const T s = sqrt(T(1) + R(2, 2) - R(0, 0) - R(1, 1)) * T(2);  // 4z
    q << (R(1, 0) - R(0, 1)) / s, (R(0, 2) + R(2, 0)) / s,
        (R(1, 2) + R(2, 1)) / s, T(0.25) * s;
  }
  if (q(0) < T(0)) q = -q;
  return q;
}

template <typename T>
Matrix3<T> RollPitchYawToRotationMatrix(const Vector3<T>& rpy) {
  using std::cos;
  using std::sin;
  const T cr = cos(rpy(0)), sr = sin(rpy(0));
  const T cp = cos(rpy(1)), sp = sin(rpy(1));
  const T cy = cos(rpy(2)), sy = sin(rpy(2));
  Matrix3<T> R;
  R << cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,  //
      sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,   //
      -sp, cp * sr, cp * cr;
  return R;
}

template <typename T>
Vector3<T> RotationMatrixToRollPitchYaw(const Matrix3<T>& R) {
  using std::atan2;
  using std::sqrt;
  // R(2,0) = -sin(pitch); cos(pitch) >= 0 on the chosen branch.
  const T cp = sqrt(R(0, 0) * R(0, 0) + R(1, 0) * R(1, 0));
  Vector3<T> rpy;
  rpy(1) = atan2(-R(2, 0), cp);
  if (cp > T(1e-12)) {
    rpy(0) = atan2(R(2, 1), R(2, 2));
    rpy(2) = atan2(R(1, 0), R(0, 0));
  } else {
    rpy(0) = T(0);
    rpy(2) = atan2(-R(0, 1), R(1, 1));
  }
  return rpy;
}

template <typename T>
Vector4<T> RollPitchYawToQuaternion(const Vector3<T>& rpy) {
  using std::cos;
  using std::sin;
  const T cr = cos(rpy(0) / 2), sr = sin(rpy(0) / 2);
  const T cp = cos(rpy(1) / 2), sp = sin(rpy(1) / 2);
  const T cy = cos(rpy(2) / 2), sy = sin(rpy(2) / 2);
  Vector4<T> q;
  q << cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
      cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy;
  return q;
}

template <typename T>
Vector3<T> QuaternionToRollPitchYaw(const Vector4<T>& q) {
  return RotationMatrixToRollPitchYaw<T>(QuaternionToRotationMatrix<T>(q));
}

template <typename T>
Vector4<T> AxisAngleToQuaternion(const Vector3<T>& axis, const T& angle) {
  using std::cos;
  using std::sin;
  const T s = sin(angle / 2);
  Vector4<T> q;
  q << cos(angle / 2), s * axis(0), s * axis(1), s * axis(2);
  return q;
}

#define TERN_INSTANTIATE_ROTATION(T)                                      \
  template Vector4<T> RotationMatrixToQuaternion<T>(const Matrix3<T>&);   \
  template Matrix3<T> RollPitchYawToRotationMatrix<T>(const Vector3<T>&); \
  template Vector3<T> RotationMatrixToRollPitchYaw<T>(const Matrix3<T>&); \
  template Vector4<T> RollPitchYawToQuaternion<T>(const Vector3<T>&);     \
  template Vector3<T> QuaternionToRollPitchYaw<T>(const Vector4<T>&);     \
  template Vector4<T> AxisAngleToQuaternion<T>(const Vector3<T>&, const T&);

TERN_INSTANTIATE_ROTATION(double)
TERN_INSTANTIATE_ROTATION(AutoDiffXd)

}  // namespace tern
