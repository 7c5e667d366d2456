#pragma once
// TimeSteppingRigidBodySystem (seed 004): the discrete-time robot plant, a
// RigidBodyTree plus a GeometryModel, Actuators, Sensors and constraints, as
// a LeafSystem with purely discrete dynamics of period h. Each step solves
//   H(q) (vn - v) / h + C(q, v) = tau_actuators(q, v) + J(q)^T f / h,
//   qn = q + h N(q) vn   (quaternions re-normalized),
// for vn and the constraint impulses f, with the constraints
// (time_stepping_constraint_force.h) as a velocity-level LCP: frictional
// contact with a polyhedral friction cone of k directions in the
// formulation of Anitescu & Potra (1997) (Stewart & Trinkle 1996 is the same
// LCP with the impulse-velocity scheme written at the position level), joint
// limits as unilateral rows, joint Coulomb friction as bounded rows (|f| <=
// F h) and bilateral constraints (loops, welds, mimic joints) as equality
// rows.
//
// Usage: N free spheres falling on a ground plane.
//
//   RigidBodyTree<double> tree("spheres");
//   Joint<double> free;
//   free.type = JointType::kFloating;
//   const double m = 1, r = 0.05;
//   const auto I = SpatialInertia<double>::FromCom(
//       m, Vector3<double>::Zero(), Matrix3<double>::Identity() * 0.4 * m*r*r);
//   for (int i = 0; i < N; ++i) {
//     free.name = "free" + std::to_string(i);
//     tree.AddBody("ball" + std::to_string(i), 0, free, I);
//   }
//   GeometryModel geometry(tree.num_bodies());
//   for (int i = 1; i <= N; ++i) {
//     Geometry g;
//     g.name = "ball" + std::to_string(i);
//     g.body = i;
//     g.shape = Shape::Sphere(r);
//     g.properties.friction = 0.5;
//     geometry.AddGeometry(g);
//   }
//   Geometry ground;                  // the plane z = 0, on the world
//   ground.name = "ground";
//   ground.shape = Shape::HalfSpace();
//   ground.properties.friction = 0.5;
//   geometry.AddGeometry(ground);
//   TimeSteppingRigidBodySystem plant(tree, geometry, /*period=*/1e-3);
//   Simulator<double> sim(plant);
//   VectorX<double> q = tree.GetZeroConfiguration();  // per body: x y z qw..
//   ... set q[7 * i + 0..2] to the start positions ...
//   plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
//                                   VectorX<double>::Zero(6 * N));
//   sim.AdvanceTo(3.0);  // 3000 steps
//   const VectorX<double>& x = plant.GetState(sim.get_context());  // [q; v]
//
// Speed. Subtrees of the tree that hang from the world by a floating joint
// and carry no other body ("free bodies") are handled in closed form: their
// mass matrix in body coordinates is constant, so each has a 6x6 inverse
// computed once, and their Jacobians are written per point without the
// tree's algorithms. Other subtrees (robots) use the composite rigid body
// algorithm and a Cholesky factorization per subtree. Constraint rows touch
// at most two subtrees; bodies connected by rows form islands (union-find),
// each solved separately. The projected Gauss-Seidel solver works on the
// velocities directly (no Delassus matrix is formed: each row group keeps
// its Jacobian and M^-1 J^T per subtree, Catto's sequential impulses in the
// form of Erleben, "Velocity-based shock propagation", 2007) and solves each
// contact's polyhedral-cone LCP exactly (a 3x3 solve when sticking, Lemke
// on the k + 2 unknowns when sliding). After the first steps nothing
// allocates.
//
// Ports: inputs, one per actuator with a command (named after it), then
// "applied_generalized_force" (nv) on request, then one "<sensor>_noise"
// port per noisy sensor; outputs, one per sensor, then "state" [q; v] on
// request. Sensors that read accelerations see (vn - v) / h of the last
// step. Actuators must have no continuous state (num_states() == 0).
//
// State: discrete group 0 = [q (nq); v (nv)], group 1 = the last step's
// (vn - v) / h (nv) when a sensor needs accelerations; abstract state 0 =
// the previous step's contact impulses (warm start) and sleep counters, so
// a step is a deterministic function of the Context; SaveState and
// RestoreState give all of it as plain numbers (checkpoints), and
// SetDefaultPositionsAndVelocities the state new contexts start from
// (Monte Carlo). The update is a
// periodic unrestricted update of period h and offset 0: AdvanceTo(t) runs
// round(t / h) steps from t = 0.
#include <memory>
#include <string>
#include <vector>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/continuous_time_constraint_force.h"
#include "tern/multibody/plant/sensor.h"
#include "tern/multibody/plant/time_stepping_constraint_force.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

struct TimeSteppingStepper;  // time_stepping_rigid_body_system.cc

struct TimeSteppingOptions {
  // How each island is solved.
  // kConvex (default): the convex formulation of Castro, Permenter & Han
  // (T-RO 2023, Drake's SAP) with the exact round Coulomb cone, solved by
  // Newton's method with an exact line search (solvers/
  // convex_contact_solver.h) on the island's mass matrix (factored along
  // the kinematic tree; 6 x 6 blocks for free bodies), warm
  // started from the previous step's impulses; each island reports its
  // iterations, residual and whether it converged (see
  // on_nonconvergence). Islands made only of free bodies with more than
  // convex_max_free_body_dofs dofs (piles) go to over-relaxed PGS first
  // (cost linear in the contacts, the same round cone); an island on which PGS
  // does not reach pgs_tolerance within max(pgs_max_iterations, 100) sweeps
  // (up to 120 dofs, stopping as soon as its rate of convergence says it
  // will not: a stack of boxes) or max(pgs_max_iterations, 1000) sweeps
  // (more for a large pile: as many as cost one dense factorization of its
  // dofs, up to 10^6; time_stepping_pgs.cc) is solved again by the convex
  // solver, warm started from PGS's impulses (counted in
  // TimeSteppingStepStats::pgs_fallbacks), so no answer is unconverged. kLemke:
  // Lemke's method on the island's dense LCP with a polyhedral cone of
  // friction_directions directions (exact for that cone; cost grows as the cube
  // of the island size). kPgs: projected Gauss-Seidel on the velocities with
  // warm start, same cone. kAuto: the former default, Lemke for islands that
  // hold a robot (a subtree that is not a free body, a joint limit or a
  // bilateral constraint) with at most lemke_max_unknowns LCP unknowns (k + 2
  // per contact, 1 per joint limit), PGS for the others; an island of a single
  // contact is solved exactly by the per-contact solver. The polyhedral cone of
  // k directions under-estimates friction by up to a factor cos(pi / k)
  // (sliding along the bisector of two directions: 0.707 for k = 4, 0.924 for k
  // = 8).
  enum class Solver { kAuto, kLemke, kPgs, kConvex };
  Solver solver{Solver::kConvex};
  // Convex solver: Newton iterations cap, relative tolerance on its
  // optimality residual, near-rigid regularization (beta: normal rows,
  // relative compliance beta^2 / (4 pi^2) of the Delassus diagonal; Drake's
  // near-rigid choice is 1; sigma: tangential rows, a sticking contact
  // creeps at most sigma times the velocity change of its friction
  // impulse). With convex_beta > convex_beta_min (the default: 0.1 and
  // 0.01) the regularization is load-bounded: a loaded normal row is
  // stiffened, down to convex_beta_min, so that a body at rest on it sinks
  // at most convex_rest_depth (m), and a new contact starts at
  // convex_beta_min (solvers::ConvexSolverSettings::rest_velocity): a heavy
  // body on a light one rests, while a robot's feet keep beta's
  // conditioning (fewer Newton iterations; docs/plant.md says why 0.1 and
  // not Drake's 1: a stack of boxes would jitter). convex_beta =
  // convex_beta_min = 0.01 is stiff everywhere (the default before
  // 2026-11-26).
  int convex_max_iterations{100};
  double convex_tolerance{1e-6};
  double convex_beta{0.1};
  double convex_beta_min{0.01};
  double convex_rest_depth{5e-6};
  double convex_sigma{1e-3};
  // Grasps: with convex_creep_velocity > 0 (m/s), a sticking contact that
  // carries a friction load (its warm start inside the cone) gets R_t
  // stiffened so that it creeps at most convex_creep_velocity, down to
  // convex_sigma_min (solvers::ConvexSolverSettings::creep_velocity): at
  // 1e-7 a ball in a pinch grip creeps 0.13 um/s instead of convex_sigma's
  // 13 um/s, while sliding and unloaded contacts keep convex_sigma's
  // conditioning (convex_sigma = 1e-5 everywhere holds the grip too, but
  // stalls a falling humanoid). Off (0) by default: on contact_bench it
  // costs the humanoid 4.7 Newton iterations per step instead of 3.2 and
  // spheres100 about 20 % (the piles' loaded sticking contacts).
  double convex_creep_velocity{0};
  double convex_sigma_min{1e-5};
  // Anchored friction (solvers::ConvexSolverSettings::anchor_sticking, on
  // by default since 2026-11-27): each contact's (and each joint dry
  // friction's) regularization is centred on its last impulse, so a steady
  // grip does not creep at all (a ball in a pinch grip: 3e-14 m/s instead
  // of 13 um/s; a box on a slope, a joint held by friction likewise) with
  // convex_sigma's conditioning, and on average it is cheaper: over 30
  // perturbed humanoid falls on contact_bench 3.5 Newton iterations per
  // step against 3.8 unanchored (tern/mujoco mean 0.73 against 0.76; a
  // body at rest takes 0.3-0.5 iterations per step instead of 1). One fall
  // is one draw: the goal's unperturbed fall happens to take more anchored
  // (docs/plant.md, "anchored friction"). false: the formulation of Castro
  // et al. as published (Drake's SAP), whose sticking contacts creep at
  // sigma times their friction impulse's velocity change. Piles solved by
  // PGS are not anchored (PGS creeps at contact_regularization, 1e-6, of
  // the velocity change).
  bool convex_anchor_sticking{true};
  // 30: five bodies (a column of four cubes, a stack of five, go straight
  // to the convex solver); spheres100 of contact_bench 0.83 of Bullet's
  // time instead of 0.96 with 120 (2026-11-27).
  int convex_max_free_body_dofs{30};
  // kConvex: speculative contacts that the free motion and the last
  // velocities separate are left out of the solve (a robot island's rows),
  // or of the island graph (between two subtrees, outside PGS piles: two
  // parting spheres are two islands); the solve is done again with every row
  // (the islands joined) if its answer does not separate them too (the
  // answer is the full problem's either way; stats convex_rows_left_out,
  // convex_resolves). false: every row in every solve (for comparison).
  bool convex_leave_out_separating{true};
  // What an island that does not converge within its limits does: kThrow
  // raises std::runtime_error naming the time, the island and its bodies
  // (the context keeps the last good state); kWarnAndCount keeps the last
  // iterate and counts it in TimeSteppingStepStats::unconverged_islands
  // (this step) and ::warnings (since the context's first step, as
  // MuJoCo's warning counters).
  enum class OnNonConvergence { kThrow, kWarnAndCount };
  OnNonConvergence on_nonconvergence{OnNonConvergence::kThrow};
  int lemke_max_unknowns{36};
  int friction_directions{4};  // k >= 3, directions of the polyhedral cone
  // Contacts are taken up to this signed distance (m), so a body cannot
  // pass a surface within a step at speeds below margin / h (speculative
  // contacts: with phi > 0 the normal row allows approach by phi only).
  double contact_margin{5e-3};
  // Speculative contacts from the swept motion: pairs are taken up to
  // contact_margin + h (s_1 + s_2), s_1, s_2 the two largest speeds of a
  // geometry point (TimeSteppingContact), so a small fast body cannot
  // tunnel through a thin plate (no speed / thickness bound, at the cost of
  // more contact rows while bodies move fast).
  bool speculative_contacts{true};
  // Penetration deeper than penetration_slop is removed at erp (-phi -
  // slop) / h per step by a separate position correction (split impulse:
  // pseudo-velocities that move q but are not kept in v, so no energy is
  // added); the velocity rows have b_n = phi / h for phi > 0 (no gap is
  // left) and 0 otherwise. Joint limits use the same rule.
  double contact_erp{0.2};
  double penetration_slop{1e-4};  // m (rad for joint limits)
  // Bilateral rows: J vn = -bilateral_erp * phi / h.
  double bilateral_erp{0.2};
  double joint_limit_margin{0.01};  // rad or m
  // PGS: sweeps cap and tolerance on the largest change of a row velocity
  // in a sweep (m/s or rad/s).
  int pgs_max_iterations{20};
  double pgs_tolerance{1e-6};
  // Warm start: a contact takes the impulse of the previous step's contact
  // of the same geometry pair whose point is nearest, within this radius.
  bool warm_start{true};
  double warm_start_radius{0.01};  // m
  // Sleeping (off by default): an island whose generalized velocities all
  // stay below sleep_velocity (m/s or rad/s) for sleep_time seconds is
  // frozen (v = 0, no solve) until
  // a body of an awake island touches it. Forces of actuators on a
  // sleeping body are ignored: use it for piles of passive objects.
  bool sleeping{false};
  double sleep_velocity{0.02};
  double sleep_time{0.5};
  // Contact and joint-limit rows solve the LCP of J M^-1 J^T + cfm I with
  // cfm = contact_regularization times the row group's normal diagonal: a
  // slight compliance (an impulse p changes the row velocity by cfm p
  // more) that makes the answer unique when contacts are redundant (four
  // corners of a box on a face), so warm start and PGS converge.
  double contact_regularization{1e-6};
  // Relative regularization of bilateral blocks: redundant rows (two loops
  // closing the same chain) get a minimum-norm impulse instead of a
  // singular solve.
  double constraint_regularization{1e-9};
  // Joint PD servos (JointPdActuator, or any actuator whose
  // Actuator::ImplicitGains gives its PD law) evaluated at the step's end
  // state,
  // tau = kp (q_d - q - h vn) + kd (v_d - vn) (Drake's implicit PD, MuJoCo's
  // implicit damping): h kd + h^2 kp joins the free-motion matrix, so a
  // stiff servo on a light link is stable at any h (the explicit one
  // diverges once h sqrt(kp / I) > 2 or h kd / I > 2). The effort limit: a
  // joint whose torque at vn = v, kp (q_d - q - h v) + kd (v_d - v), is
  // beyond the limit applies the limit (explicitly, no implicit term); a
  // joint whose implicit torque after the free motion would exceed it is
  // switched to the limit and the free motion solved again. Constraint
  // impulses of the same step change the implicit torque by
  // -(kd + h kp) dv (dv their velocity change), which is not clamped: the
  // torque actually applied, GetActuatorForces, may exceed the limit there
  // by that much. false: the servo is evaluated at (q, v) like any
  // actuator (explicit).
  bool implicit_pd{true};
  // Velocity-product terms at the velocity level (off by default): for
  // articulated subtrees the free motion solves (A + h dC/dv)(vn - v) =
  // h (tau - C), with dC/dv the exact, unsymmetrized derivative of the
  // Coriolis and centrifugal terms (InverseDynamicsDerivatives at vdot = 0;
  // MuJoCo's `implicit`, not its `implicitfast`, which drops them), by an
  // LU factorization. Not symmetrized: the skew (gyroscopic) part is what
  // makes the explicit step gain energy on a fast spinning link, and the
  // symmetric part alone would not remove it. The constraint impulses still
  // see the symmetric positive definite A = H + h D + h (kd + h kp) (the
  // convex solver needs a symmetric Delassus operator), so the velocity
  // products react to them explicitly. Costs one derivative pass and an LU
  // per articulated subtree per step.
  bool implicit_velocity_products{false};
  // Momentum of floating robots: a subtree that is not a free body and
  // hangs from the world by a floating joint (a floating robot), and a free
  // body whose center of mass is off its origin, keeps its world-frame
  // spatial momentum exactly. The step computes the momentum at
  // its start from (q, v), adds the impulses of the external forces
  // (gravity about the center of mass at q, actuator wrenches on the
  // subtree, the constraint impulses the solver applied to it), and after
  // the joint update corrects the floating base's twist so that the
  // momentum at (qn, vn) equals that target (a 6x6 solve with the composite
  // inertia at qn). Without it the explicit velocity-product terms drift the
  // momentum at O(h) (about 3e-3 relative per second for the shipped
  // quadruped in zero gravity at h = 1 ms). Costs one forward kinematics
  // pass with velocities per step when the tree has a floating robot. A
  // robot whose island touches the ground (a contact with the world, an
  // anchored body or a fixed-base robot) is not corrected: the ground
  // exchanges momentum with it, and a rigid change of its twist after the
  // contact solve would undo that solve (a limp humanoid came to rest
  // propped 10 cm higher than MuJoCo's).
  bool conserve_momentum{true};
  bool enforce_joint_limits{true};
  // Joint Coulomb friction (RigidBody::joint.friction F: URDF <dynamics
  // friction>, MJCF frictionloss, SDFormat <friction>) as one bounded row
  // per dof, |impulse| <= F h (TimeSteppingJointFriction), solved with the
  // other rows of its island by every solver (kLemke: the box split into
  // two complementary rows and a slack). A robot with friction then forms
  // an island even without contact. Under kConvex a joint held by friction
  // creeps at most at convex_sigma times the velocity change the step's
  // largest friction impulse F h would make (sigma F h / I for a hinge of
  // inertia I: 5e-7 rad/s for F / I = 0.5 rad/s^2 at h = 1 ms); under
  // kPgs, kLemke and kAuto by contact_regularization the same way. No rows
  // (and no cost) when no joint has friction.
  bool joint_friction{true};
  bool enforce_mimic_joints{true};
  bool state_output{false};  // output "state" [q; v]
  bool applied_generalized_force_input{false};
};

// What the last step computed with a Context did (for benchmarks, tests).
struct TimeSteppingStepStats {
  int num_contacts{0};          // contact points
  int num_rows{0};              // constraint rows in all
  int num_islands{0};           // islands with at least one row
  int num_sleeping_islands{0};  // frozen islands (sleeping option)
  int pgs_sweeps{0};            // summed over PGS islands (partial ones too)
  // Contact, limit and bilateral group steps the PGS sweeps made (settled
  // contacts are skipped: solvers::RowGroupPgsSettings::tree_motion).
  long long pgs_group_steps{0};
  int lemke_pivots{0};       // summed over Lemke islands
  int warm_started{0};       // contacts matched to the previous step
  int convex_iterations{0};  // Newton iterations, summed over islands
  int pgs_fallbacks{0};      // kConvex: pile islands PGS did not converge on
  int max_island_iterations{0};  // largest iterations (or sweeps) of one island
  int resolves{0};  // solved again for a row the first solve missed (0 or 1)
  // kConvex: speculative contacts left out of the solve (the free motion
  // and the last velocities separate them), and islands solved again with
  // every row because the answer did not separate one of them.
  int convex_rows_left_out{0};
  int convex_resolves{0};
  double max_residual{0};      // largest relative residual of an island
  int unconverged_islands{0};  // this step (kWarnAndCount)
  bool converged{true};        // every island of this step converged
  long long warnings{0};       // unconverged islands since the first step
};

// The complete state of a TimeSteppingRigidBodySystem in a Context as plain
// numbers (TimeSteppingRigidBodySystem::SaveState and RestoreState), for
// checkpoints. A step is a deterministic function of the Context's time,
// inputs and this state (the scratch in its parameters only holds
// workspaces and statistics), so a context restored from it takes the same
// next step to the bit.
struct TimeSteppingSavedState {
  // The discrete groups: 0 = [q (nq); v (nv)], then, when a sensor reads
  // accelerations, 1 = the last step's (vn - v) / h (nv).
  std::vector<VectorX<double>> discrete;
  // Abstract state 0, the warm-start memory and the sleep counters,
  // flattened (integers are stored exactly as doubles):
  //   layout version (1),
  //   S (the number of subtrees), then S counters: steps each subtree has
  //     been still (sleeping option),
  //   E (the number of warm-start entries), then E records of 15 numbers:
  //     constraint index, key1, key2 (the row group's key), the contact
  //     midpoint (3, m, world), the contact impulse (3, N s, world), the
  //     impulses of a row group that is not a contact (6; unused ones 0).
  std::vector<double> memory;
};

class TimeSteppingRigidBodySystem final : public LeafSystem<double> {
 public:
  using ActuatorPtr = std::shared_ptr<const Actuator<double>>;
  using SensorPtr = std::shared_ptr<const Sensor<double>>;
  using BilateralPtr =
      std::shared_ptr<const ContinuousTimeConstraintForce<double>>;

  // Throws std::invalid_argument naming the culprit if period is not finite
  // and > 0, an actuator has continuous state (num_states() > 0), an
  // element is null, built for a tree of other sizes or shares a name, the
  // geometry model was built for another number of bodies, or an option is
  // out of range.
  TimeSteppingRigidBodySystem(RigidBodyTree<double> tree,
                              GeometryModel geometry, double period,
                              std::vector<ActuatorPtr> actuators = {},
                              std::vector<SensorPtr> sensors = {},
                              std::vector<BilateralPtr> bilateral = {},
                              TimeSteppingOptions options = {});
  ~TimeSteppingRigidBodySystem() override;

  const RigidBodyTree<double>& tree() const { return tree_; }
  double period() const { return period_; }
  const TimeSteppingOptions& options() const { return options_; }
  const std::vector<ActuatorPtr>& actuators() const { return actuators_; }
  const std::vector<SensorPtr>& sensors() const { return sensors_; }
  // Contact first, then joint limits (if any), joint friction (if any),
  // then bilateral constraints (given, then mimic joints).
  const std::vector<std::shared_ptr<const TimeSteppingConstraintForce>>&
  constraints() const {
    return constraints_;
  }

  const InputPort<double>& get_actuator_input_port(
      const std::string& name) const;
  const OutputPort<double>& get_sensor_output_port(
      const std::string& name) const;

  // Writes q (nq) and v (nv) into `context` (this system's context).
  void SetPositionsAndVelocities(
      Context<double>* context, const Eigen::Ref<const VectorX<double>>& q,
      const Eigen::Ref<const VectorX<double>>& v) const;
  // [q; v] (nq + nv) in `context`.
  const VectorX<double>& GetState(const Context<double>& context) const;

  // One step without the Simulator: reads the state and inputs of `context`
  // and writes the next state into `next` (which may be
  // context->get_mutable_state(): everything is read before anything is
  // written). Time is not advanced. The Simulator calls the same function.
  void CalcNextState(const Context<double>& context, State<double>* next) const;

  // The statistics of the last step computed with `context`.
  const TimeSteppingStepStats& GetStepStats(
      const Context<double>& context) const;
  // The generalized force (nv) the actuators applied in the last step
  // computed with `context` (implicit servos at the step's end state, as
  // applied; the applied_generalized_force input not included).
  const VectorX<double>& GetActuatorForces(
      const Context<double>& context) const;

  // The state a context starts from (CreateDefaultContext, SetDefaultContext,
  // SetRandomContext): q (nq) and v (nv), with an empty warm-start memory.
  // Without a call, the tree's zero configuration at rest. Throws
  // std::invalid_argument naming the size or the coordinate if q or v has
  // the wrong size or a value that is not finite.
  void SetDefaultPositionsAndVelocities(
      const Eigen::Ref<const VectorX<double>>& q,
      const Eigen::Ref<const VectorX<double>>& v);
  void SetDefaultState(const Context<double>& context,
                       State<double>* state) const override;

  // The complete state in `context` (this system's context), for
  // checkpoints (TimeSteppingSavedState).
  TimeSteppingSavedState SaveState(const Context<double>& context) const;
  // Writes `state` into `context`, which then continues bit-identically to
  // the context SaveState read. State is untrusted input: throws
  // std::invalid_argument naming the field (e.g. "memory[20] (warm-start
  // entry 0, key1)") if a group count or size, the subtree count or the
  // entry count disagrees with this plant, a constraint index is out of
  // range, a count or key is not an integer, or a value is not finite;
  // `context` is left unchanged then.
  void RestoreState(const TimeSteppingSavedState& state,
                    Context<double>* context) const;

 private:
  friend struct TimeSteppingStepper;
  struct Impl;
  RigidBodyTree<double> tree_;
  double period_;
  std::vector<ActuatorPtr> actuators_;
  std::vector<SensorPtr> sensors_;
  std::vector<std::shared_ptr<const TimeSteppingConstraintForce>> constraints_;
  TimeSteppingOptions options_;
  std::unique_ptr<const Impl> impl_;  // set-up data (subtrees, ports)
  // [q (nq); v (nv)] of SetDefaultPositionsAndVelocities, or empty.
  VectorX<double> default_state_;
};

}  // namespace tern
