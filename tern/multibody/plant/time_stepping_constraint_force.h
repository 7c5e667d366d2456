#pragma once
// TimeSteppingConstraintForce (seed 004): a constraint of the discrete-time
// plant, written as phi(q, v, qn, vn, f) >= 0 with the force Jacobian J(q),
// tau_constraint = J^T f (f an impulse over the step, N s or N m s). At each
// step a constraint appends row groups
//   phi_i = J_i(q) vn + b_i(q, v, h)
// to a TimeSteppingConstraintRows, each group of one kind:
//  - contact: a normal row and two tangent rows at a contact point between
//    two bodies, with the linearized (polyhedral) friction cone of k
//    directions (Stewart & Trinkle 1996; Anitescu & Potra 1997): the LCP
//      0 <= c_n    _|_  n^T vn + b_n                >= 0
//      0 <= beta_j _|_  d_j^T vn + lambda            >= 0  (j = 1..k)
//      0 <= lambda _|_  mu c_n - sum_j beta_j        >= 0
//    where d_j = cos(2 pi j / k) t1 + sin(2 pi j / k) t2 and the friction
//    impulse is sum_j beta_j d_j (maximal dissipation over the polygon);
//  - unilateral: one row, 0 <= f _|_ J vn + b >= 0 (joint limits);
//  - bilateral: m rows, J vn + b = 0, f free (loop closures, welds, mimic);
//  - bounded: one row vn[dof] with |f| <= F h, f opposing the row's
//    velocity when at the bound and holding it at rest otherwise (joint
//    Coulomb friction F as a constraint, MuJoCo's frictionloss rows).
// The plant (time_stepping_rigid_body_system.h) builds the Jacobians from
// the bodies and points the constraint names (contacts) or takes them dense
// (bilateral), groups the rows into islands and solves them.
#include <memory>
#include <string>

#include "tern/common/eigen_types.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/contact_rows.h"
#include "tern/multibody/plant/continuous_time_constraint_force.h"
#include "tern/multibody/plant/joint_constraints.h"

namespace tern {

namespace internal {
struct TimeSteppingRowStorage;  // time_stepping_constraint_force.cc
}  // namespace internal

// What a constraint reads at one step (owned by the plant).
struct TimeSteppingConstraintInputs {
  const RigidBodyTree<double>* tree{nullptr};
  // Poses and body velocities at (q, v): X_PB, X_WB, S, V and vJ as
  // ForwardKinematics(tree, cache, q, v) writes them (not the bias
  // accelerations A_bias).
  const KinematicsCache<double>* cache{nullptr};
  const VectorX<double>* q{nullptr};  // (nq)
  const VectorX<double>* v{nullptr};  // (nv)
  // When the plant solves a step again (MissedRows), the velocity its first
  // solve ended with (nv); else null. A swept row reaches as far as either
  // velocity carries the step.
  const VectorX<double>* v_next{nullptr};
  double h{0};                      // the period, s
  Matrix6X<double>* J{nullptr};     // (6 x nv) scratch
  AbstractValue* scratch{nullptr};  // the constraint's MakeScratch()
};

// The row groups of one step, appended by the constraints. The plant owns
// it; appending does not allocate once the storage has reached its largest
// size.
class TimeSteppingConstraintRows {
 public:
  explicit TimeSteppingConstraintRows(internal::TimeSteppingRowStorage* s)
      : s_(s) {}
  // A contact point from the shared contact query (contact_rows.h): the
  // geometry pair, bodies, unit normal n (world) from A to B with its
  // tangent basis, witness points p_WA, p_WB, signed distance phi (m, < 0
  // penetrating) and friction coefficient mu. The plant sets b_n from phi
  // (see TimeSteppingOptions) and matches the point with the previous
  // step's contacts by (geometry_a, geometry_b) and nearest point for warm
  // start.
  void AddContact(const ContactFrame& f);
  // One unilateral row on velocity index `dof`: sign * vn[dof] + phi / h
  // (phi >= 0 is the distance to the limit, rad or m), corrected as a
  // contact's normal row. `constraint` names it in messages.
  void AddJointLimit(int dof, double sign, double phi, int constraint);
  // One bounded row on velocity index `dof`: vn[dof] with an impulse |f| <=
  // bound (N m s or N s: a joint friction F over the step, F h).
  // `constraint` names it in messages.
  void AddJointFriction(int dof, double bound, int constraint);
  // m bilateral rows J vn + b = 0 (J: m x nv dense, only the columns of at
  // most two independent subtrees may be nonzero). `constraint` names it.
  void AddBilateral(const Eigen::Ref<const MatrixX<double>>& J,
                    const Eigen::Ref<const VectorX<double>>& b, int constraint);

 private:
  internal::TimeSteppingRowStorage* s_;
};

class TimeSteppingConstraintForce {
 public:
  virtual ~TimeSteppingConstraintForce();
  TimeSteppingConstraintForce(const TimeSteppingConstraintForce&) = delete;
  TimeSteppingConstraintForce& operator=(const TimeSteppingConstraintForce&) =
      delete;
  const std::string& name() const { return name_; }

  // Appends this constraint's rows at (q, v) for a step of length in.h.
  // `index` is this constraint's index in the plant (for messages).
  virtual void AppendRows(const TimeSteppingConstraintInputs& in, int index,
                          TimeSteppingConstraintRows* rows) const = 0;
  // A fresh per-Context workspace, or null.
  virtual std::unique_ptr<AbstractValue> MakeScratch() const { return nullptr; }
  // After a solve that ended with velocity vn: true if a row this
  // constraint did not append (its swept reach judged from in.v) was
  // needed, because the step carries the system past the constraint. The
  // plant then builds the rows again with in.v_next = &vn and solves again.
  virtual bool MissedRows(const TimeSteppingConstraintInputs& in,
                          const VectorX<double>& vn) const {
    (void)in;
    (void)vn;
    return false;
  }

 protected:
  explicit TimeSteppingConstraintForce(std::string name)
      : name_(std::move(name)) {}

 private:
  std::string name_;
};

// Frictional contact between the geometries of a GeometryModel: every
// contact point of signed distance <= margin (UpdateGeometryPoses +
// ComputeContacts), mu combined from the two geometries' friction as
// 2 mu_A mu_B / (mu_A + mu_B) (as CompliantContact). Restitution is 0 (a
// perfectly plastic impact).
class TimeSteppingContact final : public TimeSteppingConstraintForce {
 public:
  // Throws std::invalid_argument naming the constraint if the model was
  // built for another number of bodies or margin is negative.
  // With `swept` (speculative contacts from the swept motion), a pair is
  // taken up to the distance margin + h (s_1 + s_2), s_1 >= s_2 the two
  // largest speeds of any geometry point this step (|v_B| + |w_B| r, r the
  // geometry's box radius about the body origin; needs the cache's
  // velocities), so no body reaches a surface within a step without a
  // contact row (a speculative row allows approach by phi only): a body
  // cannot pass through a plate of any thickness, at any speed, as long as
  // the broad phase sees the pair at the step's start.
  TimeSteppingContact(const RigidBodyTree<double>& tree, GeometryModel model,
                      double margin, std::string name = "contact",
                      bool swept = false);
  void AppendRows(const TimeSteppingConstraintInputs& in, int index,
                  TimeSteppingConstraintRows* rows) const override;
  std::unique_ptr<AbstractValue> MakeScratch() const override;
  const GeometryModel& geometry_model() const { return query_.model(); }

 private:
  ContactQuery query_;
  double margin_;  // m
  bool swept_{false};
};

// Position limits of single-dof joints (URDF <limit lower upper>): one
// unilateral row per limit within `margin` + h |v_joint| of being reached
// (swept: what the joint travels in one step at its current speed).
class TimeSteppingJointLimits final : public TimeSteppingConstraintForce {
 public:
  // Throws naming the joint if a lower limit is above its upper limit.
  TimeSteppingJointLimits(const RigidBodyTree<double>& tree, double margin,
                          std::string name = "joint_limits");
  void AppendRows(const TimeSteppingConstraintInputs& in, int index,
                  TimeSteppingConstraintRows* rows) const override;
  // A joint without a limit row whose step ends past the limit (a light
  // link jerked within the step by an impact elsewhere: DRC-Hubo's fingers
  // when the hand hits the ground).
  bool MissedRows(const TimeSteppingConstraintInputs& in,
                  const VectorX<double>& vn) const override;
  int num_limited_joints() const { return static_cast<int>(limits_.size()); }

 private:
  // How far joint i may travel this step before a row is needed.
  double Reach(const TimeSteppingConstraintInputs& in, int i) const;
  std::vector<LimitedJoint> limits_;  // joint_constraints.h
  double margin_;                     // rad or m
};

// Joint Coulomb friction (URDF <dynamics friction>, MJCF frictionloss,
// SDFormat <friction>: RigidBody::joint.friction, per dof of the joint) as
// one bounded row per dof: |f| <= F h over a step of length h. A joint at
// rest stays at rest while the other forces on it stay within F (up to the
// convex solver's creep, solvers/convex_contact_solver.h); a moving one is
// slowed by F exactly. The continuous plant regularizes the same F
// (RigidBodySystem).
class TimeSteppingJointFriction final : public TimeSteppingConstraintForce {
 public:
  // Throws std::invalid_argument naming the joint if its friction is not
  // finite.
  explicit TimeSteppingJointFriction(const RigidBodyTree<double>& tree,
                                     std::string name = "joint_friction");
  void AppendRows(const TimeSteppingConstraintInputs& in, int index,
                  TimeSteppingConstraintRows* rows) const override;
  int num_friction_dofs() const { return static_cast<int>(dofs_.size()); }

 private:
  std::vector<FrictionDof> dofs_;  // joint_constraints.h
};

// A bilateral constraint of the continuous plant (PointToPoint, Weld,
// JointCoupling: continuous_time_constraint_force.h) as equality rows of
// the discrete plant, reusing its phi and J: J vn = -erp phi / h, erp the
// plant's bilateral_erp (the fraction of the position error removed per
// step).
class TimeSteppingBilateralConstraint final
    : public TimeSteppingConstraintForce {
 public:
  // Throws if `constraint` is null.
  TimeSteppingBilateralConstraint(
      std::shared_ptr<const ContinuousTimeConstraintForce<double>> constraint,
      double erp);
  void AppendRows(const TimeSteppingConstraintInputs& in, int index,
                  TimeSteppingConstraintRows* rows) const override;
  std::unique_ptr<AbstractValue> MakeScratch() const override;
  const ContinuousTimeConstraintForce<double>& constraint() const {
    return *constraint_;
  }

 private:
  std::shared_ptr<const ContinuousTimeConstraintForce<double>> constraint_;
  double erp_;
};

}  // namespace tern
