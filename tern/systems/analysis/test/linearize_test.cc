#include "tern/systems/analysis/linearize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>

#include "tern/systems/analysis/example_models.h"
#include "tern/systems/analysis/test/test_models.h"

namespace tern {
namespace {

using examples::Cartpole;

TEST(LinearizeTest, LinearModelGivesItsMatrices) {
  const test::Oscillator model;
  for (JacobianMethod method :
       {JacobianMethod::kAutoDiff, JacobianMethod::kCentralDifference,
        JacobianMethod::kAnalytic}) {
    const auto [A, B] = Linearize(model, Eigen::Vector2d(0.3, 0.1),
                                  Vector<double, 1>(2.0), 0.0, method);
    EXPECT_LT((A - model.A()).cwiseAbs().maxCoeff(), 1e-9) << to_string(method);
    EXPECT_LT((B - model.B()).cwiseAbs().maxCoeff(), 1e-9) << to_string(method);
  }
}

TEST(LinearizeTest, CartpoleUprightClosedForm) {
  // At theta = pi, thetadot = 0, u = 0 (Tedrake, Underactuated, ch. 3):
  // pddot = (mp g theta' + u) / mc,
  // thetaddot = ((mc + mp) g theta' + u) / (l mc), theta' = theta - pi.
  const Cartpole m;
  const auto [A, B] =
      Linearize(m, Eigen::Vector4d(0, M_PI, 0, 0), Vector<double, 1>::Zero());
  Eigen::Matrix4d A_exact = Eigen::Matrix4d::Zero();
  A_exact(0, 2) = 1;
  A_exact(1, 3) = 1;
  A_exact(2, 1) = m.mp * m.g / m.mc;
  A_exact(3, 1) = (m.mc + m.mp) * m.g / (m.l * m.mc);
  const Eigen::Vector4d B_exact(0, 0, 1 / m.mc, 1 / (m.l * m.mc));
  EXPECT_LT((A - A_exact).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((B - B_exact).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(LinearizeTest, DiscreteTimeLinearizeApproachesZeroOrderHold) {
  // RK4's Ad, Bd differ from the exact ZOH ones by O(dt^5).
  const Cartpole m;
  const Eigen::Vector4d x0(0, M_PI, 0, 0);
  const Vector<double, 1> u0 = Vector<double, 1>::Zero();
  const auto [A, B] = Linearize(m, x0, u0);
  double err[2];
  for (int i = 0; i < 2; ++i) {
    const double dt = 0.04 / (1 << i);
    const auto [Ad, Bd] = DiscreteTimeLinearize<RK4>(m, x0, u0, 0.0, dt);
    Eigen::MatrixXd Ad_exact, Bd_exact;
    DiscretizeZeroOrderHold(A, B, dt, &Ad_exact, &Bd_exact);
    err[i] = std::max((Ad - Ad_exact).cwiseAbs().maxCoeff(),
                      (Bd - Bd_exact).cwiseAbs().maxCoeff());
  }
  EXPECT_NEAR(std::log2(err[0] / err[1]), 5.0, 0.3);
}

TEST(LinearizeTest, ExponentialIsExact) {
  const test::DoubleIntegrator model;
  const auto [Ad, Bd] = DiscreteTimeLinearize<Exponential>(
      model, Eigen::Vector2d::Zero(), Vector<double, 1>::Zero(), 0.0, 0.5);
  EXPECT_LT((Ad - (Eigen::Matrix2d() << 1, 0.5, 0, 1).finished())
                .cwiseAbs()
                .maxCoeff(),
            1e-15);
  EXPECT_LT((Bd - Eigen::Vector2d(0.125, 0.5)).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(LinearizeTest, WrongSizeThrows) {
  const test::PendulumChain chain;
  EXPECT_THROW(
      Linearize(chain, Eigen::VectorXd::Zero(4), Eigen::VectorXd::Zero(2)),
      std::invalid_argument);
}

}  // namespace
}  // namespace tern
