#include "tern/multibody/tree/dynamics_derivatives.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/joint_kernels.h"
#include "tern/multibody/tree/kinematics.h"

// Derivation (after Carpentier and Mansard, RSS 2018, sec. III), in world
// coordinates about the world origin, where every spatial quantity of every
// body is expressed at one point and no shift is needed between bodies.
//
// Each velocity index k has a subspace column s_k (world), so that
//   v_i = sum_{k on the path to i} s_k qd_k,
//   a_i = a_0 + sum_k (s_k qdd_k + sdot_k qd_k),   a_0 = [0; -g].
// Perturbing dof j (tangent convention of the header) moves its body and
// all below it rigidly by the twist s_j, so a column k below j turns with
// it: ds_k/dq_j = s_j x s_k, for j in a joint strictly above k's, and for j
// in k's own joint when the joint's later coordinates are "after" j: all of
// a ball or floating joint (perturbed in the child frame), and x, y before
// theta for a planar joint (a translation then a rotation); the planar
// joint's translation columns do not turn with theta. Call the dofs on the
// path to body i that do not turn with j the ones "before" j, with their
// velocity vb_j and acceleration ab_j (v and a of j's parent body, plus the
// planar x, y terms for theta). Then
//   sdot_k = u_k x s_k  (u_k = v_i for ball and floating, vb_k otherwise),
//   dv_i/dq_j = s_j x (v_i - vb_j) = s_j x v_i + d_j,   d_j = vb_j x s_j,
//   da_i/dq_j = s_j x (a_i - ab_j) + d_j x (v_i - vb_j)
//             = s_j x a_i + c_j + d_j x v_i,   c_j = ab_j x s_j + vb_j x d_j,
//   dv_i/dqd_j = s_j,  da_i/dqd_j = sdot_j + s_j x v_i + d_j,  da_i/dqdd_j =
//   s_j.
// In da_i/dq_j it is d_j, not sdot_j as the mixed partials of coordinates
// would give: a ball or floating joint's perturbation (in its child frame)
// does not commute with its own motion, and by the Jacobi identity the
// bracket leaves (vb_j x s_j) x s_k in d(sdot_k)/dq_j; for the other joints
// d_j = sdot_j. A body's force f_i = I_i a_i + v_i x* I_i v_i - f_ext_i
// (world inertia I_i, moving with the body: dI_i/dq_j = s_j x* I_i - I_i s_j
// x) then has
//   df_i/dq_j  = s_j x* f_i + I_i c_j + B_i d_j,
//   df_i/dqd_j = I_i (sdot_j + d_j) + B_i s_j,
// with B_i = [h_i]bar - K_i - K_i^T, K_i = I_i [v_i x], [h]bar x = x x* h
// and h_i = I_i v_i (B_i is Carpentier and Mansard's body Coriolis
// operator: the time derivative of I_i plus [h_i]bar). The terms s_j x* f_i
// cancel against ds_m/dq_j in tau_m = s_m^T F_m (F_m the subtree sum of
// f), as (s_j x s_m)^T F = -s_m^T (s_j x* F), except where s_m does not
// turn with j. With IC, KC, hC, F the subtree sums at the deeper body c of
// the pair (m, j) (BC from hC and KC as B from h and K):
//   dtau_m/dq_j  = s_m^T (IC c_j + BC d_j)
//                  + [s_m does not turn with j] s_m^T (s_j x* F_c),
//   dtau_m/dqd_j = s_m^T (IC (sdot_j + d_j) + BC s_j)  (+ damping if m = j),
//   dtau_m/dqdd_j = H_mj = s_m^T IC s_j  (+ armature if m = j).
// Every pair of dofs on one branch is visited once, as in the composite
// rigid body algorithm: O(nv d) for depth d.

namespace tern {

using internal::CheckSizes;

template <typename T>
DynamicsDerivativesCache<T>::DynamicsDerivativesCache(
    const RigidBodyTree<T>& tree)
    : num_bodies(tree.num_bodies()), num_velocities(tree.num_velocities()) {
  const int nv = num_velocities;
  const std::size_t nb = num_bodies;
  dtau_dq = MatrixX<T>::Zero(nv, nv);
  dtau_dv = MatrixX<T>::Zero(nv, nv);
  H = MatrixX<T>::Zero(nv, nv);
  tau = VectorX<T>::Zero(nv);
  dvdot_dq = MatrixX<T>::Zero(nv, nv);
  dvdot_dv = MatrixX<T>::Zero(nv, nv);
  dvdot_dtau = MatrixX<T>::Zero(nv, nv);
  vdot = VectorX<T>::Zero(nv);
  s.assign(nv, SpatialMotion<T>::Zero());
  sdot.assign(nv, SpatialMotion<T>::Zero());
  d.assign(nv, SpatialMotion<T>::Zero());
  c.assign(nv, SpatialMotion<T>::Zero());
  v_W.assign(nb, SpatialMotion<T>::Zero());
  a_W.assign(nb, SpatialMotion<T>::Zero());
  IC.assign(nb, Matrix6<T>::Zero());
  KC.assign(nb, Matrix6<T>::Zero());
  hC.assign(nb, SpatialForce<T>::Zero());
  F.assign(nb, SpatialForce<T>::Zero());
  L = MatrixX<T>::Zero(nv, nv);
  stacked_T = MatrixX<T>::Zero(3 * nv, nv);
}

namespace {

template <typename T>
void CheckDerivativesCache(const char* who, const RigidBodyTree<T>& tree,
                           const DynamicsDerivativesCache<T>& deriv) {
  if (deriv.num_bodies != tree.num_bodies() ||
      deriv.num_velocities != tree.num_velocities()) {
    throw std::invalid_argument(fmt::format(
        "{}: the DynamicsDerivativesCache was made for a tree with {} bodies "
        "and {} velocities, but tree '{}' has {} and {}",
        who, deriv.num_bodies, deriv.num_velocities, tree.name(),
        tree.num_bodies(), tree.num_velocities()));
  }
}

// True if column m of a joint turns when coordinate j of the same joint
// moves (see the derivation): all pairs of a ball or floating joint, j <= m
// for the planar joint's (x, y, theta).
template <typename T>
inline bool TurnsWithinJoint(const RigidBody<T>& b, int j, int m) {
  return b.joint.type != JointType::kPlanar || j <= m;
}

// [h]bar x = x x* h, for the body Coriolis operator.
template <typename T>
inline SpatialForce<T> HBar(const SpatialForce<T>& h,
                            const SpatialMotion<T>& x) {
  return CrossForce(x, h);
}

// K = I [v x] for a 6x6 spatial inertia I and motion v.
template <typename T>
inline void InertiaTimesCross(const Matrix6<T>& I, const SpatialMotion<T>& v,
                              Matrix6<T>* K) {
  // Column k of I [v x] is I (v x e_k).
  for (int k = 0; k < 6; ++k) {
    K->col(k).noalias() =
        I * CrossMotion(v, SpatialMotion<T>(SpatialMotion<T>::Unit(k)));
  }
}

// Forward pass: world poses (into cache), columns s, sdot, d, c, body
// velocities and accelerations with base acceleration a0. With `dynamics`
// also each body's inertia terms (IC, KC, hC, F start as the body's own).
template <typename T>
void ForwardPass(const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
                 DynamicsDerivativesCache<T>* D, const VectorX<T>& q,
                 const VectorX<T>& v, const VectorX<T>& vdot,
                 const SpatialMotion<T>& a0, bool dynamics,
                 const std::vector<SpatialForce<T>>* f_ext) {
  ForwardKinematics(tree, cache, q);
  const int nb = tree.num_bodies();
  D->v_W[0].setZero();
  D->a_W[0] = a0;
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = tree.bodies()[i];
    const RigidTransform<T>& X = cache->X_WB[i];
    const SpatialMotion<T>& vp = D->v_W[b.parent];
    const SpatialMotion<T>& ap = D->a_W[b.parent];
    const int vi = b.velocity_start, n = b.num_velocities;
    SpatialMotion<T> vB = vp;
    for (int k = 0; k < n; ++k) {
      D->s[vi + k] = TransformMotion(X, SpatialMotion<T>(cache->S[i].col(k)));
      vB += D->s[vi + k] * v(vi + k);
    }
    const bool free = b.joint.type == JointType::kBall ||
                      b.joint.type == JointType::kFloating;
    SpatialMotion<T> vb = vp, ab = ap, aB = ap;
    for (int k = 0; k < n; ++k) {
      const SpatialMotion<T>& s = D->s[vi + k];
      if (b.joint.type == JointType::kPlanar && k == 2) {
        // theta turns nothing of x and y: they are "before" it.
        for (int l = 0; l < 2; ++l) {
          vb += D->s[vi + l] * v(vi + l);
          ab += D->s[vi + l] * vdot(vi + l) + D->sdot[vi + l] * v(vi + l);
        }
      }
      D->sdot[vi + k] = CrossMotion(free ? vB : vb, s);
      D->d[vi + k] = CrossMotion(vb, s);
      D->c[vi + k] = CrossMotion(ab, s) + CrossMotion(vb, D->d[vi + k]);
      aB += s * vdot(vi + k) + D->sdot[vi + k] * v(vi + k);
    }
    D->v_W[i] = vB;
    D->a_W[i] = aB;
    if (!dynamics) continue;
    // A welded body's inertia is its carrier's; a body welded to the world
    // passes nothing to any dof.
    if (b.welded || (b.parent == 0 && n == 0)) {
      D->IC[i].setZero();
      D->KC[i].setZero();
      D->hC[i].setZero();
      D->F[i].setZero();
    } else {
      b.inertia_with_welded.Transformed(X).WriteMatrix(&D->IC[i]);
      const Matrix6<T>& I = D->IC[i];
      D->hC[i].noalias() = I * vB;
      D->F[i].noalias() = I * aB;
      D->F[i] += CrossForce(vB, D->hC[i]);
      InertiaTimesCross(I, vB, &D->KC[i]);
    }
    if (f_ext != nullptr) D->F[i] -= TransformForce(X, (*f_ext)[i]);
  }
}

// The backward pass of InverseDynamicsDerivatives (see the derivation).
template <typename T>
void BackwardPass(const RigidBodyTree<T>& tree, DynamicsDerivativesCache<T>* D,
                  const VectorX<T>& v, const VectorX<T>& vdot) {
  const int nb = tree.num_bodies();
  const RigidBody<T>* bodies = tree.bodies().data();
  MatrixX<T>& dq = D->dtau_dq;
  MatrixX<T>& dv = D->dtau_dv;
  MatrixX<T>& H = D->H;
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    const Matrix6<T>& IC = D->IC[i];
    const Matrix6<T>& KC = D->KC[i];
    const SpatialForce<T>& hC = D->hC[i];
    const SpatialForce<T>& F = D->F[i];
    const int vi = b.velocity_start, n = b.num_velocities;
    for (int jj = 0; jj < n; ++jj) {
      const int j = vi + jj;
      const SpatialMotion<T>& s_j = D->s[j];
      const SpatialMotion<T>& d_j = D->d[j];
      const SpatialMotion<T>& sd_j = D->sdot[j];
      // BC x = [hC]bar x - KC x - KC^T x.
      const SpatialMotion<T> sdd = sd_j + d_j;
      SpatialForce<T> Pv = IC * sdd;
      Pv += HBar(hC, s_j) - KC * s_j - KC.transpose() * s_j;
      SpatialForce<T> Pq = IC * D->c[j];
      Pq += HBar(hC, d_j) - KC * d_j - KC.transpose() * d_j;
      const SpatialForce<T> sxF = CrossForce(s_j, F);
      const SpatialForce<T> Is = IC * s_j;
      // Rows of the same joint.
      for (int mm = 0; mm < n; ++mm) {
        const int m = vi + mm;
        const SpatialMotion<T>& s_m = D->s[m];
        T x = s_m.dot(Pq);
        if (!TurnsWithinJoint(b, jj, mm)) x += s_m.dot(sxF);
        dq(m, j) = x;
        dv(m, j) = s_m.dot(Pv);
        H(m, j) = s_m.dot(Is);
      }
      dv(j, j) += b.joint.damping;
      H(j, j) += b.joint.armature;
      // Rows of the joints above: the pair's deeper body is i.
      const SpatialForce<T> gq = Pq + sxF;
      for (int a = b.parent; a > 0; a = bodies[a].parent) {
        const RigidBody<T>& ba = bodies[a];
        for (int mm = 0; mm < ba.num_velocities; ++mm) {
          const int m = ba.velocity_start + mm;
          const SpatialMotion<T>& s_m = D->s[m];
          dq(m, j) = s_m.dot(gq);
          dv(m, j) = s_m.dot(Pv);
          const T Hmj = s_m.dot(Is);
          H(m, j) = Hmj;
          H(j, m) = Hmj;
        }
      }
    }
    // Columns of the joints above, rows of this one (deeper body i).
    for (int mm = 0; mm < n; ++mm) {
      const int m = vi + mm;
      const SpatialMotion<T>& s_m = D->s[m];
      const SpatialForce<T> r1 = IC * s_m;
      // BC^T s_m = -(s_m x* hC) - KC^T s_m - KC s_m.
      const SpatialForce<T> Ks = KC * s_m;
      const SpatialForce<T> KTs = KC.transpose() * s_m;
      const SpatialForce<T> r2 = -HBar(hC, s_m) - KTs - Ks;
      for (int a = b.parent; a > 0; a = bodies[a].parent) {
        const RigidBody<T>& ba = bodies[a];
        for (int jj = 0; jj < ba.num_velocities; ++jj) {
          const int j = ba.velocity_start + jj;
          const SpatialMotion<T>& d_j = D->d[j];
          const SpatialMotion<T>& sd_j = D->sdot[j];
          dq(m, j) = r1.dot(D->c[j]) + r2.dot(d_j);
          dv(m, j) = r1.dot(SpatialMotion<T>(sd_j + d_j)) + r2.dot(D->s[j]);
        }
      }
      D->tau(m) =
          s_m.dot(F) + b.joint.damping * v(m) + b.joint.armature * vdot(m);
    }
    if (b.parent > 0) {
      const int p = b.parent;
      D->IC[p] += IC;
      D->KC[p] += KC;
      D->hC[p] += hC;
      D->F[p] += F;
    }
  }
}

// H = L^T D L in place in the tree's sparsity (RBDA Table 6.3): L is unit
// lower triangular with L(k, i) nonzero only for i an ancestor dof of k.
template <typename T>
void FactorLTDL(const std::vector<int>& lambda, MatrixX<T>* Hf) {
  MatrixX<T>& A = *Hf;
  const int n = static_cast<int>(A.rows());
  for (int k = n - 1; k >= 0; --k) {
    for (int i = lambda[k]; i >= 0; i = lambda[i]) {
      const T a = A(k, i) / A(k, k);
      for (int j = i; j >= 0; j = lambda[j]) A(i, j) -= a * A(k, j);
      A(k, i) = a;
    }
  }
}

// Rows [r0, r0 + B) of Z = Z H^-1 for H = L^T D L from FactorLTDL: RBDA
// Table 6.4 applied to the rows of Z^T, i.e. to segments of Z's columns,
// which are contiguous (a row operation on a column-major matrix would
// stride through memory and not vectorize). B rows at a time, in fixed-size
// registers, over the whole tree before the next B.
// Rows of Z from `unit_row` on are rows of the identity (row unit_row + j
// is e_j^T); such a row is zero in columns past j until the first sweep
// reaches j (it only moves entries to ancestors, of lower index), so the
// sweep starts there.
template <int B, typename T>
void SolveLTDLBlock(const std::vector<int>& lambda, const MatrixX<T>& Lf,
                    MatrixX<T>* Z, Eigen::Index r0, Eigen::Index unit_row) {
  using Col = Eigen::Matrix<T, B, 1>;
  const int n = static_cast<int>(Lf.rows());
  const Eigen::Index stride = Z->rows();
  T* base = Z->data() + r0;
  auto col = [&](int k) { return Eigen::Map<Col>(base + k * stride); };
  int first = n - 1;
  if (r0 >= unit_row) {
    first = std::min<int>(first, static_cast<int>(r0 - unit_row) + B - 1);
  }
  // L^T y = b: leaves first.
  for (int k = first; k >= 0; --k) {
    const Col zk = col(k);
    for (int i = lambda[k]; i >= 0; i = lambda[i]) col(i) -= Lf(k, i) * zk;
  }
  // D^-1, then L x = z: root first.
  for (int k = 0; k < n; ++k) {
    Col zk = col(k) / Lf(k, k);
    for (int i = lambda[k]; i >= 0; i = lambda[i]) zk -= Lf(k, i) * col(i);
    col(k) = zk;
  }
}

template <typename T>
void SolveLTDLTransposed(const std::vector<int>& lambda, const MatrixX<T>& Lf,
                         MatrixX<T>* Z, Eigen::Index unit_row) {
  const Eigen::Index rows = Z->rows();
  Eigen::Index r0 = 0;
  for (; r0 + 8 <= rows; r0 += 8)
    SolveLTDLBlock<8>(lambda, Lf, Z, r0, unit_row);
  for (; r0 + 2 <= rows; r0 += 2)
    SolveLTDLBlock<2>(lambda, Lf, Z, r0, unit_row);
  if (r0 < rows) SolveLTDLBlock<1>(lambda, Lf, Z, r0, unit_row);
}

}  // namespace

template <typename T>
void InverseDynamicsDerivatives(const RigidBodyTree<T>& tree,
                                KinematicsCache<T>* cache,
                                DynamicsDerivativesCache<T>* deriv,
                                const VectorX<T>& q, const VectorX<T>& v,
                                const VectorX<T>& vdot,
                                const std::vector<SpatialForce<T>>* f_ext) {
  CheckSizes("InverseDynamicsDerivatives", tree, *cache, q.size(), v.size(),
             vdot.size(), "vdot");
  CheckDerivativesCache("InverseDynamicsDerivatives", tree, *deriv);
  internal::CheckExternalForces("InverseDynamicsDerivatives", tree, f_ext);
  ForwardPass(tree, cache, deriv, q, v, vdot,
              internal::GravityAcceleration(tree), true, f_ext);
  BackwardPass(tree, deriv, v, vdot);
}

template <typename T>
void ForwardDynamicsDerivatives(const RigidBodyTree<T>& tree,
                                KinematicsCache<T>* cache,
                                DynamicsDerivativesCache<T>* deriv,
                                const VectorX<T>& q, const VectorX<T>& v,
                                const VectorX<T>& tau,
                                const std::vector<SpatialForce<T>>* f_ext) {
  CheckDerivativesCache("ForwardDynamicsDerivatives", tree, *deriv);
  deriv->vdot = ForwardDynamics(tree, cache, q, v, tau, f_ext);
  InverseDynamicsDerivatives(tree, cache, deriv, q, v, deriv->vdot, f_ext);
  const std::vector<int>& lambda = tree.velocity_parents();
  deriv->L = deriv->H;
  FactorLTDL(lambda, &deriv->L);
  // [dvdot_dq dvdot_dv H^-1] = H^-1 [-dtau_dq -dtau_dv 1], solved as its
  // transpose, one stacked right-hand side.
  const int nv = tree.num_velocities();
  MatrixX<T>& Z = deriv->stacked_T;
  Z.topRows(nv) = -deriv->dtau_dq.transpose();
  Z.middleRows(nv, nv) = -deriv->dtau_dv.transpose();
  Z.bottomRows(nv).setIdentity();
  SolveLTDLTransposed(lambda, deriv->L, &Z, 2 * nv);
  deriv->dvdot_dq = Z.topRows(nv).transpose();
  deriv->dvdot_dv = Z.middleRows(nv, nv).transpose();
  deriv->dvdot_dtau = Z.bottomRows(nv);  // symmetric
}

template <typename T>
void ExternalForceDerivative(const RigidBodyTree<T>& tree,
                             const KinematicsCache<T>& cache,
                             const DynamicsDerivativesCache<T>& deriv, int body,
                             Eigen::Matrix<T, Eigen::Dynamic, 6>* dvdot_df) {
  CheckDerivativesCache("ExternalForceDerivative", tree, deriv);
  if (body < 0 || body >= tree.num_bodies() ||
      dvdot_df->rows() != tree.num_velocities()) {
    throw std::invalid_argument(fmt::format(
        "ExternalForceDerivative: body {} and an output of {} rows for tree "
        "'{}' with {} bodies and {} velocities",
        body, dvdot_df->rows(), tree.name(), tree.num_bodies(),
        tree.num_velocities()));
  }
  // dvdot/df = H^-1 J^T with J's columns the world columns s_m brought
  // into B: J^T f = sum_m e_m (X_WB^-1 s_m) . f.
  dvdot_df->setZero();
  const RigidTransform<T>& X_WB = cache.X_WB[body];
  for (int k = body; k > 0; k = tree.bodies()[k].parent) {
    const RigidBody<T>& b = tree.bodies()[k];
    for (int mm = 0; mm < b.num_velocities; ++mm) {
      const int m = b.velocity_start + mm;
      const SpatialMotion<T> s_B = InverseTransformMotion(X_WB, deriv.s[m]);
      dvdot_df->noalias() += deriv.dvdot_dtau.col(m) * s_B.transpose();
    }
  }
}

template <typename T>
void FrameKinematicsDerivativesPass(const RigidBodyTree<T>& tree,
                                    KinematicsCache<T>* cache,
                                    DynamicsDerivativesCache<T>* deriv,
                                    const VectorX<T>& q, const VectorX<T>& v,
                                    const VectorX<T>& vdot) {
  CheckSizes("FrameKinematicsDerivativesPass", tree, *cache, q.size(), v.size(),
             vdot.size(), "vdot");
  CheckDerivativesCache("FrameKinematicsDerivativesPass", tree, *deriv);
  const SpatialMotion<T> a0 = SpatialMotion<T>::Zero();
  ForwardPass<T>(tree, cache, deriv, q, v, vdot, a0, false, nullptr);
}

namespace {
template <typename T>
void CheckFrameOutput(const RigidBodyTree<T>& tree, int frame,
                      Eigen::Index cols, const char* who) {
  if (frame < 0 || frame >= tree.num_frames() ||
      cols != tree.num_velocities()) {
    throw std::invalid_argument(fmt::format(
        "{}: frame {} and outputs of {} columns for tree '{}' with {} frames "
        "and {} velocities",
        who, frame, cols, tree.name(), tree.num_frames(),
        tree.num_velocities()));
  }
}
}  // namespace

template <typename T>
void CalcFrameKinematicsDerivatives(const RigidBodyTree<T>& tree,
                                    const KinematicsCache<T>& cache,
                                    const DynamicsDerivativesCache<T>& deriv,
                                    int frame,
                                    FrameKinematicsDerivatives<T>* out) {
  CheckFrameOutput(tree, frame, out->J.cols(),
                   "CalcFrameKinematicsDerivatives");
  const int body = tree.frames()[frame].body;
  const RigidTransform<T> X_WF = CalcFramePose(tree, cache, frame);
  const SpatialMotion<T>& vB = deriv.v_W[body];
  out->J.setZero();
  out->dV_dq.setZero();
  out->dA_dq.setZero();
  out->dA_dv.setZero();
  // A quantity x_F = X_FW x_W changes with dof j by X_FW (dx_W - s_j x x_W):
  // the derivation's terms in s_j x (.) cancel.
  for (int k = body; k > 0; k = tree.bodies()[k].parent) {
    const RigidBody<T>& b = tree.bodies()[k];
    for (int jj = 0; jj < b.num_velocities; ++jj) {
      const int j = b.velocity_start + jj;
      const SpatialMotion<T>& s = deriv.s[j];
      const SpatialMotion<T>& sd = deriv.sdot[j];
      const SpatialMotion<T>& d = deriv.d[j];
      out->J.col(j) = InverseTransformMotion(X_WF, s);
      out->dV_dq.col(j) = InverseTransformMotion(X_WF, d);
      out->dA_dq.col(j) = InverseTransformMotion(
          X_WF, SpatialMotion<T>(deriv.c[j] + CrossMotion(d, vB)));
      out->dA_dv.col(j) = InverseTransformMotion(
          X_WF, SpatialMotion<T>(sd + d + CrossMotion(s, vB)));
    }
  }
}

template <typename T>
void FrameJacobianTimesVectorDerivative(const RigidBodyTree<T>& tree,
                                        const KinematicsCache<T>& cache,
                                        DynamicsDerivativesCache<T>* deriv,
                                        int frame, const VectorX<T>& x,
                                        Matrix6X<T>* dJx_dq) {
  CheckFrameOutput(tree, frame, dJx_dq->cols(),
                   "FrameJacobianTimesVectorDerivative");
  if (x.size() != tree.num_velocities()) {
    throw std::invalid_argument(fmt::format(
        "FrameJacobianTimesVectorDerivative: x has size {} but tree '{}' has "
        "{} velocities",
        x.size(), tree.name(), tree.num_velocities()));
  }
  const int body = tree.frames()[frame].body;
  const RigidTransform<T> X_WF = CalcFramePose(tree, cache, frame);
  // J x in world is sum_k s_k x_k over the path; dof j changes the F-frame
  // value by X_FW (xb_j x s_j), xb_j the part of the sum "before" j.
  SpatialMotion<T> rest = SpatialMotion<T>::Zero();
  for (int k = body; k > 0; k = tree.bodies()[k].parent) {
    const RigidBody<T>& b = tree.bodies()[k];
    for (int jj = 0; jj < b.num_velocities; ++jj) {
      const int j = b.velocity_start + jj;
      deriv->s[j] =
          TransformMotion(cache.X_WB[k], SpatialMotion<T>(cache.S[k].col(jj)));
      rest += deriv->s[j] * x(j);
    }
  }
  dJx_dq->setZero();
  for (int k = body; k > 0; k = tree.bodies()[k].parent) {
    const RigidBody<T>& b = tree.bodies()[k];
    for (int jj = 0; jj < b.num_velocities; ++jj) {
      rest -= deriv->s[b.velocity_start + jj] * x(b.velocity_start + jj);
    }
    // rest = the sum strictly above body k.
    for (int jj = 0; jj < b.num_velocities; ++jj) {
      const int j = b.velocity_start + jj;
      SpatialMotion<T> xb = rest;
      if (b.joint.type == JointType::kPlanar && jj == 2) {
        xb += deriv->s[j - 2] * x(j - 2) + deriv->s[j - 1] * x(j - 1);
      }
      dJx_dq->col(j) =
          InverseTransformMotion(X_WF, CrossMotion(xb, deriv->s[j]));
    }
  }
}

template struct DynamicsDerivativesCache<double>;
template void InverseDynamicsDerivatives<double>(
    const RigidBodyTree<double>&, KinematicsCache<double>*,
    DynamicsDerivativesCache<double>*, const VectorX<double>&,
    const VectorX<double>&, const VectorX<double>&,
    const std::vector<SpatialForce<double>>*);
template void ForwardDynamicsDerivatives<double>(
    const RigidBodyTree<double>&, KinematicsCache<double>*,
    DynamicsDerivativesCache<double>*, const VectorX<double>&,
    const VectorX<double>&, const VectorX<double>&,
    const std::vector<SpatialForce<double>>*);
template void ExternalForceDerivative<double>(
    const RigidBodyTree<double>&, const KinematicsCache<double>&,
    const DynamicsDerivativesCache<double>&, int,
    Eigen::Matrix<double, Eigen::Dynamic, 6>*);
template void FrameKinematicsDerivativesPass<double>(
    const RigidBodyTree<double>&, KinematicsCache<double>*,
    DynamicsDerivativesCache<double>*, const VectorX<double>&,
    const VectorX<double>&, const VectorX<double>&);
template void CalcFrameKinematicsDerivatives<double>(
    const RigidBodyTree<double>&, const KinematicsCache<double>&,
    const DynamicsDerivativesCache<double>&, int,
    FrameKinematicsDerivatives<double>*);
template void FrameJacobianTimesVectorDerivative<double>(
    const RigidBodyTree<double>&, const KinematicsCache<double>&,
    DynamicsDerivativesCache<double>*, int, const VectorX<double>&,
    Matrix6X<double>*);

}  // namespace tern
