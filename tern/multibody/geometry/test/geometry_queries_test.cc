// Broad phase against brute force, contacts of a shipped model on the
// ground, ray batches, and no allocation per query after warm-up.
#include "tern/multibody/geometry/geometry_queries.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "tern/multibody/geometry/test/test_helpers.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using V3 = Vector3<double>;
using X3 = RigidTransform<double>;

// n free bodies with random spheres, boxes, capsules and cylinders, random
// filter groups, and a ground plane.
GeometryModel RandomScene(int n, std::mt19937* gen) {
  GeometryModel model(n + 1);
  std::uniform_int_distribution<int> kind(0, 3), bit(0, 3);
  std::uniform_real_distribution<double> size(0.05, 0.4);
  for (int b = 1; b <= n; ++b) {
    Geometry g;
    g.body = b;
    switch (kind(*gen)) {
      case 0:
        g.shape = Shape::Sphere(size(*gen));
        break;
      case 1:
        g.shape = Shape::Box(size(*gen), size(*gen), size(*gen));
        break;
      case 2:
        g.shape = Shape::Capsule(size(*gen), size(*gen));
        break;
      default:
        g.shape = Shape::Cylinder(size(*gen), size(*gen));
        break;
    }
    g.group = 1u << bit(*gen);
    g.mask = ~(1u << bit(*gen));
    model.AddGeometry(g);
  }
  Geometry ground;
  ground.shape = Shape::HalfSpace();
  ground.X_BG.p.z() = -1.5;
  model.AddGeometry(ground);
  return model;
}

std::vector<X3> RandomBodyPoses(int n, std::mt19937* gen) {
  std::vector<X3> X(n + 1);
  for (int b = 1; b <= n; ++b) X[b] = test::RandomPose(gen, 2.0);
  return X;
}

TEST(GeometryQueriesTest, BroadPhaseEqualsBruteForce) {
  std::mt19937 gen(3);
  const int n = 150;
  const GeometryModel model = RandomScene(n, &gen);
  GeometryWorkspace ws(model);
  for (int frame = 0; frame < 5; ++frame) {
    UpdateGeometryPoses(model, RandomBodyPoses(n, &gen), &ws);
    const double margin = 0.05;
    const auto& pairs = ComputeCandidatePairs(model, &ws, margin);
    std::set<std::pair<int, int>> brute;
    for (int a = 0; a < model.num_geometries(); ++a) {
      for (int b = a + 1; b < model.num_geometries(); ++b) {
        if (!model.CanCollide(a, b)) continue;
        const bool ha = model.geometry(a).shape.kind == ShapeKind::kHalfSpace;
        const bool hb = model.geometry(b).shape.kind == ShapeKind::kHalfSpace;
        bool overlap;
        if (ha || hb) {
          const int h = ha ? a : b, o = ha ? b : a;
          overlap = ws.aabb_lo[o].z() <= ws.X_WG[h].p.z() + margin;
        } else {
          overlap =
              ((ws.aabb_lo[a].array() - margin) <= ws.aabb_hi[b].array())
                  .all() &&
              ((ws.aabb_lo[b].array() - margin) <= ws.aabb_hi[a].array()).all();
        }
        if (overlap) brute.emplace(a, b);
      }
    }
    const std::set<std::pair<int, int>> found(pairs.begin(), pairs.end());
    EXPECT_EQ(found, brute);
    EXPECT_EQ(pairs.size(), brute.size());  // each pair once
    EXPECT_TRUE(std::is_sorted(pairs.begin(), pairs.end()));
    EXPECT_GT(brute.size(), 10u);
  }
}

TEST(GeometryQueriesTest, QuadrupedStandingOnTheGround) {
  UrdfParseOptions options;
  options.floating_base = true;
  const UrdfModel urdf =
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/quadruped.urdf", options);
  GeometryModel model = GeometryModel::FromTree(urdf.tree);
  Geometry ground;
  ground.name = "ground";
  ground.shape = Shape::HalfSpace();
  model.AddGeometry(ground);
  KinematicsCache<double> cache(urdf.tree);
  VectorX<double> q = urdf.tree.GetZeroConfiguration();
  // Legs straight down: the feet (radius 2 cm) are 0.5 m below the base
  // origin; sink the feet by 5 mm.
  q(2) = 0.5 + 0.02 - 0.005;
  ForwardKinematics(urdf.tree, &cache, q);
  GeometryWorkspace ws(model);
  UpdateGeometryPoses(model, cache.X_WB, &ws);
  const auto& contacts = ComputeContacts(model, &ws, 0.0);
  std::set<std::string> touching;
  for (const Contact& c : contacts) {
    const std::string name =
        urdf.tree.body(c.body_a == 0 ? c.body_b : c.body_a).name;
    touching.insert(name);
    EXPECT_NEAR(c.signed_distance, -0.005, 1e-12) << name;
  }
  EXPECT_EQ(touching, (std::set<std::string>{"fl_foot", "fr_foot", "hl_foot",
                                             "hr_foot"}));
  // Lidar ring at the base, level: all rays miss (nothing around) except
  // those tilted down, which hit the ground.
  const int nr = 32;
  Matrix3X<double> dirs(3, nr);
  for (int k = 0; k < nr; ++k) {
    const double a = 2 * M_PI * k / nr;
    dirs.col(k) = V3(std::cos(a), std::sin(a), -0.5);
  }
  std::vector<RayHit> hits;
  const V3 origin(0, 0, 1.0);
  CastRays(model, ws, origin, dirs, 10.0, &hits,
           urdf.tree.FindBodyIndex("base"));
  for (int k = 0; k < nr; ++k) {
    ASSERT_TRUE(hits[k].hit);
    EXPECT_EQ(hits[k].body, 0);
    EXPECT_NEAR(hits[k].point.z(), 0, 1e-12);
    EXPECT_NEAR(hits[k].distance, dirs.col(k).norm() * 2.0, 1e-12);
    EXPECT_TRUE(hits[k].normal.isApprox(V3::UnitZ()));
  }
  // Straight down from between the base and the feet: the ground.
  const RayHit down = CastRay(model, ws, V3(0, 0, 0.4), V3(0, 0, -1), 10);
  ASSERT_TRUE(down.hit);
  EXPECT_EQ(down.body, 0);
  const RayHit up = CastRay(model, ws, V3(0, 0, 2), V3(0, 0, 1), 10);
  EXPECT_FALSE(up.hit);
  EXPECT_THROW(CastRay(model, ws, V3(0, 0, 2), V3(0, 0, 0), 10),
               std::invalid_argument);
}

// The humanoid's joint spheres overlap the boxes and rods two or three
// bodies up the chain at the zero configuration; excluding the pairs in
// contact there leaves only the feet on the ground.
TEST(GeometryQueriesTest, ExcludeBodyPairsInContactAtHome) {
  UrdfParseOptions options;
  options.floating_base = true;
  const UrdfModel urdf =
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/humanoid.urdf", options);
  GeometryModel model = GeometryModel::FromTree(urdf.tree);
  Geometry ground;
  ground.shape = Shape::HalfSpace();
  model.AddGeometry(ground);
  KinematicsCache<double> cache(urdf.tree);
  VectorX<double> q = urdf.tree.GetZeroConfiguration();
  q(2) = 0.08 + 0.4 + 0.4 + 0.065 - 0.001;  // soles 1 mm into the ground
  ForwardKinematics(urdf.tree, &cache, q);
  GeometryWorkspace ws(model);
  UpdateGeometryPoses(model, cache.X_WB, &ws);
  int self = 0;
  for (const Contact& c : ComputeContacts(model, &ws, 0.0))
    self += c.body_a != 0;
  EXPECT_GT(self, 0);
  // Excluding at the same pose, lifted 1 m (so the feet are free).
  std::vector<X3> lifted = cache.X_WB;
  for (size_t b = 1; b < lifted.size(); ++b) lifted[b].p.z() += 1;
  EXPECT_GT(ExcludeBodyPairsInContact(&model, lifted), 0);
  GeometryWorkspace ws2(model);
  UpdateGeometryPoses(model, cache.X_WB, &ws2);
  std::set<std::string> touching;
  for (const Contact& c : ComputeContacts(model, &ws2, 0.0)) {
    EXPECT_EQ(c.body_a == 0 || c.body_b == 0, true);
    touching.insert(urdf.tree.body(c.body_a == 0 ? c.body_b : c.body_a).name);
    EXPECT_NEAR(c.signed_distance, -0.001, 1e-12);
  }
  EXPECT_EQ(touching, (std::set<std::string>{"l_foot", "r_foot"}));
  EXPECT_EQ(ws2.contacts.size(), 8u);  // 4 corners per sole
}

// Every kind against every kind on random poses: each reported contact is
// finite, has a unit normal and satisfies p_WB - p_WA = phi n, and a pair
// reported with phi < 0 really overlaps by the general route's measure too.
TEST(GeometryQueriesTest, AllKindsOnRandomPosesGiveConsistentContacts) {
  std::mt19937 gen(9);
  std::normal_distribution<double> nd;
  std::vector<V3> pts;
  for (int i = 0; i < 25; ++i)
    pts.emplace_back(0.2 * nd(gen), 0.15 * nd(gen), 0.1 * nd(gen));
  const std::vector<Shape> kinds = {Shape::Sphere(0.2),
                                    Shape::Capsule(0.1, 0.4),
                                    Shape::Box(0.3, 0.2, 0.4),
                                    Shape::Cylinder(0.15, 0.3),
                                    Shape::Ellipsoid(0.3, 0.2, 0.1),
                                    Shape::ConvexHull(pts)};
  const int n = 60;
  GeometryModel model(n + 1);
  for (int b = 1; b <= n; ++b) {
    Geometry g;
    g.body = b;
    g.shape = kinds[b % kinds.size()];
    model.AddGeometry(g);
  }
  Geometry ground;
  ground.shape = Shape::HalfSpace();
  ground.X_BG.p.z() = -1.0;
  model.AddGeometry(ground);
  Geometry terrain;  // a tilted 2-triangle ramp
  terrain.shape = Shape::Mesh(
      {V3(-2, -2, -1.2), V3(2, -2, 0.2), V3(2, 2, 0.2), V3(-2, 2, -1.2)},
      {Eigen::Vector3i(0, 1, 2), Eigen::Vector3i(0, 2, 3)});
  model.AddGeometry(terrain);
  GeometryWorkspace ws(model);
  int overlaps = 0, total = 0;
  for (int frame = 0; frame < 30; ++frame) {
    std::vector<X3> X(n + 1);
    for (int b = 1; b <= n; ++b) X[b] = test::RandomPose(&gen, 1.0);
    UpdateGeometryPoses(model, X, &ws);
    for (const Contact& c : ComputeContacts(model, &ws, 0.02)) {
      ++total;
      ASSERT_TRUE(c.p_WA.allFinite() && c.p_WB.allFinite() &&
                  c.normal.allFinite());
      EXPECT_NEAR(c.normal.norm(), 1, 1e-9);
      const Shape& a = model.geometry(c.geometry_a).shape;
      const Shape& b = model.geometry(c.geometry_b).shape;
      EXPECT_LT((c.p_WB - c.p_WA - c.signed_distance * c.normal).norm(), 1e-9)
          << ShapeKindName(a.kind) << "-" << ShapeKindName(b.kind) << " phi "
          << c.signed_distance;
      EXPECT_LE(c.signed_distance, 0.02);
      const bool convex_pair = a.kind != ShapeKind::kHalfSpace &&
                               a.kind != ShapeKind::kTriangleMesh &&
                               b.kind != ShapeKind::kHalfSpace &&
                               b.kind != ShapeKind::kTriangleMesh;
      if (convex_pair && c.signed_distance < -1e-6) {
        ++overlaps;
        const Contact g = ConvexConvexGeneral(a, ws.X_WG[c.geometry_a], b,
                                              ws.X_WG[c.geometry_b]);
        EXPECT_LT(g.signed_distance, 0)
            << ShapeKindName(a.kind) << "-" << ShapeKindName(b.kind);
      }
    }
  }
  EXPECT_GT(total, 100);
  EXPECT_GT(overlaps, 20);
}

TEST(GeometryQueriesTest, NanBodyPoseThrowsNamingBodyAndGeometry) {
  std::mt19937 gen(1);
  const GeometryModel model = RandomScene(3, &gen);
  GeometryWorkspace ws(model);
  std::vector<X3> X = RandomBodyPoses(3, &gen);
  X[2].p.y() = NAN;
  try {
    UpdateGeometryPoses(model, X, &ws);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("body '#2'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos);
  }
  X.pop_back();
  EXPECT_THROW(UpdateGeometryPoses(model, X, &ws), std::invalid_argument);
}

TEST(GeometryQueriesTest, NoAllocationAfterWarmUp) {
  std::mt19937 gen(5);
  const int n = 100;
  const GeometryModel model = RandomScene(n, &gen);
  GeometryWorkspace ws(model);
  std::vector<std::vector<X3>> frames;
  for (int f = 0; f < 20; ++f) frames.push_back(RandomBodyPoses(n, &gen));
  Matrix3X<double> dirs = Matrix3X<double>::Random(3, 64);
  const Matrix3X<double> origin = Matrix3X<double>::Zero(3, 1);
  std::vector<RayHit> hits;
  // A batch equals the single rays.
  UpdateGeometryPoses(model, frames[0], &ws);
  CastRays(model, ws, origin, dirs, 10.0, &hits);
  int hit_count = 0;
  for (int k = 0; k < dirs.cols(); ++k) {
    const RayHit one = CastRay(model, ws, V3::Zero(), dirs.col(k), 10.0);
    EXPECT_EQ(one.hit, hits[k].hit);
    EXPECT_EQ(one.distance, hits[k].distance);
    EXPECT_EQ(one.geometry, hits[k].geometry);
    hit_count += one.hit;
  }
  EXPECT_GT(hit_count, 0);
  auto run = [&] {
    size_t total = 0;
    for (const auto& X : frames) {
      UpdateGeometryPoses(model, X, &ws);
      total += ComputeContacts(model, &ws, 0.01).size();
      CastRays(model, ws, origin, dirs, 10.0, &hits);
    }
    return total;
  };
  const size_t warm = run();  // warm-up: the lists reach their sizes
  EXPECT_GT(warm, 20u);
  test::ScopedAllocationCounter counter;
  const size_t again = run();
  EXPECT_EQ(counter.count(), 0);
  EXPECT_EQ(again, warm);
}

}  // namespace
}  // namespace tern
