#include "tern/systems/primitives/affine_system.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/vector_log_sink.h"

namespace tern {
namespace {

struct Matrices {
  Eigen::MatrixXd A{2, 2}, B{2, 1}, C{3, 2}, D{3, 1};
  Eigen::VectorXd f0{2}, y0{3};
  Matrices() {
    A << -1, 2, -3, -0.5;
    B << 1, -2;
    C << 1, 0, 0, 1, 2, 3;
    D << 0, 0.5, 0;
    f0 << 0.25, -0.75;
    y0 << 1, 2, 3;
  }
};

TEST(AffineSystemTest, ContinuousDerivativesAndOutput) {
  const Matrices m;
  AffineSystem<double> system(m.A, m.B, m.f0, m.C, m.D, m.y0);
  EXPECT_FALSE(system.is_discrete());
  EXPECT_EQ(system.num_continuous_states(), 2);
  auto context = system.CreateDefaultContext();
  const Eigen::Vector2d x(0.3, -1.2);
  const Eigen::VectorXd u = Eigen::VectorXd::Constant(1, 2.0);
  system.set_state(context.get(), x);
  system.get_input_port().FixValue(context.get(), u);
  VectorX<double> xdot(2);
  system.CalcTimeDerivatives(*context, &xdot);
  EXPECT_TRUE(xdot.isApprox(m.A * x + m.B * u + m.f0, 1e-15));
  EXPECT_TRUE(system.get_output_port().Eval(*context).isApprox(
      m.C * x + m.D * u + m.y0, 1e-15));
  EXPECT_TRUE(system.HasDirectFeedthrough(0, 0));
  EXPECT_EQ(system.get_state(*context), x);
}

TEST(AffineSystemTest, FeedthroughOnlyWhenDIsNonzero) {
  Matrices m;
  m.D.setZero();
  AffineSystem<double> no_ft(m.A, m.B, m.f0, m.C, m.D, m.y0);
  EXPECT_FALSE(no_ft.HasDirectFeedthrough(0, 0));
  EXPECT_EQ(no_ft.get_output_port().prerequisites(), ticket::kXc);
  AffineSystem<double> discrete(m.A, m.B, m.f0, m.C, m.D, m.y0, 0.1);
  EXPECT_EQ(discrete.get_output_port().prerequisites(), ticket::kXd);
}

// xdot = a x + f0 from x0: x(t) = (x0 + f0/a) e^{a t} - f0/a.
TEST(AffineSystemTest, ContinuousSimulationMatchesClosedForm) {
  const double a = -1.5, f0 = 3.0, x0 = 0.2;
  AffineSystem<double> system(
      Eigen::MatrixXd::Constant(1, 1, a), Eigen::MatrixXd(1, 0),
      Eigen::VectorXd::Constant(1, f0), Eigen::MatrixXd::Ones(1, 1),
      Eigen::MatrixXd(1, 0), Eigen::VectorXd::Zero(1));
  EXPECT_EQ(system.num_input_ports(), 0);
  Simulator<double> simulator(system);
  simulator.reset_integrator<RK4>(1e-3);
  system.set_state(&simulator.get_mutable_context(),
                   Eigen::VectorXd::Constant(1, x0));
  simulator.AdvanceTo(2.0);
  const double expected = (x0 + f0 / a) * std::exp(a * 2.0) - f0 / a;
  EXPECT_NEAR(system.get_state(simulator.get_context())[0], expected, 1e-11);
}

// x[n+1] = a x[n] + b u + f0 with constant u:
// x_n = a^n x0 + (b u + f0)(1 - a^n)/(1 - a); the output y = c x seen by a
// publish at t_n = n h is c x_n (the update due at t_n runs at the start of
// the next step).
TEST(AffineSystemTest, DiscreteSimulationMatchesClosedForm) {
  const double a = 0.8, b = 2.0, f0 = -0.5, c = 3.0, u = 1.5, x0 = 4.0, h = 0.1;
  DiagramBuilder<double> builder;
  auto* source = builder.AddSystem<ConstantVectorSource<double>>(u);
  auto* system = builder.AddSystem<AffineSystem<double>>(
      Eigen::MatrixXd::Constant(1, 1, a), Eigen::MatrixXd::Constant(1, 1, b),
      Eigen::VectorXd::Constant(1, f0), Eigen::MatrixXd::Constant(1, 1, c),
      Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Zero(1), h);
  auto* sink = builder.AddSystem<VectorLogSink<double>>(1, h);
  builder.Connect(*source, *system);
  builder.Connect(*system, *sink);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(1e-3);  // closed-form checks below need 1e-10
  system->set_state(&simulator.get_mutable_context(),
                    Eigen::VectorXd::Constant(1, x0));
  const int N = 20;
  simulator.AdvanceTo(N * h);
  const auto& log = sink->GetLog(simulator.get_context());
  ASSERT_EQ(log.num_samples(), N + 1);
  for (int n = 0; n <= N; ++n) {
    const double an = std::pow(a, n);
    const double xn = an * x0 + (b * u + f0) * (1 - an) / (1 - a);
    EXPECT_NEAR(log.data()(0, n), c * xn, 1e-12) << "n = " << n;
  }
}

// Double integrator under PD feedback through a MatrixGain: the plant's
// output has no feedthrough, so the loop is not algebraic. With
// kp = w^2, kd = 2w: q(t) = q0 (1 + w t) e^{-w t}.
TEST(LinearSystemTest, DoubleIntegratorUnderStateFeedback) {
  const double w = 2.0, q0 = 1.0;
  Eigen::MatrixXd A(2, 2), B(2, 1), K(1, 2);
  A << 0, 1, 0, 0;
  B << 0, 1;
  K << -w * w, -2 * w;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<LinearSystem<double>>(
      A, B, Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Zero(2, 1));
  EXPECT_EQ(plant->f0(), Eigen::VectorXd::Zero(2));
  auto* controller = builder.AddSystem<MatrixGain<double>>(K);
  builder.Connect(*plant, *controller);
  builder.Connect(*controller, *plant);
  auto diagram = builder.Build();
  Simulator<double> simulator(*diagram);
  simulator.reset_integrator<RK4>(1e-3);  // closed-form checks below need 1e-10
  plant->set_state(&simulator.get_mutable_context(), Eigen::Vector2d(q0, 0));
  simulator.AdvanceTo(1.5);
  EXPECT_NEAR(plant->get_state(simulator.get_context())[0],
              q0 * (1 + w * 1.5) * std::exp(-w * 1.5), 1e-11);
}

TEST(AffineSystemTest, AutoDiffJacobiansAreAAndB) {
  const Matrices m;
  AffineSystem<AutoDiffXd> system(m.A, m.B, m.f0, m.C, m.D, m.y0);
  auto context = system.CreateDefaultContext();
  // Seed [x; u] as the 3 independent variables.
  const VectorX<AutoDiffXd> xu =
      InitializeAutoDiff(Eigen::Vector3d(0.1, 0.2, 0.3));
  system.set_state(context.get(), xu.head(2));
  system.get_input_port().FixValue(context.get(),
                                   VectorX<AutoDiffXd>(xu.tail(1)));
  VectorX<AutoDiffXd> xdot(2);
  system.CalcTimeDerivatives(*context, &xdot);
  Eigen::MatrixXd AB(2, 3);
  AB << m.A, m.B;
  EXPECT_TRUE(ExtractGradient(xdot).isApprox(AB, 1e-15));
  Eigen::MatrixXd CD(3, 3);
  CD << m.C, m.D;
  EXPECT_TRUE(ExtractGradient(system.get_output_port().Eval(*context), 3)
                  .isApprox(CD, 1e-15));
}

TEST(AffineSystemTest, RejectsBadShapesNamingTheMatrix) {
  const Matrices m;
  try {
    AffineSystem<double>(m.A, Eigen::MatrixXd::Zero(3, 1), m.f0, m.C, m.D,
                         m.y0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "AffineSystem: B is 3x1 but must be 2x1 (n x m, m = columns of B)");
  }
  try {
    LinearSystem<double>(Eigen::MatrixXd::Zero(2, 3), m.B, m.C, m.D);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "LinearSystem: A is 2x3 but must be 2x2 (n x n, n = rows of A)");
  }
  try {
    AffineSystem<double>(m.A, m.B, m.f0, m.C, m.D, m.y0, -0.1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("AffineSystem: time_period"),
              std::string::npos);
  }
  EXPECT_THROW(
      AffineSystem<double>(m.A, m.B, m.f0, m.C, m.D, Eigen::VectorXd(2)),
      std::invalid_argument);
}

}  // namespace
}  // namespace tern
