#pragma once
// Jacobian of a right-hand side for implicit and linearly implicit rules:
// user-supplied, forward-mode autodiff, or central differences
// (JacobianScheme in integrator_settings.h).
//
// A callable `f(t, x, &xdot)` may additionally provide
//   bool Jacobian(const double& t, const Vec& x, Mat* J);  // df/dx, (n x n)
// (returning false means "not available here", void means always) and
//   static constexpr bool kAutonomous = true;   // f does not depend on t
// Autodiff is used when f can be called with autodiff vectors (a generic
// lambda or a template operator()); t is then an autodiff variable too, so
// df/dt comes for free. Fixed-size states use AutoDiffN<N + 1> (no heap).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "tern/common/autodiff.h"
#include "tern/integrators/integrator_settings.h"

namespace tern {
namespace internal {

// A vector of Vec's shape whose autodiff scalar (common/autodiff.h) carries
// one derivative per state entry plus Extra (1: time).
template <typename Vec, int Extra>
using AutoDiffVectorFor = Eigen::Matrix<
    AutoDiffFor<(Vec::RowsAtCompileTime > 0 ? Vec::RowsAtCompileTime + Extra
                                            : Eigen::Dynamic)>,
    Vec::RowsAtCompileTime, 1>;

template <typename F, typename Vec, typename Mat>
concept HasUserJacobian = requires(F& f, const double& t, const Vec& x,
                                   Mat* J) {
  f.Jacobian(t, x, J);
};

template <typename F, typename Vec>
concept AutoDiffCallable = requires(
    F& f, const typename AutoDiffVectorFor<Vec, 1>::Scalar& t,
    const AutoDiffVectorFor<Vec, 1>& x, AutoDiffVectorFor<Vec, 1>* xd) {
  f(t, x, xd);
};

template <typename F>
constexpr bool IsAutonomous() {
  if constexpr (requires { std::remove_cvref_t<F>::kAutonomous; }) {
    return std::remove_cvref_t<F>::kAutonomous;
  } else {
    return false;
  }
}

}  // namespace internal

// Evaluates J = df/dx (and optionally df/dt) by the scheme in the settings.
// Owns its scratch; never allocates after Resize for fixed-size Vec (the
// dynamic-size autodiff path allocates, as AutoDiffXd always does).
template <typename Vec>
class JacobianEvaluator {
 public:
  static constexpr int N = Vec::RowsAtCompileTime;
  using Mat = Eigen::Matrix<double, N, N>;
  using AdVector = internal::AutoDiffVectorFor<Vec, 1>;

  explicit JacobianEvaluator(Eigen::Index n = N > 0 ? N : 0) { Resize(n); }
  void Resize(Eigen::Index n) {
    xp_.resize(n);
    fp_.resize(n);
    fm_.resize(n);
    x_ad_.resize(n);
    f_ad_.resize(n);
  }

  // Writes J (n x n, presized) and, if dfdt is not null, df/dt (zero
  // without evaluating f if `autonomous` or F::kAutonomous). Adds the
  // evaluations of f to stats->derivative_evaluations.
  template <typename F>
  void Eval(F& f, JacobianScheme scheme, const char* rule_name, double t,
            const Vec& x, Mat* J, Vec* dfdt, IntegratorStatistics* stats,
            bool autonomous = false) {
    autonomous = autonomous || internal::IsAutonomous<F>();
    ++stats->jacobian_evaluations;
    using MatArg = std::remove_pointer_t<decltype(J)>;
    if (scheme == JacobianScheme::kUserSupplied ||
        scheme == JacobianScheme::kAutomatic) {
      if constexpr (internal::HasUserJacobian<F, Vec, MatArg>) {
        bool ok = true;
        if constexpr (std::is_void_v<decltype(f.Jacobian(t, x, J))>) {
          f.Jacobian(t, x, J);
        } else {
          ok = f.Jacobian(t, x, J);
        }
        if (ok) {
          if (dfdt != nullptr) TimeDerivative(f, t, x, dfdt, stats, autonomous);
          return;
        }
      }
      if (scheme == JacobianScheme::kUserSupplied) {
        throw std::invalid_argument(fmt::format(
            "{}: jacobian_scheme is kUserSupplied but the right-hand side "
            "provides no Jacobian",
            rule_name));
      }
    }
    if (scheme == JacobianScheme::kAutoDiff ||
        scheme == JacobianScheme::kAutomatic) {
      if constexpr (internal::AutoDiffCallable<F, Vec>) {
        EvalAutoDiff(f, t, x, J, dfdt);
        ++stats->derivative_evaluations;
        return;
      }
      if (scheme == JacobianScheme::kAutoDiff) {
        throw std::invalid_argument(fmt::format(
            "{}: jacobian_scheme is kAutoDiff but the right-hand side cannot "
            "be called with autodiff scalars",
            rule_name));
      }
    }
    CentralDifference(f, t, x, J, stats);
    if (dfdt != nullptr) TimeDerivative(f, t, x, dfdt, stats, autonomous);
  }

 private:
  template <typename F>
  void EvalAutoDiff(F& f, double t, const Vec& x, Mat* J, Vec* dfdt) {
    using AdScalar = typename AdVector::Scalar;
    const Eigen::Index n = x.size();
    // Directions 0..n-1: x; direction n: t.
    internal::SeedAutoDiff<AdScalar>(x, n + 1, 0, &x_ad_);
    const AdScalar t_ad(
        t, AdScalar::DerType::Unit(internal::NumLanes<AdScalar>(n + 1), n));
    f(t_ad, x_ad_, &f_ad_);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto& d = f_ad_(i).derivatives();
      if (d.size() == 0) {
        J->row(i).setZero();
        if (dfdt != nullptr) (*dfdt)(i) = 0;
        continue;
      }
      J->row(i) = d.head(n).transpose();
      if (dfdt != nullptr) (*dfdt)(i) = d(n);
    }
  }

  template <typename F>
  void CentralDifference(F& f, double t, const Vec& x, Mat* J,
                         IntegratorStatistics* stats) {
    // Step eps^(1/3) balances truncation O(d^2) and rounding O(eps/d).
    const double cbrt_eps = std::cbrt(std::numeric_limits<double>::epsilon());
    xp_ = x;
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      const double d = cbrt_eps * std::max(1.0, std::abs(x(j)));
      xp_(j) = x(j) + d;
      f(t, xp_, &fp_);
      xp_(j) = x(j) - d;
      f(t, xp_, &fm_);
      xp_(j) = x(j);
      J->col(j) = (fp_ - fm_) / (2 * d);
    }
    stats->derivative_evaluations += 2 * x.size();
  }

  template <typename F>
  void TimeDerivative(F& f, double t, const Vec& x, Vec* dfdt,
                      IntegratorStatistics* stats, bool autonomous) {
    if (autonomous) {
      dfdt->setZero();
    } else {
      const double cbrt_eps = std::cbrt(std::numeric_limits<double>::epsilon());
      const double d = cbrt_eps * std::max(1.0, std::abs(t));
      f(t + d, x, &fp_);
      f(t - d, x, &fm_);
      *dfdt = (fp_ - fm_) / (2 * d);
      stats->derivative_evaluations += 2;
    }
  }

  Vec xp_, fp_, fm_;      // (n) finite-difference scratch
  AdVector x_ad_, f_ad_;  // (n) autodiff scratch
};

}  // namespace tern
