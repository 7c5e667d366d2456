#include "tern/systems/controllers/riccati.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace tern {
namespace {

using Eigen::MatrixXd;

MatrixXd M1(double v) { return MatrixXd::Constant(1, 1, v); }

TEST(RiccatiTest, ContinuousScalarClosedForm) {
  // 2 a x - b^2 x^2 / r + q = 0: x = r (a + sqrt(a^2 + b^2 q / r)) / b^2.
  for (double a : {-2.0, 0.0, 0.5, 3.0}) {
    const double b = 1.5, q = 2.0, r = 0.7;
    const MatrixXd X = ContinuousAlgebraicRiccati(M1(a), M1(b), M1(q), M1(r));
    const double exact = r * (a + std::sqrt(a * a + b * b * q / r)) / (b * b);
    EXPECT_NEAR(X(0, 0), exact, 1e-12 * (1 + exact)) << "a = " << a;
  }
}

TEST(RiccatiTest, ContinuousDoubleIntegratorClosedForm) {
  // A = [0 1; 0 0], B = [0; 1], Q = I, R = 1: X = [sqrt3 1; 1 sqrt3].
  MatrixXd A(2, 2), B(2, 1);
  A << 0, 1, 0, 0;
  B << 0, 1;
  const MatrixXd X =
      ContinuousAlgebraicRiccati(A, B, MatrixXd::Identity(2, 2), M1(1.0));
  MatrixXd exact(2, 2);
  exact << std::sqrt(3.0), 1, 1, std::sqrt(3.0);
  EXPECT_LT((X - exact).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(RiccatiTest, DiscreteScalarClosedForm) {
  // b^2 x^2 + (r - a^2 r - q b^2) x - q r = 0, positive root.
  for (double a : {0.0, 0.5, 1.0, 2.5}) {
    const double b = 0.8, q = 1.5, r = 0.4;
    const MatrixXd X = DiscreteAlgebraicRiccati(M1(a), M1(b), M1(q), M1(r));
    const double p = r - a * a * r - q * b * b;
    const double exact =
        (-p + std::sqrt(p * p + 4 * b * b * q * r)) / (2 * b * b);
    EXPECT_NEAR(X(0, 0), exact, 1e-12 * (1 + exact)) << "a = " << a;
  }
}

// Random stabilizable problems: the solutions satisfy their equations, are
// symmetric and stabilizing.
TEST(RiccatiTest, RandomProblemsSatisfyTheEquationAndStabilize) {
  std::mt19937 gen(7);
  std::normal_distribution<double> dist;
  auto random = [&](int r, int c) {
    MatrixXd M(r, c);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) M(i, j) = dist(gen);
    return M;
  };
  for (int trial = 0; trial < 10; ++trial) {
    const int n = 2 + trial % 5, m = 1 + trial % 3;
    const MatrixXd A = random(n, n), B = random(n, m);
    const MatrixXd Lq = random(n, n), Lr = random(m, m);
    const MatrixXd Q = Lq * Lq.transpose() + MatrixXd::Identity(n, n);
    const MatrixXd R = Lr * Lr.transpose() + MatrixXd::Identity(m, m);
    const MatrixXd N = 0.1 * random(n, m);

    const MatrixXd Xc = ContinuousAlgebraicRiccati(A, B, Q, R, N);
    const MatrixXd Kc = R.llt().solve(B.transpose() * Xc + N.transpose());
    const MatrixXd res_c = A.transpose() * Xc + Xc * A - (Xc * B + N) * Kc + Q;
    EXPECT_LT(res_c.cwiseAbs().maxCoeff(), 1e-9 * (1 + Xc.norm() * A.norm()))
        << "trial " << trial;
    EXPECT_LT((Xc - Xc.transpose()).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((A - B * Kc).eigenvalues().real().maxCoeff(), 0);

    const MatrixXd Ad = 0.5 * A;
    const MatrixXd Xd = DiscreteAlgebraicRiccati(Ad, B, Q, R, N);
    const MatrixXd Kd = (R + B.transpose() * Xd * B)
                            .llt()
                            .solve(B.transpose() * Xd * Ad + N.transpose());
    const MatrixXd res_d =
        Ad.transpose() * Xd * Ad - (Ad.transpose() * Xd * B + N) * Kd + Q - Xd;
    EXPECT_LT(res_d.cwiseAbs().maxCoeff(), 1e-9 * (1 + Xd.norm()))
        << "trial " << trial;
    EXPECT_LT((Ad - B * Kd).eigenvalues().cwiseAbs().maxCoeff(), 1);
  }
}

TEST(RiccatiTest, DiscreteAgreesWithValueIteration) {
  // The Riccati recursion from X = Q converges to the same solution.
  MatrixXd A(3, 3), B(3, 1);
  A << 1.1, 0.2, 0, 0, 0.9, 0.3, 0.1, 0, 1.05;
  B << 0, 0.1, 1;
  const MatrixXd Q = MatrixXd::Identity(3, 3), R = M1(0.5);
  MatrixXd X = Q;
  for (int k = 0; k < 3000; ++k) {
    X = A.transpose() * X * A -
        A.transpose() * X * B * (R + B.transpose() * X * B).inverse() *
            B.transpose() * X * A +
        Q;
  }
  EXPECT_LT((DiscreteAlgebraicRiccati(A, B, Q, R) - X).cwiseAbs().maxCoeff(),
            1e-9 * X.norm());
}

TEST(RiccatiTest, BadInputNamesTheMatrix) {
  try {
    ContinuousAlgebraicRiccati(MatrixXd::Zero(2, 3), MatrixXd::Zero(2, 1),
                               MatrixXd::Identity(2, 2), M1(1));
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("A is 2x3"), std::string::npos)
        << e.what();
  }
  try {
    DiscreteAlgebraicRiccati(M1(1), M1(1), M1(1), M1(-1));
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("R is not positive definite"),
              std::string::npos)
        << e.what();
  }
  MatrixXd Q(2, 2);
  Q << 1, 2, 0, 1;
  EXPECT_THROW(DiscreteAlgebraicRiccati(MatrixXd::Identity(2, 2),
                                        MatrixXd::Ones(2, 1), Q, M1(1)),
               std::invalid_argument);
}

TEST(RiccatiTest, UnstabilizableThrows) {
  // An unstable mode the input cannot reach.
  MatrixXd A(2, 2), B(2, 1);
  A << 2, 0, 0, -1;
  B << 0, 1;
  EXPECT_THROW(
      ContinuousAlgebraicRiccati(A, B, MatrixXd::Identity(2, 2), M1(1)),
      std::runtime_error);
  EXPECT_THROW(DiscreteAlgebraicRiccati(A, B, MatrixXd::Identity(2, 2), M1(1)),
               std::runtime_error);
}

}  // namespace
}  // namespace tern
