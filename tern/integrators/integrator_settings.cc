#include "tern/integrators/integrator_settings.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace tern {
namespace {

[[noreturn]] void Throw(const char* who, const char* setting, double value,
                        const char* requirement) {
  throw std::invalid_argument(fmt::format("{}: settings.{} = {}: {}", who,
                                          setting, value, requirement));
}

bool FiniteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

void ValidateSettings(const IntegratorSettings& s, const char* who) {
  if (!(std::isfinite(s.fixed_step) && s.fixed_step > 0)) {
    Throw(who, "fixed_step", s.fixed_step, "must be finite and > 0");
  }
  if (!(s.max_step > 0)) {
    Throw(who, "max_step", s.max_step, "must be > 0 (infinity: no limit)");
  }
  if (!FiniteNonNegative(s.initial_step)) {
    Throw(who, "initial_step", s.initial_step,
          "must be finite and >= 0 (0: chosen automatically)");
  }
  if (!FiniteNonNegative(s.min_step)) {
    Throw(who, "min_step", s.min_step, "must be finite and >= 0");
  }
  if (s.min_step > s.max_step) {
    throw std::invalid_argument(
        fmt::format("{}: settings.min_step = {} exceeds settings.max_step = {}",
                    who, s.min_step, s.max_step));
  }
  if (!FiniteNonNegative(s.rtol)) {
    Throw(who, "rtol", s.rtol, "must be finite and >= 0");
  }
  bool any_atol = false;
  if (s.atol_per_component.size() > 0) {
    for (Eigen::Index i = 0; i < s.atol_per_component.size(); ++i) {
      const double a = s.atol_per_component(i);
      if (!FiniteNonNegative(a)) {
        throw std::invalid_argument(fmt::format(
            "{}: settings.atol_per_component({}) = {}: must be finite and "
            ">= 0",
            who, i, a));
      }
      any_atol = any_atol || a > 0;
    }
  } else {
    if (!FiniteNonNegative(s.atol)) {
      Throw(who, "atol", s.atol, "must be finite and >= 0");
    }
    any_atol = s.atol > 0;
  }
  if (s.rtol == 0 && !any_atol) {
    throw std::invalid_argument(fmt::format(
        "{}: settings.rtol and settings.atol{} are all 0: no step can meet a "
        "zero tolerance",
        who, s.atol_per_component.size() > 0 ? "_per_component" : ""));
  }
  if (s.max_newton_iterations < 1) {
    throw std::invalid_argument(
        fmt::format("{}: settings.max_newton_iterations = {}: must be >= 1",
                    who, s.max_newton_iterations));
  }
}

void ValidateSettingsAt(const IntegratorSettings& s, const char* who,
                        double t) {
  ValidateSettings(s, who);
  if (!(t + s.max_step > t)) {
    throw std::invalid_argument(fmt::format(
        "{}: settings.max_step = {} is below the time resolution at t = {} "
        "(t + max_step == t): the integration would never advance",
        who, s.max_step, t));
  }
  if (s.initial_step > 0 && !(t + s.initial_step > t)) {
    throw std::invalid_argument(fmt::format(
        "{}: settings.initial_step = {} is below the time resolution at t = "
        "{} (t + initial_step == t)",
        who, s.initial_step, t));
  }
}

}  // namespace tern
