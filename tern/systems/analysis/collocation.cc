#include "tern/systems/analysis/collocation.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

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

void CheckSolverOptions(const char* caller,
                        const ImplicitSolverOptions& options) {
  if (!(std::isfinite(options.tolerance) && options.tolerance >= 0)) {
    throw std::invalid_argument(fmt::format(
        "{}: ImplicitSolverOptions.tolerance = {}: must be finite and >= 0",
        caller, options.tolerance));
  }
  if (options.max_iterations < 1) {
    throw std::invalid_argument(fmt::format(
        "{}: ImplicitSolverOptions.max_iterations = {}: must be >= 1", caller,
        options.max_iterations));
  }
}

}  // namespace tern::internal
