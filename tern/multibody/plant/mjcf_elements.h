#pragma once
// The parts of a model file that are plant elements rather than tree
// (tern/multibody/parsing/model_elements.h): equality constraints (MJCF
// <equality> connect and weld) become bilateral constraints, joint springs
// (MJCF joint stiffness, SDFormat <spring_stiffness>) one JointSpring. They
// live here, above the parsers, because the parsers do not know the plants.
// MakeEqualityConstraints and MakeJointSprings build them from the
// descriptions on any tree holding the named bodies and joints: the model's
// own, or a world the model was copied into (tern/io's scenarios map the
// names through tern/multibody/scene).
// The same constraint list serves both plants: RigidBodySystem takes it as
// its `constraints`, TimeSteppingRigidBodySystem as its `bilateral` list
// (rows J vn = -erp phi / h), as URDF mimic joints reach both plants.
#include <memory>
#include <string>
#include <vector>

#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/parsing/model_elements.h"
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

// One constraint per spec, on `tree`, named after the spec: kPoint a
// PointToPointConstraint between the origins of F and G, kWeld a
// WeldConstraint between F and G. Throws std::invalid_argument naming the
// constraint and body if a body is not in `tree`.
std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeEqualityConstraints(const RigidBodyTree<double>& tree,
                        const std::vector<EqualityConstraintSpec>& specs,
                        BaumgarteGains gains = {});

// One JointSpring over every spec, on `tree`, or null if `specs` is empty.
// Throws as JointSpring does.
std::shared_ptr<const Actuator<double>> MakeJointSprings(
    const RigidBodyTree<double>& tree,
    const std::vector<JointSpringSpec>& specs,
    const std::string& name = "joint_springs");

// The active <equality> connect and weld constraints of `model`, on
// model.tree, in file order (ResolveMjcfEqualities, then
// MakeEqualityConstraints). connect: PointToPointConstraint between body1's
// anchor and the point of body2 that coincides with it in qpos0. weld:
// WeldConstraint keeping body2's pose in body1 at relpose (or at its value
// in qpos0), measured at the anchor (a point of body2). Equalities with
// active="false" are left out (MuJoCo starts them disabled).
std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeMjcfEqualityConstraints(const MjcfModel& model, BaumgarteGains gains = {});

// MakeJointSprings(model.tree, model.springs).
std::shared_ptr<const Actuator<double>> MakeMjcfJointSprings(
    const MjcfModel& model);

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(JointSpring)

}  // namespace tern
