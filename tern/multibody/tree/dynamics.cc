#include "tern/multibody/tree/dynamics.h"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "tern/common/default_scalars.h"
#include "tern/multibody/tree/joint_kernels.h"

namespace tern {

using internal::CheckSizes;

namespace {

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

// Writes S^T f into out[0..nv).
template <typename T>
inline void ProjectForce(const RigidBody<T>& b, const Matrix6<T>& S,
                         const SpatialForce<T>& f, T* out) {
  switch (b.joint.type) {
    case JointType::kFixed:
      return;
    case JointType::kRevolute:
    case JointType::kPrismatic:
      out[0] = S.col(0).dot(f);
      return;
    case JointType::kFloating:
      for (int k = 0; k < 6; ++k) out[k] = f(k);
      return;
    case JointType::kBall:
      for (int k = 0; k < 3; ++k) out[k] = f(k);
      return;
    case JointType::kPlanar:
      for (int k = 0; k < 3; ++k) out[k] = S.col(k).dot(f);
      return;
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

}  // namespace

namespace {

// Raw pointers to the cache's per-body arrays, taken once per call. Eigen's
// SSE stores may alias anything, so through std::vector the compiler would
// reload each array's base pointer after every store.
template <typename T>
struct Workspace {
  explicit Workspace(KinematicsCache<T>* c)
      : X_PB(c->X_PB.data()),
        X_WB(c->X_WB.data()),
        S(c->S.data()),
        S_W(c->S_W.data()),
        Ic(c->Ic.data()),
        IA(c->IA.data()),
        V_W(c->V_W.data()),
        c_W(c->c_W.data()),
        V(c->V.data()),
        vJ(c->vJ.data()),
        U(c->U.data()),
        Dinv(c->Dinv.data()),
        u(c->u.data()),
        f(c->f.data()),
        a(c->a.data()),
        vdot(c->vdot.data()) {}
  RigidTransform<T>* X_PB;
  RigidTransform<T>* X_WB;
  Matrix6<T>* S;
  SpatialMotion<T>* S_W;
  SpatialInertia<T>* Ic;
  Matrix6<T>* IA;
  SpatialMotion<T>* V_W;
  SpatialMotion<T>* c_W;
  SpatialMotion<T>* V;
  SpatialMotion<T>* vJ;
  Matrix6<T>* U;
  Matrix6<T>* Dinv;
  Vector6<T>* u;
  SpatialForce<T>* f;
  SpatialMotion<T>* a;
  T* vdot;
};

// Calls f(std::integral_constant<int, K>{}) for K = k in {0, 1, 2}: the
// simple-revolute fast paths take their axis as a compile-time constant.
template <typename F>
TERN_ALWAYS_INLINE decltype(auto) WithAxis(int k, F&& f) {
  switch (k) {
    case 0:
      return f(std::integral_constant<int, 0>{});
    case 1:
      return f(std::integral_constant<int, 1>{});
    default:
      return f(std::integral_constant<int, 2>{});
  }
}

// WorldPoseAndSubspace for a body with b.simple_revolute about e_K and a
// parent other than the world. R_WB mixes two columns of R_WP with the
// joint's cos and sin, and X_WB is returned by value as well as stored, so
// that callers use it from registers rather than reading back what was
// just stored (element by element, which a wider load cannot forward).
template <int K, typename T>
TERN_ALWAYS_INLINE RigidTransform<T> SimpleRevoluteWorldPose(
    const RigidBody<T>& b, int i, const T* q, const Workspace<T>& w,
    SpatialMotion<T>* S_W) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  T cq, sq;
  internal::SimpleRevolutePose(b, K, q + b.position_start, &w.X_PB[i],
                               &w.S[i], &cq, &sq);
  const RigidTransform<T>& X_WP = w.X_WB[b.parent];
  RigidTransform<T> X;
  X.R.col(K) = X_WP.R.col(K);
  X.R.col(i1) = cq * X_WP.R.col(i1) + sq * X_WP.R.col(i2);
  X.R.col(i2) = cq * X_WP.R.col(i2) - sq * X_WP.R.col(i1);
  X.p = X_WP.p + internal::Multiply3(X_WP.R, b.joint.X_PJ.p);
  // Stored column by column, as the children load it.
  RigidTransform<T>& X_WB = w.X_WB[i];
  for (int k = 0; k < 3; ++k) X_WB.R.col(k) = X.R.col(k);
  X_WB.p = X.p;
  const Vector3<T> axis_W = X.R.col(K) * b.axis_sign;
  S_W->template head<3>() = axis_W;
  S_W->template tail<3>() = internal::Cross(X.p, axis_W);
  return X;
}

// X_PB, X_WB of body i from q, and its joint's subspace columns in world
// coordinates written to S_W[0 .. nv_i); returns X_WB. For the common
// joints the world columns come straight from X_WB (a revolute joint's
// world axis is a column of R_WB or R_WB times the axis), not from a 6x6
// transform of S.
template <typename T>
TERN_ALWAYS_INLINE RigidTransform<T> WorldPoseAndSubspace(
    const RigidBody<T>& b, int i, const T* q, const Workspace<T>& w,
    SpatialMotion<T>* S_W) {
  if (b.simple_revolute && b.parent != 0) {
    return WithAxis(b.axis_index, [&](auto K) {
      return SimpleRevoluteWorldPose<K>(b, i, q, w, S_W);
    });
  }
  internal::JointPoseAndSubspace(b, q + b.position_start, &w.X_PB[i],
                                 &w.S[i]);
  if (b.parent == 0) {
    w.X_WB[i] = w.X_PB[i];
  } else {
    w.X_WB[i] = w.X_WB[b.parent] * w.X_PB[i];
  }
  const RigidTransform<T>& X = w.X_WB[i];
  switch (b.joint.type) {
    case JointType::kFixed:
      return X;
    case JointType::kRevolute: {
      Vector3<T> axis_W;
      if (b.axis_index >= 0) {
        axis_W = X.R.col(b.axis_index) * b.axis_sign;
      } else {
        axis_W = internal::Multiply3(X.R, b.joint.axis);
      }
      S_W[0].template head<3>() = axis_W;
      S_W[0].template tail<3>() = internal::Cross(X.p, axis_W);
      return X;
    }
    case JointType::kPrismatic:
      S_W[0].template head<3>().setZero();
      S_W[0].template tail<3>().noalias() = X.R * b.joint.axis;
      return X;
    case JointType::kFloating:
      for (int k = 0; k < 3; ++k) {
        S_W[k].template head<3>() = X.R.col(k);
        S_W[k].template tail<3>() = internal::Cross(X.p, X.R.col(k));
        S_W[k + 3].template head<3>().setZero();
        S_W[k + 3].template tail<3>() = X.R.col(k);
      }
      return X;
    case JointType::kBall:
      for (int k = 0; k < 3; ++k) {
        S_W[k].template head<3>() = X.R.col(k);
        S_W[k].template tail<3>() = internal::Cross(X.p, X.R.col(k));
      }
      return X;
    case JointType::kPlanar:
      for (int k = 0; k < 3; ++k) {
        S_W[k] = TransformMotion(X, SpatialMotion<T>(w.S[i].col(k)));
      }
      return X;
  }
  return X;
}

}  // namespace

namespace {

// R x for R = R_K(angle), the rotation about e_K with c = cos and s = sin of
// the angle: only the components i1, i2 (cyclic after K) mix. R^T x is the
// rotation by -angle: RotateAboutAxis<K>(c, -s, x).
template <int K, typename T>
TERN_ALWAYS_INLINE Vector3<T> RotateAboutAxis(const T& c, const T& s,
                                              const Vector3<T>& x) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  Vector3<T> y;
  y(K) = x(K);
  y(i1) = c * x(i1) - s * x(i2);
  y(i2) = s * x(i1) + c * x(i2);
  return y;
}

// RNEA pass-1 step (RBDA Table 5.1) for a body with b.simple_revolute about
// e_K: X_PB = (R_K(angle), p) and S = [axis_sign e_K; 0], so X_PB^-1 costs
// two plane rotations, S qd adds to one component and v x (S qd) is a
// permutation of v's components scaled by the joint rate.
template <int K, typename T>
TERN_ALWAYS_INLINE void RneaSimpleRevoluteKinematics(const RigidBody<T>& b,
                                                     int i, const T* q,
                                                     const T* v,
                                                     const T* vdot,
                                                     const Workspace<T>& c) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  T cq, sq;
  internal::SimpleRevolutePose(b, K, q + b.position_start, &c.X_PB[i],
                               &c.S[i], &cq, &sq);
  const T nsq = -sq;  // X_PB^-1 rotates by R_K(angle)^T = R_K(-angle)
  const Vector3<T>& p = b.joint.X_PJ.p;
  const T wJ = b.axis_sign * v[b.velocity_start];
  const T aJ = b.axis_sign * vdot[b.velocity_start];
  const SpatialMotion<T>& V_p = c.V[b.parent];
  const SpatialMotion<T>& a_p = c.a[b.parent];
  // V = X^-1 V_p + S qd.
  const Vector3<T> Vp_w = V_p.template head<3>();
  const Vector3<T> Vp_v = V_p.template tail<3>() - internal::Cross(p, Vp_w);
  Vector3<T> w = RotateAboutAxis<K>(cq, nsq, Vp_w);
  const Vector3<T> vl = RotateAboutAxis<K>(cq, nsq, Vp_v);
  w(K) += wJ;
  // a = X^-1 a_p + S qdd + V x (S qd), with x x e_K = x_i2 e_i1 - x_i1 e_i2.
  const Vector3<T> ap_w = a_p.template head<3>();
  const Vector3<T> ap_v = a_p.template tail<3>() - internal::Cross(p, ap_w);
  Vector3<T> aw = RotateAboutAxis<K>(cq, nsq, ap_w);
  Vector3<T> av = RotateAboutAxis<K>(cq, nsq, ap_v);
  aw(K) += aJ;
  aw(i1) += w(i2) * wJ;
  aw(i2) -= w(i1) * wJ;
  av(i1) += vl(i2) * wJ;
  av(i2) -= vl(i1) * wJ;
  SpatialMotion<T>& V = c.V[i];
  SpatialMotion<T>& a = c.a[i];
  SpatialMotion<T>& vJ = c.vJ[i];
  for (int k = 0; k < 3; ++k) {
    V(k) = w(k);
    V(k + 3) = vl(k);
    a(k) = aw(k);
    a(k + 3) = av(k);
    vJ(k) = vJ(k + 3) = T(0);
  }
  vJ(K) = wJ;
}

// RNEA pass-2 step for a body with b.simple_revolute about e_K: tau_i =
// S^T f_i and f_parent += X_PB* f_i = [R n + p x (R f); R f].
template <int K, typename T>
TERN_ALWAYS_INLINE void RneaSimpleRevoluteForce(const RigidBody<T>& b, int i,
                                                const Workspace<T>& c,
                                                T* tau) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  const SpatialForce<T>& f = c.f[i];
  *tau = b.axis_sign * f(K);
  if (b.parent > 0) {
    const Matrix3<T>& R = c.X_PB[i].R;
    const T cq = R(i1, i1), sq = R(i2, i1);
    const Vector3<T> fl =
        RotateAboutAxis<K>(cq, sq, Vector3<T>(f.template tail<3>()));
    const Vector3<T> n =
        RotateAboutAxis<K>(cq, sq, Vector3<T>(f.template head<3>())) +
        internal::Cross(b.joint.X_PJ.p, fl);
    SpatialForce<T>& f_p = c.f[b.parent];
    for (int k = 0; k < 3; ++k) {
      f_p(k) += n(k);
      f_p(k + 3) += fl(k);
    }
  }
}

// f_i = I a_i + v_i x* (I v_i) (RBDA eq. 5.9) in body coordinates.
template <typename T>
TERN_ALWAYS_INLINE void RneaBodyForce(const SpatialInertia<T>& I,
                                      const SpatialMotion<T>& V,
                                      const SpatialMotion<T>& a,
                                      SpatialForce<T>* f) {
  const SpatialForce<T> Ia = I * a;
  const SpatialForce<T> h = CrossForce(V, SpatialForce<T>(I * V));
  for (int k = 0; k < 6; ++k) (*f)(k) = Ia(k) + h(k);
}

}  // namespace

template <typename T>
const MatrixX<T>& MassMatrix(const RigidBodyTree<T>& tree,
                             KinematicsCache<T>* cache, const VectorX<T>& q) {
  CheckSizes("MassMatrix", tree, *cache, q.size(), -1);
  const Workspace<T> c(cache);
  const int nb = tree.num_bodies();
  const int nv = tree.num_velocities();
  const RigidBody<T>* bodies = tree.bodies().data();
  // The composite rigid body algorithm (RBDA Table 6.2) with composite
  // inertias and joint subspaces expressed in world coordinates: then
  // composites add without transforms and H_ij = S_j . (Ic_i S_i) needs no
  // force transform per ancestor (the same choice as in Featherstone's
  // sec. 6.2 remark on the choice of coordinates). Composite inertias are
  // kept as the 10 parameters (m, h, I), not as 6x6 matrices.
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    const RigidTransform<T> X_WB =
        WorldPoseAndSubspace(b, i, q.data(), c, &c.S_W[b.velocity_start]);
    // A body welded to the world (no dofs, parent 0) does not enter H; one
    // welded to another body is counted in its carrier's inertia, and only
    // passes on the composites of any children it has.
    if (b.parent == 0 && b.num_velocities == 0) continue;
    if (b.welded) {
      c.Ic[i] = SpatialInertia<T>();
    } else {
      c.Ic[i] = b.central_inertia_with_welded.InFrame(X_WB);
    }
  }
  // Only the entries of dof pairs on one branch are written; the others
  // are structural zeros, set when the cache was made (KinematicsCache) and
  // written by nothing else, so H is not cleared here.
  MatrixX<T>& H = cache->H;
  T* Hd = H.data();
  // The dof-level parent array walks exactly the nonzeros above the
  // diagonal of each column (RBDA Table 6.2 on the expanded tree).
  const int* lambda = tree.velocity_parents().data();
  const bool floating_root =
      nb > 1 && bodies[1].joint.type == JointType::kFloating;
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    const int vi = b.velocity_start;
    for (int k = 0; k < b.num_velocities; ++k) {
      const int col = vi + k;
      const SpatialForce<T> F = c.Ic[i] * c.S_W[col];
      Hd[col * (nv + 1)] = c.S_W[col].dot(F) + b.joint.armature;
      for (int j = lambda[col]; j >= 0; j = lambda[j]) {
        if (j == 5 && floating_root) {
          // The six world columns of a free root joint are X_WB's motion
          // transform, so their products with F are X_WB*^-1 F.
          const SpatialForce<T> F_B = InverseTransformForce(c.X_WB[1], F);
          for (int r = 0; r < 6; ++r) {
            Hd[col * nv + r] = F_B(r);
            Hd[r * nv + col] = F_B(r);
          }
          break;
        }
        const T Hij = c.S_W[j].dot(F);
        Hd[col * nv + j] = Hij;
        Hd[j * nv + col] = Hij;
      }
    }
    if (b.parent > 0) c.Ic[b.parent] += c.Ic[i];
  }
  return H;
}

template <typename T>
const VectorX<T>& InverseDynamics(const RigidBodyTree<T>& tree,
                                  KinematicsCache<T>* cache,
                                  const VectorX<T>& q, const VectorX<T>& v,
                                  const VectorX<T>& vdot,
                                  const std::vector<SpatialForce<T>>* f_ext) {
  CheckSizes("InverseDynamics", tree, *cache, q.size(), v.size(), vdot.size(),
             "vdot");
  CheckExternalForces("InverseDynamics", tree, f_ext);
  const Workspace<T> c(cache);
  const int nb = tree.num_bodies();
  const RigidBody<T>* bodies = tree.bodies().data();
  T* tau = cache->tau.data();
  // RNEA (RBDA Table 5.1) in body coordinates.
  c.a[0] = GravityAcceleration(tree);
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    internal::RunStep<T>([&] {
      const int p = b.parent;
      if (b.simple_revolute) {
        WithAxis(b.axis_index, [&](auto K) {
          RneaSimpleRevoluteKinematics<K>(b, i, q.data(), v.data(),
                                          vdot.data(), c);
        });
      } else {
        internal::JointPoseAndSubspace(b, q.data() + b.position_start,
                                       &c.X_PB[i], &c.S[i]);
        const SpatialMotion<T> vJ =
            internal::JointVelocity(b, c.S[i], v.data() + b.velocity_start);
        c.vJ[i] = vJ;
        c.V[i] = InverseTransformMotion(c.X_PB[i], c.V[p]);
        c.V[i] += vJ;
        c.a[i] = InverseTransformMotion(c.X_PB[i], c.a[p]);
        c.a[i] +=
            internal::JointVelocity(b, c.S[i], vdot.data() + b.velocity_start);
        c.a[i] += CrossMotion(c.V[i], vJ);
        internal::AddJointBias(b, vJ, &c.a[i]);
      }
      // Bodies welded to the world or to a carrier add no inertial force of
      // their own (the carrier's inertia includes theirs).
      if (b.welded || (p == 0 && b.num_velocities == 0)) {
        c.f[i].setZero();
      } else {
        RneaBodyForce(b.inertia_with_welded, c.V[i], c.a[i], &c.f[i]);
      }
      if (f_ext != nullptr) c.f[i] -= (*f_ext)[i];
    });
  }
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    internal::RunStep<T>([&] {
      const int vi = b.velocity_start;
      if (b.simple_revolute) {
        WithAxis(b.axis_index,
                 [&](auto K) { RneaSimpleRevoluteForce<K>(b, i, c, tau + vi); });
      } else {
        ProjectForce(b, c.S[i], c.f[i], tau + vi);
        if (b.parent > 0) c.f[b.parent] += TransformForce(c.X_PB[i], c.f[i]);
      }
      for (int k = 0; k < b.num_velocities; ++k) {
        tau[vi + k] +=
            b.joint.damping * v(vi + k) + b.joint.armature * vdot(vi + k);
      }
    });
  }
  return cache->tau;
}

template <typename T>
const VectorX<T>& BiasTerm(const RigidBodyTree<T>& tree,
                           KinematicsCache<T>* cache, const VectorX<T>& q,
                           const VectorX<T>& v,
                           const std::vector<SpatialForce<T>>* f_ext) {
  CheckSizes("BiasTerm", tree, *cache, q.size(), v.size());
  // vdot = 0 without a temporary: vdot's storage is the cache's.
  cache->vdot.setZero();
  return InverseDynamics(tree, cache, q, v, cache->vdot, f_ext);
}

namespace {

// The inverse of a small symmetric positive definite matrix (D = S^T IA S of
// a multi-dof joint) by Cholesky, D = L L^T, then D^-1 = L^-T L^-1, in
// fixed-size loops the compiler unrolls: Eigen's LLT solve with a matrix
// right-hand side goes through its blocked triangular solver, which for a
// 6x6 costs several times the arithmetic.
template <typename T, int N, typename Out>
TERN_ALWAYS_INLINE void SpdInverse(const Eigen::Matrix<T, N, N>& D, Out* Dinv) {
  using std::sqrt;
  Eigen::Matrix<T, N, N> L = Eigen::Matrix<T, N, N>::Zero();
  Eigen::Matrix<T, N, 1> inv_diag;
  for (int j = 0; j < N; ++j) {
    T d = D(j, j);
    for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    L(j, j) = sqrt(d);
    inv_diag(j) = T(1) / L(j, j);
    for (int i = j + 1; i < N; ++i) {
      T x = D(i, j);
      for (int k = 0; k < j; ++k) x -= L(i, k) * L(j, k);
      L(i, j) = x * inv_diag(j);
    }
  }
  // Linv = L^-1 (lower triangular), column by column.
  Eigen::Matrix<T, N, N> Linv = Eigen::Matrix<T, N, N>::Zero();
  for (int j = 0; j < N; ++j) {
    Linv(j, j) = inv_diag(j);
    for (int i = j + 1; i < N; ++i) {
      T x(0);
      for (int k = j; k < i; ++k) x -= L(i, k) * Linv(k, j);
      Linv(i, j) = x * inv_diag(i);
    }
  }
  // D^-1 = Linv^T Linv, symmetric.
  for (int j = 0; j < N; ++j) {
    for (int i = j; i < N; ++i) {
      T x(0);
      for (int k = i; k < N; ++k) x += Linv(k, i) * Linv(k, j);
      (*Dinv)(i, j) = x;
      (*Dinv)(j, i) = x;
    }
  }
}

// ABA pass-2 step for body i with an N-dof joint (N = 1 for revolute and
// prismatic, 3 for ball and planar, 6 for floating), with fixed sizes so
// nothing is allocated; quantities are in world coordinates. The parent's
// articulated inertia and bias force receive
//   Ia = IA - U D^-1 U^T,  pa = p + Ia c + U D^-1 u   (RBDA Table 7.1)
// written as IA + (-U D^-1) U^T and p + IA c + U D^-1 (u - U^T c), so the
// 6x6 Ia is never formed.
template <typename T, int N>
TERN_ALWAYS_INLINE void AbaBackward(const RigidBody<T>& b,
                                    const Workspace<T>& c, int i,
                                    const VectorX<T>& v,
                                    const VectorX<T>& tau) {
  const int vi = b.velocity_start;
  if constexpr (N == 1) {
    // One dof: U and S are vectors, D a scalar; spelled out in always-inlined
    // kernels so the code does not depend on GCC's inlining of Eigen.
    const SpatialMotion<T>& s = c.S_W[vi];
    const SpatialMotion<T>& c_i = c.c_W[i];
    const Matrix6<T>& IA_i = c.IA[i];
    // U = IA s and IA c in one sweep over IA's columns.
    Vector6<T> U = IA_i.col(0) * s(0);
    Vector6<T> IAc = IA_i.col(0) * c_i(0);
    for (int k = 1; k < 6; ++k) {
      U += IA_i.col(k) * s(k);
      IAc += IA_i.col(k) * c_i(k);
    }
    c.U[i].col(0) = U;
    const T Dinv = T(1) / (s.dot(U) + b.joint.armature);
    c.Dinv[i](0, 0) = Dinv;
    const T u = tau(vi) - s.dot(c.f[i]) - b.joint.damping * v(vi);
    c.u[i](0) = u;
    if (b.parent > 0) {
      const int p = b.parent;
      const Vector6<T> UDinv = U * Dinv;
      const SpatialForce<T> pa = c.f[i] + IAc + UDinv * (u - U.dot(c_i));
      c.f[p] += pa;
      // IA_p += IA_i - UDinv U^T in one sweep over the columns.
      Matrix6<T>& IA_p = c.IA[p];
      for (int k = 0; k < 6; ++k) {
        IA_p.col(k) += IA_i.col(k) - UDinv * U(k);
      }
    }
    return;
  }
  Eigen::Matrix<T, 6, N> S;
  for (int k = 0; k < N; ++k) S.col(k) = c.S_W[vi + k];
  auto U = c.U[i].template leftCols<N>();
  U.noalias() = c.IA[i] * S;
  Eigen::Matrix<T, N, N> D;
  D.noalias() = S.transpose() * U;
  D.diagonal().array() += b.joint.armature;
  auto Dinv = c.Dinv[i].template topLeftCorner<N, N>();
  SpdInverse<T, N>(D, &Dinv);
  auto u = c.u[i].template head<N>();
  u = tau.template segment<N>(vi);
  u.noalias() -= S.transpose() * c.f[i];
  u -= b.joint.damping * v.template segment<N>(vi);
  if (b.parent > 0) {
    Eigen::Matrix<T, 6, N> UDinv;
    UDinv.noalias() = U * Dinv;
    Eigen::Matrix<T, N, 1> w = u;
    w.noalias() -= U.transpose() * c.c_W[i];
    const int p = b.parent;
    Matrix6<T>& IA_p = c.IA[p];
    const Matrix6<T>& IA_i = c.IA[i];
    SpatialForce<T> pa = c.f[i];
    pa.noalias() += UDinv * w;
    pa.noalias() += IA_i * c.c_W[i];
    c.f[p] += pa;
    IA_p += IA_i;
    IA_p.noalias() -= UDinv * U.transpose();
  }
}

// ABA pass-3 step: a = a_parent + c; vdot_i = D^-1 (u - U^T a); a += S vdot_i.
template <typename T, int N>
TERN_ALWAYS_INLINE void AbaForward(const RigidBody<T>& b, const Workspace<T>& c,
                                   int i, SpatialMotion<T>* a) {
  const int vi = b.velocity_start;
  if constexpr (N == 1) {
    const T x = c.Dinv[i](0, 0) * (c.u[i](0) - c.U[i].col(0).dot(*a));
    c.vdot[vi] = x;
    *a += c.S_W[vi] * x;
    return;
  }
  Eigen::Matrix<T, N, 1> w = c.u[i].template head<N>();
  w.noalias() -= c.U[i].template leftCols<N>().transpose() * *a;
  Eigen::Map<Eigen::Matrix<T, N, 1>> x(c.vdot + vi);
  x.noalias() = c.Dinv[i].template topLeftCorner<N, N>() * w;
  for (int k = 0; k < N; ++k) *a += c.S_W[vi + k] * x(k);
}

// ABA pass-1 step for body i: pose, world subspace, velocity, the
// velocity-product acceleration c_i = v_i x vJ + X c_J, and the rigid-body
// inertia and bias force that start IA_i and pA_i.
template <typename T>
TERN_ALWAYS_INLINE void AbaKinematics(const RigidBody<T>& b, int i,
                                      const Workspace<T>& c, const T* q,
                                      const T* v,
                                      const std::vector<SpatialForce<T>>* f_ext) {
  const int vi = b.velocity_start;
  const RigidTransform<T> X = WorldPoseAndSubspace(b, i, q, c, &c.S_W[vi]);
  SpatialMotion<T> vJ;
  if (b.num_velocities == 1) {
    vJ = c.S_W[vi] * v[vi];
  } else {
    vJ.setZero();
    for (int k = 0; k < b.num_velocities; ++k) vJ += c.S_W[vi + k] * v[vi + k];
  }
  c.V_W[i] = c.V_W[b.parent] + vJ;
  c.c_W[i] = CrossMotion(c.V_W[i], vJ);
  if (b.joint.type == JointType::kPlanar) {
    SpatialMotion<T> cJ = SpatialMotion<T>::Zero();
    internal::AddJointBias(b, internal::JointVelocity(b, c.S[i], v + vi),
                           &cJ);
    c.c_W[i] += TransformMotion(X, cJ);
  }
  // A body welded to the world (often a robot's base) has no dofs and
  // passes nothing to a parent: its inertia does not enter. One welded to
  // another body is counted in its carrier's inertia and only passes on
  // the external force and the articulated inertias of its children.
  if (b.parent == 0 && b.num_velocities == 0) return;
  if (b.welded) {
    c.IA[i].setZero();
    c.f[i].setZero();
  } else {
    const SpatialInertia<T> I_W = b.central_inertia_with_welded.InFrame(X);
    I_W.WriteMatrix(&c.IA[i]);
    c.f[i] = CrossForce(c.V_W[i], SpatialForce<T>(I_W * c.V_W[i]));
  }
  if (f_ext != nullptr) c.f[i] -= TransformForce(X, (*f_ext)[i]);
}

}  // namespace

template <typename T>
const VectorX<T>& ForwardDynamics(const RigidBodyTree<T>& tree,
                                  KinematicsCache<T>* cache,
                                  const VectorX<T>& q, const VectorX<T>& v,
                                  const VectorX<T>& tau,
                                  const std::vector<SpatialForce<T>>* f_ext) {
  CheckSizes("ForwardDynamics", tree, *cache, q.size(), v.size(), tau.size(),
             "tau");
  CheckExternalForces("ForwardDynamics", tree, f_ext);
  const Workspace<T> c(cache);
  const int nb = tree.num_bodies();
  const RigidBody<T>* bodies = tree.bodies().data();
  // The articulated-body algorithm (RBDA Table 7.1) in world coordinates, as
  // RBDA sec. 7.3 allows: articulated inertias and bias forces then pass to
  // the parent without a 6x6 transform per body.
  // Pass 1: poses, velocities, velocity-product accelerations c_i = v_i x vJ
  // + X c_J, rigid-body inertias and bias forces.
  for (int i = 1; i < nb; ++i) {
    internal::RunStep<T>(
        [&] { AbaKinematics(bodies[i], i, c, q.data(), v.data(), f_ext); });
  }
  // Pass 2: articulated inertias and bias forces, leaves to root.
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    switch (b.num_velocities) {
      case 0:
        // A welded body moves with its parent (c_i = 0): its inertia and
        // bias force add to the parent's unchanged.
        if (b.parent > 0) {
          internal::RunStep<T>([&] {
            c.IA[b.parent] += c.IA[i];
            c.f[b.parent] += c.f[i];
          });
        }
        break;
      case 1:
        internal::RunStep<T>([&] { AbaBackward<T, 1>(b, c, i, v, tau); });
        break;
      case 3:
        internal::RunStep<T>([&] { AbaBackward<T, 3>(b, c, i, v, tau); });
        break;
      case 6:
        internal::RunStep<T>([&] { AbaBackward<T, 6>(b, c, i, v, tau); });
        break;
    }
  }
  // Pass 3: accelerations, root to leaves, as one flattened step: each
  // body's work is short, and the acceleration passes on in registers.
  c.a[0] = GravityAcceleration(tree);
  internal::RunStep<T>([&] {
    for (int i = 1; i < nb; ++i) {
      const RigidBody<T>& b = bodies[i];
      SpatialMotion<T> a = c.a[b.parent] + c.c_W[i];
      switch (b.num_velocities) {
        case 0:
          break;
        case 1:
          AbaForward<T, 1>(b, c, i, &a);
          break;
        case 3:
          AbaForward<T, 3>(b, c, i, &a);
          break;
        case 6:
          AbaForward<T, 6>(b, c, i, &a);
          break;
      }
      c.a[i] = a;
    }
  });
  return cache->vdot;
}

#define TERN_INSTANTIATE_DYNAMICS(T)                                    \
  template const MatrixX<T>& MassMatrix<T>(                             \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&); \
  template const VectorX<T>& InverseDynamics<T>(                        \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,  \
      const VectorX<T>&, const VectorX<T>&,                             \
      const std::vector<SpatialForce<T>>*);                             \
  template const VectorX<T>& BiasTerm<T>(                               \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,  \
      const VectorX<T>&, const std::vector<SpatialForce<T>>*);          \
  template const VectorX<T>& ForwardDynamics<T>(                        \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,  \
      const VectorX<T>&, const VectorX<T>&,                             \
      const std::vector<SpatialForce<T>>*);

TERN_INSTANTIATE_DYNAMICS(double)
TERN_INSTANTIATE_DYNAMICS(AutoDiffXd)

}  // namespace tern
