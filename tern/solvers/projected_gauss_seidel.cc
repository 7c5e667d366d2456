#include "tern/solvers/projected_gauss_seidel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tern::solvers {
namespace {

void CheckCommon(const char* who, const Eigen::Ref<const Eigen::MatrixXd>& M,
                 const Eigen::Ref<const Eigen::VectorXd>& q,
                 const PgsSettings& settings,
                 const Eigen::Ref<Eigen::VectorXd>& z,
                 const Eigen::Ref<Eigen::VectorXd>& w) {
  const Eigen::Index n = q.size();
  if (M.rows() != n || M.cols() != n) {
    throw std::invalid_argument(fmt::format(
        "{}: M is {} x {} but q has size {}", who, M.rows(), M.cols(), n));
  }
  if (z.size() != n || w.size() != n) {
    throw std::invalid_argument(
        fmt::format("{}: z has size {} and w size {} but q has size {}", who,
                    z.size(), w.size(), n));
  }
  internal::CheckFiniteVector(who, "q", q);
  internal::CheckFiniteVector(who, "z (initial iterate)", z);
  if (!(settings.relaxation > 0.0 && settings.relaxation < 2.0)) {
    throw std::invalid_argument(
        fmt::format("{}: settings.relaxation = {} is outside (0, 2)", who,
                    settings.relaxation));
  }
}

// One projected Gauss-Seidel update of z_i (relaxation omega), keeping
// w = M z + q by a rank-one column update when z_i changes.
inline void ScalarStep(const Eigen::Ref<const Eigen::MatrixXd>& M,
                       Eigen::Index i, double omega,
                       Eigen::Ref<Eigen::VectorXd> z,
                       Eigen::Ref<Eigen::VectorXd> w) {
  const double zi = std::max(0.0, z[i] - omega * w[i] / M(i, i));
  const double dz = zi - z[i];
  if (dz != 0.0) {
    z[i] = zi;
    w.noalias() += M.col(i) * dz;
  }
}

// Recomputes w = M z + q afresh (the sweeps update w incrementally, so
// rounding accumulates) and the natural residual. Returns true, with the
// result marked solved and checked for finite values, if the residual is
// within the tolerance.
bool ConvergedAfterRefresh(const char* who,
                           const Eigen::Ref<const Eigen::MatrixXd>& M,
                           const Eigen::Ref<const Eigen::VectorXd>& q,
                           double tolerance,
                           const Eigen::Ref<Eigen::VectorXd>& z,
                           Eigen::Ref<Eigen::VectorXd> w, LcpResult* result) {
  w = q;
  w.noalias() += M * z;
  result->residual = LcpNaturalResidual(z, w);
  if (result->residual > tolerance) return false;
  result->status = LcpStatus::kSolved;
  internal::CheckFiniteAnswer(who, M, z, w);
  return true;
}

// After the last sweep: solved if within the tolerance, else the iteration
// limit.
LcpResult Finish(const char* who, const Eigen::Ref<const Eigen::MatrixXd>& M,
                 const Eigen::Ref<const Eigen::VectorXd>& q, double tolerance,
                 const Eigen::Ref<Eigen::VectorXd>& z,
                 Eigen::Ref<Eigen::VectorXd> w, LcpResult result) {
  if (!ConvergedAfterRefresh(who, M, q, tolerance, z, w, &result)) {
    result.status = LcpStatus::kIterationLimit;
    internal::CheckFiniteAnswer(who, M, z, w);
  }
  return result;
}

}  // namespace

// w is kept equal to M z + q by rank-one column updates after each change of
// z, so a sweep costs one pass over M by columns (M is column-major).
LcpResult SolveLcpPgs(const Eigen::Ref<const Eigen::MatrixXd>& M,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const PgsSettings& settings,
                      Eigen::Ref<Eigen::VectorXd> z,
                      Eigen::Ref<Eigen::VectorXd> w) {
  CheckCommon("SolveLcpPgs", M, q, settings, z, w);
  const Eigen::Index n = q.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(M(i, i) > 0.0)) {
      throw std::invalid_argument(fmt::format(
          "SolveLcpPgs: diagonal entry M({0}, {0}) = {1} is not positive; use "
          "SolveLcpBlockPgs or SolveLcpLemke",
          i, M(i, i)));
    }
  }
  const double omega = settings.relaxation;
  z = z.cwiseMax(0.0);
  w = q;
  w.noalias() += M * z;
  LcpResult result;
  while (result.iterations < settings.max_iterations) {
    double sweep_residual = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      sweep_residual = std::max(sweep_residual, std::abs(std::min(z[i], w[i])));
      ScalarStep(M, i, omega, z, w);
    }
    ++result.iterations;
    if (sweep_residual <= settings.tolerance &&
        ConvergedAfterRefresh("SolveLcpPgs", M, q, settings.tolerance, z, w,
                              &result)) {
      return result;
    }
  }
  return Finish("SolveLcpPgs", M, q, settings.tolerance, z, w, result);
}

void BlockPgsWorkspace::SetBlocks(std::span<const int> block_sizes) {
  offsets_.clear();  // keeps capacity
  offsets_.push_back(0);
  int largest = 0;
  for (std::size_t b = 0; b < block_sizes.size(); ++b) {
    if (block_sizes[b] < 1) {
      offsets_.resize(1);
      throw std::invalid_argument(
          fmt::format("BlockPgsWorkspace: block {} has size {} (must be >= 1)",
                      b, block_sizes[b]));
    }
    offsets_.push_back(offsets_.back() + block_sizes[b]);
    largest = std::max(largest, block_sizes[b]);
  }
  if (block_q_.size() < largest) {
    block_q_.resize(largest);
    block_z_.resize(largest);
    block_w_.resize(largest);
    dz_.resize(largest);
  }
  lemke_.Reserve(largest);
}

LcpResult SolveLcpBlockPgs(const Eigen::Ref<const Eigen::MatrixXd>& M,
                           const Eigen::Ref<const Eigen::VectorXd>& q,
                           const PgsSettings& settings,
                           BlockPgsWorkspace* workspace,
                           Eigen::Ref<Eigen::VectorXd> z,
                           Eigen::Ref<Eigen::VectorXd> w) {
  if (workspace == nullptr) {
    throw std::invalid_argument("SolveLcpBlockPgs: workspace is null");
  }
  CheckCommon("SolveLcpBlockPgs", M, q, settings, z, w);
  BlockPgsWorkspace& ws = *workspace;
  if (q.size() != ws.size()) {
    throw std::invalid_argument(fmt::format(
        "SolveLcpBlockPgs: q has size {} but the workspace's blocks sum to {}",
        q.size(), ws.size()));
  }
  const double omega = settings.relaxation;
  const int num_blocks = ws.num_blocks();
  for (int b = 0; b < num_blocks; ++b) {
    const int o = ws.offsets_[b];
    if (ws.offsets_[b + 1] - o == 1 && !(M(o, o) > 0.0)) {
      throw std::invalid_argument(fmt::format(
          "SolveLcpBlockPgs: block {0} has size 1 and diagonal entry "
          "M({1}, {1}) = {2} is not positive",
          b, o, M(o, o)));
    }
  }
  LemkeSettings lemke_settings;
  lemke_settings.warm_start = true;
  z = z.cwiseMax(0.0);
  w = q;
  w.noalias() += M * z;
  LcpResult result;
  while (result.iterations < settings.max_iterations) {
    double sweep_residual = 0.0;
    for (int b = 0; b < num_blocks; ++b) {
      const int o = ws.offsets_[b];
      const int s = ws.offsets_[b + 1] - o;
      for (int i = o; i < o + s; ++i) {
        sweep_residual =
            std::max(sweep_residual, std::abs(std::min(z[i], w[i])));
      }
      if (s == 1) {
        ScalarStep(M, o, omega, z, w);
        continue;
      }
      // The block's own LCP with the other blocks fixed:
      // w_b = M_bb z_b + (w_b - M_bb z_b_old).
      auto Mbb = M.block(o, o, s, s);
      auto qb = ws.block_q_.head(s);
      auto zb = ws.block_z_.head(s);
      auto wb = ws.block_w_.head(s);
      auto dz = ws.dz_.head(s);
      qb = w.segment(o, s);
      qb.noalias() -= Mbb * z.segment(o, s);
      // Warm started from the block's last answer: near convergence its
      // support no longer changes and Lemke returns after principal pivots.
      zb = z.segment(o, s);
      // Lemke accepts residual tolerance * max(1, |q_b|); ask for a tenth of
      // the sweep's absolute tolerance so that inexact block answers cannot
      // stall the outer iteration above it.
      lemke_settings.tolerance = std::max(0.1 * settings.tolerance, 1e-14) /
                                 std::max(1.0, qb.cwiseAbs().maxCoeff());
      const LcpResult local =
          SolveLcpLemke(Mbb, qb, lemke_settings, &ws.lemke_, zb, wb);
      if (!local.ok()) {
        result.status = LcpStatus::kBlockFailure;
        result.failed_block = b;
        w = q;
        w.noalias() += M * z;
        result.residual = LcpNaturalResidual(z, w);
        internal::CheckFiniteAnswer("SolveLcpBlockPgs", M, z, w);
        return result;
      }
      dz = (z.segment(o, s) + omega * (zb - z.segment(o, s))).cwiseMax(0.0) -
           z.segment(o, s);
      z.segment(o, s) += dz;
      w.noalias() += M.middleCols(o, s) * dz;
    }
    ++result.iterations;
    if (sweep_residual <= settings.tolerance &&
        ConvergedAfterRefresh("SolveLcpBlockPgs", M, q, settings.tolerance, z,
                              w, &result)) {
      return result;
    }
  }
  return Finish("SolveLcpBlockPgs", M, q, settings.tolerance, z, w, result);
}

}  // namespace tern::solvers
