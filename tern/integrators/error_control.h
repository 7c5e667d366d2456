#pragma once
// Error norm, PI step-size controller and the adaptive driver for embedded
// explicit Runge-Kutta pairs (embedded_rules.h).
//
// AdaptiveStepper<Rule, Vec> is the template fast path (fixed-size Eigen
// vectors never allocate); the run-time IntegratorBase adapter wraps the same
// class for VectorX<T>, so there is one step-size policy for both drivers.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "tern/common/autodiff.h"
#include "tern/integrators/integrator_error.h"
#include "tern/integrators/integrator_settings.h"

namespace tern {

// Tolerances in the form the norms need. atol_vec is null or has n entries.
struct Tolerances {
  double rtol{1e-6};
  double atol{1e-6};
  const double* atol_vec{nullptr};
  double atol_at(Eigen::Index i) const {
    return atol_vec != nullptr ? atol_vec[i] : atol;
  }
};

// Smallest step an error-controlled rule may try from t towards t_limit:
// settings.min_step (0 by default) or, if larger, 16 eps max(|t|, eps s)
// with s = t_limit - t. The relative part is the resolution of t itself, as
// in MATLAB's ode45 and ode15s (hmin = 16 eps(t); Shampine & Reichelt,
// SIAM J. Sci. Comput. 18, 1997) and Hairer's codes (a step fails when
// 0.1 |h| <= uround |t|; HNW I, DOPRI5): a step below it no longer moves t
// reliably. An absolute floor would fail a problem whose initial transient
// is faster than the floor (Van der Pol with eps = 1e-12 needs steps of
// 1e-16 at t = 0 for implicit Euler at rtol 1e-6); near t = 0, where t
// itself gives no scale, eps^2 s keeps the floor positive, so that a step
// that fails for good (a NaN derivative) ends after a few dozen rejections.
inline double MinStep(const IntegratorSettings& settings, double t,
                      double t_limit) {
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  const double scale = std::max(std::abs(t), kEps * std::abs(t_limit - t));
  return std::max(settings.min_step, 16 * kEps * scale);
}

// Step to try after a rejected step of size h for which the controller
// proposes h_new: h_new, or h_min if h_new fell below it. Returns false if
// h was already at h_min (or below, when clipped to land on t_limit): the
// step cannot shrink further and the rule must fail.
inline bool RetryStep(double h, double h_new, double h_min, double* h_next) {
  if (h_new >= h_min) {
    *h_next = h_new;
    return true;
  }
  *h_next = h_min;
  return h > h_min;
}

// The weighted RMS norm of Hairer, Norsett & Wanner (Solving ODEs I, eq.
// II.4.11): sqrt(1/n sum (e_i / (atol_i + rtol max(|x0_i|, |x1_i|)))^2).
// *worst (if not null) receives the component with the largest weighted
// error. Non-finite entries give +inf and are reported as worst.
template <typename Vec>
double WeightedRmsNorm(const Vec& e, const Vec& x0, const Vec& x1,
                       const Tolerances& tol, Eigen::Index* worst = nullptr) {
  double sum = 0;
  double largest = -1;
  Eigen::Index arg = 0;
  const Eigen::Index n = e.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double sc =
        tol.atol_at(i) +
        tol.rtol * std::max(std::abs(ExtractDoubleOrThrow(x0(i))),
                            std::abs(ExtractDoubleOrThrow(x1(i))));
    const double r = ExtractDoubleOrThrow(e(i)) / sc;
    const double r2 = r * r;
    if (!(r2 <= largest) || !std::isfinite(r2)) {
      if (!std::isfinite(r2)) {
        largest = std::numeric_limits<double>::infinity();
        arg = i;
        sum = largest;
        break;
      }
      largest = r2;
      arg = i;
    }
    sum += r2;
  }
  if (worst != nullptr) *worst = arg;
  return n > 0 ? std::sqrt(sum / static_cast<double>(n)) : 0.0;
}

// PI step-size controller (Gustafsson 1991; HNW II, IV.2, eq. 2.43c):
//   h_new = h * clamp(safety * err^-alpha * err_prev^beta, fac_min, fac_max),
// alpha = 0.7 / k, beta = 0.4 / k, k = order of the error estimate + 1.
// After a rejection the next accepted step may not grow. The factor is
// evaluated as exp(beta log err_prev - alpha log err) with log err_prev kept
// from the previous step: one log and one exp per step instead of two pows.
class PIController {
 public:
  explicit PIController(int error_order = 4) { SetOrder(error_order); }
  void SetOrder(int error_order) {
    const double k = error_order + 1;
    alpha_ = 0.7 / k;
    beta_ = 0.4 / k;
    inv_k_ = 1.0 / k;
  }
  void Reset() {
    log_err_prev_ = kLogErrFloor;
    last_rejected_ = false;
  }
  // Factor for the next step after an accepted step with error norm err.
  double Accepted(double err) {
    double fac = fac_max_;
    double log_err = kLogErrFloor;
    if (err > 0) {
      const double lg = std::log(err);
      fac = safety_ * std::exp(beta_ * log_err_prev_ - alpha_ * lg);
      fac = std::clamp(fac, fac_min_, fac_max_);
      // err_prev is floored at 1e-4 (as in HNW's codes), so a vanishing
      // error cannot make the PI term collapse the next step.
      log_err = std::max(lg, kLogErrFloor);
    }
    if (last_rejected_) fac = std::min(fac, 1.0);
    log_err_prev_ = log_err;
    last_rejected_ = false;
    return fac;
  }
  // Factor (< 1) for retrying after a rejected step with error norm err.
  double Rejected(double err) {
    last_rejected_ = true;
    if (!std::isfinite(err)) return fac_min_;
    return std::clamp(safety_ * std::pow(err, -inv_k_), fac_min_, 0.9);
  }

 private:
  static constexpr double kLogErrFloor = -9.210340371976184;  // log(1e-4)
  double alpha_{0.14}, beta_{0.08}, inv_k_{0.2};
  double safety_{0.9}, fac_min_{0.2}, fac_max_{10.0};
  double log_err_prev_{kLogErrFloor};
  bool last_rejected_{false};
};

// Gustafsson's predictive step-size controller (Gustafsson, BIT 34, 1994;
// HW II, IV.8, eq. 8.21), as in the RADAU5 and RODAS codes: after an
// accepted step the factor is the smaller of the standard one,
// safety * err^(-1/k), and the predictive one,
//   safety * (h / h_acc) * (err_acc / err^2)^(1/k),
// where h_acc, err_acc belong to the previous accepted step (err_acc >=
// 1e-2), k = order of the error estimate + 1; each is clamped to
// [1/5, 6]. Without the PI damping, the step grows by up to 6 per step
// where a stiff solution smooths out and the error falls; the predictive
// term cuts it in advance when the error rises.
class PredictiveController {
 public:
  explicit PredictiveController(int error_order = 3) { SetOrder(error_order); }
  void SetOrder(int error_order) { inv_k_ = 1.0 / (error_order + 1); }
  void Reset() {
    first_ = true;
    last_rejected_ = false;
  }
  // Factor h_new / h after an accepted step of size h with error norm err.
  double Accepted(double err, double h) {
    double quot = Quotient(err);
    if (!first_) {
      const double pred =
          (h_acc_ / h) * std::pow(err * err / err_acc_, inv_k_) / kSafety;
      quot = std::max(quot, std::clamp(pred, kQuotMin, kQuotMax));
    }
    h_acc_ = h;
    err_acc_ = std::max(err, 1e-2);
    first_ = false;
    if (last_rejected_) quot = std::max(quot, 1.0);
    last_rejected_ = false;
    return 1 / quot;
  }
  // Factor (< 1) for retrying after a rejected step with error norm err.
  double Rejected(double err) {
    last_rejected_ = true;
    if (!std::isfinite(err)) return 1 / kQuotMax;
    return std::min(1 / Quotient(err), 0.9);
  }

 private:
  static constexpr double kSafety = 0.9;
  static constexpr double kQuotMin = 1.0 / 6, kQuotMax = 5.0;  // h / h_new
  double Quotient(double err) const {
    return std::clamp(std::pow(err, inv_k_) / kSafety, kQuotMin, kQuotMax);
  }
  double inv_k_{0.25};
  bool first_{true};
  bool last_rejected_{false};
  double h_acc_{1}, err_acc_{1e-2};
};

// Adaptive driver for an embedded explicit pair Rule<Vec> (BogackiShampine3,
// DormandPrince5, DormandPrince853). Owns the rule, its scratch and the
// controller; a step never allocates once Resize(n) was called.
//
// FSAL: the derivative at the end of an accepted step is reused as the first
// stage of the next one when Step is called again at the time and with the
// state it returned; any other (t, x) re-evaluates it. If the right-hand
// side itself changed (a discrete update), call Reset().
template <template <typename> class Rule, typename Vec>
class AdaptiveStepper {
 public:
  using Scalar = typename Vec::Scalar;
  using RuleType = Rule<Vec>;

  explicit AdaptiveStepper(Eigen::Index n = Vec::RowsAtCompileTime > 0
                                                ? Vec::RowsAtCompileTime
                                                : 0,
                           const IntegratorSettings& settings = {})
      : rule_(n), x1_(n), settings_(settings) {
    controller_.SetOrder(RuleType::kErrorOrder);
  }
  void Resize(Eigen::Index n) {
    rule_.Resize(n);
    x1_.resize(n);
    Reset();
  }
  const IntegratorSettings& settings() const { return settings_; }
  IntegratorSettings& mutable_settings() { return settings_; }
  const IntegratorStatistics& statistics() const { return stats_; }
  void ResetStatistics() { stats_ = IntegratorStatistics{}; }
  // Forgets the FSAL derivative and the step-size history.
  void Reset() {
    f0_valid_ = false;
    h_ = 0;
    controller_.Reset();
    have_dense_ = false;
  }
  // Step size the controller proposes for the next step (0 before the first).
  double proposed_step() const { return h_; }

  // One accepted step from (t, *x) that does not pass t_limit; returns the
  // time reached. Throws std::runtime_error naming the rule, time, step and
  // worst component if the step would have to shrink below MinStep(); *x is
  // then unchanged.
  template <typename F>
  Scalar Step(F&& f, const Scalar& t, const Scalar& t_limit, Vec* x) {
    const double td = ExtractDoubleOrThrow(t);
    const double remaining = ExtractDoubleOrThrow(t_limit) - td;
    ValidateSettingsAt(settings_, RuleType::kName, td);
    if (!(remaining > 0)) ThrowBadLimit(ExtractDoubleOrThrow(t_limit), td);
    const Tolerances tol = tolerances(x->size());
    // The attempts below overwrite the stages a lazily completed
    // interpolant (dop853) would need: the last step's dense output ends.
    have_dense_ = false;
    if (!f0_valid_ || td != t_f0_ || !(x1_ == *x)) {
      f(t, *x, &rule_.f0());
      ++stats_.derivative_evaluations;
      f0_valid_ = true;
      t_f0_ = td;
    }
    if (!(h_ > 0)) h_ = InitialStep(f, t, *x, tol);
    const double h_min = MinStep(settings_, td, ExtractDoubleOrThrow(t_limit));
    for (;;) {
      double h = std::max(std::min(h_, settings_.max_step), h_min);
      bool last = false;
      if (1.01 * h >= remaining) {
        h = remaining;
        last = true;
      }
      const Scalar hs(h);
      rule_.Attempt(f, t, hs, *x, &x1_);
      stats_.derivative_evaluations += RuleType::kEvaluationsPerAttempt;
      Eigen::Index worst = 0;
      const double err = rule_.ErrorNorm(*x, x1_, tol, &worst);
      if (err <= 1.0) {
        const double fac = controller_.Accepted(err);
        const double h_next = h * fac;
        // A step clipped to land on t_limit says little about the natural
        // step; do not let it shrink the proposal.
        h_ = last ? std::max(h_next, std::min(h_, h_next * 10)) : h_next;
        const Scalar t1 = last ? t_limit : t + hs;
        stats_.derivative_evaluations +=
            rule_.Accept(f, t, hs, *x, x1_, settings_.dense_output);
        t_prev_ = t;
        h_prev_ = hs;
        have_dense_ = settings_.dense_output;
        *x = x1_;
        t_f0_ = ExtractDoubleOrThrow(t1);
        ++stats_.steps;
        return t1;
      }
      ++stats_.rejected_steps;
      // x1_ no longer equals *x, so a failed step never reuses f0 wrongly.
      if (!RetryStep(h, h * controller_.Rejected(err), h_min, &h_)) {
        f0_valid_ = false;
        ThrowStepTooSmall(tol, td, h, h_min, worst,
                          ExtractDoubleOrThrow((*x)(worst)), err);
      }
    }
  }

  // Integrates from t0 to tf (tf > t0) in accepted steps.
  template <typename F>
  void Integrate(F&& f, const Scalar& t0, const Scalar& tf, Vec* x) {
    Scalar t = t0;
    while (ExtractDoubleOrThrow(t) < ExtractDoubleOrThrow(tf)) {
      t = Step(f, t, tf, x);
    }
  }

  // x(t) for t within the last accepted step (end points included), valid
  // until the next Step or Reset. f is the right-hand side of that step:
  // dop853 evaluates it three times on the first call in a step (its
  // interpolant's extra stages, counted in the statistics); the other
  // rules do not use it. Throws std::logic_error if there is no step,
  // settings.dense_output is false, or t lies outside the step.
  template <typename F>
  void DenseOutput(F&& f, const Scalar& t, Vec* x) {
    const Scalar theta = DenseTheta(t);
    if constexpr (requires { rule_.CompleteDense(f); }) {
      stats_.derivative_evaluations += rule_.CompleteDense(f);
    }
    rule_.DenseOutput(theta, x);
  }
  // The same without f, for rules whose interpolant needs no further
  // evaluations (all but dop853) or once it is complete; throws
  // std::logic_error otherwise.
  void DenseOutput(const Scalar& t, Vec* x) const {
    const Scalar theta = DenseTheta(t);
    if constexpr (requires { rule_.dense_pending(); }) {
      if (rule_.dense_pending()) {
        throw std::logic_error(fmt::format(
            "{}: the interpolant needs three more evaluations of f; call "
            "DenseOutput(f, t, &x)",
            RuleType::kName));
      }
    }
    rule_.DenseOutput(theta, x);
  }
  bool has_dense_output() const { return have_dense_; }

 private:
  // The error paths and the starting step are kept out of line (and marked
  // cold), so that inlining the right-hand side into the hot stages of Step
  // is not crowded out by formatting code that runs at most once.
  [[noreturn, gnu::cold, gnu::noinline]] void ThrowBadLimit(double t_limit,
                                                            double td) const {
    throw std::invalid_argument(
        fmt::format("{}: Step called with t_limit = {} not after t = {}",
                    RuleType::kName, t_limit, td));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void ThrowStepTooSmall(
      const Tolerances& tol, double td, double h, double h_min,
      Eigen::Index worst, double value, double err) const {
    throw IntegratorStepError(
        fmt::format(
            "{}: cannot meet tolerance (rtol = {}, atol = {}) at t = {}: step "
            "h = {} would have to shrink below the minimum step {}; worst "
            "state "
            "component {} (value {}, weighted error {})",
            RuleType::kName, tol.rtol, tol.atol, td, h, h_min, worst, value,
            err),
        worst);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void ThrowAtolSize(
      Eigen::Index n) const {
    throw std::invalid_argument(
        fmt::format("{}: atol_per_component has size {} but the state has {}",
                    RuleType::kName, settings_.atol_per_component.size(), n));
  }

  Scalar DenseTheta(const Scalar& t) const {
    if (!have_dense_) {
      throw std::logic_error(fmt::format(
          "{}: DenseOutput needs an accepted step with settings.dense_output "
          "= true",
          RuleType::kName));
    }
    const double theta = ExtractDoubleOrThrow((t - t_prev_) / h_prev_);
    if (theta < -1e-12 || theta > 1 + 1e-12) {
      throw std::logic_error(fmt::format(
          "{}: DenseOutput at t = {} outside the last step [{}, {}]",
          RuleType::kName, ExtractDoubleOrThrow(t),
          ExtractDoubleOrThrow(t_prev_),
          ExtractDoubleOrThrow(t_prev_ + h_prev_)));
    }
    return Scalar(theta);
  }

  Tolerances tolerances(Eigen::Index n) const {
    Tolerances tol{settings_.rtol, settings_.atol, nullptr};
    if (settings_.atol_per_component.size() > 0) {
      if (settings_.atol_per_component.size() != n) ThrowAtolSize(n);
      tol.atol_vec = settings_.atol_per_component.data();
    }
    return tol;
  }

  // Starting step by the algorithm of HNW I, II.4 (one extra evaluation).
  template <typename F>
  [[gnu::noinline]] double InitialStep(F& f, const Scalar& t, const Vec& x,
                                       const Tolerances& tol) {
    if (settings_.initial_step > 0) {
      return std::min(settings_.initial_step, settings_.max_step);
    }
    const Vec& f0 = rule_.f0();
    const double d0 = WeightedRmsNorm(x, x, x, tol);
    const double d1 = WeightedRmsNorm(f0, x, x, tol);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = std::min(h0, settings_.max_step);
    x1_ = x + Scalar(h0) * f0;
    Vec& f1 = rule_.scratch();
    f(t + Scalar(h0), x1_, &f1);
    ++stats_.derivative_evaluations;
    f1 -= f0;
    const double d2 = WeightedRmsNorm(f1, x, x, tol) / h0;
    const double dm = std::max(d1, d2);
    const double h1 = dm <= 1e-15
                          ? std::max(1e-6, h0 * 1e-3)
                          : std::pow(0.01 / dm, 1.0 / (RuleType::kOrder + 1));
    x1_.setConstant(Scalar(std::numeric_limits<double>::quiet_NaN()));
    return std::min({100 * h0, h1, settings_.max_step});
  }

  RuleType rule_;
  Vec x1_;  // (n) candidate state; equals *x after an accepted step
  IntegratorSettings settings_;
  IntegratorStatistics stats_;
  PIController controller_;
  bool f0_valid_{false};
  double t_f0_{0};
  double h_{0};
  bool have_dense_{false};
  Scalar t_prev_{0}, h_prev_{0};  // last accepted step, for dense output
};

}  // namespace tern
