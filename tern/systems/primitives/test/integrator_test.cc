#include "tern/systems/primitives/integrator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/gain.h"

namespace tern {
namespace {

TEST(IntegratorTest, DerivativeIsInputAndOutputIsState) {
  Integrator<double> integrator(Eigen::Vector2d(1, -1));
  auto context = integrator.CreateDefaultContext();
  EXPECT_EQ(integrator.get_output_port().Eval(*context),
            Eigen::Vector2d(1, -1));
  EXPECT_EQ(integrator.get_output_port().prerequisites(), ticket::kXc);
  EXPECT_FALSE(integrator.HasDirectFeedthrough(0, 0));
  integrator.get_input_port().FixValue(context.get(), Eigen::Vector2d(3, 4));
  VectorX<double> xdot(2);
  integrator.CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot, Eigen::Vector2d(3, 4));
  integrator.set_integral_value(context.get(), Eigen::Vector2d(5, 6));
  EXPECT_EQ(integrator.get_output_port().Eval(*context), Eigen::Vector2d(5, 6));
}

TEST(IntegratorTest, RampFromConstantInput) {
  DiagramBuilder<double> builder;
  auto* source =
      builder.AddSystem<ConstantVectorSource<double>>(Eigen::Vector2d(2, -0.5));
  auto* integrator = builder.AddSystem<Integrator<double>>(2);
  builder.Connect(*source, *integrator);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  integrator->set_integral_value(&simulator.get_mutable_context(),
                                 Eigen::Vector2d(1, 1));
  simulator.AdvanceTo(1.5);
  const Eigen::Vector2d x =
      simulator.get_context().get_continuous_state_vector();
  EXPECT_NEAR(x[0], 1 + 2 * 1.5, 1e-12);
  EXPECT_NEAR(x[1], 1 - 0.5 * 1.5, 1e-12);
}

// x' = -a x through a Gain: a feedback loop that is not algebraic.
TEST(IntegratorTest, FeedbackThroughGainIsExponentialDecay) {
  DiagramBuilder<double> builder;
  auto* integrator =
      builder.AddSystem<Integrator<double>>(Eigen::VectorXd::Ones(1));
  auto* gain = builder.AddSystem<Gain<double>>(-2.0, 1);
  builder.Connect(*integrator, *gain);
  builder.Connect(*gain, *integrator);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(1e-3);
  simulator.AdvanceTo(1.0);
  EXPECT_NEAR(simulator.get_context().get_continuous_state_vector()[0],
              std::exp(-2.0), 1e-12);
}

TEST(IntegratorTest, AutoDiffAndErrors) {
  Integrator<AutoDiffXd> integrator(1);
  integrator.set_name("integral");
  auto context = integrator.CreateDefaultContext();
  integrator.get_input_port().FixValue(
      context.get(), InitializeAutoDiff(Eigen::VectorXd::Ones(1)));
  VectorX<AutoDiffXd> xdot(1);
  integrator.CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot[0].derivatives()[0], 1.0);
  try {
    integrator.set_integral_value(context.get(), VectorX<AutoDiffXd>(2));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "Integrator 'integral': set_integral_value got a value of "
                 "size 2, expected 1");
  }
  EXPECT_THROW(Integrator<double>(0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
