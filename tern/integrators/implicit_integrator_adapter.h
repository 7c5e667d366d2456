#pragma once
// Internal: IntegratorBase<double> adapter for the implicit and linearly
// implicit rules (implicit_rules.h, rodas4.h, exponential.h), shared by the
// .cc files that register them (one per family of rules, to keep compile
// units small).
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "tern/integrators/integrator_base.h"
#include "tern/integrators/integrator_error.h"
#include "tern/integrators/ode_function.h"

namespace tern::internal {

// An OdeFunction as the callable the rules expect, with its optional
// Jacobian.
struct ImplicitCaller {
  OdeFunction<double>* f;
  void operator()(const double& t, const Eigen::VectorXd& x,
                  Eigen::VectorXd* xd) const {
    f->Eval(t, x, xd);
  }
  bool Jacobian(const double& t, const Eigen::VectorXd& x,
                Eigen::MatrixXd* J) const {
    return f->EvalJacobian(t, x, J);
  }
};

template <typename Rule>
concept HasDense = requires(const Rule& r, double t, Eigen::VectorXd* x) {
  r.DenseOutput(t, x);
};

// A rule with StepAdaptive (error-controlled) or only Step (fixed step)
// behind IntegratorBase<double>.
template <template <typename> class Rule, bool kAdaptive>
class ImplicitIntegrator final : public IntegratorBase<double> {
 public:
  using RuleType = Rule<Eigen::VectorXd>;
  std::string name() const override { return name_; }
  int order() const override { return RuleType::kOrder; }
  bool supports_error_control() const override { return kAdaptive; }
  bool is_implicit() const override { return true; }
  void Initialize(Eigen::Index n) override {
    rule_.Resize(n);
    x_saved_.resize(n);
    n_ = n;
  }
  double Step(OdeFunction<double>& f, const double& t, const double& t_limit,
              Eigen::VectorXd* x) override {
    if (x->size() != n_) {
      throw std::invalid_argument(
          fmt::format("{}: state has size {} but Initialize was called with {}",
                      name(), x->size(), n_));
    }
    rule_.mutable_settings() = settings_;
    const IntegratorStatistics before = rule_.statistics();
    ImplicitCaller caller{&f};
    double t1;
    x_saved_ = *x;
    try {
      if constexpr (kAdaptive) {
        t1 = rule_.StepAdaptive(caller, t, t_limit, x);
      } else {
        ValidateSettings(settings_, name_.c_str());
        bool lands = false;
        const double h = FixedStepFrom(name_.c_str(), settings_.fixed_step, t,
                                       t_limit, &lands);
        t1 = lands ? t_limit : t + h;
        rule_.Step(caller, t, h, x);
      }
    } catch (...) {
      Accumulate(before);
      *x = x_saved_;
      throw;
    }
    Accumulate(before);
    for (Eigen::Index i = 0; i < x->size(); ++i) {
      if (!std::isfinite((*x)(i))) {
        const double xi = x_saved_(i);
        *x = x_saved_;
        throw IntegratorStepError(
            fmt::format(
                "{}: state component {} became non-finite in the step from t = "
                "{} to {} (it was {} before the step)",
                name(), i, t, t1, xi),
            i);
      }
    }
    return t1;
  }
  void Reset() override {
    if constexpr (requires(RuleType & r) { r.Reset(); }) rule_.Reset();
  }
  int dense_output_order() const override {
    if constexpr (HasDense<RuleType>) return 3;
    return 0;
  }
  void DenseOutput(const double& t, Eigen::VectorXd* x) override {
    if constexpr (HasDense<RuleType>) {
      rule_.DenseOutput(t, x);
    } else {
      IntegratorBase<double>::DenseOutput(t, x);
    }
  }

 private:
  void Accumulate(const IntegratorStatistics& before) {
    const IntegratorStatistics& now = rule_.statistics();
    stats_.steps += now.steps - before.steps;
    stats_.rejected_steps += now.rejected_steps - before.rejected_steps;
    stats_.derivative_evaluations +=
        now.derivative_evaluations - before.derivative_evaluations;
    stats_.jacobian_evaluations +=
        now.jacobian_evaluations - before.jacobian_evaluations;
    stats_.lu_factorizations +=
        now.lu_factorizations - before.lu_factorizations;
    stats_.newton_iterations +=
        now.newton_iterations - before.newton_iterations;
  }

  static std::string MakeName() {
    constexpr bool kHasAdaptive =
        requires(RuleType & r, ImplicitCaller & f, Eigen::VectorXd * x) {
      r.StepAdaptive(f, 0.0, 1.0, x);
    };
    return !kAdaptive && kHasAdaptive ? std::string(RuleType::kName) + "_fixed"
                                      : std::string(RuleType::kName);
  }

  std::string name_ = MakeName();  // kept: Step must not allocate
  RuleType rule_;
  Eigen::VectorXd x_saved_;
  Eigen::Index n_{0};
};

}  // namespace tern::internal
