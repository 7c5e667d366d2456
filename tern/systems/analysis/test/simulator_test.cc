#include "tern/systems/analysis/simulator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "tern/common/autodiff.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/integrators/integrator_error.h"
#include "tern/integrators/integrator_settings.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/leaf_system.h"
#include "tern/systems/primitives/gain.h"
#include "tern/systems/primitives/integrator.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

// Seed 000: x_{n+1} = x_n + 1, y_n = 10 x_n, updated every `period`; logs
// (t, y) on a publish event of the same period.
class SeedCounter final : public LeafSystem<double> {
 public:
  explicit SeedCounter(double period, double publish_period = -1) {
    DeclareDiscreteState(1);
    DeclarePeriodicDiscreteUpdateEvent(period, 0.0, &SeedCounter::Update);
    DeclareVectorOutputPort("y", 1, &SeedCounter::CalcY, ticket::kXd);
    DeclarePeriodicPublishEvent(publish_period > 0 ? publish_period : period,
                                0.0, &SeedCounter::Log);
  }
  std::vector<std::pair<double, double>>& log() const { return log_; }

 private:
  EventStatus Update(const Context<double>& c,
                     DiscreteValues<double>* xd) const {
    xd->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
    return EventStatus::Succeeded();
  }
  void CalcY(const Context<double>& c, VectorX<double>* y) const {
    (*y)[0] = 10 * c.get_discrete_state_vector()[0];
  }
  void Log(const Context<double>& c) const {
    log_.push_back({c.get_time(), get_output_port().Eval(c)[0]});
  }
  mutable std::vector<std::pair<double, double>> log_;
};

TEST(SimulatorTest, SeedExamplePublishesZeroTenTwentyThirty) {
  SeedCounter system(0.02);
  Simulator<double> simulator(system);
  simulator.AdvanceTo(3 * 0.02);
  const auto& log = system.log();
  ASSERT_EQ(log.size(), 4u);
  for (int n = 0; n < 4; ++n) {
    EXPECT_DOUBLE_EQ(log[n].first, n * 0.02);
    EXPECT_EQ(log[n].second, 10.0 * n);
  }
  // The update due at tf = 0.06 has not happened yet...
  EXPECT_EQ(simulator.get_context().get_discrete_state_vector()[0], 3.0);
  // ...it happens at the start of the next step.
  simulator.AdvancePendingEvents();
  EXPECT_EQ(simulator.get_context().get_discrete_state_vector()[0], 4.0);
}

// A start time that is not finite, or so far out that offset + k period
// cannot be scheduled exactly (issue 27: a checkpoint's `time` of inf, nan
// or 1e300 made Initialize loop forever), is refused, naming the time,
// within a second; a large but schedulable start time still works.
TEST(SimulatorTest, RefusesANonFiniteOrOutOfRangeStartTime) {
  for (const double t0 : {std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN(), 1e300}) {
    SeedCounter system(0.02);
    Simulator<double> simulator(system);
    simulator.get_mutable_context().SetTime(t0);
    const auto start = std::chrono::steady_clock::now();
    try {
      simulator.Initialize();
      ADD_FAILURE() << "start time " << t0 << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("start time"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(fmt::format("{}", t0)),
                std::string::npos)
          << e.what();
    }
    EXPECT_LT(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count(),
        1.0);
  }
  SeedCounter system(0.02);
  Simulator<double> simulator(system);
  simulator.get_mutable_context().SetTime(1e6);
  simulator.AdvanceTo(1e6 + 0.04);
  ASSERT_EQ(system.log().size(), 3u);
  EXPECT_DOUBLE_EQ(system.log().back().first, 1e6 + 0.04);
}

// xdot = u where u is the system's own discrete state (held between
// updates); the discrete update sets it to the update count.
class HeldRate final : public LeafSystem<double> {
 public:
  explicit HeldRate(double period) {
    DeclareContinuousState(1);
    DeclareDiscreteState(1);
    DeclarePeriodicDiscreteUpdateEvent(
        period, 0.0, [](const Context<double>& c, DiscreteValues<double>* xd) {
          xd->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
        });
    DeclarePeriodicPublishEvent(period, 0.0, [this](const Context<double>& c) {
      published_.push_back(c.get_continuous_state_vector()[0]);
    });
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = c.get_discrete_state_vector()[0];
  }
  std::vector<double> published_;
};

TEST(SimulatorTest, UpdatesHappenBeforeIntegrationAndPublishSeesPostStep) {
  HeldRate system(0.1);
  Simulator<double> simulator(system);
  simulator.AdvanceTo(0.3);
  // Over (0, 0.1] the rate is x_1 = 1, over (0.1, 0.2] it is 2, then 3.
  EXPECT_NEAR(simulator.get_context().get_continuous_state_vector()[0],
              0.1 * (1 + 2 + 3), 1e-12);
  ASSERT_EQ(system.published_.size(), 4u);  // t = 0, 0.1, 0.2, 0.3
  EXPECT_NEAR(system.published_[1], 0.1, 1e-12);
  EXPECT_NEAR(system.published_[2], 0.3, 1e-12);
  EXPECT_NEAR(system.published_[3], 0.6, 1e-12);
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// Publishes its time at offset + k * period; counts discrete updates.
class Ticker final : public LeafSystem<double> {
 public:
  Ticker(double period, double offset) {
    DeclareDiscreteState(1);
    DeclarePeriodicPublishEvent(
        period, offset,
        [this](const Context<double>& c) { times.push_back(c.get_time()); });
    DeclarePeriodicDiscreteUpdateEvent(
        period, offset,
        [this](const Context<double>& c, DiscreteValues<double>* xd) {
          update_times.push_back(c.get_time());
          xd->get_mutable_vector()[0] += 1;
        });
  }
  std::vector<double> times, update_times;
};

TEST(SimulatorTimingTest, NoDriftOverAMillionPeriods) {
  Ticker ticker(0.001, 0.0005);
  ticker.times.reserve(1000001);
  ticker.update_times.reserve(1000001);
  Simulator<double> simulator(ticker);
  simulator.AdvanceTo(1000.0);
  ASSERT_EQ(ticker.times.size(), 1000000u);  // 0.0005 ... 999.9995
  // Every time is computed afresh as offset + k * period, never accumulated.
  for (size_t k : {size_t{0}, size_t{1}, size_t{499999}, size_t{999999}}) {
    EXPECT_EQ(ticker.times[k], 0.0005 + static_cast<double>(k) * 0.001) << k;
  }
  // The update at each tick happens at the start of the following step.
  EXPECT_EQ(ticker.update_times.size(), 1000000u);
  EXPECT_EQ(ticker.update_times.back(), 0.0005 + 999999 * 0.001);
}

TEST(SimulatorTimingTest, TwoRatesCoincidingFireOnceEach) {
  DiagramBuilder<double> builder;
  auto* a = builder.AddNamedSystem<Ticker>("a", 0.02, 0.0);
  auto* b = builder.AddNamedSystem<Ticker>("b", 0.03, 0.0);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.AdvanceTo(0.061);
  EXPECT_EQ(a->times.size(), 4u);         // 0, .02, .04, .06
  EXPECT_EQ(b->times.size(), 3u);         // 0, .03, .06
  EXPECT_EQ(a->update_times.size(), 4u);  // 0, .02, .04, .06 (start of step)
  EXPECT_EQ(b->update_times.size(), 3u);
  // Steps land on 0.02, 0.03, 0.04, 0.06, 0.061: five steps.
  EXPECT_EQ(simulator.get_statistics().steps, 5);
}

// x_{n+1} = other's output + 1, where the other system does the same: if
// both updates see the same x⁻, they stay equal.
class Follower final : public LeafSystem<double> {
 public:
  Follower() {
    DeclareDiscreteState(1);
    DeclareVectorInputPort("other", 1);
    DeclareVectorOutputPort(
        "x", 1,
        [](const Context<double>& c, VectorX<double>* y) {
          *y = c.get_discrete_state_vector();
        },
        ticket::kXd);
    DeclarePeriodicDiscreteUpdateEvent(
        0.1, 0.0, [this](const Context<double>& c, DiscreteValues<double>* xd) {
          xd->get_mutable_vector()[0] = get_input_port().Eval(c)[0] + 1;
        });
  }
};

TEST(SimulatorTimingTest, SimultaneousDiscreteUpdatesSeeTheSamePreUpdateState) {
  DiagramBuilder<double> builder;
  auto* a = builder.AddNamedSystem<Follower>("a");
  auto* b = builder.AddNamedSystem<Follower>("b");
  builder.Connect(a->get_output_port(), b->get_input_port());
  builder.Connect(b->get_output_port(), a->get_input_port());
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.AdvanceTo(0.35);  // updates at 0, 0.1, 0.2, 0.3
  const auto& ctx = simulator.get_context();
  EXPECT_EQ(a->GetMyContextFromRoot(ctx).get_discrete_state_vector()[0], 4.0);
  EXPECT_EQ(b->GetMyContextFromRoot(ctx).get_discrete_state_vector()[0], 4.0);
}

// An unrestricted update sets u = 100 * n; a discrete update then reads u.
class Ordering final : public LeafSystem<double> {
 public:
  Ordering() {
    DeclareDiscreteState(1);
    DeclareAbstractState(0.0);
    DeclarePeriodicDiscreteUpdateEvent(
        1.0, 0.0, [](const Context<double>& c, DiscreteValues<double>* xd) {
          xd->get_mutable_vector()[0] = c.get_abstract_state<double>(0);
        });
    DeclarePeriodicUnrestrictedUpdateEvent(
        1.0, 0.0, [](const Context<double>& c, State<double>* s) {
          s->get_mutable_abstract_state<double>(0) =
              c.get_abstract_state<double>(0) + 100;
        });
    DeclareInitializationUnrestrictedUpdateEvent(
        [](const Context<double>&, State<double>* s) {
          s->get_mutable_abstract_state<double>(0) = 7;
        });
    DeclareInitializationPublishEvent([this](const Context<double>& c) {
      init_seen = c.get_abstract_state<double>(0);
    });
  }
  double init_seen = -1;
};

TEST(SimulatorTimingTest, InitializationThenUnrestrictedBeforeDiscrete) {
  Ordering system;
  Simulator<double> simulator(system);
  simulator.Initialize();
  EXPECT_EQ(system.init_seen, 7.0);  // initialization publish sees init update
  simulator.AdvanceTo(0.5);
  // At t = 0 the unrestricted update makes 107, then the discrete update
  // (run after it) copies 107.
  EXPECT_EQ(simulator.get_context().get_abstract_state<double>(0), 107.0);
  EXPECT_EQ(simulator.get_context().get_discrete_state_vector()[0], 107.0);
}

// Continuous integrator fed by a zero-order hold of a discrete ramp:
// u_k = k held on [k h, (k+1) h), so x(t) is the integral of a staircase.
class StaircaseIntegrator final : public LeafSystem<double> {
 public:
  explicit StaircaseIntegrator(double h) {
    DeclareContinuousState(1);
    DeclareDiscreteState(VectorX<double>::Constant(1, -1.0));  // held sample
    DeclarePeriodicDiscreteUpdateEvent(
        h, 0.0, [](const Context<double>& c, DiscreteValues<double>* xd) {
          xd->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
        });
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = c.get_discrete_state_vector()[0];
  }
};

TEST(SimulatorTimingTest, IntegratorOfZeroOrderHoldIntegratesAStaircase) {
  const double h = 0.25;
  StaircaseIntegrator system(h);
  Simulator<double> simulator(system);
  simulator.reset_integrator<ExplicitEuler>(
      0.1);  // exact for piecewise constants
  simulator.AdvanceTo(1.0);
  // Samples 0, 1, 2, 3 held for 0.25 s each: integral = 0.25 * 6.
  EXPECT_NEAR(simulator.get_context().get_continuous_state_vector()[0], 1.5,
              1e-12);
}

// A counter sampled every h with output y = xd (discrete state only).
class SampledCounter final : public LeafSystem<double> {
 public:
  explicit SampledCounter(double h) {
    DeclareDiscreteState(VectorX<double>::Constant(1, -1.0));
    DeclarePeriodicDiscreteUpdateEvent(
        h, 0.0, [](const Context<double>& c, DiscreteValues<double>* xd) {
          xd->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
        });
    DeclareVectorOutputPort(
        "y", 1,
        [](const Context<double>& c, VectorX<double>* y) {
          *y = c.get_discrete_state_vector();
        },
        ticket::kXd);
  }
};

// The Gain's kernel reads the counter's output directly from the
// Simulator's evaluation plan; after every update the plan must refresh it.
TEST(SimulatorTimingTest, KernelBlocksSeeDiscreteUpdatesUpstream) {
  const double h = 0.25;
  DiagramBuilder<double> builder;
  auto* counter = builder.AddSystem<SampledCounter>(h);
  auto* gain = builder.AddSystem<Gain<double>>(2.0, 1);
  auto* integral = builder.AddSystem<Integrator<double>>(1);
  builder.Connect(counter->get_output_port(), gain->get_input_port());
  builder.Connect(gain->get_output_port(), integral->get_input_port());
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<ExplicitEuler>(0.1);
  simulator.AdvanceTo(1.0);
  // 2 * (0 + 1 + 2 + 3) * 0.25.
  EXPECT_NEAR(simulator.get_context().get_continuous_state_vector()[0], 3.0,
              1e-12);
}

// A unit mass on a rail: q' = v, v' = u, with y = q (no feedthrough).
class UnitMass final : public LeafSystem<double> {
 public:
  UnitMass() {
    DeclareContinuousState(Eigen::Vector2d(1.0, 0.0), 1, 1);
    DeclareVectorInputPort("force", 1);
    DeclareVectorOutputPort(
        "q", 1,
        [](const Context<double>& c, VectorX<double>* y) {
          (*y)[0] = c.get_continuous_state_vector()[0];
        },
        ticket::kXc);
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = c.get_continuous_state_vector()[1];
    xdot[1] = get_input_port(0).Eval(c)[0];
  }
};

// A spring as a Gain kernel closing the loop around the mass: q'' = -q,
// q(t) = cos t. The second-order rules see [q; v] through the Simulator's
// second-order adapter, evaluated through the same plan as the others.
TEST(SimulatorTest, SecondOrderRulesIntegrateASpringMassThroughThePlan) {
  DiagramBuilder<double> builder;
  auto* mass = builder.AddSystem<UnitMass>();
  auto* spring = builder.AddSystem<Gain<double>>(-1.0, 1);
  builder.Connect(mass->get_output_port(), spring->get_input_port());
  builder.Connect(spring->get_output_port(), mass->get_input_port());
  auto diagram = builder.Build();
  for (const char* rule : {"velocity_verlet", "semi_explicit_euler", "rk4"}) {
    Simulator<double> simulator(*diagram);
    IntegratorSettings settings;
    settings.fixed_step = 1e-3;
    simulator.reset_integrator(rule, settings);
    simulator.AdvanceTo(2.0);
    const auto x = simulator.get_context().get_continuous_state_vector();
    // First-order semi-explicit Euler: error O(h); the others O(h^2) or less.
    const double tol = std::string(rule) == "semi_explicit_euler" ? 2e-3 : 1e-6;
    EXPECT_NEAR(x[0], std::cos(2.0), tol) << rule;
    EXPECT_NEAR(x[1], -std::sin(2.0), tol) << rule;
  }
}

TEST(SimulatorTest, MonitorStopsTheRunWithAReason) {
  HeldRate system(0.1);
  Simulator<double> simulator(system);
  simulator.reset_integrator<RK4>(1e-3);
  simulator.set_monitor([](const Context<double>& c) {
    if (c.get_continuous_state_vector()[0] > 0.25)
      return EventStatus::ReachedTermination("x passed 0.25");
    return EventStatus::Succeeded();
  });
  const SimulatorStatus status = simulator.AdvanceTo(10.0);
  EXPECT_EQ(status.reason, SimulatorStatus::kReachedTerminationCondition);
  EXPECT_NE(status.message.find("x passed 0.25"), std::string::npos);
  // x = 0.1 + 2 (t - 0.1) on (0.1, 0.2]: passes 0.25 at t = 0.175; the
  // monitor runs after each 1 ms step.
  EXPECT_NEAR(status.return_time, 0.1755, 1.01e-3);
  EXPECT_GT(simulator.get_context().get_continuous_state_vector()[0], 0.25);
  EXPECT_LT(simulator.get_context().get_continuous_state_vector()[0], 0.253);
  EXPECT_EQ(simulator.get_context().get_time(), status.return_time);
}

class FailingUpdate final : public LeafSystem<double> {
 public:
  FailingUpdate() {
    set_name("fragile");
    DeclareDiscreteState(1);
    DeclarePeriodicDiscreteUpdateEvent(
        0.5, 0.0, [](const Context<double>& c, DiscreteValues<double>*) {
          if (c.get_time() > 0.9) return EventStatus::Failed("sensor lost");
          return EventStatus::Succeeded();
        });
  }
};

TEST(SimulatorTest, FailedEventThrowsNamingSystemAndTime) {
  FailingUpdate system;
  Simulator<double> simulator(system);
  try {
    simulator.AdvanceTo(2.0);
    FAIL();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'fragile'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("t = 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sensor lost"), std::string::npos) << msg;
  }
  EXPECT_THROW(simulator.AdvanceTo(0.5), std::invalid_argument);  // backwards
}

// xdot = x^2 from x(0) = 1 blows up at t = 1.
class BlowUp final : public LeafSystem<double> {
 public:
  BlowUp() {
    set_name("blowup");
    DeclareContinuousState(VectorX<double>::Ones(1));
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] =
        c.get_continuous_state_vector()[0] * c.get_continuous_state_vector()[0];
  }
};

TEST(SimulatorTest, FailedStepLeavesContextAtLastGoodState) {
  BlowUp system;
  Simulator<double> simulator(system);
  simulator.reset_integrator<ExplicitEuler>(0.1);
  EXPECT_THROW(simulator.AdvanceTo(100.0), std::runtime_error);
  const auto& ctx = simulator.get_context();
  EXPECT_TRUE(std::isfinite(ctx.get_continuous_state_vector()[0]));
  EXPECT_GT(ctx.get_time(), 0.9);
  // The context is consistent: its time is a step boundary.
  EXPECT_NEAR(ctx.get_time() / 0.1, std::round(ctx.get_time() / 0.1), 1e-9);
}

class PerStep final : public LeafSystem<double> {
 public:
  PerStep() {
    DeclareContinuousState(1);
    DeclarePerStepPublishEvent([this](const Context<double>&) { ++publishes; });
    DeclarePerStepDiscreteUpdateEvent(
        [this](const Context<double>&, DiscreteValues<double>*) { ++updates; });
    DeclareForcedPublishEvent([this](const Context<double>&) { ++forced; });
  }
  void DoCalcTimeDerivatives(const Context<double>&,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = 1;
  }
  int publishes = 0, updates = 0, forced = 0;
};

TEST(SimulatorTest, PerStepEventsAndPublishEveryTimeStep) {
  PerStep system;
  Simulator<double> simulator(system);
  simulator.reset_integrator<RK4>(0.1);
  simulator.set_publish_every_time_step(true);
  simulator.AdvanceTo(1.0);
  const auto& stats = simulator.get_statistics();
  EXPECT_EQ(stats.steps, 10);
  EXPECT_EQ(system.updates, 10);    // at the start of each step
  EXPECT_EQ(system.publishes, 11);  // at initialization and after each step
  EXPECT_EQ(system.forced, 11);
  EXPECT_EQ(stats.derivative_evaluations, 40);
  EXPECT_NEAR(simulator.get_context().get_continuous_state_vector()[0], 1.0,
              1e-12);
}

TEST(SimulatorTest, RealtimeRatePacesTheRun) {
  PerStep system;
  Simulator<double> simulator(system);
  simulator.reset_integrator<RK4>(0.01);
  simulator.set_target_realtime_rate(2.0);
  const auto start = std::chrono::steady_clock::now();
  simulator.AdvanceTo(0.1);  // 0.1 s of simulated time at 2x: >= 0.05 s
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_GE(wall, 0.045);
  EXPECT_THROW(simulator.set_target_realtime_rate(-1), std::invalid_argument);
}

// y = k u chain of ten blocks around an integrator, simulated with RK4.
class ChainGain final : public LeafSystem<double> {
 public:
  explicit ChainGain(double k) : k_(k) {
    DeclareVectorInputPort("u", 1);
    DeclareVectorOutputPort(
        "y", 1, [this](const Context<double>& c, VectorX<double>* y) {
          (*y)[0] = k_ * get_input_port().Eval(c)[0];
        });
  }

 private:
  double k_;
};

class ChainIntegrator final : public LeafSystem<double> {
 public:
  ChainIntegrator() {
    DeclareContinuousState(VectorX<double>::Ones(1));
    DeclareVectorInputPort("u", 1);
    DeclareVectorOutputPort(
        "y", 1,
        [](const Context<double>& c, VectorX<double>* y) {
          *y = c.get_continuous_state_vector();
        },
        ticket::kXc);
    DeclarePeriodicDiscreteUpdateEvent(
        0.01, 0.0, [](const Context<double>&, DiscreteValues<double>*) {});
    DeclarePeriodicPublishEvent(0.01, 0.0, [](const Context<double>&) {});
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = get_input_port().Eval(c)[0];
  }
};

TEST(SimulatorTest, AdvanceToDoesNotAllocateAfterInitialize) {
  DiagramBuilder<double> builder;
  auto* integrator = builder.AddNamedSystem<ChainIntegrator>("x");
  const OutputPort<double>* previous = &integrator->get_output_port();
  for (int i = 0; i < 9; ++i) {
    auto* gain = builder.AddSystem<ChainGain>(i == 0 ? -1.0 : 1.0);
    builder.Connect(*previous, gain->get_input_port());
    previous = &gain->get_output_port();
  }
  builder.Connect(*previous, integrator->get_input_port());
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(0.001);
  simulator.Initialize();
  simulator.AdvanceTo(0.01);
  {
    test::ScopedAllocationCounter counter;
    simulator.AdvanceTo(1.0);
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_NEAR(simulator.get_context().get_continuous_state_vector()[0],
              std::exp(-1.0), 1e-10);
}

TEST(SimulatorTest, AutoDiffSimulationCarriesDerivatives) {
  // xdot = -x with x(0) = a: d x(1) / d a = e^{-1}.
  class Decay final : public LeafSystem<AutoDiffXd> {
   public:
    Decay() { DeclareContinuousState(1); }
    void DoCalcTimeDerivatives(
        const Context<AutoDiffXd>& c,
        Eigen::Ref<VectorX<AutoDiffXd>> xdot) const override {
      xdot = -c.get_continuous_state_vector();
    }
  };
  Decay system;
  Simulator<AutoDiffXd> simulator(system);
  simulator.get_mutable_context().SetContinuousState(
      InitializeAutoDiff(Eigen::VectorXd::Constant(1, 2.0)));
  simulator.reset_integrator<RK4>(0.01);
  simulator.AdvanceTo(1.0);
  const AutoDiffXd x = simulator.get_context().get_continuous_state_vector()[0];
  EXPECT_NEAR(x.value(), 2.0 * std::exp(-1.0), 1e-9);
  EXPECT_NEAR(x.derivatives()[0], std::exp(-1.0), 1e-9);
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

class TwoInputAdder final : public LeafSystem<double> {
 public:
  TwoInputAdder() {
    DeclareVectorInputPort("a", 1);
    DeclareVectorInputPort("b", 1);
    DeclareVectorOutputPort(
        "y", 1, [this](const Context<double>& c, VectorX<double>* y) {
          (*y)[0] = get_input_port(0).Eval(c)[0] + get_input_port(1).Eval(c)[0];
        });
  }
};

TEST(SimulatorTest, FanOutAndTwoInputBlockIntegrateCorrectly) {
  // x -> g1 (-1) -> g2 (0.5) -> adder(a) ; g1 -> adder(b) ; adder -> x:
  // xdot = (-0.5 - 1) x.
  DiagramBuilder<double> builder;
  auto* x = builder.AddNamedSystem<ChainIntegrator>("x");
  auto* g1 = builder.AddNamedSystem<ChainGain>("g1", -1.0);
  auto* g2 = builder.AddNamedSystem<ChainGain>("g2", 0.5);
  auto* adder = builder.AddNamedSystem<TwoInputAdder>("adder");
  builder.Connect(x->get_output_port(), g1->get_input_port());
  builder.Connect(g1->get_output_port(), g2->get_input_port());
  builder.Connect(g2->get_output_port(), adder->get_input_port(0));
  builder.Connect(g1->get_output_port(), adder->get_input_port(1));
  builder.Connect(adder->get_output_port(), x->get_input_port());
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(1e-3);
  simulator.AdvanceTo(2.0);
  EXPECT_NEAR(simulator.get_context().get_continuous_state_vector()[0],
              std::exp(-3.0), 1e-10);
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// Records the times of its periodic publish.
class PublishTimes final : public LeafSystem<double> {
 public:
  explicit PublishTimes(double period) {
    DeclarePeriodicPublishEvent(period, 0.0, [this](const Context<double>& c) {
      times.push_back(c.get_time());
    });
  }
  mutable std::vector<double> times;
};

// Between events, with nothing to do per step, the Simulator takes steps
// back to back; a monitor forces the step-by-step loop. Both must give the
// same run.
TEST(SimulatorTest, StepsBetweenEventsRunBackToBackWithTheSameResult) {
  const auto run = [](bool with_monitor) {
    DiagramBuilder<double> builder;
    auto* x = builder.AddSystem<Integrator<double>>(VectorX<double>::Ones(1));
    auto* k = builder.AddSystem<Gain<double>>(-1.0, 1);
    auto* log = builder.AddSystem<PublishTimes>(0.25);
    builder.Connect(x->get_output_port(), k->get_input_port());
    builder.Connect(k->get_output_port(), x->get_input_port());
    auto diagram = builder.Build();
    Simulator<double> simulator(*diagram);
    simulator.reset_integrator<RK4>(0.1);
    int monitor_calls = 0;
    if (with_monitor) {
      simulator.set_monitor([&](const Context<double>&) {
        ++monitor_calls;
        return EventStatus::Succeeded();
      });
    }
    simulator.AdvanceTo(1.0);
    const double x_final =
        simulator.get_context().get_continuous_state_vector()[0];
    return std::make_tuple(x_final, simulator.get_statistics().steps,
                           log->times, monitor_calls);
  };
  const auto [x_quiet, steps_quiet, times_quiet, calls_quiet] = run(false);
  const auto [x_watched, steps_watched, times_watched, calls] = run(true);
  EXPECT_EQ(x_quiet, x_watched);
  // Steps of 0.1 up to each quarter: 0.1, 0.2, 0.25, 0.35, ...
  EXPECT_EQ(steps_quiet, 12);
  EXPECT_EQ(steps_watched, 12);
  EXPECT_EQ(times_quiet, (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(times_quiet, times_watched);
  EXPECT_EQ(calls_quiet, 0);
  EXPECT_EQ(calls, 13);  // at initialization and after each step
  EXPECT_NEAR(x_quiet, std::exp(-1.0), 1e-6);
}

// ---- Order of events at a common time: per-step first, then timed
// (periodic), then witness-triggered, for publishes and for each kind of
// update (docs/semantics.md, "Events at the same time").
class EventOrder final : public LeafSystem<double> {
 public:
  explicit EventOrder(std::vector<std::string>* log) : log_(log) {
    DeclareDiscreteState(1);
    // Publishes.
    DeclarePerStepPublishEvent(
        [this](const Context<double>& c) { Note("publish per-step", c); });
    DeclarePeriodicPublishEvent(0.5, 0.0, [this](const Context<double>& c) {
      Note("publish periodic", c);
    });
    DeclareWitnessFunction(
        "publish_at_half", WitnessDirection::kNegativeToPositive,
        [](const Context<double>& c) { return c.get_time() - 0.5; },
        [this](const Context<double>& c) { Note("publish witness", c); });
    // Discrete updates.
    DeclarePerStepDiscreteUpdateEvent(
        [this](const Context<double>& c, DiscreteValues<double>*) {
          Note("discrete per-step", c);
        });
    DeclarePeriodicDiscreteUpdateEvent(
        0.5, 0.0, [this](const Context<double>& c, DiscreteValues<double>*) {
          Note("discrete periodic", c);
        });
    DeclareWitnessFunction(
        "discrete_at_half", WitnessDirection::kNegativeToPositive,
        [](const Context<double>& c) { return c.get_time() - 0.5; },
        [this](const Context<double>& c, DiscreteValues<double>*) {
          Note("discrete witness", c);
        });
    // Unrestricted updates.
    DeclarePerStepUnrestrictedUpdateEvent(
        [this](const Context<double>& c, State<double>*) {
          Note("unrestricted per-step", c);
        });
    DeclarePeriodicUnrestrictedUpdateEvent(
        0.5, 0.0, [this](const Context<double>& c, State<double>*) {
          Note("unrestricted periodic", c);
        });
    DeclareWitnessFunction(
        "unrestricted_at_half", WitnessDirection::kNegativeToPositive,
        [](const Context<double>& c) { return c.get_time() - 0.5; },
        [this](const Context<double>& c, State<double>*) {
          Note("unrestricted witness", c);
        });
  }

 private:
  void Note(const char* what, const Context<double>& c) const {
    if (c.get_time() == 0.5) log_->push_back(what);
  }
  std::vector<std::string>* log_;
};

TEST(SimulatorTimingTest, PerStepThenTimedThenWitnessEventsAtACommonTime) {
  std::vector<std::string> log;
  EventOrder system(&log);
  Simulator<double> simulator(system);
  simulator.AdvanceTo(0.5);
  // Publishes at the end of the step that reaches 0.5.
  EXPECT_EQ(log,
            (std::vector<std::string>{"publish per-step", "publish periodic",
                                      "publish witness"}));
  log.clear();
  // Updates at 0.5 at the start of the next step: unrestricted, then
  // discrete, each in the same order.
  simulator.AdvanceTo(0.75);
  EXPECT_EQ(log, (std::vector<std::string>{
                     "unrestricted per-step", "unrestricted periodic",
                     "unrestricted witness", "discrete per-step",
                     "discrete periodic", "discrete witness"}));
}

// ---- AdvancePendingEvents reports termination as AdvanceTo does.
class StopsAtOne final : public LeafSystem<double> {
 public:
  StopsAtOne() {
    set_name("stopper");
    DeclareDiscreteState(1);
    DeclarePeriodicDiscreteUpdateEvent(
        1.0, 0.0, [](const Context<double>& c, DiscreteValues<double>* x) {
          x->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
          if (c.get_time() >= 1.0)
            return EventStatus::ReachedTermination("done");
          return EventStatus::Succeeded();
        });
  }
};

TEST(SimulatorTest, AdvancePendingEventsReturnsTermination) {
  StopsAtOne system;
  Simulator<double> simulator(system);
  // The update due at 1 is pending when AdvanceTo(1) returns.
  EXPECT_TRUE(simulator.AdvanceTo(1.0).succeeded());
  EXPECT_EQ(simulator.get_context().get_discrete_state_vector()[0], 1.0);
  const SimulatorStatus status = simulator.AdvancePendingEvents();
  EXPECT_EQ(status.reason, SimulatorStatus::kReachedTerminationCondition);
  EXPECT_EQ(status.return_time, 1.0);
  EXPECT_NE(status.message.find("stopper"), std::string::npos);
  EXPECT_NE(status.message.find("done"), std::string::npos);
  EXPECT_EQ(simulator.get_context().get_discrete_state_vector()[0], 2.0);
  // Nothing pending any more: a second call has nothing to report.
  EXPECT_TRUE(simulator.AdvancePendingEvents().succeeded());
}

// ---- A derivative that becomes NaN is reported as such, naming the leaf
// system, its state entry and the time, whatever the integrator.
class NanAfterHalf final : public LeafSystem<double> {
 public:
  NanAfterHalf() {
    set_name("fragile_plant");
    DeclareContinuousState(Eigen::Vector2d(0.0, 1.0), 1, 1);  // [q; v]
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = c.get_continuous_state_vector()[1];
    xdot[1] = std::sqrt(0.5 - c.get_time());  // NaN after t = 0.5
  }
};

// A harmonic oscillator [q; v], healthy throughout.
class Oscillator final : public LeafSystem<double> {
 public:
  Oscillator() { DeclareContinuousState(Eigen::Vector2d(1, 0), 1, 1); }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = c.get_continuous_state_vector()[1];
    xdot[1] = -c.get_continuous_state_vector()[0];
  }
};

TEST(SimulatorTest, NanDerivativeIsReportedWithLeafEntryAndTime) {
  // The failing leaf comes second, so its entries are not the diagram's
  // first: the message must use the leaf's own index, not the global one.
  DiagramBuilder<double> builder;
  builder.AddSystem<Oscillator>();
  builder.AddSystem<NanAfterHalf>();
  const auto diagram = builder.Build();
  for (const std::string integrator :
       {"dopri5", "radau5", "rk4", "implicit_euler", "semi_explicit_euler"}) {
    Simulator<double> simulator(*diagram);
    IntegratorSettings settings;
    settings.fixed_step = 0.01;
    simulator.reset_integrator(integrator, settings);
    std::string message;
    try {
      simulator.AdvanceTo(2.0);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    SCOPED_TRACE(integrator + ": " + message);
    EXPECT_NE(message.find("NaN"), std::string::npos);
    EXPECT_NE(message.find("fragile_plant"), std::string::npos);
    EXPECT_NE(message.find("continuous state entry 1 (v[0])"),
              std::string::npos);
    // The time named is where the NaN first appeared (a stage of the
    // failing step, after 0.5).
    const auto at = message.find("at t = ");
    ASSERT_NE(at, std::string::npos);
    const double t_nan = std::stod(message.substr(at + 7));
    EXPECT_GT(t_nan, 0.5);
    EXPECT_LT(t_nan, 2.0);
    // The context stays at the last good state, before the NaN.
    const auto& context = simulator.get_context();
    EXPECT_LE(context.get_time(), t_nan);
    EXPECT_GE(context.get_time(), 0.45);
    EXPECT_TRUE(context.get_continuous_state_vector().allFinite());
  }
}

// An integrator failure without NaN (here a step that would have to shrink
// below a minimum step set too large for a stiff leaf) names the leaf system
// and entry behind the integrator's component index.
class StiffRelaxation final : public LeafSystem<double> {
 public:
  StiffRelaxation() {
    set_name("stiff_leaf");
    DeclareContinuousState(1);
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] =
        -1e4 * (c.get_continuous_state_vector()[0] - std::cos(c.get_time()));
  }
};

TEST(SimulatorTest, IntegratorFailureNamesTheLeafAndEntry) {
  DiagramBuilder<double> builder;
  builder.AddSystem<Oscillator>();
  builder.AddSystem<StiffRelaxation>();
  const auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  IntegratorSettings settings;
  settings.rtol = settings.atol = 1e-8;
  settings.min_step = 1e-2;  // far above dopri5's stability limit here
  simulator.reset_integrator("dopri5", settings);
  std::string message;
  try {
    simulator.AdvanceTo(1.0);
  } catch (const IntegratorStepError& e) {
    message = e.what();
    EXPECT_EQ(e.component(), 2);
  }
  EXPECT_NE(message.find("dopri5"), std::string::npos) << message;
  EXPECT_NE(message.find("state component 2 is continuous state entry 0 (z[0]) "
                         "of system 'diagram/stiff_leaf'"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("NaN"), std::string::npos) << message;
}

}  // namespace
}  // namespace tern
