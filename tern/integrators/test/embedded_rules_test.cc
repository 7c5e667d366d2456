#include "tern/integrators/embedded_rules.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tern/common/eigen_types.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using Vec1 = Eigen::Matrix<double, 1, 1>;
using Vec4 = Eigen::Matrix<double, 4, 1>;

// Logistic growth x' = x (1 - x) + 0.1 sin(3t)... keep a closed form: plain
// logistic, x(t) = 1 / (1 + (1/x0 - 1) e^-t).
double Logistic(double t, double x0 = 0.1) {
  return 1 / (1 + (1 / x0 - 1) * std::exp(-t));
}
const auto kLogistic = [](double, const Vec1& x, Vec1* xd) {
  (*xd)(0) = 3 * x(0) * (1 - x(0));
};
double LogisticScaled(double t) { return Logistic(3 * t); }

template <template <typename> class Rule>
double FixedStepError(int num_steps, double tf) {
  Rule<Vec1> rule;
  Vec1 x(0.1);
  const double h = tf / num_steps;
  for (int k = 0; k < num_steps; ++k) rule.Step(kLogistic, k * h, h, &x);
  return std::abs(x(0) - LogisticScaled(tf));
}

template <template <typename> class Rule>
double ObservedOrder(int n, double tf) {
  return std::log2(FixedStepError<Rule>(n, tf) /
                   FixedStepError<Rule>(2 * n, tf));
}

TEST(EmbeddedRulesTest, ObservedOrders) {
  EXPECT_NEAR(ObservedOrder<BogackiShampine3>(40, 2.0), 3.0, 0.2);
  EXPECT_NEAR(ObservedOrder<DormandPrince5>(80, 2.0), 5.0, 0.2);
  EXPECT_NEAR(ObservedOrder<DormandPrince853>(8, 2.0), 8.0, 0.2);
}

// Kepler orbit with eccentricity 0.5 over one period: the final state
// equals the initial one.
struct Kepler {
  template <typename S, typename V>
  void operator()(const S&, const V& x, V* xd) const {
    const auto r2 = x(0) * x(0) + x(1) * x(1);
    const auto r3 = r2 * sqrt(r2);
    (*xd)(0) = x(2);
    (*xd)(1) = x(3);
    (*xd)(2) = -x(0) / r3;
    (*xd)(3) = -x(1) / r3;
  }
};
Vec4 KeplerStart() {
  const double e = 0.5;
  Vec4 x;
  x << 1 - e, 0, 0, std::sqrt((1 + e) / (1 - e));
  return x;
}

template <template <typename> class Rule>
void CheckMeetsTolerance(double rtol) {
  AdaptiveStepper<Rule, Vec4> stepper;
  stepper.mutable_settings().rtol = rtol;
  stepper.mutable_settings().atol = rtol;
  Vec4 x = KeplerStart();
  stepper.Integrate(Kepler{}, 0.0, 2 * M_PI, &x);
  const double err = (x - KeplerStart()).cwiseAbs().maxCoeff();
  // Global error within a small factor of the tolerance (over a period with
  // a close approach the error accumulates; factors up to ~80 are seen).
  EXPECT_LT(err, 100 * rtol) << Rule<Vec4>::kName << " rtol " << rtol;
  EXPECT_GT(stepper.statistics().steps, 5);
}

TEST(EmbeddedRulesTest, ErrorControlledRulesMeetTolerance) {
  for (double rtol : {1e-4, 1e-7}) {
    CheckMeetsTolerance<BogackiShampine3>(rtol);
    CheckMeetsTolerance<DormandPrince5>(rtol);
  }
  for (double rtol : {1e-6, 1e-10}) CheckMeetsTolerance<DormandPrince853>(rtol);
}

TEST(EmbeddedRulesTest, HighOrderPairIsCheaperAtTightTolerance) {
  auto evaluations = [](auto stepper) {
    stepper.mutable_settings().rtol = 1e-12;
    stepper.mutable_settings().atol = 1e-12;
    stepper.mutable_settings().dense_output = false;
    Vec4 x = KeplerStart();
    stepper.Integrate(Kepler{}, 0.0, 2 * M_PI, &x);
    return stepper.statistics().derivative_evaluations;
  };
  const auto n5 = evaluations(AdaptiveStepper<DormandPrince5, Vec4>());
  const auto n8 = evaluations(AdaptiveStepper<DormandPrince853, Vec4>());
  EXPECT_LT(n8, n5);
}

TEST(EmbeddedRulesTest, FsalCountsSixEvaluationsPerStep) {
  AdaptiveStepper<DormandPrince5, Vec4> stepper;
  stepper.mutable_settings().dense_output = false;
  Vec4 x = KeplerStart();
  stepper.Integrate(Kepler{}, 0.0, 1.0, &x);
  const auto& s = stepper.statistics();
  // 1 initial f0 + 1 for the initial step guess + 6 per attempt.
  EXPECT_EQ(s.derivative_evaluations, 2 + 6 * (s.steps + s.rejected_steps));
}

// Dense output: error at the midpoint of one step shrinks like h^(p+1)
// with p the interpolant's order.
template <template <typename> class Rule>
double DenseMidpointError(double h) {
  AdaptiveStepper<Rule, Vec1> stepper;
  stepper.mutable_settings().initial_step = h;
  stepper.mutable_settings().rtol = 1e3;  // accept the given step
  stepper.mutable_settings().atol = 1e3;
  Vec1 x(0.1);
  const double t1 = stepper.Step(kLogistic, 0.0, 10.0, &x);
  EXPECT_DOUBLE_EQ(t1, h);
  Vec1 xm;
  stepper.DenseOutput(kLogistic, 0.4 * h, &xm);
  Vec1 xe;
  stepper.DenseOutput(kLogistic, h, &xe);
  EXPECT_NEAR(xe(0), x(0), 1e-14);
  return std::abs(xm(0) - LogisticScaled(0.4 * h));
}

template <template <typename> class Rule>
double DenseOrder(double h) {
  return std::log2(DenseMidpointError<Rule>(h) /
                   DenseMidpointError<Rule>(h / 2)) -
         1;
}

TEST(EmbeddedRulesTest, DenseOutputOrders) {
  EXPECT_NEAR(DenseOrder<BogackiShampine3>(0.1), 3.0, 0.3);
  EXPECT_NEAR(DenseOrder<DormandPrince5>(0.02), 4.0, 0.3);
  EXPECT_NEAR(DenseOrder<DormandPrince853>(0.1), 7.0, 0.4);
}

TEST(EmbeddedRulesTest, DenseOutputOutsideStepThrows) {
  AdaptiveStepper<DormandPrince5, Vec1> stepper;
  Vec1 x(0.1), y;
  EXPECT_THROW(stepper.DenseOutput(0.0, &y), std::logic_error);
  const double t1 = stepper.Step(kLogistic, 0.0, 1.0, &x);
  EXPECT_THROW(stepper.DenseOutput(t1 * 2, &y), std::logic_error);
}

// x' = 1/(1 - t) blows up at t = 1: the step cannot meet the tolerance.
TEST(EmbeddedRulesTest, FailingStepNamesRuleTimeStepAndComponent) {
  AdaptiveStepper<DormandPrince5, Eigen::Vector2d> stepper;
  stepper.mutable_settings().min_step = 1e-8;
  Eigen::Vector2d x(0.0, 0.0);
  auto f = [](double t, const Eigen::Vector2d&, Eigen::Vector2d* xd) {
    (*xd)(0) = 0;
    (*xd)(1) = 1 / (1 - t) / (1 - t);
  };
  double t = 0;
  Eigen::Vector2d good = x;
  try {
    while (t < 2) {
      good = x;
      t = stepper.Step(f, t, 2.0, &x);
    }
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("dopri5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("t = 0.99"), std::string::npos) << msg;
    EXPECT_NE(msg.find("h = "), std::string::npos) << msg;
    EXPECT_NE(msg.find("component 1"), std::string::npos) << msg;
  }
  EXPECT_EQ(x, good);
}

TEST(EmbeddedRulesTest, PerComponentAbsoluteTolerance) {
  AdaptiveStepper<DormandPrince5, Vec4> stepper;
  stepper.mutable_settings().atol_per_component = Eigen::Vector3d(1, 1, 1);
  Vec4 x = KeplerStart();
  EXPECT_THROW(stepper.Step(Kepler{}, 0.0, 1.0, &x), std::invalid_argument);
  stepper.mutable_settings().atol_per_component =
      Eigen::Vector4d(1e-9, 1e-9, 1, 1);
  stepper.mutable_settings().rtol = 1e-12;
  stepper.Integrate(Kepler{}, 0.0, 2 * M_PI, &x);
  EXPECT_LT(std::abs(x(0) - KeplerStart()(0)), 1e-6);
}

TEST(EmbeddedRulesTest, FixedSizeStepsDoNotAllocate) {
  AdaptiveStepper<DormandPrince5, Vec4> s5;
  AdaptiveStepper<DormandPrince853, Vec4> s8;
  AdaptiveStepper<BogackiShampine3, Vec4> s3;
  Vec4 x5 = KeplerStart(), x8 = x5, x3 = x5;
  test::ScopedAllocationCounter counter;
  s5.Integrate(Kepler{}, 0.0, 1.0, &x5);
  s8.Integrate(Kepler{}, 0.0, 1.0, &x8);
  s3.Integrate(Kepler{}, 0.0, 1.0, &x3);
  Vec4 y;
  s5.DenseOutput(0.99, &y);
  EXPECT_EQ(counter.count(), 0);
}

TEST(EmbeddedRulesTest, DynamicAndAutoDiffVectorsWork) {
  AdaptiveStepper<DormandPrince5, Eigen::VectorXd> s(4);
  Eigen::VectorXd x = KeplerStart();
  s.Integrate(Kepler{}, 0.0, 2 * M_PI, &x);
  EXPECT_LT((x - KeplerStart()).norm(), 1e-4);
  // Sensitivity of the final state to the initial x(0) by autodiff through
  // the whole adaptive integration.
  AdaptiveStepper<DormandPrince5, VectorX<AutoDiffXd>> sa(4);
  VectorX<AutoDiffXd> xa = InitializeAutoDiff(KeplerStart());
  sa.Integrate(Kepler{}, AutoDiffXd(0.0), AutoDiffXd(0.1), &xa);
  EXPECT_NEAR(xa(0).derivatives()(0), 1.0, 0.1);
}

}  // namespace
}  // namespace tern
