#include "tern/systems/analysis/simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/leaf_system.h"
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
  EventStatus Update(const Context<double>& c, DiscreteValues<double>* xd) const {
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
