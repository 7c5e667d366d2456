// Tern's runs of the integrators benchmark (see tern_runs.h).
#include "tern_runs.h"

#include <stdexcept>

#include "problems.h"
#include "tern/integrators/embedded_rules.h"
#include "tern/integrators/error_control.h"
#include "tern/integrators/implicit_rules.h"
#include "tern/integrators/rodas4.h"

namespace tern_bench {
namespace {

// Problem P as Tern's callable: rhs on Eigen vectors (counted), analytic
// Jacobian, autonomous.
template <typename P>
struct TernRhs {
  static constexpr bool kAutonomous = true;
  long* rhs;
  long* jac;
  template <typename S, typename V>
  void operator()(const S& t, const V& y, V* yd) const {
    ++*rhs;
    P::Rhs(t, y, *yd);
  }
  template <typename V, typename M>
  void Jacobian(const double&, const V& y, M* J) const {
    ++*jac;
    P::Jac(y, *J);
  }
};

template <typename P>
using TVec = Eigen::Matrix<double, P::N, 1>;

template <typename P>
TVec<P> Start() {
  TVec<P> v;
  const auto y0 = P::Y0();
  for (int i = 0; i < P::N; ++i) v(i) = y0[i];
  return v;
}

template <typename P>
std::array<double, P::N> ToArray(const TVec<P>& v) {
  std::array<double, P::N> a;
  for (int i = 0; i < P::N; ++i) a[i] = v(i);
  return a;
}

template <typename P, template <typename> class Rule>
std::array<double, P::N> Explicit(double rtol, double atol, TernCounts* c) {
  tern::AdaptiveStepper<Rule, TVec<P>> stepper;
  stepper.mutable_settings().rtol = rtol;
  stepper.mutable_settings().atol = atol;
  stepper.mutable_settings().dense_output = false;
  TVec<P> y = Start<P>();
  stepper.Integrate(TernRhs<P>{&c->rhs, &c->jac}, P::kT0, P::kTf, &y);
  c->steps = stepper.statistics().steps;
  return ToArray<P>(y);
}

template <typename P, template <typename> class Rule>
std::array<double, P::N> Implicit(double rtol, double atol, TernCounts* c) {
  Rule<TVec<P>> rule;
  rule.mutable_settings().rtol = rtol;
  rule.mutable_settings().atol = atol;
  TVec<P> y = Start<P>();
  double t = P::kT0;
  const TernRhs<P> f{&c->rhs, &c->jac};
  while (t < P::kTf) t = rule.StepAdaptive(f, t, P::kTf, &y);
  c->steps = rule.statistics().steps;
  c->jac = rule.statistics().jacobian_evaluations;
  c->lu = rule.statistics().lu_factorizations;
  return ToArray<P>(y);
}

}  // namespace

template <typename P>
std::array<double, P::N> TernSolve(TernRule rule, double rtol, double atol,
                                   TernCounts* counts) {
  *counts = TernCounts{};
  if constexpr (!P::kStiff) {
    switch (rule) {
      case TernRule::kBs3:
        return Explicit<P, tern::BogackiShampine3>(rtol, atol, counts);
      case TernRule::kDopri5:
        return Explicit<P, tern::DormandPrince5>(rtol, atol, counts);
      case TernRule::kDop853:
        return Explicit<P, tern::DormandPrince853>(rtol, atol, counts);
      default:
        break;
    }
  } else {
    switch (rule) {
      case TernRule::kRadau5:
        return Implicit<P, tern::RadauIIA5>(rtol, atol, counts);
      case TernRule::kKapsRentrop4:
        return Implicit<P, tern::KapsRentrop4>(rtol, atol, counts);
      case TernRule::kRodas4:
        return Implicit<P, tern::Rodas4>(rtol, atol, counts);
      default:
        break;
    }
  }
  throw std::invalid_argument("TernSolve: rule not run on this problem");
}

template std::array<double, Arenstorf::N> TernSolve<Arenstorf>(TernRule, double,
                                                               double,
                                                               TernCounts*);
template std::array<double, VanDerPol::N> TernSolve<VanDerPol>(TernRule, double,
                                                               double,
                                                               TernCounts*);
template std::array<double, Robertson::N> TernSolve<Robertson>(TernRule, double,
                                                               double,
                                                               TernCounts*);

}  // namespace tern_bench
