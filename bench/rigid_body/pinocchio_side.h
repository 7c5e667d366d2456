#pragma once
// The Pinocchio side of rigid_body_derivatives_bench (built only with
// -DTERN_PINOCCHIO_SOURCE): registers "<prefix>rnea/pinocchio" and
// "<prefix>aba/pinocchio" (computeRNEADerivatives, computeABADerivatives),
// and "<prefix>crba/pinocchio" (the mass matrix, for reference) on a
// Pinocchio model built joint by joint from `tree`.
#include <string>

#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern::bench {

void RegisterPinocchio(const std::string& prefix,
                       const RigidBodyTree<double>& tree, int pool);

}  // namespace tern::bench
