#pragma once
// What a tree's joints ask of a plant besides their dynamics: position
// limits, Coulomb friction and <mimic> couplings. Both plants read them
// here, once, so RigidBodySystem (acceleration-level rows, Murty or Lemke)
// and TimeSteppingRigidBodySystem (velocity-level rows, the convex solver)
// constrain the same joints with the same data and refuse the same bad
// input; each builds its rows from these at its own level.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tern/common/default_scalars.h"
#include "tern/multibody/plant/continuous_time_constraint_force.h"

namespace tern {

// A one-dof joint with a finite lower or upper position bound.
struct LimitedJoint {
  int dof{0};                 // its velocity index
  int q{0};                   // its position index
  double lower{0}, upper{0};  // m or rad; one of them may be infinite
  std::string name;           // the joint's
};

// A dof with joint Coulomb friction: |tau_f| <= force.
struct FrictionDof {
  int dof{0};       // velocity index
  double force{0};  // N or N m, > 0
};

// The tree's limited joints in body order. Throws std::invalid_argument
// "<who>: joint '<name>' has lower limit L above upper limit U".
template <typename T>
std::vector<LimitedJoint> LimitedJoints(const RigidBodyTree<T>& tree,
                                        std::string_view who);

// Every dof of a joint with friction > 0 (a multi-dof joint's friction
// acts on each of its dofs). Throws std::invalid_argument "<who>: joint
// '<name>' has friction F (must be finite)" for a non-finite friction.
template <typename T>
std::vector<FrictionDof> JointFrictionDofs(const RigidBodyTree<T>& tree,
                                           std::string_view who);

// One JointCouplingConstraint per <mimic> joint of the tree (q_f =
// multiplier q_l + offset), named "mimic_<joint>", default gains.
template <typename T>
std::vector<std::shared_ptr<ContinuousTimeConstraintForce<T>>> MimicConstraints(
    const RigidBodyTree<T>& tree);

}  // namespace tern
