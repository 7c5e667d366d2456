// The time-stepping plant's island LCP (the seed's polyhedral cone) solved
// by Lemke's method.
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

// The island's dense LCP: bilateral rows eliminated by their Schur
// complement, then Lemke on (c_n, beta, lambda) per contact and f per
// joint limit. False if Lemke fails (the caller then runs PGS).
bool TimeSteppingStepper::SolveLemke(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  const int k = impl.cone.num_directions();
  auto& groups = s.rows.groups;
  // Row layout: bilateral rows first (B), then the others (U).
  s.row_of_group.resize(groups.size());
  s.var_of_group.resize(groups.size());
  int nb = 0, nu = 0, nl = 0;
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    if (g.kind == RowKind::kBilateral) nb += g.rows;
  }
  for (int idx = begin; idx < end; ++idx) {
    const int gi = s.order[idx];
    const RowGroup& g = groups[gi];
    if (g.kind == RowKind::kBilateral) {
      s.row_of_group[gi] = nu;  // provisional, fixed below
      continue;
    }
    s.row_of_group[gi] = nb + nu;
    s.var_of_group[gi] = nl;
    nu += g.rows;
    nl += g.kind == RowKind::kContact ? k + 2 : 1;
  }
  {
    int b = 0;
    for (int idx = begin; idx < end; ++idx) {
      const int gi = s.order[idx];
      if (groups[gi].kind == RowKind::kBilateral) {
        s.row_of_group[gi] = b;
        b += groups[gi].rows;
      }
    }
  }
  const int R = nb + nu;
  if (s.D.rows() < R) s.D.resize(R, R);
  if (s.vfree.size() < R) {
    s.vfree.resize(R);
    s.pb.resize(R);
    s.pu.resize(R);
  }
  auto D = s.D.topLeftCorner(R, R);
  D.setZero();
  auto vfree = s.vfree.head(R);
  for (int ia = begin; ia < end; ++ia) {
    const int ga = s.order[ia];
    const RowGroup& a = groups[ga];
    const int ra = a.rows, oa = s.row_of_group[ga];
    for (int i = 0; i < ra; ++i) vfree[oa + i] = a.b[i];
    for (int e = 0; e < 2; ++e) {
      if (a.tree[e] < 0) continue;
      const int n = N(a.tree[e]);
      const double* J = s.jac.data() + a.jac[e];
      for (int i = 0; i < ra; ++i) {
        vfree[oa + i] += RowDot(J + i * n, Dofs(a.tree[e]), n, s.vn.data());
      }
    }
    for (int ib = begin; ib < end; ++ib) {
      const int gb = s.order[ib];
      const RowGroup& b = groups[gb];
      const int rb = b.rows, ob = s.row_of_group[gb];
      for (int ea = 0; ea < 2; ++ea) {
        const int t = a.tree[ea];
        if (t < 0) continue;
        for (int eb = 0; eb < 2; ++eb) {
          if (b.tree[eb] != t) continue;
          const int n = N(t);
          const double* J = s.jac.data() + a.jac[ea];
          const double* Y = s.jac.data() + b.jac[eb] + rb * n;
          for (int i = 0; i < ra; ++i) {
            for (int j = 0; j < rb; ++j) {
              double acc = 0;
              for (int c = 0; c < n; ++c) acc += J[i * n + c] * Y[j * n + c];
              D(oa + i, ob + j) += acc;
            }
          }
        }
      }
    }
  }
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    for (int i = 0; i < g.rows; ++i) {
      D(s.row_of_group[s.order[idx]] + i, s.row_of_group[s.order[idx]] + i) +=
          g.cfm;
    }
  }
  // Schur complement of the bilateral block.
  if (s.A.rows() < R) s.A.resize(R, R);
  auto Abb = s.A.topLeftCorner(nb, nb);
  if (nb > 0) {
    Abb = D.topLeftCorner(nb, nb);
    const double eps = std::max(opt.constraint_regularization, 1e-12) *
                       (1 + Abb.diagonal().maxCoeff());
    Abb.diagonal().array() += eps;
    Eigen::LLT<Eigen::Ref<MatrixX<double>>> llt(Abb);
    if (llt.info() != Eigen::Success) return false;
  }
  auto Lbb = Abb.triangularView<Eigen::Lower>();
  // X = A^-1 [D_BU, vfree_B] in the columns of E's scratch.
  if (s.E.rows() < R || s.E.cols() < R + 1) s.E.resize(R, R + 1);
  auto X = s.E.topLeftCorner(nb, nu + 1);
  if (nb > 0) {
    X.leftCols(nu) = D.topRightCorner(nb, nu);
    X.col(nu) = vfree.head(nb);
    Lbb.solveInPlace(X);
    Lbb.adjoint().solveInPlace(X);
  }
  if (nl > 0) {
    // S = D_UU - D_UB X_U, c = vfree_U - D_UB X_v, kept in D's U block.
    auto S = D.bottomRightCorner(nu, nu);
    auto c = vfree.tail(nu);
    if (nb > 0) {
      S.noalias() -= D.bottomLeftCorner(nu, nb) * X.leftCols(nu);
      c.noalias() -= D.bottomLeftCorner(nu, nb) * X.col(nu);
    }
    if (s.Mlcp.rows() < nl) {
      s.Mlcp.resize(nl, nl);
      s.qlcp.resize(nl);
      s.z.resize(nl);
      s.w.resize(nl);
    }
    auto M = s.Mlcp.topLeftCorner(nl, nl);
    auto q = s.qlcp.head(nl);
    M.setZero();
    q.setZero();
    // M = E^T S E + L with E mapping LCP unknowns to row impulses. E is
    // sparse (a contact's n row takes c_n, its t rows take D beta), so the
    // product is assembled per pair of groups.
    auto e_cols = [&](const RowGroup& g, int row, int* cols, double* vals) {
      // Unknowns feeding row `row` of group g, with their coefficients.
      if (g.kind == RowKind::kLimit) {
        cols[0] = 0, vals[0] = 1;
        return 1;
      }
      if (row == 0) {
        cols[0] = 0, vals[0] = 1;
        return 1;
      }
      for (int j = 0; j < k; ++j) {
        cols[j] = 1 + j;
        vals[j] =
            row == 1 ? impl.cone.direction_cos(j) : impl.cone.direction_sin(j);
      }
      return k;
    };
    std::array<int, 64> ca{}, cb{};
    std::array<double, 64> va{}, vb{};
    if (k > 60) return false;
    for (int ia = begin; ia < end; ++ia) {
      const int ga = s.order[ia];
      const RowGroup& a = groups[ga];
      if (a.kind == RowKind::kBilateral) continue;
      const int ua = s.row_of_group[ga] - nb, za = s.var_of_group[ga];
      for (int i = 0; i < a.rows; ++i) {
        const int na = e_cols(a, i, ca.data(), va.data());
        for (int x = 0; x < na; ++x) q[za + ca[x]] += va[x] * c[ua + i];
        for (int ib = begin; ib < end; ++ib) {
          const int gb = s.order[ib];
          const RowGroup& b = groups[gb];
          if (b.kind == RowKind::kBilateral) continue;
          const int ub = s.row_of_group[gb] - nb, zb = s.var_of_group[gb];
          for (int j = 0; j < b.rows; ++j) {
            const double Sij = S(ua + i, ub + j);
            if (Sij == 0) continue;
            const int nbv = e_cols(b, j, cb.data(), vb.data());
            for (int x = 0; x < na; ++x) {
              for (int y = 0; y < nbv; ++y) {
                M(za + ca[x], zb + cb[y]) += va[x] * Sij * vb[y];
              }
            }
          }
        }
      }
      if (a.kind == RowKind::kContact) {
        for (int j = 0; j < k; ++j) {
          M(za + 1 + j, za + k + 1) = 1;
          M(za + k + 1, za + 1 + j) = -1;
        }
        M(za + k + 1, za) = a.mu;
      }
    }
    solvers::LemkeSettings settings;
    const solvers::LcpResult result = solvers::SolveLcpLemke(
        M, q, settings, &s.lemke, s.z.head(nl), s.w.head(nl));
    s.stats.lemke_pivots += result.iterations;
    if (!result.ok()) return false;
  }
  // Impulses: p_U = E z, p_B = -(X_v + X_U p_U).
  auto pu = s.pu.head(nu);
  for (int idx = begin; idx < end; ++idx) {
    const int gi = s.order[idx];
    RowGroup& g = groups[gi];
    if (g.kind == RowKind::kBilateral) continue;
    const int u = s.row_of_group[gi] - nb, z0 = s.var_of_group[gi];
    if (g.kind == RowKind::kLimit) {
      g.p[0] = std::max(0.0, s.z[z0]);
    } else {
      g.p[0] = std::max(0.0, s.z[z0]);
      g.p[1] = g.p[2] = 0;
      for (int j = 0; j < k; ++j) {
        const double beta = std::max(0.0, s.z[z0 + 1 + j]);
        g.p[1] += beta * impl.cone.direction_cos(j);
        g.p[2] += beta * impl.cone.direction_sin(j);
      }
    }
    for (int i = 0; i < g.rows; ++i) pu[u + i] = g.p[i];
  }
  if (nb > 0) {
    auto pb = s.pb.head(nb);
    pb = -X.col(nu);
    if (nu > 0) pb.noalias() -= X.leftCols(nu) * pu;
    for (int idx = begin; idx < end; ++idx) {
      const int gi = s.order[idx];
      RowGroup& g = groups[gi];
      if (g.kind != RowKind::kBilateral) continue;
      for (int i = 0; i < g.rows; ++i) g.p[i] = pb[s.row_of_group[gi] + i];
    }
  }
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    solvers::ApplyRowGroupImpulse(g, Layout(), g.p, s.vn.data());
  }
  return true;
}

}  // namespace tern
