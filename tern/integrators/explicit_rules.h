#pragma once
// Fixed-step explicit Runge-Kutta rules, written once for every driver
// (DESIGN.md "one rule, two drivers").
//
// A rule is a class template over the state vector type `Vec` (fixed-size
// Eigen vector or VectorX<T>, any scalar). It owns its scratch vectors, so a
// step never allocates once constructed, and it exposes
//   void Step(F&& f, const Scalar& t, const Scalar& h, Vec* x)
// which advances x from t to t + h in place. `f(t, x, &xdot)` evaluates the
// right-hand side into xdot (already sized).
//   static constexpr int kOrder;             // order of accuracy
//   static constexpr const char* kName;      // name for the command line
#include <Eigen/Core>

namespace tern {

// Explicit (forward) Euler: x1 = x0 + h f(t0, x0). Order 1.
template <typename Vec>
class ExplicitEuler {
 public:
  using Scalar = typename Vec::Scalar;
  static constexpr int kOrder = 1;
  static constexpr const char* kName = "euler";

  explicit ExplicitEuler(Eigen::Index n = Vec::RowsAtCompileTime > 0
                                              ? Vec::RowsAtCompileTime
                                              : 0)
      : k1_(n) {}
  void Resize(Eigen::Index n) { k1_.resize(n); }

  template <typename F>
  void Step(F&& f, const Scalar& t, const Scalar& h, Vec* x) {
    f(t, *x, &k1_);
    x->noalias() += h * k1_;
  }

 private:
  Vec k1_;
};

// The classical fourth-order Runge-Kutta rule (Kutta 1901; Hairer, Norsett &
// Wanner, Solving ODEs I, table 1.2). Order 4, four evaluations per step.
template <typename Vec>
class RK4 {
 public:
  using Scalar = typename Vec::Scalar;
  static constexpr int kOrder = 4;
  static constexpr const char* kName = "rk4";

  explicit RK4(Eigen::Index n = Vec::RowsAtCompileTime > 0
                                    ? Vec::RowsAtCompileTime
                                    : 0)
      : k1_(n), k2_(n), k3_(n), k4_(n), xs_(n) {}
  void Resize(Eigen::Index n) {
    k1_.resize(n);
    k2_.resize(n);
    k3_.resize(n);
    k4_.resize(n);
    xs_.resize(n);
  }

  template <typename F>
  void Step(F&& f, const Scalar& t, const Scalar& h, Vec* x) {
    const Scalar h2 = h / 2;
    f(t, *x, &k1_);
    xs_.noalias() = *x + h2 * k1_;
    f(t + h2, xs_, &k2_);
    xs_.noalias() = *x + h2 * k2_;
    f(t + h2, xs_, &k3_);
    xs_.noalias() = *x + h * k3_;
    f(t + h, xs_, &k4_);
    x->noalias() += (h / 6) * (k1_ + 2 * (k2_ + k3_) + k4_);
  }

 private:
  Vec k1_, k2_, k3_, k4_, xs_;
};

}  // namespace tern
