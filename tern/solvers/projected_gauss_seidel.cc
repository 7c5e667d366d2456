#include "tern/solvers/projected_gauss_seidel.h"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <numbers>
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

// ---------------------------------------------------------------------
// Row groups in Jacobian form.

void CheckRelaxation(const char* who, double omega) {
  if (!(omega > 0.0 && omega < 2.0)) {
    throw std::invalid_argument(
        fmt::format("{}: relaxation omega = {} is outside (0, 2)", who, omega));
  }
}

PolygonalFrictionCone::PolygonalFrictionCone(int num_directions)
    : k_(num_directions) {
  if (num_directions < 3) {
    throw std::invalid_argument(
        fmt::format("PolygonalFrictionCone: num_directions = {} (must be >= 3)",
                    num_directions));
  }
  const double pi = std::numbers::pi;
  for (int j = 0; j < k_; ++j) {
    const double a = 2 * pi * j / k_;
    const double e = a + pi / k_;
    dir_c_.push_back(std::cos(a));
    dir_s_.push_back(std::sin(a));
    edge_c_.push_back(std::cos(e));
    edge_s_.push_back(std::sin(e));
  }
  edge_d_ = std::cos(pi / k_);
  edge_h_ = std::sin(pi / k_);
}

PolygonalFrictionCone::PolygonalFrictionCone(int num_directions, bool)
    : k_(num_directions), edge_d_(1), edge_h_(0) {}

PolygonalFrictionCone PolygonalFrictionCone::Disk() {
  return PolygonalFrictionCone(0, true);
}

bool PolygonalFrictionCone::PolygonContains(double x1, double x2,
                                            double R) const {
  const double bound = R * edge_d_;
  for (int j = 0; j < k_; ++j) {
    if (edge_c_[j] * x1 + edge_s_[j] * x2 > bound) return false;
  }
  return true;
}

// Onto the edge whose outward normal e_j is most aligned with the point (the
// edge of the point's angular sector), clamped to its end vertices.
void PolygonalFrictionCone::PolygonProject(double R, double* x1,
                                           double* x2) const {
  int best = 0;
  double best_dot = -1e300;
  for (int j = 0; j < k_; ++j) {
    const double d = edge_c_[j] * *x1 + edge_s_[j] * *x2;
    if (d > best_dot) best_dot = d, best = j;
  }
  const double dist = R * edge_d_;
  if (best_dot <= dist) return;
  const double ec = edge_c_[best], es = edge_s_[best];
  // Coordinates along the edge (tangent (-es, ec)), clamped to its half
  // length R sin(pi / k).
  const double half = R * edge_h_;
  const double t = std::clamp(-es * *x1 + ec * *x2, -half, half);
  *x1 = dist * ec - t * es;
  *x2 = dist * es + t * ec;
}

namespace {

// One contact's step, u = W p + u0 (rows: normal, t1, t2) with the other
// groups held fixed (see the header). p: in, the old impulse; out, the new.
[[gnu::always_inline]] inline void ContactStep(
    const PolygonalFrictionCone& cone, double mu, const double* W,
    const double* Winv, const double* u0, double* p) {
  const double p_old[3] = {p[0], p[1], p[2]};
  p[0] = p[1] = p[2] = 0;
  if (u0[0] >= 0) return;  // separating: no impulse
  double x[3];
  for (int i = 0; i < 3; ++i) {
    x[i] = -(Winv[3 * i] * u0[0] + Winv[3 * i + 1] * u0[1] +
             Winv[3 * i + 2] * u0[2]);
  }
  if (x[0] > 0 && cone.Contains(x[1], x[2], mu * x[0])) {
    p[0] = x[0], p[1] = x[1], p[2] = x[2];
    return;
  }
  // Normal row with the old friction impulse.
  const double un = u0[0] + W[1] * p_old[1] + W[2] * p_old[2];
  p[0] = std::max(0.0, -un / W[0]);
  const double R = mu * p[0];
  if (R <= 0) return;
  // Tangent rows with the new normal impulse.
  const double ut1 = u0[1] + W[3] * p[0] + W[4] * p_old[1] + W[5] * p_old[2];
  const double ut2 = u0[2] + W[6] * p[0] + W[7] * p_old[1] + W[8] * p_old[2];
  const double a = W[4], b = 0.5 * (W[5] + W[7]), c = W[8];
  const double wt = 0.5 * (a + c) + std::sqrt(0.25 * (a - c) * (a - c) + b * b);
  double y1 = p_old[1] - ut1 / wt, y2 = p_old[2] - ut2 / wt;
  cone.Project(R, &y1, &y2);
  p[1] = y1, p[2] = y2;
}

// Successive over-relaxation of a contact's step: p <- p_old + omega (p -
// p_old), projected back: the normal impulse onto p_n >= 0, then the
// friction impulse onto the polygon of radius mu p_n.
[[gnu::always_inline]] inline void RelaxContact(
    const PolygonalFrictionCone& cone, double mu, double omega,
    const double* p_old, double* p) {
  for (int i = 0; i < 3; ++i) p[i] = p_old[i] + omega * (p[i] - p_old[i]);
  p[0] = std::max(0.0, p[0]);
  cone.Project(mu * p[0], &p[1], &p[2]);
}

// RowGroupPgsStep for a contact between free bodies (or a free body and a
// fixed one): the same step with the 3 x 6 blocks read in place.
[[gnu::always_inline]] inline double ContactStepFast(
    const JacobianRowLayout& layout, const PolygonalFrictionCone& cone,
    const DelassusBlock& block, JacobianRowGroup& g, double* vn, double omega) {
  if (g.p[0] == 0 && g.p[1] == 0 && g.p[2] == 0) {
    // No impulse yet (a speculative contact, about half of a pile's): if
    // the normal row separates, ContactStep leaves the impulse at zero, so
    // the tangent rows are not needed (the same sums in the same order).
    double un = g.b[0] + g.cfm * g.p[0];
    for (int e = 0; e < 2; ++e) {
      if (g.tree[e] < 0) continue;
      const double* row = layout.jac + g.jac[e];
      const double* v = vn + g.d0[e];
      un += row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3] +
            row[4] * v[4] + row[5] * v[5];
    }
    if (un >= 0) return 0;
  }
  double u[3] = {g.b[0] + g.cfm * g.p[0], g.b[1] + g.cfm * g.p[1],
                 g.b[2] + g.cfm * g.p[2]};
  // J (3 x 6, row major) is the 6 x 3 column-major J^T: fixed-size
  // products, vectorized.
  using Rows = Eigen::Map<const Eigen::Matrix<double, 6, 3>>;
  using Velocity = Eigen::Map<Eigen::Matrix<double, 6, 1>>;
  for (int e = 0; e < 2; ++e) {
    if (g.tree[e] < 0) continue;
    const double* J = layout.jac + g.jac[e];
    const double* v = vn + g.d0[e];
    for (int i = 0; i < 3; ++i) {
      const double* row = J + 6 * i;
      u[i] += row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3] +
              row[4] * v[4] + row[5] * v[5];
    }
  }
  const double* W = block.W;
  const double* Winv = block.Winv;
  double u0[3], p[3];
  for (int i = 0; i < 3; ++i) {
    u0[i] = u[i] -
            (W[3 * i] * g.p[0] + W[3 * i + 1] * g.p[1] + W[3 * i + 2] * g.p[2]);
    p[i] = g.p[i];
  }
  ContactStep(cone, g.mu, W, Winv, u0, p);
  if (omega != 1.0) RelaxContact(cone, g.mu, omega, g.p, p);
  const double dp[3] = {p[0] - g.p[0], p[1] - g.p[1], p[2] - g.p[2]};
  if (dp[0] == 0 && dp[1] == 0 && dp[2] == 0) return 0;
  double change = 0;
  for (int i = 0; i < 3; ++i) {
    g.p[i] = p[i];
    change = std::max(change, std::abs(W[3 * i] * dp[0] + W[3 * i + 1] * dp[1] +
                                       W[3 * i + 2] * dp[2]));
  }
  for (int e = 0; e < 2; ++e) {
    if (g.tree[e] < 0) continue;
    Velocity(vn + g.d0[e]).noalias() +=
        Rows(layout.jac + g.jac[e] + 18) * Eigen::Vector3d(dp[0], dp[1], dp[2]);
  }
  return change;
}

}  // namespace

void ApplyRowGroupImpulse(const JacobianRowGroup& g,
                          const JacobianRowLayout& layout, const double* dp,
                          double* v) {
  const int r = g.rows;
  if (g.fast && r == 3) {
    // Free bodies (as ContactStepFast and FormDelassusBlock read them): 6
    // consecutive velocities from d0, the same sums in the same order.
    for (int e = 0; e < 2; ++e) {
      if (g.tree[e] < 0) continue;
      const double* Y = layout.jac + g.jac[e] + 18;
      double* ve = v + g.d0[e];
      for (int i = 0; i < 3; ++i) {
        if (dp[i] == 0) continue;
        const double* y = Y + 6 * i;
        for (int k = 0; k < 6; ++k) ve[k] += y[k] * dp[i];
      }
    }
    return;
  }
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int n = layout.tree_size[t];
    const int* dofs = layout.dofs + layout.tree_start[t];
    const double* Y = layout.jac + g.jac[e] + r * n;
    for (int i = 0; i < r; ++i) {
      if (dp[i] == 0) continue;
      const double* y = Y + i * n;
      for (int k = 0; k < n; ++k) v[dofs[k]] += y[k] * dp[i];
    }
  }
}

double RowGroupPgsStep(const JacobianRowLayout& layout,
                       const PolygonalFrictionCone& cone,
                       const DelassusBlock& block, JacobianRowGroup* g_ptr,
                       double* v, double omega) {
  JacobianRowGroup& g = *g_ptr;
  if (g.fast && g.kind == RowKind::kContact) {
    return ContactStepFast(layout, cone, block, g, v, omega);
  }
  const int r = g.rows;
  double u[6];
  for (int i = 0; i < r; ++i) u[i] = g.b[i] + g.cfm * g.p[i];
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int n = layout.tree_size[t];
    const int* dofs = layout.dofs + layout.tree_start[t];
    const double* J = layout.jac + g.jac[e];
    for (int i = 0; i < r; ++i) u[i] += RowDot(J + i * n, dofs, n, v);
  }
  const double* W = block.W;
  const double* Winv = block.Winv;
  double dp[6] = {};
  if (g.kind == RowKind::kContact) {
    double u0[3], p[3];
    for (int i = 0; i < 3; ++i) {
      u0[i] = u[i] - (W[3 * i] * g.p[0] + W[3 * i + 1] * g.p[1] +
                      W[3 * i + 2] * g.p[2]);
    }
    p[0] = g.p[0], p[1] = g.p[1], p[2] = g.p[2];
    ContactStep(cone, g.mu, W, Winv, u0, p);
    if (omega != 1.0) RelaxContact(cone, g.mu, omega, g.p, p);
    for (int i = 0; i < 3; ++i) dp[i] = p[i] - g.p[i];
  } else if (g.kind == RowKind::kLimit) {
    const double pn = std::max(0.0, g.p[0] - omega * u[0] * Winv[0]);
    dp[0] = pn - g.p[0];
  } else if (g.kind == RowKind::kBounded) {
    const double pn =
        std::clamp(g.p[0] - omega * u[0] * Winv[0], -g.bound, g.bound);
    dp[0] = pn - g.p[0];
  } else {
    for (int i = 0; i < r; ++i) {
      double acc = 0;
      for (int j = 0; j < r; ++j) acc -= Winv[r * i + j] * u[j];
      dp[i] = omega * acc;
    }
  }
  double change = 0;
  for (int i = 0; i < r; ++i) {
    g.p[i] += dp[i];
    double du = 0;
    for (int j = 0; j < r; ++j) du += W[r * i + j] * dp[j];
    change = std::max(change, std::abs(du));
  }
  ApplyRowGroupImpulse(g, layout, dp, v);
  return change;
}

namespace {

// A sweep's step of one group: a free-body contact's inlined (a call per
// contact was a third of a pile's sweep), any other group's by
// RowGroupPgsStep.
[[gnu::always_inline]] inline double SweepStep(
    const JacobianRowLayout& layout, const PolygonalFrictionCone& cone,
    const DelassusBlock& block, JacobianRowGroup* g, double* v, double omega) {
  return g->fast && g->kind == RowKind::kContact
             ? ContactStepFast(layout, cone, block, *g, v, omega)
             : RowGroupPgsStep(layout, cone, block, g, v, omega);
}

}  // namespace

double RowGroupPgsSweep(const JacobianRowLayout& layout,
                        const PolygonalFrictionCone& cone,
                        const DelassusBlock* blocks, std::span<const int> order,
                        JacobianRowGroup* groups, std::size_t stride, double* v,
                        double omega) {
  char* const base = reinterpret_cast<char*>(groups);
  double change = 0;
  for (const int gi : order) {
    JacobianRowGroup* g = reinterpret_cast<JacobianRowGroup*>(
        base + static_cast<std::size_t>(gi) * stride);
    const double c = SweepStep(layout, cone, blocks[gi], g, v, omega);
    change = std::max(change, c);
  }
  return change;
}

double RowGroupPgsSweepSkipping(const JacobianRowLayout& layout,
                                const PolygonalFrictionCone& cone,
                                const DelassusBlock* blocks,
                                std::span<const int> order,
                                JacobianRowGroup* groups, std::size_t stride,
                                double* v, double omega, double* tree_motion,
                                double skip_below, long long* visited) {
  char* const base = reinterpret_cast<char*>(groups);
  double change = 0;
  long long steps = 0;
  for (const int gi : order) {
    JacobianRowGroup* g = reinterpret_cast<JacobianRowGroup*>(
        base + static_cast<std::size_t>(gi) * stride);
    // Its drift bounds (up to the coupling of the rows) how much its row
    // velocities moved since its last step, its own step included (with
    // omega != 1 a step leaves its own rows off their local answer).
    double drift = g->last_change;
    for (int e = 0; e < 2; ++e) {
      if (g->tree[e] >= 0) drift += tree_motion[g->tree[e]] - g->seen[e];
    }
    if (drift <= skip_below) continue;
    ++steps;
    const double c = SweepStep(layout, cone, blocks[gi], g, v, omega);
    change = std::max(change, c);
    for (int e = 0; e < 2; ++e) {
      if (g->tree[e] < 0) continue;
      tree_motion[g->tree[e]] += c;
      g->seen[e] = tree_motion[g->tree[e]];
    }
    g->last_change = c;
  }
  *visited += steps;
  return change;
}

void FormDelassusBlock(const JacobianRowLayout& layout,
                       double contact_regularization,
                       double constraint_regularization,
                       JacobianRowGroup* g_ptr, DelassusBlock* block) {
  JacobianRowGroup& g = *g_ptr;
  const int r = g.rows;
  double* W = block->W;
  double* Winv = block->Winv;
  if (r == 3) {
    std::fill_n(W, 9, 0.0);  // a contact's: stored in line, no memset call
  } else {
    std::fill(W, W + r * r, 0.0);
  }
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    if (g.fast && r == 3) {
      const double* J = layout.jac + g.jac[e];
      const double* Y = J + 18;
      for (int i = 0; i < 3; ++i) {
        for (int j = i; j < 3; ++j) {
          const double* a = J + 6 * i;
          const double* b = Y + 6 * j;
          const double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] +
                           a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
          W[3 * i + j] += w;
          if (j != i) W[3 * j + i] += w;
        }
      }
      continue;
    }
    const int n = layout.tree_size[t];
    const double* J = layout.jac + g.jac[e];
    const double* Y = J + r * n;
    for (int i = 0; i < r; ++i) {
      for (int j = 0; j < r; ++j) {
        double acc = 0;
        for (int k = 0; k < n; ++k) acc += J[i * n + k] * Y[j * n + k];
        W[r * i + j] += acc;
      }
    }
  }
  if (g.kind != RowKind::kBilateral) {
    // Contacts and limits: W + cfm I is the matrix of their (softened)
    // LCP, used as is by the plant's solvers.
    g.cfm = contact_regularization * W[0];
    for (int i = 0; i < r; ++i) W[r * i + i] += g.cfm;
    if (r == 1) {
      Winv[0] = 1 / std::max(W[0], 1e-300);
      return;
    }
    // 3 x 3 inverse by cofactors (W is symmetric).
    const double c00 = W[4] * W[8] - W[5] * W[7];
    const double c01 = W[5] * W[6] - W[3] * W[8];
    const double c02 = W[3] * W[7] - W[4] * W[6];
    const double det = W[0] * c00 + W[1] * c01 + W[2] * c02;
    if (std::abs(det) > 1e-14 * W[0] * W[4] * W[8]) {
      const double id = 1 / det;
      Winv[0] = c00 * id;
      Winv[1] = (W[2] * W[7] - W[1] * W[8]) * id;
      Winv[2] = (W[1] * W[5] - W[2] * W[4]) * id;
      Winv[3] = c01 * id;
      Winv[4] = (W[0] * W[8] - W[2] * W[6]) * id;
      Winv[5] = (W[2] * W[3] - W[0] * W[5]) * id;
      Winv[6] = c02 * id;
      Winv[7] = (W[1] * W[6] - W[0] * W[7]) * id;
      Winv[8] = (W[0] * W[4] - W[1] * W[3]) * id;
      return;
    }
  }
  double diag = 0;
  for (int i = 0; i < r; ++i) diag = std::max(diag, W[r * i + i]);
  const double eps = std::max(constraint_regularization, 1e-12) * (1 + diag);
  using Block = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                              Eigen::RowMajor, 6, 6>;
  Eigen::Map<Block> Wm(W, r, r);
  Block Wr = Wm;
  Wr.diagonal().array() += eps;
  Eigen::Map<Block>(Winv, r, r) = Wr.ldlt().solve(
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>::Identity(
          r, r));
}

}  // namespace tern::solvers
