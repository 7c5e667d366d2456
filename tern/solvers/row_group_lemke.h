#pragma once
// The velocity-level problem of row groups in Jacobian form
// (projected_gauss_seidel.h, second half) solved exactly: the group's rows
// assembled into the dense Delassus matrix D = J M^-1 J^T (+ cfm I), the
// bilateral rows eliminated by their Schur complement (Cholesky of D_BB +
// eps I), and the rest posed as the LCP of Anitescu & Potra (1997) /
// Stewart & Trinkle (1996) with the polygonal cone: per contact the unknowns
// (c_n, beta_1..beta_k, lambda),
//   w_n    = u_n                         >= 0  _|_ c_n    >= 0
//   w_beta = D_i^T u_t + e lambda        >= 0  _|_ beta   >= 0
//   zeta   = mu c_n - e^T beta           >= 0  _|_ lambda >= 0
// per unilateral row its impulse, and per bounded row (|p| <= B, joint
// dry friction) the box split into p = p+ - p- with a slack lambda, the
// standard reformulation of a box-constrained (mixed) LCP as an LCP, here
// the one-dimensional instance of the friction rows above with a fixed
// bound B in place of mu c_n (Stewart & Trinkle 1996; Cottle, Pang &
// Stone, "The Linear Complementarity Problem", 1992, sec. 1.2):
//   w+ =  u + lambda  >= 0  _|_ p+     >= 0
//   w- = -u + lambda  >= 0  _|_ p-     >= 0
//   zeta = B - p+ - p- >= 0 _|_ lambda >= 0,
// all solved by Lemke (lemke.h). If Lemke does not solve it (a ray
// termination, an inaccurate answer, the pivot cap), it runs again on
// M + eps I, eps = 1e-10, 1e-8, 1e-6 times the largest |M_ii| in turn
// (the pivots of every attempt are counted). M is copositive (its
// Delassus part is positive semidefinite, and on z >= 0 the friction rows
// add mu c_n lambda >= 0), so M + eps I is strictly copositive, and
// Lemke's method solves the LCP of a strictly copositive matrix for every
// q (Eaves 1971; Cottle, Pang & Stone 1992, ch. 4): the failures are
// degeneracy (a robot lying on mirror-image contacts, a box's four
// corners) meeting round-off. An answer (of M + eps I, or one of M that
// Lemke called inaccurate) is kept only if it solves the LCP of M itself
// to a natural residual of 1e-6 max(1, |q|_inf) (m/s on the velocity
// rows, as PGS's tolerance): eps z is what it is off by. On
// contact_bench's falling humanoid 84 of 4000 steps failed with M (75 ray
// terminations); 6 inaccurate answers were kept, 73 solved with 1e-10,
// 4 with 1e-8, none needed 1e-6, and the fall ends lying down where
// before it stopped at t = 0.91 s (ray termination, then PGS's 20
// sweeps). Drake's MobyLCPSolver escalates its regularization the same
// way (SolveLcpLemkeRegularized). The
// impulses p = (c_n, sum_j beta_j d_j) per contact, the bilateral ones from
// the Schur complement, are written to the groups and applied to v.
//
// When to use it: islands with a few contacts and robot rows (joint limits,
// loops), where an exact answer of the polyhedral-cone LCP is wanted: the
// time-stepping plant's kLemke and kAuto. Cost O(R^2 x dofs) to assemble
// (R rows) plus Lemke's pivots on (k + 2) unknowns per contact.
//
// Model/data split: a RowGroupLemkeWorkspace holds the dense matrices; a
// solve allocates only when it has to grow.
#include <Eigen/Core>
#include <concepts>
#include <span>
#include <vector>

#include "tern/solvers/lcp.h"
#include "tern/solvers/lemke.h"
#include "tern/solvers/projected_gauss_seidel.h"

namespace tern::solvers {

enum class RowGroupLemkeStatus {
  kSolved,
  kSingularBilateral,  // D_BB + eps I is not positive definite
  kTooManyDirections,  // the cone has more than 60 directions
  kLcpFailed,          // Lemke did not solve the LCP (see lcp.status)
};

struct RowGroupLemkeResult {
  RowGroupLemkeStatus status = RowGroupLemkeStatus::kLcpFailed;
  LcpResult lcp;  // Lemke's report (iterations 0 if it did not run)
  bool ok() const { return status == RowGroupLemkeStatus::kSolved; }
};

class RowGroupLemkeWorkspace {
 public:
  RowGroupLemkeWorkspace() = default;

 private:
  template <class Group>
  requires std::derived_from<Group, JacobianRowGroup>
  friend RowGroupLemkeResult SolveRowGroupsLemke(
      const JacobianRowLayout&, const PolygonalFrictionCone&, double,
      std::span<const int>, Group*, RowGroupLemkeWorkspace*, double*);
  friend RowGroupLemkeResult SolveRowGroupsLemke(
      const JacobianRowLayout&, const PolygonalFrictionCone&, double,
      std::span<JacobianRowGroup* const>, RowGroupLemkeWorkspace*, double*);
  std::vector<JacobianRowGroup*> groups_;  // the problem's groups, in order
  // (R x R) Delassus matrix, then the Schur complement in its U block;
  // (R x R) the bilateral block's factor; (R x R + 1) X = D_BB^-1 [D_BU,
  // u_B]; the LCP M, q, z, w; the rows' free velocities u (R), impulses
  // of the bilateral (pb) and other rows (pu).
  Eigen::MatrixXd D_, A_, X_, M_;
  Eigen::VectorXd u_, q_, z_, w_, pb_, pu_;
  std::vector<int> row_of_group_, var_of_group_;  // per group in order
  LemkeWorkspace lemke_;
};

// Solves the problem of the groups groups[order[0]], groups[order[1]], ...
// (their Delassus diagonal blocks' cfm in JacobianRowGroup::cfm, b their
// bias) at the velocities v (which hold no impulse of these groups), writes
// each group's impulse p and adds M^-1 J^T p to v. bilateral regularization
// eps = max(constraint_regularization, 1e-12) (1 + max diag D_BB). On
// failure (status other than kSolved) the groups' p and v are untouched,
// so the caller can fall back to another solver.
RowGroupLemkeResult SolveRowGroupsLemke(
    const JacobianRowLayout& layout, const PolygonalFrictionCone& cone,
    double constraint_regularization, std::span<JacobianRowGroup* const> groups,
    RowGroupLemkeWorkspace* workspace, double* v);

// As above for the caller's own group records (derived from
// JacobianRowGroup), picked by `order`.
template <class Group>
requires std::derived_from<Group, JacobianRowGroup> RowGroupLemkeResult
SolveRowGroupsLemke(const JacobianRowLayout& layout,
                    const PolygonalFrictionCone& cone,
                    double constraint_regularization,
                    std::span<const int> order, Group* groups,
                    RowGroupLemkeWorkspace* workspace, double* v) {
  workspace->groups_.clear();  // keeps capacity
  for (const int gi : order) workspace->groups_.push_back(&groups[gi]);
  return SolveRowGroupsLemke(
      layout, cone, constraint_regularization,
      std::span<JacobianRowGroup* const>(workspace->groups_.data(),
                                         workspace->groups_.size()),
      workspace, v);
}

}  // namespace tern::solvers
