#pragma once
// Random LCPs for the solver tests (test-only). Each generator is
// deterministic given the generator state.
#include <Eigen/Core>
#include <cmath>
#include <numbers>
#include <random>

namespace tern::solvers::test {

struct Lcp {
  Eigen::MatrixXd M;  // (n x n)
  Eigen::VectorXd q;  // (n)
};

inline Eigen::MatrixXd RandomMatrix(int rows, int cols, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd A(rows, cols);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) A(i, j) = u(*rng);
  }
  return A;
}

inline Eigen::VectorXd RandomVector(int n, std::mt19937_64* rng) {
  return RandomMatrix(n, 1, rng);
}

// q = w* - M z* for a complementary pair z*, w* >= 0: each index is in the
// support of z* (probability p_z), of w* (p_w), or of neither (degenerate).
inline Eigen::VectorXd QFromSolution(const Eigen::MatrixXd& M, double p_z,
                                     double p_w, std::mt19937_64* rng,
                                     Eigen::VectorXd* z_star = nullptr) {
  const int n = static_cast<int>(M.rows());
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; ++i) {
    const double r = u(*rng);
    if (r < p_z) {
      z[i] = 0.1 + u(*rng);
    } else if (r < p_z + p_w) {
      w[i] = 0.1 + u(*rng);
    }
  }
  if (z_star != nullptr) *z_star = z;
  return w - M * z;
}

// Positive definite, not symmetric (B B^T + n/4 I + skew): a P-matrix.
inline Eigen::MatrixXd RandomPMatrix(int n, std::mt19937_64* rng) {
  const Eigen::MatrixXd B = RandomMatrix(n, n, rng);
  const Eigen::MatrixXd S = RandomMatrix(n, n, rng);
  return B * B.transpose() + 0.25 * n * Eigen::MatrixXd::Identity(n, n) +
         (S - S.transpose());
}

// Symmetric positive definite: a P-matrix on which scalar PGS converges.
inline Eigen::MatrixXd RandomSpd(int n, std::mt19937_64* rng) {
  const Eigen::MatrixXd B = RandomMatrix(n, n, rng);
  return B * B.transpose() + 0.1 * n * Eigen::MatrixXd::Identity(n, n);
}

// Positive semidefinite of rank r < n (B B^T, B n x r), plus a skew part if
// `skew`: monotone, singular, many solutions in general.
inline Eigen::MatrixXd RandomPsd(int n, int r, bool skew,
                                 std::mt19937_64* rng) {
  const Eigen::MatrixXd B = RandomMatrix(n, r, rng);
  Eigen::MatrixXd M = B * B.transpose();
  if (skew) {
    const Eigen::MatrixXd S = RandomMatrix(n, n, rng);
    M += S - S.transpose();
  }
  return M;
}

// Infeasible PSD LCP: M = B B^T with the rows of B summing to zero, so that
// y = (1, ..., 1) has y^T M = 0, and y^T q < 0; then y^T w = y^T q < 0 for
// every z >= 0 and no w = M z + q is nonnegative (Farkas).
inline Lcp RandomInfeasiblePsd(int n, int r, std::mt19937_64* rng) {
  Eigen::MatrixXd B = RandomMatrix(n, r, rng);
  B.rowwise() -= B.colwise().mean();
  Lcp lcp{B * B.transpose(), RandomVector(n, rng)};
  lcp.q.array() -= lcp.q.mean() + 0.5;
  return lcp;
}

// The time-stepping contact LCP of Anitescu & Potra (1997) with num_contacts
// contacts, k friction directions each, friction coefficient mu, velocities
// v_next = v_free + W (N^T c_n + D beta), W (nv x nv) SPD. Per contact the
// rows are (c_n, beta_1..beta_k, lambda):
//   w_n    = N v_next                   >= 0  _|_ c_n    >= 0
//   w_beta = D_i^T v_next + e lambda    >= 0  _|_ beta   >= 0
//   zeta   = mu c_n - e^T beta           >= 0  _|_ lambda >= 0
// The free velocity approaches the contacts (N v_free < 0) with a tangential
// part, so some contacts slide and some stick.
inline Lcp RandomContactLcp(int num_contacts, int k, double mu, int nv,
                            std::mt19937_64* rng) {
  const int b = k + 2;
  const int n = num_contacts * b;
  const Eigen::MatrixXd A = RandomMatrix(nv, nv, rng);
  const Eigen::MatrixXd W =
      A * A.transpose() + 0.5 * Eigen::MatrixXd::Identity(nv, nv);
  // J: (n x nv) with the rows of N and D^T in LCP order, zero for lambda.
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, nv);
  for (int c = 0; c < num_contacts; ++c) {
    const Eigen::VectorXd normal = RandomVector(nv, rng);
    const Eigen::VectorXd t1 = RandomVector(nv, rng);
    const Eigen::VectorXd t2 = RandomVector(nv, rng);
    J.row(c * b) = normal.transpose();
    for (int j = 0; j < k; ++j) {
      const double a = 2.0 * std::numbers::pi * j / k;
      J.row(c * b + 1 + j) = (std::cos(a) * t1 + std::sin(a) * t2).transpose();
    }
  }
  Lcp lcp{J * W * J.transpose(), Eigen::VectorXd::Zero(n)};
  Eigen::VectorXd v_free = RandomVector(nv, rng);
  lcp.q = J * v_free;
  for (int c = 0; c < num_contacts; ++c) {
    const int o = c * b;
    // Approaching: make the normal velocity negative.
    lcp.q[o] = -0.2 - std::abs(lcp.q[o]);
    lcp.M.block(o + 1, o + k + 1, k, 1).setOnes();          // e lambda
    lcp.M(o + k + 1, o) = mu;                               // mu c_n
    lcp.M.block(o + k + 1, o + 1, 1, k).setConstant(-1.0);  // -e^T beta
  }
  return lcp;
}

}  // namespace tern::solvers::test

namespace tern::solvers::test {

// Natural residual ||min(z, M z + q)||_inf computed from scratch.
inline double LcpCheck(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = M * z + q;
  return z.cwiseMin(w).cwiseAbs().maxCoeff();
}

}  // namespace tern::solvers::test
