#include "tern/systems/analysis/collocation.h"

#include <fmt/format.h>

namespace tern::internal {

void ThrowImplicitSolveFailure(const char* rule_name,
                               const std::string& model_name, double t,
                               double dt, int iterations, double residual_norm,
                               Eigen::Index worst_component) {
  throw std::runtime_error(fmt::format(
      "DiscreteDynamics<{}>: Newton iteration for model '{}' at t = {}, "
      "dt = {} did not converge after {} iterations: max |residual| = {} "
      "(state component {})",
      rule_name, model_name, t, dt, iterations, residual_norm,
      worst_component));
}

}  // namespace tern::internal
