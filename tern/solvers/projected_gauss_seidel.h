#pragma once
// Projected Gauss-Seidel (PGS) for the LCP(M, q) (lcp.h), scalar and block.
//
// Scalar PGS (Cottle, Pang & Stone, "The Linear Complementarity Problem",
// 1992, ch. 5: projected SOR, a splitting method): sweep i = 0..n-1,
//   z_i <- max(0, z_i - omega (M z + q)_i / M_ii).
// Converges for symmetric positive semidefinite M with positive diagonal and
// 0 < omega < 2, and for (strictly) diagonally dominant M; it needs M_ii > 0.
// Warm start: z on entry is the first iterate.
//
// Block PGS: the same sweep over consecutive diagonal blocks of M, each
// block's small LCP solved exactly by Lemke (lemke.h) with the other blocks
// held fixed: block Gauss-Seidel with an exact local solver, as in Siconos's
// NSGS for LCPs (Acary & Brogliato, "Numerical Methods for Nonsmooth
// Dynamical Systems", 2008). Its use is the time-stepping
// contact LCP of Anitescu & Potra (1997) / Stewart & Trinkle (1996): one block
// per contact holding (c_n, beta_1..beta_k, lambda), the normal impulse, the
// k polyhedral-cone friction impulses and the slack lambda, whose row
// mu c_n - sum(beta) has a zero diagonal that scalar PGS cannot handle. Solved
// exactly, each block meets the friction cone and maximal dissipation; the
// iteration couples the contacts. (This is not ODE/Bullet's box-friction PGS,
// which bounds friction by mu times the current normal impulse; here the
// cone is polyhedral and its complementarity holds per block at every sweep.)
//
// When to use which: Lemke for an exact answer on small problems (a few
// contacts per island); PGS for large scenes (hundreds of contacts) where a
// bounded number of cheap sweeps, warm started from the previous step, beats
// O(n^3) pivoting and a residual of ~1e-6 is acceptable. Scalar PGS only when
// every diagonal entry is positive (frictionless contact, joint limits, box
// friction); block PGS for the friction-cone LCP. See docs/solvers.md.
//
// Convergence test: the largest |min(z_i, (M z + q)_i)| met during a sweep;
// when it is at most `tolerance`, the natural residual is recomputed at the
// final z and must also be within `tolerance` for kSolved.
//
// Row-group PGS in Jacobian form (second half of this header): the same
// Gauss-Seidel idea on the velocity-level problem the time-stepping plant
// builds, without forming the LCP matrix. See there.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tern/solvers/lcp.h"
#include "tern/solvers/lemke.h"

namespace tern::solvers {

struct PgsSettings {
  int max_iterations = 1000;  // sweeps
  double tolerance = 1e-10;   // on the natural residual, units of w and z
  double relaxation = 1.0;    // omega in (0, 2); > 1 over-relaxes
};

// Scalar PGS. M: (n x n) with M_ii > 0; q: (n); z: (n) in: initial iterate
// (zeros for a cold start), out: answer; w: (n) out, = M z + q.
// Allocates nothing. Throws std::invalid_argument naming the argument for
// mismatched sizes, a NaN or infinite entry of M, q or z (naming it; M is
// scanned only when the answer is not finite), a relaxation outside (0, 2),
// or a diagonal entry M_ii <= 0 (naming i).
LcpResult SolveLcpPgs(const Eigen::Ref<const Eigen::MatrixXd>& M,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const PgsSettings& settings,
                      Eigen::Ref<Eigen::VectorXd> z,
                      Eigen::Ref<Eigen::VectorXd> w);

// Scratch memory and block layout for SolveLcpBlockPgs.
class BlockPgsWorkspace {
 public:
  // An empty layout (n = 0); call SetBlocks before solving.
  BlockPgsWorkspace() = default;
  // As SetBlocks(block_sizes).
  explicit BlockPgsWorkspace(std::span<const int> block_sizes) {
    SetBlocks(block_sizes);
  }
  // block_sizes: sizes (each >= 1) of the consecutive diagonal blocks, in
  // order; they sum to the problem size n. E.g. 4 contacts with 4 friction
  // directions: {6, 6, 6, 6}. Memory only grows: a layout with no more
  // blocks and no larger block than one set before does not allocate, so a
  // plant whose contact count changes from step to step can keep one
  // workspace. Throws std::invalid_argument naming a block of size < 1 (the
  // layout is then empty).
  void SetBlocks(std::span<const int> block_sizes);
  int size() const { return offsets_.back(); }
  int num_blocks() const { return static_cast<int>(offsets_.size()) - 1; }

 private:
  friend LcpResult SolveLcpBlockPgs(const Eigen::Ref<const Eigen::MatrixXd>&,
                                    const Eigen::Ref<const Eigen::VectorXd>&,
                                    const PgsSettings&, BlockPgsWorkspace*,
                                    Eigen::Ref<Eigen::VectorXd>,
                                    Eigen::Ref<Eigen::VectorXd>);
  std::vector<int> offsets_ = {0};  // (num_blocks + 1) first row of blocks
  Eigen::VectorXd block_q_;         // (largest block) the block's LCP vector
  Eigen::VectorXd block_z_;         // (largest block) the block's answer
  Eigen::VectorXd block_w_;         // (largest block) its w
  Eigen::VectorXd dz_;              // (largest block) change of z in the block
  LemkeWorkspace lemke_;            // sized for the largest block
};

// Block PGS over the workspace's blocks. M: (n x n), each diagonal block an
// LCP matrix Lemke can process (P-matrix, PSD, or a contact block as above);
// q: (n); z: (n) in: initial iterate (warm start), out: answer; w: (n) out,
// = M z + q. Blocks of size 1 take the scalar step. Does not allocate.
// Throws std::invalid_argument for sizes that disagree with the workspace, a
// NaN or infinite entry of M, q or z, a relaxation outside (0, 2), or a block
// of size 1 with M_ii <= 0 (naming the block and i). A block whose LCP Lemke
// cannot solve stops the iteration with kBlockFailure and
// LcpResult::failed_block (z, w: the last iterate).
LcpResult SolveLcpBlockPgs(const Eigen::Ref<const Eigen::MatrixXd>& M,
                           const Eigen::Ref<const Eigen::VectorXd>& q,
                           const PgsSettings& settings,
                           BlockPgsWorkspace* workspace,
                           Eigen::Ref<Eigen::VectorXd> z,
                           Eigen::Ref<Eigen::VectorXd> w);

// ---------------------------------------------------------------------
// Projected Gauss-Seidel over row groups in Jacobian form.
//
// The velocity-level problem of a time step (Stewart & Trinkle 1996;
// Anitescu & Potra 1997), with rows grouped per constraint: a frictional
// contact (3 rows: normal, two tangents), a unilateral row (a joint limit),
// a bounded row (joint dry friction) or a bilateral group (up to 6 rows).
// The row velocities are
//   u = J v + b + cfm p,   v = v_free + M^-1 J^T p,
// with impulses p: u_n >= 0 _|_ p_n >= 0 and maximal dissipation in the
// polygonal friction cone |p_t| <= mu p_n (k directions) for a contact,
// u >= 0 _|_ p >= 0 for a unilateral row, u = 0 for a bilateral group,
// and for a bounded row |p| <= bound with u = 0 inside, u <= 0 at p =
// bound, u >= 0 at p = -bound (a box: dry friction of a joint as MuJoCo's
// frictionloss rows; its step is a clamp).
// Each group's step solves its own rows with the others held fixed, on its
// Delassus block W = J M^-1 J^T (r x r) and its inverse, and updates v by
// M^-1 J^T dp, so that a sweep costs O(rows x dofs touched) and the
// off-diagonal blocks of W are never formed: sequential impulses in the
// sense of Catto (GDC 2005) and Bullet, with the cone of Stewart-Trinkle
// instead of Bullet's friction box. A contact that can stick takes the
// exact answer of its 3 x 3 block (W^-1 applied to -u0 inside the cone);
// otherwise a projected step: the normal row, then p_t - u_t / w_t (w_t the
// larger eigenvalue of the tangent block) projected on the polygon of
// radius mu p_n. The fixed point is the polyhedral-cone LCP's answer
// (projecting a gradient step onto the polygon is maximal dissipation).
//
// The mass matrix is block diagonal over independent "trees" (the plant's
// subtrees: kinematic trees hanging from the world); a group acts on at
// most two of them, each through its rows J_t (r x n_t) and Y_t = (M_t^-1
// J_t^T)^T (r x n_t), row major, read from a shared pool. A tree of 6
// consecutive velocities (a free body) has a fast path.
//
// When to use it: piles of free bodies (hundreds of contacts), where a few
// sweeps warm started from the last step beat any factorization; it is the
// time-stepping plant's PGS (TimeSteppingOptions::Solver::kPgs, and the
// pile path of kConvex and kAuto). The caller checks the returned change
// against its tolerance and reports a step that did not converge.

// Kind of a row group (what its step projects onto).
enum class RowKind : std::uint8_t {
  kContact,    // 3 rows: normal, t1, t2; polygonal friction cone
  kLimit,      // 1 unilateral row (u >= 0 _|_ p >= 0), e.g. a joint limit
  kBilateral,  // up to 6 equality rows (u = 0)
  kBounded     // 1 row with |p| <= bound (joint dry friction), a box
};

// The polygonal friction cone with k >= 3 directions d_j = (cos a_j, sin
// a_j), a_j = 2 pi j / k, in the contact's tangent plane (t1, t2): the
// friction impulse lies in the polygon with vertices R d_j, R = mu p_n.
// Its inscribed circle has radius R cos(pi / k): friction along an edge
// normal is that fraction of mu p_n (k = 4: 71%, the worst direction).
// Disk() is the limit k -> infinity, the exact (isotropic) Coulomb cone:
// |p_t| <= mu p_n, for the PGS steps (a Lemke tableau needs the polygon).
class PolygonalFrictionCone {
 public:
  // Throws std::invalid_argument if num_directions < 3.
  explicit PolygonalFrictionCone(int num_directions = 4);
  // The round cone; num_directions() is 0 and it has no directions.
  static PolygonalFrictionCone Disk();
  bool is_disk() const { return k_ == 0; }
  int num_directions() const { return k_; }
  // d_j in (t1, t2), j in [0, k).
  double direction_cos(int j) const { return dir_c_[j]; }
  double direction_sin(int j) const { return dir_s_[j]; }
  // True if (x1, x2) is in the polygon with vertices R d_j (the disk of
  // radius R).
  // (The disk's cases inline: a pile's sweeps call them per contact.)
  bool Contains(double x1, double x2, double R) const {
    if (k_ == 0) return x1 * x1 + x2 * x2 <= R * R;
    return PolygonContains(x1, x2, R);
  }
  // Euclidean projection of (x1, x2) onto that polygon (disk), in place.
  void Project(double R, double* x1, double* x2) const {
    if (k_ == 0) {
      const double n2 = *x1 * *x1 + *x2 * *x2;
      if (n2 <= R * R) return;
      const double scale = R / std::sqrt(n2);
      *x1 *= scale;
      *x2 *= scale;
      return;
    }
    PolygonProject(R, x1, x2);
  }

 private:
  PolygonalFrictionCone(int num_directions, bool disk);
  bool PolygonContains(double x1, double x2, double R) const;
  void PolygonProject(double R, double* x1, double* x2) const;
  int k_;
  std::vector<double> dir_c_, dir_s_;    // (k) cos, sin of d_j
  std::vector<double> edge_c_, edge_s_;  // (k) outward edge normals
  double edge_d_;                        // cos(pi / k): edge distance / R
  double edge_h_;                        // sin(pi / k): half edge / R
};

// What the Gauss-Seidel step of one group reads and writes. A caller's own
// group record derives from it (the plant's RowGroup adds bodies, contact
// frames, warm-start keys).
struct JacobianRowGroup {
  RowKind kind{RowKind::kContact};
  int rows{0};      // r: 3 (contact), 1 (limit), 1..6 (bilateral)
  double mu{0};     // contact: friction coefficient
  double bound{0};  // kBounded: |p| <= bound, N s or N m s
  // The (up to two) trees the rows act on, -1 for none, and the offset in
  // the Jacobian pool of J_t (r x n_t, row major) followed by Y_t = (M_t^-1
  // J_t^T)^T (r x n_t, row major).
  int tree[2]{-1, -1};
  int jac[2]{0, 0};
  // First velocity of each tree when it is a free body (6 consecutive
  // velocities, the fast path), else -1.
  int d0[2]{-1, -1};
  bool fast{false};  // every tree of the group is a free body
  double cfm{0};     // regularization added to the diagonal of W
  double b[6]{};     // bias: u_i = J_i v + b_i + cfm p_i
  double p[6]{};     // impulse, N s (or N m s); in: warm start, out: answer
  // SolveRowGroupsPgs' bookkeeping for skipping groups that cannot change
  // (RowGroupPgsSettings::tree_motion): the largest row-velocity change of
  // the group's last step, and its trees' tree_motion after that step.
  double last_change{0};
  double seen[2]{};
};

// A group's Delassus block W = J M^-1 J^T + cfm I (r x r, row major) and its
// (regularized) inverse: a named layout for the solver's per-group pool.
struct DelassusBlock {
  double W[36];
  double Winv[36];
};

// Where the groups' Jacobian rows live (shared by all groups of a step).
struct JacobianRowLayout {
  const int* dofs{nullptr};  // velocity indices of every tree, concatenated
  const int* tree_start{nullptr};  // (num trees) offset of a tree's in dofs
  const int* tree_size{nullptr};   // (num trees) n_t, its number of velocities
  const double* jac{nullptr};      // the Jacobian pool (JacobianRowGroup::jac)
};

// Dot product of one row of a tree's Jacobian (n entries) with v at the
// tree's velocity indices `dofs` (n).
inline double RowDot(const double* row, const int* dofs, int n,
                     const double* v) {
  double s = 0;
  for (int k = 0; k < n; ++k) s += row[k] * v[dofs[k]];
  return s;
}

// Forms the group's Delassus block and its inverse from its Jacobian rows.
// Contacts and limits (their LCP is softened): cfm = contact_regularization
// * W_00 is added to the diagonal and stored in g->cfm; a 3 x 3 block is
// inverted by cofactors. Bilateral groups, and contacts whose block is
// singular to 1e-14 relative: LDLT of W + eps I, eps = max(
// constraint_regularization, 1e-12) (1 + max diag W), so redundant rows
// (two loops closing one chain, a contact on a body that cannot move along
// a tangent) keep a finite inverse.
void FormDelassusBlock(const JacobianRowLayout& layout,
                       double contact_regularization,
                       double constraint_regularization, JacobianRowGroup* g,
                       DelassusBlock* block);

// v += M^-1 J^T dp for the group's rows (dp: r impulses).
void ApplyRowGroupImpulse(const JacobianRowGroup& g,
                          const JacobianRowLayout& layout, const double* dp,
                          double* v);

// One Gauss-Seidel step on the group at velocities v (updated in place, and
// g->p): returns the largest change of its row velocities, |W dp|_inf.
// With relaxation omega != 1 (successive over-relaxation, omega in (0, 2))
// the step's change of impulse is scaled by omega and the result projected
// back onto the group's feasible set: the normal impulse clamped at 0, the
// friction impulse projected onto the polygon of the new normal impulse (a
// limit's impulse clamped at 0, a bounded row's at its bound). A fixed
// point of the relaxed step is one of the plain step (both impulses lie in
// the feasible set, so the projection cannot undo a nonzero change), so
// the answer is the same; omega 1.3 cuts the sweeps a sphere pile needs by
// 40 % (bench/contact/README.md). Convergence is not guaranteed for omega > 1
// (the sliding step is not an exact local solve; 2 of 20 random problems of
// the tests cycle at 1.4): a caller checks the result, as the plant does.
double RowGroupPgsStep(const JacobianRowLayout& layout,
                       const PolygonalFrictionCone& cone,
                       const DelassusBlock& block, JacobianRowGroup* g,
                       double* v, double omega = 1.0);

struct RowGroupPgsSettings {
  int max_sweeps = 20;
  double tolerance = 1e-6;  // on the largest row-velocity change, m/s
  double relaxation = 1.0;  // omega of RowGroupPgsStep, in (0, 2)
  // If > 0: from this sweep on (and 4 sweeps made), stop early (not
  // converged) when the rate of the last three sweeps, ratio = (change /
  // change three sweeps before)^(1/3), predicts that max_sweeps will not
  // reach the tolerance (linear convergence: the sweeps left are
  // log(tolerance / change) / log(ratio)), so a caller with a fallback (a
  // stack of boxes, on which PGS converges slowly) does not spend its
  // whole budget first.
  int stall_check_from = 0;
  // Skipping settled groups (relaxing only where the residual may have
  // moved, the idea of Southwell's residual-driven relaxation, "Relaxation
  // Methods in Engineering Science", 1940, kept in Gauss-Seidel's order):
  // with tree_motion (caller's scratch, one entry per tree of the layout,
  // any values), a sweep visits a group only if its drift, the change of
  // its own last step plus the changes that steps of other groups made to
  // its trees since (each step's |W dp|_inf added to its trees' entries),
  // exceeds skip_fraction * tolerance. A group whose last step changed
  // nothing, between bodies nothing else moved, would change nothing
  // again, so most of a pile's resting and parted contacts are not
  // visited. When a skipping sweep ends within the tolerance, a full sweep
  // follows and only it can end the solve: the answer meets the same test
  // as without skipping. RowGroupPgsResult::sweeps counts partial sweeps,
  // group_steps the groups visited. On contact_bench's 1000-sphere pile:
  // 37 % less time (bench/contact/README.md).
  double* tree_motion = nullptr;
  double skip_fraction = 0.5;
};

// Throws std::invalid_argument naming `who` unless omega is in (0, 2).
void CheckRelaxation(const char* who, double omega);

// One sweep of RowGroupPgsStep over groups[order[0]], groups[order[1]], ...
// where group i's base is at `groups` plus i * stride bytes (the caller's
// record type derived from JacobianRowGroup: stride = its size): returns
// the largest change. The steps of the sweep compiled in one loop (a call
// per contact was a third of a pile's sweep).
double RowGroupPgsSweep(const JacobianRowLayout& layout,
                        const PolygonalFrictionCone& cone,
                        const DelassusBlock* blocks, std::span<const int> order,
                        JacobianRowGroup* groups, std::size_t stride, double* v,
                        double omega);

// The same sweep, skipping settled groups (RowGroupPgsSettings::
// tree_motion): visits a group only if its drift exceeds skip_below
// (skip_below < 0: every group) and keeps each visited group's bookkeeping
// and tree_motion up to date. Adds the groups visited to *visited.
double RowGroupPgsSweepSkipping(const JacobianRowLayout& layout,
                                const PolygonalFrictionCone& cone,
                                const DelassusBlock* blocks,
                                std::span<const int> order,
                                JacobianRowGroup* groups, std::size_t stride,
                                double* v, double omega, double* tree_motion,
                                double skip_below, long long* visited);

struct RowGroupPgsResult {
  int sweeps = 0;             // sweeps made (partial ones included)
  long long group_steps = 0;  // group steps made (visits)
  double change = 0.0;        // largest row-velocity change in the last sweep
  bool converged = false;     // change <= tolerance (skipping: in a full sweep)
};

// Sweeps the groups groups[order[0]], groups[order[1]], ... (v must already
// include their warm-start impulses: ApplyRowGroupImpulse(g, g.p)) until a
// sweep changes no row velocity by more than the tolerance or max_sweeps is
// reached, each step relaxed by settings.relaxation (throws
// std::invalid_argument if it is not in (0, 2)). blocks[i] is groups[i]'s
// Delassus block. Group is the caller's
// record type, derived from JacobianRowGroup (hence a template; the steps
// themselves are compiled once, in projected_gauss_seidel.cc).
template <class Group>
requires std::derived_from<Group, JacobianRowGroup> RowGroupPgsResult
SolveRowGroupsPgs(const JacobianRowLayout& layout,
                  const PolygonalFrictionCone& cone,
                  const DelassusBlock* blocks, std::span<const int> order,
                  const RowGroupPgsSettings& settings, Group* groups,
                  double* v) {
  CheckRelaxation("SolveRowGroupsPgs", settings.relaxation);
  RowGroupPgsResult result;
  double earlier[3] = {0, 0, 0};  // the changes 3, 2 and 1 sweeps ago
  double* const motion = settings.tree_motion;
  if (motion != nullptr) {
    for (int gi : order) {
      Group& g = groups[gi];
      g.last_change = 1e300;  // visited by the first sweep
      for (int e = 0; e < 2; ++e) {
        if (g.tree[e] >= 0) motion[g.tree[e]] = 0;
      }
    }
  }
  bool full = true;       // the first sweep and each confirming one
  bool last_full = true;  // whether the last sweep visited every group
  while (result.sweeps < settings.max_sweeps) {
    ++result.sweeps;
    last_full = motion == nullptr || full;
    if (motion == nullptr) {
      result.change = RowGroupPgsSweep(layout, cone, blocks, order, groups,
                                       sizeof(Group), v, settings.relaxation);
      result.group_steps += static_cast<long long>(order.size());
      if (result.change <= settings.tolerance) break;
    } else {
      result.change = RowGroupPgsSweepSkipping(
          layout, cone, blocks, order, groups, sizeof(Group), v,
          settings.relaxation, motion,
          full ? -1.0 : settings.skip_fraction * settings.tolerance,
          &result.group_steps);
      if (result.change <= settings.tolerance) {
        if (full) break;
        full = true;  // confirm by a sweep of every group
        continue;
      }
      full = false;
    }
    if (settings.stall_check_from > 0 &&
        result.sweeps >= settings.stall_check_from && earlier[0] > 0) {
      // The rate over the last three sweeps (one sweep's ratio jumps as
      // contacts change between sticking and sliding).
      const double ratio = std::cbrt(result.change / earlier[0]);
      if (!(ratio < 1) ||
          result.sweeps + std::log(settings.tolerance / result.change) /
                              std::log(ratio) >
              settings.max_sweeps) {
        break;
      }
    }
    earlier[0] = earlier[1];
    earlier[1] = earlier[2];
    earlier[2] = result.change;
  }
  // Only a full sweep can confirm (a partial one may end the budget).
  result.converged = result.change <= settings.tolerance && last_full;
  return result;
}

}  // namespace tern::solvers
