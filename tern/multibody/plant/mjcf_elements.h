#pragma once
// The parts of an MJCF model (tern/multibody/parsing/mjcf_parser.h) that are
// plant elements rather than tree: <equality> connect and weld become
// bilateral constraints, joint stiffness becomes a JointSpring. They live
// here, above the parser, because the parser does not know the plants.
// The same constraint list serves both plants: RigidBodySystem takes it as
// its `constraints`, TimeSteppingRigidBodySystem as its `bilateral` list
// (rows J vn = -erp phi / h), as URDF mimic joints reach both plants.
#include <memory>
#include <string>
#include <vector>

#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/continuous_time_constraint_force.h"

namespace tern {

// Passive joint springs (MuJoCo's joint stiffness): on each single-dof
// joint i, tau_i = -k_i (q_i - q_ref,i), N m or N. No input, no state.
// Throws std::invalid_argument naming the element and joint if a joint is
// missing or has not exactly one dof, a stiffness is negative or a value
// is not finite, or the sizes differ.
template <typename T>
class JointSpring final : public Actuator<T> {
 public:
  JointSpring(const RigidBodyTree<T>& tree,
              const std::vector<std::string>& joints,
              const std::vector<double>& stiffness,  // N m/rad or N/m
              const std::vector<double>& reference,  // rad or m
              std::string name = "joint_springs");
  void CalcGeneralizedForce(const ForceElementInputs<T>& in,
                            VectorX<T>* tau) const override;

 private:
  std::vector<int> dofs_, qs_;  // velocity and position index of each joint
  std::vector<double> k_, ref_;
};

// The active <equality> connect and weld constraints of `model`, on
// model.tree, in file order, named after the equality ("equality0", ...
// when unnamed). connect: PointToPointConstraint between body1's anchor
// and the point of body2 that coincides with it in qpos0. weld:
// WeldConstraint keeping body2's pose in body1 at relpose (or at its value
// in qpos0), measured at the anchor (a point of body2). Equalities with
// active="false" are left out (MuJoCo starts them disabled).
std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeMjcfEqualityConstraints(const MjcfModel& model, BaumgarteGains gains = {});

// One JointSpring over every joint with stiffness in `model`, or null if
// there is none.
std::shared_ptr<const Actuator<double>> MakeMjcfJointSprings(
    const MjcfModel& model);

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(JointSpring)

}  // namespace tern
