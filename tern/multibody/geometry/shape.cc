#include "tern/multibody/geometry/shape.h"

#include <fmt/format.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace tern {

const char* ShapeKindName(ShapeKind kind) {
  switch (kind) {
    case ShapeKind::kSphere:
      return "sphere";
    case ShapeKind::kCapsule:
      return "capsule";
    case ShapeKind::kBox:
      return "box";
    case ShapeKind::kCylinder:
      return "cylinder";
    case ShapeKind::kEllipsoid:
      return "ellipsoid";
    case ShapeKind::kHalfSpace:
      return "half-space";
    case ShapeKind::kConvex:
      return "convex mesh";
    case ShapeKind::kTriangleMesh:
      return "triangle mesh";
  }
  return "?";
}

namespace {

void CheckPositive(const char* shape, const char* what, double x) {
  if (!(std::isfinite(x) && x > 0)) {
    throw std::invalid_argument(fmt::format(
        "{} {} is {}; it must be positive and finite", shape, what, x));
  }
}

// Builds the BVH of a triangle mesh by median splits along the longest axis
// of the triangles' centroid box (a top-down build, as in Ericson, Real-Time
// Collision Detection, sec. 6.2). Leaves hold up to 4 triangles.
void BuildBvh(TriangleMesh* m, const std::vector<Vector3<double>>& centroid,
              int first, int count) {
  const int index = static_cast<int>(m->nodes.size());
  m->nodes.emplace_back();
  Vector3<double> lo = Vector3<double>::Constant(INFINITY);
  Vector3<double> hi = -lo, clo = lo, chi = -lo;
  for (int k = first; k < first + count; ++k) {
    const Eigen::Vector3i& t = m->triangles[m->order[k]];
    for (int v = 0; v < 3; ++v) {
      lo = lo.cwiseMin(m->vertices[t[v]]);
      hi = hi.cwiseMax(m->vertices[t[v]]);
    }
    clo = clo.cwiseMin(centroid[m->order[k]]);
    chi = chi.cwiseMax(centroid[m->order[k]]);
  }
  m->nodes[index].lo = lo;
  m->nodes[index].hi = hi;
  if (count <= 4) {
    m->nodes[index].first = first;
    m->nodes[index].count = count;
    return;
  }
  int axis = 0;
  (chi - clo).maxCoeff(&axis);
  const int half = count / 2;
  std::nth_element(m->order.begin() + first, m->order.begin() + first + half,
                   m->order.begin() + first + count, [&](int a, int b) {
                     return centroid[a][axis] < centroid[b][axis];
                   });
  BuildBvh(m, centroid, first, half);
  m->nodes[index].right = static_cast<int>(m->nodes.size());
  BuildBvh(m, centroid, first + half, count - half);
}

}  // namespace

Shape Shape::Sphere(double radius) {
  CheckPositive("sphere", "radius", radius);
  Shape s;
  s.kind = ShapeKind::kSphere;
  s.dims = Vector3<double>(radius, 0, 0);
  return s;
}

Shape Shape::Box(double size_x, double size_y, double size_z) {
  CheckPositive("box", "size x", size_x);
  CheckPositive("box", "size y", size_y);
  CheckPositive("box", "size z", size_z);
  Shape s;
  s.kind = ShapeKind::kBox;
  s.dims = 0.5 * Vector3<double>(size_x, size_y, size_z);
  return s;
}

Shape Shape::Capsule(double radius, double length) {
  CheckPositive("capsule", "radius", radius);
  CheckPositive("capsule", "length", length);
  Shape s;
  s.kind = ShapeKind::kCapsule;
  s.dims = Vector3<double>(radius, 0.5 * length, 0);
  return s;
}

Shape Shape::Cylinder(double radius, double length) {
  CheckPositive("cylinder", "radius", radius);
  CheckPositive("cylinder", "length", length);
  Shape s;
  s.kind = ShapeKind::kCylinder;
  s.dims = Vector3<double>(radius, 0.5 * length, 0);
  return s;
}

Shape Shape::Ellipsoid(double a, double b, double c) {
  CheckPositive("ellipsoid", "semi-axis a", a);
  CheckPositive("ellipsoid", "semi-axis b", b);
  CheckPositive("ellipsoid", "semi-axis c", c);
  Shape s;
  s.kind = ShapeKind::kEllipsoid;
  s.dims = Vector3<double>(a, b, c);
  return s;
}

Shape Shape::HalfSpace() {
  Shape s;
  s.kind = ShapeKind::kHalfSpace;
  return s;
}

Shape Shape::ConvexHull(const std::vector<Vector3<double>>& points) {
  if (points.size() < 4) {
    throw std::invalid_argument(fmt::format(
        "convex mesh has {} points; a hull needs at least 4", points.size()));
  }
  std::vector<double> coords(3 * points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    if (!points[i].allFinite()) {
      throw std::invalid_argument(
          fmt::format("convex mesh point {} is not finite", i));
    }
    for (int k = 0; k < 3; ++k) coords[3 * i + k] = points[i][k];
  }
  // Barber, Dobkin, Huhdanpaa, "The Quickhull algorithm for convex hulls",
  // ACM TOMS 22(4), 1996, through Debian's reentrant qhull. "Qt" triangulates
  // the facets; qhull's messages go to a memory stream for our exception.
  char* err_text = nullptr;
  size_t err_size = 0;
  FILE* err = open_memstream(&err_text, &err_size);
  qhT qh_struct;
  qhT* qh = &qh_struct;
  QHULL_LIB_CHECK
  qh_zero(qh, err);
  char command[] = "qhull Qt";
  const int exit_code =
      qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(), False,
                   command, nullptr, err);
  auto poly = std::make_shared<ConvexPolytope>();
  if (exit_code == 0) {
    std::vector<int> new_index(points.size(), -1);
    vertexT* vertex;
    FORALLvertices {
      const int id = qh_pointid(qh, vertex->point);
      new_index[id] = static_cast<int>(poly->vertices.size());
      poly->vertices.push_back(points[id]);
    }
    facetT* facet;
    FORALLfacets {
      int tri[3], n = 0;
      vertexT** vertexp;
      FOREACHvertex_(facet->vertices) {
        if (n < 3) tri[n] = new_index[qh_pointid(qh, vertex->point)];
        ++n;
      }
      if (n != 3) continue;
      const Vector3<double> normal(facet->normal[0], facet->normal[1],
                                   facet->normal[2]);
      const Vector3<double>& a = poly->vertices[tri[0]];
      const Vector3<double> c =
          (poly->vertices[tri[1]] - a).cross(poly->vertices[tri[2]] - a);
      if (c.dot(normal) < 0) std::swap(tri[1], tri[2]);
      poly->triangles.emplace_back(tri[0], tri[1], tri[2]);
      poly->planes.emplace_back(normal[0], normal[1], normal[2],
                                -facet->offset);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(err);
  std::string reason(err_text != nullptr ? err_text : "");
  std::free(err_text);
  if (exit_code != 0 || poly->triangles.size() < 4) {
    const auto line_end = reason.find('\n');
    throw std::invalid_argument(fmt::format(
        "convex hull of {} points failed (flat or degenerate points?): {}",
        points.size(), reason.substr(0, line_end)));
  }
  poly->lo = poly->hi = poly->vertices[0];
  Vector3<double> sum = Vector3<double>::Zero();
  for (const auto& v : poly->vertices) {
    poly->lo = poly->lo.cwiseMin(v);
    poly->hi = poly->hi.cwiseMax(v);
    sum += v;
  }
  poly->centroid = sum / static_cast<double>(poly->vertices.size());
  Shape s;
  s.kind = ShapeKind::kConvex;
  s.convex = std::move(poly);
  return s;
}

Shape Shape::Mesh(const std::vector<Vector3<double>>& vertices,
                  const std::vector<Eigen::Vector3i>& triangles) {
  if (triangles.empty()) {
    throw std::invalid_argument("triangle mesh is empty (no triangles)");
  }
  const int nv = static_cast<int>(vertices.size());
  for (int i = 0; i < nv; ++i) {
    if (!vertices[i].allFinite()) {
      throw std::invalid_argument(
          fmt::format("triangle mesh vertex {} is not finite", i));
    }
  }
  auto mesh = std::make_shared<TriangleMesh>();
  std::vector<Vector3<double>> centroid;
  for (size_t t = 0; t < triangles.size(); ++t) {
    const Eigen::Vector3i& tri = triangles[t];
    if (tri.minCoeff() < 0 || tri.maxCoeff() >= nv) {
      throw std::invalid_argument(fmt::format(
          "triangle mesh triangle {} names a vertex outside 0..{}", t, nv - 1));
    }
    centroid.push_back(
        (vertices[tri[0]] + vertices[tri[1]] + vertices[tri[2]]) / 3.0);
  }
  mesh->vertices = vertices;
  mesh->triangles = triangles;
  mesh->order.resize(triangles.size());
  std::iota(mesh->order.begin(), mesh->order.end(), 0);
  BuildBvh(mesh.get(), centroid, 0, static_cast<int>(triangles.size()));
  Shape s;
  s.kind = ShapeKind::kTriangleMesh;
  s.mesh = std::move(mesh);
  return s;
}

bool IsClosedMesh(const std::vector<Eigen::Vector3i>& triangles) {
  std::vector<std::pair<int, int>> edges;
  edges.reserve(3 * triangles.size());
  for (const auto& t : triangles) {
    for (int k = 0; k < 3; ++k) edges.emplace_back(t[k], t[(k + 1) % 3]);
  }
  std::sort(edges.begin(), edges.end());
  if (std::adjacent_find(edges.begin(), edges.end()) != edges.end()) {
    return false;  // an edge used twice in the same direction
  }
  for (const auto& [a, b] : edges) {
    if (!std::binary_search(edges.begin(), edges.end(), std::make_pair(b, a))) {
      return false;  // a boundary edge
    }
  }
  return !triangles.empty();
}

}  // namespace tern
