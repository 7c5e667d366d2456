#include "tern/integrators/explicit_rules.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tern/common/eigen_types.h"

namespace tern {
namespace {

// xdot = -x + sin(t) (smooth, nonlinear in t); exact solution with x(0) = 1:
// x(t) = 1.5 e^{-t} + (sin t - cos t) / 2.
double Exact(double t) {
  return 1.5 * std::exp(-t) + 0.5 * (std::sin(t) - std::cos(t));
}

template <template <typename> class Rule>
double ErrorAtOne(int num_steps) {
  using Vec = Eigen::Matrix<double, 1, 1>;
  Rule<Vec> rule;
  Vec x(1.0);
  auto f = [](double t, const Vec& xx, Vec* xd) {
    (*xd)(0) = -xx(0) + std::sin(t);
  };
  const double h = 1.0 / num_steps;
  for (int k = 0; k < num_steps; ++k) rule.Step(f, k * h, h, &x);
  return std::abs(x(0) - Exact(1.0));
}

template <template <typename> class Rule>
double ObservedOrder() {
  return std::log2(ErrorAtOne<Rule>(20) / ErrorAtOne<Rule>(40));
}

TEST(ExplicitRulesTest, EulerIsFirstOrder) {
  EXPECT_NEAR(ObservedOrder<ExplicitEuler>(), 1.0, 0.2);
}

TEST(ExplicitRulesTest, RK2IsSecondOrder) {
  EXPECT_NEAR(ObservedOrder<RK2>(), 2.0, 0.2);
}

TEST(ExplicitRulesTest, RK3IsThirdOrder) {
  EXPECT_NEAR(ObservedOrder<RK3>(), 3.0, 0.2);
}

TEST(ExplicitRulesTest, RK4IsFourthOrder) {
  EXPECT_NEAR(ObservedOrder<RK4>(), 4.0, 0.2);
}

TEST(ExplicitRulesTest, RK4OnDynamicVectorMatchesFixed) {
  VectorX<double> x(2);
  x << 1.0, 0.0;
  RK4<VectorX<double>> rule(2);
  // Harmonic oscillator: energy error of RK4 is O(h^4) per unit time.
  auto f = [](double, const VectorX<double>& xx, VectorX<double>* xd) {
    (*xd)(0) = xx(1);
    (*xd)(1) = -xx(0);
  };
  const double h = 0.01;
  for (int k = 0; k < 100; ++k) rule.Step(f, k * h, h, &x);
  EXPECT_NEAR(x(0), std::cos(1.0), 1e-9);
  EXPECT_NEAR(x(1), -std::sin(1.0), 1e-9);
}

}  // namespace
}  // namespace tern
