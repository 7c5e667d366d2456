#pragma once
// Settings and statistics shared by every integration driver: the run-time
// IntegratorBase and the template steppers used on the fast path
// (AdaptiveStepper, RadauIIA5, ...). Plain data, no Eigen templates beyond
// VectorXd, so it is cheap to include.
#include <Eigen/Core>
#include <cstdint>
#include <limits>

namespace tern {
namespace internal {
// Size a rule's scratch takes by default: the compile-time size, or 0.
template <typename Vec>
constexpr Eigen::Index DefaultSizeOf() {
  return Vec::RowsAtCompileTime > 0 ? Vec::RowsAtCompileTime : 0;
}
}  // namespace internal

// How an implicit rule obtains the Jacobian df/dx of the right-hand side.
//  kAutomatic:        user-supplied if the callable provides one (a member
//                     `Jacobian(t, x, &J)` on the template path, or
//                     OdeFunction::EvalJacobian returning true at run time),
//                     else autodiff if the callable accepts autodiff vectors
//                     (template path only), else central differences.
//  kAutoDiff:         forward-mode autodiff (template path; the callable must
//                     be generic in its scalar). Fixed-size states use
//                     AutoDiffN<N + 1> and never allocate.
//  kCentralDifference: 2n evaluations of f, error O(sqrt-of-eps^(2/3)).
//  kUserSupplied:     the callable's Jacobian; throws if it has none.
enum class JacobianScheme {
  kAutomatic,
  kAutoDiff,
  kCentralDifference,
  kUserSupplied
};

// Accuracy and step-size settings. Fixed-step rules use `fixed_step`;
// error-controlled rules use it (if initial_step is 0 and fixed_step was set
// explicitly they ignore it) and control the step from rtol/atol in the
// weighted RMS norm of Hairer, Norsett & Wanner (Solving ODEs I, II.4):
//   ||e|| = sqrt(1/n sum_i (e_i / (atol_i + rtol max(|x0_i|, |x1_i|)))^2),
// a step being accepted when ||e|| <= 1.
struct IntegratorSettings {
  double fixed_step{1e-3};  // s; step of fixed-step rules
  double initial_step{0};   // s; 0 = choose automatically (HNW I, II.4)
  double max_step{std::numeric_limits<double>::infinity()};  // s
  // s; an error-controlled step that must shrink below max(min_step,
  // 16 eps |t|) fails (MinStep in error_control.h): relative to t by default.
  double min_step{0};
  double rtol{1e-6};                   // relative tolerance
  double atol{1e-6};                   // absolute tolerance (all components)
  Eigen::VectorXd atol_per_component;  // (n) overrides atol when non-empty
  // Implicit rules: how the Jacobian is obtained, Newton iteration limit.
  JacobianScheme jacobian_scheme{JacobianScheme::kAutomatic};
  int max_newton_iterations{7};
  // The right-hand side does not depend on t explicitly (f(t, x) = f(x)).
  // Rosenbrock rules (rodas4, kaps_rentrop4) then take df/dt = 0 instead of
  // differencing f in t: two evaluations fewer per step when the Jacobian
  // is user-supplied or differenced (autodiff gets df/dt for free). Same as
  // `static constexpr bool kAutonomous = true` on a template-path callable.
  // Setting it for an f that does depend on t gives wrong results.
  bool autonomous{false};
  // Error-controlled explicit rules: prepare dense output at every accepted
  // step. Free for bs3/dopri5 (a few vector operations), three extra
  // derivative evaluations per step for dop853's 7th-order interpolant.
  bool dense_output{true};
};

// Throws std::invalid_argument naming `who` (the rule), the setting and its
// value unless: fixed_step is finite and > 0; max_step > 0 (may be
// infinite); initial_step and min_step are finite and >= 0, min_step <=
// max_step; rtol, atol and every atol_per_component entry are finite and
// >= 0, and not all zero; max_newton_iterations >= 1. MakeIntegrator and
// FixedStepIntegrator check at construction, every driver again at each step
// (settings may change in between through mutable_settings()).
void ValidateSettings(const IntegratorSettings& settings, const char* who);

// ValidateSettings, and that max_step and a given initial_step are above the
// time resolution at t (t + h > t; a smaller step would never advance).
// Called at the start of each adaptive step.
void ValidateSettingsAt(const IntegratorSettings& settings, const char* who,
                        double t);

struct IntegratorStatistics {
  std::int64_t steps{0};                   // accepted steps
  std::int64_t rejected_steps{0};          // error test or Newton failures
  std::int64_t derivative_evaluations{0};  // calls of f (incl. finite diffs)
  std::int64_t jacobian_evaluations{0};
  std::int64_t lu_factorizations{0};  // real and complex counted alike
  std::int64_t newton_iterations{0};

  IntegratorStatistics& operator+=(const IntegratorStatistics& o) {
    steps += o.steps;
    rejected_steps += o.rejected_steps;
    derivative_evaluations += o.derivative_evaluations;
    jacobian_evaluations += o.jacobian_evaluations;
    lu_factorizations += o.lu_factorizations;
    newton_iterations += o.newton_iterations;
    return *this;
  }
};

}  // namespace tern
