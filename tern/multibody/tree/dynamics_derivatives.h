#pragma once
// Analytic derivatives of the rigid-body dynamics and kinematics, after
// Carpentier and Mansard, "Analytical Derivatives of Rigid Body Dynamics
// Algorithms", Robotics: Science and Systems (RSS) 2018, re-derived for
// Tern's joints and conventions (the derivation is in dynamics_derivatives.cc
// and docs/multibody.md).
//
// Tangent-space convention. Derivatives with respect to q are taken with
// respect to a velocity-sized perturbation dq (nv) integrated on the
// manifold: q ⊕ dq moves each joint by its own velocity coordinates, so
//   revolute, prismatic, planar: q + dq (nq = nv there);
//   ball:     quat ⊗ exp(dw / 2), a rotation dw (rad) in the child frame B;
//   floating: position p + R_JB dv and quat ⊗ exp(dw / 2) for dq = [dw; dv],
//             the twist of B in B, as the joint's velocity v = [w_B; v_B].
// So every derivative "d/dq" below is nv columns wide, and chaining it with
// qdot = N(q) v is the identity: d/dq (x) · v is the rate of x along the
// motion. The ambient (nq-wide) derivative at a unit quaternion follows by
// multiplying on the right with the map from dquat to dw, 2 vec(quat* ⊗ ·)
// (MapQDotToVelocity's map; see RigidBodyDynamicsModel).
//
// Every function takes a DynamicsDerivativesCache made once for the tree;
// then none allocates. All are for T = double. They work in world
// coordinates about the world origin (as Carpentier and Mansard do), not in
// the per-body frames of MassMatrix and ForwardDynamics: far from the world
// origin they lose digits as those would.
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// Workspace and results of the derivative algorithms for one tree. Results
// are public members (sized nv x nv unless said) that the algorithms
// overwrite; each comment says which algorithm fills it. Spatial quantities
// in the scratch are in world coordinates about the world origin
// (Carpentier and Mansard's "o" frame).
template <typename T>
struct DynamicsDerivativesCache {
  explicit DynamicsDerivativesCache(const RigidBodyTree<T>& tree);

  int num_bodies;
  int num_velocities;

  // InverseDynamicsDerivatives (and ForwardDynamicsDerivatives).
  MatrixX<T> dtau_dq;  // d tau / dq, tangent space (see above)
  MatrixX<T> dtau_dv;  // d tau / dv
  MatrixX<T> H;        // d tau / dvdot: the mass matrix, armature included
  VectorX<T> tau;      // (nv) tau itself, N m or N
  // ForwardDynamicsDerivatives.
  MatrixX<T> dvdot_dq;    // d vdot / dq, tangent space
  MatrixX<T> dvdot_dv;    // d vdot / dv
  MatrixX<T> dvdot_dtau;  // d vdot / dtau = H^-1
  VectorX<T> vdot;        // (nv) vdot itself

  // Scratch. Per velocity index (nv): the joint's motion subspace column s,
  // its rate sdot, and the vectors d and c of the derivation.
  std::vector<SpatialMotion<T>> s, sdot, d, c;
  // Per body: spatial velocity and acceleration (gravity included as the
  // base's -g) in world, and the subtree sums of the inertia IC, of
  // K = I [v x], of the momentum h and of the force F.
  std::vector<SpatialMotion<T>> v_W, a_W;
  std::vector<Matrix6<T>> IC, KC;
  std::vector<SpatialForce<T>> hC, F;
  MatrixX<T> L;  // the factor H = L^T D L (RBDA sec. 6.5), D on its diagonal
  MatrixX<T> stacked_T;  // (3 nv x nv) right-hand sides of the solve
};

// d tau / dq, d tau / dv and H = d tau / dvdot of
//   tau = InverseDynamics(q, v, vdot, f_ext)
// (and tau itself) into deriv->dtau_dq, dtau_dv, H, tau; f_ext is held fixed
// in the bodies' frames, as InverseDynamics takes it. Recomputes the body
// poses in cache. O(nv d) for a tree of depth d. Throws
// std::invalid_argument naming the tree if an argument has the wrong size.
template <typename T>
void InverseDynamicsDerivatives(
    const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
    DynamicsDerivativesCache<T>* deriv,
    const VectorX<T>& q,     // (nq)
    const VectorX<T>& v,     // (nv)
    const VectorX<T>& vdot,  // (nv)
    const std::vector<SpatialForce<T>>* f_ext = nullptr);

// d vdot / dq, d vdot / dv and d vdot / dtau = H^-1 of
//   vdot = ForwardDynamics(q, v, tau, f_ext)
// (and vdot itself) into deriv->dvdot_dq, dvdot_dv, dvdot_dtau, vdot. As
// Carpentier and Mansard (sec. IV): d vdot / dx = -H^-1 d tau / dx at the
// vdot of the forward dynamics, with H factored as L^T D L in the tree's
// sparsity (Featherstone, RBDA sec. 6.5). Throws as ForwardDynamics does.
template <typename T>
void ForwardDynamicsDerivatives(
    const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
    DynamicsDerivativesCache<T>* deriv,
    const VectorX<T>& q,    // (nq)
    const VectorX<T>& v,    // (nv)
    const VectorX<T>& tau,  // (nv)
    const std::vector<SpatialForce<T>>* f_ext = nullptr);

// d vdot / d f_ext[body] (nv x 6, sized by the caller) = H^-1 J_B^T, with
// f_ext[body] the spatial force on `body` in its own frame about its origin
// (as ForwardDynamics takes it) and J_B the body's spatial Jacobian in B.
// Needs ForwardDynamicsDerivatives at the same state. Throws
// std::invalid_argument naming the tree on a bad body index or size.
template <typename T>
void ExternalForceDerivative(const RigidBodyTree<T>& tree,
                             const KinematicsCache<T>& cache,
                             const DynamicsDerivativesCache<T>& deriv, int body,
                             Eigen::Matrix<T, Eigen::Dynamic, 6>* dvdot_df);

// Kinematics derivatives of frame F (index into tree.frames()), fixed in
// body B: of its pose X_WF, its spatial velocity V_F = [w; v] and its
// spatial acceleration A_F (RBDA sec. 2.11: the derivative of the spatial
// velocity, not the classical acceleration of F's origin; gravity not
// included), V_F and A_F expressed in F as ForwardKinematics and
// CalcFrameSpatialVelocity give them. dq is in the tangent space (above),
// and the pose's derivative in F's own tangent space: X_WF(q ⊕ dq) = X_WF
// exp(J dq) to first order, with J the frame's spatial Jacobian in F
// (FrameSpatialJacobian), which is also dV_F/dv and dA_F/dvdot.
// Call FrameKinematicsDerivativesPass once per state, then
// CalcFrameKinematicsDerivatives for each frame wanted.
template <typename T>
struct FrameKinematicsDerivatives {
  explicit FrameKinematicsDerivatives(int nv)
      : J(6, nv), dV_dq(6, nv), dA_dq(6, nv), dA_dv(6, nv) {}
  Matrix6X<T> J;      // dX/dq = dV/dv = dA/dvdot
  Matrix6X<T> dV_dq;  // d V_F / dq
  Matrix6X<T> dA_dq;  // d A_F / dq
  Matrix6X<T> dA_dv;  // d A_F / dv
};

// The per-dof quantities for the frame derivatives at (q, v, vdot), gravity
// excluded: body poses into cache, the rest into deriv's scratch.
template <typename T>
void FrameKinematicsDerivativesPass(const RigidBodyTree<T>& tree,
                                    KinematicsCache<T>* cache,
                                    DynamicsDerivativesCache<T>* deriv,
                                    const VectorX<T>& q,      // (nq)
                                    const VectorX<T>& v,      // (nv)
                                    const VectorX<T>& vdot);  // (nv)
template <typename T>
void CalcFrameKinematicsDerivatives(const RigidBodyTree<T>& tree,
                                    const KinematicsCache<T>& cache,
                                    const DynamicsDerivativesCache<T>& deriv,
                                    int frame,
                                    FrameKinematicsDerivatives<T>* out);

// d (J_F(q) x) / dq (6 x nv, sized by the caller) for the frame's spatial
// Jacobian J_F in F (FrameSpatialJacobian) and a fixed x (nv): the
// derivative of a velocity-level constraint or cost J x. Needs body poses
// (ForwardKinematics with q); uses deriv's scratch.
template <typename T>
void FrameJacobianTimesVectorDerivative(const RigidBodyTree<T>& tree,
                                        const KinematicsCache<T>& cache,
                                        DynamicsDerivativesCache<T>* deriv,
                                        int frame, const VectorX<T>& x,
                                        Matrix6X<T>* dJx_dq);

extern template struct DynamicsDerivativesCache<double>;

}  // namespace tern
