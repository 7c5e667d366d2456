#pragma once
// Linearization of a model about an operating point.
//
//   auto [A, B] = Linearize(model, x0, u0);           // xdot ~ A dx + B du
//   auto [Ad, Bd] = DiscreteTimeLinearize<RK4>(model, x0, u0, t, dt);
//                                                   // x' ~ Ad dx + Bd du
// Both use the JacobianMethod of discrete_jacobian.h (autodiff by default).
// DiscreteTimeLinearize<Exponential> of a LinearModel is the exact
// zero-order-hold discretization.
#include "tern/systems/analysis/discrete_jacobian.h"

namespace tern {

// A (n x n) and B (n x m) of a linearization.
template <class M>
struct Linearization {
  StateMatrixOf<M> A;
  InputMatrixOf<M> B;
};

namespace internal {

// A "rule" whose step replaces x by f(t, x): DiscreteJacobian through it is
// the continuous Jacobian [df/dx df/du], by any JacobianMethod.
template <typename Vec>
class TimeDerivativeRule {
 public:
  using Scalar = typename Vec::Scalar;
  explicit TimeDerivativeRule(Eigen::Index n) : xdot_(n) {}
  template <typename F>
  void Step(F&& f, const Scalar& t, const Scalar& /*h*/, Vec* x) {
    f(t, *x, &xdot_);
    *x = xdot_;
  }

 private:
  Vec xdot_;
};

template <class M>
Linearization<M> SplitJacobian(const JacobianOf<M>& J, Eigen::Index n,
                               Eigen::Index m) {
  return Linearization<M>{LeftCols<kNumStatesOf<M>>(J, n),
                          RightCols<kNumInputsOf<M>>(J, m)};
}

}  // namespace internal

// A = df/dx, B = df/du of the model's continuous dynamics at (x0, u0, t).
template <class M, class XD, class UD>
Linearization<M> Linearize(const M& model, const Eigen::MatrixBase<XD>& x0,
                           const Eigen::MatrixBase<UD>& u0, double t = 0,
                           JacobianMethod method = JacobianMethod::kAutoDiff) {
  internal::CheckStateInputSizes("Linearize", model, x0.size(), u0.size());
  internal::CheckTimeStep("Linearize", model, t, 0.0);
  JacobianOf<M> J = JacobianOf<M>::Zero(x0.size(), x0.size() + u0.size());
  DiscreteJacobian<internal::TimeDerivativeRule>(model, x0, u0, t, 0.0, &J,
                                                 method);
  return internal::SplitJacobian<M>(J, x0.size(), u0.size());
}

// Ad = dx'/dx, Bd = dx'/du of DiscreteDynamics<Rule> at (x0, u0, t, dt).
template <template <typename> class Rule, class M, class XD, class UD>
Linearization<M> DiscreteTimeLinearize(
    const M& model, const Eigen::MatrixBase<XD>& x0,
    const Eigen::MatrixBase<UD>& u0, double t, double dt,
    JacobianMethod method = JacobianMethod::kAutoDiff) {
  internal::CheckStateInputSizes("DiscreteTimeLinearize", model, x0.size(),
                                 u0.size());
  internal::CheckTimeStep("DiscreteTimeLinearize", model, t, dt);
  JacobianOf<M> J = JacobianOf<M>::Zero(x0.size(), x0.size() + u0.size());
  DiscreteJacobian<Rule>(model, x0, u0, t, dt, &J, method);
  return internal::SplitJacobian<M>(J, x0.size(), u0.size());
}

}  // namespace tern
