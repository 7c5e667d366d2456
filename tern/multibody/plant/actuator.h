#pragma once
// Actuators (seed 004): anything that applies a force computable from the
// current state, a command and the actuator's own continuous state. One
// actuator is written once, as the function CalcGeneralizedForce of
// (tree, kinematics cache, command u, actuator state z) -> tau (nv), and used
// two ways with the same numbers:
//  - inside RigidBodySystem or TimeSteppingRigidBodySystem, which call it
//    with their one shared KinematicsCache per evaluation;
//  - wrapped by ActuatorSystem (actuator_system.h), a System of its own
//    wired by ports in a Diagram (state in, command in, tau out).
//
// The interface, for both plants:
//  - An actuator is built against a RigidBodyTree and resolves every name
//    (joint, body) to an index in its constructor, throwing
//    std::invalid_argument that names the actuator and the missing name. It
//    is immutable afterwards and may be shared (std::shared_ptr<const>) by a
//    plant and a wrapper; it works with any tree of the same structure
//    (the plant checks the sizes).
//  - num_inputs(): size of its command input port (0: no port).
//  - num_states(): size of its continuous state z (0 for most); a plant
//    appends z to its own continuous state after [q; v], in the order the
//    actuators were given. A discrete-time plant rejects an actuator with
//    num_states() > 0 (the seed's limit).
//  - needs_kinematics(): whether CalcGeneralizedForce reads the cache (body
//    poses and velocities from ForwardKinematics(q, v)) or the Jacobian
//    scratch; a plant whose actuators need none skips forward kinematics.
//  - CalcGeneralizedForce overwrites all nv entries of tau. Wrenches on
//    bodies are mapped to generalized forces by the transposed world-aligned
//    point Jacobian (AddWrenchAsGeneralizedForce), so every actuator has the
//    same output type and a plant adds the actuators' tau in their order.
//  - MakeScratch(): a workspace the element needs beyond the shared cache
//    (CompliantContact: a GeometryWorkspace), or null. A plant or wrapper
//    keeps one per element per Context and passes it back as
//    ForceElementInputs::scratch, so the element itself stays immutable.
//  - Per evaluation, no heap allocation for T = double and no virtual call
//    per body: one virtual call per actuator, indices resolved at set-up.
#include <memory>
#include <string>
#include <vector>

#include "tern/common/default_scalars.h"
#include "tern/common/eigen_types.h"
#include "tern/common/value.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// What an actuator (or sensor) reads at one evaluation. Pointers are owned
// by the caller (a plant or a wrapper System).
template <typename T>
struct ForceElementInputs {
  const RigidBodyTree<T>* tree{nullptr};
  // ForwardKinematics(tree, cache, q, v) has run when the element declares
  // needs_kinematics(); otherwise the cache may hold anything.
  const KinematicsCache<T>* cache{nullptr};
  const VectorX<T>* q{nullptr};     // (nq)
  const VectorX<T>* v{nullptr};     // (nv)
  const T* u{nullptr};              // (num_inputs) command, null if none
  const T* z{nullptr};              // (num_states) own state, null if none
  Matrix6X<T>* J{nullptr};          // (6 x nv) scratch for Jacobians
  AbstractValue* scratch{nullptr};  // the element's MakeScratch(), or null
};

// A joint-space servo in the form an implicit time stepper can fold into
// its free-motion matrix (Actuator::ImplicitGains). With n joints and the
// actuator's command u = [q_d (n); v_d (n)], joint i applies
//   tau_i = clamp(kp_i (u_i - q[position_indices_i])
//                 + kd_i (u_{n+i} - v[velocity_indices_i]), effort_limits_i)
// at velocity index velocity_indices_i.
struct ImplicitJointGains {
  std::vector<int> velocity_indices;  // (n) velocity index of each joint
  std::vector<int> position_indices;  // (n) position index of each joint
  std::vector<double> kp;             // (n) N m / rad or N / m
  std::vector<double> kd;             // (n) N m s / rad or N s / m
  std::vector<double> effort_limits;  // (n) N m or N (infinity: none)
};

template <typename T>
class Actuator {
 public:
  virtual ~Actuator();
  Actuator(const Actuator&) = delete;
  Actuator& operator=(const Actuator&) = delete;

  const std::string& name() const { return name_; }
  int num_inputs() const { return num_inputs_; }
  int num_states() const { return num_states_; }
  bool needs_kinematics() const { return needs_kinematics_; }
  // Sizes of the tree the actuator was built for.
  int num_positions() const { return nq_; }
  int num_velocities() const { return nv_; }

  // tau (nv, sized by the caller), N m or N per dof: overwritten.
  virtual void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                    VectorX<T>* tau) const = 0;
  // zdot (num_states). The default (no state) does nothing.
  virtual void CalcStateDerivatives(const ForceElementInputs<T>& in,
                                    T* zdot) const;
  // Initial z (num_states); zeros by default.
  virtual VectorX<double> DefaultState() const;
  // A fresh per-Context workspace, or null (the default).
  virtual std::unique_ptr<AbstractValue> MakeScratch() const { return nullptr; }
  // For an actuator that is a contact law (CompliantContact): writes its
  // contacts carrying force at the cache's FK(q, v) as records of the
  // plant's "contact_forces" output (contact_common.h), the first
  // `capacity` of them to y, and returns how many there are. The default
  // (not a contact law) writes nothing and returns 0.
  virtual int WriteContactRecords(const ForceElementInputs<T>& /*in*/,
                                  double* /*y*/, int /*capacity*/) const {
    return 0;
  }
  // For a servo whose force is exactly the joint PD law of
  // ImplicitJointGains (JointPdActuator): its gains, so that a plant may
  // evaluate the law at the step's end state (TimeSteppingRigidBodySystem
  // with TimeSteppingOptions::implicit_pd) instead of calling
  // CalcGeneralizedForce. Null (the default) for any other actuator.
  virtual const ImplicitJointGains* ImplicitGains() const { return nullptr; }

 protected:
  Actuator(std::string name, const RigidBodyTree<T>& tree, int num_inputs,
           int num_states, bool needs_kinematics);

 private:
  std::string name_;
  int num_inputs_;
  int num_states_;
  bool needs_kinematics_;
  int nq_;
  int nv_;
};

// tau += J_P^T [torque_W; force_W]: the generalized force of a wrench applied
// at point P (fixed in frame `frame` at p_FP), torque and force in world
// coordinates. J is scratch (6 x nv); needs positions in the cache.
template <typename T>
void AddWrenchAsGeneralizedForce(const RigidBodyTree<T>& tree,
                                 const KinematicsCache<T>& cache, int frame,
                                 const Vector3<T>& p_FP,
                                 const Vector3<T>& torque_W,
                                 const Vector3<T>& force_W, Matrix6X<T>* J,
                                 VectorX<T>* tau);

// Joint torques (or forces) on selected single-dof joints, one command per
// joint, clamped to the joint's URDF effort limit (LimitCommand, the one
// clamp: a caller that logs the applied effort or counts clamped steps
// calls it rather than clamping again). With
// motor_time_constant > 0 the applied effort z follows the clamped command
// through a first-order lag, zdot = (clamp(u) - z) / motor_time_constant
// (one state per joint); with 0 (default) it is the clamped command itself.
// effort_limits, when given (one per joint, N m or N; infinity: none),
// replace the URDF's limits. Throws naming the actuator and joint if a joint
// is missing or has not exactly one dof, if motor_time_constant is negative
// or not finite, or if effort_limits has the wrong size or a limit that is
// not positive.
template <typename T>
class TorqueSource final : public Actuator<T> {
 public:
  TorqueSource(const RigidBodyTree<T>& tree,
               const std::vector<std::string>& joints,
               double motor_time_constant = 0,
               std::string name = "torque_source",
               const std::vector<double>& effort_limits = {});
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;
  void CalcStateDerivatives(const ForceElementInputs<T>& in,
                            T* zdot) const override;
  // The command u (num_inputs) after the effort limits: limited (the
  // effort applied without a motor lag, the lag's target with one) and,
  // per joint, clamped = 1 where |u| exceeds the limit, else 0. Either
  // output (num_inputs) may be null.
  void LimitCommand(const T* u, T* limited, T* clamped) const;
  // Whether joint i's effort limit clamps the command u_i.
  bool Clamps(int i, const T& u_i) const {
    return u_i > limit_[i] || u_i < -limit_[i];
  }
  const std::vector<int>& velocity_indices() const { return dofs_; }
  // Effort limit of each joint, N m or N (infinity: none).
  const std::vector<double>& effort_limits() const { return limit_; }
  double motor_time_constant() const { return time_constant_; }

 private:
  T Clamp(int i, const T& u) const;
  std::vector<int> dofs_;      // velocity index of each joint
  std::vector<double> limit_;  // effort limit of each joint, N m or N
  double time_constant_;       // s; 0: no motor lag
};

// Joint PD servos on selected single-dof joints (Drake's PD-controlled
// joint actuators, MuJoCo's position actuators): input [q_d (n); v_d (n)],
// the target positions and rates, and per joint
//   tau_i = clamp(kp_i (q_d,i - q_i) + kd_i (v_d,i - v_i), effort limit).
// The continuous plant applies it as written. TimeSteppingRigidBodySystem
// (with TimeSteppingOptions::implicit_pd, the default) evaluates it at the
// step's end state instead, q + h vn and vn, which folds h kd + h^2 kp into
// the free-motion matrix: stable for any gains at any step, where the
// explicit servo diverges once h^2 kp / I or h kd / I approaches 2 (see
// time_stepping_rigid_body_system.h for the effort limit). Throws naming
// the actuator and joint if a joint is missing or has not exactly one dof,
// and if a gain is negative or not finite or the gain vectors' sizes differ
// from the joints'.
template <typename T>
class JointPdActuator final : public Actuator<T> {
 public:
  JointPdActuator(const RigidBodyTree<T>& tree,
                  const std::vector<std::string>& joints,
                  const std::vector<double>& kp, const std::vector<double>& kd,
                  std::string name = "joint_pd");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;
  const ImplicitJointGains* ImplicitGains() const override { return &gains_; }
  const std::vector<int>& velocity_indices() const {
    return gains_.velocity_indices;
  }
  const std::vector<int>& position_indices() const {
    return gains_.position_indices;
  }
  // N m / rad or N / m.
  const std::vector<double>& kp() const { return gains_.kp; }
  // N m s / rad or N s / m.
  const std::vector<double>& kd() const { return gains_.kd; }
  const std::vector<double>& effort_limits() const {
    return gains_.effort_limits;
  }

 private:
  ImplicitJointGains gains_;  // the law, one entry per joint
};

// A commanded generalized force on every dof (input nv), applied as is: the
// seed's GeneralizedForce, for controllers that compute whole-body torques.
template <typename T>
class GeneralizedForce final : public Actuator<T> {
 public:
  explicit GeneralizedForce(const RigidBodyTree<T>& tree,
                            std::string name = "generalized_force");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;
};

// A commanded wrench (input 6: [torque; force], N m and N) on body `body`,
// applied at point p_BP and expressed in the body frame: e.g. the thrust of
// an engine fixed in the body.
template <typename T>
class SpatialForceActuator final : public Actuator<T> {
 public:
  SpatialForceActuator(const RigidBodyTree<T>& tree, const std::string& body,
                       const Vector3<double>& p_BP,
                       std::string name = "spatial_force");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;

 private:
  int frame_;
  Vector3<T> p_BP_;
};

// A linear spring-damper between point P on body A and point Q on body B
// (either may be "world"): tension k (l - l0) + b ldot along the line
// from P to Q, pulling the points together when positive. No input. Throws
// if A == B, a body is missing, k or b is negative, or l0 < 0.
template <typename T>
class LinearSpringDamper final : public Actuator<T> {
 public:
  LinearSpringDamper(const RigidBodyTree<T>& tree, const std::string& body_a,
                     const Vector3<double>& p_AP, const std::string& body_b,
                     const Vector3<double>& p_BQ, double stiffness,
                     double damping, double rest_length,
                     std::string name = "spring_damper");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;

 private:
  int frame_a_, frame_b_;
  Vector3<T> p_AP_, p_BQ_;
  double k_, b_, l0_;  // N/m, N s/m, m
};

// Quadratic aerodynamic drag on body `body` at its center of pressure p_BP:
// F = -c |v_P| v_P with v_P the point's velocity in world (still air), c in
// N s^2 / m^2 (0.5 rho C_d A). No input.
template <typename T>
class AerodynamicDrag final : public Actuator<T> {
 public:
  AerodynamicDrag(const RigidBodyTree<T>& tree, const std::string& body,
                  const Vector3<double>& p_BP, double drag_coefficient,
                  std::string name = "aerodynamic_drag");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;

 private:
  int frame_;
  Vector3<T> p_BP_;
  double c_;
};

// A propeller fixed in body `body` at p_BP spinning about the unit axis a_B
// at the commanded speed w (input 1, rad/s): thrust kf w^2 along a_B and a
// reaction (drag) torque -spin km w^2 about a_B, where spin = +1 for a
// propeller turning counter-clockwise about a_B and -1 otherwise. Enough
// for a quadrotor (four propellers, alternating spins).
template <typename T>
class Propeller final : public Actuator<T> {
 public:
  Propeller(const RigidBodyTree<T>& tree, const std::string& body,
            const Vector3<double>& p_BP, const Vector3<double>& axis_B,
            double thrust_coefficient, double moment_coefficient, int spin,
            std::string name = "propeller");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;

 private:
  int frame_;
  Vector3<T> p_BP_, axis_B_;
  double kf_, km_;  // N s^2, N m s^2
  double spin_;
};

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(Actuator)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(TorqueSource)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(JointPdActuator)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(GeneralizedForce)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(SpatialForceActuator)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(LinearSpringDamper)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(AerodynamicDrag)
TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(Propeller)

}  // namespace tern
