#pragma once
// Implicit and linearly implicit rules for stiff problems, as class
// templates over the state vector type Vec (fixed-size Eigen vector or
// VectorX<double>; double scalar). Each owns its Jacobian, LU
// factorizations and scratch, so a step never allocates for fixed-size Vec
// (nor for VectorX after Resize, except through a dynamic autodiff
// Jacobian). Each provides
//   void Step(f, t, h, &x);                    // one fixed step
//   double StepAdaptive(f, t, t_limit, &x);    // one error-controlled step
//   void DenseOutput(t, &x) const;             // over the last step
// with settings()/statistics() as IntegratorSettings/IntegratorStatistics.
// The Jacobian comes from JacobianEvaluator (jacobian.h). A Newton failure
// in Step, or a step that would shrink below MinStep (error_control.h) in
// StepAdaptive, throws std::runtime_error naming the rule, time, step and
// worst component and leaves x unchanged.
#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>

#include "tern/integrators/error_control.h"
#include "tern/integrators/integrator_error.h"
#include "tern/integrators/jacobian.h"

namespace tern {
namespace internal {

// State shared by the implicit rules: settings, statistics, Jacobian, the
// PI controller and a cubic Hermite dense output (x0, f0, x1, f1).
template <typename Vec>
class ImplicitCommon {
 public:
  static constexpr int N = Vec::RowsAtCompileTime;
  using Mat = Eigen::Matrix<double, N, N>;

  void Resize(Eigen::Index n) {
    jac_.Resize(n);
    J_.resize(n, n);
    for (Vec* v : {&f0_, &x0d_, &x1d_, &f0d_, &f1d_}) v->resize(n);
  }
  Tolerances tolerances(const char* name, Eigen::Index n) const {
    Tolerances tol{settings.rtol, settings.atol, nullptr};
    if (settings.atol_per_component.size() > 0) {
      if (settings.atol_per_component.size() != n) {
        throw std::invalid_argument(fmt::format(
            "{}: atol_per_component has size {} but the state has {}", name,
            settings.atol_per_component.size(), n));
      }
      tol.atol_vec = settings.atol_per_component.data();
    }
    return tol;
  }
  // Start of an adaptive step from (t, x) towards t_limit, shared by the
  // adaptive drivers: throws unless t_limit > t, and makes sure f0_ = f(t, x),
  // reusing the value from the end of the last accepted step when x is still
  // where that step ended (x_end). Returns true if it evaluated f.
  template <typename F>
  bool BeginStep(F& f, const char* name, double t, double t_limit, const Vec& x,
                 const Vec& x_end) {
    ValidateSettingsAt(settings, name, t);
    if (!(t_limit - t > 0)) {
      throw std::invalid_argument(
          fmt::format("{}: StepAdaptive with t_limit = {} not after t = {}",
                      name, t_limit, t));
    }
    if (f0_valid_ && t_f0_ == t && x_end == x) return false;
    f(t, x, &f0_);
    ++stats.derivative_evaluations;
    f0_valid_ = true;
    t_f0_ = t;
    return true;
  }
  // Sets a first step size when none is set: settings.initial_step, or a
  // small fraction of the span still to go.
  void GuessFirstStep(double remaining) {
    if (h_ > 0) return;
    h_ = settings.initial_step > 0
             ? settings.initial_step
             : std::min(1e-3 * std::max(remaining, 1e-3), 1e-2);
  }
  template <typename F>
  void EvalJacobian(F& f, const char* name, double t, const Vec& x, Vec* dfdt) {
    jac_.Eval(f, settings.jacobian_scheme, name, t, x, &J_, dfdt, &stats,
              settings.autonomous);
  }
  void SaveDense(double t0, double h, const Vec& x0, const Vec& f0,
                 const Vec& x1, const Vec& f1) {
    t0d_ = t0;
    hd_ = h;
    x0d_ = x0;
    f0d_ = f0;
    x1d_ = x1;
    f1d_ = f1;
    have_dense_ = true;
  }
  void HermiteDense(const char* name, double t, Vec* x) const {
    const double s = CheckDenseTime(name, t);
    // Cubic Hermite interpolant (HNW I, II.6, eq. 6.7).
    const double s1 = 1 - s;
    x->noalias() = s1 * x0d_ + s * x1d_ +
                   (s * s1) * ((s1 - s) * (x1d_ - x0d_) - s1 * hd_ * f0d_ +
                               s * hd_ * f1d_);
  }
  double CheckDenseTime(const char* name, double t) const {
    if (!have_dense_) {
      throw std::logic_error(
          fmt::format("{}: DenseOutput before any accepted step", name));
    }
    const double s = (t - t0d_) / hd_;
    if (s < -1e-12 || s > 1 + 1e-12) {
      throw std::logic_error(
          fmt::format("{}: DenseOutput at t = {} outside the last step "
                      "[{}, {}]",
                      name, t, t0d_, t0d_ + hd_));
    }
    return s;
  }
  [[noreturn]] void ThrowStepTooSmall(const char* name, double t, double h,
                                      double h_min, Eigen::Index worst,
                                      double value, const char* why) const {
    throw IntegratorStepError(
        fmt::format(
            "{}: {} at t = {}: step h = {} would have to shrink below the "
            "minimum step {}; worst state component {} (value {})",
            name, why, t, h, h_min, worst, value),
        worst);
  }

  IntegratorSettings settings;
  IntegratorStatistics stats;
  JacobianEvaluator<Vec> jac_;
  Mat J_;
  Vec f0_;  // f(t, x) at the start of the next step when f0_valid_
  bool f0_valid_{false};
  double t_f0_{0};
  double h_{0};  // proposed next step
  PIController controller_;
  bool have_dense_{false};
  double t0d_{0}, hd_{1};
  Vec x0d_, x1d_, f0d_, f1d_;
};

// max |d_i| / (atol_i + rtol |x_i|): a scaled infinity norm for Newton.
template <typename Vec>
double ScaledMaxNorm(const Vec& d, const Vec& x, const Tolerances& tol,
                     Eigen::Index* worst) {
  double m = 0;
  Eigen::Index arg = 0;
  for (Eigen::Index i = 0; i < d.size(); ++i) {
    const double r =
        std::abs(d(i)) / (tol.atol_at(i) + tol.rtol * std::abs(x(i)));
    if (!(r <= m)) {
      m = r;
      arg = i;
      if (!std::isfinite(r)) break;
    }
  }
  if (worst != nullptr) *worst = arg;
  return m;
}

}  // namespace internal

// One-parameter family theta-method, solved by simplified Newton with the
// Jacobian at the step start and one LU of (I - theta h J) per step:
//   x1 = x0 + h ((1 - theta) f(t0, x0) + theta f(t1, x1)).
// theta = 1: implicit (backward) Euler, L-stable, order 1; error estimate
// (h/2)(f1 - f0) filtered by (I - h J)^-1 (Hairer & Wanner, Solving ODEs II,
// IV.8 for the filtering). theta = 1/2: implicit trapezoid, A-stable, order
// 2; error estimate (h^2/12) (I - h/2 J)^-1 J (f1 - f0) from x''' ~ J x''.
template <typename Vec, int kThetaTimesTwo>
class ThetaMethod {
 public:
  static constexpr int N = Vec::RowsAtCompileTime;
  using Scalar = double;
  using Mat = Eigen::Matrix<double, N, N>;
  static constexpr double kTheta = kThetaTimesTwo / 2.0;
  static constexpr int kOrder = kThetaTimesTwo == 2 ? 1 : 2;
  static constexpr const char* kName =
      kThetaTimesTwo == 2 ? "implicit_euler" : "implicit_trapezoid";

  explicit ThetaMethod(Eigen::Index n = internal::DefaultSizeOf<Vec>()) {
    Resize(n);
    c_.controller_.SetOrder(kOrder);
  }
  void Resize(Eigen::Index n) {
    c_.Resize(n);
    for (Vec* v : {&x1_, &f1_, &r_, &dx_, &err_, &tmp_}) v->resize(n);
    M_.resize(n, n);
    if constexpr (Mat::RowsAtCompileTime == Eigen::Dynamic) {
      lu_ = Eigen::PartialPivLU<Mat>(n);
    }
    Reset();
  }
  void Reset() {
    c_.f0_valid_ = false;
    c_.h_ = 0;
    c_.controller_.Reset();
    c_.have_dense_ = false;
  }
  const IntegratorSettings& settings() const { return c_.settings; }
  IntegratorSettings& mutable_settings() { return c_.settings; }
  const IntegratorStatistics& statistics() const { return c_.stats; }
  void ResetStatistics() { c_.stats = IntegratorStatistics{}; }

  // One step of size h. Newton converges to a scaled update below 1e-3 in
  // the settings' rtol/atol units.
  template <typename F>
  void Step(F&& f, const double& t, const double& h, Vec* x) {
    const Tolerances tol = c_.tolerances(kName, x->size());
    f(t, *x, &c_.f0_);
    ++c_.stats.derivative_evaluations;
    c_.EvalJacobian(f, kName, t, *x, nullptr);
    Factor(h);
    Eigen::Index worst = 0;
    if (!Solve(f, t, h, *x, tol, &worst)) {
      throw IntegratorStepError(
          fmt::format(
              "{}: Newton iteration did not converge at t = {} with h = {}; "
              "worst state component {} (value {})",
              kName, t, h, worst, (*x)(worst)),
          worst);
    }
    c_.SaveDense(t, h, *x, c_.f0_, x1_, f1_);
    *x = x1_;
    ++c_.stats.steps;
  }

  template <typename F>
  double StepAdaptive(F&& f, const double& t, const double& t_limit, Vec* x) {
    const double remaining = t_limit - t;
    c_.BeginStep(f, kName, t, t_limit, *x, x1_);
    const Tolerances tol = c_.tolerances(kName, x->size());
    c_.GuessFirstStep(remaining);
    c_.EvalJacobian(f, kName, t, *x, nullptr);
    const double h_min = MinStep(c_.settings, t, t_limit);
    for (;;) {
      double h = std::max(std::min(c_.h_, c_.settings.max_step), h_min);
      bool last = false;
      if (1.01 * h >= remaining) {
        h = remaining;
        last = true;
      }
      Factor(h);
      Eigen::Index worst = 0;
      double err = std::numeric_limits<double>::infinity();
      if (Solve(f, t, h, *x, tol, &worst)) {
        ErrorEstimate(h);
        err = WeightedRmsNorm(err_, *x, x1_, tol, &worst);
      }
      if (err <= 1) {
        const double h_next = h * c_.controller_.Accepted(err);
        c_.h_ = last ? std::max(h_next, std::min(c_.h_, 10 * h_next)) : h_next;
        c_.SaveDense(t, h, *x, c_.f0_, x1_, f1_);
        *x = x1_;
        c_.f0_ = f1_;
        const double t1 = last ? t_limit : t + h;
        c_.t_f0_ = t1;
        ++c_.stats.steps;
        return t1;
      }
      ++c_.stats.rejected_steps;
      if (!RetryStep(h, h * c_.controller_.Rejected(err), h_min, &c_.h_)) {
        x1_.setConstant(std::numeric_limits<double>::quiet_NaN());
        c_.ThrowStepTooSmall(kName, t, h, h_min, worst, (*x)(worst),
                             "cannot meet tolerance or converge Newton");
      }
    }
  }

  void DenseOutput(const double& t, Vec* x) const {
    c_.HermiteDense(kName, t, x);
  }
  bool has_dense_output() const { return c_.have_dense_; }

 private:
  void Factor(double h) {
    const Eigen::Index n = c_.J_.rows();
    M_.setIdentity(n, n);
    M_.noalias() -= (kTheta * h) * c_.J_;
    lu_.compute(M_);
    ++c_.stats.lu_factorizations;
  }
  // Simplified Newton on G(x1) = x1 - x0 - h((1-theta) f0 + theta f(x1)).
  template <typename F>
  bool Solve(F& f, double t, double h, const Vec& x0, const Tolerances& tol,
             Eigen::Index* worst) {
    const double t1 = t + h;
    // Start from the last solution. The explicit Euler predictor x0 + h f0
    // is far off on a stiff step (h |lambda| >> 1 multiplies the fast
    // components' derivative), and simplified Newton then diverges; the
    // constant predictor stays within the basin of the nearly linear stiff
    // part, as in the codes of HW II, IV.8 (starting values z = 0).
    x1_ = x0;
    double dnorm_old = 0;
    for (int k = 0; k < c_.settings.max_newton_iterations; ++k) {
      f(t1, x1_, &f1_);
      ++c_.stats.derivative_evaluations;
      ++c_.stats.newton_iterations;
      r_.noalias() = x1_ - x0 - h * ((1 - kTheta) * c_.f0_ + kTheta * f1_);
      dx_.noalias() = lu_.solve(r_);
      x1_ -= dx_;
      const double dnorm = internal::ScaledMaxNorm(dx_, x1_, tol, worst);
      if (!std::isfinite(dnorm)) return false;
      if (k > 0) {
        const double theta = dnorm / dnorm_old;
        if (theta >= 1) return false;
        if (theta / (1 - theta) * dnorm <= 1e-3) break;
      } else if (dnorm <= 1e-6) {
        break;
      }
      dnorm_old = dnorm;
      if (k + 1 == c_.settings.max_newton_iterations) return false;
    }
    f(t1, x1_, &f1_);
    ++c_.stats.derivative_evaluations;
    return true;
  }
  void ErrorEstimate(double h) {
    if constexpr (kThetaTimesTwo == 2) {
      tmp_.noalias() = (h / 2) * (f1_ - c_.f0_);
    } else {
      dx_ = f1_ - c_.f0_;
      tmp_.noalias() = (h * h / 12) * (c_.J_ * dx_);
    }
    err_.noalias() = lu_.solve(tmp_);
  }

  internal::ImplicitCommon<Vec> c_;
  Vec x1_, f1_, r_, dx_, err_, tmp_;  // (n)
  Mat M_;                             // (n x n) I - theta h J
  Eigen::PartialPivLU<Mat> lu_;
};

// Named classes (not aliases), so the same names also serve as collocation
// rule tags in tern/systems/analysis/collocation.h.
template <typename Vec>
class ImplicitEuler : public ThetaMethod<Vec, 2> {
 public:
  using ThetaMethod<Vec, 2>::ThetaMethod;
};
template <typename Vec>
class ImplicitTrapezoid : public ThetaMethod<Vec, 1> {
 public:
  using ThetaMethod<Vec, 1>::ThetaMethod;
};

// Linearly implicit Rosenbrock rule of Kaps & Rentrop type, 4(3), with
// Shampine's A-stable coefficient set (Shampine, ACM TOMS 8, 1982; the
// GRK4A-like "stiff" method of Press et al., Numerical Recipes, 16.6): four
// stages, three evaluations of f, one Jacobian and one LU of
// (I/(gamma h) - J) per step, an embedded 3rd-order estimate. Cheapest per
// step of the stiff rules; best for moderate accuracy (rtol 1e-3..1e-6).
// Dense output by cubic Hermite (f at the step end is the next step's f0).
template <typename Vec>
class KapsRentrop4 {
 public:
  static constexpr int N = Vec::RowsAtCompileTime;
  using Scalar = double;
  using Mat = Eigen::Matrix<double, N, N>;
  static constexpr int kOrder = 4;
  static constexpr const char* kName = "kaps_rentrop4";

  explicit KapsRentrop4(Eigen::Index n = internal::DefaultSizeOf<Vec>()) {
    Resize(n);
    c_.controller_.SetOrder(3);
  }
  void Resize(Eigen::Index n) {
    c_.Resize(n);
    for (Vec* v :
         {&g1_, &g2_, &g3_, &g4_, &xs_, &fs_, &x1_, &f1_, &err_, &dfdt_}) {
      v->resize(n);
    }
    M_.resize(n, n);
    if constexpr (Mat::RowsAtCompileTime == Eigen::Dynamic) {
      lu_ = Eigen::PartialPivLU<Mat>(n);
    }
    Reset();
  }
  void Reset() {
    c_.f0_valid_ = false;
    c_.h_ = 0;
    c_.controller_.Reset();
    c_.have_dense_ = false;
  }
  const IntegratorSettings& settings() const { return c_.settings; }
  IntegratorSettings& mutable_settings() { return c_.settings; }
  const IntegratorStatistics& statistics() const { return c_.stats; }
  void ResetStatistics() { c_.stats = IntegratorStatistics{}; }

  template <typename F>
  void Step(F&& f, const double& t, const double& h, Vec* x) {
    f(t, *x, &c_.f0_);
    ++c_.stats.derivative_evaluations;
    c_.EvalJacobian(f, kName, t, *x, &dfdt_);
    Attempt(f, t, h, *x);
    *x = x1_;
    ++c_.stats.steps;
  }

  template <typename F>
  double StepAdaptive(F&& f, const double& t, const double& t_limit, Vec* x) {
    const double remaining = t_limit - t;
    c_.BeginStep(f, kName, t, t_limit, *x, x1_);
    const Tolerances tol = c_.tolerances(kName, x->size());
    c_.GuessFirstStep(remaining);
    c_.EvalJacobian(f, kName, t, *x, &dfdt_);
    const double h_min = MinStep(c_.settings, t, t_limit);
    for (;;) {
      double h = std::max(std::min(c_.h_, c_.settings.max_step), h_min);
      bool last = false;
      if (1.01 * h >= remaining) {
        h = remaining;
        last = true;
      }
      Attempt(f, t, h, *x);
      Eigen::Index worst = 0;
      const double err = WeightedRmsNorm(err_, *x, x1_, tol, &worst);
      if (!std::isfinite(err)) {
        // The LU solves spread a non-finite derivative over every
        // component; name the one where f itself failed.
        for (Eigen::Index i = 0; i < fs_.size(); ++i) {
          if (!std::isfinite(fs_(i))) {
            worst = i;
            break;
          }
        }
      }
      if (err <= 1) {
        const double h_next = h * c_.controller_.Accepted(err);
        c_.h_ = last ? std::max(h_next, std::min(c_.h_, 10 * h_next)) : h_next;
        const double t1 = last ? t_limit : t + h;
        f(t1, x1_, &f1_);
        ++c_.stats.derivative_evaluations;
        c_.SaveDense(t, h, *x, c_.f0_, x1_, f1_);
        *x = x1_;
        c_.f0_ = f1_;
        c_.t_f0_ = t1;
        ++c_.stats.steps;
        return t1;
      }
      ++c_.stats.rejected_steps;
      if (!RetryStep(h, h * c_.controller_.Rejected(err), h_min, &c_.h_)) {
        x1_.setConstant(std::numeric_limits<double>::quiet_NaN());
        c_.ThrowStepTooSmall(kName, t, h, h_min, worst, (*x)(worst),
                             "cannot meet tolerance");
      }
    }
  }

  void DenseOutput(const double& t, Vec* x) const {
    c_.HermiteDense(kName, t, x);
  }
  bool has_dense_output() const { return c_.have_dense_; }

 private:
  // Shampine's parameters in the formulation without J-vector products
  // (Numerical Recipes 16.6, eqs. 16.6.24-25).
  static constexpr double kGam = 1.0 / 2, kA21 = 2.0, kA31 = 48.0 / 25,
                          kA32 = 6.0 / 25, kC21 = -8.0, kC31 = 372.0 / 25,
                          kC32 = 12.0 / 5, kC41 = -112.0 / 125,
                          kC42 = -54.0 / 125, kC43 = -2.0 / 5, kB1 = 19.0 / 9,
                          kB2 = 1.0 / 2, kB3 = 25.0 / 108, kB4 = 125.0 / 108,
                          kE1 = 17.0 / 54, kE2 = 7.0 / 36, kE3 = 0.0,
                          kE4 = 125.0 / 108, kC1X = 1.0 / 2, kC2X = -3.0 / 2,
                          kC3X = 121.0 / 50, kC4X = 29.0 / 250, kA2X = 1.0,
                          kA3X = 3.0 / 5;

  template <typename F>
  void Attempt(F& f, double t, double h, const Vec& x) {
    const Eigen::Index n = x.size();
    M_ = -c_.J_;
    M_.diagonal().array() += 1 / (kGam * h);
    lu_.compute(M_);
    ++c_.stats.lu_factorizations;
    g1_.noalias() = c_.f0_ + (h * kC1X) * dfdt_;
    g1_ = lu_.solve(g1_);
    xs_.noalias() = x + kA21 * g1_;
    f(t + kA2X * h, xs_, &fs_);
    g2_.noalias() = fs_ + (h * kC2X) * dfdt_ + (kC21 / h) * g1_;
    g2_ = lu_.solve(g2_);
    xs_.noalias() = x + kA31 * g1_ + kA32 * g2_;
    f(t + kA3X * h, xs_, &fs_);
    g3_.noalias() =
        fs_ + (h * kC3X) * dfdt_ + (kC31 / h) * g1_ + (kC32 / h) * g2_;
    g3_ = lu_.solve(g3_);
    g4_.noalias() = fs_ + (h * kC4X) * dfdt_ + (kC41 / h) * g1_ +
                    (kC42 / h) * g2_ + (kC43 / h) * g3_;
    g4_ = lu_.solve(g4_);
    x1_.noalias() = x + kB1 * g1_ + kB2 * g2_ + kB3 * g3_ + kB4 * g4_;
    err_.noalias() = kE1 * g1_ + kE2 * g2_ + kE3 * g3_ + kE4 * g4_;
    c_.stats.derivative_evaluations += 2;
    (void)n;
  }

  internal::ImplicitCommon<Vec> c_;
  Vec g1_, g2_, g3_, g4_, xs_, fs_, x1_, f1_, err_, dfdt_;  // (n)
  Mat M_;                                                   // (n x n)
  Eigen::PartialPivLU<Mat> lu_;
};

// Coefficients of the 3-stage Radau IIA collocation method (order 5), the
// transformation that block-diagonalizes A^-1 (one real eigenvalue gamma,
// one complex pair alpha +- i beta), and the embedded error weights, all
// computed once from A (Hairer & Wanner, Solving ODEs II, IV.5 and IV.8).
struct RadauIIA5Coefficients {
  double c[3];
  Eigen::Matrix3d A, Ainv, T, Tinv;
  double gamma, alpha, beta;
  double e[3];  // err = (gamma/h I - J)^-1 (f0 + gamma/h sum e_i z_i)
  static const RadauIIA5Coefficients& Get();
};

// Radau IIA of order 5 (Hairer & Wanner, Solving ODEs II, IV.8; the RADAU5
// algorithm): simplified Newton on the transformed stage system with one
// real and one complex LU per factorization, reused across iterations and
// steps while the step size is kept; the Jacobian is reused while Newton
// contracts fast (theta < 1e-3); starting values from the previous
// collocation polynomial while the step at most doubles (zero beyond);
// embedded error estimate filtered by
// (I - h gamma0 J)^-1; Gustafsson's predictive step-size controller.
// rtol is rescaled as in RADAU5 (rtol' = 0.1 rtol^(2/3)) so that the
// global error is about rtol; atol is scaled by the same factor only where
// that tightens it. L-stable and stiffly accurate: the rule
// for very stiff problems and high accuracy. Dense output: the collocation
// polynomial (order 3).
template <typename Vec>
class RadauIIA5 {
 public:
  static constexpr int N = Vec::RowsAtCompileTime;
  using Scalar = double;
  using Mat = Eigen::Matrix<double, N, N>;
  using CVec = Eigen::Matrix<std::complex<double>, N, 1>;
  using CMat = Eigen::Matrix<std::complex<double>, N, N>;
  static constexpr int kOrder = 5;
  static constexpr const char* kName = "radau5";

  explicit RadauIIA5(Eigen::Index n = internal::DefaultSizeOf<Vec>())
      : k_(RadauIIA5Coefficients::Get()) {
    Resize(n);
  }
  void Resize(Eigen::Index n) {
    c_.Resize(n);
    for (Vec* v : {&z1_, &z2_, &z3_, &w1_, &w2_, &w3_, &f1_, &f2_, &f3_, &xs_,
                   &x1_, &err_, &cont_, &za1_, &za2_, &za3_, &x0a_}) {
      v->resize(n);
    }
    cu_.resize(n);
    E1_.resize(n, n);
    E2_.resize(n, n);
    if constexpr (Mat::RowsAtCompileTime == Eigen::Dynamic) {
      lu1_ = Eigen::PartialPivLU<Mat>(n);
    }
    if constexpr (CMat::RowsAtCompileTime == Eigen::Dynamic) {
      lu2_ = Eigen::PartialPivLU<CMat>(n);
    }
    Reset();
  }
  void Reset() {
    c_.f0_valid_ = false;
    c_.h_ = 0;
    c_.have_dense_ = false;
    have_prev_ = false;
    jac_current_ = false;
    skip_jacobian_ = false;
    lu_h_ = 0;
    faccon_ = 1;
    first_ = true;
  }
  const IntegratorSettings& settings() const { return c_.settings; }
  IntegratorSettings& mutable_settings() { return c_.settings; }
  const IntegratorStatistics& statistics() const { return c_.stats; }
  void ResetStatistics() { c_.stats = IntegratorStatistics{}; }

  // One step of size h (Newton to the settings' tolerance); no error
  // control. Throws if Newton does not converge.
  template <typename F>
  void Step(F&& f, const double& t, const double& h, Vec* x) {
    const Tolerances tol = ScaledTolerances(x->size());
    f(t, *x, &c_.f0_);
    ++c_.stats.derivative_evaluations;
    c_.EvalJacobian(f, kName, t, *x, nullptr);
    Factor(h);
    StartValues(t, h, *x);
    Eigen::Index worst = 0;
    if (Newton(f, t, h, *x, tol, &worst) != NewtonResult::kConverged) {
      throw IntegratorStepError(
          fmt::format(
              "{}: Newton iteration did not converge at t = {} with h = {}; "
              "worst state component {} (value {})",
              kName, t, h, worst, (*x)(worst)),
          worst);
    }
    AcceptStep(t, h, x);
  }

  template <typename F>
  double StepAdaptive(F&& f, const double& t, const double& t_limit, Vec* x) {
    const double remaining = t_limit - t;
    const Eigen::Index n = x->size();
    const Tolerances tol = ScaledTolerances(n);
    if (c_.BeginStep(f, kName, t, t_limit, *x, x1_)) {
      have_prev_ = false;
      jac_current_ = false;
      skip_jacobian_ = false;
      first_ = true;
    }
    if (!(c_.h_ > 0)) {
      c_.h_ = c_.settings.initial_step > 0 ? c_.settings.initial_step : 1e-6;
    }
    const int nit = c_.settings.max_newton_iterations;
    const double fnewt =
        std::max(10 * kUround / tol.rtol, std::min(0.03, std::sqrt(tol.rtol)));
    if (!jac_current_ && !skip_jacobian_) {
      c_.EvalJacobian(f, kName, t, *x, nullptr);
      jac_current_ = true;
      lu_h_ = 0;
    }
    skip_jacobian_ = false;
    bool rejected = false;
    const double h_min = MinStep(c_.settings, t, t_limit);
    for (;;) {
      double h = std::max(std::min(c_.h_, c_.settings.max_step), h_min);
      bool last = false;
      if (1.01 * h >= remaining) {
        h = remaining;
        last = true;
      }
      if (h != lu_h_) Factor(h);
      StartValues(t, h, *x);
      Eigen::Index worst = 0;
      const NewtonResult nr = Newton(f, t, h, *x, tol, &worst, fnewt);
      if (nr != NewtonResult::kConverged) {
        ++c_.stats.rejected_steps;
        // Too slow or diverging: smaller step and, if the Jacobian is old,
        // a fresh one (RADAU5's "unexpected step rejection").
        if (!RetryStep(h, h * (nr == NewtonResult::kSlow ? slow_factor_ : 0.5),
                       h_min, &c_.h_)) {
          x1_.setConstant(std::numeric_limits<double>::quiet_NaN());
          c_.ThrowStepTooSmall(kName, t, h, h_min, worst, (*x)(worst),
                               "Newton iteration does not converge");
        }
        if (!jac_current_) {
          c_.EvalJacobian(f, kName, t, *x, nullptr);
          jac_current_ = true;
          lu_h_ = 0;
        }
        rejected = true;
        continue;
      }
      // Error estimate (HW II, IV.8, eqs. 8.19-8.20).
      const double hee = k_.gamma / h;
      cont_.noalias() = hee * (k_.e[0] * z1_ + k_.e[1] * z2_ + k_.e[2] * z3_);
      err_.noalias() = c_.f0_ + cont_;
      err_ = lu1_.solve(err_);
      x1_.noalias() = *x + z3_;
      double err = WeightedRmsNorm(err_, *x, x1_, tol, &worst);
      if (err >= 1 && (first_ || rejected)) {
        xs_.noalias() = *x + err_;
        f(t, xs_, &f1_);
        ++c_.stats.derivative_evaluations;
        err_.noalias() = f1_ + cont_;
        err_ = lu1_.solve(err_);
        err = WeightedRmsNorm(err_, *x, x1_, tol, &worst);
      }
      err = std::max(err, 1e-10);
      const double fac =
          std::min(kSafety, kSafety * (1 + 2 * nit) / (newton_its_ + 2 * nit));
      double quot = std::clamp(std::pow(err, 0.25) / fac, kFacR, kFacL);
      double hnew = h / quot;
      if (err < 1) {
        if (!first_) {
          double facgus =
              (hacc_ / h) * std::pow(err * err / erracc_, 0.25) / kSafety;
          facgus = std::clamp(facgus, kFacR, kFacL);
          quot = std::max(quot, facgus);
          hnew = h / quot;
        }
        hacc_ = h;
        erracc_ = std::max(1e-2, err);
        first_ = false;
        const double t1 = last ? t_limit : t + h;
        AcceptStep(t, h, x);
        f(t1, *x, &c_.f0_);
        ++c_.stats.derivative_evaluations;
        c_.t_f0_ = t1;
        if (rejected) hnew = std::min(hnew, h);
        // Keep the Jacobian while Newton contracted fast; keep the LU too
        // if the step size would change by less than 20 %.
        skip_jacobian_ = theta_ <= kThetaReuse;
        jac_current_ = false;
        if (skip_jacobian_ && quot >= 1 && quot <= 1.2 && !last) {
          c_.h_ = h;
        } else {
          c_.h_ = hnew;
          if (!skip_jacobian_) lu_h_ = 0;
        }
        return t1;
      }
      ++c_.stats.rejected_steps;
      rejected = true;
      if (!RetryStep(h, first_ ? 0.1 * h : hnew, h_min, &c_.h_)) {
        x1_.setConstant(std::numeric_limits<double>::quiet_NaN());
        c_.ThrowStepTooSmall(kName, t, h, h_min, worst, (*x)(worst),
                             "cannot meet tolerance");
      }
      if (!jac_current_) {
        c_.EvalJacobian(f, kName, t, *x, nullptr);
        jac_current_ = true;
        lu_h_ = 0;
      }
    }
  }

  // The collocation polynomial of the last accepted step.
  void DenseOutput(const double& t, Vec* x) const {
    const double s = c_.CheckDenseTime(kName, t);
    double l[3];
    Lagrange(s, l);
    x->noalias() = x0a_ + l[0] * za1_ + l[1] * za2_ + l[2] * za3_;
  }
  bool has_dense_output() const { return c_.have_dense_; }

 private:
  enum class NewtonResult { kConverged, kSlow, kDiverged };
  static constexpr double kUround = 1e-16, kSafety = 0.9, kFacL = 5.0,
                          kFacR = 1.0 / 8, kThetaReuse = 1e-3,
                          kMaxExtrapolation = 2.0;

  Tolerances ScaledTolerances(Eigen::Index n) {
    Tolerances tol = c_.tolerances(kName, n);
    // RADAU5's rescaling of rtol, rtol' = 0.1 rtol^(2/3), so that rtol
    // means global error ~ rtol (the error estimate is of order 3, the
    // method of order 5). RADAU5 scales atol by the same factor q; for
    // rtol < 1e-3, q > 1 and that loosens the absolute tolerance (by 2.2x
    // at 1e-4, 10x at 1e-6), so a component smaller than atol q is no
    // longer controlled at the level the user asked for. atol is the
    // user's noise floor: it may be tightened (q < 1), never loosened.
    const double r = 0.1 * std::pow(tol.rtol, 2.0 / 3.0);
    const double q = std::min(r / tol.rtol, 1.0);
    tol.rtol = r;
    tol.atol *= q;
    if (tol.atol_vec != nullptr) {
      atol_scaled_ = c_.settings.atol_per_component * q;
      tol.atol_vec = atol_scaled_.data();
    }
    return tol;
  }

  // L_i(s) for the nodes {0, c1, c2, c3}, i = 1..3 (the node 0 carries z = 0).
  void Lagrange(double s, double l[3]) const {
    const double* c = k_.c;
    for (int i = 0; i < 3; ++i) {
      double v = s / c[i];
      for (int j = 0; j < 3; ++j) {
        if (j != i) v *= (s - c[j]) / (c[i] - c[j]);
      }
      l[i] = v;
    }
  }

  void Factor(double h) {
    const Eigen::Index n = c_.J_.rows();
    E1_ = -c_.J_;
    E1_.diagonal().array() += k_.gamma / h;
    lu1_.compute(E1_);
    E2_ = -c_.J_.template cast<std::complex<double>>();
    E2_.diagonal().array() += std::complex<double>(k_.alpha, -k_.beta) / h;
    lu2_.compute(E2_);
    c_.stats.lu_factorizations += 2;
    lu_h_ = h;
    (void)n;
  }

  void StartValues(double t, double h, const Vec& x) {
    (void)x;
    // Extrapolating the last collocation polynomial (HW II, IV.8) is the
    // better start while the step grows moderately; far beyond its own
    // step the cubic is unreliable, and simplified Newton may then
    // converge to a spurious root of the stage equations. Measured on
    // Robertson (rtol = atol = 1e-4): a step 3.9 times the last one,
    // started from the extrapolation, converged to y2 = -4.7e-5 (the
    // negative root of the quadratic term), which the filtered error
    // estimate passes and from which the exact flow blows up. Beyond
    // twice the last step start from z = 0, RADAU5's other choice
    // (IWORK(4) != 0).
    if (!have_prev_ || t != t_prev_end_ || h > kMaxExtrapolation * hacc_prev_) {
      z1_.setZero();
      z2_.setZero();
      z3_.setZero();
    } else {
      // Extrapolate the last collocation polynomial: z_i(new) =
      // u(1 + c_i h / h_prev) - u(1).
      double l[3];
      Vec* zs[3] = {&z1_, &z2_, &z3_};
      for (int i = 0; i < 3; ++i) {
        Lagrange(1 + k_.c[i] * h / hacc_prev_, l);
        zs[i]->noalias() = l[0] * za1_ + l[1] * za2_ + l[2] * za3_ - za3_;
      }
    }
    const Eigen::Matrix3d& Ti = k_.Tinv;
    w1_.noalias() = Ti(0, 0) * z1_ + Ti(0, 1) * z2_ + Ti(0, 2) * z3_;
    w2_.noalias() = Ti(1, 0) * z1_ + Ti(1, 1) * z2_ + Ti(1, 2) * z3_;
    w3_.noalias() = Ti(2, 0) * z1_ + Ti(2, 1) * z2_ + Ti(2, 2) * z3_;
  }

  template <typename F>
  NewtonResult Newton(F& f, double t, double h, const Vec& x,
                      const Tolerances& tol, Eigen::Index* worst,
                      double fnewt = 1e-3) {
    const Eigen::Index n = x.size();
    const int nit = c_.settings.max_newton_iterations;
    const Eigen::Matrix3d& T = k_.T;
    const Eigen::Matrix3d& Ti = k_.Tinv;
    const double g = k_.gamma / h, a = k_.alpha / h, b = k_.beta / h;
    faccon_ = std::pow(std::max(faccon_, kUround), 0.8);
    theta_ = std::abs(kThetaReuse);
    double dynold = 1, thqold = 1;
    for (int k = 0; k < nit; ++k) {
      newton_its_ = k + 1;
      xs_.noalias() = x + z1_;
      f(t + k_.c[0] * h, xs_, &f1_);
      xs_.noalias() = x + z2_;
      f(t + k_.c[1] * h, xs_, &f2_);
      xs_.noalias() = x + z3_;
      f(t + k_.c[2] * h, xs_, &f3_);
      c_.stats.derivative_evaluations += 3;
      ++c_.stats.newton_iterations;
      // Right-hand sides in transformed coordinates; f1_..f3_ become G.
      xs_.noalias() = Ti(0, 0) * f1_ + Ti(0, 1) * f2_ + Ti(0, 2) * f3_;
      cont_.noalias() = Ti(1, 0) * f1_ + Ti(1, 1) * f2_ + Ti(1, 2) * f3_;
      f3_ = Ti(2, 0) * f1_ + Ti(2, 1) * f2_ + Ti(2, 2) * f3_;
      // Real block: (gamma/h - J) dW1 = G1 - gamma/h W1.
      f1_.noalias() = xs_ - g * w1_;
      f1_ = lu1_.solve(f1_);
      // Complex block: ((alpha - i beta)/h - J) U = R2 + i R3.
      f2_.noalias() = cont_ - a * w2_ - b * w3_;
      f3_ = f3_ + b * w2_ - a * w3_;
      for (Eigen::Index i = 0; i < n; ++i) {
        cu_(i) = std::complex<double>(f2_(i), f3_(i));
      }
      cu_ = lu2_.solve(cu_);
      for (Eigen::Index i = 0; i < n; ++i) {
        f2_(i) = cu_(i).real();
        f3_(i) = cu_(i).imag();
      }
      // Norm of the update (RMS over the 3n transformed unknowns).
      double sum = 0, largest = -1;
      for (Eigen::Index i = 0; i < n; ++i) {
        const double sc = tol.atol_at(i) + tol.rtol * std::abs(x(i));
        const double s =
            (f1_(i) * f1_(i) + f2_(i) * f2_(i) + f3_(i) * f3_(i)) / (sc * sc);
        if (!(s <= largest)) {
          largest = s;
          *worst = i;
        }
        sum += s;
      }
      const double dyno = std::sqrt(sum / (3.0 * n));
      if (!std::isfinite(dyno)) return NewtonResult::kDiverged;
      if (k >= 1) {
        const double thq = dyno / dynold;
        theta_ = k == 1 ? thq : std::sqrt(thq * thqold);
        thqold = thq;
        if (theta_ < 0.99) {
          faccon_ = theta_ / (1 - theta_);
          const double dyth =
              faccon_ * dyno * std::pow(theta_, nit - 1 - k) / fnewt;
          if (dyth >= 1) {
            const double qnewt = std::clamp(dyth, 1e-4, 20.0);
            slow_factor_ = 0.8 * std::pow(qnewt, -1.0 / (4 + nit - 1 - k));
            return NewtonResult::kSlow;
          }
        } else {
          return NewtonResult::kDiverged;
        }
      }
      dynold = std::max(dyno, kUround);
      w1_ += f1_;
      w2_ += f2_;
      w3_ += f3_;
      z1_.noalias() = T(0, 0) * w1_ + T(0, 1) * w2_ + T(0, 2) * w3_;
      z2_.noalias() = T(1, 0) * w1_ + T(1, 1) * w2_ + T(1, 2) * w3_;
      z3_.noalias() = T(2, 0) * w1_ + T(2, 1) * w2_ + T(2, 2) * w3_;
      if (faccon_ * dyno <= fnewt) return NewtonResult::kConverged;
    }
    slow_factor_ = 0.5;
    return NewtonResult::kSlow;
  }

  void AcceptStep(double t, double h, Vec* x) {
    x0a_ = *x;
    za1_ = z1_;
    za2_ = z2_;
    za3_ = z3_;
    hacc_prev_ = h;
    t_prev_end_ = t + h;
    have_prev_ = true;
    c_.t0d_ = t;
    c_.hd_ = h;
    c_.have_dense_ = true;
    *x += z3_;
    x1_ = *x;
    ++c_.stats.steps;
  }

  const RadauIIA5Coefficients& k_;
  internal::ImplicitCommon<Vec> c_;
  Vec z1_, z2_, z3_, w1_, w2_, w3_, f1_, f2_, f3_, xs_, x1_, err_, cont_;
  Vec za1_, za2_, za3_, x0a_;  // last accepted step's stages and start
  CVec cu_;
  Mat E1_;
  CMat E2_;
  Eigen::PartialPivLU<Mat> lu1_;
  Eigen::PartialPivLU<CMat> lu2_;
  Eigen::VectorXd atol_scaled_;
  double lu_h_{0};
  double faccon_{1}, theta_{0}, slow_factor_{0.5};
  int newton_its_{0};
  bool have_prev_{false}, jac_current_{false}, skip_jacobian_{false};
  bool first_{true};
  double t_prev_end_{0}, hacc_prev_{1};
  double hacc_{1}, erracc_{1e-2};
};

}  // namespace tern
