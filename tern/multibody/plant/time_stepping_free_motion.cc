// The time-stepping plant's free motion: the velocities a step reaches
// without constraint impulses (implicit damping, servos and velocity products),
// and the momentum bookkeeping of floating robots.
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

namespace {

// [w; v] of a free body: C = v x* (M v) - gravity wrench, in B.
Vector6<double> FreeBodyBias(const Matrix6<double>& M,
                             const SpatialInertia<double>& I,
                             const Matrix3<double>& R_WB,
                             const Vector3<double>& g_W,
                             const Vector6<double>& V) {
  const Vector6<double> h = M * V;
  const Vector3<double> w = V.head<3>(), vo = V.tail<3>();
  Vector6<double> C;
  C.head<3>() = w.cross(h.head<3>()) + vo.cross(h.tail<3>());
  C.tail<3>() = w.cross(h.tail<3>());
  const Vector3<double> g_B = R_WB.transpose() * g_W;
  C.head<3>() -= I.h.cross(g_B);
  C.tail<3>() -= I.m * g_B;
  return C;
}

}  // namespace

// A free body whose center of mass is its origin keeps its momentum and
// angular momentum in world coordinates over the step (no forces but those
// applied): its body-frame velocities are those of the step turned into
// the body's new orientation, R_n^T R_{n+1}, taken from the quaternions
// the step actually wrote (so pseudo-velocities of the position
// correction and the quaternion update's own angle are accounted for).
// This replaces the explicit velocity-product terms w x m v and w x I w,
// whose forward-Euler treatment scales |v| by sqrt(1 + (h |w|)^2) per
// step: a ball rolling at 50 rad/s would gain speed.
void TimeSteppingStepper::RotateFreeVelocities(const VectorX<double>& qn) {
  const RigidBodyTree<double>& tree = sys.tree();
  for (size_t t = 0; t < impl.subtrees.size(); ++t) {
    const SubtreeInfo& st = impl.subtrees[t];
    if (!st.free || !st.com_at_origin || s.tree_asleep[t]) continue;
    const int v0 = Dofs(static_cast<int>(t))[0];
    const int q0 = st.qstart + 3;
    if (qn.segment<4>(q0) == s.q.segment<4>(q0)) continue;
    const Eigen::Quaterniond a(s.q[q0], s.q[q0 + 1], s.q[q0 + 2], s.q[q0 + 3]);
    const Eigen::Quaterniond b(qn[q0], qn[q0 + 1], qn[q0 + 2], qn[q0 + 3]);
    // dR = R_n^T R_{n+1}; the joint frame's fixed rotation cancels.
    const Matrix3<double> dR =
        (a.normalized().conjugate() * b).toRotationMatrix();
    const Matrix3<double>& I = tree.body(st.body).inertia_with_welded.I;
    const Vector3<double> w = s.vn.segment<3>(v0);
    // With the center of mass at the origin M = diag(I, m 1), so M^-1's
    // angular block is I^-1 (kept with M: no factorization per step); a
    // diagonal one scales (the products' terms with zeros left out).
    if (st.minv_diagonal) {
      const Vector3<double> L = dR.transpose() * I.diagonal().cwiseProduct(w);
      s.vn.segment<3>(v0) = st.Minv.diagonal().head<3>().cwiseProduct(L);
    } else {
      const Vector3<double> L = dR.transpose() * (I * w);
      s.vn.segment<3>(v0).noalias() = st.Minv.topLeftCorner<3, 3>() * L;
    }
    s.vn.segment<3>(v0 + 3) = dR.transpose() * s.vn.segment<3>(v0 + 3);
  }
}

void TimeSteppingStepper::FreeVelocities() {
  const RigidBodyTree<double>& tree = sys.tree();
  const Vector3<double>& g_W = tree.gravity();
  for (size_t t = 0; t < impl.subtrees.size(); ++t) {
    const SubtreeInfo& st = impl.subtrees[t];
    const int* dofs = Dofs(static_cast<int>(t));
    if (st.free) {
      const int v0 = dofs[0];
      const Vector6<double> V = s.v.segment<6>(v0);
      const SpatialInertia<double>& I = tree.body(st.body).inertia_with_welded;
      Vector6<double> C;
      if (st.com_at_origin) {
        // The velocity-product terms are left to RotateFreeVelocities: the
        // gravity wrench alone (I.h = 0).
        const Vector3<double> g_B = s.cache.X_WB[st.body].R.transpose() * g_W;
        C.head<3>().setZero();
        C.tail<3>() = -I.m * g_B;
      } else {
        C = FreeBodyBias(st.M, I, s.cache.X_WB[st.body].R, g_W, V);
      }
      const Vector6<double> f = s.tau.segment<6>(v0) - C;
      if (st.minv_diagonal) {  // the product's terms with zeros left out
        s.vn.segment<6>(v0) = V + h * st.Minv.diagonal().cwiseProduct(f);
      } else {
        s.vn.segment<6>(v0) = V + h * (st.Minv * f);
      }
      continue;
    }
    const int n = st.n;
    // The entries FactorMass reads: each dof with its ancestors. Joint
    // damping at the velocity level (implicit): (H + h D)(vn - v) =
    // h (tau - C) with C holding D v, stable for any h b / I (the explicit
    // update diverges once h b / I > 2). Implicit servos add h (kd + h kp)
    // (their torque at vn = v is in tau).
    PackedTreeFactor& A = s.mass[t];
    const double* H = s.cache.H.data();
    const long nv = s.cache.H.rows();
    for (int k = 0; k < n; ++k) {
      double* row = A.row(k);
      const int* path = A.path(k);
      const double* Hk = H + dofs[k] * nv;  // column dofs[k] = row (symmetric)
      for (int e = 0; e < A.row_size(k); ++e) row[e] = Hk[dofs[path[e]]];
      row[0] += h * impl.damping[dofs[k]] + s.pd_gain[dofs[k]];
    }
    if (opt.solver == TimeSteppingOptions::Solver::kConvex) {
      double* first = A.row(0);
      s.mass_rows[t].assign(first, A.row(n - 1) + A.row_size(n - 1));
    }
    if (!FactorMass(static_cast<int>(t))) {
      throw std::runtime_error(fmt::format(
          "TimeSteppingRigidBodySystem '{}': the mass matrix of the subtree "
          "of body '{}' is not positive definite",
          tree.name(), tree.body(tree.bodies().size() > 1 ? 1 : 0).name));
    }
    Eigen::Map<VectorX<double>> y(s.rhs.data(), n);
    for (int i = 0; i < n; ++i) y[i] = s.tau[dofs[i]] - s.C[dofs[i]];
    if (s.deriv) {
      // The velocity products implicit too: (A + h dC/dv)(vn - v) =
      // h (tau - C) with A + h dC/dv = H + h dtau_dv (at vdot = 0, the
      // damping included) + the servo gains, by LU; the Cholesky factor of
      // A above serves the constraint impulses.
      MatrixX<double>& B = s.ivp_A[t];
      const MatrixX<double>& dv = s.deriv->dtau_dv;
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          B(i, j) = s.cache.H(dofs[i], dofs[j]) + h * dv(dofs[i], dofs[j]);
        }
        B(j, j) += s.pd_gain[dofs[j]];
      }
      s.ivp_lu[t].compute(B);
      Eigen::Map<VectorX<double>> x(s.tau_k.data(), n);  // tau_k: free now
      x = s.ivp_lu[t].solve(y);
      y = x;
    } else {
      SolveMass(static_cast<int>(t), y.data());
    }
    for (int i = 0; i < n; ++i) s.vn[dofs[i]] = s.v[dofs[i]] + h * y[i];
  }
}

// Implicit servos (TimeSteppingOptions::implicit_pd): each joint's torque
// at vn = v, u = kp (q_d - q - h v) + kd (v_d - v), goes into tau; within
// the effort limit the joint is implicit (gain h (kd + h kp) on the
// free-motion matrix's diagonal), beyond it it applies the limit.
void TimeSteppingStepper::ServoTorques() {
  s.pd_gain.setZero();
  int j = 0;
  const auto& actuators = sys.actuators();
  for (size_t k = 0; k < actuators.size(); ++k) {
    const ImplicitJointGains* pd = impl.implicit_gains[k];
    if (pd == nullptr) continue;
    const int n = static_cast<int>(pd->velocity_indices.size());
    const double* u = s.actuator_u[k];
    for (int i = 0; i < n; ++i, ++j) {
      auto& p = s.pd[j];
      p.dof = pd->velocity_indices[i];
      const double kp = pd->kp[i], kd = pd->kd[i];
      const double v = s.v[p.dof];
      p.u = kp * (u[i] - s.q[pd->position_indices[i]] - h * v) +
            kd * (u[n + i] - v);
      p.gain = kd + h * kp;
      p.limit = pd->effort_limits[i];
      p.implicit = std::abs(p.u) <= p.limit;
      if (p.implicit) {
        s.pd_gain[p.dof] += h * p.gain;
        s.tau[p.dof] += p.u;
      } else {
        p.applied = std::copysign(p.limit, p.u);
        s.tau[p.dof] += p.applied;
      }
    }
  }
}

// After the free motion: a servo whose implicit torque u - (kd + h kp)
// (vn - v) exceeds its limit applies the limit instead; returns whether
// any joint switched (then the free motion is solved again).
bool TimeSteppingStepper::SaturateServos() {
  bool changed = false;
  for (auto& p : s.pd) {
    if (!p.implicit) continue;
    const double tau = p.u - p.gain * (s.vn[p.dof] - s.v[p.dof]);
    if (std::abs(tau) <= p.limit) continue;
    p.implicit = false;
    p.applied = std::copysign(p.limit, tau);
    s.pd_gain[p.dof] -= h * p.gain;
    s.tau[p.dof] += p.applied - p.u;
    changed = true;
  }
  return changed;
}

// Momentum of floating robots (TimeSteppingOptions::conserve_momentum).
// The base rows of H(q) v are the subtree's spatial momentum in the base
// frame B about B's origin (the floating joint's motion subspace is the
// identity in B), and the base rows of a generalized force are the
// resultant wrench on the subtree: so joint torques, joint damping and
// internal constraints drop out and only external forces change the target.
void TimeSteppingStepper::MomentumAtStart() {
  const RigidBodyTree<double>& tree = sys.tree();
  for (int t : impl.floating_trees) {
    const int* dofs = Dofs(t);
    const int n = N(t);
    const int root = impl.bodies_of_tree[t][0];
    const RigidTransform<double>& X_WB = s.cache.X_WB[root];
    // A free body's mass matrix is its constant spatial inertia st.M; a
    // robot's base rows are in the tree's H.
    const SubtreeInfo& st = impl.subtrees[t];
    auto H = [&](int i, int j) {
      return st.free ? st.M(i, j) : s.cache.H(dofs[i], dofs[j]);
    };
    SpatialForce<double> h_B = SpatialForce<double>::Zero();
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < 6; ++i) h_B[i] += H(i, j) * s.v[dofs[j]];
    }
    // External wrenches over the step: the actuators' (base rows of tau)
    // and gravity, m g at the center of mass c = (m c)_B / m, read from
    // the composite inertia H_bb = [[I, [m c]x], [.., m 1]].
    for (int i = 0; i < 6; ++i) h_B[i] += h * s.tau[dofs[i]];
    const double m = impl.tree_mass[t];
    const Vector3<double> mc_B(H(2, 4), H(0, 5), H(1, 3));
    const Vector3<double> c_W = X_WB * (mc_B / m);
    SpatialForce<double> target = TransformForce(X_WB, h_B);
    const Vector3<double> f = h * m * tree.gravity();
    target.head<3>() += c_W.cross(f);
    target.tail<3>() += f;
    s.momentum_target[t] = target;
  }
}

// Adds to the targets the base rows of the constraint impulses the solver
// applied, A (vn - v_free) with A the subtree's free-motion matrix (its
// factor L^T L is in s.mass, FactorMass), taken at the step's start pose.
void TimeSteppingStepper::AddConstraintImpulses() {
  // Islands in contact with the world, an anchored body or a robot with a
  // fixed base (not a floating robot nor a free body) take momentum from the
  // ground: their floating robots are not corrected (a rigid twist change would
  // undo the contact solve).
  s.island_grounded.assign(s.island_start.size(), 0);
  for (const RowGroup& g : s.rows.groups) {
    if (g.kind != RowKind::kContact) continue;
    for (const int body : {g.body_a, g.body_b}) {
      const int t = impl.tree_of_body[body];
      if (t < 0 || !impl.subtrees[t].floating) {
        s.island_grounded[g.island] = 1;
      }
    }
  }
  for (int t : impl.floating_trees) {
    if (s.tree_asleep[t] || s.island_grounded[s.island_of[t]]) continue;
    const int* dofs = Dofs(t);
    const int n = N(t);
    Eigen::Map<VectorX<double>> y(s.rhs.data(), n);
    for (int i = 0; i < n; ++i) y[i] = s.vn[dofs[i]] - s.v_free[dofs[i]];
    if (y.isZero(0.0)) continue;
    const SubtreeInfo& st = impl.subtrees[t];
    if (st.free) {
      y.head<6>() = st.M * y.head<6>().eval();
    } else {
      MulMass(t, y.data(), s.rhs2.data());
    }
    const int root = impl.bodies_of_tree[t][0];
    s.momentum_target[t] +=
        TransformForce(s.cache.X_WB[root], SpatialForce<double>(y.head<6>()));
  }
}

// Corrects the base twist of each floating robot so that its momentum at
// (qn, vn) equals the target: with the composite inertia I_c and the
// momentum h at qn, both world-aligned at the new base origin, the twist
// change dV = I_c^-1 (target - h) moves the whole subtree rigidly.
// Overwrites s.cache with the kinematics at (qn, vn) if a robot is
// corrected (none is when each lies on the ground: then nothing is done).
void TimeSteppingStepper::ConserveMomentum(const VectorX<double>& qn) {
  const RigidBodyTree<double>& tree = sys.tree();
  bool any = false;
  for (int t : impl.floating_trees) {
    any |= !s.tree_asleep[t] && !s.island_grounded[s.island_of[t]];
  }
  if (!any) return;
  ForwardKinematics(tree, &s.cache, qn, s.vn);
  for (int t : impl.floating_trees) {
    if (s.tree_asleep[t] || s.island_grounded[s.island_of[t]]) continue;
    const int root = impl.bodies_of_tree[t][0];
    const RigidTransform<double>& X_WB = s.cache.X_WB[root];
    SpatialInertia<double> Ic;
    SpatialForce<double> h_A = SpatialForce<double>::Zero();
    for (int b : impl.bodies_of_tree[t]) {
      const RigidTransform<double> X_Ab(s.cache.X_WB[b].R,
                                        s.cache.X_WB[b].p - X_WB.p);
      const SpatialInertia<double>& I_b = tree.body(b).inertia;
      Ic += I_b.Transformed(X_Ab);
      h_A += TransformForce(X_Ab, I_b * s.cache.V[b]);
    }
    const RigidTransform<double> X_WA(Matrix3<double>::Identity(), X_WB.p);
    const SpatialForce<double> target_A =
        InverseTransformForce(X_WA, SpatialForce<double>(s.momentum_target[t]));
    Matrix6<double> M;
    Ic.WriteMatrix(&M);
    const Vector6<double> dV_A = M.llt().solve(target_A - h_A);
    const int v0 = Dofs(t)[0];
    s.vn.segment<3>(v0) += X_WB.R.transpose() * dV_A.head<3>();
    s.vn.segment<3>(v0 + 3) += X_WB.R.transpose() * dV_A.tail<3>();
  }
}

}  // namespace tern
