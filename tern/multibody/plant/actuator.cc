#include "tern/multibody/plant/actuator.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/multibody/plant/joint_lookup.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

template <typename T>
const RigidBody<T>& internal::FindSingleDofJoint(const RigidBodyTree<T>& tree,
                                                 const std::string& element,
                                                 const std::string& joint,
                                                 const char* need) {
  if (!tree.HasJoint(joint)) {
    throw std::invalid_argument(
        fmt::format("{}: joint '{}' does not exist in tree '{}'", element,
                    joint, tree.name()));
  }
  const RigidBody<T>& b = tree.body(tree.FindJointBodyIndex(joint));
  if (b.num_velocities != 1 || b.num_positions != 1) {
    throw std::invalid_argument(fmt::format(
        "{}: joint '{}' is {} with {} velocities; {}", element, joint,
        JointTypeName(b.joint.type), b.num_velocities, need));
  }
  return b;
}
template const RigidBody<double>& internal::FindSingleDofJoint(
    const RigidBodyTree<double>&, const std::string&, const std::string&,
    const char*);
template const RigidBody<AutoDiffXd>& internal::FindSingleDofJoint(
    const RigidBodyTree<AutoDiffXd>&, const std::string&, const std::string&,
    const char*);

namespace {

// The frame index of body `body` (each body has a frame of its own name),
// or a message naming the element and the missing body.
template <typename T>
int BodyFrame(const RigidBodyTree<T>& tree, const std::string& element,
              const std::string& body) {
  if (!tree.HasBody(body)) {
    throw std::invalid_argument(
        fmt::format("{}: body '{}' does not exist in tree '{}'", element, body,
                    tree.name()));
  }
  return tree.FindFrameIndex(body);
}

void CheckNonNegative(const std::string& element, const char* what,
                      double value) {
  if (!(value >= 0) || !std::isfinite(value)) {
    throw std::invalid_argument(fmt::format(
        "{}: {} must be finite and >= 0, got {}", element, what, value));
  }
}

}  // namespace

template <typename T>
Actuator<T>::Actuator(std::string name, const RigidBodyTree<T>& tree,
                      int num_inputs, int num_states, bool needs_kinematics)
    : name_(std::move(name)),
      num_inputs_(num_inputs),
      num_states_(num_states),
      needs_kinematics_(needs_kinematics),
      nq_(tree.num_positions()),
      nv_(tree.num_velocities()) {}

template <typename T>
Actuator<T>::~Actuator() = default;

template <typename T>
void Actuator<T>::CalcStateDerivatives(const ForceElementInputs<T>&, T*) const {
}

template <typename T>
VectorX<double> Actuator<T>::DefaultState() const {
  return VectorX<double>::Zero(num_states_);
}

template <typename T>
void AddWrenchAsGeneralizedForce(const RigidBodyTree<T>& tree,
                                 const KinematicsCache<T>& cache, int frame,
                                 const Vector3<T>& p_FP,
                                 const Vector3<T>& torque_W,
                                 const Vector3<T>& force_W, Matrix6X<T>* J,
                                 VectorX<T>* tau) {
  WorldAlignedJacobian(tree, cache, frame, p_FP, J);
  // Rows 0..2 map v to w_W, rows 3..5 to P's velocity: power = w.n + v.f.
  tau->noalias() += J->template topRows<3>().transpose() * torque_W;
  tau->noalias() += J->template bottomRows<3>().transpose() * force_W;
}

// ---- TorqueSource.
template <typename T>
TorqueSource<T>::TorqueSource(const RigidBodyTree<T>& tree,
                              const std::vector<std::string>& joints,
                              double motor_time_constant, std::string name,
                              const std::vector<double>& effort_limits)
    : Actuator<T>(name, tree, static_cast<int>(joints.size()),
                  motor_time_constant > 0 ? static_cast<int>(joints.size()) : 0,
                  false),
      time_constant_(motor_time_constant) {
  CheckNonNegative("TorqueSource '" + name + "'", "motor_time_constant",
                   motor_time_constant);
  if (joints.empty()) {
    throw std::invalid_argument(
        fmt::format("TorqueSource '{}': no joints given", name));
  }
  for (const std::string& joint : joints) {
    if (!tree.HasJoint(joint)) {
      throw std::invalid_argument(
          fmt::format("TorqueSource '{}': joint '{}' does not exist in tree "
                      "'{}'",
                      name, joint, tree.name()));
    }
    const RigidBody<T>& b = tree.body(tree.FindJointBodyIndex(joint));
    if (b.num_velocities != 1) {
      throw std::invalid_argument(fmt::format(
          "TorqueSource '{}': joint '{}' is {} with {} velocities; only "
          "single-dof joints can be driven (use GeneralizedForce)",
          name, joint, JointTypeName(b.joint.type), b.num_velocities));
    }
    dofs_.push_back(b.velocity_start);
    limit_.push_back(b.joint.effort_limit);
  }
  if (!effort_limits.empty()) {
    if (effort_limits.size() != joints.size()) {
      throw std::invalid_argument(
          fmt::format("TorqueSource '{}': {} effort limits given for {} joints",
                      name, effort_limits.size(), joints.size()));
    }
    for (std::size_t i = 0; i < joints.size(); ++i) {
      if (!(effort_limits[i] > 0)) {
        throw std::invalid_argument(fmt::format(
            "TorqueSource '{}': joint '{}': effort limit {} is not positive "
            "(use infinity for none)",
            name, joints[i], effort_limits[i]));
      }
      limit_[i] = effort_limits[i];
    }
  }
}

template <typename T>
T TorqueSource<T>::Clamp(int i, const T& u) const {
  const double lim = limit_[i];
  if (u > lim) return T(lim);
  if (u < -lim) return T(-lim);
  return u;
}

template <typename T>
void TorqueSource<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                           VectorX<T>* tau) const {
  tau->setZero();
  const int n = static_cast<int>(dofs_.size());
  if (time_constant_ > 0) {
    for (int i = 0; i < n; ++i) (*tau)[dofs_[i]] = in.z[i];
  } else {
    for (int i = 0; i < n; ++i) (*tau)[dofs_[i]] = Clamp(i, in.u[i]);
  }
}

template <typename T>
void TorqueSource<T>::CalcStateDerivatives(const ForceElementInputs<T>& in,
                                           T* zdot) const {
  if (!(time_constant_ > 0)) return;
  const int n = static_cast<int>(dofs_.size());
  for (int i = 0; i < n; ++i) {
    zdot[i] = (Clamp(i, in.u[i]) - in.z[i]) / time_constant_;
  }
}

template <typename T>
void TorqueSource<T>::LimitCommand(const T* u, T* limited, T* clamped) const {
  const int n = static_cast<int>(dofs_.size());
  for (int i = 0; i < n; ++i) {
    if (limited) limited[i] = Clamp(i, u[i]);
    if (clamped) clamped[i] = T(Clamps(i, u[i]) ? 1 : 0);
  }
}

// ---- JointPdActuator.
template <typename T>
JointPdActuator<T>::JointPdActuator(const RigidBodyTree<T>& tree,
                                    const std::vector<std::string>& joints,
                                    const std::vector<double>& kp,
                                    const std::vector<double>& kd,
                                    std::string name)
    : Actuator<T>(name, tree, 2 * static_cast<int>(joints.size()), 0, false) {
  const std::string who = "JointPdActuator '" + name + "'";
  if (joints.empty()) {
    throw std::invalid_argument(fmt::format("{}: no joints given", who));
  }
  if (kp.size() != joints.size() || kd.size() != joints.size()) {
    throw std::invalid_argument(
        fmt::format("{}: {} joints but {} kp and {} kd gains", who,
                    joints.size(), kp.size(), kd.size()));
  }
  for (size_t i = 0; i < joints.size(); ++i) {
    const std::string& joint = joints[i];
    const RigidBody<T>& b = internal::FindSingleDofJoint(
        tree, who, joint, "only single-dof joints can be servoed");
    CheckNonNegative(who + " joint '" + joint + "'", "kp", kp[i]);
    CheckNonNegative(who + " joint '" + joint + "'", "kd", kd[i]);
    gains_.velocity_indices.push_back(b.velocity_start);
    gains_.position_indices.push_back(b.position_start);
    gains_.effort_limits.push_back(b.joint.effort_limit);
  }
  gains_.kp = kp;
  gains_.kd = kd;
}

template <typename T>
void JointPdActuator<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                              VectorX<T>* tau) const {
  tau->setZero();
  const ImplicitJointGains& g = gains_;
  const int n = static_cast<int>(g.velocity_indices.size());
  for (int i = 0; i < n; ++i) {
    const int dof = g.velocity_indices[i];
    T u = g.kp[i] * (in.u[i] - (*in.q)[g.position_indices[i]]) +
          g.kd[i] * (in.u[n + i] - (*in.v)[dof]);
    const double lim = g.effort_limits[i];
    if (u > lim) u = T(lim);
    if (u < -lim) u = T(-lim);
    (*tau)[dof] = u;
  }
}

// ---- GeneralizedForce.
template <typename T>
GeneralizedForce<T>::GeneralizedForce(const RigidBodyTree<T>& tree,
                                      std::string name)
    : Actuator<T>(std::move(name), tree, tree.num_velocities(), 0, false) {}

template <typename T>
void GeneralizedForce<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                               VectorX<T>* tau) const {
  for (Eigen::Index i = 0; i < tau->size(); ++i) (*tau)[i] = in.u[i];
}

// ---- SpatialForceActuator.
template <typename T>
SpatialForceActuator<T>::SpatialForceActuator(const RigidBodyTree<T>& tree,
                                              const std::string& body,
                                              const Vector3<double>& p_BP,
                                              std::string name)
    : Actuator<T>(name, tree, 6, 0, true),
      frame_(BodyFrame(tree, "SpatialForceActuator '" + name + "'", body)),
      p_BP_(p_BP.cast<T>()) {}

template <typename T>
void SpatialForceActuator<T>::CalcGeneralizedForce(
    const ForceElementInputs<T>& in, VectorX<T>* tau) const {
  tau->setZero();
  const Matrix3<T>& R_WB = in.cache->X_WB[in.tree->frame(frame_).body].R;
  const Vector3<T> n_B(in.u[0], in.u[1], in.u[2]);
  const Vector3<T> f_B(in.u[3], in.u[4], in.u[5]);
  AddWrenchAsGeneralizedForce<T>(*in.tree, *in.cache, frame_, p_BP_, R_WB * n_B,
                                 R_WB * f_B, in.J, tau);
}

// ---- LinearSpringDamper.
template <typename T>
LinearSpringDamper<T>::LinearSpringDamper(const RigidBodyTree<T>& tree,
                                          const std::string& body_a,
                                          const Vector3<double>& p_AP,
                                          const std::string& body_b,
                                          const Vector3<double>& p_BQ,
                                          double stiffness, double damping,
                                          double rest_length, std::string name)
    : Actuator<T>(name, tree, 0, 0, true),
      frame_a_(BodyFrame(tree, "LinearSpringDamper '" + name + "'", body_a)),
      frame_b_(BodyFrame(tree, "LinearSpringDamper '" + name + "'", body_b)),
      p_AP_(p_AP.cast<T>()),
      p_BQ_(p_BQ.cast<T>()),
      k_(stiffness),
      b_(damping),
      l0_(rest_length) {
  const std::string element = "LinearSpringDamper '" + name + "'";
  if (body_a == body_b) {
    throw std::invalid_argument(
        fmt::format("{}: both ends are on body '{}'; a spring needs two bodies",
                    element, body_a));
  }
  CheckNonNegative(element, "stiffness", stiffness);
  CheckNonNegative(element, "damping", damping);
  CheckNonNegative(element, "rest_length", rest_length);
}

template <typename T>
void LinearSpringDamper<T>::CalcGeneralizedForce(
    const ForceElementInputs<T>& in, VectorX<T>* tau) const {
  using std::sqrt;
  tau->setZero();
  const RigidBodyTree<T>& tree = *in.tree;
  const KinematicsCache<T>& cache = *in.cache;
  const int body_a = tree.frame(frame_a_).body;
  const int body_b = tree.frame(frame_b_).body;
  const RigidTransform<T>& X_WA = cache.X_WB[body_a];
  const RigidTransform<T>& X_WB = cache.X_WB[body_b];
  const Vector3<T> p_WP = X_WA * p_AP_;
  const Vector3<T> p_WQ = X_WB * p_BQ_;
  // Point velocities in world: v_origin + w x r, from body-frame twists.
  const SpatialMotion<T>& V_A = cache.V[body_a];
  const SpatialMotion<T>& V_B = cache.V[body_b];
  const Vector3<T> v_WP =
      X_WA.R * (V_A.template tail<3>() + V_A.template head<3>().cross(p_AP_));
  const Vector3<T> v_WQ =
      X_WB.R * (V_B.template tail<3>() + V_B.template head<3>().cross(p_BQ_));
  const Vector3<T> d = p_WQ - p_WP;
  const T length = sqrt(d.squaredNorm());
  if (!(length > 0)) return;  // coincident points: no direction
  const Vector3<T> e = d / length;
  const T length_dot = e.dot(v_WQ - v_WP);
  const T tension = k_ * (length - l0_) + b_ * length_dot;
  const Vector3<T> zero = Vector3<T>::Zero();
  AddWrenchAsGeneralizedForce<T>(tree, cache, frame_a_, p_AP_, zero,
                                 tension * e, in.J, tau);
  AddWrenchAsGeneralizedForce<T>(tree, cache, frame_b_, p_BQ_, zero,
                                 -tension * e, in.J, tau);
}

// ---- AerodynamicDrag.
template <typename T>
AerodynamicDrag<T>::AerodynamicDrag(const RigidBodyTree<T>& tree,
                                    const std::string& body,
                                    const Vector3<double>& p_BP,
                                    double drag_coefficient, std::string name)
    : Actuator<T>(name, tree, 0, 0, true),
      frame_(BodyFrame(tree, "AerodynamicDrag '" + name + "'", body)),
      p_BP_(p_BP.cast<T>()),
      c_(drag_coefficient) {
  CheckNonNegative("AerodynamicDrag '" + name + "'", "drag_coefficient",
                   drag_coefficient);
}

template <typename T>
void AerodynamicDrag<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                              VectorX<T>* tau) const {
  using std::sqrt;
  tau->setZero();
  const int body = in.tree->frame(frame_).body;
  const RigidTransform<T>& X_WB = in.cache->X_WB[body];
  const SpatialMotion<T>& V = in.cache->V[body];
  const Vector3<T> v_WP =
      X_WB.R * (V.template tail<3>() + V.template head<3>().cross(p_BP_));
  const T speed = sqrt(v_WP.squaredNorm());
  AddWrenchAsGeneralizedForce<T>(*in.tree, *in.cache, frame_, p_BP_,
                                 Vector3<T>::Zero(), (-c_ * speed) * v_WP, in.J,
                                 tau);
}

// ---- Propeller.
template <typename T>
Propeller<T>::Propeller(const RigidBodyTree<T>& tree, const std::string& body,
                        const Vector3<double>& p_BP,
                        const Vector3<double>& axis_B,
                        double thrust_coefficient, double moment_coefficient,
                        int spin, std::string name)
    : Actuator<T>(name, tree, 1, 0, true),
      frame_(BodyFrame(tree, "Propeller '" + name + "'", body)),
      p_BP_(p_BP.cast<T>()),
      kf_(thrust_coefficient),
      km_(moment_coefficient),
      spin_(spin) {
  const std::string element = "Propeller '" + name + "'";
  CheckNonNegative(element, "thrust_coefficient", thrust_coefficient);
  CheckNonNegative(element, "moment_coefficient", moment_coefficient);
  if (spin != 1 && spin != -1) {
    throw std::invalid_argument(
        fmt::format("{}: spin must be +1 or -1, got {}", element, spin));
  }
  if (!(axis_B.norm() > 0)) {
    throw std::invalid_argument(
        fmt::format("{}: the axis must be nonzero", element));
  }
  axis_B_ = axis_B.normalized().cast<T>();
}

template <typename T>
void Propeller<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                        VectorX<T>* tau) const {
  tau->setZero();
  const Matrix3<T>& R_WB = in.cache->X_WB[in.tree->frame(frame_).body].R;
  const T w2 = in.u[0] * in.u[0];
  const Vector3<T> a_W = R_WB * axis_B_;
  AddWrenchAsGeneralizedForce<T>(*in.tree, *in.cache, frame_, p_BP_,
                                 (-spin_ * km_ * w2) * a_W, (kf_ * w2) * a_W,
                                 in.J, tau);
}

#define TERN_INSTANTIATE_WRENCH(T)                                           \
  template void AddWrenchAsGeneralizedForce<T>(                              \
      const RigidBodyTree<T>&, const KinematicsCache<T>&, int,               \
      const Vector3<T>&, const Vector3<T>&, const Vector3<T>&, Matrix6X<T>*, \
      VectorX<T>*);
TERN_INSTANTIATE_WRENCH(double)
TERN_INSTANTIATE_WRENCH(AutoDiffXd)
#undef TERN_INSTANTIATE_WRENCH

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Actuator)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(TorqueSource)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(JointPdActuator)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(GeneralizedForce)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(SpatialForceActuator)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(LinearSpringDamper)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(AerodynamicDrag)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Propeller)

}  // namespace tern
