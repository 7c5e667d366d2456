#pragma once
// KinematicsCache: the preallocated workspace of the rigid-body algorithms
// (the seed's "kinsol"). It is sized for one RigidBodyTree when constructed;
// after that no algorithm allocates. Results are public members that the
// algorithms overwrite; each comment says which algorithm fills it. All
// per-body arrays have num_bodies entries (index 0 is the world) and hold
// quantities in the body's own frame unless the name ends in _W (world).
// One cache per thread; a cache is not tied to a tree object but to its
// sizes, which every algorithm checks.
#include <vector>

#include "tern/common/default_scalars.h"
#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

//
// The mass matrix H is the one member quadratic in the tree's size (nv x
// nv doubles: 2.9 GB for 10,000 free bodies); a cache made with
// with_mass_matrix = false leaves it empty, and MassMatrix refuses it. The
// plants make their caches that way when nothing they evaluate needs H (a
// scene of free bodies), so memory stays linear in the bodies.
template <typename T>
struct KinematicsCache {
  explicit KinematicsCache(const RigidBodyTree<T>& tree,
                           bool with_mass_matrix = true);

  int num_bodies;
  int num_positions;
  int num_velocities;

  // ForwardKinematics (positions), and every algorithm that takes q.
  std::vector<RigidTransform<T>> X_PB;  // body pose in its parent body
  std::vector<RigidTransform<T>> X_WB;  // body pose in world
  std::vector<Matrix6<T>> S;            // joint motion subspace, first nv cols
  // ForwardKinematics with v.
  std::vector<SpatialMotion<T>> V;       // spatial velocity of the body
  std::vector<SpatialMotion<T>> vJ;      // joint velocity S v_i
  std::vector<SpatialMotion<T>> A_bias;  // spatial acceleration at vdot = 0
  // ForwardKinematics with vdot.
  std::vector<SpatialMotion<T>> A;  // spatial acceleration (no gravity)

  // Scratch of the dynamics algorithms.
  std::vector<SpatialMotion<T>> a;  // accelerations including -gravity
  std::vector<SpatialForce<T>> f;   // joint/articulated bias forces
  // MassMatrix and ForwardDynamics work in world-aligned frames with their
  // origin at each body's origin ("_W": world axes, about the body origin),
  // never about the world origin: see dynamics.h.
  std::vector<Vector3<T>> p_PB_W;     // body origin from the parent's, world
  std::vector<SpatialInertia<T>> Ic;  // composite inertias, _W (CRBA)
  std::vector<SpatialMotion<T>> S_W;  // (nv) subspace columns, _W
  std::vector<Matrix6<T>> IA;         // articulated inertias, _W (ABA)
  std::vector<SpatialMotion<T>> V_W;  // body velocities, _W (ABA)
  std::vector<SpatialMotion<T>> c_W;  // velocity-product accel., _W (ABA)
  std::vector<Matrix6<T>> U;          // IA S (ABA), first nv cols
  std::vector<Matrix6<T>> Dinv;       // (S^T IA S + armature)^-1 (ABA)
  std::vector<Vector6<T>> u;          // tau - S^T pA (ABA)
  std::vector<Vector3<T>> com_sub_W;  // subtree first moment, world
  std::vector<T> mass_sub;            // subtree mass

  MatrixX<T> H;     // (nv x nv) MassMatrix; its structural zeros are set
                    // here once and never written; (0 x 0) without it
  VectorX<T> tau;   // (nv) InverseDynamics, BiasTerm
  VectorX<T> vdot;  // (nv) ForwardDynamics
};

TERN_DECLARE_STRUCT_ON_DEFAULT_SCALARS(KinematicsCache)

}  // namespace tern
