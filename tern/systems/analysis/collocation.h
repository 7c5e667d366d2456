#pragma once
// Implicit rules for discretization with a first-order hold on the input: a
// collocation residual r(x, u, x', u', t, dt) = 0 for direct collocation,
// its Jacobians with respect to both knot points, and a Newton solve that
// returns x' for rollouts.
//
//   ImplicitEuler     r = x + dt f(x', u', t + dt) - x'                 order 1
//   ImplicitMidpoint  r = x + dt f((x + x')/2, (u + u')/2, t + dt/2) - x'
//                                                                      order 2
//   HermiteSimpson    x_m = (x + x')/2 + dt/8 (f - f'), u_m = (u + u')/2,
//                     r = x + dt/6 (f + 4 f(x_m, u_m, t + dt/2) + f') - x'
//                     (Hargraves & Paris 1987; Betts, Practical Methods for
//                     Optimal Control, 2nd ed., sec. 4.5)              order 4
//
// A new implicit rule is a tag template plus a CollocationRule
// specialization giving kName and Residual, and optionally ResidualJacobian:
// the chain rule through the residual given a function that evaluates the
// model's f and continuous Jacobian [df/dx df/du] at a point,
//   eval(x, u, t, &f, &Jc).
// With ResidualJacobian, JacobianMethod::kAnalytic passes the model's
// Jacobian and kAutoDiff passes forward-mode dual numbers of n + m
// directions per evaluation (each of f(z1), f(z2), f(midpoint) depends on at
// most one knot point's n + m variables, or on the midpoint's). Without it,
// kAutoDiff differentiates Residual with 2 (n + m) directions.
#include <Eigen/LU>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "tern/systems/analysis/discrete_jacobian.h"

namespace tern {

// Tags (declared only; tern/integrators may define ImplicitEuler as an
// integrator with the same template signature).
template <typename Vec>
class ImplicitEuler;
template <typename Vec>
class ImplicitMidpoint;
template <typename Vec>
class HermiteSimpson;

template <>
struct RuleTraits<ImplicitEuler> {
  static constexpr RuleKind kKind = RuleKind::kImplicit;
};
template <>
struct RuleTraits<ImplicitMidpoint> {
  static constexpr RuleKind kKind = RuleKind::kImplicit;
};
template <>
struct RuleTraits<HermiteSimpson> {
  static constexpr RuleKind kKind = RuleKind::kImplicit;
};

// The residual of an implicit rule; specialized per rule below.
template <template <typename> class Rule>
struct CollocationRule;

namespace internal {
// I (n x n) added to the state columns of J (n x (n + m)), times `sign`.
template <int kN, class JD>
void AddIdentityToStateColumns(double sign, JD* J) {
  LeftCols<kN>(*J, J->rows()).diagonal().array() += sign;
}
}  // namespace internal

template <>
struct CollocationRule<ImplicitEuler> {
  static constexpr const char* kName = "ImplicitEuler";

  template <class M, class T>
  static void Residual(const M& model, const StateOf<M, T>& x1,
                       const InputOf<M, T>& /*u1*/, const StateOf<M, T>& x2,
                       const InputOf<M, T>& u2, const T& t, const T& dt,
                       StateOf<M, T>* r) {
    StateOf<M, T> f2;
    EvalDynamics(model, x2, u2, T(t + dt), &f2);
    *r = x1 + dt * f2 - x2;
  }

  template <class M, class Eval>
  static void ResidualJacobian(const M& /*model*/,
                               const StateOf<M, double>& /*x1*/,
                               const InputOf<M, double>& /*u1*/,
                               const StateOf<M, double>& x2,
                               const InputOf<M, double>& u2, double t,
                               double dt, JacobianOf<M>* J1, JacobianOf<M>* J2,
                               const Eval& eval) {
    J1->setZero();
    internal::AddIdentityToStateColumns<kNumStatesOf<M>>(1.0, J1);
    auto f2 = internal::SizedVector<StateOf<M, double>>(x2.size());
    eval(x2, u2, t + dt, &f2, J2);
    *J2 *= dt;
    internal::AddIdentityToStateColumns<kNumStatesOf<M>>(-1.0, J2);
  }
};

template <>
struct CollocationRule<ImplicitMidpoint> {
  static constexpr const char* kName = "ImplicitMidpoint";

  template <class M, class T>
  static void Residual(const M& model, const StateOf<M, T>& x1,
                       const InputOf<M, T>& u1, const StateOf<M, T>& x2,
                       const InputOf<M, T>& u2, const T& t, const T& dt,
                       StateOf<M, T>* r) {
    const StateOf<M, T> xm = (x1 + x2) / 2;
    const InputOf<M, T> um = (u1 + u2) / 2;
    StateOf<M, T> fm;
    EvalDynamics(model, xm, um, T(t + dt / 2), &fm);
    *r = x1 + dt * fm - x2;
  }

  template <class M, class Eval>
  static void ResidualJacobian(const M& /*model*/, const StateOf<M, double>& x1,
                               const InputOf<M, double>& u1,
                               const StateOf<M, double>& x2,
                               const InputOf<M, double>& u2, double t,
                               double dt, JacobianOf<M>* J1, JacobianOf<M>* J2,
                               const Eval& eval) {
    const StateOf<M, double> xm = (x1 + x2) / 2;
    const InputOf<M, double> um = (u1 + u2) / 2;
    auto fm = internal::SizedVector<StateOf<M, double>>(x1.size());
    eval(xm, um, t + dt / 2, &fm, J1);
    *J1 *= dt / 2;
    *J2 = *J1;
    internal::AddIdentityToStateColumns<kNumStatesOf<M>>(1.0, J1);
    internal::AddIdentityToStateColumns<kNumStatesOf<M>>(-1.0, J2);
  }
};

template <>
struct CollocationRule<HermiteSimpson> {
  static constexpr const char* kName = "HermiteSimpson";

  template <class M, class T>
  static void Residual(const M& model, const StateOf<M, T>& x1,
                       const InputOf<M, T>& u1, const StateOf<M, T>& x2,
                       const InputOf<M, T>& u2, const T& t, const T& dt,
                       StateOf<M, T>* r) {
    StateOf<M, T> f1, f2, fm;
    EvalDynamics(model, x1, u1, t, &f1);
    EvalDynamics(model, x2, u2, T(t + dt), &f2);
    const StateOf<M, T> xm = (x1 + x2) / 2 + (dt / 8) * (f1 - f2);
    const InputOf<M, T> um = (u1 + u2) / 2;
    EvalDynamics(model, xm, um, T(t + dt / 2), &fm);
    *r = x1 + (dt / 6) * (f1 + 4 * fm + f2) - x2;
  }

  template <class M, class Eval>
  static void ResidualJacobian(const M& /*model*/, const StateOf<M, double>& x1,
                               const InputOf<M, double>& u1,
                               const StateOf<M, double>& x2,
                               const InputOf<M, double>& u2, double t,
                               double dt, JacobianOf<M>* J1, JacobianOf<M>* J2,
                               const Eval& eval) {
    constexpr int kN = kNumStatesOf<M>;
    constexpr int kM = kNumInputsOf<M>;
    const Eigen::Index n = x1.size();
    const Eigen::Index m = u1.size();
    auto f1 = internal::SizedVector<StateOf<M, double>>(n);
    auto f2 = internal::SizedVector<StateOf<M, double>>(n);
    auto fm = internal::SizedVector<StateOf<M, double>>(n);
    JacobianOf<M> Jc1(n, n + m), Jc2(n, n + m), Jm(n, n + m);
    eval(x1, u1, t, &f1, &Jc1);
    eval(x2, u2, t + dt, &f2, &Jc2);
    const StateOf<M, double> xm = (x1 + x2) / 2 + (dt / 8) * (f1 - f2);
    const InputOf<M, double> um = (u1 + u2) / 2;
    eval(xm, um, t + dt / 2, &fm, &Jm);
    // dxm/dz1 = [I/2 0] + dt/8 Jc1, dxm/dz2 = [I/2 0] - dt/8 Jc2.
    internal::RowMajorJacobianOf<M> dxm(n, n + m), dfm(n, n + m);
    for (int knot = 0; knot < 2; ++knot) {
      const JacobianOf<M>& Jc = knot == 0 ? Jc1 : Jc2;
      JacobianOf<M>* J = knot == 0 ? J1 : J2;
      dxm = (knot == 0 ? dt / 8 : -dt / 8) * Jc;
      internal::AddIdentityToStateColumns<kN>(0.5, &dxm);
      // dfm/dz = Jm_x dxm/dz + [0 Jm_u / 2].
      internal::ChainRowsSkippingZeros(Jm, dxm, &dfm);
      internal::RightCols<kM>(dfm, m) += 0.5 * internal::RightCols<kM>(Jm, m);
      *J = (dt / 6) * (4 * dfm + Jc);
      internal::AddIdentityToStateColumns<kN>(knot == 0 ? 1.0 : -1.0, J);
    }
  }
};

// Settings of the Newton solve for x' in implicit rollouts.
struct ImplicitSolverOptions {
  double tolerance{1e-12};  // on max |r_i| and max |dx'_i|, relative to
                            // 1 + max |x'_i|; finite and >= 0
  int max_iterations{20};   // >= 1
  JacobianMethod method{JacobianMethod::kAutoDiff};  // for dr/dx'
};

namespace internal {

// Throws std::invalid_argument naming `caller`, the option and its value if
// an ImplicitSolverOptions entry is out of range.
void CheckSolverOptions(const char* caller,
                        const ImplicitSolverOptions& options);

[[noreturn]] void ThrowImplicitSolveFailure(const char* rule_name,
                                            const std::string& model_name,
                                            double t, double dt, int iterations,
                                            double residual_norm,
                                            Eigen::Index worst_component);

template <class M>
void CheckKnotSizes(const char* caller, const M& model, Eigen::Index nx1,
                    Eigen::Index nu1, Eigen::Index nx2, Eigen::Index nu2) {
  CheckStateInputSizes(caller, model, nx1, nu1);
  if (nx2 != NumStates(model)) {
    ThrowSizeMismatch(caller, ModelName(model), "x_next", nx2,
                      NumStates(model));
  }
  if (nu2 != NumInputs(model)) {
    ThrowSizeMismatch(caller, ModelName(model), "u_next", nu2,
                      NumInputs(model));
  }
}

template <template <typename> class Rule, class M>
void CollocationJacobianImpl(const M& model, const StateOf<M, double>& x1,
                             const InputOf<M, double>& u1,
                             const StateOf<M, double>& x2,
                             const InputOf<M, double>& u2, double t, double dt,
                             JacobianOf<M>* J1, JacobianOf<M>* J2,
                             JacobianMethod method) {
  using R = CollocationRule<Rule>;
  constexpr int kNZ = kNumKnotOf<M>;
  const Eigen::Index n = x1.size();
  const Eigen::Index m = u1.size();
  const Eigen::Index nz = n + m;
  J1->resize(n, nz);
  J2->resize(n, nz);
  // Evaluators of f and [df/dx df/du] for R::ResidualJacobian (generic
  // lambdas, so that a model without a Jacobian still compiles).
  const auto eval_autodiff = [&model](const auto& x, const auto& u, double tt,
                                      auto* f, auto* Jc) {
    ContinuousJacobianAutoDiff(model, x, u, tt, f, Jc);
  };
  const auto eval_analytic = [&model](const auto& x, const auto& u, double tt,
                                      auto* f, auto* Jc) {
    ContinuousJacobianAnalytic(model, x, u, tt, f, Jc);
  };
  constexpr bool kRuleHasJacobian = requires(JacobianOf<M> * J) {
    R::ResidualJacobian(model, x1, u1, x2, u2, t, dt, J, J, eval_analytic);
  };
  switch (method) {
    case JacobianMethod::kAutoDiff: {
      constexpr int kW = kNZ == Eigen::Dynamic ? Eigen::Dynamic : 2 * kNZ;
      using AD = AutoDiffFor<kW>;
      if constexpr (!DynamicsAcceptsScalar<M, AD> ||
                    !DynamicsAcceptsScalar<M, AutoDiffFor<kNZ>>) {
        ThrowJacobianMethodUnavailable(
            R::kName, method, ModelName(model),
            "its Dynamics is not a template over the scalar type");
      } else if constexpr (kRuleHasJacobian) {
        R::ResidualJacobian(model, x1, u1, x2, u2, t, dt, J1, J2,
                            eval_autodiff);
      } else {
        auto x1a = SizedVector<StateOf<M, AD>>(n);
        auto x2a = SizedVector<StateOf<M, AD>>(n);
        auto u1a = SizedVector<InputOf<M, AD>>(m);
        auto u2a = SizedVector<InputOf<M, AD>>(m);
        SeedAutoDiff<AD>(x1, 2 * nz, 0, &x1a);
        SeedAutoDiff<AD>(u1, 2 * nz, n, &u1a);
        SeedAutoDiff<AD>(x2, 2 * nz, nz, &x2a);
        SeedAutoDiff<AD>(u2, 2 * nz, nz + n, &u2a);
        auto r = SizedVector<StateOf<M, AD>>(n);
        R::Residual(model, x1a, u1a, x2a, u2a, AD(t), AD(dt), &r);
        for (Eigen::Index i = 0; i < n; ++i) {
          if (r(i).derivatives().size() >= 2 * nz) {
            J1->row(i) = r(i).derivatives().head(nz).transpose();
            J2->row(i) = r(i).derivatives().segment(nz, nz).transpose();
          } else {
            J1->row(i).setZero();
            J2->row(i).setZero();
          }
        }
      }
      return;
    }
    case JacobianMethod::kCentralDifference: {
      const double rel_step = std::cbrt(std::numeric_limits<double>::epsilon());
      StateOf<M, double> xa1 = x1, xa2 = x2;
      InputOf<M, double> ua1 = u1, ua2 = u2;
      auto rp = SizedVector<StateOf<M, double>>(n);
      auto rm = SizedVector<StateOf<M, double>>(n);
      for (Eigen::Index j = 0; j < 2 * nz; ++j) {
        const bool second = j >= nz;
        const Eigen::Index k = second ? j - nz : j;
        double& v = k < n ? (second ? xa2(k) : xa1(k))
                          : (second ? ua2(k - n) : ua1(k - n));
        const double v0 = v;
        const double h = rel_step * std::max(1.0, std::abs(v0));
        v = v0 + h;
        const double vp = v;
        R::Residual(model, xa1, ua1, xa2, ua2, t, dt, &rp);
        v = v0 - h;
        const double vm = v;
        R::Residual(model, xa1, ua1, xa2, ua2, t, dt, &rm);
        v = v0;
        (second ? J2 : J1)->col(k) = (rp - rm) / (vp - vm);
      }
      return;
    }
    case JacobianMethod::kAnalytic:
      if constexpr (HasAnalyticJacobian<M> && kRuleHasJacobian) {
        R::ResidualJacobian(model, x1, u1, x2, u2, t, dt, J1, J2,
                            eval_analytic);
      } else {
        ThrowJacobianMethodUnavailable(
            R::kName, method, ModelName(model),
            "it has no Jacobian(x, u, t, &J) member (or the rule has no "
            "analytic residual Jacobian)");
      }
      return;
  }
}

}  // namespace internal

// r (n) = residual of implicit rule Rule between knot points (x1, u1) at t
// and (x2, u2) at t + dt; zero on the discrete trajectory.
template <template <typename> class Rule, class M, class X1, class U1, class X2,
          class U2>
StateOf<M, typename X1::Scalar> CollocationResidual(
    const M& model, const Eigen::MatrixBase<X1>& x1,
    const Eigen::MatrixBase<U1>& u1, const Eigen::MatrixBase<X2>& x2,
    const Eigen::MatrixBase<U2>& u2,
    const std::type_identity_t<typename X1::Scalar>& t,
    const std::type_identity_t<typename X1::Scalar>& dt) {
  using T = typename X1::Scalar;
  internal::CheckKnotSizes("CollocationResidual", model, x1.size(), u1.size(),
                           x2.size(), u2.size());
  internal::CheckTimeStep("CollocationResidual", model, ExtractDoubleOrThrow(t),
                          ExtractDoubleOrThrow(dt));
  auto r = internal::SizedVector<StateOf<M, T>>(x1.size());
  CollocationRule<Rule>::Residual(
      model, StateOf<M, T>(x1), InputOf<M, T>(u1.template cast<T>()),
      StateOf<M, T>(x2.template cast<T>()),
      InputOf<M, T>(u2.template cast<T>()), t, dt, &r);
  return r;
}

// Residual between knot points z1 and z2, at z1.t() with step z1.dt().
template <template <typename> class Rule, class M, int Nx, int Nu, typename T>
StateOf<M, T> CollocationResidual(const M& model,
                                  const KnotPoint<Nx, Nu, T>& z1,
                                  const KnotPoint<Nx, Nu, T>& z2) {
  return CollocationResidual<Rule>(model, z1.x(), z1.u(), z2.x(), z2.u(),
                                   z1.t(), z1.dt());
}

// J1 = dr/dz1, J2 = dr/dz2 (each n x (n + m)) of the residual of implicit
// rule Rule (the Jacobians of an implicit rule with respect to both knot
// points).
template <template <typename> class Rule, class M, int Nx, int Nu>
void DiscreteJacobian(const M& model, const KnotPoint<Nx, Nu, double>& z1,
                      const KnotPoint<Nx, Nu, double>& z2, JacobianOf<M>* J1,
                      JacobianOf<M>* J2,
                      JacobianMethod method = JacobianMethod::kAutoDiff) {
  static_assert(RuleTraits<Rule>::kKind == RuleKind::kImplicit,
                "the two-knot DiscreteJacobian is for implicit rules");
  internal::CheckKnotSizes("DiscreteJacobian", model, z1.x().size(),
                           z1.u().size(), z2.x().size(), z2.u().size());
  internal::CheckTimeStep("DiscreteJacobian", model, z1.t(), z1.dt());
  internal::CollocationJacobianImpl<Rule>(
      model, StateOf<M, double>(z1.x()), InputOf<M, double>(z1.u()),
      StateOf<M, double>(z2.x()), InputOf<M, double>(z2.u()), z1.t(), z1.dt(),
      J1, J2, method);
}

// Same, from vectors.
template <template <typename> class Rule, class M, class X1, class U1, class X2,
          class U2>
void CollocationJacobian(const M& model, const Eigen::MatrixBase<X1>& x1,
                         const Eigen::MatrixBase<U1>& u1,
                         const Eigen::MatrixBase<X2>& x2,
                         const Eigen::MatrixBase<U2>& u2, double t, double dt,
                         JacobianOf<M>* J1, JacobianOf<M>* J2,
                         JacobianMethod method = JacobianMethod::kAutoDiff) {
  internal::CheckKnotSizes("CollocationJacobian", model, x1.size(), u1.size(),
                           x2.size(), u2.size());
  internal::CheckTimeStep("CollocationJacobian", model, t, dt);
  internal::CollocationJacobianImpl<Rule>(
      model, StateOf<M, double>(x1), InputOf<M, double>(u1),
      StateOf<M, double>(x2), InputOf<M, double>(u2), t, dt, J1, J2, method);
}

// x' (n) of implicit rule Rule from x (n), with the input u (m) at t and
// u_next (m) at t + dt (first-order hold), by Newton's method on r(x') = 0
// started from x' = x. Throws std::runtime_error naming the rule, model, t
// and dt if Newton does not converge.
template <template <typename> class Rule, class M, class XD, class UD,
          class UD2>
StateOf<M, double> DiscreteDynamics(const M& model,
                                    const Eigen::MatrixBase<XD>& x,
                                    const Eigen::MatrixBase<UD>& u,
                                    const Eigen::MatrixBase<UD2>& u_next,
                                    double t, double dt,
                                    const ImplicitSolverOptions& options = {}) {
  static_assert(RuleTraits<Rule>::kKind == RuleKind::kImplicit,
                "DiscreteDynamics with u_next is for implicit rules");
  using R = CollocationRule<Rule>;
  constexpr int kN = kNumStatesOf<M>;
  internal::CheckKnotSizes(R::kName, model, x.size(), u.size(), x.size(),
                           u_next.size());
  internal::CheckTimeStep(R::kName, model, t, dt);
  internal::CheckSolverOptions(R::kName, options);
  const Eigen::Index n = x.size();
  const StateOf<M, double> x1 = x;
  const InputOf<M, double> u1 = u;
  const InputOf<M, double> u2 = u_next;
  // Start from the last solution, not from an explicit Euler step: on a
  // stiff model dt f(x) overshoots by dt |lambda| >> 1 and Newton may not
  // find its way back (issue 12, item 7; HW II, IV.8).
  StateOf<M, double> x2 = x1;
  auto r = internal::SizedVector<StateOf<M, double>>(n);
  JacobianOf<M> J1(n, n + u1.size()), J2(n, n + u1.size());
  Eigen::Matrix<double, kN, kN> dr_dx2(n, n);
  Eigen::PartialPivLU<Eigen::Matrix<double, kN, kN>> lu(n);
  double r_norm = 0;
  int iteration = 0;
  for (; iteration < options.max_iterations; ++iteration) {
    R::Residual(model, x1, u1, x2, u2, t, dt, &r);
    const double scale = 1 + x2.cwiseAbs().maxCoeff();
    r_norm = r.cwiseAbs().maxCoeff();
    if (!std::isfinite(r_norm)) break;
    if (r_norm <= options.tolerance * scale) return x2;
    internal::CollocationJacobianImpl<Rule>(model, x1, u1, x2, u2, t, dt, &J1,
                                            &J2, options.method);
    dr_dx2 = internal::LeftCols<kN>(J2, n);
    lu.compute(dr_dx2);
    const StateOf<M, double> dx = lu.solve(r);
    if (!dx.allFinite()) break;
    x2 -= dx;
    if (dx.cwiseAbs().maxCoeff() <= options.tolerance * scale) {
      R::Residual(model, x1, u1, x2, u2, t, dt, &r);
      return x2;
    }
  }
  Eigen::Index worst = 0;
  r.cwiseAbs().maxCoeff(&worst);
  internal::ThrowImplicitSolveFailure(R::kName, ModelName(model), t, dt,
                                      iteration, r_norm, worst);
}

// x' from knot points: x, u from z, u_next from z_next, t and dt from z.
template <template <typename> class Rule, class M, int Nx, int Nu>
StateOf<M, double> DiscreteDynamics(const M& model,
                                    const KnotPoint<Nx, Nu, double>& z,
                                    const KnotPoint<Nx, Nu, double>& z_next,
                                    const ImplicitSolverOptions& options = {}) {
  return DiscreteDynamics<Rule>(model, z.x(), z.u(), z_next.u(), z.t(), z.dt(),
                                options);
}

}  // namespace tern
