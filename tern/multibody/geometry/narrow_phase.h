#pragma once
// Narrow phase: contact points between two shapes at given poses.
//
// Conventions (docs/geometry.md): the normal n is a unit vector in world
// coordinates pointing from A toward B (the direction in which B would move
// to separate); the signed distance phi is > 0 when the shapes are apart,
// < 0 when they overlap (then -phi is the penetration depth along n); p_WA
// and p_WB are witness points on the surfaces of A and B with
// p_WB - p_WA = phi n. A query reports a pair when phi <= margin.
//
// Each pair of shape kinds has one kernel, chosen from a table indexed by
// the two kinds (no virtual call): closed forms for the common pairs, our
// GJK (separated) and EPA (overlapping), on the cores of spheres and
// capsules, for the other convex pairs, with libccd's MPR as a fallback, and
// a BVH walk for triangle meshes. A kernel writes a manifold by the rules
// in docs/geometry.md: at most kMaxManifoldPoints points, except a convex
// hull against a half-space, which reports every hull vertex within the
// margin (up to kMaxContactPoints, the deepest if there are more). A
// compliant force summed over those points is then continuous in the pose:
// a vertex enters the set at phi = margin, not when it becomes one of the
// four deepest (which made a mesh foot's force jump between sole vertices
// and stalled an error-controlled integrator on Atlas's first step).
#include <cmath>

#include "tern/math/spatial_algebra.h"
#include "tern/multibody/geometry/shape.h"

namespace tern {

inline constexpr int kMaxManifoldPoints = 4;
inline constexpr int kMaxContactPoints = 16;  // output capacity per pair

struct Contact {
  int geometry_a{-1};  // indices in the GeometryModel (-1 outside a model)
  int geometry_b{-1};
  int body_a{-1};
  int body_b{-1};
  Vector3<double> normal{Vector3<double>::UnitZ()};  // unit, world, A to B
  double signed_distance{0};                         // phi, m
  Vector3<double> p_WA{Vector3<double>::Zero()};     // on A's surface, m
  Vector3<double> p_WB{Vector3<double>::Zero()};     // on B's surface, m
};

// The tangent basis of a contact normal that every contact user shares (the
// compliant, rigid and time-stepping contacts, the narrow phase): t1 is the
// world axis least aligned with unit n (x, or y when |n_x| >= 0.9) made
// orthogonal to n, t2 = n x t1; for n = z, t1 = x and t2 = y. It depends on
// n only, so a polyhedral friction cone keeps its orientation from step to
// step.
inline void ContactTangentBasis(const Vector3<double>& n, Vector3<double>* t1,
                                Vector3<double>* t2) {
  const Vector3<double> e = std::abs(n.x()) < 0.9 ? Vector3<double>::UnitX()
                                                  : Vector3<double>::UnitY();
  *t1 = (e - n.dot(e) * n).normalized();
  *t2 = n.cross(*t1);
}

// Writes to out[0..n) the contact points of shape a at pose X_WA and shape b
// at X_WB with phi <= margin (m), and returns n <= kMaxContactPoints. The ids
// in `out` are left for the caller. Pairs that have no kernel (half-space
// with half-space or mesh, mesh with mesh) return 0. No heap allocation.
int CollideShapes(const Shape& a, const RigidTransform<double>& X_WA,
                  const Shape& b, const RigidTransform<double>& X_WB,
                  double margin, Contact* out);

// True if the pair of kinds has a kernel (both orders).
bool HasCollisionKernel(ShapeKind a, ShapeKind b);

// Signed distance, normal and witness points of two convex shapes by the
// general route (GJK distance, EPA when they overlap), whatever their kinds:
// what CollideShapes uses for pairs without a closed form. Exposed so that
// tests can compare the closed forms with it. Returns one point.
Contact ConvexConvexGeneral(const Shape& a, const RigidTransform<double>& X_WA,
                            const Shape& b, const RigidTransform<double>& X_WB);

// The world-axis-aligned box around shape s at pose X_WS; false (and the
// box untouched) for a half-space, which is unbounded.
bool ShapeAabb(const Shape& s, const RigidTransform<double>& X_WS,
               Vector3<double>* lo, Vector3<double>* hi);

// Ray cast against one shape: the first point where the ray
// origin + t dir (dir unit, world), 0 <= t <= max_distance, enters the shape.
// A ray that starts inside a solid shape hits it at t = 0 with normal -dir.
// Triangle meshes are surfaces: either side is hit, normal facing the ray.
// Returns false on a miss.
bool RayCastShape(const Shape& s, const RigidTransform<double>& X_WS,
                  const Vector3<double>& origin, const Vector3<double>& dir,
                  double max_distance, double* t, Vector3<double>* normal);

}  // namespace tern
