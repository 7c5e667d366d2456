#include "tern/math/spatial_algebra.h"

#include <gtest/gtest.h>

namespace tern {
namespace {

RigidTransform<double> SomeTransform(int k) {
  return RigidTransform<double>(
      RollPitchYawToRotationMatrix(Vector3<double>(0.2 * k, -0.5, 1.0 + k)),
      Vector3<double>(0.3, -1.2 + k, 0.7));
}

Vector6<double> SomeVector(int k) {
  Vector6<double> v;
  v << 1.0 + k, -2, 0.5, 3 - k, 0.25, -1;
  return v;
}

TEST(SpatialAlgebraTest, TransformsMatchMatrixForms) {
  const auto X = SomeTransform(1);
  const Vector6<double> m = SomeVector(0);
  const Matrix6<double> XM = MotionTransformMatrix(X);
  const Matrix6<double> XF = ForceTransformMatrix(X);
  EXPECT_TRUE(TransformMotion(X, m).isApprox(XM * m, 1e-14));
  EXPECT_TRUE(TransformForce(X, m).isApprox(XF * m, 1e-14));
  EXPECT_TRUE(InverseTransformMotion(X, m).isApprox(XM.inverse() * m, 1e-13));
  EXPECT_TRUE(InverseTransformForce(X, m).isApprox(XF.inverse() * m, 1e-13));
  // Featherstone eq. 2.26: X* = X^-T.
  EXPECT_TRUE(XF.isApprox(XM.inverse().transpose(), 1e-13));
  // Composition and inverse.
  const auto Y = SomeTransform(2);
  EXPECT_TRUE(MotionTransformMatrix(X * Y).isApprox(
      XM * MotionTransformMatrix(Y), 1e-13));
  EXPECT_TRUE(MotionTransformMatrix(X.inverse()).isApprox(XM.inverse(), 1e-13));
}

TEST(SpatialAlgebraTest, CrossProductsMatchMatrixForms) {
  const Vector6<double> v = SomeVector(1), m = SomeVector(2);
  const Matrix6<double> vx = CrossMotionMatrix(v);
  EXPECT_TRUE(CrossMotion(v, m).isApprox(vx * m, 1e-14));
  // v x* = -(v x)^T.
  EXPECT_TRUE(CrossForce(v, m).isApprox(-vx.transpose() * m, 1e-14));
  // Power is invariant: (v x* f) . m = -f . (v x m).
  EXPECT_NEAR(CrossForce(v, m).dot(v), 0.0, 1e-12);
}

TEST(SpatialInertiaTest, MatchesMassPropertiesAndTransforms) {
  Matrix3<double> Ic;
  Ic << 2.0, 0.1, -0.2, 0.1, 1.5, 0.05, -0.2, 0.05, 1.0;
  const Vector3<double> c(0.1, -0.3, 0.4);
  const auto M = SpatialInertia<double>::FromCom(3.0, c, Ic);
  const Vector6<double> v = SomeVector(3);
  EXPECT_TRUE((M * v).isApprox(M.ToMatrix() * v, 1e-14));
  // Kinetic energy from the com form: 1/2 m |v_c|^2 + 1/2 w^T Ic w.
  const Vector3<double> w = v.head<3>();
  const Vector3<double> vc = v.tail<3>() + w.cross(c);
  const double ke = 0.5 * 3.0 * vc.squaredNorm() + 0.5 * w.dot(Ic * w);
  EXPECT_NEAR(0.5 * v.dot(M * v), ke, 1e-12);
  // Transform agrees with X* M X^-1 for both the struct and the 6x6 forms.
  const auto X = SomeTransform(3);
  const Matrix6<double> expected = ForceTransformMatrix(X) * M.ToMatrix() *
                                   MotionTransformMatrix(X.inverse());
  EXPECT_TRUE(M.Transformed(X).ToMatrix().isApprox(expected, 1e-12));
  EXPECT_TRUE(TransformInertiaMatrix(X, M.ToMatrix()).isApprox(expected, 1e-12));
  // Articulated inertias are general symmetric matrices.
  Matrix6<double> A = Matrix6<double>::Random();
  A = A * A.transpose();
  EXPECT_TRUE(TransformInertiaMatrix(X, A).isApprox(
      ForceTransformMatrix(X) * A * MotionTransformMatrix(X.inverse()), 1e-12));
}

}  // namespace
}  // namespace tern
