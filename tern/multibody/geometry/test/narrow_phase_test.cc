// Closed forms of the narrow phase (issue 13 "Checks"), the manifold rules,
// self-consistency of every closed-form kernel with the general GJK/MPR route
// on random poses, and ray casts against each shape.
#include "tern/multibody/geometry/narrow_phase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tern/multibody/geometry/test/test_helpers.h"

namespace tern {
namespace {

using V3 = Vector3<double>;
using X3 = RigidTransform<double>;
using test::RotZ;
using test::Translation;

// Every contact satisfies the conventions: unit normal, p_WB - p_WA = phi n.
void ExpectConsistent(const Contact* c, int n) {
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].normal.norm(), 1, 1e-12);
    EXPECT_LT(
        (c[i].p_WB - c[i].p_WA - c[i].signed_distance * c[i].normal).norm(),
        1e-9)
        << "point " << i;
  }
}

TEST(NarrowPhaseTest, SphereSphereClosedForm) {
  const Shape a = Shape::Sphere(0.5), b = Shape::Sphere(0.25);
  Contact c[kMaxContactPoints];
  ASSERT_EQ(CollideShapes(a, Translation(0, 0, 0), b, Translation(0.6, 0.8, 0),
                          0.5, c),
            1);
  EXPECT_NEAR(c[0].signed_distance, 1.0 - 0.75, 1e-15);
  EXPECT_TRUE(c[0].normal.isApprox(V3(0.6, 0.8, 0), 1e-15));
  EXPECT_TRUE(c[0].p_WA.isApprox(V3(0.3, 0.4, 0), 1e-15));
  EXPECT_TRUE(
      c[0].p_WB.isApprox(V3(0.6, 0.8, 0) - 0.25 * V3(0.6, 0.8, 0), 1e-15));
  // Beyond the margin: nothing.
  EXPECT_EQ(
      CollideShapes(a, Translation(0, 0, 0), b, Translation(2, 0, 0), 0.5, c),
      0);
  // Overlapping: depth 0.25.
  ASSERT_EQ(
      CollideShapes(a, Translation(0, 0, 0), b, Translation(0, 0, 0.5), 0, c),
      1);
  EXPECT_NEAR(c[0].signed_distance, -0.25, 1e-15);
  ExpectConsistent(c, 1);
}

TEST(NarrowPhaseTest, SpherePlaneInBothOrders) {
  const Shape s = Shape::Sphere(0.5), h = Shape::HalfSpace();
  const X3 X_plane = Translation(0, 0, 0.1);
  Contact c[kMaxContactPoints];
  ASSERT_EQ(CollideShapes(s, Translation(1, 2, 0.4), h, X_plane, 0, c), 1);
  EXPECT_NEAR(c[0].signed_distance, -0.2, 1e-15);
  EXPECT_EQ(c[0].normal, V3(0, 0, -1));  // from the sphere into the ground
  EXPECT_TRUE(c[0].p_WA.isApprox(V3(1, 2, -0.1)));
  EXPECT_TRUE(c[0].p_WB.isApprox(V3(1, 2, 0.1)));
  ASSERT_EQ(CollideShapes(h, X_plane, s, Translation(1, 2, 0.4), 0, c), 1);
  EXPECT_EQ(c[0].normal, V3(0, 0, 1));
  EXPECT_TRUE(c[0].p_WA.isApprox(V3(1, 2, 0.1)));
  ExpectConsistent(c, 1);
}

// A box resting on a plane, yawed, sunk by 1 cm: its 4 bottom corners.
TEST(NarrowPhaseTest, BoxPlaneManifoldIsTheFourBottomCorners) {
  const Shape box = Shape::Box(1.0, 0.6, 0.4);
  const X3 X_WB = RotZ(0.3, V3(0.5, -0.2, 0.19));
  Contact c[kMaxContactPoints];
  const int n = CollideShapes(box, X_WB, Shape::HalfSpace(), X3(), 0, c);
  ASSERT_EQ(n, 4);
  ExpectConsistent(c, n);
  std::vector<V3> expected;
  for (int i = 0; i < 4; ++i) {
    expected.push_back(X_WB *
                       V3((i & 1) ? 0.5 : -0.5, (i & 2) ? 0.3 : -0.3, -0.2));
  }
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -0.01, 1e-14);
    EXPECT_EQ(c[i].normal, V3(0, 0, -1));
    const bool found = std::any_of(
        expected.begin(), expected.end(),
        [&](const V3& e) { return (e - c[i].p_WA).norm() < 1e-12; });
    EXPECT_TRUE(found) << c[i].p_WA.transpose();
  }
  // Tilted: only the one lowest corner is below the plane.
  const X3 tilted(
      Eigen::AngleAxisd(0.3, V3(1, 1, 0).normalized()).toRotationMatrix(),
      V3(0, 0, 0.25));
  const int m = CollideShapes(box, tilted, Shape::HalfSpace(), X3(), 0, c);
  EXPECT_GE(m, 1);
  double lowest = 1;
  for (int i = 0; i < 8; ++i) {
    lowest = std::min(lowest,
                      (tilted * V3((i & 1) ? 0.5 : -0.5, (i & 2) ? 0.3 : -0.3,
                                   (i & 4) ? 0.2 : -0.2))
                          .z());
  }
  double deepest = 1;
  for (int i = 0; i < m; ++i) deepest = std::min(deepest, c[i].signed_distance);
  EXPECT_NEAR(deepest, lowest, 1e-14);
}

// A small box on a big box, face to face, sunk by 1 cm: the small box's four
// bottom corners, whatever its yaw.
TEST(NarrowPhaseTest, BoxOnBoxFaceManifold) {
  const Shape big = Shape::Box(2, 2, 1), small = Shape::Box(0.5, 0.4, 0.3);
  const X3 X_big = Translation(0.1, 0, -0.5);
  for (const double yaw : {0.0, 0.4, M_PI / 4}) {
    const X3 X_small = RotZ(yaw, V3(0.2, 0.3, 0.15 - 0.01));
    for (const bool big_first : {true, false}) {
      Contact c[kMaxContactPoints];
      const int n = big_first ? CollideShapes(big, X_big, small, X_small, 0, c)
                              : CollideShapes(small, X_small, big, X_big, 0, c);
      ASSERT_EQ(n, 4) << "yaw " << yaw;
      ExpectConsistent(c, n);
      for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(c[i].signed_distance, -0.01, 1e-12);
        EXPECT_TRUE(c[i].normal.isApprox(V3(0, 0, big_first ? 1 : -1), 1e-12));
        const V3 on_small = big_first ? c[i].p_WB : c[i].p_WA;
        const V3 local = X_small.inverse() * on_small;
        EXPECT_NEAR(std::abs(local.x()), 0.25, 1e-12);
        EXPECT_NEAR(std::abs(local.y()), 0.2, 1e-12);
        EXPECT_NEAR(local.z(), -0.15, 1e-12);
      }
    }
  }
  // Equal boxes, one yawed 45 degrees: the clipped face is an octagon,
  // reduced to 4 of its points, all at the same depth.
  const Shape cube = Shape::Box(1, 1, 1);
  Contact c[kMaxContactPoints];
  const int n =
      CollideShapes(cube, X3(), cube, RotZ(M_PI / 4, V3(0, 0, 0.98)), 0, c);
  ASSERT_EQ(n, 4);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(c[i].signed_distance, -0.02, 1e-12);
  // The 4 kept span the octagon: their quadrilateral's area (two triangles
  // on the diagonal of the farthest pair) is at least half the octagon's
  // (the octagon's area is 2 (sqrt 2 - 1) = 0.828 for unit squares).
  std::vector<V3> q;
  for (int i = 0; i < n; ++i) q.push_back(c[i].p_WB);
  int far_i = 0, far_j = 1;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if ((q[i] - q[j]).norm() > (q[far_i] - q[far_j]).norm()) {
        far_i = i;
        far_j = j;
      }
    }
  }
  double area = 0;
  for (int i = 0; i < n; ++i) {
    if (i != far_i && i != far_j) {
      area += 0.5 * (q[far_j] - q[far_i]).cross(q[i] - q[far_i]).norm();
    }
  }
  EXPECT_GT(area, 0.5 * 0.828);
  // A separated stack within the margin keeps its 4 points, with phi > 0.
  const int m =
      CollideShapes(cube, X3(), cube, Translation(0.2, 0.1, 1.003), 0.01, c);
  ASSERT_EQ(m, 4);
  for (int i = 0; i < m; ++i) EXPECT_NEAR(c[i].signed_distance, 0.003, 1e-12);
}

TEST(NarrowPhaseTest, CapsuleCapsuleParallelGivesTwoPoints) {
  const Shape cap = Shape::Capsule(0.1, 1.0);  // axis z, from -0.5 to 0.5
  // Both along x (rotate z to x), side by side in y, overlapping in x over
  // [0.2, 0.5].
  const Matrix3<double> R =
      Eigen::AngleAxisd(M_PI / 2, V3::UnitY()).toRotationMatrix();
  const X3 Xa(R, V3(0, 0, 0)), Xb(R, V3(0.7, 0.15, 0));
  Contact c[kMaxContactPoints];
  const int n = CollideShapes(cap, Xa, cap, Xb, 0, c);
  ASSERT_EQ(n, 2);
  ExpectConsistent(c, n);
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, 0.15 - 0.2, 1e-14);
    EXPECT_TRUE(c[i].normal.isApprox(V3::UnitY(), 1e-14));
    xs.push_back(c[i].p_WA.x());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], 0.2, 1e-14);
  EXPECT_NEAR(xs[1], 0.5, 1e-14);
  // Crossing capsules: one point.
  const X3 Xc(Matrix3<double>::Identity(), V3(0.1, 0, 0.15));
  ASSERT_EQ(CollideShapes(cap, Xa, cap, Xc, 0.1, c), 1);
}

TEST(NarrowPhaseTest, CylinderStandingOnAPlaneGetsFourRimPoints) {
  const Shape cyl = Shape::Cylinder(0.2, 0.5);
  Contact c[kMaxContactPoints];
  const int n = CollideShapes(cyl, Translation(0, 0, 0.24), Shape::HalfSpace(),
                              X3(), 0, c);
  ASSERT_EQ(n, 4);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -0.01, 1e-14);
    EXPECT_NEAR(std::hypot(c[i].p_WA.x(), c[i].p_WA.y()), 0.2, 1e-14);
  }
}

// A cylinder resting on a plane tilts by round-off in every direction from
// step to step; its 4 rim points stay fixed to the cylinder (so each
// step's warm start finds the last step's), not turned with the tilt's
// azimuth, and the deepest is within r sin(tilt) (1 - cos 45 deg) of the
// rim's lowest point.
TEST(NarrowPhaseTest, RestingCylinderKeepsItsRimPoints) {
  const Shape cyl = Shape::Cylinder(0.2, 0.5);
  const double r = 0.2, tilt = 5e-5;
  std::vector<V3> first;
  for (int k = 0; k < 12; ++k) {
    const double azimuth = 0.5 * k;
    X3 X;
    X.R = Eigen::AngleAxisd(tilt, V3(std::cos(azimuth), std::sin(azimuth), 0))
              .toRotationMatrix();
    X.p = V3(0, 0, 0.25 - 1e-3);
    Contact c[kMaxContactPoints];
    ASSERT_EQ(CollideShapes(cyl, X, Shape::HalfSpace(), X3(), 0, c), 4);
    double deepest = 0;
    std::vector<V3> in_body;
    for (int i = 0; i < 4; ++i) {
      in_body.push_back(X.R.transpose() * (c[i].p_WA - X.p));
      deepest = std::min(deepest, c[i].signed_distance);
    }
    // The rim's lowest point: 1 mm plus r sin(tilt) below the cap's centre
    // plane, less the cap centre's own rise.
    const double lowest =
        -(1e-3 + 0.25 * (std::cos(tilt) - 1) + r * std::sin(tilt));
    EXPECT_GE(deepest, lowest - 1e-15);
    EXPECT_LE(deepest - lowest,
              r * std::sin(tilt) * (1 - std::sqrt(0.5)) + 1e-15);
    if (first.empty()) first = in_body;
    for (int i = 0; i < 4; ++i) {
      EXPECT_LT((in_body[i] - first[i]).norm(), 1e-12) << "azimuth " << k;
    }
  }
}

// A convex hull against a half-space reports every vertex within the
// margin: a 12-sided prism (a mesh foot's sole has 12 coplanar vertices)
// sunk 1 mm gives its 12 bottom vertices. The penalty wrench sum_i -phi_i
// (n; p_i x n) is then continuous as the prism rocks through flat, where
// the bottom vertices swap depth ranks: between rocking steps of 1e-5 rad
// it changes by O(1e-7) (measured < 1e-6), where the four deepest alone
// jump by the moment of the 1 mm depth moving from one side of the sole to
// the other (of order 1e-4 N m per N/m, estimated).
TEST(NarrowPhaseTest, ConvexHullOnAPlaneReportsEveryVertexWithinTheMargin) {
  std::vector<V3> points;
  for (int k = 0; k < 12; ++k) {
    const double a = 2 * 3.141592653589793 * k / 12;
    for (double z : {0.0, 0.05}) {
      points.emplace_back(0.1 * std::cos(a), 0.06 * std::sin(a), z);
    }
  }
  const Shape prism = Shape::ConvexHull(points);
  Contact c[kMaxContactPoints];
  const int n = CollideShapes(prism, Translation(0, 0, -1e-3),
                              Shape::HalfSpace(), X3(), 0, c);
  ASSERT_EQ(n, 12);
  ExpectConsistent(c, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -1e-3, 1e-15);
  }
  Eigen::Matrix<double, 6, 1> last = Eigen::Matrix<double, 6, 1>::Zero();
  double largest_jump = 0;
  for (int k = -200; k <= 200; ++k) {
    const double angle = 1e-5 * k;
    X3 X = Translation(0, 0, -1e-3);
    X.R = Eigen::AngleAxisd(angle, V3::UnitX()).toRotationMatrix() *
          Eigen::AngleAxisd(0.7 * angle, V3::UnitY()).toRotationMatrix();
    const int m = CollideShapes(prism, X, Shape::HalfSpace(), X3(), 0, c);
    Eigen::Matrix<double, 6, 1> wrench = Eigen::Matrix<double, 6, 1>::Zero();
    for (int i = 0; i < m; ++i) {
      const V3 f = -c[i].signed_distance * c[i].normal;
      wrench.head<3>() += f;
      wrench.tail<3>() += c[i].p_WA.cross(f);
    }
    if (k > -200) largest_jump = std::max(largest_jump, (wrench - last).norm());
    last = wrench;
  }
  EXPECT_LT(largest_jump, 1e-6);
}

// Each closed-form kernel agrees with the general GJK/MPR route when the
// shapes are apart (GJK is exact there up to its tolerance).
TEST(NarrowPhaseTest, ClosedFormsAgreeWithGjkWhenSeparated) {
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {Shape::Sphere(0.3), Shape::Sphere(0.2)},
      {Shape::Sphere(0.3), Shape::Capsule(0.2, 0.8)},
      {Shape::Sphere(0.3), Shape::Box(0.5, 0.7, 0.3)},
      {Shape::Sphere(0.3), Shape::Cylinder(0.2, 0.6)},
      {Shape::Capsule(0.1, 0.5), Shape::Capsule(0.2, 0.8)},
      {Shape::Box(0.4, 0.5, 0.6), Shape::Box(0.5, 0.7, 0.3)},
      {Shape::Box(0.4, 0.5, 0.6), Shape::Cylinder(0.2, 0.6)},
      {Shape::Cylinder(0.1, 0.9), Shape::Box(0.5, 0.7, 0.3)},
      {Shape::Capsule(0.1, 0.5), Shape::Cylinder(0.2, 0.6)},
      {Shape::Cylinder(0.2, 0.6), Shape::Capsule(0.1, 0.5)},
      {Shape::Cylinder(0.1, 0.9), Shape::Cylinder(0.2, 0.6)},
  };
  std::mt19937 gen(7);
  for (const auto& [a, b] : pairs) {
    int tested = 0;
    for (int k = 0; k < 2000; ++k) {
      const X3 Xa = test::RandomPose(&gen, 1.0),
               Xb = test::RandomPose(&gen, 1.0);
      Contact c[kMaxContactPoints];
      const int n = CollideShapes(a, Xa, b, Xb, 10.0, c);
      const Contact g = ConvexConvexGeneral(a, Xa, b, Xb);
      if (g.signed_distance <= 1e-6) continue;
      ++tested;
      ASSERT_GE(n, 1);
      ExpectConsistent(c, n);
      double phi = c[0].signed_distance;
      for (int i = 1; i < n; ++i) phi = std::min(phi, c[i].signed_distance);
      EXPECT_NEAR(phi, g.signed_distance, 1e-9)
          << ShapeKindName(a.kind) << "-" << ShapeKindName(b.kind);
      // GJK's witness points on curved surfaces converge as the square root
      // of its distance gap (1e-15 relative), so its normal is good to
      // ~1e-5 while the closed form's is exact.
      if (n == 1) {
        EXPECT_LT((c[0].normal - g.normal).norm(), 1e-4);
      }
    }
    EXPECT_GT(tested, 200);
  }
}

struct RayCase {
  Shape shape;
  double expected_t;  // along -x from (5, 0, 0)
  V3 expected_normal;
};

TEST(NarrowPhaseTest, RayAgainstEachShape) {
  std::vector<V3> cube;
  for (int i = 0; i < 8; ++i) {
    cube.emplace_back((i & 1) ? 0.5 : -0.5, (i & 2) ? 0.5 : -0.5,
                      (i & 4) ? 0.5 : -0.5);
  }
  // The half-space turned so that its outward normal is +x.
  const std::vector<std::pair<RayCase, X3>> cases = {
      {{Shape::Sphere(0.5), 4.5, V3::UnitX()}, X3()},
      {{Shape::Box(1, 2, 3), 4.5, V3::UnitX()}, X3()},
      {{Shape::Capsule(0.5, 2.0), 4.5, V3::UnitX()}, X3()},
      {{Shape::Cylinder(0.5, 2.0), 4.5, V3::UnitX()}, X3()},
      {{Shape::Ellipsoid(2, 1, 1), 3.0, V3::UnitX()}, X3()},
      {{Shape::ConvexHull(cube), 4.5, V3::UnitX()}, X3()},
      {{Shape::HalfSpace(), 4.0, V3::UnitX()},
       X3(Eigen::AngleAxisd(M_PI / 2, V3::UnitY()).toRotationMatrix(),
          V3(1, 0, 0))},
      {{Shape::Mesh({V3(0, -1, -1), V3(0, 1, -1), V3(0, 1, 1), V3(0, -1, 1)},
                    {Eigen::Vector3i(0, 1, 2), Eigen::Vector3i(0, 2, 3)}),
        5.0, V3::UnitX()},
       X3()},
  };
  for (const auto& [rc, X] : cases) {
    double t;
    V3 n;
    SCOPED_TRACE(ShapeKindName(rc.shape.kind));
    ASSERT_TRUE(
        RayCastShape(rc.shape, X, V3(5, 0, 0), V3(-1, 0, 0), 10, &t, &n));
    EXPECT_NEAR(t, rc.expected_t, 1e-12);
    EXPECT_TRUE(n.isApprox(rc.expected_normal, 1e-12)) << n.transpose();
    // Too short, or pointing away: a miss.
    EXPECT_FALSE(RayCastShape(rc.shape, X, V3(5, 0, 0), V3(-1, 0, 0),
                              rc.expected_t - 0.1, &t, &n));
    EXPECT_FALSE(
        RayCastShape(rc.shape, X, V3(5, 0, 0), V3(1, 0, 0), 10, &t, &n));
    // Off to the side (y = 3): a miss for the bounded shapes.
    if (rc.shape.kind != ShapeKind::kHalfSpace) {
      EXPECT_FALSE(
          RayCastShape(rc.shape, X, V3(5, 3.5, 0), V3(-1, 0, 0), 10, &t, &n));
    }
  }
  // A ray from inside a solid hits at 0, facing back along the ray.
  double t;
  V3 n;
  ASSERT_TRUE(RayCastShape(Shape::Box(1, 1, 1), X3(), V3(0.1, 0, 0),
                           V3(0, 0, 1), 10, &t, &n));
  EXPECT_EQ(t, 0);
  EXPECT_EQ(n, V3(0, 0, -1));
  // Capsule end cap and cylinder cap from above.
  ASSERT_TRUE(RayCastShape(Shape::Capsule(0.5, 2.0), X3(), V3(0, 0, 5),
                           V3(0, 0, -1), 10, &t, &n));
  EXPECT_NEAR(t, 3.5, 1e-12);
  ASSERT_TRUE(RayCastShape(Shape::Cylinder(0.5, 2.0), X3(), V3(0.2, 0, 5),
                           V3(0, 0, -1), 10, &t, &n));
  EXPECT_NEAR(t, 4.0, 1e-12);
  EXPECT_EQ(n, V3(0, 0, 1));
}

TEST(NarrowPhaseTest, TriangleMeshAgainstASphereAndABox) {
  // A 4 m square floor of two triangles at z = 0, normal +z.
  const Shape floor =
      Shape::Mesh({V3(-2, -2, 0), V3(2, -2, 0), V3(2, 2, 0), V3(-2, 2, 0)},
                  {Eigen::Vector3i(0, 1, 2), Eigen::Vector3i(0, 2, 3)});
  Contact c[kMaxContactPoints];
  const int n = CollideShapes(Shape::Sphere(0.5), Translation(0.3, 0.2, 0.45),
                              floor, X3(), 0, c);
  ASSERT_GE(n, 1);
  // One point per triangle: the triangle under the centre gives the exact
  // contact; the neighbour across the diagonal gives a shallower one at its
  // edge (internal edges are not filtered, docs/geometry.md).
  int deepest = 0;
  for (int i = 0; i < n; ++i) {
    if (c[i].signed_distance < c[deepest].signed_distance) deepest = i;
    EXPECT_GE(c[i].signed_distance, -0.05 - 1e-12);
  }
  EXPECT_NEAR(c[deepest].signed_distance, -0.05, 1e-12);
  EXPECT_TRUE(c[deepest].normal.isApprox(V3(0, 0, -1), 1e-12));
  // Above the margin: nothing.
  EXPECT_EQ(CollideShapes(Shape::Sphere(0.5), Translation(0, 0, 0.7), floor,
                          X3(), 0.1, c),
            0);
  // Within the margin: the gap.
  const int m = CollideShapes(Shape::Sphere(0.5), Translation(0.3, 0.2, 0.55),
                              floor, X3(), 0.1, c);
  ASSERT_GE(m, 1);
  double phi = c[0].signed_distance;
  for (int i = 1; i < m; ++i) phi = std::min(phi, c[i].signed_distance);
  EXPECT_NEAR(phi, 0.05, 1e-12);
  // A box sunk 1 cm into the floor, across both triangles: one point per
  // triangle, each at the box's deepest corner over that triangle's plane.
  const int nb =
      CollideShapes(Shape::Box(0.4, 0.4, 0.2), RotZ(0.3, V3(0.1, 0.05, 0.09)),
                    floor, X3(), 0, c);
  ASSERT_EQ(nb, 2);
  for (int i = 0; i < nb; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -0.01, 1e-12);
    EXPECT_TRUE(c[i].normal.isApprox(V3(0, 0, -1), 1e-12));
  }
  ExpectConsistent(c, nb);
  // Half-space against half-space has no kernel.
  EXPECT_FALSE(
      HasCollisionKernel(ShapeKind::kHalfSpace, ShapeKind::kHalfSpace));
  EXPECT_TRUE(HasCollisionKernel(ShapeKind::kTriangleMesh, ShapeKind::kBox));
}

// General convex pairs: an ellipsoid and a convex hull against a sphere,
// checked against closed forms.
// A box and a cylinder meet through the box's face: a cylinder lying along
// a face touches it along a line (two points, its ends), one standing on a
// face along its rim (four points); tilted, each end its own depth; or
// through the cylinder's cap: a box resting on it (four corners), or one
// corner. Both orders of the pair.
TEST(NarrowPhaseTest, BoxCylinderFaceManifolds) {
  const Shape box = Shape::Box(1, 0.6, 0.4);
  const Shape cyl = Shape::Cylinder(0.1, 0.5);
  Contact c[kMaxContactPoints];
  // Lying along x on the top face (z = 0.2), 2 mm deep.
  X3 lying = Translation(0.1, 0.05, 0.2 + 0.1 - 0.002);
  lying.R = Eigen::AngleAxisd(M_PI / 2, V3::UnitY()).toRotationMatrix();
  int n = CollideShapes(box, X3(), cyl, lying, 0.01, c);
  ASSERT_EQ(n, 2);
  ExpectConsistent(c, n);
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -0.002, 1e-14);
    EXPECT_TRUE(c[i].normal.isApprox(V3::UnitZ(), 1e-14));
    EXPECT_NEAR(c[i].p_WA.z(), 0.2, 1e-14);
    EXPECT_NEAR(c[i].p_WA.y(), 0.05, 1e-14);
    xs.push_back(c[i].p_WB.x());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], 0.1 - 0.25, 1e-14);
  EXPECT_NEAR(xs[1], 0.1 + 0.25, 1e-14);
  // The same pair the other way round: normal and witnesses swapped.
  n = CollideShapes(cyl, lying, box, X3(), 0.01, c);
  ASSERT_EQ(n, 2);
  ExpectConsistent(c, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(c[i].normal.isApprox(-V3::UnitZ(), 1e-14));
    EXPECT_NEAR(c[i].p_WB.z(), 0.2, 1e-14);
  }
  // Tilted by 0.01 rad about y: the ends at their own depths, the deepest
  // equal to the general route's depth.
  X3 tilted = lying;
  tilted.R = Eigen::AngleAxisd(M_PI / 2 + 0.01, V3::UnitY()).toRotationMatrix();
  n = CollideShapes(box, X3(), cyl, tilted, 0.01, c);
  ASSERT_EQ(n, 2);
  ExpectConsistent(c, n);
  const double deepest = std::min(c[0].signed_distance, c[1].signed_distance);
  EXPECT_GT(std::abs(c[0].signed_distance - c[1].signed_distance), 4e-3);
  EXPECT_NEAR(deepest,
              ConvexConvexGeneral(box, X3(), cyl, tilted).signed_distance,
              1e-9);
  // Standing on the top face, 1 mm deep: four rim points.
  n = CollideShapes(box, X3(), cyl, Translation(0.3, -0.1, 0.2 + 0.25 - 0.001),
                    0.01, c);
  ASSERT_EQ(n, 4);
  ExpectConsistent(c, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -0.001, 1e-14);
    EXPECT_NEAR(std::hypot(c[i].p_WB.x() - 0.3, c[i].p_WB.y() + 0.1), 0.1,
                1e-14);
  }
  // Lying across the box's edge (x = 0.5): the line is clipped there, so
  // the cylinder is held at the edge and at its end over the face.
  X3 across = lying;
  across.p.x() = 0.5;
  n = CollideShapes(box, X3(), cyl, across, 0.01, c);
  ASSERT_EQ(n, 2);
  ExpectConsistent(c, n);
  xs.clear();
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -0.002, 1e-14);
    xs.push_back(c[i].p_WB.x());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], 0.25, 1e-14);
  EXPECT_NEAR(xs[1], 0.5, 1e-14);
  // Across the edge, tilted 0.2 rad with its lower end off the face (the
  // box's edge dents its side): that end is the deepest point along the
  // face normal, so the general route answers.
  X3 off = lying;
  off.p.x() = 0.6;
  off.p.z() = 0.27;
  off.R = Eigen::AngleAxisd(M_PI / 2 + 0.2, V3::UnitY()).toRotationMatrix();
  n = CollideShapes(box, X3(), cyl, off, 0.01, c);
  ASSERT_EQ(n, 1);
  EXPECT_NEAR(c[0].signed_distance,
              ConvexConvexGeneral(box, X3(), cyl, off).signed_distance, 1e-12);
  // A box resting on the cylinder's top cap (a box on a post), 1 mm deep:
  // its four bottom corners, over the cap.
  const Shape post = Shape::Cylinder(0.2, 0.5);
  const Shape small = Shape::Box(0.2, 0.2, 0.1);
  n = CollideShapes(small, Translation(0.01, 0, 0.25 + 0.05 - 0.001), post,
                    X3(), 0.01, c);
  ASSERT_EQ(n, 4);
  ExpectConsistent(c, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -0.001, 1e-14);
    EXPECT_TRUE(c[i].normal.isApprox(-V3::UnitZ(), 1e-14));
    EXPECT_NEAR(c[i].p_WB.z(), 0.25, 1e-14);
  }
  // Tilted onto one corner: that corner, at the depth the general route
  // finds.
  X3 corner = Translation(0, 0, 0.25 + 0.09);
  corner.R = (Eigen::AngleAxisd(0.6, V3::UnitX()) *
              Eigen::AngleAxisd(0.5, V3::UnitY()))
                 .toRotationMatrix();
  n = CollideShapes(small, corner, post, X3(), 0.01, c);
  ASSERT_EQ(n, 1);
  ExpectConsistent(c, n);
  EXPECT_LT(c[0].signed_distance, 0);
  EXPECT_NEAR(c[0].signed_distance,
              ConvexConvexGeneral(small, corner, post, X3()).signed_distance,
              1e-9);
  // Beyond the margin along a face or along the axis: nothing.
  EXPECT_EQ(CollideShapes(box, X3(), cyl, Translation(0, 0, 0.2 + 0.25 + 0.02),
                          0.01, c),
            0);
}

// The penetration depth of B in A is bracketed by [near, far]: moving B
// by far + 1e-7 along the unit normal n separates the pair (GJK, exact
// when apart, says so), and moving it by near - 1e-7 in any of 20 random
// directions does not. With near = far the depth is exact.
void ExpectDepthBetween(const Shape& a, const X3& X_WA, const Shape& b,
                        const X3& X_WB, const V3& n, double near, double far,
                        std::mt19937* gen,
                        std::normal_distribution<double>* normal) {
  X3 moved = X_WB;
  moved.p += (far + 1e-7) * n;
  EXPECT_GT(ConvexConvexGeneral(a, X_WA, b, moved).signed_distance, 0);
  for (int j = 0; j < 20; ++j) {
    const V3 dir =
        V3((*normal)(*gen), (*normal)(*gen), (*normal)(*gen)).normalized();
    moved = X_WB;
    moved.p += (near - 1e-7) * dir;
    EXPECT_LT(ConvexConvexGeneral(a, X_WA, b, moved).signed_distance, 1e-9)
        << "direction " << j;
  }
}

// A cylinder's cap lying flat on a box face that is narrower than the cap
// (a hand's face on the end of its forearm, the humanoid's wrist): the cap
// overhangs the face, so the face route's rim points are off it; the
// manifold is 4 points spanning where the cap lies over the face (before,
// the general route's one point, which jumped between the region's ends
// from step to step and kept a resting humanoid's hand rocking). Exactly
// flat, the depth is exact; tilted by t < 1e-3 rad, within r sin(t).
TEST(NarrowPhaseTest, BoxCylinderFlatCapOverhangingAFace) {
  const Shape hand = Shape::Box(0.08, 0.03, 0.1);  // half 0.04, 0.015, 0.05
  const Shape forearm = Shape::Cylinder(0.04, 0.25);
  const double r = 0.04, depth = 1e-4;
  std::mt19937 gen(5);
  std::normal_distribution<double> normal;
  // The hand's long side along x, or along y (`turned`: the scene turned a
  // quarter turn about z, the contacts turned back before the checks).
  const Shape turned_hand = Shape::Box(0.03, 0.08, 0.1);
  const X3 turn(Eigen::AngleAxisd(M_PI / 2, V3::UnitZ()).toRotationMatrix(),
                V3::Zero());
  auto check = [&](X3 X_WB, double tilt, bool turned = false,
                   double want = 1e-4) {  // the depth
    SCOPED_TRACE(testing::Message() << "tilt " << tilt << " turned " << turned);
    Contact c[kMaxContactPoints];
    if (turned) X_WB = turn * X_WB;
    const int n =
        CollideShapes(turned ? turned_hand : hand, X3(), forearm, X_WB, 0.0, c);
    for (int i = 0; i < n && turned; ++i) {  // back to the unturned frame
      c[i].normal = turn.R.transpose() * c[i].normal;
      c[i].p_WA = turn.R.transpose() * c[i].p_WA;
      c[i].p_WB = turn.R.transpose() * c[i].p_WB;
    }
    if (turned) X_WB = turn.inverse() * X_WB;
    ASSERT_EQ(n, 4);
    ExpectConsistent(c, n);
    double lo_x = 1, hi_x = -1, lo_y = 1, hi_y = -1, phi = 0;
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(c[i].normal.isApprox(V3::UnitZ(), 1e-14));
      EXPECT_NEAR(c[i].p_WA.z(), 0.05, 1e-14);  // on the face
      EXPECT_LE(std::abs(c[i].p_WA.x()), 0.04 + 1e-12);
      EXPECT_LE(std::abs(c[i].p_WA.y()), 0.015 + 1e-12);
      lo_x = std::min(lo_x, c[i].p_WA.x()),
      hi_x = std::max(hi_x, c[i].p_WA.x());
      lo_y = std::min(lo_y, c[i].p_WA.y()),
      hi_y = std::max(hi_y, c[i].p_WA.y());
      phi = std::min(phi, c[i].signed_distance);
    }
    // Spanning the region (|x| up to 0.037 where the rim crosses the long
    // edges), not one end of it.
    EXPECT_GT(hi_x - lo_x, 0.07);
    EXPECT_GT(hi_y - lo_y, 0.025);
    EXPECT_NEAR(phi, -want, r * std::sin(tilt) + 1e-12);
    // Lifting the forearm by the depth separates the pair; no translation
    // shorter than the depth less r sin(tilt) does (checked to 1e-7).
    if (want > 1e-6) {
      ExpectDepthBetween(hand, X3(), forearm, X_WB, V3::UnitZ(),
                         -phi - r * std::sin(tilt), -phi, &gen, &normal);
    }
  };
  // Along the box's z, its cap 0.1 mm into the top face z = 0.05.
  check(Translation(0, 0, 0.05 + 0.125 - depth), 0);
  // Tilted about x and about a diagonal: the lowest rim point 0.1 mm deep.
  for (const V3& axis : {V3(1, 0, 0), V3(1, 1, 0).normalized()}) {
    const double tilt = 5e-4;
    X3 X_WB;
    X_WB.R = Eigen::AngleAxisd(tilt, axis).toRotationMatrix();
    X_WB.p =
        V3(0, 0, 0.05 - depth + r * std::sin(tilt)) + 0.125 * X_WB.R.col(2);
    check(X_WB, tilt);
  }
  // The rim exactly at the box's long edges (r = the face's half width),
  // moved and tilted by round-off either way, as the humanoid's hand at
  // rest on its forearm: the same manifold every time (it alternated
  // between the region's 4 vertices and 2 rim points at the edges).
  const double touch = 1e-9;
  for (const double dx : {-3e-9, 0.0, 3e-9}) {
    for (const double tilt : {-1e-12, 1e-12}) {
      X3 X_WB;
      X_WB.R = Eigen::AngleAxisd(tilt, V3::UnitY()).toRotationMatrix();
      X_WB.p = V3(dx, 0, 0.05 - touch) + 0.125 * X_WB.R.col(2);
      check(X_WB, std::abs(tilt), false, touch);
      check(X_WB, std::abs(tilt), true, touch);
    }
  }
}

// The same hand on its forearm's cap, the region symmetric (the cap
// centred on the face): two candidates tie for the spanning picks, and
// round-off tilts of either sign (1e-9 rad, as at rest in the humanoid's
// fall) must not swap them. The humanoid's hand traded one point for its
// mirror image, 7 cm away, every few steps at rest, and each time the
// point came back without a warm start: a Newton iteration per swap.
TEST(NarrowPhaseTest, BoxCylinderFlatCapKeepsItsPointsUnderRoundOffTilts) {
  const Shape forearm = Shape::Cylinder(0.04, 0.25);
  const double touch = 1e-9;
  for (const V3& half : {V3(0.04, 0.015, 0.05), V3(0.05, 0.02, 0.05)}) {
    const Shape hand = Shape::Box(2 * half.x(), 2 * half.y(), 2 * half.z());
    auto collide = [&](const V3& axis, double tilt) {
      X3 X_WB;
      X_WB.R = Eigen::AngleAxisd(tilt, axis).toRotationMatrix();
      X_WB.p = V3(0, 0, half.z() - touch) + 0.125 * X_WB.R.col(2);
      std::vector<V3> points;
      Contact c[kMaxContactPoints];
      const int n = CollideShapes(hand, X3(), forearm, X_WB, 0.0, c);
      for (int i = 0; i < n; ++i) points.push_back(c[i].p_WA);
      return points;
    };
    const std::vector<V3> level = collide(V3::UnitX(), 0);
    ASSERT_EQ(level.size(), 4u);
    for (const V3& axis : {V3(1, 0, 0), V3(0, 1, 0), V3(1, 1, 0).normalized(),
                           V3(1, -1, 0).normalized()}) {
      for (const double tilt : {-1e-9, 1e-9}) {
        SCOPED_TRACE(testing::Message()
                     << "half " << half.transpose() << " axis "
                     << axis.transpose() << " tilt " << tilt);
        const std::vector<V3> tilted = collide(axis, tilt);
        ASSERT_EQ(tilted.size(), level.size());
        for (size_t i = 0; i < level.size(); ++i) {
          EXPECT_LT((tilted[i] - level[i]).norm(), 1e-7) << "point " << i;
        }
      }
    }
  }
}

// A cylinder standing on another's cap (a stack of cylinders, MuJoCo's
// humanoid100 sample model): 4 points spanning where the caps overlap,
// instead of the general route's one point jumping across the caps from
// step to step (so that no point's warm start matched the last step's).
// Exactly parallel, the depth is exact; tilted by t < 1e-3 rad, within rb
// sin(t). Rim on rim (B's cap centre beyond A's rim) the points span the
// lens where the caps overlap, at the caps' gap, also exact: the Minkowski
// difference of parallel cylinders is a cylinder. Apart both ways, the
// general route's one point.
// A cylinder's end beside a box's edge, apart (a forearm's end beside a
// torso's edge, from MuJoCo's humanoid lying down): the rim against the
// edge, one point, exact, with the normal orthogonal to the edge.
TEST(NarrowPhaseTest, BoxCylinderRimBesideAnEdge) {
  const Shape torso = Shape::Box(0.25, 0.35, 0.4);
  const Shape forearm = Shape::Cylinder(0.04, 0.25);
  const V3 u = V3(0.158745, -0.181415, 0.970509).normalized();
  const X3 X(
      Eigen::Quaterniond::FromTwoVectors(V3::UnitZ(), u).toRotationMatrix(),
      V3(-0.174777, 0.223087, -0.203718));
  Contact c[kMaxContactPoints];
  const int n = CollideShapes(torso, X3(), forearm, X, 0.005, c);
  ASSERT_EQ(n, 1);
  ExpectConsistent(c, n);
  const Contact g = ConvexConvexGeneral(torso, X3(), forearm, X);
  EXPECT_NEAR(c[0].signed_distance, g.signed_distance, 1e-12);
  EXPECT_GT(c[0].signed_distance, 3e-4);
  // On the box's edge x = -0.125, y = 0.175; normal orthogonal to it.
  EXPECT_NEAR(c[0].p_WA.x(), -0.125, 1e-15);
  EXPECT_NEAR(c[0].p_WA.y(), 0.175, 1e-15);
  EXPECT_NEAR(c[0].normal.z(), 0, 1e-12);
  // On the cylinder's upper rim.
  const V3 p_B = X.R.transpose() * (c[0].p_WB - X.p);
  EXPECT_NEAR(p_B.z(), 0.125, 1e-12);
  EXPECT_NEAR(p_B.head<2>().norm(), 0.04, 1e-12);
  // Beyond the margin: nothing.
  EXPECT_EQ(CollideShapes(torso, X3(), forearm, X, 1e-4, c), 0);
}

// Box and cylinder in random orientations, moved toward each other along
// the general route's normal until a random gap of 1 um to 4 mm is left
// (exact to ~1e-10: the normal's error enters squared): every route
// (faces, side, rims) finds that gap to 1e-9. GJK itself, whose iterations
// stall on the curved rim at such gaps, is off by up to 1e-8 here.
TEST(NarrowPhaseTest, BoxCylinderNearlyTouchingAgreesWithGjk) {
  const Shape box = Shape::Box(0.25, 0.35, 0.4);
  const Shape cyl = Shape::Cylinder(0.04, 0.25);
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> gap(1e-6, 4e-3);
  int tested = 0;
  for (int k = 0; k < 3000; ++k) {
    X3 Xc = test::RandomPose(&gen, 0.5);
    const Contact far = ConvexConvexGeneral(box, X3(), cyl, Xc);
    if (far.signed_distance <= 0.01) continue;
    const double want = gap(gen);
    Xc.p -= (far.signed_distance - want) * far.normal;
    const Contact g = ConvexConvexGeneral(box, X3(), cyl, Xc);
    Contact c[kMaxContactPoints];
    const int n = CollideShapes(box, X3(), cyl, Xc, 0.005, c);
    ASSERT_GE(n, 1) << k;
    ExpectConsistent(c, n);
    double phi = c[0].signed_distance;
    for (int i = 1; i < n; ++i) phi = std::min(phi, c[i].signed_distance);
    EXPECT_NEAR(phi, want, 1e-9) << k;
    EXPECT_NEAR(g.signed_distance, want, 1e-7) << k;
    ++tested;
  }
  EXPECT_GT(tested, 1000);
}

TEST(NarrowPhaseTest, CylinderCapOnCylinderCap) {
  const Shape a = Shape::Cylinder(0.15, 0.2), b = Shape::Cylinder(0.1, 0.1);
  const double ra = 0.15, rb = 0.1, depth = 2e-4, offset = 0.08;
  std::mt19937 gen(9);
  std::normal_distribution<double> normal;
  auto check = [&](const X3& X_WB, double tilt) {
    SCOPED_TRACE(testing::Message() << "tilt " << tilt);
    Contact c[kMaxContactPoints];
    const int n = CollideShapes(a, X3(), b, X_WB, 0.0, c);
    ASSERT_EQ(n, 4);
    ExpectConsistent(c, n);
    double phi = 0, lo_y = 1, hi_y = -1;
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(c[i].normal.isApprox(V3::UnitZ(), 1e-14));
      EXPECT_NEAR(c[i].p_WA.z(), 0.1, 1e-14);  // on A's top cap
      EXPECT_LE(std::hypot(c[i].p_WA.x(), c[i].p_WA.y()), ra + 1e-12);
      EXPECT_LE(std::hypot(c[i].p_WA.x() - offset, c[i].p_WA.y()), rb + 1e-5);
      lo_y = std::min(lo_y, c[i].p_WA.y()),
      hi_y = std::max(hi_y, c[i].p_WA.y());
      phi = std::min(phi, c[i].signed_distance);
    }
    EXPECT_GT(hi_y - lo_y, rb);  // spanning the caps' overlap
    EXPECT_NEAR(phi, -depth, rb * std::sin(tilt) + 1e-12);
    ExpectDepthBetween(a, X3(), b, X_WB, V3::UnitZ(),
                       -phi - rb * std::sin(tilt), -phi, &gen, &normal);
    // The other order: the same points, the normal reversed.
    Contact d[kMaxContactPoints];
    ASSERT_EQ(CollideShapes(b, X_WB, a, X3(), 0.0, d), 4);
    ExpectConsistent(d, 4);
  };
  check(Translation(offset, 0, 0.1 + 0.05 - depth), 0);
  const double tilt = 5e-4;
  X3 tilted;
  tilted.R = Eigen::AngleAxisd(tilt, V3::UnitY()).toRotationMatrix();
  tilted.p =
      V3(offset, 0, 0.1 - depth + rb * std::sin(tilt)) + 0.05 * tilted.R.col(2);
  check(tilted, tilt);
  // Rim on rim: B's cap centre 0.2 from A's axis (beyond A's rim, within
  // ra + rb), the caps 0.2 mm into each other.
  const X3 rims = Translation(0.2, 0, 0.15 - depth);
  Contact c[kMaxContactPoints];
  const int n = CollideShapes(a, X3(), b, rims, 0.0, c);
  ASSERT_GE(n, 3);
  ExpectConsistent(c, n);
  double lo_y = 1, hi_y = -1;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -depth, 1e-14);
    EXPECT_TRUE(c[i].normal.isApprox(V3::UnitZ(), 1e-14));
    EXPECT_LE(std::hypot(c[i].p_WA.x(), c[i].p_WA.y()), ra + 1e-12);
    EXPECT_LE(std::hypot(c[i].p_WA.x() - 0.2, c[i].p_WA.y()), rb + 1e-12);
    lo_y = std::min(lo_y, c[i].p_WA.y()), hi_y = std::max(hi_y, c[i].p_WA.y());
  }
  EXPECT_GT(hi_y - lo_y, 0.1);  // the lens's two corners
  ExpectDepthBetween(a, X3(), b, rims, V3::UnitZ(), depth, depth, &gen,
                     &normal);
  // Apart both ways (rim to rim): the general route's one point.
  ASSERT_EQ(
      CollideShapes(a, X3(), b, Translation(0.26, 0, 0.15 + 1e-3), 0.02, c), 1);
  EXPECT_NEAR(c[0].signed_distance, std::hypot(0.01, 1e-3), 1e-9);
}

// Two cylinders standing side by side (axes parallel, cans touching): a
// line contact, its 2 ends where both sides face each other, each at its
// own depth (exact for parallel axes; the general route gave one point
// jumping along the line).
TEST(NarrowPhaseTest, ParallelCylindersSideBySide) {
  const Shape a = Shape::Cylinder(0.1, 0.3), b = Shape::Cylinder(0.08, 0.2);
  const double depth = 3e-3, gap = 0.1 + 0.08 - depth;
  std::mt19937 gen(13);
  std::normal_distribution<double> normal;
  const X3 X_WB = Translation(gap, 0, 0.1);  // B's axial extent [0, 0.2]
  Contact c[kMaxContactPoints];
  ASSERT_EQ(CollideShapes(a, X3(), b, X_WB, 0.0, c), 2);
  ExpectConsistent(c, 2);
  std::vector<double> zs;
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -depth, 1e-14);
    EXPECT_TRUE(c[i].normal.isApprox(V3::UnitX(), 1e-14));
    EXPECT_NEAR(c[i].p_WA.x(), 0.1, 1e-14);
    zs.push_back(c[i].p_WA.z());
  }
  std::sort(zs.begin(), zs.end());
  EXPECT_NEAR(zs[0], 0.0, 1e-14);   // where B's extent begins
  EXPECT_NEAR(zs[1], 0.15, 1e-14);  // A's top
  ExpectDepthBetween(a, X3(), b, X_WB, V3::UnitX(), depth, depth, &gen,
                     &normal);
  // Tilted by 5e-4 rad toward A: each end at its own depth.
  X3 tilted = X_WB;
  tilted.R = Eigen::AngleAxisd(-5e-4, V3::UnitY()).toRotationMatrix();
  ASSERT_EQ(CollideShapes(a, X3(), b, tilted, 0.0, c), 2);
  EXPECT_GT(std::abs(c[0].signed_distance - c[1].signed_distance), 5e-5);
  // Stacked (the axial gap separates more): not a side contact.
  EXPECT_NE(CollideShapes(a, X3(), b, Translation(0.05, 0, 0.15 + 0.1 - 1e-3),
                          0.0, c),
            2);
}

// A cylinder lying across the end of a standing one (a limb on a post, a
// can on its side on another's lid): the lying side's lowest line clipped
// to the cap's disk, 2 points where it crosses the rim (the general route
// gave one); a short one tilted over the disk, each end at its own depth,
// the deeper one the general route's. Both orders.
TEST(NarrowPhaseTest, CylinderLyingAcrossAnotherCap) {
  const Shape post = Shape::Cylinder(0.1, 0.4),
              log = Shape::Cylinder(0.05, 0.6);
  const double depth = 1e-3, y = 0.06;
  X3 lying = Translation(0, y, 0.2 + 0.05 - depth);
  lying.R = Eigen::AngleAxisd(M_PI / 2, V3::UnitY()).toRotationMatrix();
  Contact c[kMaxContactPoints];
  ASSERT_EQ(CollideShapes(post, X3(), log, lying, 0.0, c), 2);
  ExpectConsistent(c, 2);
  const double half_chord = std::sqrt(0.1 * 0.1 - y * y);
  std::vector<double> xs;
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(c[i].signed_distance, -depth, 1e-14);
    EXPECT_TRUE(c[i].normal.isApprox(V3::UnitZ(), 1e-14));
    EXPECT_NEAR(c[i].p_WA.z(), 0.2, 1e-14);
    xs.push_back(c[i].p_WA.x());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], -half_chord, 1e-12);
  EXPECT_NEAR(xs[1], half_chord, 1e-12);
  ASSERT_EQ(CollideShapes(log, lying, post, X3(), 0.0, c), 2);
  ExpectConsistent(c, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(c[i].normal.isApprox(-V3::UnitZ(), 1e-14));
  }
  // A short one tilted 0.01 rad, its ends over the disk: each end at its
  // own depth (1 mm -+ 0.5 mm), the deeper one the general route's.
  const Shape short_log = Shape::Cylinder(0.05, 0.1);
  X3 tilted = lying;
  tilted.R = Eigen::AngleAxisd(M_PI / 2 + 0.01, V3::UnitY()).toRotationMatrix();
  ASSERT_EQ(CollideShapes(post, X3(), short_log, tilted, 0.0, c), 2);
  ExpectConsistent(c, 2);
  EXPECT_GT(std::abs(c[0].signed_distance - c[1].signed_distance), 9e-4);
  EXPECT_NEAR(
      std::min(c[0].signed_distance, c[1].signed_distance),
      ConvexConvexGeneral(post, X3(), short_log, tilted).signed_distance, 1e-9);
  // The long one tilted: its lower end hangs beside the post, below the
  // cap's plane; the contact is on the post's rim (the general route).
  X3 long_tilted = lying;
  long_tilted.R =
      Eigen::AngleAxisd(M_PI / 2 + 0.02, V3::UnitY()).toRotationMatrix();
  EXPECT_EQ(CollideShapes(post, X3(), log, long_tilted, 0.0, c), 1);
}

// In overlap, the cylinder kernels' own routes (box-cylinder's face and
// side, capsule- and cylinder-cylinder by their axes) are exact: on random
// poses moved to shallow overlaps (0.1 to 10 mm, as contacts are), moving
// the cylinder by its depth plus 1e-7 m along its normal separates the pair
// (GJK, exact when apart, says so), and moving it by the depth less 1e-7
// m in any of 20 random directions does not. The general route (EPA, MPR)
// is not held to this: when EPA runs out of room on a curved shape, MPR's
// depth along its portal can be 1 to 15 % too deep (at 3.6 % of these
// box-cylinder poses, bench/contact/README.md); those answers are skipped.
void ExpectCylinderOverlapExact(const Shape& box, const Shape& cyl,
                                int min_manifolds) {
  SCOPED_TRACE(std::string(ShapeKindName(box.kind)) + "-" +
               ShapeKindName(cyl.kind));
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> depth(1e-4, 1e-2);
  std::normal_distribution<double> normal;
  int tested = 0, manifolds = 0;
  for (int k = 0; k < 2000; ++k) {
    const X3 Xa = test::RandomPose(&gen, 0.4);
    X3 Xb = test::RandomPose(&gen, 0.4);
    const Contact g0 = ConvexConvexGeneral(box, Xa, cyl, Xb);
    Xb.p += (-g0.signed_distance - depth(gen)) * g0.normal;
    const Contact g = ConvexConvexGeneral(box, Xa, cyl, Xb);
    Contact c[kMaxContactPoints];
    const int n = CollideShapes(box, Xa, cyl, Xb, 0.0, c);
    if (g.signed_distance > -1e-6 || n == 0) continue;
    ExpectConsistent(c, n);
    int deepest = 0;
    for (int i = 1; i < n; ++i) {
      if (c[i].signed_distance < c[deepest].signed_distance) deepest = i;
    }
    const Contact& d = c[deepest];
    if (n == 1 && d.signed_distance == g.signed_distance &&
        d.normal == g.normal) {
      continue;  // the general route
    }
    ++tested;
    manifolds += n > 1;
    SCOPED_TRACE(testing::Message() << "pose " << k);
    ExpectDepthBetween(box, Xa, cyl, Xb, d.normal, -d.signed_distance,
                       -d.signed_distance, &gen, &normal);
  }
  EXPECT_GT(tested, 300);
  EXPECT_GE(manifolds, min_manifolds);
  EXPECT_GT(tested - manifolds, 20);
}

TEST(NarrowPhaseTest, CylinderOverlapIsExact) {
  ExpectCylinderOverlapExact(Shape::Box(0.4, 0.5, 0.6),
                             Shape::Cylinder(0.15, 0.5), 20);
  ExpectCylinderOverlapExact(Shape::Capsule(0.1, 0.5),
                             Shape::Cylinder(0.15, 0.5), 0);
  ExpectCylinderOverlapExact(Shape::Cylinder(0.1, 0.9),
                             Shape::Cylinder(0.15, 0.5), 0);
}

// A box against a cylinder's end within 3e-8 m of touching (the pose a
// resting humanoid's torso and forearm reached, to the bit): GJK on these
// curved cores stops for want of progress at 6e-9 m apart without proving
// it, while the pair overlaps by 2e-8 m. The general route then asks MPR,
// so the signed distance is continuous: the mean of the pair moved 1e-7 m
// apart and 1e-7 m together (which GJK and EPA answer) within 5e-9 m. It
// read GJK's 6e-9 m, and the steps that alternated between that and EPA's
// depth kicked the resting robot every 14 steps (bench/contact/README.md).
TEST(NarrowPhaseTest, StalledGjkNearTouchingIsNotTakenAsApart) {
  const Shape box = Shape::Box(0.25, 0.35, 0.4);
  const Shape cyl = Shape::Cylinder(0.04, 0.25);
  X3 Xa, Xb;
  Xa.R << -0.16334271934445177, 0.16404382888689836, -0.97283543225012437,
      -0.080286465534271517, 0.98059816686281809, 0.17883321446894257,
      0.98329712675730652, 0.10731662196233438, -0.14700307194551954;
  Xa.p << -0.40859210862381778, 0.03698423437725995, 0.17109315910883788;
  Xb.R << -0.1825671071097148, -0.18972690289678806, -0.96471392325330485,
      0.66891311119246233, 0.6951461741199495, -0.26330029677388705,
      0.72057234270849624, -0.69337976529719259, -1.3133864718017918e-08;
  Xb.p << -0.16070029756004153, 0.24486042672067224, 0.039999990375897028;
  const Contact c = ConvexConvexGeneral(box, Xa, cyl, Xb);
  ASSERT_LT(std::abs(c.signed_distance), 1e-7);
  const double delta = 1e-7;
  X3 apart = Xb, together = Xb;
  apart.p += delta * c.normal;
  together.p -= delta * c.normal;
  const double phi_apart =
      ConvexConvexGeneral(box, Xa, cyl, apart).signed_distance;
  const double phi_together =
      ConvexConvexGeneral(box, Xa, cyl, together).signed_distance;
  EXPECT_NEAR(phi_apart - phi_together, 2 * delta, 5e-9);
  EXPECT_NEAR(c.signed_distance, 0.5 * (phi_apart + phi_together), 5e-9);
  EXPECT_LT(c.signed_distance, -1e-8);
  // The box-cylinder kernel's answer is the same.
  Contact k[4];
  const int n = CollideShapes(box, Xa, cyl, Xb, 0.01, k);
  ASSERT_GE(n, 1);
  double deepest = k[0].signed_distance;
  for (int i = 1; i < n; ++i) deepest = std::min(deepest, k[i].signed_distance);
  EXPECT_NEAR(deepest, c.signed_distance, 5e-9);
}

TEST(NarrowPhaseTest, GeneralConvexPairs) {
  Contact c[kMaxContactPoints];
  // A cylinder's end face parallel to a box's face, 5 mm apart: GJK's
  // tetrahedron is flat here, which must not read as overlap.
  c[0] = ConvexConvexGeneral(Shape::Box(0.2, 0.3, 0.15), X3(),
                             Shape::Cylinder(0.07, 0.4),
                             Translation(0, 0.1, -0.075 - 0.005 - 0.2));
  EXPECT_NEAR(c[0].signed_distance, 0.005, 1e-12);
  EXPECT_TRUE(c[0].normal.isApprox(V3(0, 0, -1), 1e-9));
  // A cylinder lying on a box's face exactly (touching, depth 0) across
  // its edge: MPR answers with a zero direction; the normal is GJK's last
  // direction, the face normal (to GJK's accuracy on a curved side, the
  // square root of its gap).
  X3 touching = Translation(0.5001, 0, 0.2 + 0.1);
  touching.R = Eigen::AngleAxisd(M_PI / 2, V3::UnitY()).toRotationMatrix();
  c[0] = ConvexConvexGeneral(Shape::Box(1, 0.6, 0.4), X3(),
                             Shape::Cylinder(0.1, 0.5), touching);
  EXPECT_NEAR(c[0].signed_distance, 0, 1e-12);
  EXPECT_NEAR(c[0].normal.norm(), 1, 1e-12);
  EXPECT_GT(c[0].normal.z(), 1 - 1e-6) << c[0].normal;
  // Ellipsoid (1, 0.5, 0.5) and a sphere on its x axis: gap 2 - 1 - 0.5.
  ASSERT_EQ(CollideShapes(Shape::Ellipsoid(1, 0.5, 0.5), X3(),
                          Shape::Sphere(0.5), Translation(2, 0, 0), 1, c),
            1);
  EXPECT_NEAR(c[0].signed_distance, 0.5, 1e-9);
  EXPECT_TRUE(c[0].normal.isApprox(V3::UnitX(), 1e-6));
  // Overlapping along the axis by 0.1 (MPR): depth 0.1.
  ASSERT_EQ(CollideShapes(Shape::Ellipsoid(1, 0.5, 0.5), X3(),
                          Shape::Sphere(0.5), Translation(1.4, 0, 0), 0, c),
            1);
  EXPECT_NEAR(c[0].signed_distance, -0.1, 1e-6);
  EXPECT_TRUE(c[0].normal.isApprox(V3::UnitX(), 1e-6));
  ExpectConsistent(c, 1);
  // Capsule against box (GJK): capsule above the box's top face.
  ASSERT_EQ(CollideShapes(Shape::Capsule(0.1, 1), Translation(0, 0, 1.2),
                          Shape::Box(1, 1, 1), X3(), 1, c),
            1);
  EXPECT_NEAR(c[0].signed_distance, 1.2 - 0.5 - 0.1 - 0.5, 1e-9);
}

}  // namespace
}  // namespace tern
