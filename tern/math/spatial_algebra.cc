#include "tern/math/spatial_algebra.h"

#include "tern/common/default_scalars.h"

namespace tern {

template <typename T>
Matrix6<T> MotionTransformMatrix(const RigidTransform<T>& X_AB) {
  Matrix6<T> X = Matrix6<T>::Zero();
  X.template topLeftCorner<3, 3>() = X_AB.R;
  X.template bottomRightCorner<3, 3>() = X_AB.R;
  X.template bottomLeftCorner<3, 3>() = Skew<T>(X_AB.p) * X_AB.R;
  return X;
}

template <typename T>
Matrix6<T> ForceTransformMatrix(const RigidTransform<T>& X_AB) {
  Matrix6<T> X = Matrix6<T>::Zero();
  X.template topLeftCorner<3, 3>() = X_AB.R;
  X.template bottomRightCorner<3, 3>() = X_AB.R;
  X.template topRightCorner<3, 3>() = Skew<T>(X_AB.p) * X_AB.R;
  return X;
}

template <typename T>
Matrix6<T> CrossMotionMatrix(const SpatialMotion<T>& v) {
  Matrix6<T> X = Matrix6<T>::Zero();
  const Matrix3<T> W = Skew<T>(v.template head<3>());
  X.template topLeftCorner<3, 3>() = W;
  X.template bottomRightCorner<3, 3>() = W;
  X.template bottomLeftCorner<3, 3>() = Skew<T>(v.template tail<3>());
  return X;
}

#define TERN_INSTANTIATE_SPATIAL(T)                                       \
  template Matrix6<T> MotionTransformMatrix<T>(const RigidTransform<T>&); \
  template Matrix6<T> ForceTransformMatrix<T>(const RigidTransform<T>&);  \
  template Matrix6<T> CrossMotionMatrix<T>(const SpatialMotion<T>&);

TERN_INSTANTIATE_SPATIAL(double)
TERN_INSTANTIATE_SPATIAL(AutoDiffXd)

}  // namespace tern
