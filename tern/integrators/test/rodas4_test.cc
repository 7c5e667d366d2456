#include "tern/integrators/rodas4.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using Vec1 = Eigen::Matrix<double, 1, 1>;
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

// x' = -x + t^3, x(0) = 1: x(t) = t^3 - 3t^2 + 6t - 6 + 7 e^{-t}. Not
// autonomous, so the df/dt terms (d_i) of the rule take part.
struct Cubic {
  template <typename S, typename V>
  void operator()(const S& t, const V& x, V* xd) const {
    (*xd)(0) = -x(0) + t * t * t;
  }
  static double Exact(double t) {
    return t * t * t - 3 * t * t + 6 * t - 6 + 7 * std::exp(-t);
  }
};

// Logistic x' = 3 x (1 - x), x(t) = 1 / (1 + 9 e^{-3t}) from x0 = 0.1.
struct Logistic {
  template <typename S, typename V>
  void operator()(const S&, const V& x, V* xd) const {
    (*xd)(0) = 3 * x(0) * (1 - x(0));
  }
  static double Exact(double t) { return 1 / (1 + 9 * std::exp(-3 * t)); }
};

template <typename F>
double FixedError(int n, double tf, double x0) {
  Rodas4<Vec1> rule;
  Vec1 x(x0);
  const double h = tf / n;
  for (int k = 0; k < n; ++k) rule.Step(F{}, k * h, h, &x);
  return std::abs(x(0) - F::Exact(tf));
}

TEST(Rodas4Test, ObservedOrderIsFour) {
  for (int n : {10, 20}) {
    EXPECT_NEAR(std::log2(FixedError<Cubic>(n, 2.0, 1.0) /
                          FixedError<Cubic>(2 * n, 2.0, 1.0)),
                4.0, 0.15);
  }
  // The logistic curve reaches the asymptotic regime later (at h = 0.05).
  for (int n : {40, 80}) {
    EXPECT_NEAR(std::log2(FixedError<Logistic>(n, 2.0, 0.1) /
                          FixedError<Logistic>(2 * n, 2.0, 0.1)),
                4.0, 0.25);
  }
}

// Prothero-Robinson x' = -1e8 (x - sin t) + cos t, x(0) = 0 (HW II, IV.15):
// exact x = sin t. A stiffly accurate, L-stable rule stays on sin t with
// steps 1e7 times the stiff time scale.
struct ProtheroRobinson {
  template <typename S, typename V>
  void operator()(const S& t, const V& x, V* xd) const {
    using std::cos;
    using std::sin;
    (*xd)(0) = -1e8 * (x(0) - sin(t)) + cos(t);
  }
};

TEST(Rodas4Test, StiffProtheroRobinsonStaysOnSmoothSolution) {
  Rodas4<Vec1> rule;
  Vec1 x(0.0);
  const double h = 0.1;
  for (int k = 0; k < 20; ++k) rule.Step(ProtheroRobinson{}, k * h, h, &x);
  EXPECT_NEAR(x(0), std::sin(2.0), 1e-7);
}

// Robertson's chemical kinetics (HW II, IV.1) on [0, 40]; reference values
// from the IVP Test Set (also the benchmark's long-double DOP853 run).
struct Robertson {
  template <typename S, typename V>
  void operator()(const S&, const V& y, V* yd) const {
    (*yd)(0) = -0.04 * y(0) + 1e4 * y(1) * y(2);
    (*yd)(1) = 0.04 * y(0) - 1e4 * y(1) * y(2) - 3e7 * y(1) * y(1);
    (*yd)(2) = 3e7 * y(1) * y(1);
  }
};

// Van der Pol in Hairer's scaled form, eps = 1e-6, on [0, 2] (HW II, IV.1).
struct ScaledVanDerPol {
  template <typename S, typename V>
  void operator()(const S&, const V& y, V* yd) const {
    (*yd)(0) = y(1);
    (*yd)(1) = ((1 - y(0) * y(0)) * y(1) - y(0)) / 1e-6;
  }
};

template <typename Rule, typename F, typename V>
void IntegrateAdaptive(Rule* r, const F& f, double t0, double tf, V* x) {
  double t = t0;
  while (t < tf) t = r->StepAdaptive(f, t, tf, x);
}

TEST(Rodas4Test, RobertsonAccurateAndCheap) {
  Rodas4<Vec3> rule;
  rule.mutable_settings().rtol = 1e-6;
  rule.mutable_settings().atol = 1e-12;
  Vec3 y(1, 0, 0);
  IntegrateAdaptive(&rule, Robertson{}, 0.0, 40.0, &y);
  EXPECT_NEAR(y(0), 0.7158270687194, 1e-7);
  EXPECT_NEAR(y(1), 9.185534764557e-06, 1e-10);
  EXPECT_NEAR(y.sum(), 1.0, 1e-12);  // the rule conserves linear invariants
  EXPECT_LT(rule.statistics().steps, 200);
}

TEST(Rodas4Test, VanDerPolErrorFollowsTolerance) {
  const Vec2 ref(1.7061677321704647, -0.89280970102481683);
  double previous = 1;
  for (double rtol : {1e-4, 1e-6, 1e-8}) {
    Rodas4<Vec2> rule;
    rule.mutable_settings().rtol = rtol;
    rule.mutable_settings().atol = rtol;
    Vec2 y(2, 0);
    IntegrateAdaptive(&rule, ScaledVanDerPol{}, 0.0, 2.0, &y);
    const double err =
        ((y - ref).array().abs() / (1 + ref.array().abs())).maxCoeff();
    EXPECT_LT(err, 100 * rtol) << rtol;
    EXPECT_LT(err, previous) << rtol;
    previous = err;
  }
}

TEST(Rodas4Test, DenseOutputMatchesSolutionInsideSteps) {
  Rodas4<Vec1> rule;
  rule.mutable_settings().rtol = 1e-8;
  rule.mutable_settings().atol = 1e-10;
  Vec1 x(1.0);
  double t = 0;
  double worst = 0;
  while (t < 2) {
    const double t0 = t;
    t = rule.StepAdaptive(Cubic{}, t, 2.0, &x);
    for (double s : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      Vec1 xs;
      rule.DenseOutput(t0 + s * (t - t0), &xs);
      worst =
          std::max(worst, std::abs(xs(0) - Cubic::Exact(t0 + s * (t - t0))));
    }
    Vec1 end;
    rule.DenseOutput(t, &end);
    EXPECT_NEAR(end(0), x(0), 1e-14);
  }
  EXPECT_LT(worst, 1e-6);
  EXPECT_THROW(rule.DenseOutput(3.0, &x), std::logic_error);
}

TEST(Rodas4Test, FixedSizeStepsDoNotAllocate) {
  Rodas4<Vec2> rule;
  rule.mutable_settings().rtol = 1e-5;
  Vec2 y(2, 0);
  test::ScopedAllocationCounter counter;
  IntegrateAdaptive(&rule, ScaledVanDerPol{}, 0.0, 0.5, &y);
  EXPECT_EQ(counter.count(), 0);
}

// f becomes NaN in component 1 after t = 0.5.
struct Blow {
  template <typename S, typename V>
  void operator()(const S& t, const V& y, V* yd) const {
    (*yd)(0) = y(1);
    if (ExtractDoubleOrThrow(t) > 0.5) {
      (*yd)(1) = std::numeric_limits<double>::quiet_NaN() + 0 * y(1);
    } else {
      (*yd)(1) = -y(1);
    }
  }
};

TEST(Rodas4Test, StepTooSmallNamesRuleAndComponent) {
  Rodas4<Vec2> rule;
  Vec2 y(0.0, 1.0);
  Vec2 good = y;
  double t = 0;
  try {
    while (t < 2) {
      good = y;
      t = rule.StepAdaptive(Blow{}, t, 2.0, &y);
    }
    FAIL();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rodas4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("component 1"), std::string::npos) << msg;
  }
  EXPECT_EQ(y, good);
}

// Gustafsson's predictive controller (HW II, IV.8): the factor is the
// smaller of the standard 0.9 err^(-1/4) and the predictive
// 0.9 (h / h_acc) (err_acc / err^2)^(1/4), within [1/5, 6], and no step
// grows right after a rejection.
TEST(PredictiveControllerTest, FactorsFollowHairerWanner) {
  PredictiveController c(3);
  EXPECT_DOUBLE_EQ(c.Accepted(1e-12, 1.0), 6.0);  // err_acc = 1e-2 (floor)
  // Rising error: the predictive factor decides.
  EXPECT_NEAR(c.Accepted(0.5, 1.0), 0.9 * std::pow(1e-2 / 0.25, 0.25), 1e-12);
  // Falling error with h twice h_acc: the standard factor decides.
  EXPECT_NEAR(c.Accepted(0.1, 2.0), 0.9 * std::pow(0.1, -0.25), 1e-12);
  EXPECT_LT(c.Rejected(100.0), 0.9);
  EXPECT_DOUBLE_EQ(c.Rejected(1e30), 0.2);
  EXPECT_LE(c.Accepted(1e-6, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(c.Rejected(std::numeric_limits<double>::quiet_NaN()), 0.2);
}

}  // namespace
}  // namespace tern
