#pragma once
// Internal to multibody/tree: per-joint-type kernels shared by the algorithm
// sources (not installed API). A switch on the joint type selects specialized
// code; there are no virtual calls in the inner loops.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "tern/math/rotation.h"
#include "tern/math/sin_cos.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {
namespace internal {

// The next two indices after k in cyclic order (k + 1) % 3 and (k + 2) % 3,
// by table: the modulo costs more than the rotation it indexes.
inline constexpr int kNextAxis[3] = {1, 2, 0};
inline constexpr int kPrevAxis[3] = {2, 0, 1};

// Calls step(), a lambda holding one step of an algorithm (one body of one
// pass). For T = double the call goes through a flattened function, so
// everything the step calls, Eigen's expression code included, is inlined
// into it whatever the inliner decides for the large algorithm function
// around it (parts of Eigen's products were otherwise left as calls). Other
// scalars inline the step as written: flattening autodiff code triples the
// object size and compile time for no use.
template <typename F>
TERN_FLATTEN TERN_NOINLINE void FlattenedCall(const F& step) {
  step();
}
template <typename T, typename F>
TERN_ALWAYS_INLINE void RunStep(const F& step) {
  if constexpr (std::is_same_v<T, double>) {
    FlattenedCall(step);
  } else {
    step();
  }
}

// The constant x with the derivative vector of `like` zeroed, for autodiff
// scalars: AutoDiffXd gives constants an empty derivative vector, and a sum
// of two products, one of constants only and one with derivatives, then
// mixes vector sizes (Eigen asserts). Kernels that write constants next to
// variables (the axis-aligned fast paths) write them through this.
template <typename T>
TERN_ALWAYS_INLINE T ConstantLike(double x, const T& like) {
  if constexpr (std::is_same_v<T, double>) {
    (void)like;
    return x;
  } else {
    return T(x, like.derivatives() * 0.0);
  }
}

// For autodiff scalars, gives every entry of *m with an empty derivative
// vector (a constant) zero derivatives of the size the others have, so
// that later sums of products do not mix sizes (see ConstantLike). Nothing
// for double.
template <typename Derived>
TERN_ALWAYS_INLINE void MakeCoherent(Eigen::MatrixBase<Derived>* m) {
  using S = typename Derived::Scalar;
  if constexpr (!std::is_same_v<S, double>) {
    Eigen::Index n = 0;
    for (Eigen::Index j = 0; j < m->cols(); ++j)
      for (Eigen::Index i = 0; i < m->rows(); ++i)
        n = std::max(n, (*m)(i, j).derivatives().size());
    if (n == 0) return;
    for (Eigen::Index j = 0; j < m->cols(); ++j)
      for (Eigen::Index i = 0; i < m->rows(); ++i)
        if ((*m)(i, j).derivatives().size() != n)
          (*m)(i, j).derivatives().setZero(n);
  } else {
    (void)m;
  }
}
template <typename T>
TERN_ALWAYS_INLINE void MakeCoherent(RigidTransform<T>* X) {
  if constexpr (!std::is_same_v<T, double>) {
    // R and p together: a pose with a constant R but a moving p (a
    // prismatic joint) is used in products with both.
    Eigen::Matrix<T, 3, 4> Rp;
    Rp << X->R, X->p;
    MakeCoherent(&Rp);
    X->R = Rp.template leftCols<3>();
    X->p = Rp.col(3);
  } else {
    (void)X;
  }
}

// *R = R_k(angle), the rotation by angle about e_k, from c = cos(angle) and
// s = sin(angle): columns e_k, c e_i1 + s e_i2 and c e_i2 - s e_i1 with
// (k, i1, i2) in cyclic order.
template <typename T>
TERN_ALWAYS_INLINE void SetAxisRotation(int k, const T& c, const T& s,
                                        Matrix3<T>* R) {
  // Column by column with constant indices, each element written once
  // (Eigen's comma initializer is left as a call).
  T* r = R->data();
  const T one = ConstantLike(1.0, c), zero = ConstantLike(0.0, c);
  switch (k) {
    case 0:
      r[0] = one, r[1] = zero, r[2] = zero;
      r[3] = zero, r[4] = c, r[5] = s;
      r[6] = zero, r[7] = -s, r[8] = c;
      return;
    case 1:
      r[0] = c, r[1] = zero, r[2] = -s;
      r[3] = zero, r[4] = one, r[5] = zero;
      r[6] = s, r[7] = zero, r[8] = c;
      return;
    default:
      r[0] = c, r[1] = s, r[2] = zero;
      r[3] = -s, r[4] = c, r[5] = zero;
      r[6] = zero, r[7] = zero, r[8] = one;
      return;
  }
}

// X_PB and S of a body with b.simple_revolute about e_k (k = b.axis_index,
// passed so that a caller that knows it at compile time gets constant
// indices), as JointPoseAndSubspace computes them, and the cosine c and
// sine s of the angle of R_PB = R_k(angle), for the caller's own use of the
// rotation (kept in registers rather than read back from X_PB).
template <typename T>
TERN_ALWAYS_INLINE void SimpleRevolutePose(const RigidBody<T>& b, int k,
                                           const T* q, RigidTransform<T>* X_PB,
                                           Matrix6<T>* S, T* c, T* s) {
  assert(k == b.axis_index);
  // SinCos (tern/math) is about 1 ulp and a third of libm's sincos.
  const T angle = b.axis_sign * q[0];
  SinCos(angle, s, c);
  SetAxisRotation(k, *c, *s, &X_PB->R);
  X_PB->p = b.joint.X_PJ.p;
  S->template block<3, 1>(0, 0) = b.joint.axis;
  S->template block<3, 1>(3, 0).setZero();
}

// X_PB = X_PJ * X_J(q) and the motion subspace S (in B) of body b.
template <typename T>
TERN_ALWAYS_INLINE void JointPoseAndSubspaceImpl(const RigidBody<T>& b,
                                                 const T* q,
                                                 RigidTransform<T>* X_PB,
                                                 Matrix6<T>* S) {
  const Joint<T>& j = b.joint;
  switch (j.type) {
    case JointType::kFixed:
      *X_PB = j.X_PJ;
      return;
    case JointType::kRevolute: {
      if (b.simple_revolute) {
        T c, s;
        SimpleRevolutePose(b, b.axis_index, q, X_PB, S, &c, &s);
        return;
      }
      if (b.axis_index >= 0) {
        // Axis-aligned: R_PJ * R_k(angle) mixes two columns of R_PJ.
        const T angle = b.axis_sign * q[0];
        T s, c;
        SinCos(angle, &s, &c);
        const int k = b.axis_index, i1 = kNextAxis[k], i2 = kPrevAxis[k];
        const Matrix3<T>& R = j.X_PJ.R;
        X_PB->R.col(i1) = c * R.col(i1) + s * R.col(i2);
        X_PB->R.col(i2) = c * R.col(i2) - s * R.col(i1);
        X_PB->R.col(k) = R.col(k);
      } else {
        X_PB->R.noalias() =
            j.X_PJ.R * AxisAngleToRotationMatrix<T>(j.axis, q[0]);
      }
      X_PB->p = j.X_PJ.p;
      S->template block<3, 1>(0, 0) = j.axis;
      S->template block<3, 1>(3, 0).setZero();
      return;
    }
    case JointType::kPrismatic: {
      X_PB->R = j.X_PJ.R;
      X_PB->p = j.X_PJ.p;
      X_PB->p.noalias() += j.X_PJ.R * (j.axis * q[0]);
      S->template block<3, 1>(0, 0).setZero();
      S->template block<3, 1>(3, 0) = j.axis;
      return;
    }
    case JointType::kFloating: {
      const Vector4<T> quat(q[3], q[4], q[5], q[6]);
      const Vector3<T> p(q[0], q[1], q[2]);
      X_PB->R.noalias() = j.X_PJ.R * QuaternionToRotationMatrix<T>(quat);
      X_PB->p = j.X_PJ.p;
      X_PB->p.noalias() += j.X_PJ.R * p;
      S->setIdentity();
      return;
    }
    case JointType::kBall: {
      const Vector4<T> quat(q[0], q[1], q[2], q[3]);
      X_PB->R.noalias() = j.X_PJ.R * QuaternionToRotationMatrix<T>(quat);
      X_PB->p = j.X_PJ.p;
      S->template topLeftCorner<3, 3>().setIdentity();
      S->template bottomLeftCorner<3, 3>().setZero();
      return;
    }
    case JointType::kPlanar: {
      const Matrix3<T> R_J = AxisAngleToRotationMatrix<T>(j.axis, q[2]);
      const Vector3<T> p_J = b.planar_t1 * q[0] + b.planar_t2 * q[1];
      X_PB->R.noalias() = j.X_PJ.R * R_J;
      X_PB->p = j.X_PJ.p;
      X_PB->p.noalias() += j.X_PJ.R * p_J;
      S->template topLeftCorner<3, 2>().setZero();
      S->template bottomLeftCorner<3, 1>().noalias() =
          R_J.transpose() * b.planar_t1;
      S->template block<3, 1>(3, 1).noalias() = R_J.transpose() * b.planar_t2;
      S->template block<3, 1>(0, 2) = j.axis;
      S->template block<3, 1>(3, 2).setZero();
      return;
    }
  }
}

template <typename T>
TERN_ALWAYS_INLINE void JointPoseAndSubspace(const RigidBody<T>& b, const T* q,
                                             RigidTransform<T>* X_PB,
                                             Matrix6<T>* S) {
  JointPoseAndSubspaceImpl(b, q, X_PB, S);
  if constexpr (!std::is_same_v<T, double>) {
    MakeCoherent(X_PB);
    MakeCoherent(S);
  }
}

// Joint velocity vJ = S v_i.
template <typename T>
TERN_ALWAYS_INLINE SpatialMotion<T> JointVelocity(const RigidBody<T>& b,
                                                  const Matrix6<T>& S,
                                                  const T* v) {
  switch (b.joint.type) {
    case JointType::kFixed:
      return SpatialMotion<T>::Zero();
    case JointType::kRevolute:
    case JointType::kPrismatic:
      return S.col(0) * v[0];
    case JointType::kFloating:
      return Eigen::Map<const Vector6<T>>(v);
    case JointType::kBall: {
      SpatialMotion<T> out;
      out << v[0], v[1], v[2], T(0), T(0), T(0);
      return out;
    }
    case JointType::kPlanar:
      return S.col(0) * v[0] + S.col(1) * v[1] + S.col(2) * v[2];
  }
  return SpatialMotion<T>::Zero();
}

// Featherstone's c_J = (d/dt S) qdot, nonzero only for the planar joint,
// whose translational columns rotate with theta.
template <typename T>
TERN_ALWAYS_INLINE void AddJointBias(const RigidBody<T>& b,
                                     const SpatialMotion<T>& vJ,
                                     SpatialMotion<T>* acc) {
  if (b.joint.type == JointType::kPlanar) {
    const Vector3<T> w = vJ.template head<3>();
    const Vector3<T> vl = vJ.template tail<3>();
    acc->template tail<3>() -= internal::Cross(w, vl);
  }
}

template <typename T>
TERN_ALWAYS_INLINE void CheckSizes(const char* who,
                                   const RigidBodyTree<T>& tree,
                                   const KinematicsCache<T>& cache,
                                   Eigen::Index q_size, Eigen::Index v_size,
                                   Eigen::Index other_size = -1,
                                   const char* other = "") {
  if (cache.num_bodies != tree.num_bodies() ||
      cache.num_velocities != tree.num_velocities() ||
      cache.num_positions != tree.num_positions()) {
    throw std::invalid_argument(fmt::format(
        "{}: the KinematicsCache was made for a tree with {} bodies, but tree "
        "'{}' has {}",
        who, cache.num_bodies, tree.name(), tree.num_bodies()));
  }
  if (q_size >= 0 && q_size != tree.num_positions()) {
    throw std::invalid_argument(
        fmt::format("{}: q has size {} but tree '{}' has {} positions", who,
                    q_size, tree.name(), tree.num_positions()));
  }
  if (v_size >= 0 && v_size != tree.num_velocities()) {
    throw std::invalid_argument(
        fmt::format("{}: v has size {} but tree '{}' has {} velocities", who,
                    v_size, tree.name(), tree.num_velocities()));
  }
  if (other_size >= 0 && other_size != tree.num_velocities()) {
    throw std::invalid_argument(
        fmt::format("{}: {} has size {} but tree '{}' has {} velocities", who,
                    other, other_size, tree.name(), tree.num_velocities()));
  }
}

template <typename T>
void CheckExternalForces(const char* who, const RigidBodyTree<T>& tree,
                         const std::vector<SpatialForce<T>>* f_ext) {
  if (f_ext != nullptr &&
      static_cast<int>(f_ext->size()) != tree.num_bodies()) {
    throw std::invalid_argument(fmt::format(
        "{}: f_ext has {} entries but tree '{}' has {} bodies (one per body, "
        "world included)",
        who, f_ext->size(), tree.name(), tree.num_bodies()));
  }
}

template <typename T>
SpatialMotion<T> GravityAcceleration(const RigidBodyTree<T>& tree) {
  // Featherstone's trick (RBDA sec. 5.3): accelerate the base by -g instead
  // of applying gravity to every body.
  SpatialMotion<T> a0;
  a0 << T(0), T(0), T(0), -tree.gravity()(0), -tree.gravity()(1),
      -tree.gravity()(2);
  return a0;
}

}  // namespace internal
}  // namespace tern
