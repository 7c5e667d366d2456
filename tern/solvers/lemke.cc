#include "tern/solvers/lemke.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tern::solvers {

void LemkeWorkspace::Reserve(int n) {
  if (n <= capacity_) return;
  capacity_ = n;
  tableau_.resize(n, 2 * n + 2);
  column_.resize(n);
  basis_.resize(n);
  is_basic_.resize(2 * n + 2);
  lu_.resize(n, n);
  support_.resize(n);
}

// Lemke's method on the tableau T = B^-1 [I, -M, -d, q] (Cottle, Pang &
// Stone, algorithm 4.4.5). Variables are numbered w_i = i, z_i = n + i,
// z0 = 2n; column 2n + 1 is the right-hand side. The columns of the w
// variables hold B^-1, whose rows give the lexicographic order (section 4.9).
struct LemkeSolver {
  using Tableau = Eigen::Block<Eigen::MatrixXd>;

  static void CheckSizes(const Eigen::Ref<const Eigen::MatrixXd>& M,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const double* d, const LemkeWorkspace* workspace,
                         const Eigen::Ref<Eigen::VectorXd>& z,
                         const Eigen::Ref<Eigen::VectorXd>& w) {
    const Eigen::Index n = q.size();
    if (workspace == nullptr) {
      throw std::invalid_argument("SolveLcpLemke: workspace is null");
    }
    if (M.rows() != n || M.cols() != n) {
      throw std::invalid_argument(
          fmt::format("SolveLcpLemke: M is {} x {} but q has size {}", M.rows(),
                      M.cols(), n));
    }
    if (z.size() != n || w.size() != n) {
      throw std::invalid_argument(fmt::format(
          "SolveLcpLemke: z has size {} and w size {} but q has size {}",
          z.size(), w.size(), n));
    }
    internal::CheckFiniteVector("SolveLcpLemke", "q", q);
    if (d != nullptr) {
      for (Eigen::Index i = 0; i < n; ++i) {
        if (!(d[i] > 0.0)) {
          throw std::invalid_argument(fmt::format(
              "SolveLcpLemke: covering vector d[{}] = {} is not positive", i,
              d[i]));
        }
      }
    }
  }

  // Gauss-Jordan pivot on T(r, e): makes column e the r-th unit vector and
  // e the basic variable of row r. Columns of the other basic variables are
  // unit vectors with a zero in row r, which the pivot leaves unchanged, so
  // only the n + 1 nonbasic columns, the leaving one and the right-hand side
  // are updated: half the work of a full tableau sweep.
  static void Pivot(Tableau& T, LemkeWorkspace* ws, int n, int r, int e) {
    const int leaving = ws->basis_[r];
    auto col = ws->column_.head(n);
    const double p = T(r, e);
    col = T.col(e);
    col[r] = 0.0;
    for (int j = 0; j < 2 * n + 2; ++j) {
      if (j == e || (ws->is_basic_[j] && j != leaving)) continue;
      const double rj = T(r, j) / p;
      if (rj != 0.0) T.col(j).noalias() -= rj * col;
      T(r, j) = rj;
    }
    T.col(e).setZero();
    T(r, e) = 1.0;
    ws->is_basic_[leaving] = 0;
    ws->is_basic_[e] = 1;
    ws->basis_[r] = e;
  }

  // Lexicographic minimum ratio test over rows with col[i] > tol: the row
  // minimizing (rhs_i, B^-1_i) / col_i lexicographically. Ties in the ratio
  // are broken in favour of the row of z0, which ends the method. Returns -1
  // when no row qualifies (a secondary ray).
  static int LexMinRatio(const Tableau& T, int n, const double* col, double tol,
                         int z0_row) {
    const int rhs = 2 * n + 1;
    int best = -1;
    double rb = 0.0;  // ratio of row best
    for (int i = 0; i < n; ++i) {
      if (!(col[i] > tol)) continue;
      const double ri = T(i, rhs) / col[i];
      if (best < 0) {
        best = i;
        rb = ri;
        continue;
      }
      const double scale = std::max({1.0, std::abs(ri), std::abs(rb)});
      if (ri < rb - 1e-13 * scale) {
        best = i;
        rb = ri;
        continue;
      }
      if (ri > rb + 1e-13 * scale) continue;
      // A tie in the ratio itself.
      if (i == z0_row) {
        best = i;
        rb = ri;
        continue;
      }
      if (best == z0_row) continue;
      for (int j = 0; j < n; ++j) {
        const double ai = T(i, j) / col[i];
        const double ab = T(best, j) / col[best];
        if (ai < ab) {
          best = i;
          rb = ri;
          break;
        }
        if (ai > ab) break;
      }
    }
    return best;
  }

  static void Initialize(Tableau& T, const Eigen::Ref<const Eigen::MatrixXd>& M,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const double* d, LemkeWorkspace* ws, int n) {
    T.leftCols(n).setIdentity();
    T.middleCols(n, n) = -M;
    if (d != nullptr) {
      T.col(2 * n) = -Eigen::Map<const Eigen::VectorXd>(d, n);
    } else {
      T.col(2 * n).setConstant(-1.0);
    }
    T.col(2 * n + 1) = q;
    for (int i = 0; i < n; ++i) ws->basis_[i] = i;
    std::fill(ws->is_basic_.begin(), ws->is_basic_.begin() + 2 * n + 2, 0);
    std::fill(ws->is_basic_.begin(), ws->is_basic_.begin() + n, 1);
  }

  // Reads z from the basis and recomputes w = M z + q; returns the residual.
  static double Extract(const Tableau& T,
                        const Eigen::Ref<const Eigen::MatrixXd>& M,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const LemkeWorkspace* ws, int n,
                        Eigen::Ref<Eigen::VectorXd>& z,
                        Eigen::Ref<Eigen::VectorXd>& w) {
    z.setZero();
    for (int i = 0; i < n; ++i) {
      const int b = ws->basis_[i];
      if (b >= n && b < 2 * n) z[b - n] = std::max(0.0, T(i, 2 * n + 1));
    }
    w = q;
    w.noalias() += M * z;
    return LcpNaturalResidual(z, w);
  }

  // Warm start: with a = {i : z_i > 0}, solves M_aa z_a = -q_a by LU with
  // partial pivoting (Golub & Van Loan, Matrix Computations, algorithm 3.4.1)
  // in the workspace, sets z elsewhere to 0, and accepts z if it solves the
  // LCP. Returns false (z, w then undefined) otherwise.
  static bool TryWarmStart(const Eigen::Ref<const Eigen::MatrixXd>& M,
                           const Eigen::Ref<const Eigen::VectorXd>& q,
                           double accept, LemkeWorkspace* ws, int n,
                           Eigen::Ref<Eigen::VectorXd>& z,
                           Eigen::Ref<Eigen::VectorXd>& w, double* residual) {
    int k = 0;
    for (int i = 0; i < n; ++i) {
      if (z[i] > 0.0) ws->support_[k++] = i;
    }
    // An index j of the support whose row and column of M_aa and q_j are all
    // exactly zero puts no condition on z_j (w_j = 0 whatever z_j) and would
    // make M_aa singular: it keeps its guessed value, and the others form
    // the system. (In the contact LCP: lambda of a contact with no normal or
    // friction impulse in the guess.) Kept indices move to the end of a.
    int num_free = 0;
    for (int t = 0; t < k;) {
      const int j = ws->support_[t];
      bool zero = q[j] == 0.0;
      for (int u = 0; u < k && zero; ++u) {
        const int i = ws->support_[u];
        zero = M(i, j) == 0.0 && M(j, i) == 0.0;
      }
      if (zero) {
        std::swap(ws->support_[t], ws->support_[k - 1]);
        --k;
        ++num_free;
      } else {
        ++t;
      }
    }
    auto A = ws->lu_.topLeftCorner(k, k);
    auto b = ws->column_.head(k);
    for (int j = 0; j < k; ++j) {
      b[j] = -q[ws->support_[j]];
      for (int i = 0; i < k; ++i) A(i, j) = M(ws->support_[i], ws->support_[j]);
    }
    const double scale = k > 0 ? std::max(1.0, A.cwiseAbs().maxCoeff()) : 1.0;
    // In-place LU, row exchanges applied to b as they happen.
    for (int c = 0; c < k; ++c) {
      Eigen::Index p = 0;
      const double pivot = A.col(c).tail(k - c).cwiseAbs().maxCoeff(&p);
      if (!(pivot > 1e-13 * scale)) return false;
      p += c;
      if (p != c) {
        A.row(p).swap(A.row(c));
        std::swap(b[p], b[c]);
      }
      const int rest = k - c - 1;
      if (rest == 0) break;
      A.col(c).tail(rest) /= A(c, c);
      A.bottomRightCorner(rest, rest).noalias() -=
          A.col(c).tail(rest) * A.row(c).tail(rest);
    }
    A.triangularView<Eigen::UnitLower>().solveInPlace(b);
    A.triangularView<Eigen::Upper>().solveInPlace(b);
    // Assemble the new z in w (free as scratch here), then copy.
    w.setZero();
    for (int j = 0; j < k; ++j) {
      if (b[j] < -accept) return false;
      w[ws->support_[j]] = std::max(0.0, b[j]);
    }
    for (int j = k; j < k + num_free; ++j) {
      w[ws->support_[j]] = z[ws->support_[j]];
    }
    z = w;
    w = q;
    w.noalias() += M * z;
    *residual = LcpNaturalResidual(z, w);
    return *residual <= accept;
  }

  static LcpResult Solve(const Eigen::Ref<const Eigen::MatrixXd>& M,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const double* d, const LemkeSettings& settings,
                         LemkeWorkspace* ws, Eigen::Ref<Eigen::VectorXd> z,
                         Eigen::Ref<Eigen::VectorXd> w) {
    CheckSizes(M, q, d, ws, z, w);
    const int n = static_cast<int>(q.size());
    LcpResult result;
    const double q_norm = n > 0 ? q.cwiseAbs().maxCoeff() : 0.0;
    const double accept = settings.tolerance * std::max(1.0, q_norm);
    if (n == 0 || q.minCoeff() >= 0.0) {
      z.setZero();
      w = q;
      result.status = LcpStatus::kSolved;
      return result;
    }
    ws->Reserve(n);
    Tableau T = ws->tableau_.topLeftCorner(n, 2 * n + 2);
    const int z0 = 2 * n;
    const int rhs = 2 * n + 1;
    const double tol = settings.pivot_tolerance;

    if (settings.warm_start && (z.array() > 0.0).any() &&
        TryWarmStart(M, q, accept, ws, n, z, w, &result.residual)) {
      result.status = LcpStatus::kSolved;
      return result;
    }

    Initialize(T, M, q, d, ws, n);
    const int max_pivots =
        settings.max_pivots > 0 ? settings.max_pivots : 20 * (n + 1);
    // First pivot: z0 enters at the value that makes every w_i >= 0; the row
    // leaving is the lexicographic minimum of (q_i, e_i) / d_i.
    auto col = ws->column_.head(n);
    col = -T.col(z0);
    int r = LexMinRatio(T, n, col.data(), 0.0, -1);
    const int z0_row = r;
    int leaving = ws->basis_[r];
    Pivot(T, ws, n, r, z0);
    ++result.iterations;
    while (true) {
      // The complement of the variable that just left enters.
      const int entering = leaving < n ? leaving + n : leaving - n;
      if (result.iterations >= max_pivots) {
        result.status = LcpStatus::kIterationLimit;
        result.residual = Extract(T, M, q, ws, n, z, w);
        return result;
      }
      col = T.col(entering);
      r = LexMinRatio(T, n, col.data(), tol, z0_row);
      if (r < 0) {
        // A secondary ray, unless z0 has already reached zero (a degenerate
        // end the ratio test could not see): then the basis is a solution.
        result.residual = Extract(T, M, q, ws, n, z, w);
        result.status = T(z0_row, rhs) <= accept && result.residual <= accept
                            ? LcpStatus::kSolved
                            : LcpStatus::kRayTermination;
        return result;
      }
      leaving = ws->basis_[r];
      Pivot(T, ws, n, r, entering);
      ++result.iterations;
      if (leaving == z0) break;
      // z0 at zero while still basic: the basis already solves the LCP.
      if (T(z0_row, rhs) <= 1e-3 * accept) {
        result.residual = Extract(T, M, q, ws, n, z, w);
        if (result.residual <= accept) {
          result.status = LcpStatus::kSolved;
          return result;
        }
      }
    }
    result.residual = Extract(T, M, q, ws, n, z, w);
    result.status =
        result.residual <= accept ? LcpStatus::kSolved : LcpStatus::kInaccurate;
    return result;
  }
};

LcpResult SolveLcpLemke(const Eigen::Ref<const Eigen::MatrixXd>& M,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& d,
                        const LemkeSettings& settings,
                        LemkeWorkspace* workspace,
                        Eigen::Ref<Eigen::VectorXd> z,
                        Eigen::Ref<Eigen::VectorXd> w) {
  if (d.size() != q.size()) {
    throw std::invalid_argument(fmt::format(
        "SolveLcpLemke: covering vector d has size {} but q has size {}",
        d.size(), q.size()));
  }
  const LcpResult result =
      LemkeSolver::Solve(M, q, d.data(), settings, workspace, z, w);
  internal::CheckFiniteAnswer("SolveLcpLemke", M, z, w);
  return result;
}

LcpResult SolveLcpLemke(const Eigen::Ref<const Eigen::MatrixXd>& M,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const LemkeSettings& settings,
                        LemkeWorkspace* workspace,
                        Eigen::Ref<Eigen::VectorXd> z,
                        Eigen::Ref<Eigen::VectorXd> w) {
  const LcpResult result =
      LemkeSolver::Solve(M, q, nullptr, settings, workspace, z, w);
  internal::CheckFiniteAnswer("SolveLcpLemke", M, z, w);
  return result;
}

}  // namespace tern::solvers
