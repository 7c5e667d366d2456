#include "tern/multibody/plant/continuous_time_constraint_force.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/multibody/tree/kinematics.h"

namespace tern {

template <typename T>
ContinuousTimeConstraintForce<T>::ContinuousTimeConstraintForce(
    std::string name, const RigidBodyTree<T>& tree, int num_constraints,
    BaumgarteGains gains)
    : name_(std::move(name)),
      m_(num_constraints),
      gains_(gains),
      nq_(tree.num_positions()),
      nv_(tree.num_velocities()) {
  if (!(gains.alpha >= 0) || !(gains.beta >= 0)) {
    throw std::invalid_argument(fmt::format(
        "constraint '{}': Baumgarte gains must be >= 0, got alpha {} beta {}",
        name_, gains.alpha, gains.beta));
  }
}

template <typename T>
ContinuousTimeConstraintForce<T>::~ContinuousTimeConstraintForce() = default;

namespace {
template <typename T>
int ConstraintBodyFrame(const RigidBodyTree<T>& tree, const std::string& name,
                        const std::string& body) {
  if (!tree.HasBody(body)) {
    throw std::invalid_argument(
        fmt::format("constraint '{}': body '{}' does not exist in tree '{}'",
                    name, body, tree.name()));
  }
  return tree.FindFrameIndex(body);
}

template <typename T>
const RigidBody<T>& SingleDofJoint(const RigidBodyTree<T>& tree,
                                   const std::string& name,
                                   const std::string& joint) {
  if (!tree.HasJoint(joint)) {
    throw std::invalid_argument(
        fmt::format("constraint '{}': joint '{}' does not exist in tree '{}'",
                    name, joint, tree.name()));
  }
  const RigidBody<T>& b = tree.body(tree.FindJointBodyIndex(joint));
  if (b.num_velocities != 1) {
    throw std::invalid_argument(fmt::format(
        "constraint '{}': joint '{}' is {}; a coupling needs single-dof joints",
        name, joint, JointTypeName(b.joint.type)));
  }
  return b;
}
}  // namespace

template <typename T>
PointToPointConstraint<T>::PointToPointConstraint(
    const RigidBodyTree<T>& tree, const std::string& body_a,
    const Vector3<double>& p_AP, const std::string& body_b,
    const Vector3<double>& p_BQ, BaumgarteGains gains, std::string name)
    : ContinuousTimeConstraintForce<T>(name, tree, 3, gains),
      frame_a_(ConstraintBodyFrame(tree, name, body_a)),
      frame_b_(ConstraintBodyFrame(tree, name, body_b)),
      p_AP_(p_AP.cast<T>()),
      p_BQ_(p_BQ.cast<T>()) {
  if (body_a == body_b) {
    throw std::invalid_argument(fmt::format(
        "constraint '{}': both points are on body '{}'; a constraint between "
        "the same body twice constrains nothing",
        name, body_a));
  }
}

template <typename T>
void PointToPointConstraint<T>::CalcConstraint(const ForceElementInputs<T>& in,
                                               T* phi, Eigen::Ref<MatrixX<T>> J,
                                               T* Jdot_v) const {
  const RigidBodyTree<T>& tree = *in.tree;
  const KinematicsCache<T>& cache = *in.cache;
  const RigidTransform<T>& X_WA = cache.X_WB[tree.frame(frame_a_).body];
  const RigidTransform<T>& X_WB = cache.X_WB[tree.frame(frame_b_).body];
  const Vector3<T> d = X_WA * p_AP_ - X_WB * p_BQ_;
  WorldAlignedJacobian(tree, cache, frame_a_, p_AP_, in.J);
  J = in.J->template bottomRows<3>();
  WorldAlignedJacobian(tree, cache, frame_b_, p_BQ_, in.J);
  J -= in.J->template bottomRows<3>();
  const Vector6<T> ad_a =
      WorldAlignedJacobianDotTimesV(tree, cache, frame_a_, p_AP_);
  const Vector6<T> ad_b =
      WorldAlignedJacobianDotTimesV(tree, cache, frame_b_, p_BQ_);
  for (int i = 0; i < 3; ++i) {
    phi[i] = d[i];
    Jdot_v[i] = ad_a[3 + i] - ad_b[3 + i];
  }
}

template <typename T>
WeldConstraint<T>::WeldConstraint(const RigidBodyTree<T>& tree,
                                  const std::string& body_a,
                                  const RigidTransform<double>& X_AF,
                                  const std::string& body_b,
                                  const RigidTransform<double>& X_BG,
                                  BaumgarteGains gains, std::string name)
    : ContinuousTimeConstraintForce<T>(name, tree, 6, gains),
      frame_a_(ConstraintBodyFrame(tree, name, body_a)),
      frame_b_(ConstraintBodyFrame(tree, name, body_b)),
      X_AF_(X_AF.cast<T>()),
      X_BG_(X_BG.cast<T>()) {
  if (body_a == body_b) {
    throw std::invalid_argument(fmt::format(
        "constraint '{}': both frames are on body '{}'; a constraint between "
        "the same body twice constrains nothing",
        name, body_a));
  }
}

template <typename T>
void WeldConstraint<T>::CalcConstraint(const ForceElementInputs<T>& in, T* phi,
                                       Eigen::Ref<MatrixX<T>> J,
                                       T* Jdot_v) const {
  const RigidBodyTree<T>& tree = *in.tree;
  const KinematicsCache<T>& cache = *in.cache;
  const RigidTransform<T> X_WF = cache.X_WB[tree.frame(frame_a_).body] * X_AF_;
  const RigidTransform<T> X_WG = cache.X_WB[tree.frame(frame_b_).body] * X_BG_;
  const Matrix3<T> R = X_WF.R * X_WG.R.transpose();
  phi[0] = (R(2, 1) - R(1, 2)) / 2;
  phi[1] = (R(0, 2) - R(2, 0)) / 2;
  phi[2] = (R(1, 0) - R(0, 1)) / 2;
  const Vector3<T> d = X_WF.p - X_WG.p;
  for (int i = 0; i < 3; ++i) phi[3 + i] = d[i];
  WorldAlignedJacobian(tree, cache, frame_a_, X_AF_.p, in.J);
  J = *in.J;
  WorldAlignedJacobian(tree, cache, frame_b_, X_BG_.p, in.J);
  J -= *in.J;
  const Vector6<T> a_f =
      WorldAlignedJacobianDotTimesV(tree, cache, frame_a_, X_AF_.p);
  const Vector6<T> a_g =
      WorldAlignedJacobianDotTimesV(tree, cache, frame_b_, X_BG_.p);
  for (int i = 0; i < 6; ++i) Jdot_v[i] = a_f[i] - a_g[i];
}

template <typename T>
JointCouplingConstraint<T>::JointCouplingConstraint(
    const RigidBodyTree<T>& tree, const std::string& follower,
    const std::string& leader, double multiplier, double offset,
    BaumgarteGains gains, std::string name)
    : ContinuousTimeConstraintForce<T>(name, tree, 1, gains),
      multiplier_(multiplier),
      offset_(offset) {
  if (follower == leader) {
    throw std::invalid_argument(fmt::format(
        "constraint '{}': joint '{}' cannot follow itself", name, follower));
  }
  const RigidBody<T>& f = SingleDofJoint(tree, name, follower);
  const RigidBody<T>& l = SingleDofJoint(tree, name, leader);
  qf_ = f.position_start;
  vf_ = f.velocity_start;
  ql_ = l.position_start;
  vl_ = l.velocity_start;
}

template <typename T>
void JointCouplingConstraint<T>::CalcConstraint(const ForceElementInputs<T>& in,
                                                T* phi,
                                                Eigen::Ref<MatrixX<T>> J,
                                                T* Jdot_v) const {
  const VectorX<T>& q = *in.q;
  phi[0] = q[qf_] - multiplier_ * q[ql_] - offset_;
  J.setZero();
  J(0, vf_) = T(1);
  J(0, vl_) = T(-multiplier_);
  Jdot_v[0] = T(0);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(ContinuousTimeConstraintForce)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(PointToPointConstraint)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(JointCouplingConstraint)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(WeldConstraint)

}  // namespace tern
