#include "tern/integrators/implicit_rules.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tern/integrators/embedded_rules.h"
#include "tern/integrators/exponential.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using Vec1 = Eigen::Matrix<double, 1, 1>;
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

// Logistic x' = 3 x (1 - x), x(t) = 1 / (1 + 9 e^{-3t}) from x0 = 0.1;
// generic in the scalar so the autodiff Jacobian applies.
struct Logistic {
  template <typename S, typename V>
  void operator()(const S&, const V& x, V* xd) const {
    (*xd)(0) = 3 * x(0) * (1 - x(0));
  }
  static double Exact(double t) { return 1 / (1 + 9 * std::exp(-3 * t)); }
};

template <template <typename> class Rule>
double FixedError(int n, double tf) {
  Rule<Vec1> rule;
  rule.mutable_settings().rtol = 1e-13;
  rule.mutable_settings().atol = 1e-13;
  rule.mutable_settings().max_newton_iterations = 20;
  Vec1 x(0.1);
  const double h = tf / n;
  for (int k = 0; k < n; ++k) rule.Step(Logistic{}, k * h, h, &x);
  return std::abs(x(0) - Logistic::Exact(tf));
}

template <template <typename> class Rule>
double ObservedOrder(int n) {
  return std::log2(FixedError<Rule>(n, 2.0) / FixedError<Rule>(2 * n, 2.0));
}

TEST(ImplicitRulesTest, ObservedOrders) {
  EXPECT_NEAR(ObservedOrder<ImplicitEuler>(200), 1.0, 0.2);
  EXPECT_NEAR(ObservedOrder<ImplicitTrapezoid>(100), 2.0, 0.2);
  EXPECT_NEAR(ObservedOrder<KapsRentrop4>(40), 4.0, 0.2);
  EXPECT_NEAR(ObservedOrder<RadauIIA5>(10), 5.0, 0.2);
  EXPECT_NEAR(ObservedOrder<Exponential>(100), 2.0, 0.2);
}

TEST(ImplicitRulesTest, RadauCoefficientsMatchHairerWanner) {
  const auto& k = RadauIIA5Coefficients::Get();
  // Real eigenvalue of A^-1 and the complex pair (HW II, IV.8).
  EXPECT_NEAR(k.gamma, 3.637834252744496, 1e-12);
  EXPECT_NEAR(k.alpha, 2.681082873627752, 1e-12);
  EXPECT_NEAR(std::abs(k.beta), 3.050430199247411, 1e-12);
  // RADAU5's error weights dd_i = gamma e_i.
  const double s6 = std::sqrt(6.0);
  EXPECT_NEAR(k.gamma * k.e[0], -(13 + 7 * s6) / 3, 1e-10);
  EXPECT_NEAR(k.gamma * k.e[1], (-13 + 7 * s6) / 3, 1e-10);
  EXPECT_NEAR(k.gamma * k.e[2], -1.0 / 3, 1e-10);
}

// Van der Pol, mu = 1000: x'' = mu (1 - x^2) x' - x, on [0, 3000]
// (about one and a half relaxation periods).
struct VanDerPol {
  double mu = 1000;
  template <typename S, typename V>
  void operator()(const S&, const V& x, V* xd) const {
    (*xd)(0) = x(1);
    (*xd)(1) = mu * (1 - x(0) * x(0)) * x(1) - x(0);
  }
};

// Robertson's chemical kinetics (HW II, IV.1).
struct Robertson {
  template <typename S, typename V>
  void operator()(const S&, const V& y, V* yd) const {
    (*yd)(0) = -0.04 * y(0) + 1e4 * y(1) * y(2);
    (*yd)(1) = 0.04 * y(0) - 1e4 * y(1) * y(2) - 3e7 * y(1) * y(1);
    (*yd)(2) = 3e7 * y(1) * y(1);
  }
};

template <typename Stepper, typename F, typename V>
void IntegrateAdaptive(Stepper* s, const F& f, double t0, double tf, V* x) {
  double t = t0;
  while (t < tf) t = s->StepAdaptive(f, t, tf, x);
}

TEST(ImplicitRulesTest, VanDerPolStiffRadauFarCheaperThanDopri5) {
  const double tf = 3000;
  // Reference: Radau at a much tighter tolerance.
  RadauIIA5<Vec2> ref;
  ref.mutable_settings().rtol = 1e-11;
  ref.mutable_settings().atol = 1e-11;
  Vec2 xr(2.0, 0.0);
  IntegrateAdaptive(&ref, VanDerPol{}, 0.0, tf, &xr);

  RadauIIA5<Vec2> radau;
  radau.mutable_settings().rtol = 1e-6;
  radau.mutable_settings().atol = 1e-6;
  Vec2 x(2.0, 0.0);
  IntegrateAdaptive(&radau, VanDerPol{}, 0.0, tf, &x);
  EXPECT_LT(std::abs(x(0) - xr(0)), 1e-4) << x(0) << " vs " << xr(0);
  const auto& st = radau.statistics();
  EXPECT_LT(st.steps, 3000);
  EXPECT_GT(st.jacobian_evaluations, 0);
  EXPECT_LT(st.jacobian_evaluations, st.steps);   // Jacobian reuse
  EXPECT_LT(st.lu_factorizations, 2 * st.steps);  // LU reuse

  // dopri5 on the first 1 % of the interval already needs far more steps
  // than Radau on all of it (its step is bounded by stability, ~2.8/1000).
  AdaptiveStepper<DormandPrince5, Vec2> dopri;
  dopri.mutable_settings().rtol = 1e-6;
  dopri.mutable_settings().atol = 1e-6;
  dopri.mutable_settings().dense_output = false;
  Vec2 xd(2.0, 0.0);
  dopri.Integrate(VanDerPol{}, 0.0, 30.0, &xd);
  EXPECT_GT(dopri.statistics().steps, 10 * st.steps);
}

TEST(ImplicitRulesTest, RobertsonRadauAccurateAndCheap) {
  const double tf = 40;
  RadauIIA5<Vec3> ref;
  ref.mutable_settings().rtol = 1e-12;
  ref.mutable_settings().atol = 1e-16;
  Vec3 yr(1, 0, 0);
  IntegrateAdaptive(&ref, Robertson{}, 0.0, tf, &yr);
  // Reference values at t = 40 (HW II, IV.10; IVP test set).
  EXPECT_NEAR(yr(0), 0.7158270687193687, 1e-9);
  EXPECT_NEAR(yr(1), 9.185534764557338e-06, 1e-13);

  RadauIIA5<Vec3> radau;
  radau.mutable_settings().rtol = 1e-6;
  radau.mutable_settings().atol_per_component = Vec3(1e-6, 1e-10, 1e-6);
  Vec3 y(1, 0, 0);
  IntegrateAdaptive(&radau, Robertson{}, 0.0, tf, &y);
  EXPECT_NEAR(y(0), yr(0), 1e-5);
  EXPECT_NEAR(y(1), yr(1), 1e-9);
  EXPECT_NEAR(y.sum(), 1.0, 1e-9);
  EXPECT_LT(radau.statistics().steps, 200);

  KapsRentrop4<Vec3> kr;
  kr.mutable_settings().rtol = 1e-6;
  kr.mutable_settings().atol_per_component = Vec3(1e-6, 1e-10, 1e-6);
  Vec3 yk(1, 0, 0);
  IntegrateAdaptive(&kr, Robertson{}, 0.0, tf, &yk);
  EXPECT_NEAR(yk(0), yr(0), 1e-4);
  EXPECT_LT(kr.statistics().steps, 1000);

  AdaptiveStepper<DormandPrince5, Vec3> dopri;
  dopri.mutable_settings().rtol = 1e-6;
  dopri.mutable_settings().atol_per_component = Vec3(1e-6, 1e-10, 1e-6);
  dopri.mutable_settings().dense_output = false;
  Vec3 yd(1, 0, 0);
  dopri.Integrate(Robertson{}, 0.0, 1.0, &yd);  // 1/40 of the interval
  EXPECT_GT(dopri.statistics().steps, 10 * radau.statistics().steps);
}

// Van der Pol in Hairer's scaled form, y1' = y2, y2' = ((1 - y1^2) y2 - y1)
// / eps, eps = 1e-12, from (2, 0): an initial layer of width ~1e-12 that
// implicit Euler at rtol 1e-6 resolves only with steps of ~1e-16, and a
// relaxation jump at t ~ 0.81. An absolute minimum step of 1e-14 failed at
// t = 0 at every tolerance (issue 12, item 7); the minimum step is now
// relative to t (MinStep).
struct StiffVanDerPol {
  template <typename S, typename V>
  void operator()(const S&, const V& y, V* yd) const {
    (*yd)(0) = y(1);
    (*yd)(1) = ((1 - y(0) * y(0)) * y(1) - y(0)) / 1e-12;
  }
};

TEST(ImplicitRulesTest, FastInitialLayerNeedsNoAbsoluteMinimumStep) {
  RadauIIA5<Vec2> ref;
  ref.mutable_settings().rtol = 1e-10;
  ref.mutable_settings().atol = 1e-10;
  Vec2 y_half(2, 0), y_two;
  IntegrateAdaptive(&ref, StiffVanDerPol{}, 0.0, 0.5, &y_half);
  y_two = y_half;
  IntegrateAdaptive(&ref, StiffVanDerPol{}, 0.5, 2.0, &y_two);
  // Across the jump at t ~ 0.81 (first order: steps of ~1e-14 there at
  // rtol 1e-4).
  for (double tol : {1e-2, 1e-3, 1e-4}) {
    ImplicitEuler<Vec2> ie;
    ie.mutable_settings().rtol = tol;
    ie.mutable_settings().atol = tol;
    Vec2 y(2, 0);
    EXPECT_NO_THROW(IntegrateAdaptive(&ie, StiffVanDerPol{}, 0.0, 2.0, &y))
        << tol;
    EXPECT_NEAR(y(0), y_two(0), 3e3 * tol) << tol;
  }
  // Through the initial layer at tight tolerances.
  for (double tol : {1e-6, 1e-8}) {
    ImplicitEuler<Vec2> ie;
    ie.mutable_settings().rtol = tol;
    ie.mutable_settings().atol = tol;
    Vec2 y(2, 0);
    EXPECT_NO_THROW(IntegrateAdaptive(&ie, StiffVanDerPol{}, 0.0, 0.5, &y))
        << tol;
    // First order: the global error is thousands of times tol here
    // (4e-5 at tol 1e-8; docs/integrators.md, "Accuracy").
    EXPECT_NEAR(y(0), y_half(0), 1e-3) << tol;
  }
  KapsRentrop4<Vec2> kr;
  kr.mutable_settings().rtol = 1e-8;
  kr.mutable_settings().atol = 1e-8;
  Vec2 y(2, 0);
  EXPECT_NO_THROW(IntegrateAdaptive(&kr, StiffVanDerPol{}, 0.0, 0.5, &y));
  EXPECT_NEAR(y(0), y_half(0), 1e-6);
}

// A step below the resolution of t still fails (it would not move t): the
// floor is 16 eps |t|, so at t = 1e6 a required step of ~1e-12 fails.
TEST(ImplicitRulesTest, MinimumStepIsRelativeToTime) {
  IntegratorSettings s;
  const double eps = std::numeric_limits<double>::epsilon();
  EXPECT_DOUBLE_EQ(MinStep(s, 1e6, 2e6), 16 * eps * 1e6);
  EXPECT_DOUBLE_EQ(MinStep(s, -4.0, 0.0), 16 * eps * 4);
  EXPECT_GT(MinStep(s, 0.0, 1.0), 0.0);
  EXPECT_LT(MinStep(s, 0.0, 1.0), 1e-30);
  s.min_step = 1e-3;
  EXPECT_DOUBLE_EQ(MinStep(s, 1.0, 2.0), 1e-3);
}

// Robertson to t = 1e11 (HW II, IV.10) at rtol = atol = 1e-4: Newton for
// implicit Euler started from the explicit Euler predictor x0 + h f0
// diverged on nearly every large step (1.67 million rejections); started
// from the last solution it converges.
TEST(ImplicitRulesTest, ThetaMethodsStartNewtonFromLastSolution) {
  ImplicitEuler<Vec3> ie;
  ie.mutable_settings().rtol = 1e-4;
  ie.mutable_settings().atol = 1e-4;
  Vec3 y(1, 0, 0);
  double t = 0;
  while (t < 1e11 && ie.statistics().steps < 100000) {
    t = ie.StepAdaptive(Robertson{}, t, 1e11, &y);
  }
  EXPECT_EQ(t, 1e11);
  EXPECT_LT(ie.statistics().rejected_steps, 20);
  EXPECT_LT(ie.statistics().steps, 1000);
  // y1 ~ 2.08e-8, y3 ~ 1 at t = 1e11 (IVP Test Set); first order at 1e-4.
  EXPECT_NEAR(y(2), 1.0, 1e-6);
  EXPECT_NEAR(y.sum(), 1.0, 1e-9);
  EXPECT_GE(y(1), 0.0);

  ImplicitTrapezoid<Vec3> it;
  it.mutable_settings().rtol = 1e-4;
  it.mutable_settings().atol = 1e-4;
  Vec3 yt(1, 0, 0);
  IntegrateAdaptive(&it, Robertson{}, 0.0, 40.0, &yt);
  EXPECT_LT(it.statistics().rejected_steps, 10);
  EXPECT_NEAR(yt(0), 0.7158270687193687, 1e-3);
}

// radau5 at rtol = atol = 1e-4 on Robertson (t in [0, 40]) accepted a step
// of 3.9 times the last one whose Newton iteration, started from the
// extrapolated collocation polynomial, converged to a spurious root with
// y2 < 0; from there the exact flow blows up (to 1e145) and every step was
// accepted. The solution must stay bounded and accurate at every tolerance.
TEST(ImplicitRulesTest, RadauRobertsonStaysOnPhysicalSolution) {
  const double y1_ref = 0.7158270687193687, y2_ref = 9.185534764557338e-06;
  for (double tol : {2e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 1e-6}) {
    RadauIIA5<Vec3> radau;
    radau.mutable_settings().rtol = tol;
    radau.mutable_settings().atol = tol;
    Vec3 y(1, 0, 0);
    double t = 0, largest = 0, y2_min = 0;
    try {
      while (t < 40) {
        t = radau.StepAdaptive(Robertson{}, t, 40.0, &y);
        largest = std::max(largest, y.cwiseAbs().maxCoeff());
        y2_min = std::min(y2_min, y(1));
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "tol " << tol << ": " << e.what();
    }
    EXPECT_LT(largest, 1 + 1e-6) << tol;
    EXPECT_GT(y2_min, -tol) << tol;
    EXPECT_NEAR(y(0), y1_ref, tol) << tol;
    EXPECT_NEAR(y(1), y2_ref, 1e-2 * y2_ref) << tol;
  }
}

TEST(ImplicitRulesTest, AdaptiveThetaMethodsMeetTolerance) {
  for (double rtol : {1e-3, 1e-5}) {
    ImplicitEuler<Vec1> ie;
    ImplicitTrapezoid<Vec1> it;
    for (auto* s : {&ie.mutable_settings(), &it.mutable_settings()}) {
      s->rtol = rtol;
      s->atol = rtol;
    }
    Vec1 x1(0.1), x2(0.1);
    IntegrateAdaptive(&ie, Logistic{}, 0.0, 2.0, &x1);
    IntegrateAdaptive(&it, Logistic{}, 0.0, 2.0, &x2);
    EXPECT_LT(std::abs(x1(0) - Logistic::Exact(2)), 100 * rtol);
    EXPECT_LT(std::abs(x2(0) - Logistic::Exact(2)), 100 * rtol);
    // Second order needs far fewer steps than first order.
    EXPECT_LT(it.statistics().steps, ie.statistics().steps);
  }
}

TEST(ImplicitRulesTest, JacobianSchemesAgree) {
  // Robertson with a user-supplied Jacobian; compare with autodiff and
  // central differences via the steps taken.
  struct RobertsonJ : Robertson {
    mutable int calls = 0;
    void Jacobian(const double&, const Vec3& y, Eigen::Matrix3d* J) const {
      ++calls;
      *J << -0.04, 1e4 * y(2), 1e4 * y(1), 0.04, -1e4 * y(2) - 6e7 * y(1),
          -1e4 * y(1), 0, 6e7 * y(1), 0;
    }
  };
  auto run = [](auto f, JacobianScheme scheme) {
    RadauIIA5<Vec3> r;
    r.mutable_settings().jacobian_scheme = scheme;
    r.mutable_settings().rtol = 1e-6;
    r.mutable_settings().atol_per_component = Vec3(1e-6, 1e-10, 1e-6);
    Vec3 y(1, 0, 0);
    IntegrateAdaptive(&r, f, 0.0, 1.0, &y);
    return y;
  };
  const Vec3 user = run(RobertsonJ{}, JacobianScheme::kUserSupplied);
  const Vec3 ad = run(Robertson{}, JacobianScheme::kAutoDiff);
  const Vec3 fd = run(Robertson{}, JacobianScheme::kCentralDifference);
  EXPECT_LT((user - ad).norm(), 1e-12);
  EXPECT_LT((user - fd).norm(), 1e-6);
  RadauIIA5<Vec3> r;
  r.mutable_settings().jacobian_scheme = JacobianScheme::kUserSupplied;
  Vec3 y(1, 0, 0);
  try {
    r.StepAdaptive(Robertson{}, 0.0, 1.0, &y);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("radau5"), std::string::npos);
  }
}

TEST(ImplicitRulesTest, DenseOutputOfRadauIsCollocationPolynomial) {
  RadauIIA5<Vec1> r;
  r.mutable_settings().rtol = 1e-8;
  Vec1 x(0.1);
  double t = 0;
  t = r.StepAdaptive(Logistic{}, t, 2.0, &x);
  const double t0 = t;
  t = r.StepAdaptive(Logistic{}, t, 2.0, &x);
  Vec1 y;
  r.DenseOutput(t, &y);
  EXPECT_NEAR(y(0), x(0), 1e-14);
  r.DenseOutput(0.5 * (t0 + t), &y);
  EXPECT_NEAR(y(0), Logistic::Exact(0.5 * (t0 + t)), 1e-6);
  EXPECT_THROW(r.DenseOutput(t + 1, &y), std::logic_error);
}

// A right-hand side that becomes NaN in component 1 after t = 0.5: no step
// can cross t = 0.5.
struct Blow {
  template <typename S, typename V>
  void operator()(const S& t, const V& y, V* yd) const {
    (*yd)(0) = 0.0;
    if (ExtractDoubleOrThrow(t) > 0.5) {
      (*yd)(1) = std::numeric_limits<double>::quiet_NaN() + 0 * y(1);
    } else {
      (*yd)(1) = -y(1);
    }
  }
};

TEST(ImplicitRulesTest, StepTooSmallNamesRuleAndComponent) {
  for (int rule = 0; rule < 2; ++rule) {
    RadauIIA5<Vec2> radau;
    KapsRentrop4<Vec2> kr;
    Vec2 y(0.0, 1.0);
    double t = 0;
    Vec2 good = y;
    try {
      while (t < 2) {
        good = y;
        t = rule == 0 ? radau.StepAdaptive(Blow{}, t, 2.0, &y)
                      : kr.StepAdaptive(Blow{}, t, 2.0, &y);
      }
      FAIL();
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(rule == 0 ? "radau5" : "kaps_rentrop4"),
                std::string::npos)
          << msg;
      EXPECT_NE(msg.find("component 1"), std::string::npos) << msg;
      EXPECT_TRUE(msg.find("t = 0.49") != std::string::npos ||
                  msg.find("t = 0.5") != std::string::npos)
          << msg;
    }
    EXPECT_EQ(y, good);
  }
}

// x' = A x + B u with u held: the exponential rule is exact.
TEST(ImplicitRulesTest, ExponentialExactOnLtiWithZeroOrderHold) {
  Eigen::Matrix2d A;
  A << 0, 1, -4, -0.4;
  const Vec2 B(0, 1);
  const double u = 0.7;
  // xdot = A x + B u with its exact Jacobian A.
  struct Lti {
    const Eigen::Matrix2d& A;
    const Vec2& B;
    double u;
    void operator()(double, const Vec2& x, Vec2* xd) const {
      *xd = A * x + B * u;
    }
    void Jacobian(const double&, const Vec2&, Eigen::Matrix2d* J) const {
      *J = A;
    }
  } f{A, B, u};
  Exponential<Vec2> rule;
  Vec2 x(1.0, 0.0);
  const double h = 0.3;
  // One step is exact to rounding.
  rule.Step(f, 0.0, h, &x);
  {
    const Vec2 xss = -A.inverse() * B * u;
    const Vec2 exact1 = xss + (A * h).exp() * (Vec2(1.0, 0.0) - xss);
    EXPECT_LT((x - exact1).cwiseAbs().maxCoeff(), 1e-13);
  }
  for (int k = 1; k < 10; ++k) rule.Step(f, k * h, h, &x);
  // Closed form: x(t) = x_ss + e^{A t} (x0 - x_ss), x_ss = -A^-1 B u.
  const Vec2 xss = -A.inverse() * B * u;
  const Eigen::Matrix2d E = (A * 3.0).exp();
  const Vec2 exact = xss + E * (Vec2(1.0, 0.0) - xss);
  EXPECT_LT((x - exact).cwiseAbs().maxCoeff(), 1e-12);

  Eigen::MatrixXd Ad, Bd;
  DiscretizeZeroOrderHold(A, B, h, &Ad, &Bd);
  Vec2 xz(1.0, 0.0);
  for (int k = 0; k < 10; ++k) xz = Ad * xz + Bd * u;
  EXPECT_LT((xz - exact).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_THROW(
      DiscretizeZeroOrderHold(A, Eigen::MatrixXd::Ones(3, 1), h, &Ad, &Bd),
      std::invalid_argument);
}

TEST(ImplicitRulesTest, FixedSizeStepsDoNotAllocate) {
  RadauIIA5<Vec2> radau;
  KapsRentrop4<Vec2> kr;
  ImplicitEuler<Vec2> ie;
  ImplicitTrapezoid<Vec2> it;
  Exponential<Vec2> ex;
  radau.mutable_settings().rtol = 1e-4;
  kr.mutable_settings().rtol = 1e-4;
  VanDerPol f{10};
  Vec2 x1(2, 0), x2(2, 0), x3(2, 0), x4(2, 0), x5(2, 0);
  test::ScopedAllocationCounter counter;
  IntegrateAdaptive(&radau, f, 0.0, 1.0, &x1);
  IntegrateAdaptive(&kr, f, 0.0, 1.0, &x2);
  IntegrateAdaptive(&ie, f, 0.0, 0.1, &x3);
  IntegrateAdaptive(&it, f, 0.0, 0.1, &x4);
  ex.Step(f, 0.0, 0.01, &x5);
  EXPECT_EQ(counter.count(), 0);
}

}  // namespace
}  // namespace tern
