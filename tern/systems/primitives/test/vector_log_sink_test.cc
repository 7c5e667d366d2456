#include "tern/systems/primitives/vector_log_sink.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/gain.h"
#include "tern/systems/primitives/integrator.h"
#include "tern/systems/primitives/zero_order_hold.h"

namespace tern {
namespace {

// x' = -x logged by a sink: records x(t) at the publish times.
struct DecayDiagram {
  explicit DecayDiagram(double publish_period) {
    DiagramBuilder<double> builder;
    integrator =
        builder.AddSystem<Integrator<double>>(Eigen::VectorXd::Ones(1));
    auto* gain = builder.AddSystem<Gain<double>>(-1.0, 1);
    sink = builder.AddSystem<VectorLogSink<double>>(1, publish_period);
    builder.Connect(*integrator, *gain);
    builder.Connect(*gain, *integrator);
    builder.Connect(*integrator, *sink);
    diagram = builder.Build();
  }
  Integrator<double>* integrator;
  VectorLogSink<double>* sink;
  std::unique_ptr<Diagram<double>> diagram;
};

// Periodic: samples exactly at t0 = 0, h, 2h, ..., including tf, with the
// post-step value x(k h) = e^{-k h} (not the value at the step's start).
TEST(VectorLogSinkTest, PeriodicRecordsAtPublishTimesWithPostStepValues) {
  const double h = 0.1;
  DecayDiagram d(h);
  Simulator<double> simulator(*d.diagram);
  simulator.reset_integrator<RK4>(0.025);
  simulator.AdvanceTo(1.0);
  const VectorLog<double>& log = d.sink->GetLog(simulator.get_context());
  ASSERT_EQ(log.num_samples(), 11);
  EXPECT_EQ(log.get_input_size(), 1);
  for (int k = 0; k <= 10; ++k) {
    EXPECT_EQ(log.sample_times()[k], k * h);
    EXPECT_NEAR(log.data()(0, k), std::exp(-k * h), 1e-8);
  }
  // Advancing further appends; the sample at 1.0 is not repeated.
  simulator.AdvanceTo(12 * h);
  ASSERT_EQ(log.num_samples(), 13);
  EXPECT_EQ(log.sample_times()[12], 12 * h);
}

// Per step: at initialization and at the end of every integrator step.
TEST(VectorLogSinkTest, PerStepRecordsEveryStep) {
  DecayDiagram d(0.0);
  Simulator<double> simulator(*d.diagram);
  const double h = 0.01;
  simulator.reset_integrator<RK4>(h);
  simulator.AdvanceTo(0.5);
  const VectorLog<double>& log = d.sink->GetLog(simulator.get_context());
  ASSERT_EQ(log.num_samples(), 51);
  EXPECT_EQ(simulator.get_statistics().steps, 50);
  for (int k = 0; k <= 50; ++k) {
    EXPECT_NEAR(log.sample_times()[k], k * h, 1e-14);
    EXPECT_NEAR(log.data()(0, k), std::exp(-log.sample_times()[k]), 1e-9);
  }
}

// A sink at the output of a ZOH sampling every 0.1 and publishing at the
// same rate records x⁻ at each sample time: the value held over the
// previous period (updates due at t run at the start of the next step).
TEST(VectorLogSinkTest, RecordsThePreUpdateDiscreteValueAtSampleTimes) {
  DiagramBuilder<double> builder;
  auto* one = builder.AddSystem<ConstantVectorSource<double>>(1.0);
  auto* ramp = builder.AddSystem<Integrator<double>>(1);
  auto* zoh = builder.AddSystem<ZeroOrderHold<double>>(0.1, 1);
  auto* sink = builder.AddSystem<VectorLogSink<double>>(1, 0.1);
  builder.Connect(*one, *ramp);
  builder.Connect(*ramp, *zoh);
  builder.Connect(*zoh, *sink);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.AdvanceTo(0.5);
  const VectorLog<double>& log = sink->GetLog(simulator.get_context());
  ASSERT_EQ(log.num_samples(), 6);
  EXPECT_EQ(log.data()(0, 0), 0.0);
  for (int k = 1; k <= 5; ++k)
    EXPECT_NEAR(log.data()(0, k), (k - 1) * 0.1, 1e-12);
}

TEST(VectorLogSinkTest, LogIsPerContext) {
  DecayDiagram d(0.1);
  Simulator<double> first(*d.diagram);
  first.AdvanceTo(0.3);
  // A clone carries a snapshot of the log; then the two diverge.
  auto clone = first.get_context().Clone();
  EXPECT_EQ(d.sink->GetLog(*clone).num_samples(), 4);
  Simulator<double> second(*d.diagram, std::move(clone));
  second.AdvanceTo(0.5);
  // The new Simulator's initialization publishes at its start time 0.3
  // again, then 0.4 and 0.5.
  ASSERT_EQ(d.sink->GetLog(second.get_context()).num_samples(), 7);
  EXPECT_EQ(d.sink->GetLog(second.get_context()).sample_times()[4], 0.3);
  EXPECT_EQ(d.sink->GetLog(first.get_context()).num_samples(), 4);
  // ForcedPublish records; Clear() and SetDefaultContext() empty the log.
  d.diagram->ForcedPublish(first.get_context());
  EXPECT_EQ(d.sink->GetLog(first.get_context()).num_samples(), 5);
  d.sink->GetMutableLog(&first.get_mutable_context()).Clear();
  EXPECT_EQ(d.sink->GetLog(first.get_context()).num_samples(), 0);
  d.diagram->SetDefaultContext(&second.get_mutable_context());
  EXPECT_EQ(d.sink->GetLog(second.get_context()).num_samples(), 0);
}

TEST(VectorLogSinkTest, AutoDiff) {
  VectorLogSink<AutoDiffXd> sink(2, 0.5);
  auto context = sink.CreateDefaultContext();
  sink.get_input_port().FixValue(context.get(),
                                 InitializeAutoDiff(Eigen::Vector2d(3, 4)));
  Simulator<AutoDiffXd> simulator(sink, std::move(context));
  simulator.AdvanceTo(1.0);
  const VectorLog<AutoDiffXd>& log = sink.GetLog(simulator.get_context());
  ASSERT_EQ(log.num_samples(), 3);
  EXPECT_EQ(log.sample_times()[2].value(), 1.0);
  EXPECT_EQ(log.data()(1, 2).value(), 4.0);
  EXPECT_EQ(log.data()(1, 2).derivatives(), Eigen::Vector2d(0, 1));
}

TEST(VectorLogSinkTest, RejectsBadArguments) {
  try {
    VectorLogSink<double> sink(1, -0.1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "VectorLogSink: publish_period must be finite and >= 0 (0 = "
                 "every step), got -0.1");
  }
  EXPECT_THROW(VectorLogSink<double>(0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
