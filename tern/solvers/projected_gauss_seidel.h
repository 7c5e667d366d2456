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
#include <Eigen/Core>
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

}  // namespace tern::solvers
