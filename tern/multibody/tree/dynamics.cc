#include "tern/multibody/tree/dynamics.h"

#include <stdexcept>

#include <Eigen/LU>
#include <fmt/format.h>

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

template <typename T>
const MatrixX<T>& MassMatrix(const RigidBodyTree<T>& tree,
                             KinematicsCache<T>* cache, const VectorX<T>& q) {
  CheckSizes("MassMatrix", tree, *cache, q.size(), -1);
  KinematicsCache<T>& c = *cache;
  const int nb = tree.num_bodies();
  const auto& bodies = tree.bodies();
  // The composite rigid body algorithm (RBDA Table 6.2) with composite
  // inertias and joint subspaces expressed in world coordinates: then
  // composites add without transforms and H_ij = S_j . (Ic_i S_i) needs no
  // force transform per ancestor (the same choice as in Featherstone's
  // sec. 6.2 remark on the choice of coordinates).
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    internal::JointPoseAndSubspace(b, q.data() + b.position_start, &c.X_PB[i],
                                   &c.S[i]);
    if (b.parent == 0) {
      c.X_WB[i] = c.X_PB[i];
    } else {
      c.X_WB[i] = c.X_WB[b.parent] * c.X_PB[i];
    }
    c.Ic[i] = b.inertia.Transformed(c.X_WB[i]);
    for (int k = 0; k < b.num_velocities; ++k) {
      c.S_W[b.velocity_start + k] =
          TransformMotion(c.X_WB[i], SpatialMotion<T>(c.S[i].col(k)));
    }
  }
  MatrixX<T>& H = c.H;
  H.setZero();
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    const int ni = b.num_velocities;
    const int vi = b.velocity_start;
    for (int k = 0; k < ni; ++k) {
      const SpatialForce<T> F = c.Ic[i] * c.S_W[vi + k];
      for (int l = 0; l <= k; ++l) {
        H(vi + l, vi + k) = H(vi + k, vi + l) = c.S_W[vi + l].dot(F);
      }
      H(vi + k, vi + k) += b.joint.armature;
      for (int j = b.parent; j > 0; j = bodies[j].parent) {
        const RigidBody<T>& bj = bodies[j];
        for (int l = 0; l < bj.num_velocities; ++l) {
          const int vj = bj.velocity_start + l;
          H(vj, vi + k) = H(vi + k, vj) = c.S_W[vj].dot(F);
        }
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
  KinematicsCache<T>& c = *cache;
  const int nb = tree.num_bodies();
  const auto& bodies = tree.bodies();
  c.a[0] = GravityAcceleration(tree);
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    const int p = b.parent;
    internal::JointPoseAndSubspace(b, q.data() + b.position_start, &c.X_PB[i],
                                   &c.S[i]);
    const SpatialMotion<T> vJ =
        internal::JointVelocity(b, c.S[i], v.data() + b.velocity_start);
    c.vJ[i] = vJ;
    c.V[i] = InverseTransformMotion(c.X_PB[i], c.V[p]);
    c.V[i] += vJ;
    c.a[i] = InverseTransformMotion(c.X_PB[i], c.a[p]);
    c.a[i] += internal::JointVelocity(b, c.S[i], vdot.data() + b.velocity_start);
    c.a[i] += CrossMotion(c.V[i], vJ);
    internal::AddJointBias(b, vJ, &c.a[i]);
    const SpatialInertia<T>& I = b.inertia;
    c.f[i] = I * c.a[i];
    c.f[i] += CrossForce(c.V[i], SpatialForce<T>(I * c.V[i]));
    if (f_ext != nullptr) c.f[i] -= (*f_ext)[i];
  }
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    const int vi = b.velocity_start;
    ProjectForce(b, c.S[i], c.f[i], c.tau.data() + vi);
    for (int k = 0; k < b.num_velocities; ++k) {
      c.tau(vi + k) += b.joint.damping * v(vi + k) +
                       b.joint.armature * vdot(vi + k);
    }
    if (b.parent > 0) c.f[b.parent] += TransformForce(c.X_PB[i], c.f[i]);
  }
  return c.tau;
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

// ABA pass-2 step for a joint with N > 1 dofs (ball, planar: 3; floating: 6),
// with fixed sizes so nothing is allocated. Quantities are in world
// coordinates.
template <typename T, int N>
void AbaMultiDofBackward(const RigidBody<T>& b, KinematicsCache<T>* cache,
                         int i, const VectorX<T>& v, const VectorX<T>& tau,
                         Matrix6<T>* Ia, SpatialForce<T>* pa) {
  KinematicsCache<T>& c = *cache;
  const int vi = b.velocity_start;
  Eigen::Matrix<T, 6, N> S;
  for (int k = 0; k < N; ++k) S.col(k) = c.S_W[vi + k];
  Eigen::Matrix<T, 6, N> U;
  U.noalias() = c.IA[i] * S;
  Eigen::Matrix<T, N, N> D;
  D.noalias() = S.transpose() * U;
  D.diagonal().array() += b.joint.armature;
  const Eigen::Matrix<T, N, N> Dinv = D.inverse();
  Eigen::Matrix<T, N, 1> u = tau.template segment<N>(vi);
  u.noalias() -= S.transpose() * c.f[i];
  u -= b.joint.damping * v.template segment<N>(vi);
  c.U[i].template leftCols<N>() = U;
  c.Dinv[i].template topLeftCorner<N, N>() = Dinv;
  c.u[i].template head<N>() = u;
  if (b.parent > 0) {
    const Eigen::Matrix<T, 6, N> UDinv = U * Dinv;
    *Ia = c.IA[i];
    Ia->noalias() -= UDinv * U.transpose();
    *pa = c.f[i];
    pa->noalias() += *Ia * c.c_W[i];
    pa->noalias() += UDinv * u;
  }
}

template <typename T, int N>
void AbaMultiDofForward(const RigidBody<T>& b, KinematicsCache<T>* cache,
                        int i, SpatialMotion<T>* a) {
  KinematicsCache<T>& c = *cache;
  const int vi = b.velocity_start;
  const Eigen::Matrix<T, N, 1> x =
      c.Dinv[i].template topLeftCorner<N, N>() *
      (c.u[i].template head<N>() - c.U[i].template leftCols<N>().transpose() * *a);
  c.vdot.template segment<N>(vi) = x;
  for (int k = 0; k < N; ++k) *a += c.S_W[vi + k] * x(k);
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
  KinematicsCache<T>& c = *cache;
  const int nb = tree.num_bodies();
  const auto& bodies = tree.bodies();
  // The articulated-body algorithm (RBDA Table 7.1) in world coordinates, as
  // RBDA sec. 7.3 allows: articulated inertias and bias forces then pass to
  // the parent without a 6x6 transform per body.
  // Pass 1: poses, velocities, velocity-product accelerations c_i = v_i x vJ
  // + X c_J, rigid-body inertias and bias forces.
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    const int p = b.parent;
    internal::JointPoseAndSubspace(b, q.data() + b.position_start, &c.X_PB[i],
                                   &c.S[i]);
    if (p == 0) {
      c.X_WB[i] = c.X_PB[i];
    } else {
      c.X_WB[i] = c.X_WB[p] * c.X_PB[i];
    }
    const RigidTransform<T>& X = c.X_WB[i];
    const int vi = b.velocity_start;
    for (int k = 0; k < b.num_velocities; ++k) {
      c.S_W[vi + k] = TransformMotion(X, SpatialMotion<T>(c.S[i].col(k)));
    }
    const SpatialMotion<T> vJ_B =
        internal::JointVelocity(b, c.S[i], v.data() + vi);
    const SpatialMotion<T> vJ = TransformMotion(X, vJ_B);
    c.V_W[i] = c.V_W[p] + vJ;
    c.c_W[i] = CrossMotion(c.V_W[i], vJ);
    if (b.joint.type == JointType::kPlanar) {
      SpatialMotion<T> cJ = SpatialMotion<T>::Zero();
      internal::AddJointBias(b, vJ_B, &cJ);
      c.c_W[i] += TransformMotion(X, cJ);
    }
    const SpatialInertia<T> I_W = b.inertia.Transformed(X);
    c.IA[i] = I_W.ToMatrix();
    c.f[i] = CrossForce(c.V_W[i], SpatialForce<T>(I_W * c.V_W[i]));
    if (f_ext != nullptr) c.f[i] -= TransformForce(X, (*f_ext)[i]);
  }
  // Pass 2: articulated inertias and bias forces, leaves to root.
  Matrix6<T> Ia;
  SpatialForce<T> pa;
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    const int vi = b.velocity_start;
    const bool propagate = b.parent > 0;
    switch (b.num_velocities) {
      case 0:
        if (propagate) {
          Ia = c.IA[i];
          pa = c.f[i];
          pa.noalias() += Ia * c.c_W[i];
        }
        break;
      case 1: {
        const Vector6<T>& s = c.S_W[vi];
        const Vector6<T> U = c.IA[i] * s;
        const T D = s.dot(U) + b.joint.armature;
        const T Dinv = T(1) / D;
        const T u = tau(vi) - b.joint.damping * v(vi) - s.dot(c.f[i]);
        c.U[i].col(0) = U;
        c.Dinv[i](0, 0) = Dinv;
        c.u[i](0) = u;
        if (propagate) {
          const Vector6<T> UDinv = U * Dinv;
          Ia = c.IA[i];
          Ia.noalias() -= UDinv * U.transpose();
          pa = c.f[i];
          pa.noalias() += Ia * c.c_W[i];
          pa += UDinv * u;
        }
        break;
      }
      case 3:
        AbaMultiDofBackward<T, 3>(b, cache, i, v, tau, &Ia, &pa);
        break;
      case 6:
        AbaMultiDofBackward<T, 6>(b, cache, i, v, tau, &Ia, &pa);
        break;
    }
    if (propagate) {
      c.IA[b.parent] += Ia;
      c.f[b.parent] += pa;
    }
  }
  // Pass 3: accelerations, root to leaves.
  c.a[0] = GravityAcceleration(tree);
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    SpatialMotion<T> a = c.a[b.parent] + c.c_W[i];
    const int vi = b.velocity_start;
    switch (b.num_velocities) {
      case 0:
        break;
      case 1: {
        const T x = c.Dinv[i](0, 0) * (c.u[i](0) - c.U[i].col(0).dot(a));
        c.vdot(vi) = x;
        a += c.S_W[vi] * x;
        break;
      }
      case 3:
        AbaMultiDofForward<T, 3>(b, cache, i, &a);
        break;
      case 6:
        AbaMultiDofForward<T, 6>(b, cache, i, &a);
        break;
    }
    c.a[i] = a;
  }
  return c.vdot;
}

#define TERN_INSTANTIATE_DYNAMICS(T)                                         \
  template const MatrixX<T>& MassMatrix<T>(                                  \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&);      \
  template const VectorX<T>& InverseDynamics<T>(                             \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,       \
      const VectorX<T>&, const VectorX<T>&,                                  \
      const std::vector<SpatialForce<T>>*);                                  \
  template const VectorX<T>& BiasTerm<T>(                                    \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,       \
      const VectorX<T>&, const std::vector<SpatialForce<T>>*);               \
  template const VectorX<T>& ForwardDynamics<T>(                             \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,       \
      const VectorX<T>&, const VectorX<T>&,                                  \
      const std::vector<SpatialForce<T>>*);

TERN_INSTANTIATE_DYNAMICS(double)
TERN_INSTANTIATE_DYNAMICS(AutoDiffXd)

}  // namespace tern
