// The time-stepping plant's projected Gauss-Seidel over its row groups (the
// polygonal friction cone) and the split-impulse position correction.
#include <fmt/format.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "tern/multibody/plant/time_stepping_stepper.h"
#include "tern/multibody/tree/dynamics.h"

namespace tern {

// One contact's Gauss-Seidel step, u = W p + u0 (rows: normal, t1, t2)
// with the other contacts held fixed. If the contact can stick (u = 0 with
// p_n > 0 and p_t in the polygon), that is the exact answer of its LCP.
// Otherwise a projected step: the normal impulse by its own row, then the
// friction impulse p_t - u_t / w_t projected onto the polygon of radius
// mu p_n (w_t the larger eigenvalue of the tangent block). The fixed point
// of this step is the polyhedral-cone LCP's answer: projecting a gradient
// step onto the polygon is the maximal-dissipation principle (the LCP's
// beta and lambda rows are its optimality conditions).
void TimeSteppingStepper::ContactLocal(const RowGroup& g, const double* W,
                                       const double* Winv, const double* u0,
                                       double* p) {
  const double p_old[3] = {p[0], p[1], p[2]};
  p[0] = p[1] = p[2] = 0;
  if (u0[0] >= 0) return;  // separating: no impulse
  double x[3];
  for (int i = 0; i < 3; ++i) {
    x[i] = -(Winv[3 * i] * u0[0] + Winv[3 * i + 1] * u0[1] +
             Winv[3 * i + 2] * u0[2]);
  }
  if (x[0] > 0 && InPolygon(x[1], x[2], g.mu * x[0])) {
    p[0] = x[0], p[1] = x[1], p[2] = x[2];
    return;
  }
  // Normal row with the old friction impulse.
  const double un = u0[0] + W[1] * p_old[1] + W[2] * p_old[2];
  p[0] = std::max(0.0, -un / W[0]);
  const double R = g.mu * p[0];
  if (R <= 0) return;
  // Tangent rows with the new normal impulse.
  const double ut1 = u0[1] + W[3] * p[0] + W[4] * p_old[1] + W[5] * p_old[2];
  const double ut2 = u0[2] + W[6] * p[0] + W[7] * p_old[1] + W[8] * p_old[2];
  const double a = W[4], b = 0.5 * (W[5] + W[7]), c = W[8];
  const double wt = 0.5 * (a + c) + std::sqrt(0.25 * (a - c) * (a - c) + b * b);
  double y1 = p_old[1] - ut1 / wt, y2 = p_old[2] - ut2 / wt;
  ProjectPolygon(R, &y1, &y2);
  p[1] = y1, p[2] = y2;
}

// True if (x1, x2) is in the polygon with vertices R d_j.
bool TimeSteppingStepper::InPolygon(double x1, double x2, double R) const {
  const double bound = R * impl.edge_d;
  for (int j = 0; j < impl.k; ++j) {
    if (impl.edge_c[j] * x1 + impl.edge_s[j] * x2 > bound) return false;
  }
  return true;
}

// Euclidean projection onto the polygon with vertices R d_j: onto the edge
// whose outward normal e_j is most aligned with the point (the edge of the
// point's angular sector), clamped to its end vertices.
void TimeSteppingStepper::ProjectPolygon(double R, double* x1,
                                         double* x2) const {
  int best = 0;
  double best_dot = -1e300;
  for (int j = 0; j < impl.k; ++j) {
    const double d = impl.edge_c[j] * *x1 + impl.edge_s[j] * *x2;
    if (d > best_dot) best_dot = d, best = j;
  }
  const double dist = R * impl.edge_d;
  if (best_dot <= dist) return;
  const double ec = impl.edge_c[best], es = impl.edge_s[best];
  // Coordinates along the edge (tangent (-es, ec)), clamped to its half
  // length R sin(pi / k).
  const double half = R * impl.edge_h;
  const double t = std::clamp(-es * *x1 + ec * *x2, -half, half);
  *x1 = dist * ec - t * es;
  *x2 = dist * es + t * ec;
}

// SolveGroupPgs for a contact between free bodies (or a free body and the
// world): the same step with the 3 x 6 blocks read in place.
double TimeSteppingStepper::SolveContactFast(int gi) {
  RowGroup& g = s.rows.groups[gi];
  double* vn = s.vn.data();
  double u[3] = {g.b[0] + g.cfm * g.p[0], g.b[1] + g.cfm * g.p[1],
                 g.b[2] + g.cfm * g.p[2]};
  for (int e = 0; e < 2; ++e) {
    if (g.tree[e] < 0) continue;
    const double* J = s.jac.data() + g.jac[e];
    const double* v = vn + g.d0[e];
    for (int i = 0; i < 3; ++i) {
      const double* row = J + 6 * i;
      u[i] += row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3] +
              row[4] * v[4] + row[5] * v[5];
    }
  }
  const double* W = s.wpool.data() + 72 * gi;
  const double* Winv = W + 36;
  double u0[3], p[3];
  for (int i = 0; i < 3; ++i) {
    u0[i] = u[i] -
            (W[3 * i] * g.p[0] + W[3 * i + 1] * g.p[1] + W[3 * i + 2] * g.p[2]);
    p[i] = g.p[i];
  }
  ContactLocal(g, W, Winv, u0, p);
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
    const double* Y = s.jac.data() + g.jac[e] + 18;
    double* v = vn + g.d0[e];
    for (int k = 0; k < 6; ++k) {
      v[k] += Y[k] * dp[0] + Y[6 + k] * dp[1] + Y[12 + k] * dp[2];
    }
  }
  return change;
}

// One Gauss-Seidel step on group g; returns the largest change of its row
// velocities.
double TimeSteppingStepper::SolveGroupPgs(int gi) {
  RowGroup& g = s.rows.groups[gi];
  if (g.fast && g.kind == RowKind::kContact) return SolveContactFast(gi);
  const int r = g.rows;
  double u[6];
  for (int i = 0; i < r; ++i) u[i] = g.b[i] + g.cfm * g.p[i];
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int n = N(t);
    const int* dofs = Dofs(t);
    const double* J = s.jac.data() + g.jac[e];
    for (int i = 0; i < r; ++i) {
      u[i] += RowDot(J + i * n, dofs, n, s.vn.data());
    }
  }
  const double* W = s.wpool.data() + 72 * gi;
  const double* Winv = W + 36;
  double dp[6] = {};
  if (g.kind == RowKind::kContact) {
    double u0[3], p[3];
    for (int i = 0; i < 3; ++i) {
      u0[i] = u[i] - (W[3 * i] * g.p[0] + W[3 * i + 1] * g.p[1] +
                      W[3 * i + 2] * g.p[2]);
    }
    p[0] = g.p[0], p[1] = g.p[1], p[2] = g.p[2];
    ContactLocal(g, W, Winv, u0, p);
    for (int i = 0; i < 3; ++i) dp[i] = p[i] - g.p[i];
  } else if (g.kind == RowKind::kLimit) {
    const double pn = std::max(0.0, g.p[0] - u[0] * Winv[0]);
    dp[0] = pn - g.p[0];
  } else {
    for (int i = 0; i < r; ++i) {
      double acc = 0;
      for (int j = 0; j < r; ++j) acc -= Winv[r * i + j] * u[j];
      dp[i] = acc;
    }
  }
  double change = 0;
  for (int i = 0; i < r; ++i) {
    g.p[i] += dp[i];
    double du = 0;
    for (int j = 0; j < r; ++j) du += W[r * i + j] * dp[j];
    change = std::max(change, std::abs(du));
  }
  ApplyImpulse(g, dp);
  return change;
}

void TimeSteppingStepper::LocalBlocks() {
  const auto& groups = s.rows.groups;
  if (s.wpool.size() < 72 * groups.size()) s.wpool.resize(144 * groups.size());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    if (!groups[gi].deferred) LocalBlock(static_cast<int>(gi));
  }
}

void TimeSteppingStepper::FormInverseMassRows(int gi) {
  RowGroup& g = s.rows.groups[gi];
  if (!g.deferred) return;
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0 || impl.subtrees[t].free) continue;
    const int n = N(t);
    double* J = s.jac.data() + g.jac[e];
    InverseMassTimes(t, J, g.rows, J + g.rows * n);
  }
  g.deferred = false;
  LocalBlock(gi);
}

void TimeSteppingStepper::LocalBlock(int gi) {
  RowGroup& g = s.rows.groups[gi];
  const int r = g.rows;
  double* W = s.wpool.data() + 72 * gi;
  double* Winv = W + 36;
  std::fill(W, W + r * r, 0.0);
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    if (g.fast && r == 3) {
      const double* J = s.jac.data() + g.jac[e];
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
    const int n = N(t);
    const double* J = s.jac.data() + g.jac[e];
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
    // LCP, used as is by both solvers.
    g.cfm = opt.contact_regularization * W[0];
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
  // A small relative regularization keeps the inverse finite for rows
  // that are redundant (two loops closing one chain, or a contact on a
  // body that cannot move along a tangent).
  double diag = 0;
  for (int i = 0; i < r; ++i) diag = std::max(diag, W[r * i + i]);
  const double eps =
      std::max(opt.constraint_regularization, 1e-12) * (1 + diag);
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                           Eigen::RowMajor, 6, 6>>
      Wm(W, r, r);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, 6, 6>
      Wr = Wm;
  Wr.diagonal().array() += eps;
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                           Eigen::RowMajor, 6, 6>>(Winv, r, r) =
      Wr.ldlt().solve(Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0,
                                    6, 6>::Identity(r, r));
}

// Split-impulse position correction (Catto's pseudo-velocities, as in
// Bullet's split impulse): normal rows of penetrating contacts and violated
// limits, J vp >= -erp phi / h with pseudo-impulses >= 0, solved by
// Gauss-Seidel from zero. vp moves the positions this step and is then
// dropped, so the correction adds no kinetic energy.
void TimeSteppingStepper::CorrectPositions() {
  s.vp.setZero();
  if (!any_penetration_ || opt.contact_erp == 0) return;
  auto& groups = s.rows.groups;
  // Rows deeper than the slop, awake.
  s.deep.clear();
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    RowGroup& g = groups[gi];
    if (g.kind == RowKind::kBilateral || g.phi >= -opt.penetration_slop ||
        s.tree_asleep[g.tree[0]]) {
      continue;
    }
    FormInverseMassRows(static_cast<int>(gi));
    g.pp = 0;
    s.deep.push_back(static_cast<int>(gi));
  }
  const int sweeps = std::min(opt.pgs_max_iterations, 20);
  for (int k = 0; k < sweeps && !s.deep.empty(); ++k) {
    double change = 0;
    for (int gi : s.deep) {
      RowGroup& g = groups[gi];
      double u = opt.contact_erp * (g.phi + opt.penetration_slop) / h;
      for (int e = 0; e < 2; ++e) {
        if (g.tree[e] < 0) continue;
        const int n = N(g.tree[e]);
        u += RowDot(s.jac.data() + g.jac[e], Dofs(g.tree[e]), n, s.vp.data());
      }
      const double Wnn = s.wpool[72 * gi];
      const double pp = std::max(0.0, g.pp - u / Wnn);
      const double dpp = pp - g.pp;
      if (dpp == 0) continue;
      g.pp = pp;
      change = std::max(change, std::abs(Wnn * dpp));
      for (int e = 0; e < 2; ++e) {
        if (g.tree[e] < 0) continue;
        const int n = N(g.tree[e]);
        const int* dofs = Dofs(g.tree[e]);
        const double* y = s.jac.data() + g.jac[e] + g.rows * n;
        for (int c = 0; c < n; ++c) s.vp[dofs[c]] += y[c] * dpp;
      }
    }
    if (change <= opt.pgs_tolerance) break;
  }
}

void TimeSteppingStepper::SolvePgs(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = s.rows.groups[s.order[idx]];
    ApplyImpulse(g, g.p);
  }
  // Sweep from the bottom up (contact points by height against gravity):
  // the weight of a stack then passes down in one sweep.
  if (end - begin > 2) {
    const Vector3<double>& gdir = sys.tree().gravity();
    auto height = [&](int gi) {
      const RowGroup& g = s.rows.groups[gi];
      return g.kind == RowKind::kContact ? -gdir.dot(g.p_WA + g.p_WB) : -1e300;
    };
    std::sort(s.order.begin() + begin, s.order.begin() + end,
              [&](int a, int b) { return height(a) < height(b); });
  }
  // (A sticking contact alone is solved exactly by its first step; the
  // second sweep then changes nothing and ends the loop.)
  // Under kConvex a pile gets up to kPileSweeps sweeps before its island
  // falls back to the dense convex solve (whose Cholesky of a pile's
  // hundreds of dofs costs far more than sweeps linear in the contacts).
  constexpr int kPileSweeps = 1000;
  const int sweeps = opt.solver == TimeSteppingOptions::Solver::kConvex
                         ? std::max(opt.pgs_max_iterations, kPileSweeps)
                         : opt.pgs_max_iterations;
  int k = 0;
  double change = 0;
  while (k < sweeps) {
    ++k;
    change = 0;
    for (int idx = begin; idx < end; ++idx) {
      change = std::max(change, SolveGroupPgs(s.order[idx]));
    }
    if (change <= opt.pgs_tolerance) break;
  }
  s.stats.pgs_sweeps += k;
  s.stats.max_island_iterations = std::max(s.stats.max_island_iterations, k);
  s.stats.max_residual = std::max(s.stats.max_residual, change);
  if (change > opt.pgs_tolerance) {
    if (opt.solver == TimeSteppingOptions::Solver::kConvex) {
      // The pile's fast path did not converge: undo its impulses and solve
      // the island by the convex solver, warm started from them.
      for (int idx = begin; idx < end; ++idx) {
        const RowGroup& g = s.rows.groups[s.order[idx]];
        double minus[6];
        for (int i = 0; i < g.rows; ++i) minus[i] = -g.p[i];
        ApplyImpulse(g, minus);
      }
      ++s.stats.pgs_fallbacks;
      SolveConvex(island);
      return;
    }
    IslandFailed(island, "projected Gauss-Seidel", k, change,
                 opt.pgs_tolerance);
  }
}

}  // namespace tern
