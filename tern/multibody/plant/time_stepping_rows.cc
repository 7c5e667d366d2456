// The time-stepping plant's constraint rows: contacts, joint limits and
// bilateral rows with their per-subtree Jacobians, the islands they couple,
// and the warm start carried from the previous step.
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

void TimeSteppingStepper::BuildRows(const Context<double>&) {
  auto& rows = s.rows;
  rows.Clear();
  TimeSteppingConstraintInputs in;
  in.tree = &sys.tree();
  in.cache = &s.cache;
  in.q = &s.q;
  in.v = &s.v;
  in.v_next = v_next_;
  in.h = h;
  in.J = &s.J;
  TimeSteppingConstraintRows writer(&rows);
  const auto& constraints = sys.constraints();
  for (size_t c = 0; c < constraints.size(); ++c) {
    const size_t first = rows.groups.size();
    in.scratch = s.constraint_scratch.get(c);
    constraints[c]->AppendRows(in, static_cast<int>(c), &writer);
    for (size_t i = first; i < rows.groups.size(); ++i) {
      rows.groups[i].constraint = static_cast<int>(c);
    }
  }

  // Jacobians per subtree, M^-1 J^T, local Delassus blocks.
  int used = 0;
  const int num_bodies = static_cast<int>(sys.tree().bodies().size());
  s.body_jac.assign(num_bodies, -1);
  s.body_jac_end.resize(num_bodies);
  s.body_jac_ncols.resize(num_bodies);
  s.origin_cols.resize(rows.nv);
  s.origin_col_formed.assign(rows.nv, 0);
  s.body_jac_cols.clear();
  s.body_jac_vals.clear();
  any_penetration_ = false;
  s.stats.num_contacts = 0;
  s.stats.num_rows = 0;
  size_t out = 0;
  for (size_t gi = 0; gi < rows.groups.size(); ++gi) {
    RowGroup& g = rows.groups[gi];
    const int r = g.rows;
    int trees[2] = {-1, -1};
    auto add_tree = [&](int t) {
      if (t < 0 || t == trees[0] || t == trees[1]) return;
      if (trees[0] < 0) {
        trees[0] = t;
      } else if (trees[1] < 0) {
        trees[1] = t;
      } else {
        throw std::runtime_error(fmt::format(
            "TimeSteppingRigidBodySystem '{}': constraint '{}' acts on more "
            "than two independent subtrees; split it",
            sys.tree().name(), constraints[g.constraint]->name()));
      }
    };
    const double* Jb = nullptr;
    if (g.kind == RowKind::kContact) {
      add_tree(impl.tree_of_body[g.body_a]);
      add_tree(impl.tree_of_body[g.body_b]);
    } else if (g.kind == RowKind::kLimit || g.kind == RowKind::kBounded) {
      add_tree(impl.tree_of_dof[g.dof]);
    } else {
      Jb = rows.bilateral_J.data() + static_cast<size_t>(g.bilateral) * rows.nv;
      for (int i = 0; i < r; ++i) {
        for (int j = 0; j < rows.nv; ++j) {
          if (Jb[i * rows.nv + j] != 0) add_tree(impl.tree_of_dof[j]);
        }
      }
    }
    if (trees[0] < 0) continue;  // between anchored bodies: nothing moves
    g.fast = true;
    // Every side of the contact a free body with its contact point within
    // 1e9 m of its origin (set by the rows written in place, below).
    bool near = g.kind == RowKind::kContact;
    g.deferred = false;
    for (int e = 0; e < 2; ++e) {
      g.tree[e] = trees[e];
      g.d0[e] = -1;
      g.ncols[e] = 0;
      if (trees[e] < 0) continue;
      const int t = trees[e];
      if (impl.subtrees[t].free) {
        g.d0[e] = Dofs(t)[0];
      } else {
        g.fast = false;
      }
      const int n = N(t);
      g.ncols[e] = n;  // narrowed for an articulated contact below
      g.jac[e] = Alloc(2 * r * n, &used);
      double* J = s.jac.data() + g.jac[e];
      if (g.kind == RowKind::kContact && impl.subtrees[t].free &&
          (impl.tree_of_body[g.body_a] == t) !=
              (impl.tree_of_body[g.body_b] == t)) {
        // A free body on one side only (always: its two bodies differ):
        // AddPointRows' rows written in place, without the fill, as 0 +
        // its terms (the same values, and the same zeros' signs).
        const bool on_a = impl.tree_of_body[g.body_a] == t;
        const double sign = on_a ? -1.0 : 1.0;
        const RigidTransform<double>& X =
            s.cache.X_WB[on_a ? g.body_a : g.body_b];
        const Vector3<double> p_W = 0.5 * (g.p_WA + g.p_WB);
        const Vector3<double> p_B = X.R.transpose() * (p_W - X.p);
        near &= p_B.squaredNorm() < 1e18;
        const Vector3<double> d[3] = {g.n, g.t1, g.t2};
        for (int i = 0; i < 3; ++i) {
          const Vector3<double> d_B = X.R.transpose() * d[i];
          const Vector3<double> c = p_B.cross(d_B);
          double* row = J + 6 * i;
          for (int a = 0; a < 3; ++a) {
            row[a] = 0.0 + sign * c[a];
            row[3 + a] = 0.0 + sign * d_B[a];
          }
        }
      } else {
        near = false;
        std::fill(J, J + r * n, 0.0);
        if (g.kind == RowKind::kContact) {
          // One contact point for both bodies, the midpoint of the witness
          // points (as MuJoCo and Drake do): the impulses on A and B are
          // then equal and opposite about the same point, so the pair keeps
          // its angular momentum (with each body at its own witness point a
          // friction impulse f adds the torque (p_WA - p_WB) x f).
          const Vector3<double> d[3] = {g.n, g.t1, g.t2};
          const Vector3<double> p_W = 0.5 * (g.p_WA + g.p_WB);
          const bool on_a = impl.tree_of_body[g.body_a] == t;
          const bool on_b = impl.tree_of_body[g.body_b] == t;
          const int from =
              on_a && on_b ? SharedColumnsEnd(g.body_a, g.body_b) : 0;
          int end = 0;
          if (on_a) end = AddPointRows(g.body_a, p_W, -1.0, d, J, n, from);
          if (on_b) {
            end =
                std::max(end, AddPointRows(g.body_b, p_W, 1.0, d, J, n, from));
          }
          g.ncols[e] = end;
        } else if (g.kind == RowKind::kLimit) {
          J[impl.local_of_dof[g.dof]] = g.sign;
        } else if (g.kind == RowKind::kBounded) {
          J[impl.local_of_dof[g.dof]] = 1.0;
        } else {
          const int* dofs = Dofs(t);
          for (int i = 0; i < r; ++i) {
            for (int k = 0; k < n; ++k)
              J[i * n + k] = Jb[i * rows.nv + dofs[k]];
          }
        }
      }
      if (opt.solver == TimeSteppingOptions::Solver::kConvex) {
        // Formed by FormInverseMassRows if needed (a pile's PGS, the
        // position correction): the convex solves, most of a pile's
        // contacts, do not read M^-1 J^T.
        g.deferred = true;
      } else {
        InverseMassTimes(t, J, r, J + r * n);
      }
    }
    // A contact whose normal row no joint motion can change has no
    // authority (NormalRowHasAuthority): left out. Free bodies' rows
    // always have it (`near`, and |n|^2 in (0.5, 2)): |J_n|^2 >= |R^T n|^2 >
    // 0.49 from a side's translation columns, and a side's |J_t1|^2 +
    // |J_t2|^2 <= (1 + |p_B|^2) (|t1|^2 + |t2|^2) < 3.1e18 (t1 unit, |t2| <=
    // |n|), so 1e-20 |J_t|^2 < 0.07 for both sides: the sums are not needed.
    if (g.kind == RowKind::kContact &&
        !(near && g.n.squaredNorm() > 0.5 && g.n.squaredNorm() < 2)) {
      double nn = 0, tt = 0;
      for (int e = 0; e < 2; ++e) {
        if (trees[e] < 0) continue;
        const double* J = s.jac.data() + g.jac[e];
        if (g.fast) {  // 6 columns: the same sums, unrolled
          for (int k = 0; k < 6; ++k) {
            nn += J[k] * J[k];
            tt += J[6 + k] * J[6 + k] + J[12 + k] * J[12 + k];
          }
          continue;
        }
        const int n = N(trees[e]);
        for (int k = 0; k < g.ncols[e]; ++k) {
          nn += J[k] * J[k];
          tt += J[n + k] * J[n + k] + J[2 * n + k] * J[2 * n + k];
        }
      }
      if (!NormalRowHasAuthority(nn, tt)) continue;
    }
    // Under the convex solver the local Delassus blocks are formed only for
    // the islands that go to PGS (a pile) and the rows the position
    // correction needs: the convex solve does not read them.
    if (opt.solver == TimeSteppingOptions::Solver::kConvex) g.deferred = true;
    // Bias.
    if (g.kind == RowKind::kBilateral) {
      const double* b = rows.bilateral_b.data() + g.bilateral;
      for (int i = 0; i < r; ++i) g.b[i] = b[i];
    } else {
      // Speculative contact: approach by phi at most. Penetration is
      // removed by CorrectPositions, not by the velocities.
      // (Fixed-size fills, stored in line: a loop to r was a memset call.)
      g.b[0] = g.phi > 0 ? g.phi / h : 0.0;
      if (g.phi < 0) any_penetration_ = true;
      std::fill_n(g.b + 1, 5, 0.0);
    }
    std::fill_n(g.p, 6, 0.0);
    if (g.kind == RowKind::kContact) ++s.stats.num_contacts;
    s.stats.num_rows += r;
    if (out != gi) rows.groups[out] = g;
    ++out;
  }
  rows.groups.resize(out);
}

void TimeSteppingStepper::UniteSubtrees(bool every_row) {
  const int nt = static_cast<int>(impl.subtrees.size());
  s.uf.resize(nt);
  for (int t = 0; t < nt; ++t) s.uf[t] = t;
  for (const RowGroup& g : s.rows.groups) {
    if (g.tree[1] < 0 || (!every_row && g.left_out && !g.joined)) continue;
    const int a = Find(s.uf, g.tree[0]), b = Find(s.uf, g.tree[1]);
    if (a != b) s.uf[std::max(a, b)] = std::min(a, b);
  }
}

void TimeSteppingStepper::BuildIslands(const TimeSteppingMemory& memory) {
  const int nt = static_cast<int>(impl.subtrees.size());
  UniteSubtrees(/*every_row=*/false);
  // Island ids for roots, in subtree order.
  s.island_of.assign(nt, -1);
  int num = 0;
  for (int t = 0; t < nt; ++t) {
    const int root = Find(s.uf, t);
    if (s.island_of[root] < 0) s.island_of[root] = num++;
    s.island_of[t] = s.island_of[root];
  }
  // Sleeping: an island is awake if one of its subtrees is.
  s.island_awake.assign(num, opt.sleeping ? 0 : 1);
  s.tree_asleep.assign(nt, 0);
  if (opt.sleeping) {
    const int still = static_cast<int>(std::ceil(opt.sleep_time / h));
    for (int t = 0; t < nt; ++t) {
      if (memory.still_steps[t] < still) s.island_awake[s.island_of[t]] = 1;
    }
    int sleeping = 0;
    for (int i = 0; i < num; ++i) sleeping += !s.island_awake[i];
    s.stats.num_sleeping_islands = sleeping;
    for (int t = 0; t < nt; ++t) {
      s.tree_asleep[t] = !s.island_awake[s.island_of[t]];
    }
  }
  // Groups by island (counting sort).
  s.island_start.assign(num + 1, 0);
  for (RowGroup& g : s.rows.groups) {
    g.island = s.island_of[g.tree[0]];
    if (!g.left_out || g.joined) ++s.island_start[g.island + 1];
  }
  int with_rows = 0;
  for (int i = 0; i < num; ++i) {
    with_rows += s.island_start[i + 1] > 0;
    s.island_start[i + 1] += s.island_start[i];
  }
  s.stats.num_islands = with_rows;
  s.island_fill.assign(s.island_start.begin(), s.island_start.end() - 1);
  s.island_dofs.assign(num, 0);
  for (int t = 0; t < nt; ++t) s.island_dofs[s.island_of[t]] += N(t);
  s.order.resize(s.island_start[num]);
  for (size_t gi = 0; gi < s.rows.groups.size(); ++gi) {
    const RowGroup& g = s.rows.groups[gi];
    if (g.left_out && !g.joined) continue;
    s.order[s.island_fill[g.island]++] = static_cast<int>(gi);
  }
}

void TimeSteppingStepper::LeaveOutSeparated(const TimeSteppingMemory& memory) {
  s.left_out.clear();
  if (opt.solver != TimeSteppingOptions::Solver::kConvex ||
      !opt.convex_leave_out_separating) {
    return;
  }
  const int still = static_cast<int>(std::ceil(opt.sleep_time / h));
  for (size_t gi = 0; gi < s.rows.groups.size(); ++gi) {
    const RowGroup& g = s.rows.groups[gi];
    // Between two subtrees, no warm-start impulse, a gap (and, below,
    // separated by both the free motion s.vn and the last velocities).
    // Subtrees that may sleep keep their contacts (an island sleeps with
    // its subtrees).
    if (g.tree[1] < 0 || g.kind != RowKind::kContact || !(g.phi > 0) ||
        g.p[0] != 0 || g.p[1] != 0 || g.p[2] != 0) {
      continue;
    }
    if (opt.sleeping && (memory.still_steps[g.tree[0]] >= still ||
                         memory.still_steps[g.tree[1]] >= still)) {
      continue;
    }
    s.left_out.push_back(static_cast<int>(gi));  // a candidate
  }
  if (s.left_out.empty()) return;
  // A pile that PGS solves (its island with every row) keeps its rows: its
  // sweeps pass over a separated row cheaply, and its parts would each be
  // a Newton solve.
  const int nt = static_cast<int>(impl.subtrees.size());
  UniteSubtrees(/*every_row=*/true);
  s.island_dofs.assign(nt, 0);
  for (int t = 0; t < nt; ++t) s.island_dofs[Find(s.uf, t)] += N(t);
  size_t kept = 0;
  for (int gi : s.left_out) {
    RowGroup& g = s.rows.groups[gi];
    if (g.fast &&
        s.island_dofs[Find(s.uf, g.tree[0])] > opt.convex_max_free_body_dofs) {
      continue;
    }
    if (!SeparatedAt(g, s.vn.data()) || !SeparatedAt(g, s.v.data())) continue;
    g.left_out = true;
    s.left_out[kept++] = gi;
  }
  s.left_out.resize(kept);
}

bool TimeSteppingStepper::SeparatedAt(const RowGroup& g,
                                      const double* x) const {
  double vc[3] = {g.b[0], g.b[1], g.b[2]};
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int nn = N(t);
    const double* J0 = s.jac.data() + g.jac[e];
    const double *J1 = J0 + nn, *J2 = J0 + 2 * nn;
    if (g.fast) {  // a free body: 6 consecutive velocities from d0
      const double* xe = x + g.d0[e];
      for (int k = 0; k < 6; ++k) {
        const double xk = xe[k];
        vc[0] += J0[k] * xk;
        vc[1] += J1[k] * xk;
        vc[2] += J2[k] * xk;
      }
      continue;
    }
    const int* dofs = Dofs(t);
    for (int k = 0; k < g.ncols[e]; ++k) {  // the columns beyond are zeros
      const double xk = x[dofs[k]];
      vc[0] += J0[k] * xk;
      vc[1] += J1[k] * xk;
      vc[2] += J2[k] * xk;
    }
  }
  return internal::SeparatingVelocity(vc, g.mu);
}

void TimeSteppingStepper::WarmStart(const TimeSteppingMemory& memory) {
  s.stats.warm_started = 0;
  if (!opt.warm_start || memory.entries.empty()) return;
  const auto& prev = memory.entries;
  const double r2 = opt.warm_start_radius * opt.warm_start_radius;
  auto less = [](const WarmStartEntry& e, const RowGroup& g) {
    if (e.c != g.constraint) return e.c < g.constraint;
    if (e.k1 != g.key1) return e.k1 < g.key1;
    return e.k2 < g.key2;
  };
  // Both lists are in key order (the constraints append their rows
  // sorted), so a cursor walks `prev` once; a key out of order falls back
  // to a binary search.
  auto cursor = prev.begin();
  for (RowGroup& g : s.rows.groups) {
    while (cursor != prev.end() && less(*cursor, g)) ++cursor;
    auto it = cursor;
    if (it != prev.begin() && !less(*(it - 1), g)) {
      it = std::lower_bound(prev.begin(), prev.end(), g, less);
    }
    if (g.kind == RowKind::kContact) {
      const Vector3<double> mid = 0.5 * (g.p_WA + g.p_WB);
      const WarmStartEntry* best = nullptr;
      double best_d2 = r2;
      for (; it != prev.end() && it->c == g.constraint && it->k1 == g.key1 &&
             it->k2 == g.key2;
           ++it) {
        const double d2 = (it->point - mid).squaredNorm();
        if (d2 <= best_d2) {
          best_d2 = d2;
          best = &*it;
        }
      }
      if (best == nullptr) continue;
      g.p[0] = std::max(0.0, best->P.dot(g.n));
      g.p[1] = best->P.dot(g.t1);
      g.p[2] = best->P.dot(g.t2);
      ++s.stats.warm_started;
    } else if (it != prev.end() && it->c == g.constraint && it->k1 == g.key1 &&
               it->k2 == g.key2) {
      for (int i = 0; i < g.rows; ++i) g.p[i] = it->p[i];
      if (g.kind == RowKind::kLimit) g.p[0] = std::max(0.0, g.p[0]);
      if (g.kind == RowKind::kBounded) {
        g.p[0] = std::clamp(g.p[0], -g.bound, g.bound);
      }
      ++s.stats.warm_started;
    }
  }
}

}  // namespace tern
