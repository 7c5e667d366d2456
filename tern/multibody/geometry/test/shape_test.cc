#include "tern/multibody/geometry/shape.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <functional>
#include <stdexcept>

namespace tern {
namespace {

using V3 = Vector3<double>;

std::vector<V3> CubePoints(double h) {
  std::vector<V3> p;
  for (int i = 0; i < 8; ++i) {
    p.emplace_back((i & 1) ? h : -h, (i & 2) ? h : -h, (i & 4) ? h : -h);
  }
  return p;
}

void ExpectThrowWith(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << text << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(ShapeTest, FactoriesStoreHalfSizes) {
  EXPECT_EQ(Shape::Box(1, 2, 3).dims, V3(0.5, 1, 1.5));
  EXPECT_EQ(Shape::Capsule(0.1, 0.4).dims, V3(0.1, 0.2, 0));
  EXPECT_EQ(Shape::Cylinder(0.1, 0.4).dims, V3(0.1, 0.2, 0));
  EXPECT_EQ(Shape::Ellipsoid(1, 2, 3).dims, V3(1, 2, 3));
  EXPECT_EQ(Shape::HalfSpace().kind, ShapeKind::kHalfSpace);
}

TEST(ShapeTest, NonPositiveOrNanSizesThrowNamingTheShape) {
  ExpectThrowWith([] { Shape::Sphere(0); }, "sphere radius is 0");
  ExpectThrowWith([] { Shape::Sphere(-1); }, "sphere radius is -1");
  ExpectThrowWith([] { Shape::Box(1, -2, 1); }, "box size y is -2");
  ExpectThrowWith([] { Shape::Capsule(0.1, NAN); }, "capsule length is nan");
  ExpectThrowWith([] { Shape::Cylinder(-0.1, 1); }, "cylinder radius");
  ExpectThrowWith([] { Shape::Ellipsoid(1, 1, 0); }, "ellipsoid semi-axis c");
}

TEST(ShapeTest, ConvexHullOfACubeWithAnInteriorPoint) {
  std::vector<V3> p = CubePoints(0.5);
  p.emplace_back(0.1, 0.1, 0.1);  // inside: not a hull vertex
  const Shape s = Shape::ConvexHull(p);
  ASSERT_EQ(s.kind, ShapeKind::kConvex);
  EXPECT_EQ(s.convex->vertices.size(), 8u);
  EXPECT_EQ(s.convex->triangles.size(), 12u);
  EXPECT_TRUE(IsClosedMesh(s.convex->triangles));
  // Outward planes at distance 0.5 from the center; vertices on or inside.
  for (const auto& pl : s.convex->planes) {
    EXPECT_NEAR(pl.head<3>().norm(), 1, 1e-12);
    EXPECT_NEAR(pl[3], 0.5, 1e-12);
    for (const V3& v : s.convex->vertices) {
      EXPECT_LE(pl.head<3>().dot(v), pl[3] + 1e-12);
    }
  }
  // Triangles wind counterclockwise seen from outside.
  for (size_t i = 0; i < s.convex->triangles.size(); ++i) {
    const auto& t = s.convex->triangles[i];
    const V3& a = s.convex->vertices[t[0]];
    const V3 n =
        (s.convex->vertices[t[1]] - a).cross(s.convex->vertices[t[2]] - a);
    EXPECT_GT(n.dot(s.convex->planes[i].head<3>()), 0);
  }
}

TEST(ShapeTest, ConvexHullRejectsFlatAndTooFewPoints) {
  ExpectThrowWith(
      [] {
        Shape::ConvexHull({V3(0, 0, 0), V3(1, 0, 0), V3(0, 1, 0)});
      },
      "at least 4");
  ExpectThrowWith(
      [] {
        Shape::ConvexHull({V3(0, 0, 0), V3(1, 0, 0), V3(0, 1, 0), V3(1, 1, 0),
                           V3(0.5, 0.2, 0)});
      },
      "convex hull of 5 points failed");
  ExpectThrowWith(
      [] {
        Shape::ConvexHull(
            {V3(0, 0, 0), V3(1, 0, 0), V3(0, 1, 0), V3(NAN, 0, 1)});
      },
      "point 3 is not finite");
}

TEST(ShapeTest, MeshChecksItsInput) {
  ExpectThrowWith([] { Shape::Mesh({}, {}); }, "empty");
  ExpectThrowWith(
      [] { Shape::Mesh({V3(0, 0, 0)}, {Eigen::Vector3i(0, 1, 2)}); },
      "triangle 0 names a vertex outside");
  const Shape s = Shape::Mesh({V3(0, 0, 0), V3(1, 0, 0), V3(0, 1, 0)},
                              {Eigen::Vector3i(0, 1, 2)});
  EXPECT_EQ(s.mesh->nodes.size(), 1u);
  EXPECT_EQ(s.mesh->nodes[0].hi, V3(1, 1, 0));
}

TEST(ShapeTest, ClosedMeshDetection) {
  const Shape cube = Shape::ConvexHull(CubePoints(1));
  std::vector<Eigen::Vector3i> tris = cube.convex->triangles;
  EXPECT_TRUE(IsClosedMesh(tris));
  tris.pop_back();
  EXPECT_FALSE(IsClosedMesh(tris));  // a hole
  tris = cube.convex->triangles;
  std::swap(tris[0][1], tris[0][2]);
  EXPECT_FALSE(IsClosedMesh(tris));  // one triangle flipped
  EXPECT_FALSE(IsClosedMesh({}));
}

}  // namespace
}  // namespace tern
