#pragma once
// Rodas4: the stiffly accurate Rosenbrock rule of order 4 with an embedded
// 3rd-order estimate (Hairer & Wanner, Solving ODEs II, 2nd ed., IV.7,
// "RODAS"; coefficients of the published RODAS code, method 1).
#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tern/integrators/implicit_rules.h"

namespace tern {

// Six stages, one Jacobian and one LU of (I/(gamma h) - J) per step, five
// evaluations of f per attempt plus one at the end of an accepted step (the
// next step's f0). L-stable and stiffly accurate (the new state is the last
// stage), so very stiff components are damped as by implicit Euler, unlike
// Kaps-Rentrop 4(3), whose stability function tends to a nonzero constant.
// The error estimate is the last stage's increment (the difference to the
// embedded 3rd-order solution, HW II, IV.7). Gustafsson's predictive
// step-size control (error order 3), as in the RODAS code. Dense output:
// RODAS's 3rd-order interpolant from the stages. The rule for stiff problems at
// rtol 1e-2..1e-7; radau5 is cheaper below.
template <typename Vec>
class Rodas4 {
 public:
  static constexpr int N = Vec::RowsAtCompileTime;
  using Scalar = double;
  using Mat = Eigen::Matrix<double, N, N>;
  static constexpr int kOrder = 4;
  static constexpr const char* kName = "rodas4";

  explicit Rodas4(Eigen::Index n = internal::DefaultSizeOf<Vec>()) {
    Resize(n);
  }
  void Resize(Eigen::Index n) {
    c_.Resize(n);
    for (Vec* v : {&k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &xs_, &fs_, &x1_, &dfdt_,
                   &x0d_, &x1d_, &cont3_, &cont4_}) {
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
    controller_.Reset();
    c_.have_dense_ = false;
  }
  const IntegratorSettings& settings() const { return c_.settings; }
  IntegratorSettings& mutable_settings() { return c_.settings; }
  const IntegratorStatistics& statistics() const { return c_.stats; }
  void ResetStatistics() { c_.stats = IntegratorStatistics{}; }

  // One step of size h with the Jacobian at (t, *x) (order tests).
  template <typename F>
  void Step(F&& f, const double& t, const double& h, Vec* x) {
    f(t, *x, &c_.f0_);
    ++c_.stats.derivative_evaluations;
    c_.f0_valid_ = false;
    c_.EvalJacobian(f, kName, t, *x, &dfdt_);
    Attempt(f, t, h, *x);
    *x = x1_;
    ++c_.stats.steps;
  }

  // One accepted error-controlled step from (t, *x), not past t_limit;
  // returns the time reached. Throws std::runtime_error naming the rule,
  // time, step and worst component if the step would shrink below
  // MinStep(); *x is then unchanged.
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
      // k6_ is the difference between the 4th- and 3rd-order solutions.
      const double err = WeightedRmsNorm(k6_, *x, x1_, tol, &worst);
      if (!std::isfinite(err)) worst = FirstFailedComponent(f, t, h, *x, worst);
      if (err <= 1) {
        const double h_next = h * controller_.Accepted(err, h);
        c_.h_ = last ? std::max(h_next, std::min(c_.h_, 10 * h_next)) : h_next;
        const double t1 = last ? t_limit : t + h;
        SaveDense(t, h, *x);
        *x = x1_;
        f(t1, *x, &c_.f0_);
        ++c_.stats.derivative_evaluations;
        c_.t_f0_ = t1;
        ++c_.stats.steps;
        return t1;
      }
      ++c_.stats.rejected_steps;
      if (!RetryStep(h, h * controller_.Rejected(err), h_min, &c_.h_)) {
        x1_.setConstant(std::numeric_limits<double>::quiet_NaN());
        c_.ThrowStepTooSmall(kName, t, h, h_min, worst, (*x)(worst),
                             "cannot meet tolerance");
      }
    }
  }

  // x(t) for t in the last accepted step, by RODAS's interpolant
  //   x(t0 + s h) = (1 - s) x0 + s (x1 + (1 - s) (cont3 + s cont4)).
  void DenseOutput(const double& t, Vec* x) const {
    const double s = c_.CheckDenseTime(kName, t);
    const double s1 = 1 - s;
    x->noalias() = s1 * x0d_ + s * (x1d_ + s1 * (cont3_ + s * cont4_));
  }
  bool has_dense_output() const { return c_.have_dense_; }

 private:
  struct Coefficients;

  // One trial step: x1_ = x + increment, k6_ = error estimate; needs f0_,
  // J_ and dfdt_ at (t, x).
  template <typename F>
  void Attempt(F& f, double t, double h, const Vec& x) {
    using C = Coefficients;
    M_ = -c_.J_;
    M_.diagonal().array() += 1 / (C::gamma * h);
    lu_.compute(M_);
    ++c_.stats.lu_factorizations;
    const double inv_h = 1 / h;
    k1_.noalias() = c_.f0_ + (h * C::d1) * dfdt_;
    k1_ = lu_.solve(k1_);
    xs_.noalias() = x + C::a21 * k1_;
    f(t + C::c2 * h, xs_, &fs_);
    k2_.noalias() = fs_ + (h * C::d2) * dfdt_ + (C::c21 * inv_h) * k1_;
    k2_ = lu_.solve(k2_);
    xs_.noalias() = x + C::a31 * k1_ + C::a32 * k2_;
    f(t + C::c3 * h, xs_, &fs_);
    k3_.noalias() =
        fs_ + (h * C::d3) * dfdt_ + inv_h * (C::c31 * k1_ + C::c32 * k2_);
    k3_ = lu_.solve(k3_);
    xs_.noalias() = x + C::a41 * k1_ + C::a42 * k2_ + C::a43 * k3_;
    f(t + C::c4 * h, xs_, &fs_);
    k4_.noalias() = fs_ + (h * C::d4) * dfdt_ +
                    inv_h * (C::c41 * k1_ + C::c42 * k2_ + C::c43 * k3_);
    k4_ = lu_.solve(k4_);
    xs_.noalias() =
        x + C::a51 * k1_ + C::a52 * k2_ + C::a53 * k3_ + C::a54 * k4_;
    f(t + h, xs_, &fs_);
    k5_.noalias() = fs_ + inv_h * (C::c51 * k1_ + C::c52 * k2_ + C::c53 * k3_ +
                                   C::c54 * k4_);
    k5_ = lu_.solve(k5_);
    // xs_ becomes the embedded 3rd-order solution; the last stage corrects
    // it to 4th order.
    xs_ += k5_;
    f(t + h, xs_, &fs_);
    k6_.noalias() = fs_ + inv_h * (C::c61 * k1_ + C::c62 * k2_ + C::c63 * k3_ +
                                   C::c64 * k4_ + C::c65 * k5_);
    k6_ = lu_.solve(k6_);
    x1_.noalias() = xs_ + k6_;
    c_.stats.derivative_evaluations += 5;
  }

  // After a non-finite error estimate: the component of f that first became
  // non-finite, found by evaluating f again at the stage states in order
  // (the LU solves spread a non-finite value over every component, and
  // later stages are evaluated at non-finite states). Failure path only.
  template <typename F>
  Eigen::Index FirstFailedComponent(F& f, double t, double h, const Vec& x,
                                    Eigen::Index fallback) {
    using C = Coefficients;
    auto failed = [&](double ts) -> Eigen::Index {
      if (!xs_.allFinite()) return -2;  // an earlier stage failed silently
      f(ts, xs_, &fs_);
      ++c_.stats.derivative_evaluations;
      for (Eigen::Index i = 0; i < fs_.size(); ++i) {
        if (!std::isfinite(fs_(i))) return i;
      }
      return -1;
    };
    Eigen::Index i;
    xs_ = x;
    if ((i = failed(t)) != -1) return i >= 0 ? i : fallback;
    xs_.noalias() = x + C::a21 * k1_;
    if ((i = failed(t + C::c2 * h)) != -1) return i >= 0 ? i : fallback;
    xs_.noalias() = x + C::a31 * k1_ + C::a32 * k2_;
    if ((i = failed(t + C::c3 * h)) != -1) return i >= 0 ? i : fallback;
    xs_.noalias() = x + C::a41 * k1_ + C::a42 * k2_ + C::a43 * k3_;
    if ((i = failed(t + C::c4 * h)) != -1) return i >= 0 ? i : fallback;
    xs_.noalias() =
        x + C::a51 * k1_ + C::a52 * k2_ + C::a53 * k3_ + C::a54 * k4_;
    if ((i = failed(t + h)) != -1) return i >= 0 ? i : fallback;
    xs_ += k5_;
    if ((i = failed(t + h)) != -1) return i >= 0 ? i : fallback;
    return fallback;
  }

  void SaveDense(double t0, double h, const Vec& x0) {
    using C = Coefficients;
    x0d_ = x0;
    x1d_ = x1_;
    cont3_.noalias() = C::d21 * k1_ + C::d22 * k2_ + C::d23 * k3_ +
                       C::d24 * k4_ + C::d25 * k5_;
    cont4_.noalias() = C::d31 * k1_ + C::d32 * k2_ + C::d33 * k3_ +
                       C::d34 * k4_ + C::d35 * k5_;
    c_.t0d_ = t0;
    c_.hd_ = h;
    c_.have_dense_ = true;
  }

  internal::ImplicitCommon<Vec> c_;
  PredictiveController controller_{3};
  Vec k1_, k2_, k3_, k4_, k5_, k6_;  // (n) stage increments
  Vec xs_, fs_, x1_, dfdt_;          // (n) stage state, f there, result, df/dt
  Vec x0d_, x1d_, cont3_, cont4_;    // (n) dense output of the last step
  Mat M_;                            // (n x n) I/(gamma h) - J
  Eigen::PartialPivLU<Mat> lu_;
};

// RODAS method 1 (HW II, IV.7), in the formulation of the RODAS code: stage
// increments k_i solve (I/(gamma h) - J) k_i = f(t + c_i h, x + sum_j a_ij
// k_j) + sum_j (c_ij / h) k_j + h d_i df/dt.
template <typename Vec>
struct Rodas4<Vec>::Coefficients {
  static constexpr double gamma = 0.25;
  static constexpr double c2 = 0.386, c3 = 0.21, c4 = 0.63;
  static constexpr double d1 = 0.25, d2 = -0.1043, d3 = 0.1035,
                          d4 = -0.3620000000000023e-01;
  static constexpr double a21 = 0.1544e+01;
  static constexpr double a31 = 0.9466785280815826e+00,
                          a32 = 0.2557011698983284e+00;
  static constexpr double a41 = 0.3314825187068521e+01,
                          a42 = 0.2896124015972201e+01,
                          a43 = 0.9986419139977817e+00;
  static constexpr double a51 = 0.1221224509226641e+01,
                          a52 = 0.6019134481288629e+01,
                          a53 = 0.1253708332932087e+02,
                          a54 = -0.6878860361058950e+00;
  static constexpr double c21 = -0.56688e+01;
  static constexpr double c31 = -0.2430093356833875e+01,
                          c32 = -0.2063599157091915e+00;
  static constexpr double c41 = -0.1073529058151375e+00,
                          c42 = -0.9594562251023355e+01,
                          c43 = -0.2047028614809616e+02;
  static constexpr double c51 = 0.7496443313967647e+01,
                          c52 = -0.1024680431464352e+02,
                          c53 = -0.3399990352819905e+02,
                          c54 = 0.1170890893206160e+02;
  static constexpr double c61 = 0.8083246795921522e+01,
                          c62 = -0.7981132988064893e+01,
                          c63 = -0.3152159432874371e+02,
                          c64 = 0.1631930543123136e+02,
                          c65 = -0.6058818238834054e+01;
  static constexpr double d21 = 0.1012623508344586e+02,
                          d22 = -0.7487995877610167e+01,
                          d23 = -0.3480091861555747e+02,
                          d24 = -0.7992771707568823e+01,
                          d25 = 0.1025137723295662e+01;
  static constexpr double d31 = -0.6762803392801253e+00,
                          d32 = 0.6087714651680015e+01,
                          d33 = 0.1643084320892478e+02,
                          d34 = 0.2476722511418386e+02,
                          d35 = -0.6594389125716872e+01;
};

}  // namespace tern
