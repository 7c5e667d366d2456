// GeometryModel built from URDF: shapes, properties, meshes (hulls on moving
// bodies, triangle meshes on the world), filters, and the bad-input errors.
#include "tern/multibody/geometry/geometry_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

namespace fs = std::filesystem;
using V3 = Vector3<double>;

// Writes a unit cube as OBJ (closed, outward triangles); `drop` omits the
// last `drop` faces.
std::string WriteCubeObj(const std::string& name, int drop = 0) {
  const fs::path dir = fs::path(::testing::TempDir()) / "tern_geometry_test";
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream f(path);
  for (int i = 0; i < 8; ++i) {
    f << "v " << ((i & 1) ? 0.5 : -0.5) << " " << ((i & 2) ? 0.5 : -0.5) << " "
      << ((i & 4) ? 0.5 : -0.5) << "\n";
  }
  // 1-based, counterclockwise from outside.
  const int faces[12][3] = {{1, 3, 4}, {1, 4, 2}, {5, 6, 8}, {5, 8, 7},
                            {1, 2, 6}, {1, 6, 5}, {3, 7, 8}, {3, 8, 4},
                            {1, 5, 7}, {1, 7, 3}, {2, 4, 8}, {2, 8, 6}};
  for (int k = 0; k < 12 - drop; ++k) {
    f << "f " << faces[k][0] << " " << faces[k][1] << " " << faces[k][2]
      << "\n";
  }
  return path.string();
}

std::string Urdf(const std::string& link_body,
                 const std::string& world_body = "") {
  return R"(<?xml version="1.0"?>
<robot name="r">
  <link name="world">)" +
         world_body + R"(</link>
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
)" + link_body +
         R"(
  </link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
  <joint name="j0" type="fixed"><parent link="world"/><child link="base"/></joint>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";
}

void ExpectThrowWith(const std::function<void()>& f,
                     const std::vector<std::string>& texts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const std::exception& e) {
    for (const auto& t : texts) {
      EXPECT_NE(std::string(e.what()).find(t), std::string::npos)
          << "'" << t << "' not in: " << e.what();
    }
  }
}

TEST(GeometryModelTest, FromUrdfShapesPropertiesAndFilter) {
  const UrdfModel m = ParseUrdfString(Urdf(R"(
    <collision name="body_box">
      <origin xyz="0 0 0.1"/>
      <geometry><box size="0.2 0.4 0.6"/></geometry>
      <contact_coefficients mu="0.7" kp="2e5"/>
    </collision>
    <collision><geometry><capsule radius="0.05" length="0.3"/></geometry></collision>)"));
  const GeometryModel model = GeometryModel::FromTree(m.tree);
  ASSERT_EQ(model.num_geometries(), 3);
  const Geometry& box = model.geometry(0);
  EXPECT_EQ(box.name, "body_box");
  EXPECT_EQ(box.shape.kind, ShapeKind::kBox);
  EXPECT_EQ(box.shape.dims, V3(0.1, 0.2, 0.3));
  EXPECT_EQ(box.X_BG.p, V3(0, 0, 0.1));
  EXPECT_EQ(box.properties.friction, 0.7);
  EXPECT_EQ(box.properties.stiffness, 2e5);
  EXPECT_EQ(box.properties.dissipation, ContactProperties().dissipation);
  EXPECT_EQ(model.geometry(1).shape.kind, ShapeKind::kCapsule);
  EXPECT_EQ(model.geometry(1).name, "base_collision_1");
  // base and arm are parent and child: excluded by default; same body never.
  EXPECT_FALSE(model.CanCollide(0, 2));
  EXPECT_FALSE(model.CanCollide(0, 1));
  GeometryModelOptions keep;
  keep.exclude_parent_child = false;
  const GeometryModel all = GeometryModel::FromTree(m.tree, keep);
  EXPECT_TRUE(all.CanCollide(0, 2));
}

TEST(GeometryModelTest, UserGroupsFilterPairs) {
  GeometryModel model(3);
  Geometry a, b, c;
  a.body = 1;
  a.shape = Shape::Sphere(1);
  b = a;
  b.body = 2;
  c = b;
  c.body = 0;
  a.group = 0b01;
  a.mask = 0b01;  // collides only with group 1
  b.group = 0b10;
  c.group = 0b01;
  const int ia = model.AddGeometry(a), ib = model.AddGeometry(b),
            ic = model.AddGeometry(c);
  EXPECT_FALSE(model.CanCollide(ia, ib));
  EXPECT_TRUE(model.CanCollide(ia, ic));
  EXPECT_TRUE(model.CanCollide(ib, ic));
  model.ExcludeBodyPair(2, 0);
  EXPECT_FALSE(model.CanCollide(ib, ic));
}

// MJCF's contype / conaffinity: a pair collides if either geometry's
// contype meets the other's conaffinity (MuJoCo's or-rule, which group and
// mask, an and-rule, cannot say): robot links (1, 0) touch the floor (0, 1)
// but not each other; a geometry with (2, 2) touches neither.
TEST(GeometryModelTest, ContypeAndConaffinityFollowMujocosRule) {
  GeometryModel model(4);
  Geometry floor, link1, link2, other;
  floor.body = 0;
  floor.shape = Shape::Sphere(1);
  link1 = link2 = other = floor;
  link1.body = 1;
  link2.body = 2;
  other.body = 3;
  floor.contype = 0;
  floor.conaffinity = 1;
  link1.contype = link2.contype = 1;
  link1.conaffinity = link2.conaffinity = 0;
  other.contype = other.conaffinity = 2;
  const int f = model.AddGeometry(floor), l1 = model.AddGeometry(link1),
            l2 = model.AddGeometry(link2), o = model.AddGeometry(other);
  EXPECT_TRUE(model.CanCollide(f, l1));
  EXPECT_TRUE(model.CanCollide(l2, f));
  EXPECT_FALSE(model.CanCollide(l1, l2));
  EXPECT_FALSE(model.CanCollide(o, f));
  EXPECT_FALSE(model.CanCollide(o, l1));
  // The defaults (1, 1) meet everything with a nonzero bit 0 either way.
  Geometry plain = floor;
  plain.body = 2;
  plain.contype = plain.conaffinity = 1;
  const int p = model.AddGeometry(plain);
  EXPECT_TRUE(model.CanCollide(p, f));
  EXPECT_TRUE(model.CanCollide(p, l1));
  EXPECT_FALSE(model.CanCollide(p, o));
}

TEST(GeometryModelTest, MeshesBecomeHullsOnBodiesAndStayMeshesOnTheWorld) {
  const std::string cube = WriteCubeObj("cube.obj");
  const std::string mesh = "<collision><geometry><mesh filename=\"" + cube +
                           "\" scale=\"2 2 2\"/></geometry></collision>";
  const UrdfModel m = ParseUrdfString(Urdf(mesh, mesh));
  const GeometryModel model = GeometryModel::FromTree(m.tree);
  ASSERT_EQ(model.num_geometries(), 3);
  // World first (body 0).
  EXPECT_EQ(model.geometry(0).shape.kind, ShapeKind::kTriangleMesh);
  EXPECT_EQ(model.geometry(0).shape.mesh->triangles.size(), 12u);
  const Geometry& hull = model.geometry(1);
  ASSERT_EQ(hull.shape.kind, ShapeKind::kConvex);
  EXPECT_EQ(hull.shape.convex->vertices.size(), 8u);
  EXPECT_NEAR(hull.shape.convex->hi.x(), 1.0, 1e-12);  // scaled by 2
}

TEST(GeometryModelTest, BadInputNamesFileLineGeometryAndBody) {
  // A non-positive size.
  ExpectThrowWith(
      [] {
        GeometryModel::FromTree(
            ParseUrdfString(
                Urdf("<collision name=\"c\"><geometry><sphere radius=\"-1\"/>"
                     "</geometry></collision>"),
                {}, "bad.urdf")
                .tree);
      },
      {"bad.urdf:6:", "geometry 'c'", "body 'base'", "sphere radius is -1"});
  // A mesh that is not closed, on a moving body, becomes its hull (issue
  // 29); a flat one has none: the error names the file.
  const std::string open = WriteCubeObj("open.obj", 1);
  const GeometryModel hull = GeometryModel::FromTree(
      ParseUrdfString(Urdf("<collision name=\"m\"><geometry><mesh filename=\"" +
                           open + "\"/></geometry></collision>"),
                      {}, "open.urdf")
          .tree);
  ASSERT_EQ(hull.geometry(0).shape.kind, ShapeKind::kConvex);
  EXPECT_EQ(hull.geometry(0).shape.convex->vertices.size(), 8u);
  const fs::path flat_path =
      fs::path(::testing::TempDir()) / "tern_geometry_test" / "flat.obj";
  std::ofstream(flat_path) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                              "f 1 2 3\nf 2 4 3\n";
  ExpectThrowWith(
      [&] {
        GeometryModel::FromTree(
            ParseUrdfString(
                Urdf("<collision name=\"m\"><geometry><mesh filename=\"" +
                     flat_path.string() + "\"/></geometry></collision>"),
                {}, "flat.urdf")
                .tree);
      },
      {"flat.urdf:6:", "geometry 'm' (convex mesh)", "body 'base'", "flat.obj",
       "degenerate convex hull"});
  // An unreadable mesh file: the URDF parser names file, line and mesh.
  const fs::path junk =
      fs::path(::testing::TempDir()) / "tern_geometry_test" / "junk.stl";
  std::ofstream(junk) << "this is not a mesh";
  ExpectThrowWith(
      [&] {
        ParseUrdfString(Urdf("<collision><geometry><mesh filename=\"" +
                             junk.string() + "\"/></geometry></collision>"),
                        {}, "junk.urdf");
      },
      {"junk.urdf:6:", "<mesh>", "junk.stl"});
  // An empty mesh (no faces).
  const fs::path empty =
      fs::path(::testing::TempDir()) / "tern_geometry_test" / "empty.obj";
  std::ofstream(empty) << "v 0 0 0\nv 1 0 0\n";
  ExpectThrowWith(
      [&] {
        ParseUrdfString(Urdf("<collision><geometry><mesh filename=\"" +
                             empty.string() + "\"/></geometry></collision>"),
                        {}, "empty.urdf");
      },
      {"empty.urdf:6:", "empty.obj"});
  // In code: a NaN pose, a half-space on a moving body, a bad body.
  GeometryModel model(2);
  Geometry g;
  g.name = "g";
  g.body = 1;
  g.shape = Shape::Sphere(1);
  g.X_BG.p.x() = NAN;
  ExpectThrowWith([&] { model.AddGeometry(g); },
                  {"geometry 'g'", "body '#1'", "not finite"});
  g.X_BG = RigidTransform<double>();
  g.shape = Shape::HalfSpace();
  ExpectThrowWith([&] { model.AddGeometry(g); },
                  {"geometry 'g'", "attach them to the world"});
  g.shape = Shape::Sphere(1);
  g.shape.dims[0] = 0;  // bypassing the factory
  ExpectThrowWith([&] { model.AddGeometry(g); }, {"geometry 'g'", "positive"});
  g.shape.dims[0] = 1;
  g.body = 5;
  ExpectThrowWith([&] { model.AddGeometry(g); }, {"body index 5"});
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// A floating box from a URDF, as docs/geometry.md builds it: FromTree plus a
// ground plane in code. The box's parent is the world (through a floating
// joint), yet it must land on the ground: FromTree excludes parent-child
// pairs except a floating (or planar) root with the world.
UrdfModel FloatingBox(bool floating) {
  UrdfParseOptions options;
  options.floating_base = floating;
  return ParseUrdfString(R"(<?xml version="1.0"?>
<robot name="box">
  <link name="box">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
  </link>
</robot>)",
                         options);
}

TEST(GeometryModelTest, DocsExampleFloatingUrdfBoxLandsOnTheGround) {
  const UrdfModel urdf = FloatingBox(true);
  GeometryModel model = GeometryModel::FromTree(urdf.tree);
  Geometry ground;
  ground.shape = Shape::HalfSpace();
  const int g = model.AddGeometry(ground);
  ASSERT_EQ(g, 1);
  EXPECT_TRUE(model.CanCollide(0, g));
  EXPECT_FALSE(model.IsExcluded(1, 0));
  // Overlapping the ground by 5 cm: one contact manifold, depth 0.05.
  GeometryWorkspace ws(model);
  KinematicsCache<double> cache(urdf.tree);
  VectorX<double> q = urdf.tree.GetZeroConfiguration();
  q[2] = 0.05;  // z of the box centre; its bottom is at -0.05
  ForwardKinematics(urdf.tree, &cache, q);
  UpdateGeometryPoses(model, cache.X_WB, &ws);
  const std::vector<Contact>& contacts = ComputeContacts(model, &ws);
  ASSERT_FALSE(contacts.empty());
  for (const Contact& c : contacts) EXPECT_NEAR(c.signed_distance, -0.05, 1e-9);
  // Welded to the world instead, the box is the world's child: excluded.
  const UrdfModel welded = FloatingBox(false);
  GeometryModel fixed = GeometryModel::FromTree(welded.tree);
  fixed.AddGeometry(ground);
  EXPECT_FALSE(fixed.CanCollide(0, 1));
  // So is a revolute child of a floating body (the quadruped's hips).
  UrdfParseOptions o;
  o.floating_base = true;
  const UrdfModel quad =
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/quadruped.urdf", o);
  const GeometryModel q4 = GeometryModel::FromTree(quad.tree);
  const int base = q4.FindBody("base"), hip = q4.FindBody("fl_hip");
  EXPECT_FALSE(q4.IsExcluded(base, 0));
  EXPECT_TRUE(q4.IsExcluded(base, hip));
  EXPECT_FALSE(q4.IsExcluded(hip, 0));
}

TEST(GeometryModelTest, FiltersByLinkNameGroupAndSelfCollision) {
  const UrdfModel m = ParseUrdfString(Urdf(
      "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision>"));
  GeometryModel model = GeometryModel::FromTree(m.tree);
  const int base = model.FindBody("base"), arm = model.FindBody("arm");
  EXPECT_EQ(model.FindBody("world"), 0);
  EXPECT_TRUE(model.IsExcluded(base, arm));  // parent and child
  // By name; the pair is symmetric.
  EXPECT_FALSE(model.IsExcluded(arm, 0));
  model.ExcludeBodyPair("world", "arm");
  EXPECT_TRUE(model.IsExcluded(0, arm));
  // Unknown link: the error names it and lists the bodies.
  ExpectThrowWith([&] { model.ExcludeBodyPair("arm", "elbow"); },
                  {"'elbow'", "world, base, arm"});
  ExpectThrowWith(
      [&] {
        model.ExcludeBodyPairs({{"base", "wrist"}});
      },
      {"'wrist'"});
  // Groups: every member of one against every member of the other, never
  // a body against itself.
  GeometryModel g(5);
  g.ExcludeGroupPair({1, 2}, {3});
  EXPECT_TRUE(g.IsExcluded(1, 3));
  EXPECT_TRUE(g.IsExcluded(3, 2));
  EXPECT_FALSE(g.IsExcluded(1, 2));
  EXPECT_FALSE(g.IsExcluded(3, 3));
  g.ExcludeWithin({1, 2, 4});
  EXPECT_TRUE(g.IsExcluded(1, 2));
  EXPECT_TRUE(g.IsExcluded(4, 1));
  EXPECT_FALSE(g.IsExcluded(4, 3));
  EXPECT_FALSE(g.IsExcluded(0, 4));
}

// Above kDenseFilterBodies the excluded pairs are a hash set instead of a
// bit matrix (issue 27: memory linear in the bodies); the same exclusions
// give the same answers and the same CanCollide as the dense filter.
TEST(GeometryModelTest, SparseFilterOfALargeSceneMatchesTheDenseOne) {
  constexpr int n = 40;
  GeometryModel dense(n);
  GeometryModel sparse(GeometryModel::kDenseFilterBodies + 1);
  ASSERT_TRUE(dense.dense_filter());
  ASSERT_FALSE(sparse.dense_filter());
  for (GeometryModel* m : {&dense, &sparse}) {
    m->ExcludeBodyPair(3, 7);
    m->ExcludeBodyPair(9, 0);
    m->ExcludeGroupPair({1, 2, 3}, {20, 21});
    m->ExcludeWithin({30, 31, 32, 33});
    for (int b = 1; b < n; ++b) {
      Geometry g;
      g.name = "g" + std::to_string(b);
      g.body = b;
      g.shape = Shape::Sphere(0.1);
      if (b == 5) g.mask = 0;  // collides with nothing
      m->AddGeometry(g);
    }
  }
  int excluded = 0;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      EXPECT_EQ(sparse.IsExcluded(a, b), dense.IsExcluded(a, b)) << a << b;
      excluded += dense.IsExcluded(a, b);
    }
  }
  EXPECT_EQ(excluded, 2 * (2 + 6 + 6));  // ordered pairs
  for (int g = 0; g < n - 1; ++g) {
    for (int h = 0; h < n - 1; ++h) {
      EXPECT_EQ(sparse.CanCollide(g, h), dense.CanCollide(g, h)) << g << h;
    }
  }
  // Bodies far apart in index (beyond 32 bits of a packed key, were it
  // packed wrongly) stay distinct.
  sparse.ExcludeBodyPair(GeometryModel::kDenseFilterBodies, 1);
  EXPECT_TRUE(sparse.IsExcluded(1, GeometryModel::kDenseFilterBodies));
  EXPECT_FALSE(sparse.IsExcluded(0, GeometryModel::kDenseFilterBodies));
}

}  // namespace
}  // namespace tern
