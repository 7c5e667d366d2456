#pragma once
// Pieces of the convex contact solver (convex_contact_solver.h) shared by
// its two implementations: the generic one (SolveConvexContact, any A and
// J) and the one for islands of free bodies (SolveFreeBodyContact,
// free_body_contact_solver.h). Both solve the same problem with the same
// rules, so these are written once: the cone projections and the sum of
// the l_i, the regularization of a constraint, the checks of the
// constraints, the exact line search and the Newton iteration itself
// (NewtonIterate), which each solver drives with the products of its own
// structure. Internal to tern/solvers.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tern/solvers/convex_contact_solver.h"

namespace tern::solvers::internal {

// Impulses gamma (m) at constraint velocities vc (m) with the
// regularizations R (m), and, if G != nullptr, G = -d gamma / d vc per
// constraint (9 entries, a 3x3 row major, per contact; 1 per other
// constraint, in order). Returns sum l_i (convex_contact_solver.h).
double ConstraintImpulses(const std::vector<ConvexConstraint>& constraints,
                          const double* R, const double* vc, double* gamma,
                          double* G);

// The regularizations of constraint c's rows (R: NumRows(c.kind) entries)
// from its Delassus estimate w (the mean of J_i A^-1 J_i^T over its rows)
// and gamma0, its rows' warm-start impulses (the first used when c.load <
// 0), by the rules of ConvexSolverSettings (near-rigid beta, sigma, the
// load-bounded rest_velocity down to beta_min and creep_velocity down to
// sigma_min), and, with ConvexSolverSettings::anchor_sticking, the shift
// of its rows' bias velocities b that centres a loaded contact's (a
// bounded row's) regularization on gamma0 (zeros for rows it does not
// shift; not written without anchoring). Returns true if it shifted a row.
bool Regularize(const ConvexConstraint& c, double w, const double* gamma0,
                const ConvexSolverSettings& settings, double* R, double* shift);

// b_anchored = b + shift (m) if any row was shifted, and the bias to
// solve with: b_anchored's head, or b itself.
inline Eigen::Ref<const Eigen::VectorXd> AnchoredBias(
    const Eigen::Ref<const Eigen::VectorXd>& b, const Eigen::VectorXd& shift,
    bool shifted, Eigen::VectorXd* b_anchored) {
  if (!shifted) return b;
  const Eigen::Index m = b.size();
  b_anchored->head(m) = b + shift.head(m);
  return b_anchored->head(m);
}

// Throws std::invalid_argument naming the vector (`who`: the entry point)
// unless v_star, b and the warm start (gamma, or v without
// settings.warm_start_impulses) are finite.
void CheckFiniteVectors(const char* who,
                        const Eigen::Ref<const Eigen::VectorXd>& v_star,
                        const Eigen::Ref<const Eigen::VectorXd>& b,
                        const ConvexSolverSettings& settings,
                        const Eigen::Ref<const Eigen::VectorXd>& v,
                        const Eigen::Ref<const Eigen::VectorXd>& gamma);

// Throws std::invalid_argument naming the constraint (`who`: the entry
// point) if a friction coefficient, a bound or a regularization is
// invalid; returns the number of rows.
int CheckConstraints(const char* who,
                     const std::vector<ConvexConstraint>& constraints);

// The exact line search of the Newton step (Castro et al. 2023, sec.
// VI.B) on phi(alpha) = ell(v + alpha dv), given vc = J v + b and Jdv = J
// dv (m), e = v - v*, eAe = e^T A e, eAdv = e^T A dv, dvAdv = dv^T A dv,
// d0 = phi'(0) < 0 and cost = phi(0): safeguarded Newton-Raphson on phi'
// in [0, settings.alpha_max], O(m) per trial, stopped where |phi'| <=
// settings.line_search_tolerance |d0| (past the minimizer only if phi <
// cost). Returns alpha; vct, trial (m) and G hold the constraint
// velocities, impulses and G of the last trial, made at *trial_alpha,
// and *trial_cost their sum l_i (the next iterate's, when alpha is it).
// Adds the trials to *trials.
double ExactLineSearch(const std::vector<ConvexConstraint>& constraints,
                       const double* R, int m, const double* vc,
                       const double* Jdv, double eAe, double eAdv, double dvAdv,
                       double d0, double cost,
                       const ConvexSolverSettings& settings, double* vct,
                       double* trial, double* G, double* trial_alpha,
                       double* trial_cost, int* trials);

// The Newton iteration's vectors: m rows (workspace views), n dofs
// (workspace views, or fixed-size vectors of its own for one free body:
// NVec = Eigen::Matrix<double, 6, 1>).
template <typename NVec = Eigen::Ref<Eigen::VectorXd>>
struct NewtonVectors {
  Eigen::Ref<Eigen::VectorXd> gamma, vc, vct, trial, Jdv;  // (m)
  NVec e, Ae, g, dv, Adv, tmp;                             // (n)
};

// x^T y and |D x| (D a diagonal, as a vector) summed as Eigen sums
// dynamic-size vectors, whatever the vectors' types, so that the two paths
// of NewtonIterate (dynamic-size vectors, fixed-size 6-vectors, whose sums
// Eigen unrolls in another order) give the same bits. For fixed-size
// 6-vectors with two-lane packets (SSE2) the sum is written out: Redux.h's
// LinearVectorizedTraversal adds lanes (0, 2, 4) and (1, 3, 5), each in
// order, then the two lanes; other sizes and packet widths go through
// dynamic-size maps.
inline constexpr bool kTwoLaneSums =
    Eigen::internal::packet_traits<double>::Vectorizable &&
    Eigen::internal::packet_traits<double>::size == 2;
template <typename X, typename Y>
constexpr bool kSix = (kTwoLaneSums && X::SizeAtCompileTime == 6 &&
                       Y::SizeAtCompileTime == 6);
inline double SumOfSix(double t0, double t1, double t2, double t3, double t4,
                       double t5) {
  return ((t0 + t2) + t4) + ((t1 + t3) + t5);
}
template <typename X, typename Y>
double Dot(const X& x, const Y& y) {
  if constexpr (kSix<X, Y>) {
    return SumOfSix(x[0] * y[0], x[1] * y[1], x[2] * y[2], x[3] * y[3],
                    x[4] * y[4], x[5] * y[5]);
  } else {
    using Map = Eigen::Map<const Eigen::VectorXd>;
    return Map(x.data(), x.size()).dot(Map(y.data(), y.size()));
  }
}
template <typename X, typename Y>
double ScaledNorm(const X& D, const Y& x) {
  if constexpr (kSix<X, Y>) {
    double t[6];
    for (int i = 0; i < 6; ++i) {
      const double di = D[i] * x[i];
      t[i] = di * di;
    }
    return std::sqrt(SumOfSix(t[0], t[1], t[2], t[3], t[4], t[5]));
  } else {
    using Map = Eigen::Map<const Eigen::VectorXd>;
    return Map(D.data(), D.size()).cwiseProduct(Map(x.data(), x.size())).norm();
  }
}

// The start and the Newton iteration of convex_contact_solver.h (Castro et
// al. 2023, sec. VI), once for both solvers: the start picked by
// settings.warm_start_impulses / warm_start_best (result->start), then
// Newton steps with ExactLineSearch until the convergence test (result:
// converged, iterations, residual, cost, line-search trials). R and G are
// the regularizations and the G blocks (ConstraintImpulses), D = diag(A)^-1/2
// the residual's scaling. The solver `s` supplies its structure's products:
//   s.MulJ(x, out), s.MulJT(y, out), s.MulA(x, out): J x, J^T y, A x;
//   s.SolveA(x): x <- A^-1 x (called only at the start);
//   s.NewtonDirection(dv): dv <- (A + J^T G J)^-1 dv with G as last
//     computed; false if that matrix is not positive definite (the
//     iteration then stops, unconverged).
// gamma_io: the warm-start impulses in, the answer's out; v: likewise.
// The n-vectors (v_star, D, v and x's) are dynamic-size or, for one free
// body, fixed-size 6-vectors (no dynamic-size loops; the same sums).
template <typename Solver, typename NVec = Eigen::Ref<Eigen::VectorXd>,
          typename VStar, typename DVec, typename VOut>
void NewtonIterate(Solver& s, const std::vector<ConvexConstraint>& constraints,
                   const ConvexSolverSettings& settings, const double* R,
                   double* G, const VStar& v_star,
                   const Eigen::Ref<const Eigen::VectorXd>& b, const DVec& D,
                   NewtonVectors<NVec> x, VOut& v,
                   Eigen::Ref<Eigen::VectorXd> gamma_io,
                   ConvexSolverResult* result) {
  const int m = static_cast<int>(b.size());
  // Named references, not a structured binding: the lambdas below use
  // them, and clang before 16 cannot capture a structured binding.
  auto &gamma = x.gamma, &vc = x.vc, &vct = x.vct, &trial = x.trial,
       &Jdv = x.Jdv;
  auto &e = x.e, &Ae = x.Ae, &g = x.g, &dv = x.dv, &Adv = x.Adv, &t = x.tmp;
  auto impulses = [&](const auto& at, auto& out, bool want_G) {
    return ConstraintImpulses(constraints, R, at.data(), out.data(),
                              want_G ? G : nullptr);
  };
  // vc = J x + b: by the solver's s.MulJPlusB(x, b, vc) if it has one (the
  // same sums in one pass), else J x, then + b.
  auto constraint_velocities = [&](const auto& x) {
    if constexpr (requires { s.MulJPlusB(x, b, vc); }) {
      s.MulJPlusB(x, b, vc);
    } else {
      s.MulJ(x, vc);
      vc += b;
    }
  };
  // Start. A e is kept along the iteration (e = v - v*): the start's is
  // formed once, and each step adds alpha A dv, so an iteration costs one
  // product with A (A dv) and none with J but J dv.
  bool have_Ae = false;
  // The start's constraint velocities, impulses, G and sum l_i already
  // evaluated (the velocity guess won): iteration 0 does not repeat them.
  bool have_start = false;
  double start_constraint_cost = 0;
  if (settings.warm_start_impulses && m > 0) {
    s.MulJT(gamma_io, t);
    if (settings.warm_start_best) {
      // ell at each guess; the lower wins (ties: the impulse guess). At
      // the impulse guess, e = A^-1 J^T gamma0 and A e = J^T gamma0: one
      // product with A (at the velocity guess) serves both costs. The
      // velocity guess (the last step's answer, the usual winner) is
      // evaluated last and with G, so that its vc, gamma and G are
      // iteration 0's when it wins. v* itself is not a third guess: it is
      // the impulse guess when gamma0 = 0, and as a third it won 1.2 % of
      // a humanoid's solves and cost 1-3 % of the instructions of robots
      // and piles (bench/contact/README.md).
      Adv = t;  // A e at the impulse guess
      s.SolveA(t);
      const double eAe_gamma = Dot(t, Adv);
      t += v_star;
      auto constraint_cost = [&](const auto& guess, bool want_G) {
        constraint_velocities(guess);
        return impulses(vc, gamma, want_G);
      };
      const double from_gamma = 0.5 * eAe_gamma + constraint_cost(t, false);
      e = v - v_star;
      s.MulA(e, Ae);
      const double v_constraint_cost = constraint_cost(v, true);
      const double from_v = 0.5 * Dot(e, Ae) + v_constraint_cost;
      if (from_gamma <= from_v) {
        v = t;
      } else {
        result->start = 1;
        have_Ae = true;  // e and A e are the velocity guess's
        have_start = true;
        start_constraint_cost = v_constraint_cost;
      }
    } else {
      s.SolveA(t);
      t += v_star;
      v = t;
    }
  } else if (!settings.warm_start_impulses) {
    result->start = 1;  // v is the guess
  } else {
    v = v_star;
    result->start = 2;
  }
  if (!have_Ae) {
    e = v - v_star;
    s.MulA(e, Ae);
  }
  if (!have_start) constraint_velocities(v);
  double cost_prev = 0;
  // The line search's last trial, when it is the accepted step: its
  // constraint velocities, impulses, G and sum l_i are those of the next
  // iterate, so they are not computed again; otherwise the next iterate's
  // vc = vc + alpha J dv.
  double trial_alpha = -1, trial_cost = 0;
  bool reuse = false;
  for (int it = 0;; ++it) {
    double constraint_cost = 0;
    if (reuse) {
      vc.swap(vct);
      gamma.swap(trial);
      constraint_cost = trial_cost;
    } else if (it == 0 && have_start) {
      constraint_cost = start_constraint_cost;
    } else {
      constraint_cost = impulses(vc, gamma, /*want_G=*/true);
    }
    const double eAe = Dot(e, Ae);
    const double cost = 0.5 * eAe + constraint_cost;
    s.MulJT(gamma, t);
    g = Ae - t;
    const double r = ScaledNorm(D, g);
    const double scale = std::max(ScaledNorm(D, Ae), ScaledNorm(D, t));
    result->cost = cost;
    result->residual = r / std::max(scale, 1e-300);
    result->iterations = it;
    if (r <= settings.abs_tolerance + settings.rel_tolerance * scale) {
      result->converged = true;
      break;
    }
    if (it > 0 &&
        cost_prev - cost <= settings.cost_tolerance * std::abs(cost_prev)) {
      result->converged = true;  // round-off: ell no longer decreases
      break;
    }
    if (it >= settings.max_iterations) break;
    cost_prev = cost;
    // Newton direction: (A + J^T G J) dv = -g.
    dv = -g;
    if (!s.NewtonDirection(dv)) break;  // reported unconverged
    // Line search on phi(alpha) = ell(v + alpha dv).
    s.MulA(dv, Adv);
    s.MulJ(dv, Jdv);
    const double eAdv = Dot(e, Adv), dvAdv = Dot(dv, Adv);
    const double d0 = eAdv - Dot(Jdv, gamma);
    if (!(d0 < 0)) {
      result->converged = true;  // no descent left: round-off
      break;
    }
    const double alpha = ExactLineSearch(
        constraints, R, m, vc.data(), Jdv.data(), eAe, eAdv, dvAdv, d0, cost,
        settings, vct.data(), trial.data(), G, &trial_alpha, &trial_cost,
        &result->line_search_iterations);
    v += alpha * dv;
    e += alpha * dv;
    Ae += alpha * Adv;
    reuse = trial_alpha == alpha;
    if (!reuse) vc += alpha * Jdv;
  }
  gamma_io = gamma;
}

}  // namespace tern::solvers::internal
