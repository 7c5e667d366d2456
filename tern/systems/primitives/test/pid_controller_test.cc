#include "tern/systems/primitives/pid_controller.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/affine_system.h"
#include "tern/systems/primitives/constant_vector_source.h"

namespace tern {
namespace {

TEST(PidControllerTest, ControlLawAndIntegralDerivative) {
  const Eigen::Vector2d kp(2, 3), ki(0.5, 0.25), kd(0.1, 0.2);
  PidController<double> pid(kp, ki, kd);
  EXPECT_EQ(pid.get_input_port_estimated_state().get_name(), "estimated_state");
  EXPECT_EQ(pid.get_input_port_desired_state().size(), 4);
  EXPECT_EQ(pid.get_output_port_control().size(), 2);
  EXPECT_TRUE(pid.HasDirectFeedthrough(0, 0));
  EXPECT_TRUE(pid.HasDirectFeedthrough(1, 0));
  auto context = pid.CreateDefaultContext();
  const Eigen::Vector4d x(1, 2, 0.5, -0.5), xd(1.5, 1, 0, 0);
  const Eigen::Vector2d integral(0.3, -0.7);
  pid.get_input_port_estimated_state().FixValue(context.get(), x);
  pid.get_input_port_desired_state().FixValue(context.get(), xd);
  pid.set_integral_value(context.get(), integral);
  const Eigen::Vector2d expected = kp.cwiseProduct(xd.head(2) - x.head(2)) +
                                   ki.cwiseProduct(integral) +
                                   kd.cwiseProduct(xd.tail(2) - x.tail(2));
  EXPECT_TRUE(
      pid.get_output_port_control().Eval(*context).isApprox(expected, 1e-15));
  VectorX<double> xdot(2);
  pid.CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot, xd.head(2) - x.head(2));
}

// A double integrator q'' = u under PD control (ki = 0) with kp = w^2 and
// kd = 2w is critically damped: q(t) = qd + (q0 - qd)(1 + w t) e^{-w t}.
// The integral state (unused here, ki = 0) is checked against ∫ (qd - q) dt.
TEST(PidControllerTest, CriticallyDampedDoubleIntegrator) {
  const double w = 3.0, q0 = 0.0, qd = 1.0, T = 1.2;
  Eigen::MatrixXd A(2, 2), B(2, 1);
  A << 0, 1, 0, 0;
  B << 0, 1;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<LinearSystem<double>>(
      A, B, Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Zero(2, 1));
  auto* pid = builder.AddSystem<PidController<double>>(
      Eigen::VectorXd::Constant(1, w * w), Eigen::VectorXd::Zero(1),
      Eigen::VectorXd::Constant(1, 2 * w));
  auto* desired =
      builder.AddSystem<ConstantVectorSource<double>>(Eigen::Vector2d(qd, 0));
  builder.Connect(plant->get_output_port(),
                  pid->get_input_port_estimated_state());
  builder.Connect(desired->get_output_port(),
                  pid->get_input_port_desired_state());
  builder.Connect(pid->get_output_port_control(), plant->get_input_port());
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(1e-3);  // closed-form checks below need 1e-10
  plant->set_state(&simulator.get_mutable_context(), Eigen::Vector2d(q0, 0));
  simulator.AdvanceTo(T);
  const VectorX<double> x = plant->get_state(simulator.get_context());
  EXPECT_NEAR(x[0], qd + (q0 - qd) * (1 + w * T) * std::exp(-w * T), 1e-10);
  // The (unused, ki = 0) integral state is the integral of the error:
  // ∫ (qd - q) dt = (qd - q0) (2/w - e^{-wT} (T + 2/w)).
  const double integral = pid->GetMyContextFromRoot(simulator.get_context())
                              .get_continuous_state_vector()[0];
  EXPECT_NEAR(integral, (qd - q0) * (2 / w - std::exp(-w * T) * (T + 2 / w)),
              1e-10);
}

TEST(PidControllerTest, AutoDiffGradientIsTheGains) {
  PidController<AutoDiffXd> pid(Eigen::VectorXd::Constant(1, 2.0),
                                Eigen::VectorXd::Constant(1, 0.5),
                                Eigen::VectorXd::Constant(1, 0.1));
  auto context = pid.CreateDefaultContext();
  const VectorX<AutoDiffXd> x = InitializeAutoDiff(Eigen::Vector2d(1, 2));
  pid.get_input_port_estimated_state().FixValue(context.get(), x);
  pid.get_input_port_desired_state().FixValue(context.get(),
                                              Eigen::Vector2d(0, 0));
  const AutoDiffXd u = pid.get_output_port_control().Eval(*context)[0];
  EXPECT_EQ(u.derivatives(), Eigen::Vector2d(-2.0, -0.1));
}

TEST(PidControllerTest, RejectsMismatchedGains) {
  try {
    PidController<double> pid(Eigen::Vector2d(1, 1), Eigen::Vector3d(1, 1, 1),
                              Eigen::Vector2d(1, 1));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "PidController: ki has size 3 but must have size 2");
  }
  EXPECT_THROW(PidController<double>(Eigen::VectorXd(0), Eigen::VectorXd(0),
                                     Eigen::VectorXd(0)),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern
