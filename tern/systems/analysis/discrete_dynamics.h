#pragma once
// Discrete dynamics x' = f_d(x, u, t, dt) of a continuous model (model.h),
// by one step of an integration rule with the input held (zero-order hold).
//
//   x_next = DiscreteDynamics<RK4>(model, x, u, t, dt);
//   x_next = DiscreteDynamics<RK4>(model, knot_point);
//
// Rule is a class template over the state vector type. Explicit rules are the
// integrator classes of tern/integrators (ExplicitEuler, RK2, RK3, RK4) or
// any user type with the same shape: `Step(f, t, h, &x)` calling
// `f(t, x, &xdot)` (DESIGN.md "one rule, two drivers": the arithmetic lives
// in the rule, not here). Special rules:
//   Exponential  exact zero-order-hold discretization of a LinearModel,
//                x' = e^{A dt} x + (int_0^dt e^{A s} ds) B u.
//   PassThrough  the model gives its own discrete map, model.DiscreteDynamics.
// Implicit rules (ImplicitEuler, ImplicitMidpoint, HermiteSimpson) hold the
// input first-order and live in collocation.h.
//
// For fixed-size models and a fixed-size rule nothing is allocated.
#include <type_traits>
#include <utility>

#include "tern/common/autodiff.h"
#include "tern/common/compiler.h"
#include "tern/common/eigen_types.h"
#include "tern/integrators/discretize_zero_order_hold.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/knot_point.h"
#include "tern/systems/analysis/model.h"

namespace tern {

// Tags (declared only: they select a code path and are never instantiated).
// Exponential and ImplicitEuler may be given definitions as integrators by
// tern/integrators; the declarations here are compatible with that.
template <typename Vec>
class Exponential;
template <typename Vec>
class PassThrough;

enum class RuleKind { kExplicit, kExponential, kPassThrough, kImplicit };

// What kind of rule a rule template is. Explicit unless specialized.
template <template <typename> class Rule>
struct RuleTraits {
  static constexpr RuleKind kKind = RuleKind::kExplicit;
};
template <>
struct RuleTraits<Exponential> {
  static constexpr RuleKind kKind = RuleKind::kExponential;
  static constexpr const char* kName = "Exponential";
};
template <>
struct RuleTraits<PassThrough> {
  static constexpr RuleKind kKind = RuleKind::kPassThrough;
  static constexpr const char* kName = "PassThrough";
};

namespace internal {

// DiscreteDynamics with t and dt of scalar S: the state's scalar, or double
// when nothing is differentiated with respect to them (DiscreteJacobian's
// forward mode), so that the rule scales dual numbers by plain doubles.
template <template <typename> class Rule, class M, class XD, class UD,
          typename S>
TERN_FLATTEN StateOf<M, typename XD::Scalar> DiscreteDynamicsAt(
    const M& model, const Eigen::MatrixBase<XD>& x,
    const Eigen::MatrixBase<UD>& u, const S& t, const S& dt) {
  using T = typename XD::Scalar;
  using Vec = StateOf<M, T>;
  constexpr RuleKind kKind = RuleTraits<Rule>::kKind;
  static_assert(kKind != RuleKind::kImplicit,
                "implicit rules hold the input first-order: call "
                "DiscreteDynamics<Rule>(model, x, u, u_next, t, dt) from "
                "tern/systems/analysis/collocation.h");
  internal::CheckStateInputSizes("DiscreteDynamics", model, x.size(), u.size());
  internal::CheckTimeStep("DiscreteDynamics", model, ExtractDoubleOrThrow(t),
                          ExtractDoubleOrThrow(dt));
  const InputOf<M, T> uu = u.template cast<T>();
  if constexpr (kKind == RuleKind::kPassThrough) {
    const Vec xx = x;
    return model.DiscreteDynamics(xx, uu, T(t), T(dt));
  } else if constexpr (kKind == RuleKind::kExponential) {
    static_assert(LinearModel<M>,
                  "the Exponential rule needs a LinearModel (A(), B())");
    Eigen::MatrixXd Ad, Bd;
    DiscretizeZeroOrderHold(model.A(), model.B(), ExtractDoubleOrThrow(dt), &Ad,
                            &Bd);
    return Ad.template cast<T>() * x + Bd.template cast<T>() * uu;
  } else {
    Vec xn = x;
    auto rule = internal::MakeRule<Rule, Vec>(xn.size());
    // Zero-order hold: u is fixed over the step. A user rule may hand the
    // time back as the state's scalar even when S is double.
    auto f = [&model, &uu](const auto& tt, const Vec& xx, Vec* xdot) {
      EvalDynamics(model, xx, uu, T(tt), xdot);
    };
    rule.Step(f, t, dt, &xn);
    return xn;
  }
}

}  // namespace internal

// x' (n) from x (n), u (m) held constant over [t, t + dt]. The scalar of x
// decides the scalar of the computation (double, AutoDiffN, AutoDiffXd); u
// is converted to it. Throws std::invalid_argument if x or u has the wrong
// size.
template <template <typename> class Rule, class M, class XD, class UD>
StateOf<M, typename XD::Scalar> DiscreteDynamics(
    const M& model, const Eigen::MatrixBase<XD>& x,
    const Eigen::MatrixBase<UD>& u,
    const std::type_identity_t<typename XD::Scalar>& t,
    const std::type_identity_t<typename XD::Scalar>& dt) {
  return internal::DiscreteDynamicsAt<Rule>(model, x, u, t, dt);
}

// x' from a knot point z = [x; u] with its t and dt.
template <template <typename> class Rule, class M, int Nx, int Nu, typename T>
StateOf<M, T> DiscreteDynamics(const M& model, const KnotPoint<Nx, Nu, T>& z) {
  return DiscreteDynamics<Rule>(model, z.x(), z.u(), z.t(), z.dt());
}

}  // namespace tern
