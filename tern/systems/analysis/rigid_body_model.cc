#include "tern/systems/analysis/rigid_body_model.h"

#include <cmath>

#include "tern/math/rotation.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/dynamics_derivatives.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

struct RigidBodyDynamicsModel::Scratch {
  explicit Scratch(const RigidBodyTree<double>& tree)
      : tree_ad(CastTree<AutoDiffXd>(tree)),
        cache(tree),
        cache_ad(tree_ad),
        deriv(tree),
        qhat(tree.num_positions()),
        qdot(tree.num_positions()),
        v(tree.num_velocities()),
        u(tree.num_velocities()) {}
  RigidBodyTree<AutoDiffXd> tree_ad;
  KinematicsCache<double> cache;
  KinematicsCache<AutoDiffXd> cache_ad;
  DynamicsDerivativesCache<double> deriv;
  VectorX<double> qhat, qdot, v, u;
};

RigidBodyDynamicsModel::RigidBodyDynamicsModel(
    const RigidBodyTree<double>& tree)
    : tree_(&tree),
      nq_(tree.num_positions()),
      nv_(tree.num_velocities()),
      scratch_(std::make_unique<Scratch>(tree)) {}

RigidBodyDynamicsModel::~RigidBodyDynamicsModel() = default;

std::string RigidBodyDynamicsModel::name() const {
  return "RigidBodyDynamicsModel(" + tree_->name() + ")";
}

namespace {

// The index of a body's quaternion in q, or -1.
int QuaternionStart(const RigidBody<double>& b) {
  if (b.joint.type == JointType::kFloating) return b.position_start + 3;
  if (b.joint.type == JointType::kBall) return b.position_start;
  return -1;
}

// q with every quaternion divided by its norm (a zero quaternion is left
// as it is: the tree then sees a degenerate rotation, as it would).
template <typename T>
void Normalized(const RigidBodyTree<double>& tree, const VectorX<T>& q,
                VectorX<T>* qhat) {
  *qhat = q;
  for (const auto& b : tree.bodies()) {
    const int iq = QuaternionStart(b);
    if (iq < 0) continue;
    using std::sqrt;
    const T n = sqrt(q.template segment<4>(iq).squaredNorm());
    if (ExtractDoubleOrThrow(n) > 0) qhat->template segment<4>(iq) /= n;
  }
}

}  // namespace

template <class T>
requires(std::is_same_v<T, double> ||
         std::is_same_v<T, AutoDiffXd>) void RigidBodyDynamicsModel::
    Dynamics(const VectorX<T>& x, const VectorX<T>& u, const T& /*t*/,
             VectorX<T>* xdot) const {
  xdot->resize(nq_ + nv_);
  if constexpr (std::is_same_v<T, double>) {
    Scratch& s = *scratch_;
    Normalized(*tree_, VectorX<double>(x.head(nq_)), &s.qhat);
    s.v = x.tail(nv_);
    MapVelocityToQDot(*tree_, s.qhat, s.v, &s.qdot);
    xdot->head(nq_) = s.qdot;
    xdot->tail(nv_) = ForwardDynamics(*tree_, &s.cache, s.qhat, s.v, u);
  } else {
    const VectorX<T> q = x.head(nq_);
    const VectorX<T> v = x.tail(nv_);
    VectorX<T> qhat, qdot(nq_);
    Normalized(*tree_, q, &qhat);
    MapVelocityToQDot(scratch_->tree_ad, qhat, v, &qdot);
    xdot->head(nq_) = qdot;
    xdot->tail(nv_) =
        ForwardDynamics(scratch_->tree_ad, &scratch_->cache_ad, qhat, v, u);
  }
}

void RigidBodyDynamicsModel::Jacobian(const VectorX<double>& x,
                                      const VectorX<double>& u, double /*t*/,
                                      Eigen::MatrixXd* jac) const {
  Scratch& s = *scratch_;
  const int nq = nq_, nv = nv_;
  Normalized(*tree_, VectorX<double>(x.head(nq)), &s.qhat);
  s.v = x.tail(nv);
  s.u = u;
  ForwardDynamicsDerivatives(*tree_, &s.cache, &s.deriv, s.qhat, s.v, s.u);
  Eigen::MatrixXd& J = *jac;
  J.setZero(nq + nv, nq + 2 * nv);
  // Rows vdot: d/dv and d/du directly; d/dq through the tangent map of each
  // joint (the identity where nq = nv).
  J.block(nq, nq, nv, nv) = s.deriv.dvdot_dv;
  J.block(nq, nq + nv, nv, nv) = s.deriv.dvdot_dtau;
  using AD4 = AutoDiffN<4>;
  for (const auto& b : tree_->bodies()) {
    const int iq = b.position_start, iv = b.velocity_start;
    const int iquat = QuaternionStart(b);
    if (iquat < 0) {
      for (int k = 0; k < b.num_velocities; ++k) {
        J.block(nq, iq + k, nv, 1) = s.deriv.dvdot_dq.col(iv + k);
        J(iq + k, nq + iv + k) = 1;  // qdot = v
      }
      continue;
    }
    // qhat = q / |q| and its derivative (4 x 4) by fixed-size dual numbers.
    Vector4<AD4> qa;
    for (int k = 0; k < 4; ++k) {
      qa(k) = AD4(x(iquat + k), Vector4<double>::Unit(k));
    }
    const Vector4<AD4> qh = qa / sqrt(qa.squaredNorm());
    Eigen::Matrix4d dqh;
    for (int k = 0; k < 4; ++k) dqh.row(k) = qh(k).derivatives().transpose();
    const Vector4<double> qv(qh(0).value(), qh(1).value(), qh(2).value(),
                             qh(3).value());
    // The rotation dw (in B) of a change of q: dw = 2 vec(qhat* (x) dqhat).
    const Vector4<double> conj(qv(0), -qv(1), -qv(2), -qv(3));
    Eigen::Matrix<double, 3, 4> G;
    for (int k = 0; k < 4; ++k) {
      G.col(k) =
          2 * QuaternionMultiply<double>(conj, Vector4<double>(dqh.col(k)))
                  .tail<3>();
    }
    J.block(nq, iquat, nv, 4) = s.deriv.dvdot_dq.middleCols(iv, 3) * G;
    // qdot of the quaternion: qhat (x) [0; w] / 2.
    const Vector3<double> w = s.v.segment<3>(iv);
    const Vector4<AD4> w4(AD4(0.0), AD4(w(0) / 2), AD4(w(1) / 2),
                          AD4(w(2) / 2));
    const Vector4<AD4> qd = QuaternionMultiply<AD4>(qh, w4);
    for (int k = 0; k < 4; ++k) {
      J.block(iquat + k, iquat, 1, 4) = qd(k).derivatives().transpose();
      for (int l = 0; l < 3; ++l) {
        Vector4<double> e = Vector4<double>::Zero();
        e(l + 1) = 0.5;
        J(iquat + k, nq + iv + l) = QuaternionMultiply<double>(qv, e)(k);
      }
    }
    if (b.joint.type == JointType::kFloating) {
      // p' = p + R dv: the translation in B of a change of p is R^T dp.
      const Matrix3<double> R = QuaternionToRotationMatrix<double>(qv);
      J.block(nq, iq, nv, 3) =
          s.deriv.dvdot_dq.middleCols(iv + 3, 3) * R.transpose();
      // pdot = R(qhat) v_B.
      const Vector3<double> vB = s.v.segment<3>(iv + 3);
      const Vector3<AD4> pd =
          QuaternionToRotationMatrix<AD4>(qh) * vB.cast<AD4>();
      for (int k = 0; k < 3; ++k) {
        J.block(iq + k, iquat, 1, 4) = pd(k).derivatives().transpose();
      }
      J.block(iq, nq + iv + 3, 3, 3) = R;
    }
  }
}

template void RigidBodyDynamicsModel::Dynamics<double>(const VectorX<double>&,
                                                       const VectorX<double>&,
                                                       const double&,
                                                       VectorX<double>*) const;
template void RigidBodyDynamicsModel::Dynamics<AutoDiffXd>(
    const VectorX<AutoDiffXd>&, const VectorX<AutoDiffXd>&, const AutoDiffXd&,
    VectorX<AutoDiffXd>*) const;

}  // namespace tern
