#pragma once
// Fixed-step explicit Runge-Kutta rules, written once for every driver
// (DESIGN.md "one rule, two drivers").
//
// A rule is a class template over the state vector type `Vec` (fixed-size
// Eigen vector or VectorX<T>, any scalar). It owns its scratch vectors, so a
// step never allocates once constructed, and it exposes
//   void Step(F&& f, const Scalar& t, const Scalar& h, Vec* x)
// which advances x from t to t + h in place. `f(t, x, &xdot)` evaluates the
// right-hand side into xdot (already sized). The rules here also take t and
// h as plain doubles when Scalar is a dual number: nothing is then
// differentiated with respect to them, and scaling by a double costs half
// the dual-number arithmetic of scaling by a constant dual.
//   static constexpr int kOrder;             // order of accuracy
//   static constexpr const char* kName;      // name for the command line
//   void Resize(Eigen::Index n);             // sizes the scratch
//
// A rule written outside Tern needs only Step; kName, kOrder and Resize (or
// a constructor from the size) are optional, and the drivers
// (DiscreteDynamics, DiscreteJacobian, FixedStepIntegrator and so
// Simulator::reset_integrator<Rule>(h)) take it as it is. Without them its
// name is "user_rule", its order 0 (unknown), and scratch it does not size
// is sized by the right-hand side on the first evaluation.
#include <Eigen/Core>
#include <type_traits>

namespace tern {
namespace internal {

// The rule's kName, or "user_rule".
template <class R>
constexpr const char* RuleName() {
  if constexpr (requires { R::kName; }) {
    return R::kName;
  } else {
    return "user_rule";
  }
}

// The rule's kOrder, or 0 (unknown).
template <class R>
constexpr int RuleOrder() {
  if constexpr (requires { R::kOrder; }) {
    return R::kOrder;
  } else {
    return 0;
  }
}

// True if ResizeRule can size the rule's scratch: it has Resize(n) or a
// constructor from n.
template <class R>
concept SizableRule = requires(R& r, Eigen::Index n) {
  r.Resize(n);
}
|| (std::is_constructible_v<R, Eigen::Index> && std::is_move_assignable_v<R>);

// Sizes a rule's scratch for n states: Resize(n) if it has one, else a new
// rule constructed from n if it can be; otherwise the rule sizes itself.
template <class R>
void ResizeRule(R* rule, Eigen::Index n) {
  if constexpr (requires { rule->Resize(n); }) {
    rule->Resize(n);
  } else if constexpr (std::is_constructible_v<R, Eigen::Index> &&
                       std::is_move_assignable_v<R>) {
    *rule = R(n);
  } else {
    (void)rule, (void)n;
  }
}

// A rule with scratch for n states, whether or not the rule takes a size.
template <template <typename> class Rule, typename Vec>
Rule<Vec> MakeRule(Eigen::Index n) {
  if constexpr (std::is_constructible_v<Rule<Vec>, Eigen::Index>) {
    return Rule<Vec>(n);
  } else {
    Rule<Vec> rule{};
    if constexpr (requires { rule.Resize(n); }) rule.Resize(n);
    return rule;
  }
}

// *out = expr, an elementwise expression that may read *out. For run-time
// sizes a plain loop over the coefficients: for the few states of a block
// diagram, the set-up of Eigen's vectorized assignment costs more than the
// arithmetic.
template <class Vec, class Expr>
inline void Assign(const Expr& expr, Vec* out) {
  if constexpr (Vec::SizeAtCompileTime == Eigen::Dynamic) {
    for (Eigen::Index i = 0; i < out->size(); ++i) (*out)[i] = expr.coeff(i);
  } else {
    out->noalias() = expr;
  }
}
}  // namespace internal

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

  template <typename F, typename S = Scalar>
  void Step(F&& f, const S& t, const S& h, Vec* x) {
    f(t, *x, &k1_);
    internal::Assign(*x + h * k1_, x);
  }

 private:
  Vec k1_;
};

// Explicit midpoint rule (Runge 1895; HNW I, eq. II.1.3). Order 2.
template <typename Vec>
class RK2 {
 public:
  using Scalar = typename Vec::Scalar;
  static constexpr int kOrder = 2;
  static constexpr const char* kName = "rk2";

  explicit RK2(Eigen::Index n = Vec::RowsAtCompileTime > 0
                                    ? Vec::RowsAtCompileTime
                                    : 0)
      : k1_(n), k2_(n), xs_(n) {}
  void Resize(Eigen::Index n) {
    k1_.resize(n);
    k2_.resize(n);
    xs_.resize(n);
  }

  template <typename F, typename S = Scalar>
  void Step(F&& f, const S& t, const S& h, Vec* x) {
    f(t, *x, &k1_);
    internal::Assign(*x + (h / 2) * k1_, &xs_);
    f(t + h / 2, xs_, &k2_);
    internal::Assign(*x + h * k2_, x);
  }

 private:
  Vec k1_, k2_, xs_;
};

// Kutta's third-order rule (HNW I, table II.1.1; seed 001's RK3):
// k1 = f(t, x), k2 = f(t + h/2, x + h/2 k1), k3 = f(t + h, x - h k1 + 2h k2),
// x1 = x + h/6 (k1 + 4 k2 + k3). Order 3.
template <typename Vec>
class RK3 {
 public:
  using Scalar = typename Vec::Scalar;
  static constexpr int kOrder = 3;
  static constexpr const char* kName = "rk3";

  explicit RK3(Eigen::Index n = Vec::RowsAtCompileTime > 0
                                    ? Vec::RowsAtCompileTime
                                    : 0)
      : k1_(n), k2_(n), k3_(n), xs_(n) {}
  void Resize(Eigen::Index n) {
    k1_.resize(n);
    k2_.resize(n);
    k3_.resize(n);
    xs_.resize(n);
  }

  template <typename F, typename S = Scalar>
  void Step(F&& f, const S& t, const S& h, Vec* x) {
    f(t, *x, &k1_);
    internal::Assign(*x + (h / 2) * k1_, &xs_);
    f(t + h / 2, xs_, &k2_);
    internal::Assign(*x + h * (2 * k2_ - k1_), &xs_);
    f(t + h, xs_, &k3_);
    internal::Assign(*x + (h / 6) * (k1_ + 4 * k2_ + k3_), x);
  }

 private:
  Vec k1_, k2_, k3_, xs_;
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

  template <typename F, typename S = Scalar>
  void Step(F&& f, const S& t, const S& h, Vec* x) {
    const S h2 = h / 2;
    f(t, *x, &k1_);
    internal::Assign(*x + h2 * k1_, &xs_);
    f(t + h2, xs_, &k2_);
    internal::Assign(*x + h2 * k2_, &xs_);
    f(t + h2, xs_, &k3_);
    internal::Assign(*x + h * k3_, &xs_);
    f(t + h, xs_, &k4_);
    internal::Assign(*x + (h / 6) * (k1_ + 2 * (k2_ + k3_) + k4_), x);
  }

 private:
  Vec k1_, k2_, k3_, k4_, xs_;
};

}  // namespace tern
