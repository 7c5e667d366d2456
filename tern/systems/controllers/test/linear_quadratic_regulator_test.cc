#include "tern/systems/controllers/linear_quadratic_regulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>

namespace tern {
namespace {

using Eigen::MatrixXd;

TEST(LinearQuadraticRegulatorTest, DoubleIntegratorClosedForm) {
  // K = [1 sqrt3] for Q = I, R = 1.
  MatrixXd A(2, 2), B(2, 1);
  A << 0, 1, 0, 0;
  B << 0, 1;
  const auto lqr = LinearQuadraticRegulator(A, B, MatrixXd::Identity(2, 2),
                                            MatrixXd::Identity(1, 1));
  EXPECT_NEAR(lqr.K(0, 0), 1.0, 1e-12);
  EXPECT_NEAR(lqr.K(0, 1), std::sqrt(3.0), 1e-12);
}

TEST(LinearQuadraticRegulatorTest, CostToGoMatchesSimulatedCost) {
  // Discrete: sum over the closed loop of x'Qx + u'Ru equals x0' S x0.
  MatrixXd A(2, 2), B(2, 1);
  A << 1, 0.1, 0, 1;
  B << 0.005, 0.1;
  const MatrixXd Q = MatrixXd::Identity(2, 2),
                 R = MatrixXd::Constant(1, 1, 0.3);
  const auto lqr = DiscreteTimeLinearQuadraticRegulator(A, B, Q, R);
  Eigen::VectorXd x(2);
  x << 1.0, -0.5;
  const double predicted = x.dot(lqr.S * x);
  double cost = 0;
  for (int k = 0; k < 2000; ++k) {
    const Eigen::VectorXd u = -lqr.K * x;
    cost += x.dot(Q * x) + u.dot(R * u);
    x = A * x + B * u;
  }
  EXPECT_NEAR(cost, predicted, 1e-9 * predicted);
}

TEST(LinearQuadraticRegulatorTest, DiscreteApproachesContinuousAsDtShrinks) {
  // With Qd = Q dt, Rd = R dt and the exact ZOH model, the discrete gain
  // tends to the continuous one as dt -> 0.
  MatrixXd A(2, 2), B(2, 1);
  A << 0, 1, 2, -0.1;
  B << 0, 1;
  const MatrixXd Q = MatrixXd::Identity(2, 2), R = MatrixXd::Identity(1, 1);
  const auto cont = LinearQuadraticRegulator(A, B, Q, R);
  const double dt = 1e-4;
  MatrixXd M = MatrixXd::Zero(3, 3);
  M.topLeftCorner(2, 2) = A * dt;
  M.topRightCorner(2, 1) = B * dt;
  const MatrixXd E = M.exp();
  const auto disc = DiscreteTimeLinearQuadraticRegulator(
      E.topLeftCorner(2, 2), E.topRightCorner(2, 1), Q * dt, R * dt);
  EXPECT_LT((disc.K - cont.K).cwiseAbs().maxCoeff(), 1e-3 * cont.K.norm());
}

TEST(LinearQuadraticRegulatorTest, CrossTermEqualsCompletedSquare) {
  // x'Qx + u'Ru + 2x'Nu with v = u + R^-1 N'x is a problem without cross
  // term in v; the gains relate by K = Kv + R^-1 N'.
  MatrixXd A(2, 2), B(2, 1), N(2, 1);
  A << 0.2, 1, -1, 0.1;
  B << 0, 1;
  N << 0.1, 0.2;
  const MatrixXd Q = MatrixXd::Identity(2, 2),
                 R = MatrixXd::Constant(1, 1, 2.0);
  const auto with_n = LinearQuadraticRegulator(A, B, Q, R, N);
  const MatrixXd RinvNt = R.inverse() * N.transpose();
  const auto folded =
      LinearQuadraticRegulator(A - B * RinvNt, B, Q - N * RinvNt, R);
  EXPECT_LT((with_n.K - (folded.K + RinvNt)).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((with_n.S - folded.S).cwiseAbs().maxCoeff(), 1e-10);
}

}  // namespace
}  // namespace tern
