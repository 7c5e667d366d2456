#pragma once
// ContinuousTimeConstraintForce (seed 004): forces computed together with
// the accelerations. A constraint of m rows is phi(q) = 0 (bilateral) with
// its force Jacobian J(q) (m x nv): the constraint force is tau_c = J^T f.
// At the acceleration level, with the kinematics cache as a parameter, it
// reads
//   phi(vdot, f) = J vdot + Jdot v + 2 alpha J v + beta^2 phi = 0
// (Baumgarte stabilization, Baumgarte 1972: the position error obeys
// phi'' + 2 alpha phi' + beta^2 phi = 0, critically damped for alpha =
// beta). Defaults alpha = beta = 20 1/s: drift decays in ~0.1-0.3 s and the
// added stiffness (400 1/s^2) stays far below what a 1 ms explicit step
// resolves. RigidBodySystem solves all constraints together (see its
// header). A constraint computes its rows from (tree, cache after
// ForwardKinematics(q, v), q, v) into the caller's storage, so a
// time-stepping plant can reuse J and phi for its equality rows.
#include <string>

#include "tern/common/default_scalars.h"
#include "tern/common/eigen_types.h"
#include "tern/multibody/plant/actuator.h"

namespace tern {

struct BaumgarteGains {
  double alpha{20};  // 1/s, velocity-error gain (2 alpha J v)
  double beta{20};   // 1/s, position-error gain (beta^2 phi)
};

template <typename T>
class ContinuousTimeConstraintForce {
 public:
  virtual ~ContinuousTimeConstraintForce();
  ContinuousTimeConstraintForce(const ContinuousTimeConstraintForce&) = delete;
  ContinuousTimeConstraintForce& operator=(
      const ContinuousTimeConstraintForce&) = delete;

  const std::string& name() const { return name_; }
  int num_constraints() const { return m_; }
  const BaumgarteGains& gains() const { return gains_; }
  int num_positions() const { return nq_; }
  int num_velocities() const { return nv_; }

  // phi (m), J (m x nv) and Jdot v (m) at the cache's q, v (the cache after
  // ForwardKinematics(q, v); in.u and in.z are unused).
  virtual void CalcConstraint(const ForceElementInputs<T>& in, T* phi,
                              Eigen::Ref<MatrixX<T>> J, T* Jdot_v) const = 0;

 protected:
  ContinuousTimeConstraintForce(std::string name, const RigidBodyTree<T>& tree,
                                int num_constraints, BaumgarteGains gains);

 private:
  std::string name_;
  int m_;
  BaumgarteGains gains_;
  int nq_, nv_;
};

// Point P of body A kept at point Q of body B (3 rows, phi = p_WP - p_WQ in
// world): a ball-joint loop closure, e.g. the coupler of a four-bar linkage
// pinned to its rocker. Either body may be "world". Throws naming the
// constraint if A == B or a body is missing.
template <typename T>
class PointToPointConstraint final : public ContinuousTimeConstraintForce<T> {
 public:
  PointToPointConstraint(const RigidBodyTree<T>& tree,
                         const std::string& body_a, const Vector3<double>& p_AP,
                         const std::string& body_b, const Vector3<double>& p_BQ,
                         BaumgarteGains gains = {},
                         std::string name = "point_to_point");
  void CalcConstraint(const ForceElementInputs<T>& in, T* phi,
                      Eigen::Ref<MatrixX<T>> J, T* Jdot_v) const override;

 private:
  int frame_a_, frame_b_;
  Vector3<T> p_AP_, p_BQ_;
};

// Frame F of body A (pose X_AF) welded to frame G of body B (X_BG): 6 rows,
// [orientation error; p_WF - p_WG] in world. The orientation error is
// vee(skew(R_WF R_WG^T)), the rotation vector to first order, whose rate
// is w_F - w_G at zero error (so J is consistent with phi where the
// constraint keeps it). Either body may be "world". Throws naming the
// constraint if A == B or a body is missing.
template <typename T>
class WeldConstraint final : public ContinuousTimeConstraintForce<T> {
 public:
  WeldConstraint(const RigidBodyTree<T>& tree, const std::string& body_a,
                 const RigidTransform<double>& X_AF, const std::string& body_b,
                 const RigidTransform<double>& X_BG, BaumgarteGains gains = {},
                 std::string name = "weld");
  void CalcConstraint(const ForceElementInputs<T>& in, T* phi,
                      Eigen::Ref<MatrixX<T>> J, T* Jdot_v) const override;

 private:
  int frame_a_, frame_b_;
  RigidTransform<T> X_AF_, X_BG_;
};

// A joint coupling (URDF <mimic>): q_f = multiplier q_l + offset for two
// single-dof joints (1 row). Throws naming the constraint if a joint is
// missing, has not one dof, or follower == leader.
template <typename T>
class JointCouplingConstraint final : public ContinuousTimeConstraintForce<T> {
 public:
  JointCouplingConstraint(const RigidBodyTree<T>& tree,
                          const std::string& follower,
                          const std::string& leader, double multiplier,
                          double offset, BaumgarteGains gains = {},
                          std::string name = "joint_coupling");
  void CalcConstraint(const ForceElementInputs<T>& in, T* phi,
                      Eigen::Ref<MatrixX<T>> J, T* Jdot_v) const override;

 private:
  int qf_, ql_, vf_, vl_;
  double multiplier_, offset_;
};

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(ContinuousTimeConstraintForce)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(PointToPointConstraint)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(JointCouplingConstraint)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(WeldConstraint)

}  // namespace tern
