#pragma once
// Linear complementarity problems (LCP) and what a solver reports about them.
//
// The LCP(M, q): find z (n) such that
//   w = M z + q,   w >= 0,   z >= 0,   w^T z = 0
// (Cottle, Pang & Stone, "The Linear Complementarity Problem", 1992, ch. 1).
// Solvers in this folder write z and w and return an LcpResult; they never
// hand back an unchecked answer: `status` is kSolved only when the natural
// residual below is within the solver's tolerance.
#include <Eigen/Core>

namespace tern::solvers {

enum class LcpStatus {
  kSolved,          // residual <= the solver's tolerance
  kRayTermination,  // Lemke: secondary ray; for copositive-plus M the LCP
                    // has no solution (Cottle, Pang & Stone, ch. 4)
  kIterationLimit,  // pivot or sweep cap reached before convergence
  kInaccurate,      // a pivot sequence ended but round-off left residual
                    // above tolerance (ill-conditioned M)
  kBlockFailure,    // block Gauss-Seidel: a block's own LCP failed
};

// Human-readable name of a status, e.g. "ray termination".
const char* ToString(LcpStatus status);

struct LcpResult {
  LcpStatus status = LcpStatus::kIterationLimit;
  int iterations = 0;     // Lemke: pivots; Gauss-Seidel: sweeps
  double residual = 0.0;  // natural residual ||min(z, w)||_inf at the answer
  int failed_block = -1;  // kBlockFailure: index of the block that failed
  bool ok() const { return status == LcpStatus::kSolved; }
};

// The natural residual ||min(z, w)||_inf with w = M z + q supplied: zero
// exactly at a solution, and it measures infeasibility (negative z or w) and
// complementarity together. z, w: (n).
double LcpNaturalResidual(const Eigen::Ref<const Eigen::VectorXd>& z,
                          const Eigen::Ref<const Eigen::VectorXd>& w);

namespace internal {
// Throws std::invalid_argument "<who>: <name>(i, j) = <value> is not finite"
// (or "<name>[i]" for a vector) at the first NaN or infinity in A. Used by
// the solvers on their inputs; O(size of A).
void CheckFiniteMatrix(const char* who, const char* name,
                       const Eigen::Ref<const Eigen::MatrixXd>& A);
void CheckFiniteVector(const char* who, const char* name,
                       const Eigen::Ref<const Eigen::VectorXd>& v);
// After a solve, O(n) when z and w are finite. Otherwise finds the non-finite
// entry of M (CheckFiniteMatrix throws naming it) or, if M is finite, throws
// std::runtime_error saying the answer overflowed. M is checked only then, so
// a successful solve does not pay an O(n^2) scan for bad input.
void CheckFiniteAnswer(const char* who,
                       const Eigen::Ref<const Eigen::MatrixXd>& M,
                       const Eigen::Ref<const Eigen::VectorXd>& z,
                       const Eigen::Ref<const Eigen::VectorXd>& w);
}  // namespace internal

}  // namespace tern::solvers
