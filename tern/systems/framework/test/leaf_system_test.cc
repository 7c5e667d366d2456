#include "tern/systems/framework/leaf_system.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tern {
namespace {

// Records which handlers ran; each kind of event once per trigger.
class EventRecorder final : public LeafSystem<double> {
 public:
  EventRecorder() {
    DeclareDiscreteState(1);
    DeclareAbstractState(0);
    DeclarePeriodicPublishEvent(0.1, 0.0, &EventRecorder::OnPublish);
    DeclarePeriodicDiscreteUpdateEvent(0.1, 0.0, &EventRecorder::OnDiscrete);
    DeclarePeriodicUnrestrictedUpdateEvent(0.1, 0.0,
                                           &EventRecorder::OnUnrestricted);
    DeclareForcedPublishEvent(
        [this](const Context<double>&) { calls.push_back("forced publish"); });
    DeclareForcedDiscreteUpdateEvent(
        [](const Context<double>&, DiscreteValues<double>* xd) {
          xd->get_mutable_vector()[0] = -1;
          return EventStatus::Succeeded();
        });
  }
  mutable std::vector<std::string> calls;

 private:
  void OnPublish(const Context<double>&) const { calls.push_back("publish"); }
  EventStatus OnDiscrete(const Context<double>& c,
                         DiscreteValues<double>* xd) const {
    calls.push_back("discrete");
    xd->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
    return EventStatus::Succeeded();
  }
  EventStatus OnUnrestricted(const Context<double>& c, State<double>* s) const {
    calls.push_back("unrestricted");
    s->get_mutable_abstract_state<int>(0) = c.get_abstract_state<int>(0) + 10;
    return EventStatus::Succeeded();
  }
};

TEST(LeafSystemTest, AlgorithmsCanCallUpdatesAndPublishDirectly) {
  EventRecorder system;
  auto context = system.CreateDefaultContext();
  auto next = context->Clone();
  DiscreteValues<double> xd = next->get_mutable_discrete_state();
  system.CalcDiscreteVariableUpdate(*context, &xd);
  EXPECT_EQ(next->get_discrete_state_vector()[0], 1.0);
  EXPECT_EQ(context->get_discrete_state_vector()[0], 0.0);  // input untouched
  State<double> state = next->get_mutable_state();
  system.CalcUnrestrictedUpdate(*context, &state);
  EXPECT_EQ(next->get_abstract_state<int>(0), 10);
  system.Publish(*context);
  system.ForcedPublish(*context);
  system.CalcForcedDiscreteUpdate(*context, &xd);
  EXPECT_EQ(next->get_discrete_state_vector()[0], -1.0);
  EXPECT_EQ(system.calls,
            (std::vector<std::string>{"discrete", "unrestricted", "publish",
                                      "forced publish"}));
}

class BadPeriod final : public LeafSystem<double> {
 public:
  BadPeriod() {
    set_name("bad");
    DeclarePeriodicPublishEvent(0.0, 0.0, [](const Context<double>&) {});
  }
};

TEST(LeafSystemTest, BadDeclarationsThrow) {
  try {
    BadPeriod bad;
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(
        std::string(e.what()).find("System 'bad': periodic publish event"),
        std::string::npos)
        << e.what();
  }
}

class MissingDerivatives final : public LeafSystem<double> {
 public:
  MissingDerivatives() {
    set_name("lazy");
    DeclareContinuousState(2);
  }
};

TEST(LeafSystemTest, ContinuousStateWithoutDerivativesThrowsClearly) {
  MissingDerivatives system;
  auto context = system.CreateDefaultContext();
  VectorX<double> xdot(2);
  try {
    system.CalcTimeDerivatives(*context, &xdot);
    FAIL();
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'lazy' declares 2 continuous states"),
              std::string::npos);
  }
  VectorX<double> wrong(3);
  EXPECT_THROW(system.CalcTimeDerivatives(*context, &wrong),
               std::invalid_argument);
}

class TwoPorts final : public LeafSystem<double> {
 public:
  TwoPorts() {
    DeclareVectorInputPort("u", 1);
    DeclareVectorOutputPort("through", 1,
                            [](const Context<double>&, VectorX<double>*) {});
    DeclareVectorOutputPort(
        "state_only", 1, [](const Context<double>&, VectorX<double>*) {},
        ticket::kXd | ticket::kParams);
  }
};

TEST(LeafSystemTest, FeedthroughIsInferredFromPrerequisites) {
  TwoPorts system;
  EXPECT_TRUE(system.HasDirectFeedthrough(0, 0));
  EXPECT_FALSE(system.HasDirectFeedthrough(0, 1));
  EXPECT_THROW(system.get_output_port("nope"), std::invalid_argument);
  EXPECT_EQ(system.get_output_port("state_only").get_index(), 1);
}

TEST(LeafSystemTest, RandomInputPortTag) {
  class Noisy final : public LeafSystem<double> {
   public:
    Noisy() {
      DeclareVectorInputPort("w", 2, RandomDistribution::kGaussian);
      DeclareVectorInputPort("u", 1);
    }
  };
  Noisy noisy;
  EXPECT_TRUE(noisy.get_input_port(0).is_random());
  EXPECT_EQ(noisy.get_input_port(0).get_random_type(),
            RandomDistribution::kGaussian);
  EXPECT_FALSE(noisy.get_input_port(1).is_random());
}

// Periods and offsets of periodic events must be finite (an infinite offset
// used to be accepted, and the event silently never fired).
TEST(LeafSystemTest, PeriodicEventTimingMustBeFinite) {
  class Periodic final : public LeafSystem<double> {
   public:
    Periodic(double period, double offset) {
      DeclarePeriodicPublishEvent(period, offset, &Periodic::OnPublish);
    }

   private:
    void OnPublish(const Context<double>&) const {}
  };
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NO_THROW(Periodic(0.1, 0.0));
  for (auto [period, offset] :
       {std::pair{0.1, inf}, std::pair{0.1, nan}, std::pair{0.1, -1.0},
        std::pair{inf, 0.0}, std::pair{nan, 0.0}, std::pair{0.0, 0.0}}) {
    try {
      Periodic p(period, offset);
      ADD_FAILURE() << "no throw for period " << period << ", offset "
                    << offset;
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(fmt::format("period {}, offset {}", period, offset)),
                std::string::npos)
          << msg;
    }
  }
}

}  // namespace
}  // namespace tern
