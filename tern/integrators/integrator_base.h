#pragma once
// IntegratorBase: the run-time interface through which the Simulator (and
// anything that picks a rule by name) drives an integration rule. It adds
// settings, statistics and step-size policy around a rule; the arithmetic of
// each rule lives once, in its rule class (explicit_rules.h and friends).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "tern/common/autodiff.h"
#include "tern/common/compiler.h"
#include "tern/common/eigen_types.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/integrators/integrator_settings.h"
#include "tern/integrators/ode_function.h"

namespace tern {

template <typename T>
class IntegratorBase {
 public:
  virtual ~IntegratorBase() = default;

  // Short name ("rk4", "dopri5", ...), as accepted by MakeIntegrator().
  virtual std::string name() const = 0;
  virtual int order() const = 0;
  virtual bool supports_error_control() const = 0;

  // Sizes the scratch for n continuous states. Must be called before Step;
  // allocation happens here and never in Step.
  virtual void Initialize(Eigen::Index n) = 0;
  // For rules with requires_second_order(): sizes the scratch for nq
  // positions and nv velocities (x = [q; v]). Others: Initialize(nq + nv).
  virtual void InitializeSecondOrder(Eigen::Index nq, Eigen::Index nv) {
    Initialize(nq + nv);
  }

  // Advances x from t by one step that does not pass t_limit and returns the
  // time reached. On an exception x is left at its value on entry.
  // Error-controlled rules choose the step; fixed-step rules take
  // settings().fixed_step (the last one shortened to land on t_limit).
  virtual T Step(OdeFunction<T>& f, const T& t, const T& t_limit,
                 VectorX<T>* x) = 0;

  // True if Step needs f to be a SecondOrderOdeFunction<T> (x = [q; v]);
  // Step throws std::invalid_argument otherwise.
  virtual bool requires_second_order() const { return false; }
  // True for implicit and linearly implicit rules (they use Jacobians; see
  // settings().jacobian_scheme and OdeFunction::EvalJacobian).
  virtual bool is_implicit() const { return false; }

  // Forgets cached derivatives (FSAL), Jacobians, LU factors and step-size
  // history. Call after anything outside the integrator changed the state
  // or the right-hand side (events, discrete updates, parameters). Step
  // itself detects a changed t or x; a changed right-hand side it cannot.
  virtual void Reset() {}

  // Order of the interpolant DenseOutput uses (0: none). bs3 3, dopri5 4,
  // dop853 7 (three extra evaluations in a step where it is used), radau5 3
  // (collocation polynomial), rodas4 3 (RODAS's interpolant),
  // implicit_euler, implicit_trapezoid, kaps_rentrop4 3 (cubic Hermite).
  // Fixed-step rules have none: localize an event by repeating the step from
  // its start with a shorter h.
  virtual int dense_output_order() const { return 0; }
  // x(t) for t in [t_start, t_end] of the last step returned by Step; valid
  // until the next Step or Reset. dop853 evaluates the OdeFunction of that
  // Step three times on the first call in a step (its interpolant's extra
  // stages; counted in statistics()), so that function must still exist.
  // Throws std::logic_error if the rule has no dense output,
  // settings().dense_output is false (explicit pairs), no step was taken,
  // or t lies outside the step.
  virtual void DenseOutput(const T& t, VectorX<T>* x);

  const IntegratorSettings& settings() const { return settings_; }
  IntegratorSettings& mutable_settings() { return settings_; }
  const IntegratorStatistics& statistics() const { return stats_; }
  void ResetStatistics() { stats_ = IntegratorStatistics{}; }

 protected:
  IntegratorSettings settings_;
  IntegratorStatistics stats_;
};

namespace internal {
// The step a fixed-step driver takes from t towards t_limit: fixed_step, or
// the rest of the way when that is shorter than fixed_step (or longer by at
// most 1e-6 relative, so that rounding in t never leaves a sliver step).
// Sets *lands if the step ends exactly on t_limit. Throws
// std::invalid_argument naming `rule` if fixed_step is not finite and
// positive, or is below the time resolution at t (t + fixed_step == t,
// which would never advance).
[[noreturn]] void ThrowBadFixedStep(const char* rule, double fixed_step,
                                    double t, double t_limit, double h);
inline double FixedStepFrom(const char* rule, double fixed_step, double t,
                            double t_limit, bool* lands) {
  const double remaining = t_limit - t;
  *lands = remaining <= fixed_step * (1 + 1e-6);
  const double h = *lands ? remaining : fixed_step;
  if (!(std::isfinite(fixed_step) && fixed_step > 0 && t + h > t))
      [[unlikely]] {
    ThrowBadFixedStep(rule, fixed_step, t, t_limit, h);
  }
  return h;
}
[[noreturn]] void ThrowNonFiniteState(const char* rule, Eigen::Index i,
                                      double t, double h, double before);
}  // namespace internal

// Adapts a fixed-step rule (class template over the state vector type,
// explicit_rules.h) to IntegratorBase: Tern's rules or a user's, with no
// adapter (a user rule needs only Step; see explicit_rules.h). Steps of
// settings().fixed_step; the last step before t_limit is shortened (or
// stretched by at most 1e-6 relative) to land on it exactly. Step is defined
// below, in the header, so that a user rule instantiates it; Tern's own
// rules are instantiated once in integrator_base.cc.
template <template <typename> class Rule, typename T>
class FixedStepIntegrator final : public IntegratorBase<T> {
 public:
  using RuleType = Rule<VectorX<T>>;
  // Throws std::invalid_argument if h is not finite and positive.
  explicit FixedStepIntegrator(double h = 1e-3) {
    this->settings_.fixed_step = h;
    ValidateSettings(this->settings_, internal::RuleName<RuleType>());
  }
  std::string name() const override { return internal::RuleName<RuleType>(); }
  int order() const override { return internal::RuleOrder<RuleType>(); }
  bool supports_error_control() const override { return false; }
  void Initialize(Eigen::Index n) override {
    internal::ResizeRule(&rule_, n);
    x_saved_.resize(n);
  }
  T Step(OdeFunction<T>& f, const T& t, const T& t_limit,
         VectorX<T>* x) override;

 private:
  RuleType rule_;
  VectorX<T> x_saved_;
};

// Flattened: the rule's stages and the evaluation wrapper are inlined into
// one function, as when Step was compiled only in integrator_base.cc.
template <template <typename> class Rule, typename T>
TERN_FLATTEN T FixedStepIntegrator<Rule, T>::Step(OdeFunction<T>& f, const T& t,
                                                  const T& t_limit,
                                                  VectorX<T>* x) {
  constexpr const char* kName = internal::RuleName<RuleType>();
  bool lands = false;
  const double hd = internal::FixedStepFrom(
      kName, this->settings_.fixed_step, ExtractDoubleOrThrow(t),
      ExtractDoubleOrThrow(t_limit), &lands);
  const T h = lands ? T(t_limit - t) : T(hd);
  const T t_next = lands ? t_limit : T(t + h);
  auto counted = [&](const T& tt, const VectorX<T>& xx, VectorX<T>* xd) {
    ++this->stats_.derivative_evaluations;
    // A user rule that cannot be sized leaves its scratch to the right-hand
    // side (Tern's rules are sized by Initialize).
    if constexpr (!internal::SizableRule<RuleType>) {
      if (xd->size() != xx.size()) xd->resize(xx.size());
    }
    f.Eval(tt, xx, xd);
  };
  x_saved_.resize(x->size());
  internal::Assign(*x, &x_saved_);
  try {
    rule_.Step(counted, t, h, x);
  } catch (...) {
    *x = x_saved_;
    throw;
  }
  for (Eigen::Index i = 0; i < x->size(); ++i) {
    if (!std::isfinite(ExtractDoubleOrThrow((*x)(i)))) {
      const double xi_before = ExtractDoubleOrThrow(x_saved_(i));
      *x = x_saved_;
      internal::ThrowNonFiniteState(kName, i, ExtractDoubleOrThrow(t),
                                    ExtractDoubleOrThrow(h), xi_before);
    }
  }
  ++this->stats_.steps;
  return t_next;
}

// Instantiated in integrator_base.cc.
extern template class FixedStepIntegrator<ExplicitEuler, double>;
extern template class FixedStepIntegrator<ExplicitEuler, AutoDiffXd>;
extern template class FixedStepIntegrator<RK2, double>;
extern template class FixedStepIntegrator<RK2, AutoDiffXd>;
extern template class FixedStepIntegrator<RK3, double>;
extern template class FixedStepIntegrator<RK3, AutoDiffXd>;
extern template class FixedStepIntegrator<RK4, double>;
extern template class FixedStepIntegrator<RK4, AutoDiffXd>;

// The rule named `name` for scalar T, with `settings`. Names:
//   fixed step:   euler, rk2, rk3, rk4, exponential (double only),
//                 implicit_euler_fixed, implicit_trapezoid_fixed, radau5_fixed
//                 (double only)
//   second order (need a SecondOrderOdeFunction): semi_explicit_euler,
//                 semi_implicit_euler_v, semi_implicit_euler_q (double
//                 only), velocity_verlet
//   error-controlled explicit: bs3, dopri5, dop853
//   error-controlled implicit (double only): implicit_euler,
//                 implicit_trapezoid, radau5, rodas4 (alias rosenbrock4,
//                 Boost.Odeint's name for RODAS), kaps_rentrop4
//   default: dopri5 (kDefaultIntegrator)
// Throws std::invalid_argument listing the known names if `name` is unknown,
// or saying so if the rule is double-only and T is AutoDiffXd.
template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeIntegrator(
    const std::string& name, const IntegratorSettings& settings = {});

// The rule a user gets without choosing: dopri5 with the default settings
// (rtol = atol = 1e-6). See docs/integrators.md for which rule to pick when.
inline constexpr const char* kDefaultIntegrator = "dopri5";
template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeDefaultIntegrator() {
  return MakeIntegrator<T>(kDefaultIntegrator);
}

// Names accepted by MakeIntegrator, comma-separated.
std::string KnownIntegratorNames();

}  // namespace tern
