#pragma once
// Exponential integration (Hochbruck & Ostermann, "Exponential integrators",
// Acta Numerica 19, 2010). Includes Eigen's MatrixFunctions; include this
// header only where the rule is used.
#include <Eigen/Core>
#include <unsupported/Eigen/MatrixFunctions>

#include "tern/integrators/discretize_zero_order_hold.h"
#include "tern/integrators/jacobian.h"

namespace tern {

// The exponential Rosenbrock-Euler rule for xdot = f(t, x):
//   x1 = x0 + h phi1(h J) f(t0, x0),  J = df/dx(t0, x0),
// phi1(z) = (e^z - 1)/z, computed as the last column of the exponential of
// [[J, f0], [0, 0]] h. For a linear time-invariant system xdot = A x + B u
// with u held over the step (zero-order hold, as the Simulator holds inputs
// and discrete state) it is exact; for nonlinear autonomous f it has order 2
// (Hochbruck, Ostermann & Schweitzer, SINUM 47, 2009). Time dependence of
// f within the step is ignored (ZOH semantics). The Jacobian comes from
// JacobianEvaluator (user-supplied, autodiff or central differences).
// Fixed-size Vec steps do not allocate; VectorX steps allocate inside
// Eigen's matrix exponential.
template <typename Vec>
class Exponential {
 public:
  static constexpr int N = Vec::RowsAtCompileTime;
  static constexpr int NA = N > 0 ? N + 1 : Eigen::Dynamic;
  using Scalar = double;
  using Mat = Eigen::Matrix<double, N, N>;
  using AugMat = Eigen::Matrix<double, NA, NA>;
  static constexpr int kOrder = 2;
  static constexpr const char* kName = "exponential";

  explicit Exponential(Eigen::Index n = internal::DefaultSizeOf<Vec>()) {
    Resize(n);
  }
  void Resize(Eigen::Index n) {
    jac_.Resize(n);
    J_.resize(n, n);
    f0_.resize(n);
    aug_.resize(n + 1, n + 1);
    E_.resize(n + 1, n + 1);
  }
  const IntegratorSettings& settings() const { return settings_; }
  IntegratorSettings& mutable_settings() { return settings_; }
  const IntegratorStatistics& statistics() const { return stats_; }

  template <typename F>
  void Step(F&& f, const double& t, const double& h, Vec* x) {
    const Eigen::Index n = x->size();
    f(t, *x, &f0_);
    ++stats_.derivative_evaluations;
    jac_.Eval(f, settings_.jacobian_scheme, kName, t, *x, &J_, nullptr,
              &stats_);
    aug_.setZero();
    aug_.topLeftCorner(n, n) = h * J_;
    aug_.topRightCorner(n, 1) = h * f0_;
    E_ = aug_.exp();
    *x += E_.topRightCorner(n, 1);
    ++stats_.steps;
  }

 private:
  IntegratorSettings settings_;
  IntegratorStatistics stats_;
  JacobianEvaluator<Vec> jac_;
  Mat J_;
  Vec f0_;
  AugMat aug_, E_;  // (n+1 x n+1) augmented matrix and its exponential
};

}  // namespace tern
