#include "tern/solvers/convex_contact_solver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numbers>
#include <stdexcept>

#include "tern/solvers/convex_contact_internal.h"
#include "tern/solvers/lcp.h"

namespace tern::solvers {

void ConvexSolverWorkspace::Reserve(int n, int m) {
  if (n > n_) {
    n_ = n;
    H_.resize(n, n);
    dv_.resize(n);
    Adv_.resize(n);
    e_.resize(n);
    Ae_.resize(n);
    g_.resize(n);
    dscale_.resize(n);
    tmp_.resize(n);
    nodes_.reserve(n);
    seen_.reserve(n);
    x3_.reserve(3 * n);
    ga_.resize(3 * n);
    row_bits_.resize(n);
    inv_diag_.reserve(n);
  }
  if (n > X_.rows() || m > X_.cols())
    X_.resize(std::max<int>(n, X_.rows()), std::max<int>(m, X_.cols()));
  if (m > m_) {
    m_ = m;
    vc_.resize(m);
    y_.resize(m);
    gamma_.resize(m);
    R_.resize(m);
    shift_.resize(m);
    b_anchored_.resize(m);
    G_.resize(3 * m);  // 3x3 per contact (9 per 3 rows), 1 per other row
    Jdv_.resize(m);
    gamma_trial_.resize(m);
  }
}

namespace {

// Projection of y onto a contact's cone in the R norm (Castro et al. 2023,
// sec. V.B, written here in the scaled variables z = R^1/2 gamma, where it is
// the Euclidean projection onto the cone of slope mu~ = mu sqrt(Rt / Rn)),
// its cost 1/2 gamma^T R gamma, and, if G != nullptr, G = d gamma / d y R^-1
// = R^-1/2 (dz / dw) R^-1/2 (3x3, row major, rows n, t1, t2).
double ProjectContact(const double* y, double mu, double Rn, double Rt,
                      double* gamma, double* G) {
  const double yn = y[0], yr = std::sqrt(y[1] * y[1] + y[2] * y[2]);
  // Stiction: inside the cone (yn > 0: with mu = 0 and no slip, yr = 0 <=
  // mu yn held for a negative yn too, and the contact pulled).
  if (yn > 0 && yr <= mu * yn) {
    gamma[0] = y[0], gamma[1] = y[1], gamma[2] = y[2];
    if (G != nullptr) {
      std::fill(G, G + 9, 0.0);
      G[0] = 1 / Rn, G[4] = 1 / Rt, G[8] = 1 / Rt;
    }
    return 0.5 * (Rn * yn * yn + Rt * yr * yr);
  }
  const double mu_hat = mu * Rt / Rn;
  if (yn + mu_hat * yr <= 0) {  // separation: in the polar cone
    gamma[0] = gamma[1] = gamma[2] = 0;
    if (G != nullptr) std::fill(G, G + 9, 0.0);
    return 0;
  }
  // Sliding: onto the cone's surface.
  const double mt2 = mu * mu_hat;  // mu~^2
  const double gn = (yn + mu_hat * yr) / (1 + mt2);
  const double t1 = yr > 0 ? y[1] / yr : 0, t2 = yr > 0 ? y[2] / yr : 0;
  gamma[0] = gn;
  gamma[1] = mu * gn * t1;
  gamma[2] = mu * gn * t2;
  if (G != nullptr) {
    const double mt = std::sqrt(mt2);
    const double sn = std::sqrt(Rn), st = std::sqrt(Rt);
    // dz/dw: [1, mt t^T; mt t, mt^2 t t^T] / (1 + mt^2)
    //        + mt zn / wr (I - t t^T) in the tangent block.
    const double zn = sn * gn, wr = st * yr;
    const double c = 1 / (1 + mt2);
    const double s = wr > 0 ? mt * zn / wr : 0;
    const double tt[2] = {t1, t2};
    G[0] = c / Rn;
    for (int a = 0; a < 2; ++a) {
      G[1 + a] = G[3 * (1 + a)] = c * mt * tt[a] / (sn * st);
      for (int b = 0; b < 2; ++b) {
        const double P = (a == b ? 1.0 : 0.0) - tt[a] * tt[b];
        G[3 * (1 + a) + 1 + b] = (c * mt2 * tt[a] * tt[b] + s * P) / Rt;
      }
    }
  }
  return 0.5 * (Rn * gn * gn + Rt * mu * mu * gn * gn);
}

}  // namespace

namespace internal {

double ConstraintImpulses(const std::vector<ConvexConstraint>& constraints,
                          const double* R_all, const double* vc, double* gamma,
                          double* G) {
  double cost = 0;
  int row = 0, gofs = 0;
  double y[3];
  for (const ConvexConstraint& c : constraints) {
    const double* R = R_all + row;
    if (c.kind == ConvexConstraintKind::kContact) {
      for (int i = 0; i < 3; ++i) y[i] = -vc[row + i] / R[i];
      cost += ProjectContact(y, c.mu, R[0], R[1], gamma + row,
                             G != nullptr ? G + gofs : nullptr);
      row += 3;
      gofs += 9;
      continue;
    }
    const double yi = -vc[row] / R[0];
    double gi = yi, Gi = 1 / R[0];
    if (c.kind == ConvexConstraintKind::kBounded) {
      // Clamp onto [-bound, bound]; l = max over |g| <= bound of
      // (-vc g - R g^2 / 2) = R (y g - g^2 / 2) at the clamped g.
      if (!(std::abs(yi) < c.bound)) {
        gi = yi > 0 ? c.bound : -c.bound, Gi = 0;
      }
      gamma[row] = gi;
      if (G != nullptr) G[gofs] = Gi;
      cost += R[0] * (yi * gi - 0.5 * gi * gi);
      row += 1;
      gofs += 1;
      continue;
    }
    if (c.kind == ConvexConstraintKind::kUnilateral && yi <= 0) {
      gi = 0, Gi = 0;
    }
    gamma[row] = gi;
    if (G != nullptr) G[gofs] = Gi;
    cost += 0.5 * R[0] * gi * gi;
    row += 1;
    gofs += 1;
  }
  return cost;
}

bool Regularize(const ConvexConstraint& c, double wi, const double* gamma0,
                const ConvexSolverSettings& settings, double* R,
                double* shift) {
  const double gamma0_n = gamma0[0];
  constexpr double kFourPi2 = 4 * std::numbers::pi * std::numbers::pi;
  const double near_rigid = settings.beta * settings.beta / kFourPi2;
  const double stiffest = settings.beta_min * settings.beta_min / kFourPi2;
  const bool bound_rest = settings.rest_velocity > 0 &&
                          settings.warm_start_impulses &&
                          settings.beta_min < settings.beta;
  const int r = NumRows(c.kind);
  if (!(wi > 0) || !std::isfinite(wi)) {
    wi = 1;  // a row that moves nothing: any R keeps ell convex
  }
  // A bounded (dry friction) row is regularized as a tangential one.
  const double first = c.kind == ConvexConstraintKind::kBounded
                           ? settings.sigma * wi
                           : near_rigid * wi;
  for (int i = 0; i < r; ++i) {
    R[i] = c.R > 0 ? c.R : (i == 0 ? first : settings.sigma * wi);
  }
  // A loaded normal (or limit) row is stiffened so that its resting
  // compliance velocity R_n gamma0_n stays within rest_velocity, down
  // to beta_min (a heavy body on a light one); a row whose load is not
  // known yet (no warm-start impulse: a new contact) starts at
  // beta_min (ConvexSolverSettings::rest_velocity).
  if (bound_rest && c.R == 0 &&
      (c.kind == ConvexConstraintKind::kContact ||
       c.kind == ConvexConstraintKind::kUnilateral)) {
    const double g0 = c.load >= 0 ? c.load : gamma0_n;
    const double bound = g0 > 0 ? settings.rest_velocity / g0 : 0;
    R[0] = std::max(stiffest * wi, std::min(R[0], bound));
  }
  // A sticking contact under a friction load creeps at R_t |gamma_t|:
  // stiffened so that this stays within creep_velocity, down to sigma_min.
  // Sliding contacts (on the cone's boundary) and unloaded ones keep sigma.
  if (settings.creep_velocity > 0 && settings.warm_start_impulses &&
      settings.sigma_min < settings.sigma && c.R == 0 &&
      c.kind == ConvexConstraintKind::kContact) {
    const double gt = std::hypot(gamma0[1], gamma0[2]);
    if (gt > 0 && gt < 0.99 * c.mu * gamma0_n) {
      const double R_t = std::max(settings.sigma_min * wi,
                                  std::min(R[1], settings.creep_velocity / gt));
      R[1] = R[2] = R_t;
    }
  }
  // Anchored friction: a loaded contact's tangential rows (a bounded row
  // with a warm-start impulse) get y = gamma0 - R^-1 vc instead of -R^-1
  // vc, by b -= R gamma0 on those rows. A sticking answer then has vc = R
  // (gamma0 - gamma): no creep once the friction impulse stops changing
  // (ConvexSolverSettings::anchor_sticking). Every such contact, sliding
  // or not: anchoring only the sticking ones (|gamma0_t| < 0.99 mu
  // gamma0_n) made contacts near the cone's edge alternate between
  // sticking and sliding from step to step at rest.
  // A compliance the caller gave (c.R > 0) is physics, not anchored.
  // Without anchoring no row is shifted and `shift` is not read.
  if (!settings.anchor_sticking || !settings.warm_start_impulses) return false;
  for (int i = 0; i < r; ++i) shift[i] = 0;
  if (c.R > 0 || !c.anchor) return false;
  if (c.kind == ConvexConstraintKind::kContact) {
    if (!(gamma0_n > 0) || (gamma0[1] == 0 && gamma0[2] == 0)) return false;
    shift[1] = -R[1] * gamma0[1];
    shift[2] = -R[2] * gamma0[2];
    return true;
  }
  if (c.kind == ConvexConstraintKind::kBounded && gamma0_n != 0) {
    shift[0] = -R[0] * gamma0_n;
    return true;
  }
  return false;
}

void CheckFiniteVectors(const char* who,
                        const Eigen::Ref<const Eigen::VectorXd>& v_star,
                        const Eigen::Ref<const Eigen::VectorXd>& b,
                        const ConvexSolverSettings& settings,
                        const Eigen::Ref<const Eigen::VectorXd>& v,
                        const Eigen::Ref<const Eigen::VectorXd>& gamma) {
  CheckFiniteVector(who, "v_star", v_star);
  CheckFiniteVector(who, "b", b);
  if (settings.warm_start_impulses) {
    CheckFiniteVector(who, "gamma", gamma);
  } else {
    CheckFiniteVector(who, "v", v);
  }
}

int CheckConstraints(const char* who,
                     const std::vector<ConvexConstraint>& constraints) {
  int rows = 0;
  for (size_t k = 0; k < constraints.size(); ++k) {
    const ConvexConstraint& c = constraints[k];
    if (c.kind == ConvexConstraintKind::kContact &&
        !(c.mu >= 0 && std::isfinite(c.mu))) {
      throw std::invalid_argument(
          fmt::format("{}: constraint {}: friction coefficient {} is not >= 0",
                      who, k, c.mu));
    }
    if (c.kind == ConvexConstraintKind::kBounded &&
        !(c.bound >= 0 && std::isfinite(c.bound))) {
      throw std::invalid_argument(fmt::format(
          "{}: constraint {}: bound {} of a bounded row is not finite and >= 0",
          who, k, c.bound));
    }
    if (!(c.R >= 0 && std::isfinite(c.R))) {
      throw std::invalid_argument(fmt::format(
          "{}: constraint {}: regularization (compliance) {} is not >= 0", who,
          k, c.R));
    }
    rows += NumRows(c.kind);
  }
  return rows;
}

double ExactLineSearch(const std::vector<ConvexConstraint>& constraints,
                       const double* R, int m, const double* vc,
                       const double* Jdv, double eAe, double eAdv, double dvAdv,
                       double d0, double cost,
                       const ConvexSolverSettings& settings, double* vct,
                       double* trial, double* G, double* trial_alpha,
                       double* trial_cost, int* trials) {
  using Vec = Eigen::Map<Eigen::VectorXd>;
  using ConstVec = Eigen::Map<const Eigen::VectorXd>;
  const ConstVec vc_m(vc, m), Jdv_m(Jdv, m);
  Vec vct_m(vct, m), trial_m(trial, m);
  auto dphi = [&](double alpha, double* d2) {
    vct_m = vc_m + alpha * Jdv_m;
    *trial_cost = ConstraintImpulses(constraints, R, vct, trial, G);
    *trial_alpha = alpha;
    double d = eAdv + alpha * dvAdv - Jdv_m.dot(trial_m);
    double q = dvAdv;
    int rw = 0, go = 0;
    for (const ConvexConstraint& c : constraints) {
      if (c.kind == ConvexConstraintKind::kContact) {
        for (int a = 0; a < 3; ++a) {
          for (int bb = 0; bb < 3; ++bb) {
            q += Jdv[rw + a] * G[go + 3 * a + bb] * Jdv[rw + bb];
          }
        }
        rw += 3;
        go += 9;
      } else {
        q += G[go] * Jdv[rw] * Jdv[rw];
        rw += 1;
        go += 1;
      }
    }
    *d2 = q;
    return d;
  };
  // The full Newton step first (most iterations take it: the quadratic
  // phase), then alpha_max only if phi still decreases at 1, then
  // safeguarded Newton-Raphson on phi' in the bracket. Trying alpha_max
  // first (Castro et al.'s order) cost every iteration a second trial.
  auto acceptable = [&](double a, double d) {
    // The slope is small (settings.line_search_tolerance of the first);
    // past the minimizer (d > 0) only if ell decreased (phi(a) from the
    // products above).
    return std::abs(d) <= settings.line_search_tolerance * std::abs(d0) &&
           (d <= 0 ||
            0.5 * eAe + a * eAdv + 0.5 * a * a * dvAdv + *trial_cost < cost);
  };
  double d2 = 0;
  double lo = 0, hi = settings.alpha_max;
  double alpha = std::min(1.0, hi);
  double d = dphi(alpha, &d2);
  int ls = 0;
  if (!acceptable(alpha, d)) {
    bool at_max = false;  // alpha_max taken: ell still decreases there
    if (d < 0) {
      lo = alpha;
      if (alpha < hi) {
        const double d_at_1 = d, d2_at_1 = d2;
        ++ls;
        const double dhi = dphi(hi, &d2);
        at_max = dhi <= 0;
        if (at_max) {
          alpha = hi;
        } else {
          d = d_at_1, d2 = d2_at_1;  // Newton-Raphson from alpha = 1
        }
      } else {
        at_max = true;  // alpha_max <= 1
      }
    } else {
      hi = alpha;
    }
    while (!at_max && ls < settings.max_line_search_iterations) {
      double next = d2 > 0 ? alpha - d / d2 : -1;
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      if (hi - lo <= 1e-14 * hi) break;
      alpha = next;
      ++ls;
      d = dphi(alpha, &d2);
      if (acceptable(alpha, d)) break;
      if (d < 0) {
        lo = alpha;
      } else {
        hi = alpha;
      }
    }
  }
  *trials += ls + 1;
  return alpha;
}

}  // namespace internal

namespace {

constexpr Eigen::Index kBlockedCholeskyRows = 96;

// In-place Cholesky H = L L^T of the lower triangle (the upper one is not
// read), left-looking by columns: for the small dense islands of a robot
// (tens of dofs) it beats Eigen's blocked LLT, whose panel updates cost
// more than they save below about a hundred rows (above
// kBlockedCholeskyRows, Eigen's is used). False if H is not
// positive definite (to round-off).
bool CholeskyInPlace(Eigen::Ref<Eigen::MatrixXd> H) {
  const Eigen::Index n = H.rows();
  if (n > kBlockedCholeskyRows) {
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(H);
    return llt.info() == Eigen::Success;
  }
  double* a = H.data();
  const Eigen::Index ld = H.outerStride();
  for (Eigen::Index j = 0; j < n; ++j) {
    double* cj = a + j * ld;  // column j
    for (Eigen::Index k = 0; k < j; ++k) {
      const double ljk = a[j + k * ld];
      if (ljk == 0) continue;
      const double* ck = a + k * ld;
      for (Eigen::Index i = j; i < n; ++i) cj[i] -= ljk * ck[i];
    }
    const double d = cj[j];
    if (!(d > 0) || !std::isfinite(d)) return false;
    const double l = std::sqrt(d), inv = 1 / l;
    cj[j] = l;
    for (Eigen::Index i = j + 1; i < n; ++i) cj[i] *= inv;
  }
  return true;
}

}  // namespace

struct ConvexSolver {
  const Eigen::Ref<const Eigen::MatrixXd>& A;
  const Eigen::Ref<const Eigen::VectorXd>& v_star;
  // Dense J (m x n) or null: then J is given packed (cols, col_begin, Jc
  // below point into the caller's arrays).
  const Eigen::Ref<const Eigen::MatrixXd>* J;
  const Eigen::Ref<const Eigen::VectorXd>& b;
  const std::vector<ConvexConstraint>& constraints;
  const ConvexSolverSettings& settings;
  ConvexSolverWorkspace& w;
  int n, m;
  // J packed per constraint (ConvexPackedRows): the workspace's copy of a
  // dense J, or the caller's arrays.
  const int* cols_{nullptr};
  const int* col_begin_{nullptr};
  const double* Jc_{nullptr};
  // The caller's factor of A (SolveConvexContact's a_factor), or null.
  const PackedTreeFactor* a_factor_{nullptr};
  // SolveConvexContactOnTree: the caller vouches that a_factor_ is A's
  // factor with A's nonzeros on its paths (its tree is adopted without
  // the scan of A, and without the trace check), and a_rows_ holds A's
  // entries on those paths in its layout (not packed again).
  bool trusted_factor_{false};
  const double* a_rows_{nullptr};

  // out = J x, from the packed rows.
  template <typename In, typename Out>
  void MulJ(const In& x, Out& out) const {
    int row = 0;
    for (size_t k = 0; k < constraints.size(); ++k) {
      const int rr = NumRows(constraints[k].kind);
      const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
      const int* cols = cols_ + c0;
      const double* Jk = Jc_ + 3 * c0;
      if (rr == 3) {  // a contact: its three rows in one pass over x
        double a0 = 0, a1 = 0, a2 = 0;
        for (int p = 0; p < nk; ++p) {
          const double xp = x[cols[p]];
          a0 += Jk[p] * xp;
          a1 += Jk[nk + p] * xp;
          a2 += Jk[2 * nk + p] * xp;
        }
        out[row] = a0, out[row + 1] = a1, out[row + 2] = a2;
        row += 3;
        continue;
      }
      for (int i = 0; i < rr; ++i) {
        double acc = 0;
        for (int p = 0; p < nk; ++p) acc += Jk[i * nk + p] * x[cols[p]];
        out[row + i] = acc;
      }
      row += rr;
    }
  }

  // out = J^T y, from the packed rows.
  template <typename In, typename Out>
  void MulJT(const In& y, Out& out) const {
    out.setZero();
    int row = 0;
    for (size_t k = 0; k < constraints.size(); ++k) {
      const int rr = NumRows(constraints[k].kind);
      const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
      const int* cols = cols_ + c0;
      const double* Jk = Jc_ + 3 * c0;
      if (rr == 3) {  // a contact: its three rows in one pass over out
        const double y0 = y[row], y1 = y[row + 1], y2 = y[row + 2];
        row += 3;
        if (y0 == 0 && y1 == 0 && y2 == 0) continue;
        for (int p = 0; p < nk; ++p) {
          double o = out[cols[p]];
          o += Jk[p] * y0;
          o += Jk[nk + p] * y1;
          o += Jk[2 * nk + p] * y2;
          out[cols[p]] = o;
        }
        continue;
      }
      for (int i = 0; i < rr; ++i) {
        const double yi = y[row + i];
        if (yi == 0) continue;
        for (int p = 0; p < nk; ++p) out[cols[p]] += Jk[i * nk + p] * yi;
      }
      row += rr;
    }
  }

  // H += J^T G J, lower triangle only (the Cholesky reads no more).
  void AddConstraintHessian(Eigen::Ref<Eigen::MatrixXd> H) {
    int row = 0, gofs = 0;
    for (size_t k = 0; k < constraints.size(); ++k) {
      const int rr = NumRows(constraints[k].kind);
      const double* G = w.G_.data() + gofs;
      const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
      const int* cols = cols_ + c0;
      const double* Jk = Jc_ + 3 * c0;
      row += rr;
      gofs += rr * rr;
      bool active = false;
      for (int i = 0; i < rr * rr; ++i) active |= G[i] != 0;
      if (!active || nk == 0) continue;
      if (rr == 1) {
        for (int q = 0; q < nk; ++q) {
          const double gq = G[0] * Jk[q];
          if (gq == 0) continue;
          double* Hq = &H(0, cols[q]);
          for (int p = q; p < nk; ++p) Hq[cols[p]] += Jk[p] * gq;
        }
        continue;
      }
      for (int q = 0; q < nk; ++q) {
        const double j0 = Jk[q], j1 = Jk[nk + q], j2 = Jk[2 * nk + q];
        // (G J)(:, q), G symmetric.
        const double a0 = G[0] * j0 + G[1] * j1 + G[2] * j2;
        const double a1 = G[3] * j0 + G[4] * j1 + G[5] * j2;
        const double a2 = G[6] * j0 + G[7] * j1 + G[8] * j2;
        double* Hq = &H(0, cols[q]);
        for (int p = q; p < nk; ++p) {
          Hq[cols[p]] += Jk[p] * a0 + Jk[nk + p] * a1 + Jk[2 * nk + p] * a2;
        }
      }
    }
  }

  // Tree structure (Featherstone, "Rigid Body Dynamics Algorithms", 2008,
  // sec. 6.3, the LTL factorization): A + J^T G J has, for every G, the
  // pattern of A plus each constraint's columns pairwise. Its factorization
  // L^T L (L lower triangular, eliminating the last dof first) has its
  // nonzeros in row k on the path k -> parent(k) -> ... of the elimination
  // tree of that pattern (parent(k) < k). For a kinematic tree's dofs in
  // the order parents first, with contacts on one branch (or with the
  // world), that is the kinematic tree itself (no fill): the factorization
  // costs the sum of the dofs' squared depths instead of n^3 / 6, and a
  // solve with one constraint's rows the depth of its chain. The tree is
  // derived from the pattern (Liu's algorithm), so the caller passes
  // nothing, and any pattern is factored exactly; when the chains are long
  // (free bodies touching one another) the dense Cholesky is used.
  bool tree_{false};
  // A's own factorization (the Delassus estimates, the impulse warm start)
  // follows the elimination tree of A alone (w.parent_a_) when it is
  // shallow: for free bodies (A block diagonal, 6 x 6 blocks) its chains
  // are at most 6 dofs long even where their contacts make the Hessian's
  // tree a long chain, so the estimates cost a few flops per row instead of
  // an n x m triangular solve.
  bool a_tree_{false};
  // A's tree is the Hessian's (every constraint on one path to a root: a
  // robot's contacts with the world): A is then factored on the packed
  // rows too (w.packed_, its rows kept in w.packed_a_ for the Newton
  // matrices), contiguous along each path.
  bool same_tree_{false};
  // a_factor_ is A's factor along A's tree (w.parent_a_): A is not
  // factored again (UseGivenFactor).
  bool a_given_{false};

  // Whether the caller's factor (a_factor_) follows A's elimination tree
  // (w.parent_a_, with a_tree_): the same rows in the same layout as the
  // solver's own factor of A, whose operations it repeats in the same
  // order. Its trace is checked against A's (the contract: it is A's
  // factor), one contiguous pass over its entries.
  bool UseGivenFactor() {
    if (a_factor_ == nullptr || !a_tree_) return false;
    if (trusted_factor_) return true;  // its tree was adopted as A's
    const PackedTreeFactor& F = *a_factor_;
    const int* pa = w.parent_a_.data();
    for (int k = 0; k < n; ++k) {
      const int pk = F.row_size(k) > 1 ? F.path(k)[1] : -1;
      if (pk != pa[k]) return false;
    }
    // trace(L^T L) = the sum of L's squared entries (contiguous).
    const double* L = F.row(0);
    const int size = static_cast<int>(F.row(n - 1) - L) + F.row_size(n - 1);
    double s0 = 0, s1 = 0, trace = 0;
    int e = 0;
    for (; e + 1 < size; e += 2) s0 += L[e] * L[e], s1 += L[e + 1] * L[e + 1];
    if (e < size) s0 += L[e] * L[e];
    for (int k = 0; k < n; ++k) trace += A(k, k);
    if (!(std::abs(s0 + s1 - trace) <= 1e-10 * std::abs(trace))) {
      throw std::invalid_argument(fmt::format(
          "SolveConvexContact: a_factor is not the factor of A: trace(L^T L) "
          "= {}, trace(A) = {}",
          s0 + s1, trace));
    }
    return true;
  }

  // With the caller's factor (a_factor_): its tree as A's elimination tree
  // (w.parent_a_) if A's nonzeros lie on its paths (checked: each dof's
  // column above the diagonal has its nonzeros at its ancestors only), as
  // they do for a factor of A. Reading A's upper triangle once (contiguous),
  // without Liu's algorithm.
  bool GivenTreeHoldsA() {
    const PackedTreeFactor& F = *a_factor_;
    const double* a = A.data();
    const Eigen::Index lda = A.outerStride();
    // A's column i above the diagonal (= row i left of it, A symmetric) is
    // zero but at i's ancestors: copied, its ancestors' entries cleared,
    // and the rest's bits or-ed without their sign bits (-0 is zero), a
    // loop the compiler vectorizes (counting the nonzeros was 1.5 % of a
    // humanoid's step).
    if (w.row_bits_.size() < static_cast<size_t>(n)) w.row_bits_.resize(n);
    std::uint64_t* bits = w.row_bits_.data();
    constexpr std::uint64_t kNoSign = ~(std::uint64_t{1} << 63);
    for (int i = 1; i < n; ++i) {
      std::memcpy(bits, a + i * lda, sizeof(double) * i);
      const int* path = F.path(i);
      const int len = F.row_size(i);
      for (int e = 1; e < len; ++e) bits[path[e]] = 0;
      std::uint64_t any = 0;
      for (int j = 0; j < i; ++j) any |= bits[j] & kNoSign;
      if (any != 0) return false;
    }
    return AdoptGivenTree();
  }

  // A's elimination tree (w.parent_a_) = the caller's factor's tree
  // (GivenTreeHoldsA's answer once its scan passed; trusted_factor_'s
  // without the scan).
  bool AdoptGivenTree() {
    const PackedTreeFactor& F = *a_factor_;
    w.parent_a_.resize(n);
    for (int k = 0; k < n; ++k) {
      w.parent_a_[k] = F.row_size(k) > 1 ? F.path(k)[1] : -1;
    }
    return true;
  }

  // Liu's algorithm with path compression (eliminating n - 1 first:
  // parent[k] < k) on the lower triangle given by nonzero(i, k), i > k.
  template <typename NonZero>
  void EliminationTree(std::vector<int>& parent, NonZero nonzero) {
    auto& anc = w.mark_;
    parent.assign(n, -1);
    anc.assign(n, -1);
    for (int k = n - 1; k >= 0; --k) {
      for (int i = k + 1; i < n; ++i) {
        if (!nonzero(i, k)) continue;
        int r = i;
        while (anc[r] != -1 && anc[r] != k) {
          const int t = anc[r];
          anc[r] = k;
          r = t;
        }
        if (anc[r] == -1) {
          anc[r] = k;
          parent[r] = k;
        }
      }
    }
  }

  // Sets a_tree_ and w.parent_a_ (A's tree); returns whether the Hessian
  // is factored along its own tree (w.parent_).
  bool DetectTree() {
    a_tree_ = false;
    same_tree_ = false;
    if (n < 8) return false;
    const double* a = A.data();
    const Eigen::Index lda = A.outerStride();
    if (a_factor_ == nullptr ||
        !(trusted_factor_ ? AdoptGivenTree() : GivenTreeHoldsA())) {
      EliminationTree(w.parent_a_,
                      [&](int i, int k) { return a[i + k * lda] != 0; });
    }
    a_tree_ = TreeIsCheap(w.parent_a_);
    if (!settings.tree_factorization) return false;
    // A constraint whose columns all lie on one path to the root of A's
    // tree (a contact of one body with the world, or of two bodies on one
    // branch) adds nonzeros only between a dof and its ancestors, which
    // changes neither the tree nor its fill (each column's structure stays
    // on its path to the root, whose first entry is its parent). So the
    // Hessian's own pattern is needed only when a constraint joins two
    // branches.
    const int* pa = w.parent_a_.data();
    bool on_paths = true;
    for (size_t k = 0; k < constraints.size() && on_paths; ++k) {
      const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
      const int* cols = cols_ + c0;  // ascending
      int p = nk - 1;
      for (int i = nk > 0 ? cols[nk - 1] : -1; i >= 0 && p >= 0; i = pa[i]) {
        if (i == cols[p]) --p;
      }
      on_paths = p < 0;
    }
    if (on_paths) {
      w.parent_ = w.parent_a_;
      same_tree_ = a_tree_;
      return a_tree_;
    }
    // The pattern: A's nonzeros and each constraint's columns pairwise.
    auto& pat = w.pattern_;
    pat.assign(static_cast<size_t>(n) * n, 0);
    for (int j = 0; j < n; ++j) {
      for (int i = j + 1; i < n; ++i) pat[j * n + i] = A(i, j) != 0;
    }
    for (size_t k = 0; k < constraints.size(); ++k) {
      const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
      const int* cols = cols_ + c0;  // ascending
      for (int q = 0; q < nk; ++q) {
        for (int p = q + 1; p < nk; ++p) pat[cols[q] * n + cols[p]] = 1;
      }
    }
    EliminationTree(w.parent_, [&](int i, int k) {
      return pat[static_cast<size_t>(k) * n + i] != 0;
    });
    return TreeIsCheap(w.parent_);
  }

  // The Newton matrix on the Hessian's tree (w.parent_) is kept packed by
  // rows: row k holds L(k, k), L(k, parent(k)), L(k, parent(parent(k))),
  // ... (its depth + 1 entries) at w.packed_[w.row_start_[k]]. The path of
  // an ancestor i of k is the rest of k's path, so the update of i's row
  // by row k in the factorization is one contiguous axpy, and the entry
  // (k, j), j an ancestor of k, is at offset depth(k) - depth(j).
  void PackLayout() {
    const int* parent = w.parent_.data();
    w.depth_.resize(n);
    w.row_start_.resize(n + 1);
    int size = 0;
    for (int k = 0; k < n; ++k) {  // parents first: parent[k] < k
      w.depth_[k] = parent[k] < 0 ? 0 : w.depth_[parent[k]] + 1;
      w.row_start_[k] = size;
      size += w.depth_[k] + 1;
    }
    w.row_start_[n] = size;
    w.row_base_.resize(n);
    w.col_base_.resize(n);
    for (int k = 0; k < n; ++k) w.row_base_[k] = w.row_start_[k] + w.depth_[k];
    if (w.packed_.size() < static_cast<size_t>(size)) w.packed_.resize(size);
  }

  // The packed rows = A's entries on the paths.
  void PackA() {
    const int* parent = w.parent_.data();
    const double* a = A.data();
    const Eigen::Index lda = A.outerStride();
    for (int k = 0; k < n; ++k) {
      double* Lk = w.packed_.data() + w.row_start_[k];
      int d = 0;
      for (int i = k; i >= 0; i = parent[i]) Lk[d++] = a[k + i * lda];
    }
  }

  // AddConstraintHessian on the packed rows: a constraint's columns lie on
  // one path of the Hessian's tree (its pattern is in that tree).
  // With G_old != nullptr, adds J^T (G - G_old) J of the constraints whose
  // G changed instead (G_old then takes G).
  void AddConstraintHessianPacked(double* G_old = nullptr) {
    double* P = w.packed_.data();
    // Row cp's entry for column cq is at base[cp] - depth[cq], base = the
    // row's start + its depth (w.row_base_).
    const int* depth = w.depth_.data();
    const int* base = w.row_base_.data();
    int gofs = 0;
    for (size_t k = 0; k < constraints.size(); ++k) {
      const int rr = NumRows(constraints[k].kind);
      const double* G = w.G_.data() + gofs;
      const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
      const int* cols = cols_ + c0;
      const double* Jk = Jc_ + 3 * c0;
      double delta[9];
      if (G_old != nullptr) {
        double* Go = G_old + gofs;
        bool changed = false;
        for (int i = 0; i < rr * rr; ++i) {
          delta[i] = G[i] - Go[i];
          changed |= delta[i] != 0;
          Go[i] = G[i];
        }
        G = delta;
        if (!changed) {
          gofs += rr * rr;
          continue;
        }
      }
      gofs += rr * rr;
      bool active = false;
      for (int i = 0; i < rr * rr; ++i) active |= G[i] != 0;
      if (!active || nk == 0) continue;
      if (rr == 3 && depth[cols[nk - 1]] == nk - 1) {
        // The columns are the whole path from the root (ascending, on one
        // path, depths 0 .. nk - 1: a body's contact with the world): row
        // cols[p]'s entry for column cols[q] is at base[cols[p]] - q, so
        // each row's update is contiguous. The same sums as below.
        // (G J)(:, q) in three arrays in reverse column order (a0[nk - 1 -
        // q]), so that row cols[p]'s update runs forward over both.
        double* a0 = w.ga_.data();
        double *a1 = a0 + nk, *a2 = a0 + 2 * nk;
        for (int q = 0; q < nk; ++q) {
          const double j0 = Jk[q], j1 = Jk[nk + q], j2 = Jk[2 * nk + q];
          a0[nk - 1 - q] = G[0] * j0 + G[1] * j1 + G[2] * j2;
          a1[nk - 1 - q] = G[3] * j0 + G[4] * j1 + G[5] * j2;
          a2[nk - 1 - q] = G[6] * j0 + G[7] * j1 + G[8] * j2;
        }
        const double *J0 = Jk, *J1 = Jk + nk, *J2 = Jk + 2 * nk;
        for (int p = 0; p < nk; ++p) {
          // Entries (cols[p], cols[q]) for q = p .. 0, at R[0 .. p].
          double* R = P + base[cols[p]] - p;
          const int o = nk - 1 - p;  // a*[o + r]: column q = p - r
          const double j0 = J0[p], j1 = J1[p], j2 = J2[p];
          for (int r = 0; r <= p; ++r) {
            R[r] += j0 * a0[o + r] + j1 * a1[o + r] + j2 * a2[o + r];
          }
        }
        continue;
      }
      int* bc = w.col_base_.data();  // the columns' row bases, once
      for (int p = 0; p < nk; ++p) bc[p] = base[cols[p]];
      for (int q = 0; q < nk; ++q) {
        double* Pq = P - depth[cols[q]];
        double a0, a1 = 0, a2 = 0;
        if (rr == 1) {
          a0 = G[0] * Jk[q];
        } else {
          const double j0 = Jk[q], j1 = Jk[nk + q], j2 = Jk[2 * nk + q];
          a0 = G[0] * j0 + G[1] * j1 + G[2] * j2;
          a1 = G[3] * j0 + G[4] * j1 + G[5] * j2;
          a2 = G[6] * j0 + G[7] * j1 + G[8] * j2;
        }
        if (rr == 1) {
          for (int p = q; p < nk; ++p) Pq[bc[p]] += Jk[p] * a0;
          continue;
        }
        const double *J0 = Jk, *J1 = Jk + nk, *J2 = Jk + 2 * nk;
        for (int p = q; p < nk; ++p) {  // cols[p] >= cols[q], on its path
          Pq[bc[p]] += J0[p] * a0 + J1[p] * a1 + J2[p] * a2;
        }
      }
    }
  }

  // L^T L of the packed rows in place (Factor's tree branch); false if not
  // positive definite.
  bool FactorPacked() {
    return FactorPackedRows(w.packed_.data(), w.row_start_.data(),
                            w.parent_.data(), n) < 0;
  }

  // x <- H^-1 x with the packed factor.
  template <typename Vec>
  void SolvePacked(Vec& x) const {
    SolvePackedRows(w.packed_.data(), w.row_start_.data(), w.parent_.data(), n,
                    x.data());
  }

  // Worth it if the chains are short: the factorization costs about
  // sum depth^2 / 2 against n^3 / 6 dense (whose loops vectorize).
  bool TreeIsCheap(const std::vector<int>& parent) {
    double flops = 0;
    auto& depth = w.mark_;  // parent[k] < k: a parent's depth is known
    depth.resize(n);
    for (int k = 0; k < n; ++k) {
      depth[k] = parent[k] < 0 ? 0 : depth[parent[k]] + 1;
      flops += 0.5 * depth[k] * depth[k];
    }
    return flops < 0.5 * n * n * n / 6.0;
  }

  // H = L L^T (dense, lower) or H = L^T L (tree_); false if H is not
  // positive definite.
  bool Factor(Eigen::Ref<Eigen::MatrixXd> H, const int* parent) {
    if (parent == nullptr) return CholeskyInPlace(H);
    for (int k = n - 1; k >= 0; --k) {
      const double d = H(k, k);
      if (!(d > 0) || !std::isfinite(d)) return false;
      const double l = std::sqrt(d), inv = 1 / l;
      H(k, k) = l;
      for (int i = parent[k]; i >= 0; i = parent[i]) H(k, i) *= inv;
      for (int i = parent[k]; i >= 0; i = parent[i]) {
        const double lki = H(k, i);
        if (lki == 0) continue;
        for (int j = i; j >= 0; j = parent[j]) H(i, j) -= lki * H(k, j);
      }
    }
    return true;
  }

  // x <- H^-1 x with H factored by Factor.
  template <typename Vec>
  void SolveFactored(const Eigen::Ref<Eigen::MatrixXd>& L, const int* parent,
                     Vec& x) const {
    if (parent == nullptr) {
      L.triangularView<Eigen::Lower>().solveInPlace(x);
      L.triangularView<Eigen::Lower>().adjoint().solveInPlace(x);
      return;
    }
    for (int i = n - 1; i >= 0; --i) {  // L^T y = x
      const double yi = x[i] / L(i, i);
      x[i] = yi;
      if (yi == 0) continue;
      for (int j = parent[i]; j >= 0; j = parent[j]) x[j] -= L(i, j) * yi;
    }
    for (int i = 0; i < n; ++i) {  // L x = y
      double xi = x[i];
      for (int j = parent[i]; j >= 0; j = parent[j]) xi -= L(i, j) * x[j];
      x[i] = xi / L(i, i);
    }
  }

  // Sum over constraint k's rows of ||L^-T J_row^T||^2 = J_row A^-1
  // J_row^T, with A = L^T L along the tree `parent`: the solve touches only
  // the paths from the constraint's columns to their roots (one path when
  // the tree is the Hessian's; two bodies' chains on A's own tree).
  // L(i, e, j): the factor's entry of row i at its e-th ancestor j (e >= 1).
  template <typename Entry>
  double TreeDelassus(const Entry& L, const int* parent, size_t k) {
    const int rr = NumRows(constraints[k].kind);
    const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
    if (nk == 0) return 0;
    const int* cols = cols_ + c0;
    const double* Jk = Jc_ + 3 * c0;
    double* x = w.x3_.data();  // 3 n, zero on entry and exit
    // The union of the paths, in decreasing order (the order of L^T y = x).
    auto& nodes = w.nodes_;
    char* seen = w.seen_.data();  // all 0 on entry and exit
    nodes.clear();
    int walks = 0;
    for (int p = nk - 1; p >= 0; --p) {
      if (seen[cols[p]]) continue;
      ++walks;
      for (int i = cols[p]; i >= 0 && !seen[i]; i = parent[i]) {
        seen[i] = 1;
        nodes.push_back(i);
      }
    }
    // One walk (the columns on one path) is in decreasing order already.
    if (walks > 1) std::sort(nodes.begin(), nodes.end(), std::greater<int>());
    // The constraint's rows side by side (x[3 i + r]), so that one walk up
    // the tree serves all of them; 1 / L(i, i) precomputed (w.inv_diag_).
    const double* inv_diag = w.inv_diag_.data();
    for (int r = 0; r < rr; ++r) {
      for (int p = 0; p < nk; ++p) x[3 * cols[p] + r] = Jk[r * nk + p];
    }
    double sum = 0;
    for (int i : nodes) {
      double* xi = x + 3 * i;
      const double d = inv_diag[i];
      const double y0 = xi[0] * d, y1 = xi[1] * d, y2 = xi[2] * d;
      xi[0] = xi[1] = xi[2] = 0;
      sum += y0 * y0 + y1 * y1 + y2 * y2;
      if (y0 == 0 && y1 == 0 && y2 == 0) continue;
      int e = 1;
      for (int j = parent[i]; j >= 0; j = parent[j], ++e) {
        const double lij = L(i, e, j);
        double* xj = x + 3 * j;
        xj[0] -= lij * y0;
        xj[1] -= lij * y1;
        xj[2] -= lij * y2;
      }
    }
    for (int i : nodes) seen[i] = 0;
    return sum;
  }

  // TreeDelassus when A's tree is the Newton matrix's (same_tree_: every
  // constraint's columns lie on one path, and A's factor is in w.packed_):
  // the walk is the path from the deepest column to its root, so the
  // right-hand sides are kept along that path (x[3 q + r] at its q-th
  // node, whose ancestors follow it) and each node's update of its
  // ancestors is one contiguous loop beside its packed row. The same
  // operations in the same order as TreeDelassus (the same sum to the
  // bit), without the marks, the sort and the parent chase.
  double PathDelassus(size_t k) {
    const int rr = NumRows(constraints[k].kind);
    const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
    if (nk == 0) return 0;
    const int* cols = cols_ + c0;
    const double* Jk = Jc_ + 3 * c0;
    const int* parent = w.parent_.data();
    const int* depth = w.depth_.data();
    const double* P = w.packed_.data();
    const int* rs = w.row_start_.data();
    const double* inv_diag = w.inv_diag_.data();
    double* x = w.x3_.data();  // 3 n, zero on entry and exit
    const int t = cols[nk - 1], D = depth[t];
    if (rr == 3 && nk == D + 1) {  // the whole path: cols[p] at depth p
      for (int p = 0; p < nk; ++p) {
        double* xp = x + 3 * (D - p);
        xp[0] = Jk[p], xp[1] = Jk[nk + p], xp[2] = Jk[2 * nk + p];
      }
    } else {
      for (int p = 0; p < nk; ++p) {
        double* xp = x + 3 * (D - depth[cols[p]]);
        for (int r = 0; r < rr; ++r) xp[r] = Jk[r * nk + p];
      }
    }
    double sum = 0;
    int i = t;
    for (int q = 0; q <= D; ++q, i = parent[i]) {
      double* xi = x + 3 * q;
      const double d = inv_diag[i];
      const double y0 = xi[0] * d, y1 = xi[1] * d, y2 = xi[2] * d;
      xi[0] = xi[1] = xi[2] = 0;
      sum += y0 * y0 + y1 * y1 + y2 * y2;
      if (y0 == 0 && y1 == 0 && y2 == 0) continue;
      const double* Li = P + rs[i];  // Li[e]: its e-th ancestor's entry
      double* xj = xi + 3;
      for (int e = 1; e <= D - q; ++e, xj += 3) {
        const double lij = Li[e];
        xj[0] -= lij * y0;
        xj[1] -= lij * y1;
        xj[2] -= lij * y2;
      }
    }
    return sum;
  }

  // Packs a dense J into the workspace: the columns where each
  // constraint's rows are not zero (a contact moves one or two bodies'
  // dofs) and its rows on them.
  void PackDense(const Eigen::Ref<const Eigen::MatrixXd>& Jd) {
    const size_t nc = constraints.size();
    if (w.col_begin_.size() < nc + 1) w.col_begin_.resize(nc + 1);
    int row = 0, used = 0;
    for (size_t k = 0; k < nc; ++k) {
      const int rr = NumRows(constraints[k].kind);
      w.col_begin_[k] = used;
      for (int j = 0; j < n; ++j) {
        bool nonzero = false;
        for (int i = 0; i < rr; ++i) nonzero |= Jd(row + i, j) != 0;
        if (!nonzero) continue;
        if (static_cast<int>(w.cols_.size()) <= used) {
          w.cols_.resize(2 * used + 16);
        }
        w.cols_[used++] = j;
      }
      row += rr;
    }
    w.col_begin_[nc] = used;
    // Jc_: constraint k's rows on its columns, row major, at 3 * begin.
    if (static_cast<int>(w.Jc_.size()) < 3 * used) w.Jc_.resize(3 * used);
    row = 0;
    for (size_t k = 0; k < nc; ++k) {
      const int rr = NumRows(constraints[k].kind);
      const int c0 = w.col_begin_[k], nk = w.col_begin_[k + 1] - c0;
      double* Jk = w.Jc_.data() + 3 * c0;
      for (int i = 0; i < rr; ++i) {
        for (int p = 0; p < nk; ++p)
          Jk[i * nk + p] = Jd(row + i, w.cols_[c0 + p]);
      }
      row += rr;
    }
    cols_ = w.cols_.data();
    col_begin_ = w.col_begin_.data();
    Jc_ = w.Jc_.data();
  }

  ConvexSolverResult Solve(Eigen::Ref<Eigen::VectorXd> v,
                           Eigen::Ref<Eigen::VectorXd> gamma_io) {
    ConvexSolverResult result;
    if (J != nullptr) PackDense(*J);
    // Cholesky of A, the Delassus estimate and the regularization.
    tree_ = DetectTree();
    result.tree = tree_;
    if (tree_) PackLayout();
    const int* tree_a = a_tree_ ? w.parent_a_.data() : nullptr;
    const int* tree_h = tree_ ? w.parent_.data() : nullptr;
    auto H = w.H_.topLeftCorner(n, n);
    bool pd = true;
    a_given_ = UseGivenFactor();
    if (same_tree_) {
      const int size = w.row_start_[n];
      if (a_rows_ != nullptr) {  // the caller's, in the same layout
        w.packed_a_.assign(a_rows_, a_rows_ + size);
        if (!a_given_) std::copy(a_rows_, a_rows_ + size, w.packed_.begin());
      } else {
        PackA();
        w.packed_a_.assign(w.packed_.begin(), w.packed_.begin() + size);
      }
      if (a_given_) {  // the same layout: rows along the same paths
        const double* L = a_factor_->row(0);
        std::copy(L, L + size, w.packed_.begin());
      } else {
        pd = FactorPacked();
      }
    } else if (a_given_) {
      // A's factor is the caller's: the Delassus walks and SolveA read it.
    } else {
      H = A;
      pd = Factor(H, tree_a);
    }
    if (!pd) {
      throw std::invalid_argument(
          "SolveConvexContact: A is not positive definite (a singular mass "
          "matrix: a body without mass or inertia)");
    }
    auto X = w.X_.topLeftCorner(n, m);
    if (m > 0 && !a_tree_) {
      X.setZero();  // J^T from the packed rows
      int row = 0;
      for (size_t k = 0; k < constraints.size(); ++k) {
        const int rr = NumRows(constraints[k].kind);
        const int c0 = col_begin_[k], nk = col_begin_[k + 1] - c0;
        for (int i = 0; i < rr; ++i) {
          for (int p = 0; p < nk; ++p) {
            X(cols_[c0 + p], row + i) = Jc_[3 * c0 + i * nk + p];
          }
        }
        row += rr;
      }
      H.triangularView<Eigen::Lower>().solveInPlace(X);
    }
    if (a_tree_) {  // TreeDelassus' scratch
      w.x3_.assign(3 * n, 0.0);
      w.seen_.assign(n, 0);
      w.inv_diag_.resize(n);
      for (int i = 0; i < n; ++i) {
        w.inv_diag_[i] = 1 / (same_tree_ ? w.packed_[w.row_start_[i]]
                              : a_given_ ? a_factor_->row(i)[0]
                                         : H(i, i));
      }
    }
    bool shifted = false;
    {
      int row = 0;
      for (size_t k = 0; k < constraints.size(); ++k) {
        const int r = NumRows(constraints[k].kind);
        double wi = 0;
        if (same_tree_) {
          wi = PathDelassus(k);
        } else if (a_given_) {
          const PackedTreeFactor& F = *a_factor_;
          wi = TreeDelassus([&F](int i, int e, int) { return F.row(i)[e]; },
                            tree_a, k);
        } else if (a_tree_) {
          wi = TreeDelassus([&H](int i, int, int j) { return H(i, j); }, tree_a,
                            k);
        } else {
          for (int i = 0; i < r; ++i) wi += X.col(row + i).squaredNorm();
        }
        shifted |= internal::Regularize(constraints[k], wi / r, &gamma_io[row],
                                        settings, w.R_.data() + row,
                                        w.shift_.data() + row);
        row += r;
      }
    }
    auto D = w.dscale_.head(n);
    for (int i = 0; i < n; ++i) D[i] = 1 / std::sqrt(A(i, i));
    tree_a_ = tree_a;
    tree_h_ = tree_h;
    internal::NewtonIterate(
        *this, constraints, settings, w.R_.data(), w.G_.data(), v_star,
        internal::AnchoredBias(b, w.shift_, shifted, &w.b_anchored_), D,
        {w.gamma_.head(m), w.vc_.head(m), w.y_.head(m), w.gamma_trial_.head(m),
         w.Jdv_.head(m), w.e_.head(n), w.Ae_.head(n), w.g_.head(n),
         w.dv_.head(n), w.Adv_.head(n), w.tmp_.head(n)},
        v, gamma_io, &result);
    return result;
  }

  // NewtonIterate's products (convex_contact_internal.h).
  const int* tree_a_{nullptr};  // A's factor (in w.H_) along its tree, or
  const int* tree_h_{nullptr};  // dense; the Newton matrix's likewise
  bool have_h_{false};  // w.packed_h_ and w.G_h_ hold the last iteration's
  int gsize_{-1};       // entries of G (9 per contact, 1 per other row)
  template <typename In, typename Out>
  void MulA(const In& x, Out& out) const {
    out.noalias() = A * x;
  }
  // x <- A^-1 x: A's factor is in w.H_ until the first Newton direction.
  template <typename Vec>
  void SolveA(Vec& x) const {
    if (same_tree_) {
      SolvePacked(x);  // A's factor is in w.packed_ likewise
      return;
    }
    if (a_given_) {
      a_factor_->Solve(x.data());
      return;
    }
    SolveFactored(w.H_.topLeftCorner(n, n), tree_a_, x);
  }
  // The lower triangle of J^T G J is added constraint by constraint on its
  // columns, skipping constraints with G = 0 (separating contacts,
  // inactive limits).
  // On the packed tree the Newton matrix of the last iteration is kept
  // unfactored (w.packed_h_, formed with w.G_h_): an iteration adds J^T
  // (G - G_old) J of the constraints whose G changed, the sliding contacts
  // and those whose state changed (a sticking contact's G is diag(R)^-1, a
  // separated one's 0, from one iteration to the next), about half the
  // constraints of a robot on the ground.
  template <typename Vec>
  bool NewtonDirection(Vec& dv) {
    if (tree_h_ != nullptr) {
      const size_t size = w.row_start_[n];
      if (gsize_ < 0) {
        gsize_ = 0;
        for (const ConvexConstraint& c : constraints) {
          gsize_ += NumRows(c.kind) * NumRows(c.kind);
        }
      }
      const size_t gsize = static_cast<size_t>(gsize_);
      if (have_h_) {
        std::copy_n(w.packed_h_.data(), size, w.packed_.data());
        AddConstraintHessianPacked(w.G_h_.data());
      } else {
        if (same_tree_) {  // A's rows, packed once by Solve
          std::copy(w.packed_a_.begin(), w.packed_a_.end(), w.packed_.begin());
        } else {
          PackA();
        }
        AddConstraintHessianPacked();
        if (w.G_h_.size() < gsize) w.G_h_.resize(gsize);
        std::copy_n(w.G_.data(), gsize, w.G_h_.data());
        have_h_ = true;
      }
      if (w.packed_h_.size() < size) w.packed_h_.resize(size);
      std::copy_n(w.packed_.data(), size, w.packed_h_.data());
      if (!FactorPacked()) return false;
      SolvePacked(dv);
      return true;
    }
    auto H = w.H_.topLeftCorner(n, n);
    H = A;
    AddConstraintHessian(H);
    if (!Factor(H, nullptr)) return false;
    SolveFactored(H, nullptr, dv);
    return true;
  }
};

namespace {

const char* const kWho = "SolveConvexContact";

// The checks both entry points share: the constraints, the sizes but J's,
// finiteness but J's.
void CheckCommon(const Eigen::Ref<const Eigen::MatrixXd>& A,
                 const Eigen::Ref<const Eigen::VectorXd>& v_star, int m,
                 const Eigen::Ref<const Eigen::VectorXd>& b,
                 const std::vector<ConvexConstraint>& constraints,
                 const ConvexSolverSettings& settings,
                 const ConvexSolverWorkspace* workspace,
                 const Eigen::Ref<const Eigen::VectorXd>& v,
                 const Eigen::Ref<const Eigen::VectorXd>& gamma,
                 Eigen::Index J_rows, Eigen::Index J_cols) {
  const char* who = kWho;
  if (workspace == nullptr) {
    throw std::invalid_argument("SolveConvexContact: workspace is null");
  }
  const Eigen::Index n = A.rows();
  const int rows = internal::CheckConstraints(who, constraints);
  if (A.cols() != n || v_star.size() != n || v.size() != n || b.size() != m ||
      gamma.size() != m || rows != m || (J_cols >= 0 && m > 0 && J_cols != n)) {
    throw std::invalid_argument(fmt::format(
        "{}: sizes disagree: A {}x{}, v_star {}, v {}, J {}, b {}, gamma "
        "{}, constraints' rows {}",
        who, A.rows(), A.cols(), v_star.size(), v.size(),
        J_cols >= 0 ? fmt::format("{}x{}", J_rows, J_cols)
                    : fmt::format("packed, {} constraints", J_rows),
        b.size(), gamma.size(), rows));
  }
  internal::CheckFiniteMatrix(who, "A", A);
  internal::CheckFiniteVectors(who, v_star, b, settings, v, gamma);
}

}  // namespace

ConvexSolverResult SolveConvexContact(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star,
    const Eigen::Ref<const Eigen::MatrixXd>& J,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, ConvexSolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma) {
  const int n = static_cast<int>(A.rows());
  const int m = static_cast<int>(J.rows());
  CheckCommon(A, v_star, m, b, constraints, settings, workspace, v, gamma,
              J.rows(), J.cols());
  if (m > 0) internal::CheckFiniteMatrix(kWho, "J", J);
  workspace->Reserve(n, m);
  ConvexSolver solver{A,        v_star,     &J, b, constraints,
                      settings, *workspace, n,  m};
  return solver.Solve(v, gamma);
}

namespace {

// The packed J's checks: its structure (col_begin's size and order,
// columns ascending and in [0, n)) if `structure`, and its values'
// finiteness, naming the constraint.
void CheckPackedJ(const ConvexPackedRows& J,
                  const std::vector<ConvexConstraint>& constraints, int n,
                  bool structure) {
  const size_t nc = constraints.size();
  if (structure &&
      (J.col_begin.size() != nc + 1 || J.col_begin[0] != 0 ||
       static_cast<size_t>(J.col_begin[nc]) > J.cols.size() ||
       3 * static_cast<size_t>(J.col_begin[nc]) > J.values.size())) {
    throw std::invalid_argument(fmt::format(
        "{}: packed J: col_begin has {} entries for {} constraints, cols {}, "
        "values {}",
        kWho, J.col_begin.size(), nc, J.cols.size(), J.values.size()));
  }
  for (size_t k = 0; k < nc; ++k) {
    const int c0 = J.col_begin[k], c1 = J.col_begin[k + 1];
    if (structure && c1 < c0) {
      throw std::invalid_argument(fmt::format(
          "{}: packed J: constraint {}: col_begin decreases", kWho, k));
    }
    const int rr = NumRows(constraints[k].kind);
    // Ascending, so in range if the first and the last are; finite where
    // x * 0 sums to 0 (branch-free; the culprit is looked for on failure).
    const int* cols = J.cols.data() + c0;
    const int nk = c1 - c0;
    bool ok = true;
    if (structure) {
      ok = nk == 0 || (cols[0] >= 0 && cols[nk - 1] < n);
      for (int p = 1; p < nk; ++p) ok &= cols[p] > cols[p - 1];
    }
    const double* vals = J.values.data() + 3 * c0;
    const int count = rr * nk;
    double z0 = 0, z1 = 0;
    int i = 0;
    for (; i + 1 < count; i += 2) z0 += vals[i] * 0.0, z1 += vals[i + 1] * 0.0;
    if (i < count) z0 += vals[i] * 0.0;
    if (ok && z0 + z1 == 0) continue;
    for (int p = 0; structure && p < nk; ++p) {
      if (cols[p] < 0 || cols[p] >= n || (p > 0 && cols[p] <= cols[p - 1])) {
        throw std::invalid_argument(fmt::format(
            "{}: packed J: constraint {}: column {} out of range [0, {}) or "
            "not ascending",
            kWho, k, cols[p], n));
      }
    }
    for (int e = 0; e < count; ++e) {
      if (!std::isfinite(vals[e])) {
        throw std::invalid_argument(
            fmt::format("{}: J: constraint {} has a non-finite entry {}", kWho,
                        k, vals[e]));
      }
    }
  }
}

ConvexSolver PackedSolver(const Eigen::Ref<const Eigen::MatrixXd>& A,
                          const Eigen::Ref<const Eigen::VectorXd>& v_star,
                          const ConvexPackedRows& J,
                          const Eigen::Ref<const Eigen::VectorXd>& b,
                          const std::vector<ConvexConstraint>& constraints,
                          const ConvexSolverSettings& settings,
                          ConvexSolverWorkspace* workspace) {
  const int n = static_cast<int>(A.rows());
  const int m = static_cast<int>(b.size());
  workspace->Reserve(n, m);
  ConvexSolver solver{A,        v_star,     nullptr, b, constraints,
                      settings, *workspace, n,       m};
  solver.cols_ = J.cols.data();
  solver.col_begin_ = J.col_begin.data();
  solver.Jc_ = J.values.data();
  return solver;
}

}  // namespace

ConvexSolverResult SolveConvexContact(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const ConvexPackedRows& J,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, ConvexSolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma,
    const PackedTreeFactor* a_factor) {
  const int n = static_cast<int>(A.rows());
  const int m = static_cast<int>(b.size());
  CheckCommon(A, v_star, m, b, constraints, settings, workspace, v, gamma,
              static_cast<Eigen::Index>(J.col_begin.size()) - 1, -1);
  CheckPackedJ(J, constraints, n, /*structure=*/true);
  if (a_factor != nullptr && a_factor->size() != n) {
    throw std::invalid_argument(fmt::format("{}: a_factor has {} dofs, A {}",
                                            kWho, a_factor->size(), n));
  }
  ConvexSolver solver =
      PackedSolver(A, v_star, J, b, constraints, settings, workspace);
  solver.a_factor_ = a_factor;
  return solver.Solve(v, gamma);
}

namespace internal {

ConvexSolverResult SolveConvexContactOnTree(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star, const ConvexPackedRows& J,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, ConvexSolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma,
    const PackedTreeFactor& a_factor, const double* a_rows) {
  const int n = static_cast<int>(A.rows());
  assert(workspace != nullptr && A.cols() == n && v_star.size() == n &&
         v.size() == n && gamma.size() == b.size() && a_factor.size() == n &&
         a_rows != nullptr && J.col_begin.size() == constraints.size() + 1);
  // The data's checks, as SolveConvexContact's (CheckCommon but the sizes
  // and A).
  const int rows = CheckConstraints(kWho, constraints);
  assert(rows == b.size());
  (void)rows;
  CheckFiniteVectors(kWho, v_star, b, settings, v, gamma);
  CheckPackedJ(J, constraints, n, /*structure=*/false);
  ConvexSolver solver =
      PackedSolver(A, v_star, J, b, constraints, settings, workspace);
  solver.a_factor_ = &a_factor;
  solver.trusted_factor_ = true;
  solver.a_rows_ = a_rows;
  return solver.Solve(v, gamma);
}

}  // namespace internal

}  // namespace tern::solvers
