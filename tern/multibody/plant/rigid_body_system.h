#pragma once
// RigidBodySystem (seed 004): the continuous-time robot plant. A
// RigidBodyTree plus lists of Actuators, Sensors and
// ContinuousTimeConstraintForces, as a LeafSystem whose continuous state is
// second-order, [q (nq); v (nv); z], z the actuators' own states in their
// order, so the second-order integration rules apply to it.
//
// Ports. Inputs: one per actuator with a command (named after the
// actuator, in actuator order); then, on request, "applied_generalized_force"
// (nv), added to the actuators' tau (how standalone ActuatorSystems drive
// the plant); then one random "<sensor>_noise" port per noisy sensor. The
// time derivatives read every vector input, so all must be connected or
// fixed (AddRandomInputs feeds the noise ports). Outputs: one per sensor
// (named after the sensor), then on request "state" [q; v] and
// "generalized_acceleration" vdot (nv).
//
// Time derivatives. tau = applied + sum_k tau_k (actuators, in order) +
// tau_friction, where joint Coulomb friction F (URDF <dynamics friction>)
// is regularized as tau_friction = -F v / sqrt(v^2 + v_s^2), v_s =
// options.coulomb_regularization_velocity (default 0.01 rad/s or m/s: the
// friction reaches 71% of F at v_s; a smaller v_s is more faithful and
// stiffer). Joint damping and armature are part of the tree's algorithms.
// Effort limits clamp TorqueSource commands. Then
//   no constraints: vdot by the articulated-body algorithm (ForwardDynamics);
//   constraints:    H vdot = tau - C + J^T f and J vdot = -(Jdot v + 2 alpha
//                   J v + beta^2 phi), solved with H factored once (LLT):
//                   vdot_free = H^-1 (tau - C), A = J H^-1 J^T + eps I,
//                   f = A^-1 (rhs - J vdot_free), vdot = vdot_free +
//                   H^-1 J^T f (Featherstone, RBDA, sec. 8.3, "the
//                   constraint-space method"); eps =
//                   options.constraint_regularization times (1 + max diag
//                   A) makes redundant rows (e.g. the out-of-plane row of a
//                   planar loop) give zero force rather than a singular
//                   solve.
// Joint position limits (URDF <limit lower upper>) are unilateral rows,
// active only while a joint is at, near or beyond a limit (phi = q - lower
// or upper - q, below): J vdot + 2 alpha J v + beta^2 phi >= 0 with force
// f >= 0 and complementarity, solved with the bilateral rows (always
// active) by Murty's principal pivoting method (Murty, Linear
// Complementarity, 1988, ch. 4: finite for the positive definite A here;
// solvers/principal_pivoting.h).
// A row is active while phi <= options.joint_limit_tolerance (phi <= 0
// without the impact law) unless the joint still approaches faster than
// joint_limit_impact_velocity with phi > 0 (that is an impact, below).
//
// Impact law at joint limits (options.joint_limit_impacts, default on): one
// witness function per limited joint, "joint_limit_<joint>", equal to phi of
// the limit it approaches faster than joint_limit_impact_velocity (else
// +1), localizes the crossing of phi = 0; its unrestricted update applies a
// plastic impact (restitution 0), the same impulse-level problem as
// RigidContact's impact law and solved by the same code: v+ = v- + H^-1 J^T
// P over every limit row with phi <= joint_limit_tolerance and every
// bilateral row, with J v+ >= 0 _|_ P >= 0 on the limit rows and J v+ = 0 on
// the bilateral ones (Murty's method; with RigidContact in use, the limit
// rows join the contact impulse LCP solved by Lemke, so a wrist stopping
// while a foot lands is one impact). The acceleration-level rows then keep
// the joint at the limit. A plastic impact is the H-metric projection of
// v- onto the cone J v >= 0, so the kinetic energy cannot grow; it is
// checked, and a rise above round-off (1e-9 relative) throws naming the
// plant and time. Without impacts (joint_limit_impacts = false) a joint
// arriving at a limit is stopped by the stabilization within about 1 /
// alpha seconds (penetrating by about |v| / (2 alpha)).
// Then qdot = N(q) v and zdot from each actuator. Actuators, sensors and
// constraints read one KinematicsCache per evaluation (stored per Context);
// forward kinematics runs only if one of them needs it. After the first
// evaluation nothing allocates (T = double).
//
// Contact: CompliantContact is an actuator (compliant_contact.h).
// RigidContact (options.rigid_contact, T = double, rigid_contact.h) adds
// unilateral frictional contact rows to the solve above: with contacts
// touching, the bilateral rows are eliminated by their Schur complement and
// the joint-limit and contact rows form one LCP solved by Lemke's method
// (Painlevé inconsistencies throw naming the contact). It also declares
// witness functions: rigid_contact_impact (an unrestricted update applying
// the Newton impact law), rigid_contact_liftoff, rigid_contact_stick and
// rigid_contact_slip (mode changes, which truncate the step). The output
// "contact_forces" (options.contact_force_output_capacity > 0) reports
// the forces of CompliantContact actuators and of the rigid contact, in the
// layout of contact_common.h.
#include <memory>
#include <string>
#include <vector>

#include "tern/common/default_scalars.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/continuous_time_constraint_force.h"
#include "tern/multibody/plant/joint_constraints.h"
#include "tern/multibody/plant/sensor.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

class RigidContact;  // rigid_contact.h

struct RigidBodySystemOptions {
  bool state_output{false};         // output "state" [q; v]
  bool acceleration_output{false};  // output "generalized_acceleration"
  bool applied_generalized_force_input{false};
  double coulomb_regularization_velocity{0.01};  // rad/s or m/s, > 0
  double constraint_regularization{1e-12};       // relative, >= 0
  // Enforce the tree's <mimic> joints as JointCouplingConstraints.
  bool enforce_mimic_joints{true};
  // Enforce URDF position limits of single-dof joints as unilateral
  // constraints (see the class comment), with these Baumgarte gains.
  bool enforce_joint_limits{true};
  // Stiffer than the bilateral default: a joint arriving at 1 rad/s
  // overshoots its limit by about 1 / (2 alpha) = 5 mrad.
  BaumgarteGains joint_limit_gains{100, 100};
  // Impact law at joint limits (see the class comment): a plastic impulse
  // when a joint reaches a limit faster than joint_limit_impact_velocity
  // (rad/s or m/s, > 0); a limit row is active within
  // joint_limit_tolerance (rad or m, > 0) of the limit.
  bool joint_limit_impacts{true};
  double joint_limit_impact_velocity{1e-3};
  double joint_limit_tolerance{1e-6};
  // Frictional rigid contact (rigid_contact.h), solved with the constraint
  // rows, with its witness functions and impact law. T = double only.
  std::shared_ptr<const RigidContact> rigid_contact;
  // > 0: an output "contact_forces" with up to this many contact records
  // (layout: contact_common.h) from the CompliantContact actuators and the
  // rigid contact. T = double only.
  int contact_force_output_capacity{0};
  // Default state (what SetDefaultContext and SetRandomContext give, so a
  // Monte Carlo sample starts there): q (nq) and v (nv); empty means the
  // zero configuration (identity quaternions) and rest.
  VectorX<double> default_positions;
  VectorX<double> default_velocities;
};

template <typename T>
class RigidBodySystem final : public LeafSystem<T> {
 public:
  using ActuatorPtr = std::shared_ptr<const Actuator<T>>;
  using SensorPtr = std::shared_ptr<const Sensor<T>>;
  using ConstraintPtr = std::shared_ptr<const ContinuousTimeConstraintForce<T>>;

  // Throws std::invalid_argument naming the element if an actuator, sensor
  // or constraint is null, was built for a tree of other sizes, or two share
  // a name, or if an option is out of range.
  RigidBodySystem(RigidBodyTree<T> tree, std::vector<ActuatorPtr> actuators,
                  std::vector<SensorPtr> sensors = {},
                  std::vector<ConstraintPtr> constraints = {},
                  RigidBodySystemOptions options = {});
  explicit RigidBodySystem(RigidBodyTree<T> tree)
      : RigidBodySystem(std::move(tree), {}) {}
  ~RigidBodySystem() override;

  const RigidBodyTree<T>& tree() const { return tree_; }
  const std::vector<ActuatorPtr>& actuators() const { return actuators_; }
  const std::vector<SensorPtr>& sensors() const { return sensors_; }
  const std::vector<ConstraintPtr>& constraints() const { return constraints_; }
  const std::shared_ptr<const RigidContact>& rigid_contact() const {
    return options_.rigid_contact;
  }
  // Rows of the bilateral constraints (given and mimic).
  int num_constraint_rows() const { return num_constraint_rows_; }
  // Single-dof joints with a finite position limit (when enforced).
  int num_limited_joints() const { return static_cast<int>(limits_.size()); }

  // The input port of actuator `name` / output port of sensor `name`.
  const InputPort<T>& get_actuator_input_port(const std::string& name) const;
  const OutputPort<T>& get_sensor_output_port(const std::string& name) const;

  // Writes q (nq) and v (nv) into `context` (this system's context).
  void SetPositionsAndVelocities(Context<T>* context,
                                 const Eigen::Ref<const VectorX<T>>& q,
                                 const Eigen::Ref<const VectorX<T>>& v) const;

  void DoMapVelocityToQDot(const Context<T>& context,
                           const Eigen::Ref<const VectorX<T>>& v,
                           Eigen::Ref<VectorX<T>> qdot) const override;

 private:
  struct Impl;
  static void DerivativesKernel(const RigidBodySystem& self,
                                const Context<T>& context,
                                const KernelInputs<T>& u, T* xdot);
  // vdot (and zdot if non-null) from the state in `context` and the
  // actuator commands u_actuator[k] (null for actuators without input),
  // into the scratch's vdot.
  void CalcAccelerations(const Context<T>& context, const T* const* actuator_u,
                         const T* applied, T* zdot) const;
  // Evaluates the input ports and then CalcAccelerations (no zdot).
  void EvalAccelerations(const Context<T>& context) const;
  // The constrained solve (bilateral rows, active joint limits, touching
  // rigid contacts) once tau and the forward kinematics are in the
  // scratch; false if no row is active (then the caller runs ABA). At the
  // impulse level it writes v+ of the impact law into the scratch's vdot.
  enum class Level { kAcceleration, kImpulse };
  bool SolveConstrained(const Context<T>& context,
                        const ForceElementInputs<T>& in, Level level) const;
  void CalcSensorOutput(const Context<T>& context, int k, VectorX<T>* y) const;
  // Rigid contact (T = double): witness functions, the impact law and the
  // contact-force output. Joint limits: one impact witness per limited
  // joint. ApplyImpact resolves both (one impulse problem).
  void DeclareContactEvents();
  void DeclareJointLimitEvents();
  void ApplyImpact(const Context<T>& context, State<T>* next) const;
  void CalcContactForces(const Context<T>& context, VectorX<T>* y) const;

  RigidBodyTree<T> tree_;
  std::vector<ActuatorPtr> actuators_;
  std::vector<SensorPtr> sensors_;
  std::vector<ConstraintPtr> constraints_;
  RigidBodySystemOptions options_;
  std::vector<int> actuator_port_;  // per actuator: input port or -1
  std::vector<int> state_start_;    // per actuator: offset of its z in z
  std::vector<int> noise_port_;     // per sensor: input port or -1
  std::vector<int> sensor_port_;    // per sensor: output port
  int applied_port_{-1};
  int num_z_{0};
  int num_constraint_rows_{0};
  std::vector<LimitedJoint> limits_;   // joint_constraints.h
  std::vector<FrictionDof> friction_;  // dofs with joint friction
  bool actuators_need_kinematics_{false};
};

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(RigidBodySystem)

}  // namespace tern
