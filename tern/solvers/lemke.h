#pragma once
// Lemke's complementary pivoting algorithm for the LCP(M, q) (lcp.h), with a
// covering vector d > 0 and the lexicographic minimum-ratio rule, which makes
// it terminate on degenerate problems (Cottle, Pang & Stone, "The Linear
// Complementarity Problem", 1992, ch. 4: Lemke's method and the lexicographic
// resolution of degeneracy).
//
// When to use it: small to medium dense LCPs (n up to a few hundred) that need
// an exact answer, such as one contact island of a time-stepping plant
// (Stewart & Trinkle 1996; Anitescu & Potra 1997). It solves any LCP with a
// P-matrix, and for copositive-plus M (e.g. positive semidefinite) it either
// solves the problem or reports kRayTermination, which then proves the LCP
// infeasible. It also processes the Stewart-Trinkle/Anitescu-Potra friction
// LCP. Cost per pivot is O(n^2) on an n x (2n + 2) tableau; expect O(n)
// pivots. For large scenes where an approximate answer suffices, use
// projected Gauss-Seidel (projected_gauss_seidel.h).
//
// Model/data split: a LemkeWorkspace holds the tableau. Solving allocates only
// when the workspace has to grow, so repeated solves of problems no larger
// than its capacity do not touch the heap.
#include <Eigen/Core>
#include <vector>

#include "tern/solvers/lcp.h"

namespace tern::solvers {

struct LemkeSettings {
  // Pivot cap; <= 0 picks 20 * (n + 1) (Lemke usually needs about n).
  int max_pivots = 0;
  // Entries of the entering column at or below this are not pivot candidates.
  double pivot_tolerance = 1e-12;
  // The answer is kSolved when its natural residual is at most
  // tolerance * max(1, ||q||_inf); otherwise kInaccurate.
  double tolerance = 1e-10;
  // If true, z on entry is a guess (e.g. the previous time step's answer):
  // with a = {i : z_i > 0}, the solver first solves M_aa z_a = -q_a (LU with
  // partial pivoting, O(|a|^3 / 3), no tableau) and returns z if it solves
  // the LCP, with LcpResult::iterations = 0; otherwise it runs Lemke from
  // scratch. The right support from one time step to the next is the common
  // case of a contact set that has not changed. Indices of a whose row and
  // column of M_aa and q entry are exactly zero (lambda of a contact without
  // impulse) keep their guessed value.
  bool warm_start = false;
};

// Scratch memory for SolveLcpLemke. Grows to the largest n solved.
class LemkeWorkspace {
 public:
  LemkeWorkspace() = default;
  // Sizes the workspace for problems with up to `capacity` unknowns.
  explicit LemkeWorkspace(int capacity) { Reserve(capacity); }
  // Grows (allocates) if capacity < n; never shrinks.
  void Reserve(int n);
  int capacity() const { return capacity_; }

 private:
  friend struct LemkeSolver;  // lemke.cc
  int capacity_ = 0;
  // (capacity, 2 capacity + 2) tableau B^-1 [I, -M, -d, q]; columns are
  // w (n), z (n), z0, right-hand side.
  Eigen::MatrixXd tableau_;
  Eigen::VectorXd column_;      // (capacity) entering column
  std::vector<int> basis_;      // (capacity) variable basic in each row
  std::vector<char> is_basic_;  // (2 capacity + 2) 1 if a variable is basic
  Eigen::MatrixXd lu_;          // (capacity, capacity) warm start: LU of M_aa
  std::vector<int> support_;    // (capacity) warm start: the indices a
};

// Solves the LCP(M, q) by Lemke's method with covering vector d.
// M: (n x n), q: (n), d: (n) all > 0 (all ones is the usual choice).
// z: (n) out (in, as a guess, when settings.warm_start); w: (n) out, = M z + q.
// Pass M as a MatrixXd or a block of one: other expressions are copied.
// Throws std::invalid_argument naming the argument when sizes disagree, M or
// q has a NaN or infinite entry (naming it; M is scanned only when the
// answer is not finite), d is not positive, or workspace is null. Failures to
// solve are reported in the result's status, with z and w then holding the last
// basic solution.
LcpResult SolveLcpLemke(const Eigen::Ref<const Eigen::MatrixXd>& M,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& d,
                        const LemkeSettings& settings,
                        LemkeWorkspace* workspace,
                        Eigen::Ref<Eigen::VectorXd> z,
                        Eigen::Ref<Eigen::VectorXd> w);

// As above with the covering vector d = (1, ..., 1).
LcpResult SolveLcpLemke(const Eigen::Ref<const Eigen::MatrixXd>& M,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const LemkeSettings& settings,
                        LemkeWorkspace* workspace,
                        Eigen::Ref<Eigen::VectorXd> z,
                        Eigen::Ref<Eigen::VectorXd> w);

}  // namespace tern::solvers
