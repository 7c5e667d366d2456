#include "tern/systems/controllers/riccati.h"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tern {
namespace {

using Eigen::MatrixXd;

void CheckShape(const char* caller, const char* name, const MatrixXd& M,
                Eigen::Index rows, Eigen::Index cols) {
  if (M.rows() != rows || M.cols() != cols) {
    throw std::invalid_argument(fmt::format("{}: {} is {}x{} but must be {}x{}",
                                            caller, name, M.rows(), M.cols(),
                                            rows, cols));
  }
  if (!M.allFinite()) {
    throw std::invalid_argument(
        fmt::format("{}: {} has a non-finite entry", caller, name));
  }
}

void CheckSymmetric(const char* caller, const char* name, const MatrixXd& M) {
  const double tol = 1e-10 * (1 + M.cwiseAbs().maxCoeff());
  if ((M - M.transpose()).cwiseAbs().maxCoeff() > tol) {
    throw std::invalid_argument(
        fmt::format("{}: {} is not symmetric", caller, name));
  }
}

// The problem with the cross term folded in: A - B R^-1 N', Q - N R^-1 N',
// and G = B R^-1 B'.
struct Folded {
  MatrixXd A, G, Q;
};

Folded CheckAndFold(const char* caller, const MatrixXd& A, const MatrixXd& B,
                    const MatrixXd& Q, const MatrixXd& R, const MatrixXd& N) {
  const Eigen::Index n = A.rows();
  const Eigen::Index m = B.cols();
  CheckShape(caller, "A", A, n, n);
  CheckShape(caller, "B", B, n, m);
  CheckShape(caller, "Q", Q, n, n);
  CheckShape(caller, "R", R, m, m);
  if (N.size() != 0) CheckShape(caller, "N", N, n, m);
  CheckSymmetric(caller, "Q", Q);
  CheckSymmetric(caller, "R", R);
  const Eigen::LLT<MatrixXd> R_llt(R);
  if (R_llt.info() != Eigen::Success) {
    throw std::invalid_argument(
        fmt::format("{}: R is not positive definite", caller));
  }
  Folded f;
  f.G = B * R_llt.solve(B.transpose());
  if (N.size() != 0) {
    f.A = A - B * R_llt.solve(N.transpose());
    f.Q = Q - N * R_llt.solve(N.transpose());
  } else {
    f.A = A;
    f.Q = Q;
  }
  f.G = (f.G + f.G.transpose()) / 2;
  f.Q = (f.Q + f.Q.transpose()) / 2;
  return f;
}

// SDA on the symplectic pencil in standard form ([A 0; -H I], [I G; 0 A']):
// A <- A W^-1 A, G <- G + A W^-1 G A', H <- H + A' H W^-1 A, W = I + G H.
// H converges to the stabilizing solution.
MatrixXd DoublingIteration(const char* caller, MatrixXd A, MatrixXd G,
                           MatrixXd H) {
  const Eigen::Index n = A.rows();
  const MatrixXd I = MatrixXd::Identity(n, n);
  constexpr int kMaxIterations = 100;
  for (int k = 0; k < kMaxIterations; ++k) {
    const Eigen::PartialPivLU<MatrixXd> W(I + G * H);
    const MatrixXd WA = W.solve(A);
    const MatrixXd WG = W.solve(G);
    MatrixXd H_next = H + A.transpose() * H * WA;
    MatrixXd G_next = G + A * WG * A.transpose();
    A = A * WA;
    H_next = (H_next + H_next.transpose()) / 2;
    G = (G_next + G_next.transpose()) / 2;
    if (!H_next.allFinite()) break;
    const double change = (H_next - H).cwiseAbs().maxCoeff();
    H = std::move(H_next);
    if (change <= 1e-15 * (1 + H.cwiseAbs().maxCoeff())) return H;
  }
  throw std::runtime_error(fmt::format(
      "{}: the doubling iteration did not converge in {} iterations; no "
      "stabilizing solution (is (A, B) stabilizable and (Q, A) detectable?)",
      caller, kMaxIterations));
}

void CheckResidual(const char* caller, const MatrixXd& residual,
                   const MatrixXd& X, double scale) {
  const double r = residual.cwiseAbs().maxCoeff();
  if (!X.allFinite() || !(r <= 1e-8 * (1 + scale))) {
    throw std::runtime_error(fmt::format(
        "{}: no accurate stabilizing solution (residual {}); is (A, B) "
        "stabilizable and (Q, A) detectable?",
        caller, r));
  }
}

}  // namespace

MatrixXd ContinuousAlgebraicRiccati(const Eigen::Ref<const MatrixXd>& A,
                                    const Eigen::Ref<const MatrixXd>& B,
                                    const Eigen::Ref<const MatrixXd>& Q,
                                    const Eigen::Ref<const MatrixXd>& R,
                                    const Eigen::Ref<const MatrixXd>& N) {
  constexpr const char* kCaller = "ContinuousAlgebraicRiccati";
  const Folded f = CheckAndFold(kCaller, A, B, Q, R, N);
  const Eigen::Index n = A.rows();
  const MatrixXd I = MatrixXd::Identity(n, n);
  // Cayley transform of the Hamiltonian [A -G; -Q -A'] with shift gamma to
  // SDA standard form (Chu, Fan & Lin 2005, sec. 3):
  // A_g = A - g I, W = A_g' + Q A_g^-1 G, A0 = I + 2g W^-T,
  // G0 = 2g A_g^-1 G W^-1, H0 = 2g W^-1 Q A_g^-1.
  // gamma near the Hamiltonian's typical eigenvalue magnitude balances the
  // contraction of small and large eigenvalues; it is moved if A_g or W is
  // ill-conditioned.
  const double h_norm =
      std::sqrt(f.A.squaredNorm() * 2 + f.G.squaredNorm() + f.Q.squaredNorm());
  double gamma = std::max(h_norm / std::sqrt(2.0 * n), 1e-8);
  for (int attempt = 0; attempt < 8; ++attempt, gamma *= 1.7) {
    const Eigen::PartialPivLU<MatrixXd> Ag(f.A - gamma * I);
    if (!(Ag.rcond() > 1e-12)) continue;
    const MatrixXd AgInvG = Ag.solve(f.G);
    const MatrixXd W = (f.A - gamma * I).transpose() + f.Q * AgInvG;
    const Eigen::PartialPivLU<MatrixXd> W_lu(W);
    if (!(W_lu.rcond() > 1e-12)) continue;
    const MatrixXd W_inv = W_lu.inverse();
    const MatrixXd A0 = I + 2 * gamma * W_inv.transpose();
    MatrixXd G0 = 2 * gamma * AgInvG * W_inv;
    MatrixXd H0 = 2 * gamma * W_inv * f.Q * Ag.inverse();
    G0 = (G0 + G0.transpose()) / 2;
    H0 = (H0 + H0.transpose()) / 2;
    const MatrixXd X = DoublingIteration(kCaller, A0, G0, H0);
    const MatrixXd residual = f.A.transpose() * X + X * f.A - X * f.G * X + f.Q;
    CheckResidual(kCaller, residual, X,
                  X.cwiseAbs().maxCoeff() * (f.A.cwiseAbs().maxCoeff() +
                                             f.G.cwiseAbs().maxCoeff() *
                                                 X.cwiseAbs().maxCoeff()) +
                      f.Q.cwiseAbs().maxCoeff());
    return X;
  }
  throw std::runtime_error(fmt::format(
      "{}: A - gamma I or the Cayley-transformed system is singular for every "
      "tried shift; the Hamiltonian has eigenvalues on the imaginary axis?",
      kCaller));
}

MatrixXd DiscreteAlgebraicRiccati(const Eigen::Ref<const MatrixXd>& A,
                                  const Eigen::Ref<const MatrixXd>& B,
                                  const Eigen::Ref<const MatrixXd>& Q,
                                  const Eigen::Ref<const MatrixXd>& R,
                                  const Eigen::Ref<const MatrixXd>& N) {
  constexpr const char* kCaller = "DiscreteAlgebraicRiccati";
  const Folded f = CheckAndFold(kCaller, A, B, Q, R, N);
  const MatrixXd X = DoublingIteration(kCaller, f.A, f.G, f.Q);
  // Residual of X = A'X(I + G X)^-1 A + Q, the folded form.
  const Eigen::Index n = A.rows();
  const MatrixXd IGX = MatrixXd::Identity(n, n) + f.G * X;
  const MatrixXd residual =
      f.A.transpose() * X * IGX.partialPivLu().solve(f.A) + f.Q - X;
  CheckResidual(kCaller, residual, X,
                X.cwiseAbs().maxCoeff() * (1 + f.A.squaredNorm()) +
                    f.Q.cwiseAbs().maxCoeff());
  return X;
}

}  // namespace tern
