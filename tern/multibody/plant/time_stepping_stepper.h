#pragma once
// Internal to multibody/plant: the time-stepping plant's per-context
// scratch, its carried memory (warm start), its precomputed structure
// (Impl) and the per-step solver (TimeSteppingStepper), shared by the
// files that implement one step:
//   time_stepping_rigid_body_system.cc  construction, ports, Run, checkpoints
//   time_stepping_free_motion.cc        free velocities, servos, momentum
//   time_stepping_rows.cc               constraint rows, islands, warm start
//   time_stepping_pgs.cc                projected Gauss-Seidel (solvers/),
//                                       position correction
//   time_stepping_lemke.cc              the island LCP by Lemke
//   time_stepping_convex.cc             the island as one convex problem
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tern/math/packed_tree_factor.h"
#include "tern/multibody/plant/contact_rows.h"
#include "tern/multibody/plant/element_scratch.h"
#include "tern/multibody/plant/time_stepping_internal.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/dynamics_derivatives.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/solvers/convex_contact_solver.h"
#include "tern/solvers/free_body_contact_solver.h"
#include "tern/solvers/lemke.h"
#include "tern/solvers/projected_gauss_seidel.h"
#include "tern/solvers/row_group_lemke.h"

namespace tern {

namespace internal {

// A subtree: the bodies that hang from the world (or from bodies welded to
// it) through one mobile joint, and their velocity indices. Subtrees are
// independent in H (block diagonal), so a row acting on two subtrees
// couples only them.
struct SubtreeInfo {
  bool free{false};           // one body on a floating joint to the world
  bool com_at_origin{false};  // free: its center of mass at B's origin
  bool floating{false};       // on a floating joint to the world (or free)
  int body{0};                // free: the body
  int qstart{0};              // free: first position index
  int dof_start{0};           // offset of this subtree's dofs in the dof list
  int n{0};                   // number of dofs
  Matrix6<double> M;          // free: spatial inertia about B's origin, in B
  Matrix6<double> Minv;       // free: its inverse
  // free: M and Minv diagonal (principal axes along B's frame, the center
  // of mass at B's origin: a sphere's, a box's; then the rotational
  // inertia I is too); products with them then scale.
  bool minv_diagonal{false};
  // free: solvers::PositiveDiagonal6(M), the free-body solver's test of its
  // block of A, made once (M is constant).
  char m_positive_diagonal{0};
};

// What a step carries to the next (abstract state 0): the contact impulses
// for warm start, sorted by key, and per subtree the number of steps it
// has been still (sleeping option).
struct WarmStartEntry {
  int c{0}, k1{0}, k2{0};
  Vector3<double> point{Vector3<double>::Zero()};  // contact: midpoint, m
  Vector3<double> P{Vector3<double>::Zero()};      // contact: impulse, world
  double p[6]{};                                   // other rows: impulses
};
struct TimeSteppingMemory {
  std::vector<WarmStartEntry> entries;
  std::vector<int> still_steps;  // (num subtrees)
};

struct TimeSteppingScratch {
  // with_mass_matrix: whether any subtree is articulated (free bodies use
  // their 6 x 6 inertia, so a scene of them never needs the nv x nv H).
  TimeSteppingScratch(const RigidBodyTree<double>& tree, int num_actuators,
                      bool with_mass_matrix)
      : cache(tree, with_mass_matrix),
        q(tree.num_positions()),
        v(tree.num_velocities()),
        vn(tree.num_velocities()),
        qdot(tree.num_positions()),
        vp(tree.num_velocities()),
        tau(tree.num_velocities()),
        tau_k(tree.num_velocities()),
        C(tree.num_velocities()),
        vdot(tree.num_velocities()),
        J(6, tree.num_velocities()),
        actuator_u(num_actuators, nullptr) {}
  KinematicsCache<double> cache;
  VectorX<double> q, v, vn, qdot;  // (nq), (nv), (nv), (nq)
  VectorX<double> vp;              // (nv) pseudo-velocities
  VectorX<double> tau, tau_k, C;   // (nv)
  VectorX<double> vdot;            // (nv) for sensors
  Matrix6X<double> J;              // (6 x nv)
  std::vector<const double*> actuator_u;
  ElementScratchList actuator_scratch, sensor_scratch, constraint_scratch;
  TimeSteppingRowStorage rows;
  std::vector<double> jac;  // Jacobian pool (see RowGroup::jac)
  // Per body (articulated subtrees), its world-aligned Jacobian at its
  // origin [w; v_o] on its nonzero (ancestor) dofs, formed once per
  // BuildRows for all its contact points: entries body_jac[b] ..
  // body_jac_end[b] - 1 (body_jac[b] = -1: not formed yet), each a local
  // dof of the subtree (body_jac_cols) and its 6 values (body_jac_vals);
  // body_jac_ncols[b]: one past its largest column.
  std::vector<int> body_jac, body_jac_end, body_jac_ncols, body_jac_cols;
  std::vector<double> body_jac_vals;
  // Per velocity, its motion subspace column about the world origin, formed
  // once per BuildRows for the body Jacobians above (flag in
  // origin_col_formed; ForEachWorldAlignedJacobianColumn).
  std::vector<Vector6<double>> origin_cols;
  std::vector<char> origin_col_formed;
  // Per group: W = J M^-1 J^T (+ cfm I) and its (regularized) inverse.
  std::vector<solvers::DelassusBlock> delassus;
  // (subtrees) the free-motion matrix of each articulated subtree and
  // its factor (FactorMass); empty for free bodies.
  std::vector<PackedTreeFactor> mass;
  // (subtrees) under the convex solver: each articulated subtree's
  // free-motion matrix in mass's layout before its factorization (the
  // solver's Newton matrices start from it).
  std::vector<std::vector<double>> mass_rows;
  std::vector<double> rhs, rhs2;  // (max subtree dofs) scratch
  std::vector<int> uf;            // (subtrees) union-find parents
  std::vector<int> island_of;     // (subtrees) island of each subtree root
  std::vector<int> island_start, island_fill, order;
  std::vector<int> left_out;  // groups left out of the islands
  // SolveIslands: per island, per subtree, flags of the islands solved again.
  std::vector<char> rejoin_island, rejoin;
  std::vector<double> p_warm;       // (6 groups) warm-start impulses
  std::vector<double> height;       // (groups) SolvePgs' sweep order key
  std::vector<double> tree_motion;  // (subtrees) SolvePgs' skipping scratch
  std::vector<char> island_awake;
  std::vector<char> tree_asleep;  // (subtrees)
  std::vector<int> deep;          // groups to correct (CorrectPositions)
  // conserve_momentum: the free-motion velocities (nv) and, per subtree,
  // the spatial momentum [angular about the world origin; linear] in world
  // that the step must end with (floating robots only).
  VectorX<double> v_free;
  VectorX<double> vn_first;  // (nv) the first solve's vn when solved again
  std::vector<Vector6<double>> momentum_target;
  std::vector<char> island_grounded;  // (islands) a contact with the ground
  // implicit_pd: per servoed joint its state this step, per dof the
  // implicit gain h (kd + h kp) added to the free-motion matrix, and the
  // actuators' generalized force as applied (GetActuatorForces).
  struct PdJoint {
    int dof{0};
    double u{0};        // torque at vn = v: kp (q_d - q - h v) + kd (v_d - v)
    double gain{0};     // kd + h kp, N m s / rad
    double limit{0};    // effort limit
    double applied{0};  // not implicit: the limit it applies, signed
    bool implicit{false};
  };
  std::vector<PdJoint> pd;
  VectorX<double> pd_gain, actuator_force;  // (nv)
  // implicit_velocity_products: d tau / dv at vdot = 0 (its dtau_dv), and
  // per subtree the free-motion matrix with it and its LU factors.
  std::optional<DynamicsDerivativesCache<double>> deriv;
  VectorX<double> zero_nv;  // (nv)
  std::vector<MatrixX<double>> ivp_A;
  std::vector<Eigen::PartialPivLU<MatrixX<double>>> ivp_lu;
  // Lemke islands: the dense Delassus matrix, the LCP and Lemke's tableau.
  solvers::RowGroupLemkeWorkspace lemke;
  // Convex islands: local offset of each subtree's dofs (-1 outside the
  // island), the island's subtrees, dense A, J packed
  // (solvers::ConvexPackedRows), v*, b, v, gamma.
  std::vector<int> tree_off, isl_trees, island_dofs;
  MatrixX<double> cA;
  std::vector<int> ccols, ccol_begin;
  std::vector<double> cvals;
  // Packing scratch: per column of a constraint, its first row's entry in
  // the Jacobian pool and the pool's row stride.
  std::vector<std::pair<const double*, int>> csrc;
  VectorX<double> cvstar, cb, cv, cgamma;
  // Per group of the island: its first row in the solve, or -1 if it is
  // left out (a speculative contact that the step does not close).
  std::vector<int> crow;
  std::vector<solvers::ConvexConstraint> ccons;
  solvers::ConvexSolverWorkspace convex;
  // Convex islands of free bodies only (solvers::SolveFreeBodyContact):
  // per body its 6 x 6 block of A, per constraint its two bodies (island
  // order, -1: the world) and its rows on them (36 values); per body
  // whether its block is a positive diagonal (SubtreeInfo's).
  std::vector<solvers::Matrix6d> fbA;
  std::vector<char> fbdiag;
  std::vector<int> fbbodies;
  std::vector<double> fbvals;
  solvers::FreeBodySolverWorkspace free_body;
  TimeSteppingStepStats stats;
};

struct TimeSteppingSlot {
  mutable TimeSteppingScratch s;
};

}  // namespace internal

using internal::RowGroup;
using internal::RowKind;
using internal::SubtreeInfo;
using internal::TimeSteppingMemory;
using internal::TimeSteppingScratch;
using internal::WarmStartEntry;

struct TimeSteppingRigidBodySystem::Impl {
  std::vector<SubtreeInfo> subtrees;
  std::vector<int> dofs;          // subtree dofs, concatenated
  std::vector<int> tree_of_body;  // (num bodies) subtree or -1 (anchored)
  std::vector<int> tree_of_dof;   // (nv)
  std::vector<int> local_of_dof;  // (nv) index within its subtree
  std::vector<double> damping;    // (nv) joint damping, treated implicitly
  std::vector<std::vector<int>> bodies_of_tree;  // (subtrees) their bodies
  std::vector<int> body_frame;  // (num bodies) frame index of each body
  // Articulated subtrees whose root body hangs from the world (or a body
  // welded to it) by a floating joint, and free bodies whose center of
  // mass is off their origin: their momentum is conserved
  // (TimeSteppingOptions::conserve_momentum).
  std::vector<int> floating_trees;
  std::vector<double> tree_mass;  // (subtrees) kg
  // implicit_pd: per actuator, its servo law (Actuator::ImplicitGains;
  // null: any other actuator, evaluated explicitly).
  std::vector<const ImplicitJointGains*> implicit_gains;
  int num_pd_joints{0};
  bool has_articulated{false};
  bool needs_velocity_kinematics{false};
  bool actuators_need_kinematics{false};
  int max_subtree_dofs{0};
  std::vector<int> actuator_port, noise_port, sensor_port;
  int applied_port{-1};
  int accel_group{-1};
  // Polyhedral cone: k = options.friction_directions directions.
  solvers::PolygonalFrictionCone cone;
  // The exact (round) cone, for the piles that kConvex hands to PGS.
  solvers::PolygonalFrictionCone disk{solvers::PolygonalFrictionCone::Disk()};
  // (subtrees) offset of each subtree's dofs in `dofs`, and their number:
  // the solvers' view of the subtrees (solvers::JacobianRowLayout).
  std::vector<int> tree_dof_start, tree_num_dofs;
  // (dofs, the subtrees' concatenated list) each dof's parent dof within
  // its subtree, local index, or -1 at the subtree's root: the kinematic
  // tree along which the free-motion matrix of an articulated subtree is
  // factored (TimeSteppingStepper::FactorMass). Parents come first (a
  // parent's local index is below its children's).
  std::vector<int> local_parent;

  static TimeSteppingScratch& Scratch(const Context<double>& context) {
    return context.get_abstract_parameter<internal::TimeSteppingSlot>(0).s;
  }
};

namespace internal {

// Union-find with path halving.
inline int Find(std::vector<int>& uf, int i) {
  while (uf[i] != i) {
    uf[i] = uf[uf[i]];
    i = uf[i];
  }
  return i;
}

}  // namespace internal

using internal::Find;
using solvers::RowDot;

// The solver, per step; see the header for the scheme.
struct TimeSteppingStepper {
  const TimeSteppingRigidBodySystem& sys;
  const TimeSteppingRigidBodySystem::Impl& impl;
  TimeSteppingScratch& s;
  const TimeSteppingOptions& opt;
  double h;
  bool any_penetration_{false};

  const int* Dofs(int t) const {
    return impl.dofs.data() + impl.subtrees[t].dof_start;
  }
  int N(int t) const { return impl.subtrees[t].n; }

  // The row groups' Jacobians as the solvers read them (valid until the
  // pool grows).
  solvers::JacobianRowLayout Layout() const {
    return {impl.dofs.data(), impl.tree_dof_start.data(),
            impl.tree_num_dofs.data(), s.jac.data()};
  }

  // Reserves `size` doubles in the Jacobian pool; returns the offset.
  int Alloc(int size, int* used) {
    const int offset = *used;
    *used += size;
    if (static_cast<int>(s.jac.size()) < *used) s.jac.resize(2 * *used);
    return offset;
  }

  // For a contact between bodies a and b of one subtree: the local columns
  // [0, end) of the dofs of their lowest common ancestor and its ancestors.
  // Those dofs move a and b as one rigid body, so the point's relative
  // velocity has no component along them: computed, the two sides' terms
  // cancel only to round-off (1e-17), which put every self-contact on the
  // floating base's and the whole path's columns (the solver's Newton
  // matrix and Delassus walks along 10-12 columns instead of the 2-4 between
  // the bodies, and an internal impulse on the base). 0 if the common
  // ancestor is the world.
  int SharedColumnsEnd(int a, int b) const {
    const auto& bodies = sys.tree().bodies();
    while (a != b) {  // bodies are in topological order (parents first)
      if (a > b) {
        a = bodies[a].parent;
      } else {
        b = bodies[b].parent;
      }
    }
    for (int c = a; c > 0; c = bodies[c].parent) {
      if (bodies[c].num_velocities > 0) {
        const int last =
            bodies[c].velocity_start + bodies[c].num_velocities - 1;
        return impl.local_of_dof[last] + 1;
      }
    }
    return 0;
  }

  // Adds sign * d_i^T (velocity Jacobian of the point p_W of `body`) to a
  // contact's three rows J (3 x n, row major, the subtree's n dofs), for
  // its directions d (normal, t1, t2; world): from the body's Jacobian at
  // its origin on its ancestors' dofs (the values ContactPointJacobian,
  // contact_rows.h, gives on those columns), or for a free body its closed
  // form. Columns below from_col are left out (a contact between two
  // bodies of one subtree: their common ancestors' dofs move both bodies
  // together, so those columns cancel; see SharedColumnsEnd). Returns the
  // columns [0, end) that the rows may have touched (parents first: the
  // body's ancestors' dofs lie below its own last one).
  int AddPointRows(int body, const Vector3<double>& p_W, double sign,
                   const Vector3<double>* d, double* J, int n,
                   int from_col = 0) {
    const int t = impl.tree_of_body[body];
    const SubtreeInfo& st = impl.subtrees[t];
    if (st.free) {
      const RigidTransform<double>& X = s.cache.X_WB[body];
      const Vector3<double> p_B = X.R.transpose() * (p_W - X.p);
      // v_P = R (v_o + w x p_B): d . v_P = (p_B x d_B) . w + d_B . v_o.
      for (int i = 0; i < 3; ++i) {
        const Vector3<double> d_B = X.R.transpose() * d[i];
        const Vector3<double> c = p_B.cross(d_B);
        double* row = J + i * n;
        for (int a = 0; a < 3; ++a) {
          row[a] += sign * c[a];
          row[3 + a] += sign * d_B[a];
        }
      }
      return 6;
    }
    // The body's Jacobian at its origin o, once per body per BuildRows
    // (its contacts share it): the velocity of p is v_o + w x (p - o), so
    // d . v_p = d . v_o + ((p - o) x d) . w, on the body's ancestor dofs.
    if (s.body_jac[body] < 0) {
      s.body_jac[body] = static_cast<int>(s.body_jac_cols.size());
      int end = 0;
      ForEachWorldAlignedJacobianColumn(
          sys.tree(), s.cache, body, s.cache.X_WB[body].p, s.origin_cols.data(),
          s.origin_col_formed.data(), [&](int dof, const Vector6<double>& c) {
            const int col = impl.local_of_dof[dof];
            end = std::max(end, col + 1);
            s.body_jac_cols.push_back(col);
            s.body_jac_vals.insert(s.body_jac_vals.end(), c.data(),
                                   c.data() + 6);
          });
      s.body_jac_end[body] = static_cast<int>(s.body_jac_cols.size());
      s.body_jac_ncols[body] = end;
    }
    // Row i on column e: sign [r x d_i; d_i] . Je, a 3 x 6 product (the
    // sign folded into W: negation is exact), the three rows in one pass.
    const Vector3<double> r_W = p_W - s.cache.X_WB[body].p;
    Eigen::Matrix<double, 3, 6, Eigen::RowMajor> W;
    for (int i = 0; i < 3; ++i) {
      W.row(i).head<3>() = sign * r_W.cross(d[i]).transpose();
      W.row(i).tail<3>() = sign * d[i].transpose();
    }
    double *row0 = J, *row1 = J + n, *row2 = J + 2 * n;
    for (int e = s.body_jac[body]; e < s.body_jac_end[body]; ++e) {
      const int col = s.body_jac_cols[e];
      if (col < from_col) continue;
      const Vector3<double> o =
          W * Eigen::Map<const Vector6<double>>(s.body_jac_vals.data() + 6 * e);
      row0[col] += o[0];
      row1[col] += o[1];
      row2[col] += o[2];
    }
    return s.body_jac_ncols[body];
  }

  // The free-motion matrix A of articulated subtree t (its entries on each
  // dof's ancestor path, written to s.mass[t] by FreeVelocities), factored
  // in place as A = L^T L along the kinematic tree (PackedTreeFactor,
  // Featherstone's LTL): no fill, the sum of the dofs' squared depths
  // instead of n^3 / 6. False if A is not positive definite.
  bool FactorMass(int t) { return s.mass[t].Factor() < 0; }

  // x <- A^-1 x for subtree t's factor (FactorMass).
  void SolveMass(int t, double* x) const { s.mass[t].Solve(x); }

  // x <- A x for subtree t's factor (FactorMass); tmp: (n) scratch.
  void MulMass(int t, double* x, double* tmp) const {
    s.mass[t].Multiply(x, tmp);
  }

  // Y = (M_t^-1 J^T)^T for the r rows J (r x n, row major) of subtree t.
  void InverseMassTimes(int t, const double* J, int r, double* Y) {
    const SubtreeInfo& st = impl.subtrees[t];
    if (st.free && st.minv_diagonal) {
      // The product's terms with zeros left out (the same values).
      const Vector6<double> d = st.Minv.diagonal();
      for (int i = 0; i < r; ++i) {
        Eigen::Map<Vector6<double>>(Y + 6 * i) =
            d.cwiseProduct(Eigen::Map<const Vector6<double>>(J + 6 * i));
      }
      return;
    }
    if (st.free) {
      for (int i = 0; i < r; ++i) {
        Eigen::Map<Vector6<double>>(Y + 6 * i).noalias() =
            st.Minv * Eigen::Map<const Vector6<double>>(J + 6 * i);
      }
      return;
    }
    const int n = st.n;
    std::copy(J, J + r * n, Y);
    for (int i = 0; i < r; ++i) SolveMass(t, Y + n * i);
  }

  void Run(const Context<double>& context, State<double>* next);
  void CheckFinite(const Context<double>& context,
                   const VectorX<double>& qn) const;
  void FreeVelocities();
  void RotateFreeVelocities(const VectorX<double>& qn);
  void MomentumAtStart();
  void ServoTorques();
  bool SaturateServos();
  void AddConstraintImpulses();
  void ConserveMomentum(const VectorX<double>& qn);
  void BuildRows(const Context<double>& context);
  // BuildRows .. the island solves, from the free velocity in s.vn to the
  // constrained one.
  void SolveConstraints(const Context<double>& context,
                        const TimeSteppingMemory& memory);
  // True if a constraint missed a row the solve's s.vn needed.
  bool MissedRows();
  // Set for a second solve (MissedRows): the first solve's velocity.
  const VectorX<double>* v_next_{nullptr};
  // Islands of the subtrees that the row groups couple (but those left out
  // and not joined), groups by island (s.order, s.island_start).
  void BuildIslands(const TimeSteppingMemory& memory);
  // s.uf: the subtrees joined by the row groups (every_row false: but the
  // contacts left out and not joined).
  void UniteSubtrees(bool every_row);
  // Under kConvex with convex_leave_out_separating: marks the speculative
  // contacts between two subtrees that the step does not close (no
  // warm-start impulse, separated by the free motion s.vn and the last
  // velocities s.v) as left out of the islands (RowGroup::left_out,
  // s.left_out): two spheres 2 mm apart, parting, are two islands.
  void LeaveOutSeparated(const TimeSteppingMemory& memory);
  // Solves every island; then, while a contact left out of the islands is
  // not separated by the answer, joins it and solves again the island it
  // now belongs to from the free velocities (s.v_free).
  void SolveIslands(const TimeSteppingMemory& memory);
  void SolveIsland(int island);
  // True if contact group g is separated (SAP's vc_n > mu |vc_t|) at the
  // velocities x (nv, all dofs).
  bool SeparatedAt(const internal::RowGroup& g, const double* x) const;
  void WarmStart(const TimeSteppingMemory& memory);
  void SolvePgs(int island);
  bool SolveLemke(int island);
  void SolveConvex(int island);
  // A contact group's constraint velocities J x + b (3) at the island's
  // local velocities x (SolveConvex's layout: s.tree_off), and J x2 + b in
  // vc2 if x2 is given (one pass over the rows).
  void ContactVelocity(const internal::RowGroup& g, const double* x, double* vc,
                       const double* x2 = nullptr, double* vc2 = nullptr) const;
  void IslandFailed(int island, const char* solver, int iterations,
                    double residual, double tolerance);
  double time_{0};
  // Why the current island's Lemke solve failed (empty if it did not run
  // or succeeded): its PGS fallback's error says it.
  std::string lemke_failure_{};
  void CorrectPositions();
  void LocalBlocks();
  void LocalBlock(int gi);
  void FormInverseMassRows(int gi);
};

}  // namespace tern
