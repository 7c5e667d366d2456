// The time-stepping plant's island as one convex problem
// (solvers/convex_contact_solver.h), and the report of an island that did not
// converge.
#include <fmt/format.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <span>
#include <stdexcept>

#include "tern/multibody/plant/time_stepping_stepper.h"
#include "tern/multibody/tree/dynamics.h"

namespace tern {

// The island as one convex problem (solvers/convex_contact_solver.h): its
// subtrees' dofs side by side, A = their free-motion matrices H + h D
// (implicit joint damping) + h (kd + h kp) (implicit servos) block diagonal, J
// the rows on those dofs, v* the free velocities, gamma0 the warm-start
// impulses.
void TimeSteppingStepper::SolveConvex(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  auto& groups = s.rows.groups;
  const int nt = static_cast<int>(impl.subtrees.size());
  if (static_cast<int>(s.tree_off.size()) != nt) s.tree_off.assign(nt, -1);
  s.isl_trees.clear();
  int n = 0;
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    for (int e = 0; e < 2; ++e) {
      const int t = g.tree[e];
      if (t < 0 || s.tree_off[t] >= 0) continue;
      s.tree_off[t] = n;
      n += N(t);
      s.isl_trees.push_back(t);
    }
  }
  // An island of free bodies only goes to the solver for free bodies (A
  // block diagonal in 6 x 6, each constraint on one or two bodies): the
  // same problem and answer, in fixed-size blocks.
  bool all_free = true;
  for (int t : s.isl_trees) all_free &= impl.subtrees[t].free;
  if (!all_free && s.cA.rows() < n) s.cA.resize(n, n);
  if (s.cvstar.size() < n) {
    s.cvstar.resize(n);
    s.cv.resize(n);
  }
  auto A = s.cA.topLeftCorner(all_free ? 0 : n, all_free ? 0 : n);
  auto vstar = s.cvstar.head(n);
  auto v = s.cv.head(n);
  A.setZero();
  // The free bodies' blocks of A: a one-body island's is its subtree's M,
  // read in place; others are copied side by side.
  const bool one_body = all_free && s.isl_trees.size() == 1;
  if (all_free && !one_body) {
    s.fbA.resize(s.isl_trees.size());
    s.fbdiag.resize(s.isl_trees.size());
  }
  const std::span<const solvers::Matrix6d> fbA =
      one_body ? std::span<const solvers::Matrix6d>(
                     &impl.subtrees[s.isl_trees[0]].M, 1)
               : std::span<const solvers::Matrix6d>(s.fbA);
  const std::span<const char> fbdiag =
      one_body ? std::span<const char>(
                     &impl.subtrees[s.isl_trees[0]].m_positive_diagonal, 1)
               : std::span<const char>(s.fbdiag);
  for (int t : s.isl_trees) {
    const SubtreeInfo& st = impl.subtrees[t];
    const int o = s.tree_off[t], nn = st.n;
    const int* dofs = Dofs(t);
    if (all_free) {
      if (!one_body) {
        s.fbA[o / 6] = st.M;
        s.fbdiag[o / 6] = st.m_positive_diagonal;
      }
    } else if (st.free) {
      A.block<6, 6>(o, o) = st.M;
    } else {
      // A subtree's dofs are ascending; if they are consecutive in H (a
      // robot of its own), its block is copied by columns.
      const bool consecutive = dofs[nn - 1] - dofs[0] == nn - 1;
      for (int j = 0; j < nn; ++j) {
        if (consecutive) {
          A.col(o + j).segment(o, nn) =
              s.cache.H.col(dofs[j]).segment(dofs[0], nn);
        } else {
          for (int i = 0; i < nn; ++i) {
            A(o + i, o + j) = s.cache.H(dofs[i], dofs[j]);
          }
        }
        // The free-motion matrix (FactorMass's): implicit damping and
        // implicit servos react to the constraint impulses within the step.
        A(o + j, o + j) += h * impl.damping[dofs[j]] + s.pd_gain[dofs[j]];
      }
    }
    if (st.free) {  // a floating joint's 6 dofs are consecutive
      vstar.segment<6>(o) = s.vn.segment<6>(dofs[0]);
      v.segment<6>(o) = s.v.segment<6>(dofs[0]);
      continue;
    }
    for (int k = 0; k < nn; ++k) {
      vstar[o + k] = s.vn[dofs[k]];
      v[o + k] = s.v[dofs[k]];  // the last step's answer: a second guess
    }
  }
  // Speculative contacts (gap phi > 0, no warm-start impulse) that both
  // the free motion v* and the last step's velocities separate (SAP's
  // separation, vc_n >= mu |vc_t|: no impulse at any compliance) are left
  // out of the solve: a fifth to a third of a falling robot's contacts, the
  // 5 mm speculative margin. If the answer separates each of them too, it
  // is the full problem's answer (their l_i and impulses are 0 there: the
  // same gradient and the same convergence test); otherwise the island is
  // solved again with every row. TimeSteppingOptions::
  // convex_leave_out_separating = false always solves with every row.
  int m = 0, dropped = 0;
  auto choose_rows = [&](bool allow_drop) {
    s.crow.resize(end - begin);  // each entry written below
    m = 0, dropped = 0;
    for (int idx = begin; idx < end; ++idx) {
      const RowGroup& g = groups[s.order[idx]];
      bool drop = false;
      if (allow_drop && !all_free && g.kind == RowKind::kContact && g.phi > 0 &&
          g.p[0] == 0 && g.p[1] == 0 && g.p[2] == 0) {
        double a[3], c[3];
        ContactVelocity(g, vstar.data(), a, v.data(), c);
        drop = internal::SeparatingVelocity(a, g.mu) &&
               internal::SeparatingVelocity(c, g.mu);
      }
      s.crow[idx - begin] = drop ? -1 : m;
      dropped += drop;
      if (!drop) m += g.rows;
    }
    if (s.cb.size() < m) {
      s.cb.resize(m);
      s.cgamma.resize(m);
    }
  };
  bool deep_push = false;  // a row deeper than the slop, pushed out
  using Kind = solvers::ConvexConstraintKind;
  const double tau_h = h * (1 + opt.convex_beta / std::numbers::pi);
  // The problem's rows (s.crow's): J packed, b, the warm start, the
  // constraints.
  auto pack = [&] {
    s.ccons.clear();
    s.fbbodies.clear();
    if (!all_free) {  // the packed rows (the free bodies' are s.fbvals)
      s.ccols.clear();
      s.cvals.clear();
      s.ccol_begin.assign(1, 0);
    }
    auto b = s.cb.head(m);
    auto gamma = s.cgamma.head(m);
    int row = 0;
    int pair_end = begin;
    double pair_load = 0;
    for (int idx = begin; idx < end; ++idx) {
      const RowGroup& g = groups[s.order[idx]];
      const int r = g.rows;
      if (g.kind == RowKind::kContact) {
        // The load: the mean warm-start normal impulse of this body pair's
        // contacts (consecutive groups, those left out included;
        // solvers::ConvexConstraint::load).
        if (idx == begin || pair_end <= idx) {
          pair_end = idx;
          double sum = 0;
          while (pair_end < end) {
            const RowGroup& o = groups[s.order[pair_end]];
            if (o.kind != RowKind::kContact || o.body_a != g.body_a ||
                o.body_b != g.body_b) {
              break;
            }
            sum += o.p[0];
            ++pair_end;
          }
          pair_load = sum / (pair_end - idx);
        }
      }
      if (s.crow[idx - begin] < 0) continue;
      // J packed (solvers::ConvexPackedRows): the group's columns are among
      // its subtrees' dofs, in ascending local order; a bilateral group's
      // rows are one constraint each.
      int e_first = 0;
      if (g.tree[1] >= 0 && s.tree_off[g.tree[1]] < s.tree_off[g.tree[0]]) {
        e_first = 1;
      }
      const int num_cons = g.kind == RowKind::kBilateral ? r : 1;
      const int rows_per = g.kind == RowKind::kBilateral ? 1 : r;
      for (int c = 0; c < num_cons && all_free; ++c) {
        // Free bodies: each constraint's rows on its one or two bodies
        // (s.fbvals only grows: the solver does not read the entries of
        // an absent side or of rows beyond the constraint's).
        const size_t v0 = 18 * s.fbbodies.size();
        if (s.fbvals.size() < v0 + 36) s.fbvals.resize(v0 + 36);
        int side = 0;
        for (int ee = 0; ee < 2; ++ee) {
          const int t = g.tree[ee == 0 ? e_first : 1 - e_first];
          if (t < 0) continue;
          s.fbbodies.push_back(s.tree_off[t] / 6);
          const double* Jt = s.jac.data() +
                             g.jac[ee == 0 ? e_first : 1 - e_first] +
                             c * rows_per * 6;
          std::copy(Jt, Jt + rows_per * 6, s.fbvals.data() + v0 + 18 * side);
          ++side;
        }
        if (side == 1) s.fbbodies.push_back(-1);
      }
      for (int c = 0; c < num_cons && !all_free; ++c) {
        // The columns where the constraint's rows are not zero (an
        // articulated subtree's rows touch the contact body's ancestors
        // only: the solver's tree factorization and Delassus walks follow
        // those paths), then its rows on them.
        const int c0 = static_cast<int>(s.ccols.size());
        s.csrc.clear();
        for (int ee = 0; ee < 2; ++ee) {
          const int e = ee == 0 ? e_first : 1 - e_first;
          const int t = g.tree[e];
          if (t < 0) continue;
          const int nn = N(t), o = s.tree_off[t];
          const double* Jt = s.jac.data() + g.jac[e] + c * rows_per * nn;
          auto add = [&](int k) {
            s.ccols.push_back(o + k);
            s.csrc.push_back({Jt + k, nn});
          };
          if (rows_per == 3) {  // a contact: its three rows side by side
            const double *J0 = Jt, *J1 = Jt + nn, *J2 = Jt + 2 * nn;
            for (int k = 0; k < g.ncols[e]; ++k) {
              if (J0[k] != 0 || J1[k] != 0 || J2[k] != 0) add(k);
            }
          } else {
            for (int k = 0; k < nn; ++k) {
              bool nonzero = false;
              for (int i = 0; i < rows_per; ++i) {
                nonzero |= Jt[i * nn + k] != 0;
              }
              if (nonzero) add(k);
            }
          }
        }
        const int nk = static_cast<int>(s.ccols.size()) - c0;
        s.cvals.resize(3 * static_cast<size_t>(c0 + nk));
        double* out = s.cvals.data() + 3 * static_cast<size_t>(c0);
        for (int i = 0; i < rows_per; ++i) {
          for (int p = 0; p < nk; ++p) {
            *out++ = s.csrc[p].first[i * s.csrc[p].second];
          }
        }
        s.ccol_begin.push_back(static_cast<int>(s.ccols.size()));
      }
      for (int i = 0; i < r; ++i) {
        b[row + i] = g.b[i];
        gamma[row + i] = g.p[i];
      }
      // Penetration (contacts, limits) up to the slop enters the compliant
      // model at the position level, as in Castro et al. (sec. V, near-rigid
      // regime: b = phi / (h + tau), tau = beta h / pi), so a body resting
      // on another sinks no deeper than R gamma (h + tau); depth beyond the
      // slop is left to the split-impulse correction (no energy added).
      if (g.kind != RowKind::kBilateral && g.phi < 0) {
        b[row] = std::max(g.phi, -opt.penetration_slop) / tau_h;
        deep_push |= g.phi < -opt.penetration_slop;
      }
      if (g.kind == RowKind::kContact) {
        s.ccons.push_back({Kind::kContact, g.mu, 0.0, pair_load});
        // An overlap deeper than the slop is being pushed out: its last
        // friction impulse is no load to hold, and anchored to it the
        // push-out of links overlapping at the start gained energy.
        s.ccons.back().anchor = !(g.phi < -opt.penetration_slop);
      } else if (g.kind == RowKind::kLimit) {
        s.ccons.push_back({Kind::kUnilateral, 0.0, 0.0, -1.0});
      } else if (g.kind == RowKind::kBounded) {
        s.ccons.push_back({Kind::kBounded, 0.0, 0.0, -1.0, g.bound});
      } else {
        for (int i = 0; i < r; ++i) {
          s.ccons.push_back({Kind::kBilateral, 0, 0, -1.0});
        }
      }
      row += r;
    }
  };
  choose_rows(opt.convex_leave_out_separating);
  s.stats.convex_rows_left_out += dropped;
  pack();
  solvers::ConvexSolverSettings settings;
  settings.max_iterations = opt.convex_max_iterations;
  settings.rel_tolerance = opt.convex_tolerance;
  settings.beta = opt.convex_beta;
  settings.beta_min = std::min(opt.convex_beta_min, opt.convex_beta);
  settings.rest_velocity = opt.convex_rest_depth / tau_h;
  settings.sigma = opt.convex_sigma;
  settings.sigma_min = std::min(opt.convex_sigma_min, opt.convex_sigma);
  settings.creep_velocity = opt.convex_creep_velocity;
  settings.warm_start_impulses = true;
  settings.warm_start_best = true;
  settings.anchor_sticking = opt.convex_anchor_sticking;
  // Free bodies touching one another have no tree to factor along.
  settings.tree_factorization = !all_free;
  auto solve = [&] {
    auto b = s.cb.head(m);
    auto gamma = s.cgamma.head(m);
    if (all_free) {
      // The plant's problem is consistent by construction and its blocks
      // of A tested once (SubtreeInfo::m_positive_diagonal): the solver's
      // entry point for it skips those checks only.
      return solvers::internal::SolveFreeBodyContactPrepared(
          fbA, fbdiag, vstar,
          solvers::FreeBodyRows{s.fbbodies,
                                {s.fbvals.data(), 18 * s.fbbodies.size()}},
          b, s.ccons, settings, &s.free_body, v, gamma);
    }
    // An island of one articulated subtree: A is its free-motion matrix,
    // which FreeVelocities factored this step (s.mass); the solver uses
    // that factor instead of factoring A again.
    // Its rows before factoring (s.mass_rows) are the Newton matrices'
    // start, and the problem is consistent by construction: the solver's
    // entry for it skips the checks of structure only.
    const solvers::ConvexPackedRows rows{s.ccols, s.ccol_begin, s.cvals};
    if (s.isl_trees.size() == 1) {
      const int t = s.isl_trees[0];
      return solvers::internal::SolveConvexContactOnTree(
          A, vstar, rows, b, s.ccons, settings, &s.convex, v, gamma, s.mass[t],
          s.mass_rows[t].data());
    }
    return solvers::SolveConvexContact(A, vstar, rows, b, s.ccons, settings,
                                       &s.convex, v, gamma);
  };
  solvers::ConvexSolverResult result;
  int spent = 0;  // iterations of a solve redone with every row
  for (;;) {
    result = solve();
    // The position term pushes a contact deeper than the slop out at
    // slop / (h + tau). Where overlapping contacts conflict (links inside
    // their own robot's base, whose normals the joints barely change) that
    // speed takes generalized velocities of hundreds of rad/s: Atlas's
    // self-overlaps gained 20 kJ in one step. If the step gained more kinetic
    // energy than the island's mass moving at twice the push-out speed, it
    // is solved again without the push-out of those deep rows (no approach
    // only), which leaves their depth to the split-impulse correction.
    if (deep_push) {
      double mass = 0;
      for (int t : s.isl_trees) mass += impl.tree_mass[t];
      const double speed = 2 * opt.penetration_slop / tau_h;
      // 1/2 (v' A v - v*' A v*), without a temporary (a step of a landing).
      double gained = 0;
      if (all_free) {
        for (size_t k = 0; k < fbA.size(); ++k) {
          const auto vk = v.segment<6>(6 * k), sk = vstar.segment<6>(6 * k);
          gained += 0.5 * (vk.dot(fbA[k] * vk) - sk.dot(fbA[k] * sk));
        }
      }
      for (int j = 0; j < A.cols(); ++j) {
        for (int i = 0; i < A.rows(); ++i) {
          gained += 0.5 * A(i, j) * (v[i] * v[j] - vstar[i] * vstar[j]);
        }
      }
      if (gained > 0.5 * mass * speed * speed) {
        for (int idx = begin; idx < end; ++idx) {
          const RowGroup& g = groups[s.order[idx]];
          const int row = s.crow[idx - begin];
          if (row < 0) continue;
          if (g.kind != RowKind::kBilateral && g.phi < -opt.penetration_slop) {
            s.cb[row] = 0;
          }
          for (int i = 0; i < g.rows; ++i) s.cgamma[row + i] = g.p[i];
        }
        for (int t : s.isl_trees) {
          const int* dofs = Dofs(t);
          for (int k = 0; k < N(t); ++k) v[s.tree_off[t] + k] = s.v[dofs[k]];
        }
        const int first = result.iterations;
        result = solve();
        result.iterations += first;
      }
    }
    // The rows left out must be separated at the answer too.
    bool separated = true;
    for (int idx = begin; idx < end && dropped > 0 && separated; ++idx) {
      if (s.crow[idx - begin] >= 0) continue;
      const RowGroup& g = groups[s.order[idx]];
      double c[3];
      ContactVelocity(g, v.data(), c);
      separated = internal::SeparatingVelocity(c, g.mu);
    }
    if (separated) break;
    spent += result.iterations;
    ++s.stats.convex_resolves;
    // v keeps the first answer, the velocity guess of the solve with
    // every row: only the rows it missed are new there.
    deep_push = false;
    choose_rows(false);
    pack();
  }
  result.iterations += spent;
  for (int t : s.isl_trees) {
    const int o = s.tree_off[t];
    const int* dofs = Dofs(t);
    s.tree_off[t] = -1;
    if (impl.subtrees[t].free) {
      s.vn.segment<6>(dofs[0]) = v.segment<6>(o);
      continue;
    }
    for (int k = 0; k < N(t); ++k) s.vn[dofs[k]] = v[o + k];
  }
  for (int idx = begin; idx < end; ++idx) {
    RowGroup& g = groups[s.order[idx]];
    const int row = s.crow[idx - begin];
    for (int i = 0; i < g.rows; ++i) g.p[i] = row < 0 ? 0.0 : s.cgamma[row + i];
  }
  s.stats.convex_iterations += result.iterations;
  s.stats.max_island_iterations =
      std::max(s.stats.max_island_iterations, result.iterations);
  s.stats.max_residual = std::max(s.stats.max_residual, result.residual);
  if (!result.converged) {
    IslandFailed(island, "convex (SAP) solver", result.iterations,
                 result.residual, opt.convex_tolerance);
  }
}

void TimeSteppingStepper::ContactVelocity(const RowGroup& g, const double* x,
                                          double* vc, const double* x2,
                                          double* vc2) const {
  for (int i = 0; i < 3; ++i) {
    vc[i] = g.b[i];
    if (x2 != nullptr) vc2[i] = g.b[i];
  }
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int nn = N(t), end = g.ncols[e];
    const double* xt = x + s.tree_off[t];
    const double* Jt = s.jac.data() + g.jac[e];
    // The three rows in one pass over their columns (the same sums: the
    // columns from `end` on are zeros).
    const double *J0 = Jt, *J1 = Jt + nn, *J2 = Jt + 2 * nn;
    if (x2 == nullptr) {
      double a0 = 0, a1 = 0, a2 = 0;
      for (int k = 0; k < end; ++k) {
        const double xk = xt[k];
        a0 += J0[k] * xk;
        a1 += J1[k] * xk;
        a2 += J2[k] * xk;
      }
      vc[0] += a0, vc[1] += a1, vc[2] += a2;
      continue;
    }
    const double* x2t = x2 + s.tree_off[t];
    double a0 = 0, a1 = 0, a2 = 0, b0 = 0, b1 = 0, b2 = 0;
    for (int k = 0; k < end; ++k) {
      const double xk = xt[k], yk = x2t[k];
      a0 += J0[k] * xk;
      a1 += J1[k] * xk;
      a2 += J2[k] * xk;
      b0 += J0[k] * yk;
      b1 += J1[k] * yk;
      b2 += J2[k] * yk;
    }
    vc[0] += a0, vc[1] += a1, vc[2] += a2;
    vc2[0] += b0, vc2[1] += b1, vc2[2] += b2;
  }
}

void TimeSteppingStepper::IslandFailed(int island, const char* solver,
                                       int iterations, double residual,
                                       double tolerance) {
  s.stats.converged = false;
  ++s.stats.unconverged_islands;
  ++s.stats.warnings;
  if (opt.on_nonconvergence ==
      TimeSteppingOptions::OnNonConvergence::kWarnAndCount) {
    return;
  }
  std::string bodies;
  int listed = 0;
  for (size_t t = 0; t < impl.subtrees.size(); ++t) {
    if (s.island_of[t] != island) continue;
    for (int b : impl.bodies_of_tree[t]) {
      if (listed == 8) bodies += ", ...";
      if (listed++ >= 8) continue;
      bodies += (bodies.empty() ? "'" : ", '") + sys.tree().body(b).name + "'";
    }
  }
  throw std::runtime_error(fmt::format(
      "TimeSteppingRigidBodySystem '{}': the step at t = {} (h = {}) did not "
      "converge: island {} (bodies {}) stopped after {} iterations of the {}{} "
      "with residual {:.3g} > tolerance {:.3g}; raise the solver's iteration "
      "cap or tolerance, or set on_nonconvergence = kWarnAndCount to keep "
      "going and count it; the state is left at t",
      sys.tree().name(), time_, h, island, bodies, iterations, solver,
      lemke_failure_.empty() ? std::string()
                             : " (its fallback after " + lemke_failure_ + ")",
      residual, tolerance));
}

}  // namespace tern
