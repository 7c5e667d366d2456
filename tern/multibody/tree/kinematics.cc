#include "tern/multibody/tree/kinematics.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/default_scalars.h"
#include "tern/multibody/tree/joint_kernels.h"

namespace tern {

using internal::CheckSizes;

namespace {

template <typename T>
void PositionPass(const RigidBodyTree<T>& tree, KinematicsCache<T>* c,
                  const T* q) {
  const int nb = tree.num_bodies();
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = tree.bodies()[i];
    internal::JointPoseAndSubspace(b, q + b.position_start, &c->X_PB[i],
                                   &c->S[i]);
    if (b.parent == 0) {
      c->X_WB[i] = c->X_PB[i];
    } else {
      c->X_WB[i] = c->X_WB[b.parent] * c->X_PB[i];
    }
    if constexpr (!std::is_same_v<T, double>)
      internal::MakeCoherent(&c->X_WB[i]);
  }
}

template <typename T>
void CheckFrame(const RigidBodyTree<T>& tree, int frame, const char* who) {
  if (frame < 0 || frame >= tree.num_frames()) {
    throw std::invalid_argument(
        fmt::format("{}: frame index {} out of range for tree '{}' ({} frames)",
                    who, frame, tree.name(), tree.num_frames()));
  }
}

}  // namespace

template <typename T>
void ForwardKinematics(const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
                       const VectorX<T>& q) {
  CheckSizes("ForwardKinematics", tree, *cache, q.size(), -1);
  PositionPass(tree, cache, q.data());
}

template <typename T>
void ForwardKinematics(const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
                       const VectorX<T>& q, const VectorX<T>& v) {
  CheckSizes("ForwardKinematics", tree, *cache, q.size(), v.size());
  KinematicsCache<T>& c = *cache;
  PositionPass(tree, cache, q.data());
  const int nb = tree.num_bodies();
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = tree.bodies()[i];
    c.vJ[i] = internal::JointVelocity(b, c.S[i], v.data() + b.velocity_start);
    if (b.parent == 0) {
      // The world is at rest (V and A_bias of body 0 are zero): V = vJ, and
      // V x vJ = vJ x vJ = 0 (a free body, a robot's base: a scene of many
      // free bodies spends most of this pass here).
      c.V[i] = c.vJ[i];
      c.A_bias[i].setZero();
      internal::AddJointBias(b, c.vJ[i], &c.A_bias[i]);
      continue;
    }
    c.V[i] = InverseTransformMotion(c.X_PB[i], c.V[b.parent]);
    c.V[i] += c.vJ[i];
    c.A_bias[i] = InverseTransformMotion(c.X_PB[i], c.A_bias[b.parent]);
    c.A_bias[i] += CrossMotion(c.V[i], c.vJ[i]);
    internal::AddJointBias(b, c.vJ[i], &c.A_bias[i]);
  }
}

template <typename T>
void ForwardKinematics(const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
                       const VectorX<T>& q, const VectorX<T>& v,
                       const VectorX<T>& vdot) {
  CheckSizes("ForwardKinematics", tree, *cache, q.size(), v.size(), vdot.size(),
             "vdot");
  ForwardKinematics(tree, cache, q, v);
  KinematicsCache<T>& c = *cache;
  const int nb = tree.num_bodies();
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = tree.bodies()[i];
    c.A[i] = InverseTransformMotion(c.X_PB[i], c.A[b.parent]);
    c.A[i] += CrossMotion(c.V[i], c.vJ[i]);
    internal::AddJointBias(b, c.vJ[i], &c.A[i]);
    const int nvi = b.num_velocities;
    for (int k = 0; k < nvi; ++k)
      c.A[i] += c.S[i].col(k) * vdot(b.velocity_start + k);
  }
}

template <typename T>
RigidTransform<T> CalcFramePose(const RigidBodyTree<T>& tree,
                                const KinematicsCache<T>& cache, int frame) {
  CheckFrame(tree, frame, "CalcFramePose");
  const Frame<T>& F = tree.frames()[frame];
  return cache.X_WB[F.body] * F.X_BF;
}

template <typename T>
SpatialMotion<T> CalcFrameSpatialVelocity(const RigidBodyTree<T>& tree,
                                          const KinematicsCache<T>& cache,
                                          int frame) {
  CheckFrame(tree, frame, "CalcFrameSpatialVelocity");
  const Frame<T>& F = tree.frames()[frame];
  return InverseTransformMotion(F.X_BF, cache.V[F.body]);
}

namespace {

// Columns of the Jacobian in world coordinates at the world origin (the
// spatial Jacobian of RBDA eq. 4.33 projected on each joint's subspace).
// Calls out(velocity index, world column) for every dof on the path to F.
template <typename T, typename Out>
void ForEachWorldColumn(const RigidBodyTree<T>& tree,
                        const KinematicsCache<T>& cache, int body, Out out) {
  for (int k = body; k > 0; k = tree.bodies()[k].parent) {
    const RigidBody<T>& b = tree.bodies()[k];
    for (int j = 0; j < b.num_velocities; ++j) {
      const SpatialMotion<T> s = cache.S[k].col(j);
      out(b.velocity_start + j, TransformMotion(cache.X_WB[k], s));
    }
  }
}

template <typename T>
void CheckJacobianSize(const RigidBodyTree<T>& tree, Eigen::Index rows,
                       Eigen::Index rows_expected, Eigen::Index cols,
                       const char* who) {
  if (rows != rows_expected || cols != tree.num_velocities()) {
    throw std::invalid_argument(
        fmt::format("{}: J is {}x{} but tree '{}' needs {}x{}", who, rows, cols,
                    tree.name(), rows_expected, tree.num_velocities()));
  }
}

}  // namespace

template <typename T>
void FrameSpatialJacobian(const RigidBodyTree<T>& tree,
                          const KinematicsCache<T>& cache, int frame,
                          Matrix6X<T>* J) {
  CheckFrame(tree, frame, "FrameSpatialJacobian");
  CheckJacobianSize(tree, J->rows(), 6, J->cols(), "FrameSpatialJacobian");
  J->setZero();
  const RigidTransform<T> X_WF = CalcFramePose(tree, cache, frame);
  ForEachWorldColumn(tree, cache, tree.frames()[frame].body,
                     [&](int col, const SpatialMotion<T>& s_W) {
                       J->col(col) = InverseTransformMotion(X_WF, s_W);
                     });
}

template <typename T>
void WorldAlignedJacobian(const RigidBodyTree<T>& tree,
                          const KinematicsCache<T>& cache, int frame,
                          const Vector3<T>& p_FP, Matrix6X<T>* J) {
  CheckFrame(tree, frame, "WorldAlignedJacobian");
  CheckJacobianSize(tree, J->rows(), 6, J->cols(), "WorldAlignedJacobian");
  J->setZero();
  const Vector3<T> p_WP = CalcFramePose(tree, cache, frame) * p_FP;
  ForEachWorldAlignedJacobianColumn(
      tree, cache, tree.frames()[frame].body, p_WP,
      [&](int col, const Vector6<T>& c) { J->col(col) = c; });
}

template <typename T>
Vector6<T> FrameSpatialJacobianDotTimesV(const RigidBodyTree<T>& tree,
                                         const KinematicsCache<T>& cache,
                                         int frame) {
  CheckFrame(tree, frame, "FrameSpatialJacobianDotTimesV");
  const Frame<T>& F = tree.frames()[frame];
  // F is fixed in its body, so d/dt (X_FB V_B) = X_FB A_B.
  return InverseTransformMotion(F.X_BF, cache.A_bias[F.body]);
}

template <typename T>
Vector6<T> WorldAlignedJacobianDotTimesV(const RigidBodyTree<T>& tree,
                                         const KinematicsCache<T>& cache,
                                         int frame, const Vector3<T>& p_FP) {
  CheckFrame(tree, frame, "WorldAlignedJacobianDotTimesV");
  const Frame<T>& F = tree.frames()[frame];
  const RigidTransform<T>& X_WB = cache.X_WB[F.body];
  const Vector3<T> r = F.X_BF * p_FP;  // P in B
  const SpatialMotion<T>& V = cache.V[F.body];
  const SpatialMotion<T>& Ab = cache.A_bias[F.body];
  const Vector3<T> w = V.template head<3>();
  const Vector3<T> wdot = Ab.template head<3>();
  // Classical acceleration of a body-fixed point from the spatial one
  // (RBDA sec. 2.11): a_P = a_O + wdot x r + w x (v_O + w x r).
  const Vector3<T> pdot_B = V.template tail<3>() + w.cross(r);
  const Vector3<T> acc_B =
      Ab.template tail<3>() + wdot.cross(r) + w.cross(pdot_B);
  Vector6<T> out;
  out.template head<3>() = X_WB.R * wdot;
  out.template tail<3>() = X_WB.R * acc_B;
  return out;
}

template <typename T>
Vector3<T> CenterOfMass(const RigidBodyTree<T>& tree,
                        const KinematicsCache<T>& cache) {
  Vector3<T> h = Vector3<T>::Zero();
  T m(0);
  for (int i = 1; i < tree.num_bodies(); ++i) {
    const SpatialInertia<T>& M = tree.bodies()[i].inertia;
    const RigidTransform<T>& X = cache.X_WB[i];
    h += X.R * M.h + M.m * X.p;
    m += M.m;
  }
  if (!(ExtractDoubleOrThrow(m) > 0)) {
    throw std::invalid_argument(fmt::format(
        "CenterOfMass: tree '{}' has zero total mass", tree.name()));
  }
  return h / m;
}

template <typename T>
void CenterOfMassJacobian(const RigidBodyTree<T>& tree,
                          KinematicsCache<T>* cache, Matrix3X<T>* J) {
  CheckJacobianSize(tree, J->rows(), 3, J->cols(), "CenterOfMassJacobian");
  KinematicsCache<T>& c = *cache;
  const int nb = tree.num_bodies();
  for (int i = 1; i < nb; ++i) {
    const SpatialInertia<T>& M = tree.bodies()[i].inertia;
    c.com_sub_W[i] = c.X_WB[i].R * M.h + M.m * c.X_WB[i].p;
    c.mass_sub[i] = M.m;
  }
  for (int i = nb - 1; i > 0; --i) {
    const int p = tree.bodies()[i].parent;
    if (p > 0) {
      c.com_sub_W[p] += c.com_sub_W[i];
      c.mass_sub[p] += c.mass_sub[i];
    }
  }
  T total(0);
  for (int i = 1; i < nb; ++i)
    if (tree.bodies()[i].parent == 0) total += c.mass_sub[i];
  if (!(ExtractDoubleOrThrow(total) > 0)) {
    throw std::invalid_argument(fmt::format(
        "CenterOfMassJacobian: tree '{}' has zero total mass", tree.name()));
  }
  // A dof of body k moves the whole subtree of k rigidly: the com velocity
  // contribution is (m_sub / M) (v_O + w x c_sub) for world column [w; v_O].
  for (int k = 1; k < nb; ++k) {
    const RigidBody<T>& b = tree.bodies()[k];
    for (int j = 0; j < b.num_velocities; ++j) {
      const SpatialMotion<T> s_W =
          TransformMotion(c.X_WB[k], SpatialMotion<T>(c.S[k].col(j)));
      const Vector3<T> w = s_W.template head<3>();
      J->col(b.velocity_start + j) =
          (c.mass_sub[k] * s_W.template tail<3>() + w.cross(c.com_sub_W[k])) /
          total;
    }
  }
}

template <typename T>
Vector6<T> SpatialMomentumInWorld(const RigidBodyTree<T>& tree,
                                  const KinematicsCache<T>& cache) {
  Vector6<T> h = Vector6<T>::Zero();
  for (int i = 1; i < tree.num_bodies(); ++i) {
    h += TransformForce(cache.X_WB[i],
                        SpatialForce<T>(tree.bodies()[i].inertia * cache.V[i]));
  }
  return h;
}

template <typename T>
T KineticEnergy(const RigidBodyTree<T>& tree, const KinematicsCache<T>& cache) {
  T ke(0);
  for (int i = 1; i < tree.num_bodies(); ++i) {
    ke += cache.V[i].dot(tree.bodies()[i].inertia * cache.V[i]);
  }
  return ke / 2;
}

template <typename T>
T PotentialEnergy(const RigidBodyTree<T>& tree,
                  const KinematicsCache<T>& cache) {
  T pe(0);
  for (int i = 1; i < tree.num_bodies(); ++i) {
    const SpatialInertia<T>& M = tree.bodies()[i].inertia;
    const RigidTransform<T>& X = cache.X_WB[i];
    pe -= tree.gravity().dot(X.R * M.h + M.m * X.p);
  }
  return pe;
}

template <typename T>
void MapVelocityToQDot(const RigidBodyTree<T>& tree, const VectorX<T>& q,
                       const VectorX<T>& v, VectorX<T>* qdot) {
  if (q.size() != tree.num_positions() || v.size() != tree.num_velocities() ||
      qdot->size() != tree.num_positions()) {
    throw std::invalid_argument(fmt::format(
        "MapVelocityToQDot: q, v, qdot have sizes {}, {}, {} but tree '{}' "
        "has {} positions and {} velocities",
        q.size(), v.size(), qdot->size(), tree.name(), tree.num_positions(),
        tree.num_velocities()));
  }
  for (const RigidBody<T>& b : tree.bodies()) {
    const int iq = b.position_start, iv = b.velocity_start;
    switch (b.joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
      case JointType::kPlanar:
        for (int k = 0; k < b.num_velocities; ++k) (*qdot)(iq + k) = v(iv + k);
        break;
      case JointType::kFloating: {
        const Vector4<T> quat = q.template segment<4>(iq + 3);
        const Vector3<T> v_B = v.template segment<3>(iv + 3);
        qdot->template segment<3>(iq) =
            QuaternionToRotationMatrix<T>(quat) * v_B;
        const Vector4<T> w(T(0), v(iv), v(iv + 1), v(iv + 2));
        qdot->template segment<4>(iq + 3) = QuaternionMultiply<T>(quat, w) / 2;
        break;
      }
      case JointType::kBall: {
        const Vector4<T> quat = q.template segment<4>(iq);
        const Vector4<T> w(T(0), v(iv), v(iv + 1), v(iv + 2));
        qdot->template segment<4>(iq) = QuaternionMultiply<T>(quat, w) / 2;
        break;
      }
    }
  }
}

template <typename T>
void MapQDotToVelocity(const RigidBodyTree<T>& tree, const VectorX<T>& q,
                       const VectorX<T>& qdot, VectorX<T>* v) {
  if (q.size() != tree.num_positions() || qdot.size() != tree.num_positions() ||
      v->size() != tree.num_velocities()) {
    throw std::invalid_argument(fmt::format(
        "MapQDotToVelocity: q, qdot, v have sizes {}, {}, {} but tree '{}' "
        "has {} positions and {} velocities",
        q.size(), qdot.size(), v->size(), tree.name(), tree.num_positions(),
        tree.num_velocities()));
  }
  for (const RigidBody<T>& b : tree.bodies()) {
    const int iq = b.position_start, iv = b.velocity_start;
    switch (b.joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
      case JointType::kPlanar:
        for (int k = 0; k < b.num_velocities; ++k) (*v)(iv + k) = qdot(iq + k);
        break;
      case JointType::kFloating:
      case JointType::kBall: {
        const int iquat = b.joint.type == JointType::kFloating ? iq + 3 : iq;
        const int iw = iv;
        const Vector4<T> quat = q.template segment<4>(iquat);
        using std::sqrt;
        const T n2 = quat.squaredNorm();
        const Vector4<T> conj(quat(0), -quat(1), -quat(2), -quat(3));
        // w = 2 vec(q* (x) qdot) / |q|^2: N's columns are orthogonal with
        // norm |q|/2.
        const Vector4<T> w = QuaternionMultiply<T>(
            conj, Vector4<T>(qdot.template segment<4>(iquat)));
        v->template segment<3>(iw) = T(2) * w.template tail<3>() / n2;
        if (b.joint.type == JointType::kFloating) {
          v->template segment<3>(iv + 3) =
              QuaternionToRotationMatrix<T>(Vector4<T>(quat / sqrt(n2)))
                  .transpose() *
              qdot.template segment<3>(iq);
        }
        break;
      }
    }
  }
}

template <typename T>
void NormalizeQuaternions(const RigidBodyTree<T>& tree, VectorX<T>* q) {
  if (q->size() != tree.num_positions()) {
    throw std::invalid_argument(
        fmt::format("NormalizeQuaternions: q has size {} but tree '{}' has {} "
                    "positions",
                    q->size(), tree.name(), tree.num_positions()));
  }
  for (const RigidBody<T>& b : tree.bodies()) {
    int iquat = -1;
    if (b.joint.type == JointType::kFloating) iquat = b.position_start + 3;
    if (b.joint.type == JointType::kBall) iquat = b.position_start;
    if (iquat < 0) continue;
    const T n = q->template segment<4>(iquat).norm();
    if (!(ExtractDoubleOrThrow(n) > 0)) {
      throw std::invalid_argument(fmt::format(
          "NormalizeQuaternions: joint '{}' of tree '{}' has a zero "
          "quaternion",
          b.joint.name, tree.name()));
    }
    q->template segment<4>(iquat) /= n;
  }
}

#define TERN_INSTANTIATE_KINEMATICS(T)                                         \
  template void ForwardKinematics<T>(const RigidBodyTree<T>&,                  \
                                     KinematicsCache<T>*, const VectorX<T>&);  \
  template void ForwardKinematics<T>(const RigidBodyTree<T>&,                  \
                                     KinematicsCache<T>*, const VectorX<T>&,   \
                                     const VectorX<T>&);                       \
  template void ForwardKinematics<T>(const RigidBodyTree<T>&,                  \
                                     KinematicsCache<T>*, const VectorX<T>&,   \
                                     const VectorX<T>&, const VectorX<T>&);    \
  template RigidTransform<T> CalcFramePose<T>(const RigidBodyTree<T>&,         \
                                              const KinematicsCache<T>&, int); \
  template SpatialMotion<T> CalcFrameSpatialVelocity<T>(                       \
      const RigidBodyTree<T>&, const KinematicsCache<T>&, int);                \
  template void FrameSpatialJacobian<T>(                                       \
      const RigidBodyTree<T>&, const KinematicsCache<T>&, int, Matrix6X<T>*);  \
  template void WorldAlignedJacobian<T>(const RigidBodyTree<T>&,               \
                                        const KinematicsCache<T>&, int,        \
                                        const Vector3<T>&, Matrix6X<T>*);      \
  template Vector6<T> FrameSpatialJacobianDotTimesV<T>(                        \
      const RigidBodyTree<T>&, const KinematicsCache<T>&, int);                \
  template Vector6<T> WorldAlignedJacobianDotTimesV<T>(                        \
      const RigidBodyTree<T>&, const KinematicsCache<T>&, int,                 \
      const Vector3<T>&);                                                      \
  template Vector3<T> CenterOfMass<T>(const RigidBodyTree<T>&,                 \
                                      const KinematicsCache<T>&);              \
  template void CenterOfMassJacobian<T>(const RigidBodyTree<T>&,               \
                                        KinematicsCache<T>*, Matrix3X<T>*);    \
  template Vector6<T> SpatialMomentumInWorld<T>(const RigidBodyTree<T>&,       \
                                                const KinematicsCache<T>&);    \
  template T KineticEnergy<T>(const RigidBodyTree<T>&,                         \
                              const KinematicsCache<T>&);                      \
  template T PotentialEnergy<T>(const RigidBodyTree<T>&,                       \
                                const KinematicsCache<T>&);                    \
  template void MapVelocityToQDot<T>(const RigidBodyTree<T>&,                  \
                                     const VectorX<T>&, const VectorX<T>&,     \
                                     VectorX<T>*);                             \
  template void MapQDotToVelocity<T>(const RigidBodyTree<T>&,                  \
                                     const VectorX<T>&, const VectorX<T>&,     \
                                     VectorX<T>*);                             \
  template void NormalizeQuaternions<T>(const RigidBodyTree<T>&, VectorX<T>*);

TERN_INSTANTIATE_KINEMATICS(double)
TERN_INSTANTIATE_KINEMATICS(AutoDiffXd)

}  // namespace tern
