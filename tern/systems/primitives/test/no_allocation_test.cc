// Every block of this folder in one closed-loop diagram, simulated with
// fixed-step RK4: after a warm-up, AdvanceTo performs no heap allocation
// (DESIGN.md "Performance principles").
#include <gtest/gtest.h>

#include <cmath>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/adder.h"
#include "tern/systems/primitives/affine_system.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/demultiplexer.h"
#include "tern/systems/primitives/discrete_time_delay.h"
#include "tern/systems/primitives/first_order_low_pass_filter.h"
#include "tern/systems/primitives/gain.h"
#include "tern/systems/primitives/integrator.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/multiplexer.h"
#include "tern/systems/primitives/pass_through.h"
#include "tern/systems/primitives/pid_controller.h"
#include "tern/systems/primitives/saturation.h"
#include "tern/systems/primitives/sine.h"
#include "tern/systems/primitives/vector_log_sink.h"
#include "tern/systems/primitives/zero_order_hold.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

TEST(PrimitivesNoAllocationTest, AdvanceToDoesNotAllocate) {
  DiagramBuilder<double> b;
  Eigen::MatrixXd A(2, 2), B(2, 1);
  A << 0, 1, 0, 0;
  B << 0, 1;
  auto* plant = b.AddSystem<LinearSystem<double>>(
      A, B, Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Zero(2, 1));
  auto* zoh = b.AddSystem<ZeroOrderHold<double>>(0.01, 2);
  auto* demux = b.AddSystem<Demultiplexer<double>>(2);
  auto* mux = b.AddSystem<Multiplexer<double>>(2);
  auto* setpoint =
      b.AddSystem<ConstantVectorSource<double>>(Eigen::Vector2d(1, 0));
  auto* wobble = b.AddSystem<Sine<double>>(0.1, 2.0, 0.0, 2);
  auto* adder = b.AddSystem<Adder<double>>(2, 2);
  auto* pid = b.AddSystem<PidController<double>>(
      Eigen::VectorXd::Constant(1, 20), Eigen::VectorXd::Constant(1, 1),
      Eigen::VectorXd::Constant(1, 8));
  auto* saturation = b.AddSystem<Saturation<double>>(-5.0, 5.0, 1);
  auto* gain = b.AddSystem<Gain<double>>(1.0, 1);
  auto* pass = b.AddSystem<PassThrough<double>>(1);
  auto* filter = b.AddSystem<FirstOrderLowPassFilter<double>>(0.005);
  auto* delay = b.AddSystem<DiscreteTimeDelay<double>>(0.01, 2, 1);
  auto* matrix_gain =
      b.AddSystem<MatrixGain<double>>(Eigen::MatrixXd::Constant(1, 1, 0.5));
  auto* discrete = b.AddSystem<AffineSystem<double>>(
      Eigen::MatrixXd::Constant(1, 1, 0.9), Eigen::MatrixXd::Ones(1, 1),
      Eigen::VectorXd::Zero(1), Eigen::MatrixXd::Ones(1, 1),
      Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Zero(1), 0.01);
  auto* integrator = b.AddSystem<Integrator<double>>(1);
  auto* periodic_sink = b.AddSystem<VectorLogSink<double>>(2, 0.01);
  auto* step_sink = b.AddSystem<VectorLogSink<double>>(1);
  auto* discrete_sink = b.AddSystem<VectorLogSink<double>>(1, 0.005);

  b.Connect(*plant, *zoh);
  b.Connect(*zoh, *demux);
  b.Connect(demux->get_output_port(0), mux->get_input_port(0));
  b.Connect(demux->get_output_port(1), mux->get_input_port(1));
  b.Connect(setpoint->get_output_port(), adder->get_input_port(0));
  b.Connect(wobble->get_output_port(0), adder->get_input_port(1));
  b.Connect(mux->get_output_port(), pid->get_input_port_estimated_state());
  b.Connect(adder->get_output_port(), pid->get_input_port_desired_state());
  b.Connect(pid->get_output_port_control(), saturation->get_input_port());
  b.Connect(*saturation, *gain);
  b.Connect(*gain, *pass);
  b.Connect(*pass, *filter);
  b.Connect(*filter, *plant);
  b.Connect(pass->get_output_port(), delay->get_input_port());
  b.Connect(*delay, *matrix_gain);
  b.Connect(*matrix_gain, *discrete);
  b.Connect(pass->get_output_port(), integrator->get_input_port());
  b.Connect(plant->get_output_port(), periodic_sink->get_input_port());
  b.Connect(integrator->get_output_port(), step_sink->get_input_port());
  b.Connect(discrete->get_output_port(), discrete_sink->get_input_port());
  auto diagram = b.Build();

  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(1e-3);
  Context<double>& context = simulator.get_mutable_context();
  for (auto* sink : {periodic_sink, step_sink, discrete_sink})
    sink->GetMutableLog(&context).Reserve(2000);
  simulator.AdvanceTo(0.1);  // warm-up
  std::int64_t allocations = 0;
  {
    test::ScopedAllocationCounter counter;
    simulator.AdvanceTo(1.0);
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0);
  // The loop did something sensible: the plant tracks the set point.
  const VectorLog<double>& log = periodic_sink->GetLog(simulator.get_context());
  EXPECT_EQ(log.num_samples(), 101);
  EXPECT_NEAR(log.data()(0, 100), 1.0, 0.2);
  EXPECT_EQ(step_sink->GetLog(simulator.get_context()).num_samples(), 1001);
  EXPECT_TRUE(std::isfinite(
      discrete_sink->GetLog(simulator.get_context()).data()(0, 200)));
}

}  // namespace
}  // namespace tern
