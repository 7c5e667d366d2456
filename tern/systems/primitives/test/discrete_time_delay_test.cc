#include "tern/systems/primitives/discrete_time_delay.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/integrator.h"
#include "tern/systems/primitives/multiplexer.h"
#include "tern/systems/primitives/vector_log_sink.h"
#include "tern/systems/primitives/zero_order_hold.h"

namespace tern {
namespace {

// u(t) = [t; -2t] into a k-step delay of period h: a publish at t_n = n h
// sees u(t_{n-k}), or zero for n < k.
TEST(DiscreteTimeDelayTest, DelaysASampledRampByKPeriods) {
  const double h = 0.05;
  const int k = 3;
  DiagramBuilder<double> builder;
  auto* rate =
      builder.AddSystem<ConstantVectorSource<double>>(Eigen::Vector2d(1, -2));
  auto* ramp = builder.AddSystem<Integrator<double>>(2);
  auto* delay = builder.AddSystem<DiscreteTimeDelay<double>>(h, k, 2);
  auto* sink = builder.AddSystem<VectorLogSink<double>>(2, h);
  builder.Connect(*rate, *ramp);
  builder.Connect(*ramp, *delay);
  builder.Connect(*delay, *sink);
  auto diagram = builder.Build();
  EXPECT_FALSE(delay->HasDirectFeedthrough(0, 0));
  Simulator<double> simulator(*diagram);
  simulator.AdvanceTo(12 * h);
  const auto& log = sink->GetLog(simulator.get_context());
  ASSERT_EQ(log.num_samples(), 13);
  for (int n = 0; n <= 12; ++n) {
    const double delayed_t = n >= k ? (n - k) * h : 0.0;
    EXPECT_NEAR(log.data()(0, n), delayed_t, 1e-12) << "n = " << n;
    EXPECT_NEAR(log.data()(1, n), -2 * delayed_t, 1e-12) << "n = " << n;
  }
}

// With k = 1 the delay is a zero-order hold: both outputs agree at every
// step of a simulation with steps finer than the period.
TEST(DiscreteTimeDelayTest, OneStepDelayIsAZeroOrderHold) {
  const double h = 0.1;
  DiagramBuilder<double> builder;
  auto* rate = builder.AddSystem<ConstantVectorSource<double>>(1.0);
  auto* ramp = builder.AddSystem<Integrator<double>>(1);
  auto* delay = builder.AddSystem<DiscreteTimeDelay<double>>(h, 1, 1);
  auto* zoh = builder.AddSystem<ZeroOrderHold<double>>(h, 1);
  auto* mux = builder.AddSystem<Multiplexer<double>>(2);
  auto* sink = builder.AddSystem<VectorLogSink<double>>(2);  // every step
  builder.Connect(*rate, *ramp);
  builder.Connect(ramp->get_output_port(), delay->get_input_port());
  builder.Connect(ramp->get_output_port(), zoh->get_input_port());
  builder.Connect(delay->get_output_port(), mux->get_input_port(0));
  builder.Connect(zoh->get_output_port(), mux->get_input_port(1));
  builder.Connect(*mux, *sink);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(0.02);
  simulator.AdvanceTo(1.0);
  const auto& log = sink->GetLog(simulator.get_context());
  ASSERT_GE(log.num_samples(), 50);
  EXPECT_EQ(log.data().row(0), log.data().row(1));
}

TEST(DiscreteTimeDelayTest, RejectsBadArguments) {
  try {
    DiscreteTimeDelay<double> delay(0.1, 0, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "DiscreteTimeDelay: delay_steps must be at least 1, got 0");
  }
  EXPECT_THROW(DiscreteTimeDelay<double>(-1, 1, 1), std::invalid_argument);
  EXPECT_THROW(DiscreteTimeDelay<double>(0.1, 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
