#pragma once
// The convex contact problem of convex_contact_solver.h for an island of
// free bodies (a pile of spheres or boxes): the same problem, the same
// rules and the same answer as SolveConvexContact, with its structure
// used. Rows and Jacobians in, velocities and impulses out; no robots.
//
// Structure. The island has nb bodies of 6 dofs each (dofs 6 b .. 6 b + 5
// are body b's, in the caller's order: angular then linear, or any other
// as long as A and J agree), so A is block diagonal with one 6 x 6 SPD
// block per body, and every constraint acts on one body (against the
// world) or two. The Newton matrix A + J^T G J is then block sparse: a
// 6 x 6 block per body and per pair of bodies that share a constraint.
// It is factored by a block Cholesky in fixed-size 6 x 6 kernels, the
// bodies eliminated in minimum-degree order on the body-contact graph
// (found once per solve, the pattern of the factor with it, and reused
// by every Newton iteration), so a chain or a stack factors with no fill
// and a one-body island is a 6 x 6 Cholesky per iteration. Products with
// A and A^-1 (the Delassus estimates, the impulse warm start) are per
// body.
//
// Everything else is SolveConvexContact's (the pieces are shared, in
// convex_contact_internal.h): the cost, the regularization (near-rigid
// beta, sigma, the load-bounded rest_velocity), the exact line search, the
// warm-start choice (settings.warm_start_impulses, warm_start_best), the
// convergence test and the result. settings.tree_factorization is
// ignored; result.tree is false.
//
// Model/data split: a FreeBodySolverWorkspace holds the blocks; a solve
// allocates only when the workspace grows.
#include <Eigen/Core>
#include <span>
#include <vector>

#include "tern/solvers/convex_contact_solver.h"

namespace tern::solvers {

using Matrix6d = Eigen::Matrix<double, 6, 6>;

// The rows of an island of free bodies: constraint k acts on body
// bodies[2 k] and, if bodies[2 k + 1] >= 0, on body bodies[2 k + 1] (a
// different one); its rows on body bodies[2 k + e] are values[36 k + 18 e
// + 6 i + j] (row i < NumRows(kind), dof j of that body; the entries of
// rows beyond NumRows are not read).
struct FreeBodyRows {
  std::span<const int> bodies;     // (2 constraints)
  std::span<const double> values;  // (36 constraints)
};

class FreeBodySolverWorkspace {
 public:
  void Reserve(int num_bodies, int num_constraints, int m);

 private:
  template <int>
  friend struct FreeBodySolver;  // free_body_contact_solver.cc
  int nb_{0}, nc_{0}, m_{0};
  using Block36 = Eigen::Matrix<double, 3, 6>;
  using Block63 = Eigen::Matrix<double, 6, 3>;
  // Per body: the lower Cholesky factor of its block of A (1 / L(j, j) on
  // the diagonal, as are the factor's diagonal blocks diag_ below).
  std::vector<Matrix6d> LA_;
  // Per body: 1 if its block of A is diagonal (a body with its center of
  // mass at its origin and principal axes along its frame's, as a sphere's
  // or a box's): then LA_ is diagonal (only its diagonal is set and read)
  // and the products with A^-1 scale.
  std::vector<char> diagA_;
  // Per constraint: its rows on its bodies, padded to 3 x 6 (zeros below
  // NumRows), and the first row's index.
  std::vector<Block36> J_;  // (2 constraints)
  // The same blocks transposed (6 x 3, column-major): J^T y and J^T G J
  // are then vectorized down their columns.
  std::vector<Block63> Jt_;  // (2 constraints)
  std::vector<int> bodies_, row_of_;
  // The Newton matrix's factor in the elimination order: position p holds
  // body order_[p] (pos_[b] the reverse); the lower blocks (i, j), i > j,
  // that may be nonzero (the body-contact graph with its fill) are
  // blocks_[slot_[i nb + j]], and the diagonal blocks diag_[i]. below_[p]
  // lists the columns j < p of row p's blocks, ascending.
  std::vector<int> order_, pos_, slot_, below_begin_, below_;
  std::vector<Matrix6d> blocks_, diag_;
  std::vector<char> adj_, done_;     // (nb x nb) graph, eliminated bodies
  std::vector<int> tmp_deg_, nbrs_;  // degrees, an eliminated body's neighbours
  Eigen::VectorXd vc_, gamma_, R_, G_, Jdv_, vct_, trial_;  // (m, 3 m)
  Eigen::VectorXd shift_, b_anchored_;  // (m) anchor_sticking's bias
  Eigen::VectorXd dv_, Adv_, e_, Ae_, g_, D_, tmp_;  // (6 nb)
};

// Solves the problem of SolveConvexContact with A = diag(A_blocks) (nb
// blocks 6 x 6, SPD), v_star (6 nb), J given by `rows`, b (m),
// constraints (their rows sum to m): v (6 nb) out (in: the guess when
// !settings.warm_start_impulses, a second guess with warm_start_best) and
// gamma (m) out (in: the impulse guess when settings.warm_start_impulses).
// Throws std::invalid_argument naming the culprit when sizes disagree, a
// constraint's body is out of range or repeated, an entry is not finite,
// a contact has mu < 0, a bounded row a bad bound, a regularization is
// negative ("SolveFreeBodyContact: constraint 3: friction coefficient
// -0.5 is not >= 0"), or a body's block of A is not positive definite
// ("body 2: ...").
ConvexSolverResult SolveFreeBodyContact(
    std::span<const Matrix6d> A_blocks,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const FreeBodyRows& rows,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, FreeBodySolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma);

// Whether a 6 x 6 block of A is diagonal (every off-diagonal entry exactly
// 0) with a positive, finite diagonal: SolveFreeBodyContact's test of each
// block (its Cholesky factor is then the square roots of the diagonal, and
// the block is finite).
bool PositiveDiagonal6(const Matrix6d& M);

namespace internal {

// SolveFreeBodyContact for a caller that builds the problem consistent by
// construction (the time-stepping plant): the workspace is not null, the
// sizes agree (v_star and v 6 nb, b and gamma the constraints' rows, two
// body indices and 36 values per constraint), every constraint's bodies are
// in range and distinct, and diag_A[i] == PositiveDiagonal6(A_blocks[i])
// (the plant's blocks are its free bodies' constant spatial inertias,
// tested once per model). Those are asserted in debug builds only; every
// check of the data (a constraint's mu, bound and regularization, the
// finiteness of A's other blocks, v_star, b, the warm start and J) is made
// as SolveFreeBodyContact makes it, with the same messages.
ConvexSolverResult SolveFreeBodyContactPrepared(
    std::span<const Matrix6d> A_blocks, std::span<const char> diag_A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const FreeBodyRows& rows,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, FreeBodySolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma);

}  // namespace internal

}  // namespace tern::solvers
