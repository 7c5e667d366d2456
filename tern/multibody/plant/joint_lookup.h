#pragma once
// The single-dof joint lookup that joint-space elements (JointPdActuator,
// JointSpring) share, with the messages that name the element and joint.
#include <string>

#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {
namespace internal {

// The body whose joint is `joint`. Throws std::invalid_argument naming
// `element` if the joint does not exist or has not exactly one position
// and one velocity; `need` ends that message (e.g. "only single-dof joints
// can be servoed"). Defined in actuator.cc for double and AutoDiffXd.
template <typename T>
const RigidBody<T>& FindSingleDofJoint(const RigidBodyTree<T>& tree,
                                       const std::string& element,
                                       const std::string& joint,
                                       const char* need);

}  // namespace internal
}  // namespace tern
