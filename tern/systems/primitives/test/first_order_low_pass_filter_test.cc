#include "tern/systems/primitives/first_order_low_pass_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"

namespace tern {
namespace {

// Step response from x0: x(t) = u + (x0 - u) e^{-t/tau}.
TEST(FirstOrderLowPassFilterTest, StepResponseMatchesClosedForm) {
  const Eigen::Vector2d tau(0.5, 2.0), u(1.0, -3.0), x0(0.2, 0.4);
  DiagramBuilder<double> builder;
  auto* source = builder.AddSystem<ConstantVectorSource<double>>(u);
  auto* filter = builder.AddSystem<FirstOrderLowPassFilter<double>>(tau);
  builder.Connect(*source, *filter);
  auto diagram = builder.Build();
  EXPECT_FALSE(filter->HasDirectFeedthrough(0, 0));
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(1e-3);  // closed-form checks below need 1e-10
  filter->set_initial_output_value(&simulator.get_mutable_context(), x0);
  simulator.AdvanceTo(1.3);
  const Context<double>& fc =
      filter->GetMyContextFromRoot(simulator.get_context());
  const VectorX<double>& y = filter->get_output_port().Eval(fc);
  for (int i = 0; i < 2; ++i)
    EXPECT_NEAR(y[i], u[i] + (x0[i] - u[i]) * std::exp(-1.3 / tau[i]), 1e-12);
}

TEST(FirstOrderLowPassFilterTest, AutoDiffDerivativeJacobians) {
  FirstOrderLowPassFilter<AutoDiffXd> filter(0.25);
  auto context = filter.CreateDefaultContext();
  const VectorX<AutoDiffXd> xu = InitializeAutoDiff(Eigen::Vector2d(0.5, 2.0));
  filter.set_initial_output_value(context.get(), xu.head(1));
  filter.get_input_port().FixValue(context.get(),
                                   VectorX<AutoDiffXd>(xu.tail(1)));
  VectorX<AutoDiffXd> xdot(1);
  filter.CalcTimeDerivatives(*context, &xdot);
  EXPECT_DOUBLE_EQ(xdot[0].value(), (2.0 - 0.5) / 0.25);
  EXPECT_EQ(xdot[0].derivatives(), Eigen::Vector2d(-4, 4));
}

TEST(FirstOrderLowPassFilterTest, RejectsNonPositiveTimeConstant) {
  try {
    FirstOrderLowPassFilter<double> filter(Eigen::Vector2d(1, 0));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "FirstOrderLowPassFilter: time constant 1 is 0; it must be "
                 "finite and > 0");
  }
  EXPECT_THROW(FirstOrderLowPassFilter<double>(1.0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
