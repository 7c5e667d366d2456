#pragma once
// IntegratorStepError: the exception an integration rule throws when a step
// fails (a tolerance that cannot be met, Newton's method not converging, a
// state that became non-finite). Besides the message it carries the index of
// the state component the rule blames, in the integrator's state vector, so
// a driver that knows what the components are (the Simulator: which leaf
// system, which entry) can say so.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tern {

class IntegratorStepError : public std::runtime_error {
 public:
  IntegratorStepError(const std::string& message, std::int64_t component)
      : std::runtime_error(message), component_(component) {}
  // The blamed component of the integrator's state vector (for second-order
  // rules, x = [q; v]: a velocity component i is nq + i).
  std::int64_t component() const { return component_; }

 private:
  std::int64_t component_;
};

}  // namespace tern
