#pragma once
// Pieces of the convex contact solver (convex_contact_solver.h) shared by
// its two implementations: the generic one (SolveConvexContact, any A and
// J) and the one for islands of free bodies (SolveFreeBodyContact,
// free_body_contact_solver.h). Both solve the same problem with the same
// rules, so these are written once: the cone projections and the sum of
// the l_i, the regularization of a constraint, the checks of the
// constraints and the exact line search. Internal to tern/solvers.
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
// and gamma0_n, the first row's warm-start impulse (used when c.load < 0),
// by the rules of ConvexSolverSettings (near-rigid beta, sigma, the
// load-bounded rest_velocity down to beta_min).
void Regularize(const ConvexConstraint& c, double w, double gamma0_n,
                const ConvexSolverSettings& settings, double* R);

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

}  // namespace tern::solvers::internal
