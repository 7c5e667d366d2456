#pragma once
// Spatial algebra after Featherstone, Rigid Body Dynamics Algorithms (2008),
// ch. 2, with fixed-size Eigen types.
//
// A motion vector (spatial velocity or acceleration) is a Vector6 [w; v]: the
// angular part w and the linear velocity v of the body-fixed point at the
// origin of the frame it is expressed in. A force vector is [n; f]: the moment
// n about that origin and the force f. RigidTransform X_AB holds the pose of
// frame B in frame A: R = R_AB and p = p_AB (B's origin in A, in A).
// SpatialInertia holds a rigid body's mass m, first moment h = m c and
// rotational inertia I about the frame origin, the 10 numbers Featherstone's
// eq. 2.63 builds the 6x6 matrix from.
//
// These small functions run in the inner loops of the rigid-body algorithms,
// so they are inline; matrix forms for tests and users are in the .cc.
#include <Eigen/Geometry>
#include <cmath>
#include <type_traits>

#include "tern/common/compiler.h"
#include "tern/common/eigen_types.h"
#include "tern/math/rotation.h"

namespace tern {

namespace internal {

// a x b for 3-vectors (or 3-element blocks), always inlined: Eigen's cross()
// is often left as a call in the larger algorithm functions.
template <typename A, typename B>
TERN_ALWAYS_INLINE Vector3<typename A::Scalar> Cross(
    const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  return Vector3<typename A::Scalar>(a(1) * b(2) - a(2) * b(1),
                                     a(2) * b(0) - a(0) * b(2),
                                     a(0) * b(1) - a(1) * b(0));
}

// out = A * B for 3x3 matrices, always inlined. The product is formed in a
// local so the compiler need not reload A and B after each store.
template <typename T>
TERN_ALWAYS_INLINE void Multiply3x3(const Matrix3<T>& A, const Matrix3<T>& B,
                                    Matrix3<T>* out) {
  Matrix3<T> C;
  for (int j = 0; j < 3; ++j) {
    const T b0 = B(0, j), b1 = B(1, j), b2 = B(2, j);
    for (int i = 0; i < 3; ++i) {
      C(i, j) = A(i, 0) * b0 + A(i, 1) * b1 + A(i, 2) * b2;
    }
  }
  *out = C;
}

// A * x for a 3x3 matrix and a 3-vector, always inlined.
template <typename T, typename X>
TERN_ALWAYS_INLINE Vector3<T> Multiply3(const Matrix3<T>& A,
                                        const Eigen::MatrixBase<X>& x) {
  const T x0 = x(0), x1 = x(1), x2 = x(2);
  return Vector3<T>(A(0, 0) * x0 + A(0, 1) * x1 + A(0, 2) * x2,
                    A(1, 0) * x0 + A(1, 1) * x1 + A(1, 2) * x2,
                    A(2, 0) * x0 + A(2, 1) * x1 + A(2, 2) * x2);
}

// A^T * x for a 3x3 matrix and a 3-vector, always inlined.
template <typename T, typename X>
TERN_ALWAYS_INLINE Vector3<T> MultiplyTranspose3(
    const Matrix3<T>& A, const Eigen::MatrixBase<X>& x) {
  const T x0 = x(0), x1 = x(1), x2 = x(2);
  return Vector3<T>(A(0, 0) * x0 + A(1, 0) * x1 + A(2, 0) * x2,
                    A(0, 1) * x0 + A(1, 1) * x1 + A(2, 1) * x2,
                    A(0, 2) * x0 + A(1, 2) * x1 + A(2, 2) * x2);
}

}  // namespace internal

template <typename T>
using SpatialMotion = Vector6<T>;
template <typename T>
using SpatialForce = Vector6<T>;

// Pose of frame B in frame A: x_A = R x_B + p.
template <typename T>
struct RigidTransform {
  Matrix3<T> R{Matrix3<T>::Identity()};  // R_AB
  Vector3<T> p{Vector3<T>::Zero()};      // p_AB, m

  static RigidTransform Identity() { return RigidTransform(); }
  RigidTransform() = default;
  RigidTransform(const Matrix3<T>& R_in, const Vector3<T>& p_in)
      : R(R_in), p(p_in) {}

  // X_AC = X_AB * X_BC.
  TERN_ALWAYS_INLINE RigidTransform
  operator*(const RigidTransform& X_BC) const {
    RigidTransform X_AC;
    internal::Multiply3x3(R, X_BC.R, &X_AC.R);
    X_AC.p = p + internal::Multiply3(R, X_BC.p);
    return X_AC;
  }
  // A point given in B, in A.
  Vector3<T> operator*(const Vector3<T>& x_B) const { return R * x_B + p; }
  // X_BA.
  RigidTransform inverse() const {
    RigidTransform X;
    X.R = R.transpose();
    X.p.noalias() = -(X.R * p);
    return X;
  }
  // The same transform with scalar U (e.g. double -> AutoDiffXd).
  template <typename U>
  RigidTransform<U> cast() const {
    return RigidTransform<U>(R.template cast<U>(), p.template cast<U>());
  }
};

// m_A = X_AB m_B (Featherstone's motion transform, eq. 2.24).
template <typename T>
TERN_ALWAYS_INLINE SpatialMotion<T> TransformMotion(
    const RigidTransform<T>& X_AB, const SpatialMotion<T>& m_B) {
  SpatialMotion<T> m_A;
  m_A.template head<3>() = internal::Multiply3(X_AB.R, m_B.template head<3>());
  m_A.template tail<3>() = internal::Multiply3(X_AB.R, m_B.template tail<3>());
  m_A.template tail<3>() += internal::Cross(X_AB.p, m_A.template head<3>());
  return m_A;
}

// m_B = X_AB⁻¹ m_A.
template <typename T>
TERN_ALWAYS_INLINE SpatialMotion<T> InverseTransformMotion(
    const RigidTransform<T>& X_AB, const SpatialMotion<T>& m_A) {
  SpatialMotion<T> m_B;
  const Vector3<T> w = m_A.template head<3>();
  const Vector3<T> v = m_A.template tail<3>() - internal::Cross(X_AB.p, w);
  m_B.template head<3>() = internal::MultiplyTranspose3(X_AB.R, w);
  m_B.template tail<3>() = internal::MultiplyTranspose3(X_AB.R, v);
  return m_B;
}

// f_A = X_AB* f_B (force transform, eq. 2.25).
template <typename T>
TERN_ALWAYS_INLINE SpatialForce<T> TransformForce(const RigidTransform<T>& X_AB,
                                                  const SpatialForce<T>& f_B) {
  SpatialForce<T> f_A;
  f_A.template tail<3>() = internal::Multiply3(X_AB.R, f_B.template tail<3>());
  f_A.template head<3>() = internal::Multiply3(X_AB.R, f_B.template head<3>());
  f_A.template head<3>() += internal::Cross(X_AB.p, f_A.template tail<3>());
  return f_A;
}

// f_B = (X_AB*)⁻¹ f_A.
template <typename T>
TERN_ALWAYS_INLINE SpatialForce<T> InverseTransformForce(
    const RigidTransform<T>& X_AB, const SpatialForce<T>& f_A) {
  SpatialForce<T> f_B;
  const Vector3<T> f = f_A.template tail<3>();
  const Vector3<T> n = f_A.template head<3>() - internal::Cross(X_AB.p, f);
  f_B.template head<3>() = internal::MultiplyTranspose3(X_AB.R, n);
  f_B.template tail<3>() = internal::MultiplyTranspose3(X_AB.R, f);
  return f_B;
}

// v x m, the spatial cross product of motion vectors (eq. 2.31).
template <typename T>
TERN_ALWAYS_INLINE SpatialMotion<T> CrossMotion(const SpatialMotion<T>& v,
                                                const SpatialMotion<T>& m) {
  const Vector3<T> w = v.template head<3>();
  const Vector3<T> vl = v.template tail<3>();
  const Vector3<T> mw = m.template head<3>();
  const Vector3<T> mv = m.template tail<3>();
  SpatialMotion<T> out;
  out.template head<3>() = internal::Cross(w, mw);
  out.template tail<3>() = internal::Cross(w, mv) + internal::Cross(vl, mw);
  return out;
}

// v x* f, the spatial cross product of a motion and a force (eq. 2.32).
template <typename T>
TERN_ALWAYS_INLINE SpatialForce<T> CrossForce(const SpatialMotion<T>& v,
                                              const SpatialForce<T>& f) {
  const Vector3<T> w = v.template head<3>();
  const Vector3<T> vl = v.template tail<3>();
  const Vector3<T> n = f.template head<3>();
  const Vector3<T> fl = f.template tail<3>();
  SpatialForce<T> out;
  out.template head<3>() = internal::Cross(w, n) + internal::Cross(vl, fl);
  out.template tail<3>() = internal::Cross(w, fl);
  return out;
}

// Inertia of a rigid body about the origin of the frame it is expressed in.
template <typename T>
struct SpatialInertia {
  T m{0};                            // mass, kg
  Vector3<T> h{Vector3<T>::Zero()};  // first moment m * c, kg m
  Matrix3<T> I{Matrix3<T>::Zero()};  // rotational inertia about origin

  // From mass, center of mass c and rotational inertia about the com.
  static SpatialInertia FromCom(const T& mass, const Vector3<T>& com,
                                const Matrix3<T>& I_com) {
    SpatialInertia M;
    M.m = mass;
    M.h = mass * com;
    // Parallel-axis theorem: I_O = I_c - m [c]x [c]x.
    M.I = I_com + mass * (com.squaredNorm() * Matrix3<T>::Identity() -
                          com * com.transpose());
    return M;
  }

  // Momentum I * v (Featherstone eq. 2.63 applied to v).
  TERN_ALWAYS_INLINE SpatialForce<T> operator*(
      const SpatialMotion<T>& v) const {
    const Vector3<T> w = v.template head<3>();
    const Vector3<T> vl = v.template tail<3>();
    const Vector3<T> Iw = internal::Multiply3(I, w);
    const Vector3<T> hv = internal::Cross(h, vl);
    const Vector3<T> hw = internal::Cross(h, w);
    // Coefficient by coefficient: a block assignment of the sum is an Eigen
    // call that GCC does not always inline.
    SpatialForce<T> f;
    for (int k = 0; k < 3; ++k) {
      f(k) = Iw(k) + hv(k);
      f(k + 3) = m * vl(k) - hw(k);
    }
    return f;
  }

  TERN_ALWAYS_INLINE SpatialInertia& operator+=(const SpatialInertia& o) {
    m += o.m;
    h += o.h;
    I += o.I;
    return *this;
  }

  // This inertia, given in frame B, expressed in frame A (RBDA eq. 2.66 on
  // the 10 parameters). Only one triangle of the symmetric I is computed:
  // with a = R h + m p / 2 the shift of origin -[p]x[Rh]x - [Rh]x[p]x -
  // m [p]x[p]x equals 2 (p . a) 1 - a p^T - p a^T.
  TERN_ALWAYS_INLINE SpatialInertia
  Transformed(const RigidTransform<T>& X_AB) const {
    SpatialInertia out;
    out.m = m;
    const Matrix3<T>& R = X_AB.R;
    const Vector3<T>& p = X_AB.p;
    const Vector3<T> Rh = internal::Multiply3(R, h);
    const Vector3<T> a = Rh + T(0.5) * m * p;
    out.h = Rh + m * p;
    Matrix3<T> RI;
    internal::Multiply3x3(R, I, &RI);
    const T d = T(2) * p.dot(a);
    for (int r = 0; r < 3; ++r) {
      for (int s = 0; s <= r; ++s) {
        T v = RI(r, 0) * R(s, 0) + RI(r, 1) * R(s, 1) + RI(r, 2) * R(s, 2) -
              (a(r) * p(s) + p(r) * a(s));
        if (r == s) v += d;
        out.I(r, s) = v;
        out.I(s, r) = v;
      }
    }
    return out;
  }

  // This inertia about the point -p of its frame (a pure translation of
  // origin, p the old origin seen from the new one): Transformed with
  // R = 1, h' = h + m p, I' = I + 2 (p . a) 1 - a p^T - p a^T with
  // a = h + m p / 2.
  TERN_ALWAYS_INLINE SpatialInertia Shifted(const Vector3<T>& p) const {
    SpatialInertia out;
    out.m = m;
    const Vector3<T> a = h + T(0.5) * m * p;
    out.h = h + m * p;
    const T d = T(2) * p.dot(a);
    for (int r = 0; r < 3; ++r) {
      for (int s = 0; s <= r; ++s) {
        T v = I(r, s) - (a(r) * p(s) + p(r) * a(s));
        if (r == s) v += d;
        out.I(r, s) = v;
        out.I(s, r) = v;
      }
    }
    return out;
  }

  // The 6x6 matrix [[I, [h]x], [[h]x^T, m 1]].
  Matrix6<T> ToMatrix() const {
    Matrix6<T> M;
    WriteMatrix(&M);
    return M;
  }
  // Writes ToMatrix() into *M without a temporary.
  TERN_ALWAYS_INLINE void WriteMatrix(Matrix6<T>* M) const {
    Matrix6<T>& A = *M;
    A.template topLeftCorner<3, 3>() = I;
    A(0, 3) = T(0), A(0, 4) = -h(2), A(0, 5) = h(1);
    A(1, 3) = h(2), A(1, 4) = T(0), A(1, 5) = -h(0);
    A(2, 3) = -h(1), A(2, 4) = h(0), A(2, 5) = T(0);
    A.template bottomLeftCorner<3, 3>() =
        A.template topRightCorner<3, 3>().transpose();
    A.template bottomRightCorner<3, 3>().setZero();
    A(3, 3) = A(4, 4) = A(5, 5) = m;
  }

  template <typename U>
  SpatialInertia<U> cast() const {
    SpatialInertia<U> out;
    out.m = U(m);
    out.h = h.template cast<U>();
    out.I = I.template cast<U>();
    return out;
  }
};

// A rigid body's mass properties about its center of mass, in the axes of
// its frame B: the form from which its inertia about another frame's origin
// is cheapest to compute (InFrame). The dynamics algorithms re-express every
// body's inertia in world coordinates at each call; a model keeps this form,
// made once when the model is built.
template <typename T>
struct CentralInertia {
  T m{0};                              // mass, kg
  Vector3<T> c{Vector3<T>::Zero()};    // center of mass, in B, m
  Matrix3<T> I_c{Matrix3<T>::Zero()};  // rotational inertia about c, kg m^2
  // I_c is diagonal (B's axes are principal axes, as in most URDF
  // inertials): InFrame then rotates it with 27 multiplications instead of
  // 45. Set only for T = double; for other scalars the off-diagonal entries
  // may carry derivatives even where their values are zero.
  bool diagonal{false};

  CentralInertia() = default;
  // From the inertia M about B's origin. A massless body (M.m = 0) must have
  // M.h = 0 (it has no center of mass); then I_c = M.I and c = 0. Off-diagonal
  // entries of I_c below 1e-14 times its trace are taken as rounding left by
  // the shift of origin and set to zero.
  explicit CentralInertia(const SpatialInertia<T>& M) : m(M.m), I_c(M.I) {
    if (M.m != T(0)) {
      c = M.h / M.m;
      // Parallel-axis theorem: I_c = I_O + m [c]x [c]x.
      I_c -=
          M.m * (c.squaredNorm() * Matrix3<T>::Identity() - c * c.transpose());
    }
    if constexpr (std::is_same_v<T, double>) {
      const double tol = 1e-14 * std::abs(I_c.trace());
      bool small = true;
      for (int r = 0; r < 3; ++r) {
        for (int s = 0; s < 3; ++s) {
          if (r != s && !(std::abs(I_c(r, s)) <= tol)) small = false;
        }
      }
      if (small) {
        const Vector3<double> d = I_c.diagonal();
        I_c = d.asDiagonal();
        diagonal = true;
      }
    }
  }

  // This body's inertia about the origin of frame A, expressed in A, at pose
  // X_AB. With the com at c_A = R c + p in A, the parallel-axis theorem
  // (RBDA eq. 2.63 and sec. 2.13) gives
  //   h_A = m c_A,  I_A = R I_c R^T + (h_A . c_A) 1 - h_A c_A^T.
  TERN_ALWAYS_INLINE SpatialInertia<T> InFrame(
      const RigidTransform<T>& X_AB) const {
    return WithComAt(X_AB.R, internal::Multiply3(X_AB.R, c) + X_AB.p);
  }
  // This body's inertia about B's origin, in axes rotated from B's by R_AB
  // (InFrame at the pose (R_AB, 0)): with no offset added to the com, no
  // digits of I_c are lost to a large parallel-axis term.
  TERN_ALWAYS_INLINE SpatialInertia<T> Rotated(const Matrix3<T>& R_AB) const {
    return WithComAt(R_AB, internal::Multiply3(R_AB, c));
  }
  // The inertia with axes rotated by R and the com at c_A = R c + p.
  TERN_ALWAYS_INLINE SpatialInertia<T> WithComAt(const Matrix3<T>& R,
                                                 const Vector3<T>& c_A) const {
    SpatialInertia<T> out;
    out.m = m;
    out.h = m * c_A;
    const T hc = out.h.dot(c_A);
    // RI = R I_c: with a diagonal I_c, R's columns scaled.
    Matrix3<T> RI;
    if (diagonal) {
      for (int k = 0; k < 3; ++k) RI.col(k) = R.col(k) * I_c(k, k);
    } else {
      internal::Multiply3x3(R, I_c, &RI);
    }
    // Column by column, I_A.col(s) = RI R(s, :)^T - h_A c_A(s) + hc e_s:
    // whole-column operations, which the compiler vectorizes, cost less
    // than computing one triangle element by element.
    for (int col = 0; col < 3; ++col) {
      const T r0 = R(col, 0), r1 = R(col, 1), r2 = R(col, 2);
      const T cs = c_A(col);
      for (int row = 0; row < 3; ++row) {
        out.I(row, col) = RI(row, 0) * r0 + RI(row, 1) * r1 + RI(row, 2) * r2 -
                          out.h(row) * cs;
      }
      out.I(col, col) += hc;
    }
    return out;
  }
};

// A symmetric 6x6 inertia (e.g. articulated-body inertia) given in frame B,
// expressed in frame A: X_AB* M X_AB⁻¹, computed blockwise.
template <typename T>
TERN_ALWAYS_INLINE Matrix6<T> TransformInertiaMatrix(
    const RigidTransform<T>& X_AB, const Matrix6<T>& M_B) {
  const Matrix3<T>& R = X_AB.R;
  Matrix3<T> A, B, C, tmp;
  tmp.noalias() = R * M_B.template topLeftCorner<3, 3>();
  A.noalias() = tmp * R.transpose();
  tmp.noalias() = R * M_B.template topRightCorner<3, 3>();
  B.noalias() = tmp * R.transpose();
  tmp.noalias() = R * M_B.template bottomRightCorner<3, 3>();
  C.noalias() = tmp * R.transpose();
  const Matrix3<T> P = Skew<T>(X_AB.p);
  Matrix3<T> PC, Mx;
  PC.noalias() = P * C;
  Mx.noalias() = P * B.transpose();
  Matrix6<T> out;
  out.template topLeftCorner<3, 3>() = A + Mx + Mx.transpose();
  out.template topLeftCorner<3, 3>().noalias() -= PC * P;
  out.template topRightCorner<3, 3>() = B + PC;
  out.template bottomLeftCorner<3, 3>() =
      out.template topRightCorner<3, 3>().transpose();
  out.template bottomRightCorner<3, 3>() = C;
  return out;
}

// 6x6 matrix of the motion transform X_AB (m_A = X m_B).
template <typename T>
Matrix6<T> MotionTransformMatrix(const RigidTransform<T>& X_AB);
// 6x6 matrix of the force transform X_AB* (f_A = X* f_B).
template <typename T>
Matrix6<T> ForceTransformMatrix(const RigidTransform<T>& X_AB);
// 6x6 matrix of v x (motion cross product).
template <typename T>
Matrix6<T> CrossMotionMatrix(const SpatialMotion<T>& v);

}  // namespace tern
