#pragma once
// IntegratorBase: the run-time interface through which the Simulator (and
// anything that picks a rule by name) drives an integration rule. It adds
// settings, statistics and step-size policy around a rule; the arithmetic of
// each rule lives once, in its rule class (explicit_rules.h and friends).
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "tern/common/eigen_types.h"
#include "tern/integrators/ode_function.h"

namespace tern {

// Accuracy and step-size settings. Fixed-step rules use `fixed_step`;
// error-controlled rules use it (if > 0) as the initial step and control the
// step from rtol/atol in the weighted RMS norm of Hairer, Norsett & Wanner.
struct IntegratorSettings {
  double fixed_step{1e-3};     // s; step of fixed-step rules
  double initial_step{0};      // s; 0 = choose automatically
  double max_step{std::numeric_limits<double>::infinity()};  // s
  double min_step{1e-14};      // s; below this a step fails
  double rtol{1e-6};           // relative tolerance
  double atol{1e-6};           // absolute tolerance (all components)
  Eigen::VectorXd atol_per_component;  // (n) overrides atol when non-empty
};

struct IntegratorStatistics {
  std::int64_t steps{0};                   // accepted steps
  std::int64_t rejected_steps{0};
  std::int64_t derivative_evaluations{0};  // calls of f
  std::int64_t jacobian_evaluations{0};
  std::int64_t lu_factorizations{0};
};

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

  // Advances x from t by one step that does not pass t_limit and returns the
  // time reached. On an exception x is left at its value on entry.
  virtual T Step(OdeFunction<T>& f, const T& t, const T& t_limit,
                 VectorX<T>* x) = 0;

  const IntegratorSettings& settings() const { return settings_; }
  IntegratorSettings& mutable_settings() { return settings_; }
  const IntegratorStatistics& statistics() const { return stats_; }
  void ResetStatistics() { stats_ = IntegratorStatistics{}; }

 protected:
  IntegratorSettings settings_;
  IntegratorStatistics stats_;
};

// Adapts a fixed-step rule (class template over the state vector type) to
// IntegratorBase. Steps of settings().fixed_step; the last step before
// t_limit is shortened (or stretched by at most 1e-6 relative, so that rounding in t never leaves a sliver step) to land on it
// exactly.
template <template <typename> class Rule, typename T>
class FixedStepIntegrator final : public IntegratorBase<T> {
 public:
  explicit FixedStepIntegrator(double h = 1e-3) {
    this->settings_.fixed_step = h;
  }
  std::string name() const override { return Rule<VectorX<T>>::kName; }
  int order() const override { return Rule<VectorX<T>>::kOrder; }
  bool supports_error_control() const override { return false; }
  void Initialize(Eigen::Index n) override {
    rule_.Resize(n);
    x_saved_.resize(n);
  }
  T Step(OdeFunction<T>& f, const T& t, const T& t_limit,
         VectorX<T>* x) override;

 private:
  Rule<VectorX<T>> rule_;
  VectorX<T> x_saved_;
};

// The rule named `name` for scalar T ("euler", "rk4", ...). Throws
// std::invalid_argument listing the known names if it is unknown.
template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeIntegrator(const std::string& name,
                                                  const IntegratorSettings&
                                                      settings = {});

// Names accepted by MakeIntegrator, comma-separated.
std::string KnownIntegratorNames();

}  // namespace tern
