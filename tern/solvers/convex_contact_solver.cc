#include "tern/solvers/convex_contact_solver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

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
  }
  if (n > X_.rows() || m > X_.cols())
    X_.resize(std::max<int>(n, X_.rows()), std::max<int>(m, X_.cols()));
  if (m > m_) {
    m_ = m;
    vc_.resize(m);
    y_.resize(m);
    gamma_.resize(m);
    R_.resize(m);
    G_.resize(3 * m);  // 3x3 per contact (9 per 3 rows), 1 per other row
    Jdv_.resize(m);
    gamma_trial_.resize(m);
  }
  if (m > GJ_.rows() || n > GJ_.cols()) {
    GJ_.resize(std::max<int>(m, GJ_.rows()), std::max<int>(n, GJ_.cols()));
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
  const double yn = y[0], yr = std::hypot(y[1], y[2]);
  if (yr <= mu * yn) {  // stiction: inside the cone
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

struct ConvexSolver {
  const Eigen::Ref<const Eigen::MatrixXd>& A;
  const Eigen::Ref<const Eigen::VectorXd>& v_star;
  const Eigen::Ref<const Eigen::MatrixXd>& J;
  const Eigen::Ref<const Eigen::VectorXd>& b;
  const std::vector<ConvexConstraint>& constraints;
  const ConvexSolverSettings& settings;
  ConvexSolverWorkspace& w;
  int n, m;

  // gamma (and G if want_G) at constraint velocities vc; returns sum l_i.
  double Impulses(const double* vc, double* gamma, bool want_G) {
    double cost = 0;
    int row = 0, gofs = 0;
    double y[3];
    for (const ConvexConstraint& c : constraints) {
      const double* R = w.R_.data() + row;
      if (c.kind == ConvexConstraintKind::kContact) {
        for (int i = 0; i < 3; ++i) y[i] = -vc[row + i] / R[i];
        cost += ProjectContact(y, c.mu, R[0], R[1], gamma + row,
                               want_G ? w.G_.data() + gofs : nullptr);
        row += 3;
        gofs += 9;
        continue;
      }
      const double yi = -vc[row] / R[0];
      double gi = yi, Gi = 1 / R[0];
      if (c.kind == ConvexConstraintKind::kUnilateral && yi <= 0) {
        gi = 0, Gi = 0;
      }
      gamma[row] = gi;
      if (want_G) w.G_[gofs] = Gi;
      cost += 0.5 * R[0] * gi * gi;
      row += 1;
      gofs += 1;
    }
    return cost;
  }

  ConvexSolverResult Solve(Eigen::Ref<Eigen::VectorXd> v,
                           Eigen::Ref<Eigen::VectorXd> gamma_io) {
    ConvexSolverResult result;
    // Cholesky of A, the Delassus estimate and the regularization.
    auto H = w.H_.topLeftCorner(n, n);
    H = A;
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(H);
    if (llt.info() != Eigen::Success) {
      throw std::invalid_argument(
          "SolveConvexContact: A is not positive definite (a singular mass "
          "matrix: a body without mass or inertia)");
    }
    auto X = w.X_.topLeftCorner(n, m);
    if (m > 0) {
      X = J.transpose();
      H.triangularView<Eigen::Lower>().solveInPlace(X);
    }
    {
      constexpr double kFourPi2 = 4 * std::numbers::pi * std::numbers::pi;
      const double near_rigid = settings.beta * settings.beta / kFourPi2;
      int row = 0;
      for (size_t k = 0; k < constraints.size(); ++k) {
        const ConvexConstraint& c = constraints[k];
        const int r = NumRows(c.kind);
        double wi = 0;
        for (int i = 0; i < r; ++i) wi += X.col(row + i).squaredNorm();
        wi /= r;
        if (!(wi > 0) || !std::isfinite(wi)) {
          wi = 1;  // a row that moves nothing: any R keeps ell convex
        }
        for (int i = 0; i < r; ++i) {
          w.R_[row + i] =
              c.R > 0 ? c.R : (i == 0 ? near_rigid * wi : settings.sigma * wi);
        }
        row += r;
      }
    }
    // Column runs of each constraint: maximal ranges of columns where one of
    // its rows is not zero; more than kMaxRuns become one range.
    {
      constexpr int kMaxRuns = 4;
      const size_t nc = constraints.size();
      if (w.run_begin_.size() < nc + 1) w.run_begin_.resize(nc + 1);
      if (w.runs_.size() < 2 * kMaxRuns * nc) w.runs_.resize(2 * kMaxRuns * nc);
      int row = 0, used = 0;
      for (size_t k = 0; k < nc; ++k) {
        const int rr = NumRows(constraints[k].kind);
        w.run_begin_[k] = used;
        int count = 0, first = -1, last = -1;
        int j = 0;
        while (j < n) {
          auto nonzero = [&](int col) {
            for (int i = 0; i < rr; ++i) {
              if (J(row + i, col) != 0) return true;
            }
            return false;
          };
          if (!nonzero(j)) {
            ++j;
            continue;
          }
          const int start = j;
          while (j < n && nonzero(j)) ++j;
          if (first < 0) first = start;
          last = j;
          if (count < kMaxRuns) {
            w.runs_[2 * (used + count)] = start;
            w.runs_[2 * (used + count) + 1] = j - start;
          }
          ++count;
        }
        if (count > kMaxRuns) {
          w.runs_[2 * used] = first;
          w.runs_[2 * used + 1] = last - first;
          count = 1;
        }
        used += count;
        row += rr;
      }
      w.run_begin_[nc] = used;
    }
    auto gamma = w.gamma_.head(m);
    auto vc = w.vc_.head(m);
    auto e = w.e_.head(n);
    auto Ae = w.Ae_.head(n);
    auto g = w.g_.head(n);
    auto dv = w.dv_.head(n);
    auto Adv = w.Adv_.head(n);
    auto Jdv = w.Jdv_.head(m);
    auto D = w.dscale_.head(n);
    for (int i = 0; i < n; ++i) D[i] = 1 / std::sqrt(A(i, i));
    // Start.
    if (settings.warm_start_impulses && m > 0) {
      auto t = w.tmp_.head(n);
      t.noalias() = J.transpose() * gamma_io;
      H.triangularView<Eigen::Lower>().solveInPlace(t);
      H.triangularView<Eigen::Lower>().adjoint().solveInPlace(t);
      v = v_star + t;
    } else if (!settings.warm_start_impulses) {
      // v is the guess.
    } else {
      v = v_star;
    }
    double cost_prev = 0;
    for (int it = 0;; ++it) {
      vc.noalias() = J * v;
      vc += b;
      e = v - v_star;
      Ae.noalias() = A * e;
      const double cost = 0.5 * e.dot(Ae) + Impulses(vc.data(), gamma.data(),
                                                     /*want_G=*/true);
      g = Ae;
      g.noalias() -= J.transpose() * gamma;
      const double r = D.cwiseProduct(g).norm();
      auto t = w.tmp_.head(n);
      t.noalias() = J.transpose() * gamma;
      const double scale =
          std::max(D.cwiseProduct(Ae).norm(), D.cwiseProduct(t).norm());
      result.cost = cost;
      result.residual = r / std::max(scale, 1e-300);
      result.iterations = it;
      if (r <= settings.abs_tolerance + settings.rel_tolerance * scale) {
        result.converged = true;
        break;
      }
      if (it > 0 &&
          cost_prev - cost <= settings.cost_tolerance * std::abs(cost_prev)) {
        result.converged = true;  // round-off: ell no longer decreases
        break;
      }
      if (it >= settings.max_iterations) break;
      cost_prev = cost;
      // Newton direction: (A + J^T G J) dv = -g.
      H = A;
      int row = 0, gofs = 0;
      auto GJ = w.GJ_.topLeftCorner(m, n);
      for (const ConvexConstraint& c : constraints) {
        const int rr = NumRows(c.kind);
        if (rr == 3) {
          Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> G(
              w.G_.data() + gofs);
          GJ.middleRows<3>(row).noalias() = G * J.middleRows<3>(row);
          gofs += 9;
        } else {
          GJ.row(row) = w.G_[gofs] * J.row(row);
          gofs += 1;
        }
        row += rr;
      }
      // H += J^T G J constraint by constraint, on the column runs where its
      // rows are not zero (a contact touches one or two bodies' dofs).
      row = 0;
      for (size_t k = 0; k < constraints.size(); ++k) {
        const int rr = NumRows(constraints[k].kind);
        const int r0 = w.run_begin_[k], r1 = w.run_begin_[k + 1];
        for (int a = r0; a < r1; ++a) {
          const int sa = w.runs_[2 * a], la = w.runs_[2 * a + 1];
          for (int bb = r0; bb < r1; ++bb) {
            const int sb = w.runs_[2 * bb], lb = w.runs_[2 * bb + 1];
            for (int i = 0; i < rr; ++i) {
              for (int q = 0; q < lb; ++q) {
                const double gj = GJ(row + i, sb + q);
                if (gj == 0) continue;
                for (int p = 0; p < la; ++p) {
                  H(sa + p, sb + q) += J(row + i, sa + p) * gj;
                }
              }
            }
          }
        }
        row += rr;
      }
      Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> hllt(H);
      if (hllt.info() != Eigen::Success) break;  // reported unconverged
      dv = -g;
      H.triangularView<Eigen::Lower>().solveInPlace(dv);
      H.triangularView<Eigen::Lower>().adjoint().solveInPlace(dv);
      // Exact line search on phi(alpha) = ell(v + alpha dv).
      Adv.noalias() = A * dv;
      Jdv.noalias() = J * dv;
      const double eAdv = e.dot(Adv), dvAdv = dv.dot(Adv);
      auto trial = w.gamma_trial_.head(m);
      auto vct = w.y_.head(m);
      auto dphi = [&](double alpha, double* d2) {
        vct = vc + alpha * Jdv;
        Impulses(vct.data(), trial.data(), /*want_G=*/true);
        double d = eAdv + alpha * dvAdv - Jdv.dot(trial);
        double q = dvAdv;
        int rw = 0, go = 0;
        for (const ConvexConstraint& c : constraints) {
          if (c.kind == ConvexConstraintKind::kContact) {
            for (int a = 0; a < 3; ++a) {
              for (int bb = 0; bb < 3; ++bb) {
                q += Jdv[rw + a] * w.G_[go + 3 * a + bb] * Jdv[rw + bb];
              }
            }
            rw += 3;
            go += 9;
          } else {
            q += w.G_[go] * Jdv[rw] * Jdv[rw];
            rw += 1;
            go += 1;
          }
        }
        *d2 = q;
        return d;
      };
      double d2 = 0;
      const double d0 = eAdv - Jdv.dot(gamma);
      if (!(d0 < 0)) {
        result.converged = true;  // no descent left: round-off
        break;
      }
      double lo = 0, hi = settings.alpha_max;
      double alpha = 1.0;
      const double dhi = dphi(hi, &d2);
      int ls = 0;
      if (dhi <= 0) {
        alpha = hi;
      } else {
        for (; ls < settings.max_line_search_iterations; ++ls) {
          const double d = dphi(alpha, &d2);
          if (std::abs(d) <= 1e-10 * std::abs(d0)) break;
          if (d < 0) {
            lo = alpha;
          } else {
            hi = alpha;
          }
          double next = d2 > 0 ? alpha - d / d2 : -1;
          if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
          if (hi - lo <= 1e-14 * hi) break;
          alpha = next;
        }
      }
      result.line_search_iterations += ls + 1;
      v += alpha * dv;
    }
    gamma_io = gamma;
    return result;
  }
};

ConvexSolverResult SolveConvexContact(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::VectorXd>& v_star,
    const Eigen::Ref<const Eigen::MatrixXd>& J,
    const Eigen::Ref<const Eigen::VectorXd>& b,
    const std::vector<ConvexConstraint>& constraints,
    const ConvexSolverSettings& settings, ConvexSolverWorkspace* workspace,
    Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> gamma) {
  const char* who = "SolveConvexContact";
  if (workspace == nullptr) {
    throw std::invalid_argument("SolveConvexContact: workspace is null");
  }
  const int n = static_cast<int>(A.rows());
  const int m = static_cast<int>(J.rows());
  int rows = 0;
  for (size_t k = 0; k < constraints.size(); ++k) {
    const ConvexConstraint& c = constraints[k];
    if (c.kind == ConvexConstraintKind::kContact &&
        !(c.mu >= 0 && std::isfinite(c.mu))) {
      throw std::invalid_argument(
          fmt::format("{}: constraint {}: friction coefficient {} is not >= 0",
                      who, k, c.mu));
    }
    if (!(c.R >= 0 && std::isfinite(c.R))) {
      throw std::invalid_argument(fmt::format(
          "{}: constraint {}: regularization (compliance) {} is not >= 0", who,
          k, c.R));
    }
    rows += NumRows(c.kind);
  }
  if (A.cols() != n || v_star.size() != n || v.size() != n ||
      (m > 0 && J.cols() != n) || b.size() != m || gamma.size() != m ||
      rows != m) {
    throw std::invalid_argument(fmt::format(
        "{}: sizes disagree: A {}x{}, v_star {}, v {}, J {}x{}, b {}, gamma "
        "{}, constraints' rows {}",
        who, A.rows(), A.cols(), v_star.size(), v.size(), J.rows(), J.cols(),
        b.size(), gamma.size(), rows));
  }
  internal::CheckFiniteMatrix(who, "A", A);
  internal::CheckFiniteVector(who, "v_star", v_star);
  if (m > 0) internal::CheckFiniteMatrix(who, "J", J);
  internal::CheckFiniteVector(who, "b", b);
  if (settings.warm_start_impulses) {
    internal::CheckFiniteVector(who, "gamma", gamma);
  } else {
    internal::CheckFiniteVector(who, "v", v);
  }
  workspace->Reserve(n, m);
  ConvexSolver solver{A, v_star, J, b, constraints, settings, *workspace, n, m};
  return solver.Solve(v, gamma);
}

}  // namespace tern::solvers
