#pragma once
// Murty's principal pivoting method with the least-index rule for the mixed
// linear complementarity problem of a constrained multibody system: find
// f (m) with w = A f - b and, row by row,
//   bilateral rows:   w_i = 0                          (f_i free)
//   unilateral rows:  w_i >= 0,  f_i >= 0,  w_i f_i = 0
// (Murty, "Linear Complementarity, Linear and Nonlinear Programming", 1988,
// sec. 4.2, the Bard-type scheme; Cottle, Pang & Stone, "The Linear
// Complementarity Problem", 1992, sec. 4.2, principal pivoting).
//
// The method keeps an active set (bilateral rows always in it), solves
// A_aa f_a = b_a on it with f = 0 elsewhere, and flips the first row (least
// index) that violates its condition: an active unilateral row with f_i < 0
// leaves the set, an inactive one with w_i < -tolerance (1 + |b_i|) joins
// it. For A symmetric positive definite (then the Schur complement of the
// bilateral rows is a P-matrix) the least-index rule never cycles and
// finishes in finitely many pivots, on degenerate problems too (Murty, sec.
// 4.2); in practice a few. Each pivot refactors the active block by a small
// dense Cholesky, O(k^3 / 6) for k active rows.
//
// When to use it: the continuous plant's joint limits and bilateral loops
// (RigidBodySystem): few rows, mostly bilateral, an exact answer, scalar
// types with derivatives. Contact LCPs with a friction cone go to Lemke
// (lemke.h) or the convex solver (convex_contact_solver.h).
//
// Model/data split: a PrincipalPivotingWorkspace holds the factor and the
// active set; a solve allocates nothing once the workspace holds m rows
// (T = double; AutoDiffXd's arithmetic allocates its derivatives).
// Instantiated for T = double and AutoDiffXd (the plant's scalars).
#include <Eigen/Core>
#include <span>
#include <vector>

#include "tern/common/eigen_types.h"

namespace tern::solvers {

enum class PivotingStatus {
  kSolved,               // every row meets its condition
  kIterationLimit,       // the pivot cap was reached
  kNotPositiveDefinite,  // Cholesky of an active block failed
};

// Human-readable name of a status, e.g. "not positive definite".
const char* ToString(PivotingStatus status);

struct PivotingSettings {
  // Pivot cap; <= 0 picks 4 m + 20.
  int max_pivots = 0;
  // An inactive unilateral row joins the active set when w_i < -tolerance
  // (1 + |b_i|) (relative to the row's right-hand side, so the test is
  // invariant to the scale of the problem).
  double tolerance = 1e-12;
};

struct PivotingResult {
  PivotingStatus status = PivotingStatus::kIterationLimit;
  int pivots = 0;      // flips of the active set made
  int num_active = 0;  // rows in the final active set
  // kNotPositiveDefinite: the row (0..m-1) whose pivot d_j <= 0 stopped the
  // Cholesky; else -1.
  int failed_row = -1;
  bool ok() const { return status == PivotingStatus::kSolved; }
};

// The type of A below: Eigen::Ref<const MatrixX<T>> with its default
// stride written out (the same type). clang 14 mangles the default stride's
// expression differently in a caller's template than in the explicit
// instantiations, and the link then fails.
template <typename T>
using PivotingMatrixRef = Eigen::Ref<const MatrixX<T>, 0, Eigen::OuterStride<>>;

// Scratch memory for SolveMixedLcpPrincipalPivoting. Grows to the largest m
// solved; never shrinks.
template <typename T>
class PrincipalPivotingWorkspace {
 public:
  PrincipalPivotingWorkspace() = default;
  explicit PrincipalPivotingWorkspace(int capacity) { Reserve(capacity); }
  // Grows (allocates) if capacity < m.
  void Reserve(int m);
  int capacity() const { return capacity_; }
  // After a solve: 1 for rows in the final active set (m entries valid).
  const std::vector<char>& active() const { return active_; }

 private:
  template <typename U>
  friend PivotingResult SolveMixedLcpPrincipalPivoting(
      const PivotingMatrixRef<U>&, const Eigen::Ref<const VectorX<U>>&,
      std::span<const char>, const PivotingSettings&,
      PrincipalPivotingWorkspace<U>*, Eigen::Ref<VectorX<U>>);
  int capacity_ = 0;
  MatrixX<T> L_;              // (capacity x capacity) active block, factored
  VectorX<T> g_;              // (capacity) active right-hand side, then f_a
  std::vector<int> index_;    // (capacity) the active rows, ascending
  std::vector<char> active_;  // (capacity) 1 if the row is active
};

// Solves the mixed LCP above. A: (m x m), symmetric positive definite on
// every active set the method visits (add a small diagonal regularization
// for redundant rows); only its lower triangle is read for the factor, and
// its full rows for w. b: (m). unilateral: (m) nonzero for a unilateral row.
// f: (m) out, the answer; with a status other than kSolved, f holds the last
// iterate (zero if the factor failed). Pass A as a MatrixX or a block of
// one: other expressions are copied. Does not allocate beyond the
// workspace's growth.
// Throws std::invalid_argument naming the argument when the sizes disagree,
// workspace is null, or an entry of A or b is NaN or infinite (naming it).
// Failures to solve are reported in the status, never thrown: the caller
// names its system in the error (RigidBodySystem names the plant and time).
template <typename T>
PivotingResult SolveMixedLcpPrincipalPivoting(
    const PivotingMatrixRef<T>& A, const Eigen::Ref<const VectorX<T>>& b,
    std::span<const char> unilateral, const PivotingSettings& settings,
    PrincipalPivotingWorkspace<T>* workspace, Eigen::Ref<VectorX<T>> f);

}  // namespace tern::solvers
