#pragma once
// A convex solver for one time step of frictional contact with the exact
// (isotropic) Coulomb cone, joint limits and bilateral constraints: rows and
// Jacobians in, velocities and impulses out. It knows nothing about robots.
//
// The problem is the unconstrained convex formulation of Castro, Permenter
// and Han, "An unconstrained convex formulation of compliant contact"
// (IEEE T-RO 39(2), 2023; Drake's SapSolver, "SAP"): find the velocities v
// (n) that minimize
//
//   ell(v) = 1/2 (v - v*)^T A (v - v*) + sum_i l_i(vc_i),   vc = J v + b,
//
// with A (n x n) symmetric positive definite (the mass matrix, with h times
// the joint damping if the caller treats damping implicitly), v* the
// velocities without constraints, J (m x n) the constraint rows and b (m)
// their bias velocities (a speculative gap phi / h, a position error times
// a gain). Constraint i has impulse gamma_i = P_i(y_i), y_i = -R_i^-1 vc_i,
// where P_i is the projection, in the norm of the regularization R_i
// (diagonal, > 0), onto the set F_i of admissible impulses:
//   contact (3 rows: normal, t1, t2): F = {||gamma_t|| <= mu gamma_n}, the
//     exact Coulomb cone;
//   unilateral (1 row: a joint limit): F = {gamma >= 0};
//   bilateral (1 row: loops, welds, mimic): F = R;
//   bounded (1 row: joint dry friction): F = [-bound, bound], MuJoCo's
//     frictionloss rows (Todorov, "Convex and analytically-invertible
//     dynamics with contacts and constraints", ICRA 2014, sec. IV): the
//     projection is a clamp, G = 1/R inside and 0 at the bounds;
// and l_i(vc) = max over gamma in F of (-vc^T gamma - 1/2 gamma^T R gamma)
// (= 1/2 gamma_i^T R_i gamma_i for the cones above; for a bounded row at
// its bound, B |vc| - 1/2 R B^2, Huber's function), whose gradient is
// -gamma_i. The optimality condition A (v - v*) = J^T gamma is the momentum
// balance of the step. With R -> 0 the answer tends to the rigid one
// (vc_n >= 0, gamma_n >= 0, complementarity, maximal dissipation on the
// round cone); with R > 0 it is that of a stiff, critically damped
// compliance (Castro et al. sec. V: the "near-rigid" regime). A sliding contact
// always has ||gamma_t|| = mu gamma_n exactly, in any direction: there is no
// polyhedral error.
//
// Regularization. A constraint with R_i = 0 in the input gets the near-rigid
// value from its Delassus diagonal estimate w_i = trace(J_i A^-1 J_i^T) /
// rows (Castro et al. sec. VII.B): R_n = beta^2 / (4 pi^2) w_i for the
// normal and unilateral/bilateral rows (beta = 1: the compliance's time
// constant is about h / (2 pi)), R_t = sigma w_i for the tangential rows
// (sigma = 1e-3: a sticking contact creeps at most at sigma w_i ||gamma_t||,
// a fraction sigma of the velocity change its friction impulse makes; a
// bounded row gets R = sigma w_i too, so a stuck joint creeps at most at
// |vc| = sigma w_i |gamma| <= sigma w_i bound, a fraction sigma of the
// velocity change its largest friction impulse makes, like a sticking
// contact: for a hinge of inertia I held by friction F against a torque
// tau < F over a step h, sigma h tau / I); a loaded normal row can be
// stiffened down to beta_min so that it rests within settings.rest_velocity
// (below). An R_i > 0 given by the caller is used as is (a physical
// compliance).
//
// Method: Newton's method on ell with a line search (Castro et al. sec.
// VI): the Hessian A + J^T G J (G_i = -d gamma_i / d vc_i, positive
// semidefinite: the projection's derivative) is factored by Cholesky, the
// step size nearly minimizes ell along the Newton direction (safeguarded
// Newton-Raphson on d ell / d alpha to settings.line_search_tolerance of
// its starting slope, with ell decreased; O(m) per trial since A dv and
// J dv are formed once). ell is strictly convex, so the iteration
// converges from any start, quadratically near the answer. Warm start:
// from a guess of v, or of the impulses gamma0 (v0 = v* + A^-1 J^T gamma0),
// or the better of both (settings.warm_start_best).
//
// Cost per iteration: J is kept packed per constraint (its nonzero columns
// only: a contact moves one or two bodies), so J v, J^T gamma and J^T G J
// cost what the constraints touch; J^T G J skips constraints with G = 0
// (separating contacts, inactive limits) and fills only the lower
// triangle. The factorization follows the elimination tree of the pattern
// of A + J^T G J (A's nonzeros and each constraint's columns pairwise,
// found from the input, nothing to declare): for a robot's dofs in the
// order parents first, with contacts on one branch or with the world, that
// is the kinematic tree, and A + J^T G J = L^T L is factored with no fill
// (Featherstone's LTL, "Rigid Body Dynamics Algorithms" sec. 6.3) at the
// cost of the dofs' squared depths instead of n^3 / 6 (L stored by rows
// along each dof's path, so each update is a contiguous axpy); the
// Delassus estimates cost a chain each. Otherwise (long chains: free bodies
// touching one another) a plain left-looking dense Cholesky up to 96 dofs,
// Eigen's blocked LLT above. The answer is the same either way
// (result.tree says which was used).
//
// The start is picked by settings.warm_start_best (below); result.start
// says which guess was taken.
//
// Convergence (Castro et al. sec. VI.C): with D = diag(A)^-1/2, the
// optimality residual r = ||D (A (v - v*) - J^T gamma)|| must satisfy
//   r <= abs_tolerance + rel_tolerance * max(||D A (v - v*)||,
//   ||D J^T gamma||);
// or ell stops decreasing to round-off (a step changes ell by less than
// cost_tolerance * |ell|). The result says which, with the iterations and
// the residual; an answer beyond max_iterations is returned with converged
// = false, never as converged.
//
// Model/data split: a ConvexSolverWorkspace holds the dense matrices; a
// solve allocates only when the workspace grows.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

#include "tern/math/packed_tree_factor.h"

namespace tern::solvers {

enum class ConvexConstraintKind { kContact, kUnilateral, kBilateral, kBounded };

// One constraint: its kind (rows: 3 for a contact in the order normal, t1,
// t2; 1 otherwise), the friction coefficient (contacts, >= 0) and its
// regularization (0: near-rigid from the Delassus estimate; > 0: R of every
// row, s/kg or the units of row velocity per impulse). Constraints take the
// rows of J in order. A bounded row takes |gamma| <= bound (>= 0, the
// row's impulse units: N m s for a joint friction F over a step h, F h).
struct ConvexConstraint {
  ConvexConstraintKind kind{ConvexConstraintKind::kContact};
  double mu{0};
  double R{0};
  // The normal impulse (N s) the row is expected to carry at rest, for the
  // load-bounded regularization (ConvexSolverSettings::rest_velocity); < 0:
  // its warm-start impulse. A caller gives the same load to the contacts of
  // one body pair (their mean), so that they share one compliance and a
  // tipping body meets a restoring moment (with each row's own impulse,
  // every corner would sink the same depth whatever its load).
  double load{-1};
  double bound{0};  // kBounded: |gamma| <= bound
  // With ConvexSolverSettings::anchor_sticking: false leaves this
  // constraint unanchored (a caller's contact deep in an overlap that is
  // being pushed out: its last impulse is no load to hold).
  bool anchor{true};
};

struct ConvexSolverSettings {
  int max_iterations{100};     // Newton iterations
  double rel_tolerance{1e-6};  // on the optimality residual (above)
  double abs_tolerance{1e-14};
  double cost_tolerance{1e-14};  // relative change of ell at round-off
  double beta{1.0};    // near-rigid normal regularization (Castro et al.)
  double sigma{1e-3};  // tangential regularization, relative to w_i
  // Load-bounded normal regularization. The near-rigid R_n = beta^2 /
  // (4 pi^2) w_i lets a row at rest under the impulse gamma_n approach at
  // R_n gamma_n; w_i is dominated by the lighter body, so a heavy body on a
  // light one sinks (a 1000 kg box on a 1 g box: 0.25 m at 1 ms with beta
  // = 1). If rest_velocity > 0 (m/s; with warm_start_impulses), a normal or
  // unilateral row with the load gamma0_n (ConvexConstraint::load) gets R_n =
  // max(beta_min^2 / (4 pi^2) w_i, min(R_n, rest_velocity / gamma0_n)),
  // which is the stiff beta_min for a row without a warm-start impulse (a
  // new contact, an impact: its load is not known yet): stiff where the
  // load asks for it, while robots resting on the ground keep the
  // near-rigid conditioning (fewer Newton iterations). Rows given R > 0 by
  // the caller are not changed.
  double rest_velocity{0};
  double beta_min{0.01};
  // Load-bounded tangential regularization, the same rule for friction: a
  // sticking contact creeps at R_t |gamma_t| (m/s). If creep_velocity > 0
  // (with warm_start_impulses), a contact whose warm-start impulse sticks
  // (|gamma0_t| < 0.99 mu gamma0_n) gets R_t = max(sigma_min w_i, min(sigma
  // w_i, creep_velocity / |gamma0_t|)): a grip that holds a load creeps at
  // most creep_velocity (or at sigma_min's rate), while contacts without
  // tangential load, and sliding ones, keep sigma's conditioning. Rows
  // given R > 0 by the caller are not changed.
  double creep_velocity{0};
  double sigma_min{1e-5};
  // Anchored friction (with warm_start_impulses): a contact with a
  // warm-start impulse (gamma0_n > 0, gamma0_t != 0) and a bounded row
  // with one get their regularization centred on gamma0: y_t = gamma0_t -
  // R_t^-1 vc_t (b_t -= R_t gamma0_t). Over the steps this is the proximal
  // point method (Rockafellar, "Monotone operators and the proximal point
  // algorithm", SIAM J. Control Optim. 1976) on the friction problem, one
  // proximal step per time step, so a steady load converges to the
  // unregularized (exact Coulomb) answer: a sticking answer has vc_t = R_t
  // (gamma0_t - gamma_t), and a grip whose load is steady does not creep
  // (the error in gamma shrinks by about sigma / (1 + sigma) per step).
  // R_t is unchanged. A stale or wrong gamma0 (a new contact point, a load
  // that changed) costs one step a velocity of at most R_t |gamma0_t -
  // gamma_t|, the creep the unanchored problem has every step; a sliding
  // contact's force leans toward gamma0_t by at most the angle R_t
  // |gamma0_t| / |vc_t| and does work only below that creep speed. Off by
  // default: exact stick-slip states put contacts on the cone's kink,
  // which costs Newton iterations (docs/plant.md, "Pinch grip"). Rows
  // given R > 0 by the caller (a physical compliance) are not anchored.
  bool anchor_sticking{false};
  int max_line_search_iterations{60};
  // The line search stops at a step alpha where |d ell / d alpha| <=
  // line_search_tolerance |d ell / d alpha (0)| and ell has decreased
  // (MuJoCo's ls_tolerance, 0.01 by default: the Newton iteration does not
  // need the exact minimizer along its direction, and each trial costs a
  // projection of every constraint).
  double line_search_tolerance{1e-2};
  double alpha_max{1.5};  // largest step of the exact line search
  // If true, gamma on entry is a guess of the impulses and the start is
  // v* + A^-1 J^T gamma; otherwise v on entry is the guess.
  bool warm_start_impulses{true};
  // If true (with warm_start_impulses), v on entry is a second guess: the
  // solve starts from whichever of v* + A^-1 J^T gamma and v has the
  // lower ell (as MuJoCo compares its warm start with the unconstrained
  // accelerations: with gamma = 0 the first guess is v*). With a stiff
  // regularization a small error in the
  // impulses costs R^-1 times more than the same error in the velocities,
  // so a body at rest is best started from its last velocities.
  bool warm_start_best{false};
  // If false, the factorization is always dense (no look for a tree: a
  // caller that knows its island is free bodies touching one another,
  // whose elimination tree is a long chain, saves the look).
  bool tree_factorization{true};
};

struct ConvexSolverResult {
  bool converged{false};
  int iterations{0};              // Newton iterations
  int line_search_iterations{0};  // summed over iterations
  double residual{0};  // r / max(scale, tiny): relative optimality residual
  double cost{0};      // ell at the answer
  // The start: 0 the impulse guess, 1 the velocity guess, 2 v* (no warm
  // start: gamma0 = 0 and warm_start_impulses, without warm_start_best).
  int start{0};
  // True if A + J^T G J was factored along its elimination tree (a robot's
  // dofs, parents first: no fill), false if densely.
  bool tree{false};
};

class ConvexSolverWorkspace {
 public:
  void Reserve(int n, int m);

 private:
  friend struct ConvexSolver;  // convex_contact_solver.cc
  int n_{0}, m_{0};
  Eigen::MatrixXd H_, X_;
  Eigen::VectorXd vc_, y_, gamma_, R_, G_, dv_, Adv_, Jdv_, e_, Ae_, g_,
      dscale_, tmp_, gamma_trial_;
  Eigen::VectorXd shift_, b_anchored_;  // (m) anchor_sticking's bias
  // Per constraint k: its nonzero columns cols_[col_begin_[k] ..
  // col_begin_[k + 1]) and its rows on them, row major, at Jc_[3 *
  // col_begin_[k]].
  std::vector<int> cols_, col_begin_;
  std::vector<double> Jc_;
  // Elimination trees (parent of each dof, -1 at a root) of A + J^T G J
  // (parent_) and of A alone (parent_a_), and scratch.
  std::vector<int> parent_, parent_a_, mark_, nodes_;
  std::vector<char> seen_;
  std::vector<double> x3_, inv_diag_;  // TreeDelassus: 3 rows side by side
  std::vector<char> pattern_;
  // The Newton matrix factored along parent_, packed by rows (ConvexSolver::
  // PackLayout): each dof's depth, its row's start, the rows.
  std::vector<int> depth_, row_start_, row_base_, col_base_;
  std::vector<double> packed_;
  std::vector<double> packed_a_;  // A's entries in that layout
  // The last Newton matrix A + J^T G J before factoring, in that layout,
  // and the G it was formed with (ConvexSolver::NewtonDirection adds only
  // the constraints whose G changed since).
  std::vector<double> packed_h_, G_h_;
  std::vector<double> ga_;  // (3 n) G J of one constraint, by columns
  std::vector<std::uint64_t> row_bits_;  // (n) a row of A, as bits
};

// Solves the problem above. A: (n x n) SPD; v_star: (n); J: (m x n); b: (m);
// constraints: their rows sum to m. v: (n) out (in: the guess when
// !settings.warm_start_impulses); gamma: (m) out (in: the guess when
// settings.warm_start_impulses), impulses in the rows' units (N s).
// Throws std::invalid_argument naming the argument when sizes disagree, an
// entry is not finite, a contact has mu < 0, a bounded row a bound that is
// negative or not finite, or a regularization is negative ("constraint 3:
// friction coefficient -0.5 < 0"), or A is not positive definite.
ConvexSolverResult SolveConvexContact(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star,
    const Eigen::Ref<const Eigen::MatrixXd>& J,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, ConvexSolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma);

// J given packed per constraint, as a caller that builds rows per body
// has it (the time-stepping plant): constraint k acts on the columns
// cols[col_begin[k]] .. cols[col_begin[k + 1] - 1] (ascending, in [0, n)),
// and its rows on them are values[3 col_begin[k] + i nk + p] (row i,
// column p; nk = its number of columns). Columns may hold zeros. This
// saves the caller a dense m x n J and the solver its scan.
struct ConvexPackedRows {
  std::span<const int> cols;
  std::span<const int> col_begin;  // (constraints + 1), col_begin[0] = 0
  std::span<const double> values;  // 3 col_begin.back()
};

// The same with J packed (m = b.size()). Throws as above, and names the
// constraint whose columns are out of range or not ascending, or whose
// rows are not finite.
//
// a_factor (optional): A = L^T L already factored by the caller along a
// tree (a robot's free-motion matrix, factored for its free motion;
// PackedTreeFactor, parents first). If A's nonzeros lie on that tree's
// paths (checked, one pass over A's upper triangle: A is symmetric), the
// tree is taken as A's elimination tree (no Liu's algorithm) and the
// factor is used instead of factoring A again (the Delassus estimates and
// the impulse warm start: the same operations in the same order as the
// solver's own factorization, so the answer is the same to the bit);
// otherwise it is ignored. Contract: it is the factor of this A. Checked:
// its size (n; else std::invalid_argument) and, when used, its trace,
// sum L_ij^2 = trace(A) to 1e-10 relative (a stale or foreign factor
// throws std::invalid_argument naming a_factor).
ConvexSolverResult SolveConvexContact(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const ConvexPackedRows& J,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, ConvexSolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma,
    const PackedTreeFactor* a_factor = nullptr);

// The number of rows of a constraint kind (3 or 1).
inline int NumRows(ConvexConstraintKind kind) {
  return kind == ConvexConstraintKind::kContact ? 3 : 1;
}

namespace internal {

// SolveConvexContact (packed J, a_factor) for a caller that builds the
// problem consistent by construction (the time-stepping plant's island of
// one articulated subtree): the workspace is not null, the sizes agree,
// each constraint's columns are ascending and in [0, n), A is the
// free-motion matrix of a kinematic tree (its nonzeros on a_factor's
// paths) and a_factor its factor, and a_rows holds A's entries on those
// paths in a_factor's layout (the rows before factoring: a_factor.row(0)
// .. for a_factor's entries). Those are asserted in debug builds only, so
// the solve skips the scan of A for its tree, the trace check and the
// packing of A. A's finiteness follows from a_factor: a non-finite entry
// on a path reaches a pivot of the factorization, which the caller's
// PackedTreeFactor::Factor refuses. Every other check of the data (a
// constraint's mu, bound and regularization, the finiteness of v_star, b,
// the warm start and J) is made as SolveConvexContact makes it, with the
// same messages. The answer is SolveConvexContact's, to the bit.
ConvexSolverResult SolveConvexContactOnTree(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const ConvexPackedRows& J,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, ConvexSolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma,
    const PackedTreeFactor& a_factor, const double* a_rows);

}  // namespace internal

}  // namespace tern::solvers
