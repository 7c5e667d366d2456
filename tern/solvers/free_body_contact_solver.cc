#include "tern/solvers/free_body_contact_solver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>

#include "tern/common/all_finite.h"
#include "tern/solvers/convex_contact_internal.h"
#include "tern/solvers/lcp.h"

namespace tern::solvers {

void FreeBodySolverWorkspace::Reserve(int num_bodies, int num_constraints,
                                      int m) {
  if (num_bodies > nb_) {
    nb_ = num_bodies;
    const int n = 6 * nb_;
    LA_.resize(nb_);
    diagA_.resize(nb_);
    diag_.resize(nb_);
    for (Eigen::VectorXd* x : {&dv_, &Adv_, &e_, &Ae_, &g_, &D_, &tmp_}) {
      x->resize(n);
    }
    order_.resize(nb_);
    pos_.resize(nb_);
    below_begin_.resize(nb_ + 1);
  }
  if (num_constraints > nc_) {
    nc_ = num_constraints;
    J_.resize(2 * nc_);
    Jt_.resize(2 * nc_);
    bodies_.resize(2 * nc_);
  }
  if (static_cast<int>(row_of_.size()) < num_constraints + 1) {
    row_of_.resize(num_constraints + 1);
  }
  if (m > m_) {
    m_ = m;
    for (Eigen::VectorXd* x :
         {&vc_, &gamma_, &R_, &Jdv_, &vct_, &trial_, &shift_, &b_anchored_}) {
      x->resize(m);
    }
    G_.resize(3 * m);  // 9 per contact (3 rows), 1 per other row
  }
}

namespace {

const char* const kWho = "SolveFreeBodyContact";

// In-place Cholesky M = L L^T of a 6 x 6 block's lower triangle (the upper
// one is not read), with the pivot test of the dense solver's
// factorization. The diagonal keeps 1 / L(j, j) (the solves below multiply
// by it). False if M is not positive definite.
bool Cholesky6(Matrix6d& M) {
  // Unrolled fully (the bounds are then constants): the loops as written
  // were its hottest part.
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
#pragma GCC unroll 6
    for (int k = 0; k < j; ++k) {
      const double ljk = M(j, k);
#pragma GCC unroll 6
      for (int i = j; i < 6; ++i) M(i, j) -= ljk * M(i, k);
    }
    const double d = M(j, j);
    if (!(d > 0) || !std::isfinite(d)) return false;
    const double l = std::sqrt(d), inv = 1 / l;
    M(j, j) = inv;
    for (int i = j + 1; i < 6; ++i) M(i, j) *= inv;
  }
  return true;
}

// The solves take L as Cholesky6 leaves it (1 / L(j, j) on the diagonal),
// unrolled fully as Cholesky6 is.
// X <- L^-1 X for a lower triangular 6 x 6 L (forward substitution on each
// column of X; Eigen's triangular solve with a matrix right-hand side
// takes its blocked dynamic-size path here).
template <int C>
void ForwardSolve(const Matrix6d& L, Eigen::Matrix<double, 6, C>& X) {
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
#pragma GCC unroll 6
    for (int k = 0; k < j; ++k) X.row(j) -= L(j, k) * X.row(k);
    X.row(j) *= L(j, j);
  }
}

// x <- L^-1 x, then (with Transposed) x <- L^-T x.
template <typename Vec>
void ForwardSolve(const Matrix6d& L, Vec&& x) {
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    double xj = x[j];
#pragma GCC unroll 6
    for (int k = 0; k < j; ++k) xj -= L(j, k) * x[k];
    x[j] = xj * L(j, j);
  }
}
template <typename Vec>
void BackwardSolveTransposed(const Matrix6d& L, Vec&& x) {
#pragma GCC unroll 6
  for (int j = 5; j >= 0; --j) {
    double xj = x[j];
#pragma GCC unroll 6
    for (int k = j + 1; k < 6; ++k) xj -= L(k, j) * x[k];
    x[j] = xj * L(j, j);
  }
}

// S <- S L^-T for a lower triangular 6 x 6 L: column j of the answer is
// (S(:, j) - sum_{k < j} answer(:, k) L(j, k)) / L(j, j).
void SolveRightTransposed(const Matrix6d& L, Matrix6d& S) {
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
#pragma GCC unroll 6
    for (int k = 0; k < j; ++k) S.col(j) -= L(j, k) * S.col(k);
    S.col(j) *= L(j, j);
  }
}

}  // namespace

bool PositiveDiagonal6(const Matrix6d& M) {
  for (int j = 0; j < 6; ++j) {
    const double d = M(j, j);
    if (!(d > 0) || !std::isfinite(d)) return false;
    for (int i = 0; i < 6; ++i) {
      if (i != j && M(i, j) != 0) return false;
    }
  }
  return true;
}

// kBodies: 1 for an island of one body (the loops over bodies are then
// fixed, the ordering and the off-diagonal blocks vanish), 0 for any.
template <int kBodies>
struct FreeBodySolver {
  std::span<const Matrix6d> A;
  const Eigen::Ref<const Eigen::VectorXd>& v_star;
  const Eigen::Ref<const Eigen::VectorXd>& b;
  const std::vector<ConvexConstraint>& constraints;
  const ConvexSolverSettings& settings;
  FreeBodySolverWorkspace& w;
  int num_bodies, nc, m;
  // The number of bodies, known at compile time for one body.
  int Nb() const { return kBodies > 0 ? kBodies : num_bodies; }

  // out = J x.
  template <typename In, typename Out>
  void MulJ(const In& x, Out& out) const {
    if constexpr (kBodies == 1) {  // every constraint on body 0 alone
      for (int k = 0; k < nc; ++k) {
        const Eigen::Vector3d t = w.J_[2 * k] * x.template head<6>();
        const int row = w.row_of_[k];
        if (w.row_of_[k + 1] - row == 3) {
          out.template segment<3>(row) = t;
        } else {
          out[row] = t[0];
        }
      }
      return;
    }
    for (int k = 0; k < nc; ++k) {
      const int b0 = w.bodies_[2 * k], b1 = w.bodies_[2 * k + 1];
      Eigen::Vector3d t = w.J_[2 * k] * x.template segment<6>(6 * b0);
      if (b1 >= 0)
        t.noalias() += w.J_[2 * k + 1] * x.template segment<6>(6 * b1);
      const int row = w.row_of_[k], rr = w.row_of_[k + 1] - row;
      for (int i = 0; i < rr; ++i) out[row + i] = t[i];
    }
  }

  // out = J x + b (MulJ's sums, then + b, in one pass).
  template <typename In, typename B, typename Out>
  void MulJPlusB(const In& x, const B& b, Out& out) const {
    for (int k = 0; k < nc; ++k) {
      Eigen::Vector3d t;
      if constexpr (kBodies == 1) {
        t.noalias() = w.J_[2 * k] * x.template head<6>();
      } else {
        const int b0 = w.bodies_[2 * k], b1 = w.bodies_[2 * k + 1];
        t.noalias() = w.J_[2 * k] * x.template segment<6>(6 * b0);
        if (b1 >= 0)
          t.noalias() += w.J_[2 * k + 1] * x.template segment<6>(6 * b1);
      }
      const int row = w.row_of_[k];
      if (w.row_of_[k + 1] - row == 3) {
        out.template segment<3>(row) = t + b.template segment<3>(row);
      } else {
        out[row] = t[0] + b[row];
      }
    }
  }

  // out = J^T y.
  template <typename In, typename Out>
  void MulJT(const In& y, Out& out) const {
    out.setZero();
    for (int k = 0; k < nc; ++k) {
      const int row = w.row_of_[k], rr = w.row_of_[k + 1] - row;
      Eigen::Vector3d yk = Eigen::Vector3d::Zero();
      bool any = false;
      for (int i = 0; i < rr; ++i) {
        yk[i] = y[row + i];
        any |= yk[i] != 0;
      }
      if (!any) continue;
      if constexpr (kBodies == 1) {
        out.template head<6>().noalias() += w.Jt_[2 * k] * yk;
        continue;
      }
      const int b0 = w.bodies_[2 * k], b1 = w.bodies_[2 * k + 1];
      out.template segment<6>(6 * b0).noalias() += w.Jt_[2 * k] * yk;
      if (b1 >= 0) {
        out.template segment<6>(6 * b1).noalias() += w.Jt_[2 * k + 1] * yk;
      }
    }
  }

  // out = A x, per body.
  template <typename In, typename Out>
  void MulA(const In& x, Out& out) const {
    for (int i = 0; i < Nb(); ++i) {
      if (w.diagA_[i]) {  // the product's terms with zeros left out
        out.template segment<6>(6 * i) =
            A[i].diagonal().cwiseProduct(x.template segment<6>(6 * i));
        continue;
      }
      out.template segment<6>(6 * i).noalias() =
          A[i] * x.template segment<6>(6 * i);
    }
  }

  // x <- A^-1 x, per body.
  template <typename Vec>
  void SolveA(Vec& x) const {
    for (int i = 0; i < Nb(); ++i) {
      auto xi = x.template segment<6>(6 * i);
      if (w.diagA_[i]) {
        // The triangular solves' products with zeros left out.
        const auto inv = w.LA_[i].diagonal();
        xi = xi.cwiseProduct(inv).cwiseProduct(inv);
        continue;
      }
      ForwardSolve(w.LA_[i], xi);
      BackwardSolveTransposed(w.LA_[i], xi);
    }
  }

  // The elimination order of the bodies (minimum degree on the
  // body-contact graph, ties to the lower index) and the block pattern of
  // the factor with its fill (George and Liu, "Computer Solution of Large
  // Sparse Positive Definite Systems", 1981, ch. 5). A body's degree is
  // its number of neighbours not yet eliminated.
  void Symbolic() {
    if (Nb() == 1) {  // one body against the world: nothing to order
      w.order_[0] = w.pos_[0] = 0;
      w.below_begin_[0] = w.below_begin_[1] = 0;
      return;
    }
    auto& adj = w.adj_;
    adj.assign(static_cast<size_t>(Nb()) * Nb(), 0);
    auto& deg = w.tmp_deg_;
    deg.assign(Nb(), 0);
    for (int k = 0; k < nc; ++k) {
      const int b0 = w.bodies_[2 * k], b1 = w.bodies_[2 * k + 1];
      if (b1 < 0) continue;
      char& e = adj[static_cast<size_t>(b0) * Nb() + b1];
      if (e) continue;
      e = adj[static_cast<size_t>(b1) * Nb() + b0] = 1;
      ++deg[b0], ++deg[b1];
    }
    w.done_.assign(Nb(), 0);
    auto& nbrs = w.nbrs_;
    for (int p = 0; p < Nb(); ++p) {
      int best = -1;
      for (int i = 0; i < Nb(); ++i) {
        if (!w.done_[i] && (best < 0 || deg[i] < deg[best])) best = i;
      }
      w.order_[p] = best;
      w.pos_[best] = p;
      w.done_[best] = 1;
      nbrs.clear();
      const char* row = adj.data() + static_cast<size_t>(best) * Nb();
      for (int i = 0; i < Nb(); ++i) {
        if (row[i] && !w.done_[i]) nbrs.push_back(i);
      }
      for (int u : nbrs) --deg[u];
      // Its neighbours become a clique (the fill).
      for (size_t a = 0; a < nbrs.size(); ++a) {
        for (size_t c = a + 1; c < nbrs.size(); ++c) {
          char& e = adj[static_cast<size_t>(nbrs[a]) * Nb() + nbrs[c]];
          if (e) continue;
          e = adj[static_cast<size_t>(nbrs[c]) * Nb() + nbrs[a]] = 1;
          ++deg[nbrs[a]], ++deg[nbrs[c]];
        }
      }
    }
    // Row p of the factor has a block in column j < p where the bodies at
    // p and j are adjacent in the filled graph.
    w.slot_.assign(static_cast<size_t>(Nb()) * Nb(), -1);
    w.below_.clear();
    int slots = 0;
    for (int p = 0; p < Nb(); ++p) {
      w.below_begin_[p] = static_cast<int>(w.below_.size());
      const char* row = adj.data() + static_cast<size_t>(w.order_[p]) * Nb();
      for (int j = 0; j < p; ++j) {
        if (!row[w.order_[j]]) continue;
        w.below_.push_back(j);
        w.slot_[static_cast<size_t>(p) * Nb() + j] = slots++;
      }
    }
    w.below_begin_[Nb()] = static_cast<int>(w.below_.size());
    if (static_cast<int>(w.blocks_.size()) < slots) w.blocks_.resize(slots);
  }

  // The Newton matrix A + J^T G J into the factor's blocks (positions in
  // the elimination order), constraints with G = 0 skipped.
  void Assemble() {
    for (int p = 0; p < Nb(); ++p) w.diag_[p] = A[w.order_[p]];
    const int num_off = w.below_begin_[Nb()];
    for (int s = 0; s < num_off; ++s) w.blocks_[s].setZero();
    int gofs = 0;
    for (int k = 0; k < nc; ++k) {
      const int rr = w.row_of_[k + 1] - w.row_of_[k];
      const double* Gk = w.G_.data() + gofs;
      gofs += rr * rr;
      Eigen::Matrix3d G;
      if (rr == 3) {
        G = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(Gk);
      } else {
        G.setZero();
        G(0, 0) = Gk[0];
      }
      if ((G.array() == 0).all()) continue;
      const int b0 = w.bodies_[2 * k], b1 = w.bodies_[2 * k + 1];
      // The 6 x 3 left factors column-major (Jt_), so that each product
      // is vectorized down the columns of the 6 x 6 block (the transposed
      // views of the 3 x 6 blocks gave one dot product per entry).
      using Block63 = FreeBodySolverWorkspace::Block63;
      const FreeBodySolverWorkspace::Block36& J0 = w.J_[2 * k];
      const FreeBodySolverWorkspace::Block36 GJ0 = G * J0;
      const int p0 = w.pos_[b0];
      const Block63& J0t = w.Jt_[2 * k];
      w.diag_[p0].noalias() += J0t * GJ0;
      if (b1 < 0) continue;
      const FreeBodySolverWorkspace::Block36& J1 = w.J_[2 * k + 1];
      const int p1 = w.pos_[b1];
      const Block63& J1t = w.Jt_[2 * k + 1];
      w.diag_[p1].noalias() += J1t * (G * J1);
      if (p1 > p0) {
        w.blocks_[w.slot_[static_cast<size_t>(p1) * Nb() + p0]].noalias() +=
            J1t * GJ0;
      } else {
        const Block63 GJ0t = GJ0.transpose();
        w.blocks_[w.slot_[static_cast<size_t>(p0) * Nb() + p1]].noalias() +=
            GJ0t * J1;
      }
    }
  }

  // Up-looking block Cholesky of the assembled blocks, in place: row p's
  // blocks L(p, j) = (H(p, j) - sum_{k < j} L(p, k) L(j, k)^T) L(j, j)^-T,
  // then L(p, p) = chol(H(p, p) - sum_j L(p, j) L(p, j)^T). False if the
  // matrix is not positive definite.
  bool Factor() {
    for (int p = 0; p < Nb(); ++p) {
      const int r0 = w.below_begin_[p], r1 = w.below_begin_[p + 1];
      const int* row_slot = w.slot_.data() + static_cast<size_t>(p) * Nb();
      for (int a = r0; a < r1; ++a) {
        const int j = w.below_[a];
        Matrix6d& Lpj = w.blocks_[row_slot[j]];
        const int* j_slot = w.slot_.data() + static_cast<size_t>(j) * Nb();
        for (int c = r0; c < a; ++c) {
          const int k = w.below_[c];
          const int s = j_slot[k];
          if (s < 0) continue;
          Lpj.noalias() -= w.blocks_[row_slot[k]] * w.blocks_[s].transpose();
        }
        SolveRightTransposed(w.diag_[j], Lpj);
      }
      Matrix6d& Lpp = w.diag_[p];
      for (int a = r0; a < r1; ++a) {
        const Matrix6d& Lpj = w.blocks_[row_slot[w.below_[a]]];
        Lpp.noalias() -= Lpj * Lpj.transpose();
      }
      if (!Cholesky6(Lpp)) return false;
    }
    return true;
  }

  // x <- (L L^T)^-1 x with the factor of Factor (x indexed by body).
  template <typename Vec>
  void SolveFactored(Vec& x) const {
    for (int p = 0; p < Nb(); ++p) {  // L y = x
      auto xp = x.template segment<6>(6 * w.order_[p]);
      const int* row_slot = w.slot_.data() + static_cast<size_t>(p) * Nb();
      for (int a = w.below_begin_[p]; a < w.below_begin_[p + 1]; ++a) {
        const int j = w.below_[a];
        xp.noalias() -=
            w.blocks_[row_slot[j]] * x.template segment<6>(6 * w.order_[j]);
      }
      ForwardSolve(w.diag_[p], xp);
    }
    for (int p = Nb() - 1; p >= 0; --p) {  // L^T x = y
      auto xp = x.template segment<6>(6 * w.order_[p]);
      BackwardSolveTransposed(w.diag_[p], xp);
      const int* row_slot = w.slot_.data() + static_cast<size_t>(p) * Nb();
      for (int a = w.below_begin_[p]; a < w.below_begin_[p + 1]; ++a) {
        const int j = w.below_[a];
        x.template segment<6>(6 * w.order_[j]).noalias() -=
            w.blocks_[row_slot[j]].transpose() * xp;
      }
    }
  }

  // Throws if a block of A is not finite; notes the diagonal ones (w.diagA_:
  // a diagonal block with a positive, finite diagonal is finite), tested
  // here or given by the caller (diag, PositiveDiagonal6's answers).
  void CheckA(std::span<const char> diag = {}) {
    for (int i = 0; i < Nb(); ++i) {
      w.diagA_[i] = diag.empty() ? PositiveDiagonal6(A[i]) : diag[i];
      assert(w.diagA_[i] == PositiveDiagonal6(A[i]));
      if (!w.diagA_[i] && !AllFinite(A[i].data(), 36)) {
        throw std::invalid_argument(
            fmt::format("{}: body {}: its block of A is not finite", kWho, i));
      }
    }
  }

  // The rows into the workspace (3 x 6 blocks, zeros below a constraint's
  // rows), checked.
  // The bodies' indices are checked unless the caller vouches for them
  // (bodies_checked: asserted only).
  void Pack(const FreeBodyRows& rows, bool bodies_checked = false) {
    int row = 0;
    for (int k = 0; k < nc; ++k) {
      const int b0 = rows.bodies[2 * k], b1 = rows.bodies[2 * k + 1];
      assert(!bodies_checked ||
             !(b0 < 0 || b0 >= Nb() || b1 < -1 || b1 >= Nb() || b1 == b0));
      if (!bodies_checked &&
          (b0 < 0 || b0 >= Nb() || b1 < -1 || b1 >= Nb() || b1 == b0)) {
        throw std::invalid_argument(fmt::format(
            "{}: constraint {}: bodies {} and {} (of {}): the first must be in "
            "[0, {}), the second another one or -1 (the world)",
            kWho, k, b0, b1, Nb(), Nb()));
      }
      w.bodies_[2 * k] = b0;
      w.bodies_[2 * k + 1] = b1;
      w.row_of_[k] = row;
      const int rr = NumRows(constraints[k].kind);
      for (int e = 0; e < 2; ++e) {
        FreeBodySolverWorkspace::Block36& Jk = w.J_[2 * k + e];
        if (e == 1 && b1 < 0) {
          // One body: nothing reads a second side.
          if constexpr (kBodies == 1) continue;
          Jk.setZero();
          w.Jt_[2 * k + e].setZero();
          continue;
        }
        // Fixed-size copies and check (the rows beyond rr zero).
        const double* src = rows.values.data() + 36 * k + 18 * e;
        if (rr == 3) {
          Jk = Eigen::Map<const Eigen::Matrix<double, 3, 6, Eigen::RowMajor>>(
              src);
        } else {
          Jk.setZero();
          Jk.row(0) = Eigen::Map<const Eigen::Matrix<double, 1, 6>>(src);
        }
        if (!Jk.allFinite()) {
          for (int i = 0; i < rr; ++i) {
            for (int j = 0; j < 6; ++j) {
              if (std::isfinite(src[6 * i + j])) continue;
              throw std::invalid_argument(fmt::format(
                  "{}: J: constraint {} has a non-finite entry {} (body {}, "
                  "row {}, dof {})",
                  kWho, k, src[6 * i + j], e == 0 ? b0 : b1, i, j));
            }
          }
        }
        w.Jt_[2 * k + e] = Jk.transpose();
      }
      row += rr;
    }
    w.row_of_[nc] = row;
  }

  ConvexSolverResult Solve(Eigen::Ref<Eigen::VectorXd> v,
                           Eigen::Ref<Eigen::VectorXd> gamma_io) {
    ConvexSolverResult result;
    const int n = 6 * Nb();
    // A's blocks factored, the Delassus estimates and the regularization.
    for (int i = 0; i < Nb(); ++i) {
      // A diagonal block (the plant's spheres and boxes) factors to the
      // reciprocal square roots of its diagonal, as Cholesky6 would leave
      // it (its updates are all by zeros).
      const Matrix6d& Ai = A[i];
      if (w.diagA_[i]) {  // CheckA's; only the diagonal is read
        w.LA_[i].diagonal() = Ai.diagonal().cwiseSqrt().cwiseInverse();
        continue;
      }
      w.LA_[i] = Ai;
      if (!Cholesky6(w.LA_[i])) {
        throw std::invalid_argument(fmt::format(
            "{}: body {}: its block of A is not positive definite (a body "
            "without mass or inertia)",
            kWho, i));
      }
    }
    bool shifted = false;
    for (int k = 0; k < nc; ++k) {
      const int row = w.row_of_[k], rr = w.row_of_[k + 1] - row;
      double wi = 0;
      for (int e = 0; e < 2; ++e) {
        const int body = w.bodies_[2 * k + e];
        if (body < 0) continue;
        Eigen::Matrix<double, 6, 3> X = w.Jt_[2 * k + e];
        if (w.diagA_[body]) {
          X = w.LA_[body].diagonal().asDiagonal() * X;
        } else {
          ForwardSolve<3>(w.LA_[body], X);
        }
        wi += X.leftCols(rr).squaredNorm();
      }
      shifted |= internal::Regularize(constraints[k], wi / rr, &gamma_io[row],
                                      settings, w.R_.data() + row,
                                      w.shift_.data() + row);
    }
    const Eigen::Ref<const Eigen::VectorXd> bias =
        internal::AnchoredBias(b, w.shift_, shifted, &w.b_anchored_);
    Symbolic();
    auto D = w.D_.head(n);
    for (int i = 0; i < Nb(); ++i) {
      if (w.diagA_[i]) {
        D.template segment<6>(6 * i) = w.LA_[i].diagonal();  // the same
        continue;
      }
      for (int j = 0; j < 6; ++j) D[6 * i + j] = 1 / std::sqrt(A[i](j, j));
    }
    if constexpr (kBodies == 1) {
      // One body: the n-vectors fixed-size (no dynamic-size loops).
      using Vector6d = Eigen::Matrix<double, 6, 1>;
      const Vector6d v_star1 = v_star, D1 = D;
      Vector6d v1 = v;
      internal::NewtonIterate<FreeBodySolver, Vector6d>(
          *this, constraints, settings, w.R_.data(), w.G_.data(), v_star1, bias,
          D1,
          {w.gamma_.head(m),
           w.vc_.head(m),
           w.vct_.head(m),
           w.trial_.head(m),
           w.Jdv_.head(m),
           {},
           {},
           {},
           {},
           {},
           {}},
          v1, gamma_io, &result);
      v = v1;
      return result;
    }
    internal::NewtonIterate(
        *this, constraints, settings, w.R_.data(), w.G_.data(), v_star, bias, D,
        {w.gamma_.head(m), w.vc_.head(m), w.vct_.head(m), w.trial_.head(m),
         w.Jdv_.head(m), w.e_.head(n), w.Ae_.head(n), w.g_.head(n),
         w.dv_.head(n), w.Adv_.head(n), w.tmp_.head(n)},
        v, gamma_io, &result);
    return result;
  }

  // NewtonIterate's Newton direction (convex_contact_internal.h).
  template <typename Vec>
  bool NewtonDirection(Vec& dv) {
    Assemble();
    if (!Factor()) return false;
    SolveFactored(dv);
    return true;
  }
};

namespace {

// The solve after the entry points' checks of sizes and indices: the data's
// checks (the same order and messages), the rows packed, the solve. diag:
// the caller's PositiveDiagonal6 answers, or empty (tested here); a caller
// that gives them is the plant's entry point, whose body indices are in
// range by construction (Pack then only asserts them).
ConvexSolverResult CheckedSolve(
    std::span<const Matrix6d> A_blocks, std::span<const char> diag,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const FreeBodyRows& rows,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints, int m,
    const ConvexSolverSettings& settings, FreeBodySolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma) {
  const int nb = static_cast<int>(A_blocks.size());
  const int nc = static_cast<int>(constraints.size());
  workspace->Reserve(nb, nc, m);
  auto run = [&](auto solver) {
    solver.CheckA(diag);
    // v_star, b and the guess in one pass without a branch per entry: x * 0
    // is 0 (of either sign) for a finite x and NaN otherwise, so the sum is
    // 0 exactly when every entry is finite. If not, the checks name the
    // first culprit as before.
    const auto& guess =
        settings.warm_start_impulses
            ? static_cast<const Eigen::Ref<Eigen::VectorXd>&>(gamma)
            : v;
    double zero = 0;
    for (const double x : v_star) zero += x * 0.0;
    for (const double x : b) zero += x * 0.0;
    for (const double x : guess) zero += x * 0.0;
    if (zero != 0) {
      internal::CheckFiniteVectors(kWho, v_star, b, settings, v, gamma);
    }
    solver.Pack(rows, !diag.empty());
    return solver.Solve(v, gamma);
  };
  if (nb == 1) {
    return run(FreeBodySolver<1>{A_blocks, v_star, b, constraints, settings,
                                 *workspace, nb, nc, m});
  }
  return run(FreeBodySolver<0>{A_blocks, v_star, b, constraints, settings,
                               *workspace, nb, nc, m});
}

}  // namespace

ConvexSolverResult SolveFreeBodyContact(
    std::span<const Matrix6d> A_blocks,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const FreeBodyRows& rows,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, FreeBodySolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma) {
  if (workspace == nullptr) {
    throw std::invalid_argument(fmt::format("{}: workspace is null", kWho));
  }
  const int nb = static_cast<int>(A_blocks.size());
  const int nc = static_cast<int>(constraints.size());
  const int m = internal::CheckConstraints(kWho, constraints);
  if (v_star.size() != 6 * nb || v.size() != 6 * nb || b.size() != m ||
      gamma.size() != m || rows.bodies.size() != 2 * constraints.size() ||
      rows.values.size() < 36 * constraints.size()) {
    throw std::invalid_argument(fmt::format(
        "{}: sizes disagree: {} blocks of A (6 dofs each), v_star {}, v {}, "
        "b {}, gamma {}, constraints' rows {}; {} constraints with {} body "
        "indices (2 each) and {} values (36 each)",
        kWho, nb, v_star.size(), v.size(), b.size(), gamma.size(), m, nc,
        rows.bodies.size(), rows.values.size()));
  }
  return CheckedSolve(A_blocks, {}, v_star, rows, b, constraints, m, settings,
                      workspace, v, gamma);
}

namespace internal {

ConvexSolverResult SolveFreeBodyContactPrepared(
    std::span<const Matrix6d> A_blocks, std::span<const char> diag_A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const FreeBodyRows& rows,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, FreeBodySolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma) {
  // The constraints' data (mu, bound, R) come from the user's model: checked.
  const int m = CheckConstraints(kWho, constraints);
  const size_t nb = A_blocks.size();
  assert(workspace != nullptr && diag_A.size() == nb && nb > 0 &&
         v_star.size() == static_cast<Eigen::Index>(6 * nb) &&
         v.size() == v_star.size() && b.size() == m && gamma.size() == m &&
         rows.bodies.size() == 2 * constraints.size() &&
         rows.values.size() >= 36 * constraints.size());
  (void)nb;
  return CheckedSolve(A_blocks, diag_A, v_star, rows, b, constraints, m,
                      settings, workspace, v, gamma);
}

}  // namespace internal

}  // namespace tern::solvers
