#include "tern/math/rotation.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

Vector3<double> SomeRpy(int k) {
  return Vector3<double>(0.3 - 0.2 * k, -1.1 + 0.4 * k, 2.5 - 0.9 * k);
}

TEST(RotationTest, RpyMatchesElementaryRotations) {
  const Vector3<double> rpy(0.3, -0.7, 1.9);
  const Matrix3<double> Rx =
      AxisAngleToRotationMatrix<double>(Vector3<double>::UnitX(), rpy(0));
  const Matrix3<double> Ry =
      AxisAngleToRotationMatrix<double>(Vector3<double>::UnitY(), rpy(1));
  const Matrix3<double> Rz =
      AxisAngleToRotationMatrix<double>(Vector3<double>::UnitZ(), rpy(2));
  EXPECT_TRUE(RollPitchYawToRotationMatrix(rpy).isApprox(Rz * Ry * Rx, 1e-14));
}

TEST(RotationTest, AxisAngleMatchesEigen) {
  const Vector3<double> axis = Vector3<double>(1, -2, 0.5).normalized();
  const Matrix3<double> expected =
      Eigen::AngleAxisd(0.8, axis).toRotationMatrix();
  EXPECT_TRUE(AxisAngleToRotationMatrix(axis, 0.8).isApprox(expected, 1e-14));
  const Vector4<double> q = AxisAngleToQuaternion(axis, 0.8);
  EXPECT_TRUE(QuaternionToRotationMatrix(q).isApprox(expected, 1e-14));
}

TEST(RotationTest, RoundTrips) {
  for (int k = 0; k < 6; ++k) {
    const Vector3<double> rpy = SomeRpy(k);
    const Matrix3<double> R = RollPitchYawToRotationMatrix(rpy);
    EXPECT_TRUE(RotationMatrixToRollPitchYaw(R).isApprox(rpy, 1e-12)) << k;
    const Vector4<double> q = RollPitchYawToQuaternion(rpy);
    EXPECT_NEAR(q.norm(), 1.0, 1e-14);
    EXPECT_TRUE(QuaternionToRotationMatrix(q).isApprox(R, 1e-13)) << k;
    Vector4<double> q2 = RotationMatrixToQuaternion(R);
    // q and -q are the same rotation.
    if (q2.dot(q) < 0) q2 = -q2;
    EXPECT_TRUE(q2.isApprox(q, 1e-12)) << k;
    EXPECT_TRUE(QuaternionToRollPitchYaw(q).isApprox(rpy, 1e-12)) << k;
  }
}

TEST(RotationTest, QuaternionProductComposesRotations) {
  const Vector4<double> a = RollPitchYawToQuaternion(SomeRpy(1));
  const Vector4<double> b = RollPitchYawToQuaternion(SomeRpy(2));
  EXPECT_TRUE(QuaternionToRotationMatrix(QuaternionMultiply(a, b))
                  .isApprox(QuaternionToRotationMatrix(a) *
                                QuaternionToRotationMatrix(b),
                            1e-13));
}

TEST(RotationTest, QuaternionFromMatrixAllBranches) {
  // Rotations by pi about each axis exercise every branch of Shepperd's method.
  for (int i = 0; i < 3; ++i) {
    const Vector3<double> axis = Vector3<double>::Unit(i);
    const Matrix3<double> R = AxisAngleToRotationMatrix(axis, 3.0);
    EXPECT_TRUE(QuaternionToRotationMatrix(RotationMatrixToQuaternion(R))
                    .isApprox(R, 1e-13));
  }
}

TEST(RotationTest, GimbalLock) {
  const Vector3<double> rpy(0.0, M_PI / 2, 0.4);
  const Matrix3<double> R = RollPitchYawToRotationMatrix(rpy);
  EXPECT_TRUE(RollPitchYawToRotationMatrix(RotationMatrixToRollPitchYaw(R))
                  .isApprox(R, 1e-12));
}

TEST(RotationTest, AutoDiffDerivativeOfRotation) {
  // d/dt Rz(t) = [z]x Rz(t).
  AutoDiffXd t(0.7, Eigen::VectorXd::Ones(1));
  Vector3<AutoDiffXd> rpy(AutoDiffXd(0), AutoDiffXd(0), t);
  rpy(0).derivatives() = Eigen::VectorXd::Zero(1);
  rpy(1).derivatives() = Eigen::VectorXd::Zero(1);
  const Matrix3<AutoDiffXd> R = RollPitchYawToRotationMatrix(rpy);
  Matrix3<double> dR, Rv;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      dR(i, j) = R(i, j).derivatives()(0);
      Rv(i, j) = R(i, j).value();
    }
  EXPECT_TRUE(dR.isApprox(Skew<double>(Vector3<double>::UnitZ()) * Rv, 1e-14));
}

}  // namespace
}  // namespace tern
