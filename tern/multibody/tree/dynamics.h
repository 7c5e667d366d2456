#pragma once
// Dynamics algorithms over (RigidBodyTree, KinematicsCache). The equations of
// motion are
//   H(q) vdot + C(q, v) = tau + sum_i J_i(q)^T f_ext_i
// where H includes joint armature on its diagonal and C includes Coriolis,
// centrifugal, gravity and joint damping (b * v) terms; f_ext_i is the
// spatial force on body i, expressed in body i's frame about its origin.
// Each algorithm recomputes the kinematics it needs from q (and v), writes
// its result into the cache and returns a reference to it. For T = double
// none allocates. Each throws std::invalid_argument naming the tree if an
// argument has the wrong size.
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// Joint-space inertia matrix H(q) (nv x nv) by the composite rigid body
// algorithm (Featherstone, RBDA, sec. 6.2, Table 6.2), with composite
// inertias in world-aligned frames at each body's origin (never about the
// world origin, so H keeps its digits however far the robot is from it).
// Writes cache->H and the body poses. Throws std::invalid_argument naming
// the tree if the cache was made without the mass matrix.
template <typename T>
const MatrixX<T>& MassMatrix(const RigidBodyTree<T>& tree,
                             KinematicsCache<T>* cache,
                             const VectorX<T>& q);  // (nq)

// tau = H vdot + C - sum J^T f_ext by the recursive Newton-Euler algorithm
// (RBDA sec. 5.3, Table 5.1). f_ext may be null; otherwise it has one entry
// per body (entry 0, the world, is ignored). Writes cache->tau.
template <typename T>
const VectorX<T>& InverseDynamics(
    const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
    const VectorX<T>& q,     // (nq)
    const VectorX<T>& v,     // (nv)
    const VectorX<T>& vdot,  // (nv)
    const std::vector<SpatialForce<T>>* f_ext = nullptr);

// The bias term C(q, v) - sum J^T f_ext: InverseDynamics at vdot = 0.
// Writes cache->tau and sets cache->vdot to zero.
template <typename T>
const VectorX<T>& BiasTerm(const RigidBodyTree<T>& tree,
                           KinematicsCache<T>* cache,
                           const VectorX<T>& q,  // (nq)
                           const VectorX<T>& v,  // (nv)
                           const std::vector<SpatialForce<T>>* f_ext = nullptr);

// Forward dynamics by the articulated-body algorithm (RBDA sec. 7.3, Table
// 7.1), extended with armature (added to D_i = S^T IA S) and damping
// (subtracted from u_i). Computes vdot = H⁻¹ (tau - C + sum J^T f_ext)
// without forming H. Runs in world-aligned frames at each body's origin
// (RBDA sec. 7.3 allows any coordinates), so inertias pass to the parent by
// a translation, with no rotation, and nothing is taken about the world
// origin. Writes cache->vdot, the body poses and the cache's
// articulated-body scratch. Throws std::runtime_error naming the joint if
// a joint's articulated inertia is singular (then so is H; see
// CheckMassMatrixNonsingular), rather than return NaN.
template <typename T>
const VectorX<T>& ForwardDynamics(
    const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
    const VectorX<T>& q,    // (nq)
    const VectorX<T>& v,    // (nv)
    const VectorX<T>& tau,  // (nv)
    const std::vector<SpatialForce<T>>* f_ext = nullptr);

}  // namespace tern
