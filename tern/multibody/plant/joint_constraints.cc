#include "tern/multibody/plant/joint_constraints.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

template <typename T>
std::vector<LimitedJoint> LimitedJoints(const RigidBodyTree<T>& tree,
                                        std::string_view who) {
  std::vector<LimitedJoint> limits;
  for (const RigidBody<T>& b : tree.bodies()) {
    if (b.num_velocities != 1 || b.num_positions != 1) continue;
    const double lo = b.joint.position_lower, hi = b.joint.position_upper;
    if (!std::isfinite(lo) && !std::isfinite(hi)) continue;
    if (!(lo <= hi)) {
      throw std::invalid_argument(
          fmt::format("{}: joint '{}' has lower limit {} above upper limit {}",
                      who, b.joint.name, lo, hi));
    }
    limits.push_back(
        {b.velocity_start, b.position_start, lo, hi, b.joint.name});
  }
  return limits;
}

template <typename T>
std::vector<FrictionDof> JointFrictionDofs(const RigidBodyTree<T>& tree,
                                           std::string_view who) {
  std::vector<FrictionDof> dofs;
  for (const RigidBody<T>& b : tree.bodies()) {
    const double F = b.joint.friction;
    if (!std::isfinite(F)) {
      throw std::invalid_argument(
          fmt::format("{}: joint '{}' has friction {} (must be finite)", who,
                      b.joint.name, F));
    }
    if (!(F > 0)) continue;
    for (int i = 0; i < b.num_velocities; ++i) {
      dofs.push_back({b.velocity_start + i, F});
    }
  }
  return dofs;
}

template <typename T>
std::vector<std::shared_ptr<ContinuousTimeConstraintForce<T>>> MimicConstraints(
    const RigidBodyTree<T>& tree) {
  std::vector<std::shared_ptr<ContinuousTimeConstraintForce<T>>> out;
  for (const MimicConstraint& m : tree.mimic_constraints()) {
    out.push_back(std::make_shared<JointCouplingConstraint<T>>(
        tree, m.joint, m.leader_joint, m.multiplier, m.offset, BaumgarteGains{},
        "mimic_" + m.joint));
  }
  return out;
}

#define TERN_INSTANTIATE_JOINT_CONSTRAINTS(T)                                  \
  template std::vector<LimitedJoint> LimitedJoints(const RigidBodyTree<T>&,    \
                                                   std::string_view);          \
  template std::vector<FrictionDof> JointFrictionDofs(const RigidBodyTree<T>&, \
                                                      std::string_view);       \
  template std::vector<std::shared_ptr<ContinuousTimeConstraintForce<T>>>      \
  MimicConstraints(const RigidBodyTree<T>&);
TERN_INSTANTIATE_JOINT_CONSTRAINTS(double)
TERN_INSTANTIATE_JOINT_CONSTRAINTS(AutoDiffXd)
#undef TERN_INSTANTIATE_JOINT_CONSTRAINTS

}  // namespace tern
