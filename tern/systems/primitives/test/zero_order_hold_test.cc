#include "tern/systems/primitives/zero_order_hold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/gain.h"
#include "tern/systems/primitives/integrator.h"
#include "tern/systems/primitives/vector_log_sink.h"

namespace tern {
namespace {

// u(t) = t (an Integrator of 1) through a ZOH of period h and offset o,
// logged 4 times per period. A publish at t sees the sample taken at the
// last sample time strictly before t (the update due at t itself runs at
// the start of the next step), and the initial value before the first.
void CheckRampThroughZoh(double h, double offset, double initial) {
  DiagramBuilder<double> builder;
  auto* one = builder.AddSystem<ConstantVectorSource<double>>(1.0);
  auto* ramp = builder.AddSystem<Integrator<double>>(1);
  auto* zoh = builder.AddSystem<ZeroOrderHold<double>>(
      h, Eigen::VectorXd::Constant(1, initial), offset);
  auto* sink = builder.AddSystem<VectorLogSink<double>>(1, h / 4);
  builder.Connect(*one, *ramp);
  builder.Connect(*ramp, *zoh);
  builder.Connect(*zoh, *sink);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.AdvanceTo(10 * h);
  const auto& log = sink->GetLog(simulator.get_context());
  ASSERT_EQ(log.num_samples(), 41);
  for (int j = 0; j < log.num_samples(); ++j) {
    const double t = log.sample_times()[j];
    EXPECT_NEAR(t, j * (h / 4), 1e-14);
    // Sample times o + k h strictly before t (with an exact integer test).
    const int quarters_after_offset =
        j - static_cast<int>(std::lround(4 * offset / h));
    const double expected =
        quarters_after_offset <= 0
            ? initial
            : offset + ((quarters_after_offset - 1) / 4) * h;
    EXPECT_NEAR(log.data()(0, j), expected, 1e-12) << "t = " << t;
  }
}

TEST(ZeroOrderHoldTest, SamplesAndHoldsARamp) {
  CheckRampThroughZoh(0.1, 0.0, 0.0);
}

TEST(ZeroOrderHoldTest, OffsetDelaysTheFirstSample) {
  CheckRampThroughZoh(0.1, 0.25, -3.0);
}

// x[n+1] = k x[n] through a ZOH and a Gain: not an algebraic loop, since
// the ZOH output depends only on its discrete state.
TEST(ZeroOrderHoldTest, DiscreteFeedbackLoopIsGeometric) {
  DiagramBuilder<double> builder;
  auto* zoh = builder.AddSystem<ZeroOrderHold<double>>(0.5, 1);
  auto* gain = builder.AddSystem<Gain<double>>(0.5, 1);
  builder.Connect(*zoh, *gain);
  builder.Connect(*gain, *zoh);
  auto diagram = builder.Build();
  EXPECT_EQ(zoh->get_output_port().prerequisites(), ticket::kXd);
  Simulator<double> simulator(*diagram);
  zoh->set_held_value(&simulator.get_mutable_context(),
                      Eigen::VectorXd::Constant(1, 8.0));
  simulator.AdvanceTo(2.0);  // updates at 0, 0.5, 1.0, 1.5
  EXPECT_DOUBLE_EQ(simulator.get_context().get_discrete_state(0)[0], 8.0 / 16);
  simulator.AdvancePendingEvents();  // the update due at 2.0
  EXPECT_DOUBLE_EQ(simulator.get_context().get_discrete_state(0)[0], 8.0 / 32);
}

TEST(ZeroOrderHoldTest, AutoDiffSamplePassesDerivatives) {
  ZeroOrderHold<AutoDiffXd> zoh(0.1, 2);
  auto context = zoh.CreateDefaultContext();
  zoh.get_input_port().FixValue(context.get(),
                                InitializeAutoDiff(Eigen::Vector2d(3, 4)));
  auto next = context->Clone();
  DiscreteValues<AutoDiffXd> xd = next->get_mutable_discrete_state();
  zoh.CalcDiscreteVariableUpdate(*context, &xd);
  EXPECT_EQ(ExtractGradient(next->get_discrete_state(0)),
            Eigen::Matrix2d::Identity());
}

TEST(ZeroOrderHoldTest, RejectsBadArguments) {
  try {
    ZeroOrderHold<double> zoh(0.0, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "ZeroOrderHold: period must be finite and > 0, got 0");
  }
  EXPECT_THROW(ZeroOrderHold<double>(0.1, 1, -1.0), std::invalid_argument);
  EXPECT_THROW(ZeroOrderHold<double>(0.1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
