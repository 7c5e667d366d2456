// The time-stepping plant's projected Gauss-Seidel: its row groups handed
// to solvers::SolveRowGroupsPgs (solvers/projected_gauss_seidel.h, the
// polygonal friction cone and the group steps live there), the sweep
// order, the convex fallback, and the split-impulse position correction.
#include <algorithm>
#include <cmath>
#include <span>

#include "tern/multibody/plant/time_stepping_stepper.h"
#include "tern/solvers/projected_gauss_seidel.h"

namespace tern {

void TimeSteppingStepper::LocalBlocks() {
  const auto& groups = s.rows.groups;
  if (s.delassus.size() < groups.size()) s.delassus.resize(2 * groups.size());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    if (!groups[gi].deferred) LocalBlock(static_cast<int>(gi));
  }
}

void TimeSteppingStepper::FormInverseMassRows(int gi) {
  RowGroup& g = s.rows.groups[gi];
  if (!g.deferred) return;
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int n = N(t);
    double* J = s.jac.data() + g.jac[e];
    InverseMassTimes(t, J, g.rows, J + g.rows * n);
  }
  g.deferred = false;
  LocalBlock(gi);
}

// W = J M^-1 J^T of the group and its inverse (solvers::FormDelassusBlock).
void TimeSteppingStepper::LocalBlock(int gi) {
  solvers::FormDelassusBlock(Layout(), opt.contact_regularization,
                             opt.constraint_regularization, &s.rows.groups[gi],
                             &s.delassus[gi]);
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
      const double Wnn = s.delassus[gi].W[0];
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
  // A correction that cannot be made by small moves (links overlapping
  // about a joint: the normal barely changes with the joints, so their
  // pseudo-velocities are hundreds of rad/s) is cut to kMaxCorrection per
  // coordinate and step (m or rad), keeping its direction. Uncut, the legs
  // of a floating robot whose pelvis they overlapped by 5 cm swung through
  // it by 0.2 rad every step, and the finite rotations ratcheted the robot
  // away at 1.3 m/s with zero velocity (TimeStepping.
  // OverlappingLinksAreCorrectedGently); an impact's correction (erp of a
  // few mm) is far below the cut. The cut is per subtree: one scale for
  // the whole plant let one body's large correction throttle every other
  // body's (MuJoCo's humanoid100 at 4-5 ms steps: a body 5 cm into the
  // floor was pushed out at an eighth of its rate, and sank).
  constexpr double kMaxCorrection = 0.01;
  for (int t = 0; t < static_cast<int>(impl.subtrees.size()); ++t) {
    const int* dofs = Dofs(t);
    double largest = 0;
    for (int k = 0; k < N(t); ++k) {
      largest = std::max(largest, h * std::abs(s.vp[dofs[k]]));
    }
    if (largest <= kMaxCorrection) continue;
    const double scale = kMaxCorrection / largest;
    for (int k = 0; k < N(t); ++k) s.vp[dofs[k]] *= scale;
  }
}

void TimeSteppingStepper::SolvePgs(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  for (int idx = begin; idx < end; ++idx) FormInverseMassRows(s.order[idx]);
  const solvers::JacobianRowLayout layout = Layout();
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = s.rows.groups[s.order[idx]];
    solvers::ApplyRowGroupImpulse(g, layout, g.p, s.vn.data());
  }
  // Sweep from the bottom up (contact points by height against gravity):
  // the weight of a stack then passes down in one sweep.
  if (end - begin > 2) {
    const Vector3<double>& gdir = sys.tree().gravity();
    auto& height = s.height;  // each group's key, formed once
    if (height.size() < s.rows.groups.size()) {
      height.resize(s.rows.groups.size());
    }
    for (int idx = begin; idx < end; ++idx) {
      const RowGroup& g = s.rows.groups[s.order[idx]];
      height[s.order[idx]] =
          g.kind == RowKind::kContact ? -gdir.dot(g.p_WA + g.p_WB) : -1e300;
    }
    std::sort(s.order.begin() + begin, s.order.begin() + end,
              [&](int a, int b) { return height[a] < height[b]; });
  }
  // (A sticking contact alone is solved exactly by its first step; the
  // second sweep then changes nothing and ends the loop.)
  // Under kConvex a pile gets up to kPileSweeps sweeps before its island
  // falls back to the dense convex solve (whose Cholesky of a pile's
  // hundreds of dofs costs far more than sweeps linear in the contacts).
  // A large pile's budget grows with what its fallback costs: the dense
  // factorization of n dofs (n^3 / 3 flops a Newton iteration) against
  // about 100 flops per contact per sweep, so a 1000-sphere pile (6000
  // dofs) sweeps on where one fallback would take seconds; at worst a
  // fallback step then costs twice the factorization.
  // A pile's sweeps are over-relaxed (solvers::RowGroupPgsStep: the same
  // fixed point and stopping test). PGS sweeps per step on contact_bench
  // by omega, spheres100 / spheres1000: 1.0: 10.8 / 70.9, 1.1: 9.0 / 58.0,
  // 1.2: 7.3 / 48.1, 1.3: 6.0 / 43.0, 1.4: 5.6 / 123 (the 1000-body
  // island starts to oscillate), 1.7: 34 / - (diverging to the fallback).
  constexpr int kPileSweeps = 1000;
  constexpr double kMaxPileSweeps = 1e6;
  constexpr double kPileRelaxation = 1.3;
  constexpr double kSmallPileDofs = 120;
  solvers::RowGroupPgsSettings settings;
  settings.max_sweeps = opt.pgs_max_iterations;
  if (opt.solver == TimeSteppingOptions::Solver::kConvex) {
    settings.relaxation = kPileRelaxation;
    const double n = island < static_cast<int>(s.island_dofs.size())
                         ? s.island_dofs[island]
                         : 0.0;
    if (n <= kSmallPileDofs) {
      // A small pile's fallback is cheap (a few blocks to factor): PGS gets
      // 100 sweeps, and stops as soon as its convergence rate says it will
      // not make it (a stack of boxes) instead of spending them all.
      settings.max_sweeps = std::max(opt.pgs_max_iterations, 100);
      settings.stall_check_from = 3;
    } else {
      const double balanced = n * n * n / 3 / (100.0 * (end - begin));
      settings.max_sweeps = static_cast<int>(
          std::max<double>(std::max(opt.pgs_max_iterations, kPileSweeps),
                           std::min(balanced, kMaxPileSweeps)));
    }
  }
  settings.tolerance = opt.pgs_tolerance;
  // A pile's settled contacts (at rest, or parted with no impulse, between
  // bodies nothing else moves) are not visited again (RowGroupPgsSettings::
  // tree_motion): contact_bench's 1000-sphere pile 4.96 -> 3.09 s. Only on
  // kConvex's pile path, whose budget is generous and which falls back if
  // PGS does not converge; the seed's kPgs keeps its full sweeps under its
  // hard cap of pgs_max_iterations (a confirming sweep would spend one).
  if (opt.solver == TimeSteppingOptions::Solver::kConvex) {
    if (s.tree_motion.size() < impl.subtrees.size()) {
      s.tree_motion.resize(impl.subtrees.size());
    }
    settings.tree_motion = s.tree_motion.data();
  }
  // Under kConvex the pile's friction cone is the convex solver's, round
  // (|p_t| <= mu p_n, isotropic); the seed's kPgs keeps its polygon.
  const bool convex = opt.solver == TimeSteppingOptions::Solver::kConvex;
  const solvers::RowGroupPgsResult result = solvers::SolveRowGroupsPgs(
      layout, convex ? impl.disk : impl.cone, s.delassus.data(),
      std::span<const int>(s.order.data() + begin, end - begin), settings,
      s.rows.groups.data(), s.vn.data());
  const int k = result.sweeps;
  const double change = result.change;
  s.stats.pgs_sweeps += k;
  s.stats.pgs_group_steps += result.group_steps;
  s.stats.max_island_iterations = std::max(s.stats.max_island_iterations, k);
  s.stats.max_residual = std::max(s.stats.max_residual, change);
  if (!result.converged) {
    if (opt.solver == TimeSteppingOptions::Solver::kConvex) {
      // The pile's fast path did not converge: undo its impulses and solve
      // the island by the convex solver, warm started from them.
      for (int idx = begin; idx < end; ++idx) {
        const RowGroup& g = s.rows.groups[s.order[idx]];
        double minus[6];
        for (int i = 0; i < g.rows; ++i) minus[i] = -g.p[i];
        solvers::ApplyRowGroupImpulse(g, layout, minus, s.vn.data());
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
