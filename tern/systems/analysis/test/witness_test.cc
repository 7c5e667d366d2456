#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {
namespace {

constexpr double kG = 9.81;

// A ball dropped from rest: state [height, velocity]. The witness is the
// height (downward crossing); the impact reverses the velocity times e.
// Once an impact is slower than v_rest the ball is put at rest (Zeno stop).
class Ball final : public LeafSystem<double> {
 public:
  Ball(double e, double v_rest) : e_(e), v_rest_(v_rest) {
    DeclareContinuousState(Eigen::Vector2d(1.0, 0.0), 1, 1);
    DeclareAbstractState(false);  // resting
    DeclareWitnessFunction(
        "height", WitnessDirection::kPositiveToNegative,
        [](const Context<double>& c) {
          return c.get_abstract_state<bool>(0) ? 1.0
                                               : c.get_continuous_state_vector()[0];
        },
        [this](const Context<double>& c, State<double>* s) {
          impacts.push_back(c.get_time());
          auto x = s->get_mutable_continuous_state_vector();
          const double v = c.get_continuous_state_vector()[1];
          if (std::abs(v) * e_ < v_rest_) {
            x << 0.0, 0.0;
            s->get_mutable_abstract_state<bool>(0) = true;
          } else {
            x << 0.0, -e_ * v;  // back on the floor, bouncing up
          }
        });
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    const bool resting = c.get_abstract_state<bool>(0);
    xdot[0] = resting ? 0.0 : c.get_continuous_state_vector()[1];
    xdot[1] = resting ? 0.0 : -kG;
  }
  std::vector<double> impacts;

 private:
  double e_, v_rest_;
};

// Impact k (1-based) of a ball dropped from 1 m: t1 = sqrt(2/g) and each
// flight after impact j lasts 2 e^j t1.
double ClosedFormImpact(int k, double e) {
  const double t1 = std::sqrt(2.0 / kG);
  double t = t1;
  for (int j = 1; j < k; ++j) t += 2 * std::pow(e, j) * t1;
  return t;
}

TEST(WitnessTest, BouncingBallImpactTimesMatchClosedForm) {
  Ball ball(0.8, 1e-3);
  Simulator<double> simulator(ball);
  simulator.reset_integrator<RK4>(1e-3);
  simulator.AdvanceTo(3.7);
  ASSERT_GE(ball.impacts.size(), 10u);
  for (int k = 1; k <= 10; ++k) {
    EXPECT_NEAR(ball.impacts[k - 1], ClosedFormImpact(k, 0.8), 1e-9) << "impact " << k;
  }
}

TEST(WitnessTest, ZenoStopEndsBouncingCleanly) {
  Ball ball(0.8, 1e-3);
  Simulator<double> simulator(ball);
  simulator.reset_integrator<RK4>(1e-3);
  const SimulatorStatus status = simulator.AdvanceTo(6.0);
  EXPECT_TRUE(status.succeeded());
  EXPECT_EQ(simulator.get_context().get_time(), 6.0);
  EXPECT_TRUE(simulator.get_context().get_abstract_state<bool>(0));
  EXPECT_EQ(simulator.get_context().get_continuous_state_vector()[0], 0.0);
  // Impacts accumulate at t1 (1 + 2 e / (1 - e)) = 9 t1; the last one is
  // just before it and the count is finite.
  const double t_zeno = 9 * std::sqrt(2.0 / kG);
  EXPECT_LT(ball.impacts.back(), t_zeno);
  EXPECT_GT(ball.impacts.back(), t_zeno - 1e-2);
  EXPECT_LT(ball.impacts.size(), 60u);
}

// Two witnesses crossing at the same time fire together.
class TwoClocks final : public LeafSystem<double> {
 public:
  TwoClocks() {
    DeclareContinuousState(1);  // x = t
    for (int i = 0; i < 2; ++i) {
      DeclareWitnessFunction(
          "clock", WitnessDirection::kNegativeToPositive,
          [](const Context<double>& c) { return c.get_continuous_state_vector()[0] - 0.3; },
          [this, i](const Context<double>& c) { fired.push_back({i, c.get_time()}); });
    }
  }
  void DoCalcTimeDerivatives(const Context<double>&,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = 1;
  }
  std::vector<std::pair<int, double>> fired;
};

TEST(WitnessTest, SimultaneousCrossingsRunTogether) {
  TwoClocks system;
  Simulator<double> simulator(system);
  simulator.reset_integrator<RK4>(0.25);  // the crossing is inside a step
  simulator.AdvanceTo(1.0);
  ASSERT_EQ(system.fired.size(), 2u);
  EXPECT_NEAR(system.fired[0].second, 0.3, 1e-12);
  EXPECT_EQ(system.fired[0].second, system.fired[1].second);
}

}  // namespace
}  // namespace tern
