#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/integrators/integrator_settings.h"
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
          return c.get_abstract_state<bool>(0)
                     ? 1.0
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
    EXPECT_NEAR(ball.impacts[k - 1], ClosedFormImpact(k, 0.8), 1e-9)
        << "impact " << k;
  }
}

// dop853 computes its interpolant's extra stages only when DenseOutput is
// asked for; the localization must be as accurate with the rule's own dense
// output (which the Simulator asks for) as with Hermite re-stepping.
TEST(WitnessTest, Dop853LazyDenseOutputLocalizesImpacts) {
  for (const bool dense : {true, false}) {
    Ball ball(0.8, 1e-3);
    Simulator<double> simulator(ball);
    IntegratorSettings settings;
    settings.rtol = settings.atol = 1e-10;
    settings.dense_output = dense;
    simulator.reset_integrator("dop853", settings);
    simulator.AdvanceTo(3.7);
    ASSERT_GE(ball.impacts.size(), 10u) << dense;
    for (int k = 1; k <= 10; ++k) {
      EXPECT_NEAR(ball.impacts[k - 1], ClosedFormImpact(k, 0.8), 1e-9)
          << "impact " << k << " dense " << dense;
    }
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
          [](const Context<double>& c) {
            return c.get_continuous_state_vector()[0] - 0.3;
          },
          [this, i](const Context<double>& c) {
            fired.push_back({i, c.get_time()});
          });
    }
  }
  void DoCalcTimeDerivatives(const Context<double>&,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = 1;
  }
  std::vector<std::pair<int, double>> fired;
};

// An event whose update hardly moves the state away from its witness's
// zero (here x := 1e-10 while x decreases at 1 per second) fires again
// 1e-10 s later, forever: the Simulator stops after 1,000 events within
// 1e-6 s with an error naming the witness instead of stalling (10,000
// events in the 1e-6 s asked for).
class Stuck final : public LeafSystem<double> {
 public:
  Stuck() {
    set_name("stuck");
    DeclareContinuousState(VectorX<double>::Constant(1, 1e-3));
    DeclareWitnessFunction(
        "surface", WitnessDirection::kPositiveToNegative,
        [](const Context<double>& c) {
          return c.get_continuous_state_vector()[0];
        },
        [](const Context<double>&, State<double>* s) {
          s->get_mutable_continuous_state_vector()[0] = 1e-10;
        });
  }
  void DoCalcTimeDerivatives(const Context<double>&,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = -1;
  }
};

TEST(WitnessTest, EventsThatDoNotLetTimeAdvanceAreAnError) {
  Stuck stuck;
  Simulator<double> simulator(stuck);
  simulator.reset_integrator<RK4>(1e-4);
  try {
    simulator.AdvanceTo(1e-3 + 1e-6);
    FAIL() << "no error after events 1e-10 s apart";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'surface' of 'stuck'"), std::string::npos) << what;
    EXPECT_NE(what.find("time does not advance"), std::string::npos) << what;
  }
  const double t = simulator.get_context().get_time();
  EXPECT_GE(t, 1e-3);
  EXPECT_LE(t, 1e-3 + 2e-7);
}

TEST(WitnessTest, SimultaneousCrossingsRunTogether) {
  TwoClocks system;
  Simulator<double> simulator(system);
  simulator.reset_integrator<RK4>(0.25);  // the crossing is inside a step
  simulator.AdvanceTo(1.0);
  ASSERT_EQ(system.fired.size(), 2u);
  EXPECT_NEAR(system.fired[0].second, 0.3, 1e-12);
  EXPECT_EQ(system.fired[0].second, system.fired[1].second);
}

// ---- Witnesses whatever the state kinds (no continuous state at all, or
// only discrete state): time alone moves, and the crossings are still
// localized to the witness tolerance.

// A leaf with no continuous state whose witnesses are functions of time:
// w_i = t - crossing_i, each recording when its publish event fired.
class TimeWitnesses final : public LeafSystem<double> {
 public:
  explicit TimeWitnesses(std::vector<double> crossings, bool discrete = false)
      : fired(crossings.size()) {
    if (discrete) {
      // Purely discrete: a counter updated every 0.25 s.
      DeclareDiscreteState(1);
      DeclarePeriodicDiscreteUpdateEvent(
          0.25, 0.0, [](const Context<double>& c, DiscreteValues<double>* x) {
            x->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
          });
    }
    for (size_t i = 0; i < crossings.size(); ++i) {
      const double tc = crossings[i];
      DeclareWitnessFunction(
          "t_minus_" + std::to_string(i), WitnessDirection::kNegativeToPositive,
          [tc](const Context<double>& c) { return c.get_time() - tc; },
          [this, i](const Context<double>& c) {
            fired[i].push_back(c.get_time());
          });
    }
  }
  std::vector<std::vector<double>> fired;
};

TEST(WitnessTest, WitnessOfTimeTriggersWithoutContinuousState) {
  TimeWitnesses system({1.0});
  Simulator<double> simulator(system);
  simulator.AdvanceTo(2.0);
  ASSERT_EQ(system.fired[0].size(), 1u);
  EXPECT_NEAR(system.fired[0][0], 1.0, 1e-12);
  EXPECT_GE(system.fired[0][0], 1.0);
  EXPECT_EQ(simulator.get_context().get_time(), 2.0);
}

TEST(WitnessTest, WitnessOfTimeFromANegativeStartTime) {
  TimeWitnesses system({0.0});
  Simulator<double> simulator(system);
  simulator.get_mutable_context().SetTime(-1.0);
  simulator.AdvanceTo(1.0);
  ASSERT_EQ(system.fired[0].size(), 1u);
  EXPECT_NEAR(system.fired[0][0], 0.0, 1e-12);
}

TEST(WitnessTest, StaggeredWitnessesInOneStepEachFireAtTheirTime) {
  // No timed event: the whole run is one step, which the three crossings
  // must split in turn.
  const std::vector<double> crossings = {0.7, 0.3, 1.1};
  TimeWitnesses system(crossings);
  Simulator<double> simulator(system);
  simulator.set_witness_time_tolerance(1e-10);
  simulator.AdvanceTo(2.0);
  for (size_t i = 0; i < crossings.size(); ++i) {
    ASSERT_EQ(system.fired[i].size(), 1u) << i;
    EXPECT_NEAR(system.fired[i][0], crossings[i], 1e-10) << i;
  }
}

TEST(WitnessTest, WitnessesInAPurelyDiscreteSystemAndNextToTimedEvents) {
  // Updates every 0.25 s; crossings just before, at and just after update
  // times, and one between them.
  const std::vector<double> crossings = {0.5 - 1e-9, 0.75, 1.0 + 1e-9, 0.6};
  TimeWitnesses system(crossings, /*discrete=*/true);
  Simulator<double> simulator(system);
  simulator.AdvanceTo(1.5);
  for (size_t i = 0; i < crossings.size(); ++i) {
    ASSERT_EQ(system.fired[i].size(), 1u) << i;
    EXPECT_NEAR(system.fired[i][0], crossings[i], 1e-12) << i;
  }
  // The timed updates still happened at 0, 0.25, ..., 1.25 (six of them,
  // the one at 1.5 pending).
  EXPECT_EQ(simulator.get_context().get_discrete_state_vector()[0], 6.0);
}

TEST(WitnessTest, WitnessOfTimeWithAContinuousStateFiresAtTheSameTime) {
  // The same witnesses with a dummy continuous state give the same times as
  // without (the reference the issue was reported against).
  class WithState final : public LeafSystem<double> {
   public:
    WithState() {
      DeclareContinuousState(1);
      DeclareWitnessFunction(
          "t_minus_1", WitnessDirection::kNegativeToPositive,
          [](const Context<double>& c) { return c.get_time() - 1.0; },
          [this](const Context<double>& c) { fired.push_back(c.get_time()); });
    }
    void DoCalcTimeDerivatives(
        const Context<double>&,
        Eigen::Ref<VectorX<double>> xdot) const override {
      xdot[0] = 1;
    }
    std::vector<double> fired;
  } with_state;
  TimeWitnesses without_state({1.0});
  Simulator<double> a(with_state), b(without_state);
  a.AdvanceTo(2.0);
  b.AdvanceTo(2.0);
  ASSERT_EQ(with_state.fired.size(), 1u);
  ASSERT_EQ(without_state.fired[0].size(), 1u);
  EXPECT_NEAR(with_state.fired[0], without_state.fired[0][0], 1e-12);
}

}  // namespace
}  // namespace tern
