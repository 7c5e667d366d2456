#include "tern/systems/analysis/discrete_jacobian.h"

#include <fmt/format.h>

namespace tern {

const char* to_string(JacobianMethod method) {
  switch (method) {
    case JacobianMethod::kAutoDiff:
      return "autodiff";
    case JacobianMethod::kCentralDifference:
      return "central_difference";
    case JacobianMethod::kAnalytic:
      return "analytic";
  }
  return "unknown";
}

namespace internal {

void ThrowJacobianMethodUnavailable(const char* caller, JacobianMethod method,
                                    const std::string& model_name,
                                    const char* reason) {
  throw std::invalid_argument(
      fmt::format("{}: method '{}' is unavailable for model '{}': {}", caller,
                  to_string(method), model_name, reason));
}

}  // namespace internal
}  // namespace tern
