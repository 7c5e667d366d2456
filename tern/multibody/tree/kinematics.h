#pragma once
// Kinematic algorithms over (RigidBodyTree, KinematicsCache): forward
// kinematics, frame poses, Jacobians and Jdot*v, center of mass, momentum,
// energy, and the maps between v and qdot. References: Featherstone, Rigid
// Body Dynamics Algorithms (RBDA), Springer 2008, ch. 2-4. None allocates for
// T = double once the cache exists (outputs passed by pointer must already
// have the right size). Each throws std::invalid_argument naming the tree if
// an argument has the wrong size.
#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// Forward kinematics (RBDA sec. 4.1, the first loop of Table 5.1): body poses
// X_PB, X_WB and joint subspaces S. With v also spatial velocities V, joint
// velocities vJ and the velocity-product accelerations A_bias (vdot = 0);
// with vdot also spatial accelerations A (gravity not included).
template <typename T>
void ForwardKinematics(const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
                       const VectorX<T>& q);  // (nq)
template <typename T>
void ForwardKinematics(const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
                       const VectorX<T>& q,   // (nq)
                       const VectorX<T>& v);  // (nv)
template <typename T>
void ForwardKinematics(const RigidBodyTree<T>& tree, KinematicsCache<T>* cache,
                       const VectorX<T>& q,      // (nq)
                       const VectorX<T>& v,      // (nv)
                       const VectorX<T>& vdot);  // (nv)

// Pose X_WF of frame `frame` (index into tree.frames()). Needs positions.
template <typename T>
RigidTransform<T> CalcFramePose(const RigidBodyTree<T>& tree,
                                const KinematicsCache<T>& cache, int frame);

// Spatial velocity [w; v] of frame F expressed in F (v: velocity of F's
// origin), and of F in world coordinates at point p_FP (fixed in F) as
// [w_W; pdot_W]. Need velocities.
template <typename T>
SpatialMotion<T> CalcFrameSpatialVelocity(const RigidBodyTree<T>& tree,
                                          const KinematicsCache<T>& cache,
                                          int frame);

namespace internal {
// The loop of both ForEachWorldAlignedJacobianColumn below: for each dof
// on the body's path to the root, children first, its subspace column
// about the world origin from origin(k, j, dof) (body k's j-th), moved to
// P.
template <typename T, typename Origin, typename Out>
void ForEachJacobianColumnAt(const RigidBodyTree<T>& tree, int body,
                             const Vector3<T>& p_WP, Origin origin, Out out) {
  for (int k = body; k > 0; k = tree.bodies()[k].parent) {
    const RigidBody<T>& b = tree.bodies()[k];
    for (int j = 0; j < b.num_velocities; ++j) {
      const int dof = b.velocity_start + j;
      const Vector6<T>& s = origin(k, j, dof);
      Vector6<T> c;
      c.template head<3>() = s.template head<3>();
      c.template tail<3>() =
          s.template tail<3>() + s.template head<3>().cross(p_WP);
      out(dof, c);
    }
  }
}
}  // namespace internal

// The nonzero columns of the world-aligned Jacobian of point p_WP (world)
// fixed to `body`: calls out(velocity index, column [w; v_P]) for each dof
// on the body's path to the root, children first (the other columns are
// zero). WorldAlignedJacobian's sparse form, for callers that keep only
// these columns (the time-stepping plant's per-body contact Jacobians).
// Needs positions.
template <typename T, typename Out>
void ForEachWorldAlignedJacobianColumn(const RigidBodyTree<T>& tree,
                                       const KinematicsCache<T>& cache,
                                       int body, const Vector3<T>& p_WP,
                                       Out out) {
  Vector6<T> s;
  internal::ForEachJacobianColumnAt(
      tree, body, p_WP,
      [&](int k, int j, int) -> const Vector6<T>& {
        // S_j about the world origin (RBDA eq. 4.33).
        s = TransformMotion(cache.X_WB[k], SpatialMotion<T>(cache.S[k].col(j)));
        return s;
      },
      out);
}

// The same columns, with each S_j about the world origin formed once and
// kept in origin_cols[velocity] while formed[velocity] is nonzero (nv of
// each; the caller clears `formed` when the positions change): the bodies
// of one tree share their ancestors' columns (a robot's floating base is
// every body's). The same values as the overload above.
template <typename T, typename Out>
void ForEachWorldAlignedJacobianColumn(const RigidBodyTree<T>& tree,
                                       const KinematicsCache<T>& cache,
                                       int body, const Vector3<T>& p_WP,
                                       Vector6<T>* origin_cols, char* formed,
                                       Out out) {
  internal::ForEachJacobianColumnAt(
      tree, body, p_WP,
      [&](int k, int j, int dof) -> const Vector6<T>& {
        if (!formed[dof]) {
          origin_cols[dof] = TransformMotion(
              cache.X_WB[k], SpatialMotion<T>(cache.S[k].col(j)));
          formed[dof] = 1;
        }
        return origin_cols[dof];
      },
      out);
}

// Frame Jacobians (RBDA sec. 4.3 / Featherstone's body Jacobian). J (6 x nv,
// sized by the caller) maps v to:
//  - FrameSpatialJacobian: the spatial velocity of F expressed in F.
//  - WorldAlignedJacobian: [w_W; velocity of point P in world], P fixed in
//    F at p_FP; rows 3..5 are the usual point (translational) Jacobian.
// Need positions.
template <typename T>
void FrameSpatialJacobian(const RigidBodyTree<T>& tree,
                          const KinematicsCache<T>& cache, int frame,
                          Matrix6X<T>* J);
template <typename T>
void WorldAlignedJacobian(const RigidBodyTree<T>& tree,
                          const KinematicsCache<T>& cache, int frame,
                          const Vector3<T>& p_FP, Matrix6X<T>* J);

// Jdot * v for the two Jacobians above: the acceleration of F (resp. of
// point P, with the classical, not spatial, linear acceleration) when
// vdot = 0. Need velocities.
template <typename T>
Vector6<T> FrameSpatialJacobianDotTimesV(const RigidBodyTree<T>& tree,
                                         const KinematicsCache<T>& cache,
                                         int frame);
template <typename T>
Vector6<T> WorldAlignedJacobianDotTimesV(const RigidBodyTree<T>& tree,
                                         const KinematicsCache<T>& cache,
                                         int frame, const Vector3<T>& p_FP);

// Center of mass of the whole tree in world, m. Needs positions.
template <typename T>
Vector3<T> CenterOfMass(const RigidBodyTree<T>& tree,
                        const KinematicsCache<T>& cache);
// Jacobian (3 x nv, sized by the caller) of the center of mass in world,
// by one backward pass over subtree masses. Writes cache subtree scratch.
template <typename T>
void CenterOfMassJacobian(const RigidBodyTree<T>& tree,
                          KinematicsCache<T>* cache, Matrix3X<T>* J);

// Spatial momentum [angular about world origin; linear] in world, and kinetic
// energy 1/2 v^T H v (armature excluded: it is rotor inertia, not body
// motion). Need velocities.
template <typename T>
Vector6<T> SpatialMomentumInWorld(const RigidBodyTree<T>& tree,
                                  const KinematicsCache<T>& cache);
template <typename T>
T KineticEnergy(const RigidBodyTree<T>& tree, const KinematicsCache<T>& cache);
// Gravitational potential energy -sum m_i g . c_i, J. Needs positions.
template <typename T>
T PotentialEnergy(const RigidBodyTree<T>& tree,
                  const KinematicsCache<T>& cache);

// qdot = N(q) v (the seed's vToQdot) and v = N⁺(q) qdot; N⁺ is the
// pseudo-inverse, exact when qdot is tangent to the unit quaternions.
// Outputs must be sized (nq), (nv). q need not be normalized for N.
template <typename T>
void MapVelocityToQDot(const RigidBodyTree<T>& tree, const VectorX<T>& q,
                       const VectorX<T>& v, VectorX<T>* qdot);
template <typename T>
void MapQDotToVelocity(const RigidBodyTree<T>& tree, const VectorX<T>& q,
                       const VectorX<T>& qdot, VectorX<T>* v);
// Rescales every quaternion in q to unit length. Throws std::invalid_argument
// naming the joint if a quaternion is zero.
template <typename T>
void NormalizeQuaternions(const RigidBodyTree<T>& tree, VectorX<T>* q);

}  // namespace tern
