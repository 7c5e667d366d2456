#include "tern/solvers/row_group_lemke.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace tern::solvers {

// A regularized answer's largest natural residual for the unregularized
// LCP, relative to max(1, |q|_inf) (row_group_lemke.h).
constexpr double kRegularizedTolerance = 1e-6;

RowGroupLemkeResult SolveRowGroupsLemke(
    const JacobianRowLayout& layout, const PolygonalFrictionCone& cone,
    double constraint_regularization, std::span<JacobianRowGroup* const> groups,
    RowGroupLemkeWorkspace* workspace, double* v) {
  RowGroupLemkeWorkspace& ws = *workspace;
  RowGroupLemkeResult result;
  const int num_groups = static_cast<int>(groups.size());
  if (cone.is_disk()) {
    throw std::invalid_argument(
        "SolveRowGroupsLemke: the round friction cone "
        "(PolygonalFrictionCone::Disk) has no directions for a Lemke tableau; "
        "give it a polygonal cone");
  }
  const int k = cone.num_directions();
  auto N = [&](int t) { return layout.tree_size[t]; };
  auto Dofs = [&](int t) { return layout.dofs + layout.tree_start[t]; };
  // Row layout: bilateral rows first (B), then the others (U).
  ws.row_of_group_.resize(num_groups);
  ws.var_of_group_.resize(num_groups);
  int nb = 0, nu = 0, nl = 0;
  for (int gi = 0; gi < num_groups; ++gi) {
    const JacobianRowGroup& g = *groups[gi];
    if (g.kind == RowKind::kBilateral) nb += g.rows;
  }
  for (int gi = 0; gi < num_groups; ++gi) {
    const JacobianRowGroup& g = *groups[gi];
    if (g.kind == RowKind::kBilateral) continue;
    ws.row_of_group_[gi] = nb + nu;
    ws.var_of_group_[gi] = nl;
    nu += g.rows;
    nl += g.kind == RowKind::kContact   ? k + 2
          : g.kind == RowKind::kBounded ? 3
                                        : 1;
  }
  {
    int b = 0;
    for (int gi = 0; gi < num_groups; ++gi) {
      if (groups[gi]->kind == RowKind::kBilateral) {
        ws.row_of_group_[gi] = b;
        b += groups[gi]->rows;
      }
    }
  }
  const int R = nb + nu;
  if (ws.D_.rows() < R) ws.D_.resize(R, R);
  if (ws.u_.size() < R) {
    ws.u_.resize(R);
    ws.pb_.resize(R);
    ws.pu_.resize(R);
  }
  auto D = ws.D_.topLeftCorner(R, R);
  D.setZero();
  auto vfree = ws.u_.head(R);
  for (int ia = 0; ia < num_groups; ++ia) {
    const JacobianRowGroup& a = *groups[ia];
    const int ra = a.rows, oa = ws.row_of_group_[ia];
    for (int i = 0; i < ra; ++i) vfree[oa + i] = a.b[i];
    for (int e = 0; e < 2; ++e) {
      if (a.tree[e] < 0) continue;
      const int n = N(a.tree[e]);
      const double* J = layout.jac + a.jac[e];
      for (int i = 0; i < ra; ++i) {
        vfree[oa + i] += RowDot(J + i * n, Dofs(a.tree[e]), n, v);
      }
    }
    for (int ib = 0; ib < num_groups; ++ib) {
      const JacobianRowGroup& b = *groups[ib];
      const int rb = b.rows, ob = ws.row_of_group_[ib];
      for (int ea = 0; ea < 2; ++ea) {
        const int t = a.tree[ea];
        if (t < 0) continue;
        for (int eb = 0; eb < 2; ++eb) {
          if (b.tree[eb] != t) continue;
          const int n = N(t);
          const double* J = layout.jac + a.jac[ea];
          const double* Y = layout.jac + b.jac[eb] + rb * n;
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
  for (int gi = 0; gi < num_groups; ++gi) {
    const JacobianRowGroup& g = *groups[gi];
    for (int i = 0; i < g.rows; ++i) {
      D(ws.row_of_group_[gi] + i, ws.row_of_group_[gi] + i) += g.cfm;
    }
  }
  // Schur complement of the bilateral block.
  if (ws.A_.rows() < R) ws.A_.resize(R, R);
  auto Abb = ws.A_.topLeftCorner(nb, nb);
  if (nb > 0) {
    Abb = D.topLeftCorner(nb, nb);
    const double eps = std::max(constraint_regularization, 1e-12) *
                       (1 + Abb.diagonal().maxCoeff());
    Abb.diagonal().array() += eps;
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(Abb);
    if (llt.info() != Eigen::Success) {
      result.status = RowGroupLemkeStatus::kSingularBilateral;
      return result;
    }
  }
  auto Lbb = Abb.triangularView<Eigen::Lower>();
  // X = A^-1 [D_BU, vfree_B].
  if (ws.X_.rows() < R || ws.X_.cols() < R + 1) ws.X_.resize(R, R + 1);
  auto X = ws.X_.topLeftCorner(nb, nu + 1);
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
    if (ws.M_.rows() < nl) {
      ws.M_.resize(nl, nl);
      ws.q_.resize(nl);
      ws.z_.resize(nl);
      ws.w_.resize(nl);
    }
    auto M = ws.M_.topLeftCorner(nl, nl);
    auto q = ws.q_.head(nl);
    M.setZero();
    q.setZero();
    // M = E^T S E + L with E mapping LCP unknowns to row impulses. E is
    // sparse (a contact's n row takes c_n, its t rows take D beta), so the
    // product is assembled per pair of groups.
    auto e_cols = [&](const JacobianRowGroup& g, int row, int* cols,
                      double* vals) {
      // Unknowns feeding row `row` of group g, with their coefficients.
      if (g.kind == RowKind::kLimit) {
        cols[0] = 0, vals[0] = 1;
        return 1;
      }
      if (g.kind == RowKind::kBounded) {  // p = p+ - p-
        cols[0] = 0, vals[0] = 1;
        cols[1] = 1, vals[1] = -1;
        return 2;
      }
      if (row == 0) {
        cols[0] = 0, vals[0] = 1;
        return 1;
      }
      for (int j = 0; j < k; ++j) {
        cols[j] = 1 + j;
        vals[j] = row == 1 ? cone.direction_cos(j) : cone.direction_sin(j);
      }
      return k;
    };
    std::array<int, 64> ca{}, cb{};
    std::array<double, 64> va{}, vb{};
    if (k > 60) {
      result.status = RowGroupLemkeStatus::kTooManyDirections;
      return result;
    }
    for (int ia = 0; ia < num_groups; ++ia) {
      const JacobianRowGroup& a = *groups[ia];
      if (a.kind == RowKind::kBilateral) continue;
      const int ua = ws.row_of_group_[ia] - nb, za = ws.var_of_group_[ia];
      for (int i = 0; i < a.rows; ++i) {
        const int na = e_cols(a, i, ca.data(), va.data());
        for (int x = 0; x < na; ++x) q[za + ca[x]] += va[x] * c[ua + i];
        for (int ib = 0; ib < num_groups; ++ib) {
          const JacobianRowGroup& b = *groups[ib];
          if (b.kind == RowKind::kBilateral) continue;
          const int ub = ws.row_of_group_[ib] - nb, zb = ws.var_of_group_[ib];
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
      } else if (a.kind == RowKind::kBounded) {
        // w+- gain lambda; zeta = B - p+ - p-.
        M(za, za + 2) = M(za + 1, za + 2) = 1;
        M(za + 2, za) = M(za + 2, za + 1) = -1;
        q[za + 2] = a.bound;
      }
    }
    // Lemke on M, then, while it does not solve, on M + eps I with eps
    // growing; an answer that ended inaccurate (round-off) is kept if it
    // solves the LCP of M itself to kRegularizedTolerance
    // (row_group_lemke.h).
    double scale = 0, eps = 0;  // eps: added to M's diagonal so far
    for (int attempt = 0; attempt < 4; ++attempt) {
      if (attempt == 1) {
        for (int i = 0; i < nl; ++i) scale = std::max(scale, std::abs(M(i, i)));
      }
      if (attempt > 0) {  // eps = 1e-10, 1e-8, 1e-6 times max |M_ii|
        const double next = scale * 1e-10 * std::pow(100.0, attempt - 1);
        for (int i = 0; i < nl; ++i) M(i, i) += next - eps;
        eps = next;
      }
      const int before = result.lcp.iterations;
      result.lcp = SolveLcpLemke(M, q, LemkeSettings{}, &ws.lemke_,
                                 ws.z_.head(nl), ws.w_.head(nl));
      result.lcp.iterations += before;
      if (result.lcp.status == LcpStatus::kSolved && eps == 0) break;
      if (result.lcp.status != LcpStatus::kSolved &&
          result.lcp.status != LcpStatus::kInaccurate) {
        continue;
      }
      // The answer for M itself: w - eps z is M z + q.
      ws.w_.head(nl) -= eps * ws.z_.head(nl);
      const double r = LcpNaturalResidual(ws.z_.head(nl), ws.w_.head(nl));
      result.lcp.residual = r;
      result.lcp.status =
          r <= kRegularizedTolerance * std::max(1.0, q.cwiseAbs().maxCoeff())
              ? LcpStatus::kSolved
              : LcpStatus::kInaccurate;
      if (result.lcp.ok()) break;
    }
    if (!result.lcp.ok()) {
      result.status = RowGroupLemkeStatus::kLcpFailed;
      return result;
    }
  } else {
    result.lcp.status = LcpStatus::kSolved;
  }
  // Impulses: p_U = E z, p_B = -(X_v + X_U p_U).
  auto pu = ws.pu_.head(nu);
  for (int gi = 0; gi < num_groups; ++gi) {
    JacobianRowGroup& g = *groups[gi];
    if (g.kind == RowKind::kBilateral) continue;
    const int u = ws.row_of_group_[gi] - nb, z0 = ws.var_of_group_[gi];
    if (g.kind == RowKind::kLimit) {
      g.p[0] = std::max(0.0, ws.z_[z0]);
    } else if (g.kind == RowKind::kBounded) {
      g.p[0] =
          std::clamp(std::max(0.0, ws.z_[z0]) - std::max(0.0, ws.z_[z0 + 1]),
                     -g.bound, g.bound);
    } else {
      g.p[0] = std::max(0.0, ws.z_[z0]);
      g.p[1] = g.p[2] = 0;
      for (int j = 0; j < k; ++j) {
        const double beta = std::max(0.0, ws.z_[z0 + 1 + j]);
        g.p[1] += beta * cone.direction_cos(j);
        g.p[2] += beta * cone.direction_sin(j);
      }
    }
    for (int i = 0; i < g.rows; ++i) pu[u + i] = g.p[i];
  }
  if (nb > 0) {
    auto pb = ws.pb_.head(nb);
    pb = -X.col(nu);
    if (nu > 0) pb.noalias() -= X.leftCols(nu) * pu;
    for (int gi = 0; gi < num_groups; ++gi) {
      JacobianRowGroup& g = *groups[gi];
      if (g.kind != RowKind::kBilateral) continue;
      for (int i = 0; i < g.rows; ++i) g.p[i] = pb[ws.row_of_group_[gi] + i];
    }
  }
  for (int gi = 0; gi < num_groups; ++gi) {
    const JacobianRowGroup& g = *groups[gi];
    ApplyRowGroupImpulse(g, layout, g.p, v);
  }
  result.status = RowGroupLemkeStatus::kSolved;
  return result;
}

}  // namespace tern::solvers
