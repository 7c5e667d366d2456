#include "tern/math/spatial_algebra.h"

#include <gtest/gtest.h>

#include "tern/common/autodiff.h"

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
  EXPECT_TRUE(
      TransformInertiaMatrix(X, M.ToMatrix()).isApprox(expected, 1e-12));
  // Articulated inertias are general symmetric matrices.
  Matrix6<double> A = Matrix6<double>::Random();
  A = A * A.transpose();
  EXPECT_TRUE(TransformInertiaMatrix(X, A).isApprox(
      ForceTransformMatrix(X) * A * MotionTransformMatrix(X.inverse()), 1e-12));
}

// CentralInertia::InFrame against SpatialInertia::Transformed (the
// origin-based form), through the diagonal fast path and the general one.
TEST(CentralInertiaTest, InFrameMatchesTransformedOnBothPaths) {
  const Vector3<double> c(0.1, -0.3, 0.4);
  Matrix3<double> I_diag = Matrix3<double>::Zero();
  I_diag.diagonal() << 2.0, 1.5, 1.0;
  Matrix3<double> I_full;
  I_full << 2.0, 0.1, -0.2, 0.1, 1.5, 0.05, -0.2, 0.05, 1.0;
  const auto M_diag = SpatialInertia<double>::FromCom(3.0, c, I_diag);
  const auto M_full = SpatialInertia<double>::FromCom(3.0, c, I_full);
  const CentralInertia<double> C_diag(M_diag), C_full(M_full);
  EXPECT_TRUE(C_diag.diagonal);
  EXPECT_FALSE(C_full.diagonal);
  EXPECT_TRUE(C_diag.c.isApprox(c, 1e-15));
  EXPECT_TRUE(C_full.I_c.isApprox(I_full, 1e-14));
  // The same diagonal inertia through the general path.
  CentralInertia<double> C_diag_general = C_diag;
  C_diag_general.diagonal = false;
  for (int k = 0; k < 4; ++k) {
    const auto X = SomeTransform(k);
    for (const auto& [C, M] :
         {std::pair{C_diag, M_diag}, std::pair{C_full, M_full},
          std::pair{C_diag_general, M_diag}}) {
      const SpatialInertia<double> A = C.InFrame(X);
      const SpatialInertia<double> B = M.Transformed(X);
      EXPECT_NEAR(A.m, B.m, 0);
      EXPECT_TRUE(A.h.isApprox(B.h, 1e-14));
      EXPECT_TRUE(A.I.isApprox(B.I, 1e-13));
    }
    EXPECT_TRUE(
        C_diag.InFrame(X).I.isApprox(C_diag_general.InFrame(X).I, 1e-15));
  }
  // A massless body: c = 0 and I_c is the inertia about the origin.
  SpatialInertia<double> massless;
  massless.I = I_full;
  const CentralInertia<double> C0(massless);
  EXPECT_TRUE(C0.c.isZero());
  const auto X = SomeTransform(2);
  EXPECT_TRUE(C0.InFrame(X).I.isApprox(massless.Transformed(X).I, 1e-14));
  EXPECT_TRUE(C0.InFrame(X).h.isZero());
  // Other scalars never take the diagonal path (off-diagonal entries may
  // carry derivatives where their values are zero).
  EXPECT_FALSE(CentralInertia<AutoDiffXd>(M_diag.cast<AutoDiffXd>()).diagonal);
}

}  // namespace
}  // namespace tern
