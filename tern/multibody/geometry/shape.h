#pragma once
// Collision shapes (issue 13). A Shape is a small value: a kind, up to three
// sizes, and for meshes a shared pointer to immutable vertex data, so copying
// one never copies a mesh. Every shape is expressed in its own frame G:
//   sphere     radius r about G's origin
//   capsule    radius r around the segment z in [-h, h] (h = length / 2)
//   box        half extents (hx, hy, hz) centered at the origin
//   cylinder   radius r, z in [-h, h]
//   ellipsoid  semi-axes (a, b, c) along x, y, z
//   half-space z <= 0 (its boundary is the plane z = 0, outward normal +z)
//   convex     the convex hull of a point set (vertices and outward faces)
//   triangle   a triangle mesh, for static scenery attached to the world
// The factories check their input and throw std::invalid_argument naming the
// bad value; GeometryModel adds the geometry and body names.
#include <cstdint>
#include <memory>
#include <vector>

#include "tern/common/eigen_types.h"

namespace tern {

enum class ShapeKind : std::uint8_t {
  kSphere,
  kCapsule,
  kBox,
  kCylinder,
  kEllipsoid,
  kHalfSpace,
  kConvex,
  kTriangleMesh,
};
inline constexpr int kNumShapeKinds = 8;
const char* ShapeKindName(ShapeKind kind);

// A convex polytope: its vertices and its faces as planes n·x <= d.
struct ConvexPolytope {
  std::vector<Vector3<double>> vertices;   // in G, m; the hull's vertices only
  std::vector<Eigen::Vector3i> triangles;  // hull facets, CCW seen from out
  std::vector<Vector4<double>> planes;     // (n, d), unit n outward, m
  Vector3<double> lo, hi;                  // bounding box in G, m
  Vector3<double> centroid;                // of the vertices, in G, m
};

// A triangle mesh with a bounding-volume hierarchy over its triangles
// (median split, built once), for ray casts and contact queries against
// static scenery.
struct TriangleMesh {
  struct Node {
    Vector3<double> lo, hi;  // box of the node's triangles, in G, m
    int first{0};            // leaves: first index into `order`
    int count{0};            // leaves: number of triangles; 0 for inner nodes
    int right{0};            // inner nodes: right child (left is this + 1)
  };
  std::vector<Vector3<double>> vertices;   // in G, m
  std::vector<Eigen::Vector3i> triangles;  // CCW seen from the outside
  std::vector<Node> nodes;                 // nodes[0] is the root
  std::vector<int> order;                  // triangle indices, leaf-grouped
};

struct Shape {
  ShapeKind kind{ShapeKind::kSphere};
  // Sphere: (r, -, -); capsule, cylinder: (r, h, -); box: half extents;
  // ellipsoid: semi-axes; half-space: unused. m.
  Vector3<double> dims{Vector3<double>::Zero()};
  std::shared_ptr<const ConvexPolytope> convex;  // kConvex only
  std::shared_ptr<const TriangleMesh> mesh;      // kTriangleMesh only

  static Shape Sphere(double radius);
  // Full side lengths, as in URDF <box size>.
  static Shape Box(double size_x, double size_y, double size_z);
  // `length` is the full length of the axis (URDF convention), along z.
  static Shape Capsule(double radius, double length);
  static Shape Cylinder(double radius, double length);
  static Shape Ellipsoid(double a, double b, double c);
  static Shape HalfSpace();
  // The convex hull (computed with Debian's qhull) of `points`. Throws if
  // there are fewer than 4 points, a point is not finite, or the points are
  // flat (no volume).
  static Shape ConvexHull(const std::vector<Vector3<double>>& points);
  // A triangle mesh. Throws if it is empty, a vertex is not finite or a
  // triangle names a vertex that does not exist.
  static Shape Mesh(const std::vector<Vector3<double>>& vertices,
                    const std::vector<Eigen::Vector3i>& triangles);
};

// True if every edge of the triangles is shared by exactly two triangles
// with opposite orientations (a closed, consistently oriented surface).
bool IsClosedMesh(const std::vector<Eigen::Vector3i>& triangles);

}  // namespace tern
