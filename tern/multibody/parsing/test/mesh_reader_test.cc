// Mesh files as the robots of the field have them: binary and ASCII STL,
// COLLADA with its <up_axis> and <unit>, PLY and glTF. The test files are
// written into the test's temporary folder.
#include "tern/multibody/parsing/mesh_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/geometry/shape.h"
#include "tern/multibody/parsing/urdf_parser.h"

namespace tern {
namespace {

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

fs::path Dir() {
  const fs::path dir = fs::path(::testing::TempDir()) / "tern_mesh_reader_test";
  fs::create_directories(dir);
  return dir;
}

// The 12 triangles (counterclockwise from outside) of the box with half
// extents h centered at the origin; corner i has coordinates (±hx, ±hy, ±hz)
// by its bits.
struct Tri {
  Vector3<double> v[3];
};
std::vector<Tri> BoxTriangles(const Vector3<double>& h) {
  auto corner = [&](int i) {
    return Vector3<double>((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                           (i & 4) ? h.z() : -h.z());
  };
  const int faces[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},
                            {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                            {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  std::vector<Tri> out;
  for (const auto& f : faces) {
    out.push_back(Tri{{corner(f[0]), corner(f[1]), corner(f[2])}});
  }
  return out;
}

// Binary STL: 80-byte header, triangle count, then per triangle a normal,
// three vertices (float32) and a 2-byte attribute.
std::string WriteBinaryStl(const std::string& name,
                           const std::vector<Tri>& tris) {
  const fs::path path = Dir() / name;
  std::ofstream f(path, std::ios::binary);
  char header[80] = {};
  std::strncpy(header, "tern binary stl test", sizeof(header) - 1);
  f.write(header, 80);
  const std::uint32_t n = static_cast<std::uint32_t>(tris.size());
  f.write(reinterpret_cast<const char*>(&n), 4);
  for (const Tri& t : tris) {
    const Vector3<double> normal =
        (t.v[1] - t.v[0]).cross(t.v[2] - t.v[0]).normalized();
    float data[12];
    for (int k = 0; k < 3; ++k) data[k] = static_cast<float>(normal[k]);
    for (int v = 0; v < 3; ++v) {
      for (int k = 0; k < 3; ++k) {
        data[3 + 3 * v + k] = static_cast<float>(t.v[v][k]);
      }
    }
    f.write(reinterpret_cast<const char*>(data), sizeof(data));
    const std::uint16_t attribute = 0;
    f.write(reinterpret_cast<const char*>(&attribute), 2);
  }
  return path.string();
}

std::string WriteAsciiStl(const std::string& name,
                          const std::vector<Tri>& tris) {
  const fs::path path = Dir() / name;
  std::ofstream f(path);
  f << "solid box\n";
  for (const Tri& t : tris) {
    const Vector3<double> n =
        (t.v[1] - t.v[0]).cross(t.v[2] - t.v[0]).normalized();
    f << "facet normal " << n.x() << " " << n.y() << " " << n.z()
      << "\nouter loop\n";
    for (const auto& v : t.v) {
      f << "vertex " << v.x() << " " << v.y() << " " << v.z() << "\n";
    }
    f << "endloop\nendfacet\n";
  }
  f << "endsolid box\n";
  return path.string();
}

// A COLLADA 1.4 file holding the box with half extents h, written in the
// file's own axes, with the given <up_axis> and <unit meter>.
std::string WriteDae(const std::string& name, const Vector3<double>& h,
                     const std::string& up_axis, double meter) {
  const fs::path path = Dir() / name;
  std::ofstream f(path);
  std::string positions, indices;
  for (int i = 0; i < 8; ++i) {
    positions += fmt::format("{}", (i & 1) ? h.x() : -h.x()) + " " +
                 fmt::format("{}", (i & 2) ? h.y() : -h.y()) + " " +
                 fmt::format("{}", (i & 4) ? h.z() : -h.z()) + " ";
  }
  const int faces[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},
                            {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                            {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  for (const auto& t : faces) {
    for (int k : t) indices += std::to_string(k) + " ";
  }
  f << R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="u" meter=")"
    << meter << R"("/><up_axis>)" << up_axis << R"(</up_axis></asset>
  <library_geometries>
    <geometry id="box" name="box"><mesh>
      <source id="box-pos">
        <float_array id="box-pos-array" count="24">)"
    << positions << R"(</float_array>
        <technique_common><accessor source="#box-pos-array" count="8" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common>
      </source>
      <vertices id="box-vtx"><input semantic="POSITION" source="#box-pos"/></vertices>
      <triangles count="12"><input semantic="VERTEX" source="#box-vtx" offset="0"/>
        <p>)"
    << indices << R"(</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene"><node id="n" name="n">
      <instance_geometry url="#box"/></node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
  return path.string();
}

void Bounds(const MeshData& m, Vector3<double>* lo, Vector3<double>* hi) {
  *lo = Vector3<double>::Constant(INFINITY);
  *hi = -*lo;
  for (const auto& v : m.vertices) {
    *lo = lo->cwiseMin(v);
    *hi = hi->cwiseMax(v);
  }
}

TEST(MeshReaderTest, BinaryAndAsciiStlCubesWeldToEightVerticesAndAreClosed) {
  const auto tris = BoxTriangles(Vector3<double>(0.5, 0.5, 0.5));
  for (const std::string& path : {WriteBinaryStl("cube_bin.stl", tris),
                                  WriteAsciiStl("cube_ascii.stl", tris)}) {
    const auto mesh = ReadMeshFile(path, Vector3<double>::Ones());
    EXPECT_EQ(mesh->vertices.size(), 8u) << path;
    EXPECT_EQ(mesh->triangles.size(), 12u) << path;
    EXPECT_TRUE(IsClosedMesh(mesh->triangles)) << path;
  }
}

TEST(MeshReaderTest, ScaleIsAppliedPerAxis) {
  const auto mesh =
      ReadMeshFile(WriteBinaryStl("cube_scaled.stl",
                                  BoxTriangles(Vector3<double>(0.5, 0.5, 0.5))),
                   Vector3<double>(1, 2, 3));
  Vector3<double> lo, hi;
  Bounds(*mesh, &lo, &hi);
  EXPECT_TRUE(hi.isApprox(Vector3<double>(0.5, 1, 1.5))) << hi.transpose();
  EXPECT_TRUE(lo.isApprox(-hi));
}

// The new-user finding of issue 29: a Z_UP box 0.1 x 0.1 x 0.5 came out
// lying down (turned 90 degrees about x, assimp's turn to Y-up).
TEST(MeshReaderTest, ColladaIsTakenAsWrittenWithItsUnit) {
  const Vector3<double> h(0.05, 0.05, 0.25);
  const auto z_up = ReadMeshFile(WriteDae("box_z_up.dae", h, "Z_UP", 1.0),
                                 Vector3<double>::Ones());
  Vector3<double> lo, hi;
  Bounds(*z_up, &lo, &hi);
  EXPECT_TRUE(hi.isApprox(h, 1e-6)) << hi.transpose();
  EXPECT_TRUE(lo.isApprox(-h, 1e-6)) << lo.transpose();
  EXPECT_EQ(z_up->vertices.size(), 8u);
  EXPECT_TRUE(IsClosedMesh(z_up->triangles));
  // Y_UP: also as written, in the link frame (the ROS convention, which
  // the dart-doc WAM's Y_UP meshes follow; robot_corpus_test checks them
  // against their collision STLs).
  const Vector3<double> h_y(0.05, 0.25, 0.05);
  const auto y_up = ReadMeshFile(WriteDae("box_y_up.dae", h_y, "Y_UP", 1.0),
                                 Vector3<double>::Ones());
  Bounds(*y_up, &lo, &hi);
  EXPECT_TRUE(hi.isApprox(h_y, 1e-6)) << hi.transpose();
  // Centimetres: 5 x 5 x 25 units of 1 cm.
  const auto cm = ReadMeshFile(WriteDae("box_cm.dae", 100 * h, "Z_UP", 0.01),
                               Vector3<double>::Ones());
  Bounds(*cm, &lo, &hi);
  EXPECT_TRUE(hi.isApprox(h, 1e-6)) << hi.transpose();
}

constexpr int kBoxFaces[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},
                                  {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                                  {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};

Vector3<double> Corner(const Vector3<double>& h, int i) {
  return Vector3<double>((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                         (i & 4) ? h.z() : -h.z());
}

TEST(MeshReaderTest, PlyIsTakenAsWritten) {
  const Vector3<double> h(0.05, 0.05, 0.25);
  const fs::path path = Dir() / "box.ply";
  {
    std::ofstream f(path);
    f << "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\n"
         "property float y\nproperty float z\nelement face 12\n"
         "property list uchar int vertex_indices\nend_header\n";
    for (int i = 0; i < 8; ++i) f << Corner(h, i).transpose() << "\n";
    for (const auto& t : kBoxFaces) {
      f << "3 " << t[0] << " " << t[1] << " " << t[2] << "\n";
    }
  }
  const auto mesh = ReadMeshFile(path.string(), Vector3<double>::Ones());
  Vector3<double> lo, hi;
  Bounds(*mesh, &lo, &hi);
  EXPECT_TRUE(hi.isApprox(h, 1e-6)) << hi.transpose();
  EXPECT_EQ(mesh->vertices.size(), 8u);
  EXPECT_TRUE(IsClosedMesh(mesh->triangles));
}

std::string Base64(const std::string& bytes) {
  static const char* k =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size())
      n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += k[(n >> 18) & 63];
    out += k[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? k[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? k[n & 63] : '=';
  }
  return out;
}

// glTF 2.0 is Y-up by specification: a box standing along the file's +y
// comes out standing along z.
TEST(MeshReaderTest, GltfIsTurnedFromYUpToZUp) {
  const Vector3<double> h_file(0.05, 0.25, 0.05);
  std::string buffer;
  for (int i = 0; i < 8; ++i) {
    const Vector3<double> c = Corner(h_file, i);
    for (int k = 0; k < 3; ++k) {
      const float x = static_cast<float>(c[k]);
      buffer.append(reinterpret_cast<const char*>(&x), 4);
    }
  }
  for (const auto& t : kBoxFaces) {
    for (int k : t) {
      const std::uint16_t index = static_cast<std::uint16_t>(k);
      buffer.append(reinterpret_cast<const char*>(&index), 2);
    }
  }
  const fs::path path = Dir() / "box.gltf";
  std::ofstream(path) << R"({"asset": {"version": "2.0"}, "scene": 0,
 "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
 "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
 "buffers": [{"byteLength": 168,
   "uri": "data:application/octet-stream;base64,)" +
                             Base64(buffer) + R"("}],
 "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96},
                 {"buffer": 0, "byteOffset": 96, "byteLength": 72}],
 "accessors": [
   {"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
    "min": [-0.05, -0.25, -0.05], "max": [0.05, 0.25, 0.05]},
   {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}]}
)";
  const auto mesh = ReadMeshFile(path.string(), Vector3<double>::Ones());
  Vector3<double> lo, hi;
  Bounds(*mesh, &lo, &hi);
  EXPECT_TRUE(hi.isApprox(Vector3<double>(0.05, 0.05, 0.25), 1e-6))
      << hi.transpose();
  EXPECT_EQ(mesh->vertices.size(), 8u);
  // A rotation keeps the triangles' orientation.
  EXPECT_TRUE(IsClosedMesh(mesh->triangles));
}

// The Z_UP box as the collision geometry of a free body: its hull is 0.5
// tall, so resting on the ground it is centered at z = 0.25.
TEST(MeshReaderTest, ZUpColladaBoxIsTallAsACollisionHull) {
  const std::string dae =
      WriteDae("tall.dae", Vector3<double>(0.05, 0.05, 0.25), "Z_UP", 1.0);
  const UrdfModel m =
      ParseUrdfString(R"(<robot name="r"><link name="box">
    <inertial><mass value="1"/><inertia ixx="0.02" iyy="0.02" izz="0.001"/></inertial>
    <collision><geometry><mesh filename=")" +
                      dae + R"("/></geometry></collision></link></robot>)");
  const GeometryModel g = GeometryModel::FromTree(m.tree);
  ASSERT_EQ(g.num_geometries(), 1);
  ASSERT_EQ(g.geometry(0).shape.kind, ShapeKind::kConvex);
  EXPECT_NEAR(g.geometry(0).shape.convex->hi.z(), 0.25, 1e-6);
  EXPECT_NEAR(g.geometry(0).shape.convex->hi.y(), 0.05, 1e-6);
}

TEST(MeshReaderTest, BinaryStlCubeOnAMovingBodyLoadsAsAHull) {
  const std::string stl = WriteBinaryStl(
      "cube_body.stl", BoxTriangles(Vector3<double>(0.5, 0.5, 0.5)));
  // And an open one (a box without its top): a hull needs only the points.
  auto open = BoxTriangles(Vector3<double>(0.5, 0.5, 0.5));
  open.erase(open.begin() + 2, open.begin() + 4);
  const std::string open_stl = WriteBinaryStl("open_body.stl", open);
  EXPECT_FALSE(
      IsClosedMesh(ReadMeshFile(open_stl, Vector3<double>::Ones())->triangles));
  const UrdfModel m = ParseUrdfString(
      R"(<robot name="r"><link name="box">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>
    <collision><geometry><mesh filename=")" +
      stl +
      R"("/></geometry></collision>
    <collision><geometry><mesh filename=")" +
      open_stl + R"("/></geometry></collision></link></robot>)");
  const GeometryModel g = GeometryModel::FromTree(m.tree);
  ASSERT_EQ(g.num_geometries(), 2);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(g.geometry(i).shape.kind, ShapeKind::kConvex);
    EXPECT_EQ(g.geometry(i).shape.convex->vertices.size(), 8u);
  }
}

TEST(MeshReaderTest, DegenerateHullIsAnErrorNamingTheFile) {
  // Two triangles in the plane z = 0: no volume.
  std::vector<Tri> flat = {
      Tri{{Vector3<double>(0, 0, 0), Vector3<double>(1, 0, 0),
           Vector3<double>(0, 1, 0)}},
      Tri{{Vector3<double>(1, 0, 0), Vector3<double>(1, 1, 0),
           Vector3<double>(0, 1, 0)}}};
  const std::string stl = WriteBinaryStl("flat.stl", flat);
  const UrdfModel m =
      ParseUrdfString(R"(<robot name="r"><link name="plate">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>
    <collision name="c"><geometry><mesh filename=")" +
                          stl + R"("/></geometry></collision></link></robot>)",
                      {}, "flat.urdf");
  try {
    GeometryModel::FromTree(m.tree);
    FAIL() << "a flat mesh has no hull";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "flat.urdf:3:");
    EXPECT_CONTAINS(e.what(), "flat.stl");
    EXPECT_CONTAINS(e.what(), "degenerate convex hull");
    EXPECT_CONTAINS(e.what(), "body 'plate'");
    EXPECT_EQ(std::string(e.what()).find("(sphere)"), std::string::npos)
        << e.what();
  }
}

TEST(MeshReaderTest, UnreadableFileNamesThePath) {
  const fs::path junk = Dir() / "junk.stl";
  std::ofstream(junk) << "this is not a mesh";
  try {
    ReadMeshFile(junk.string(), Vector3<double>::Ones());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_CONTAINS(e.what(), junk.string());
  }
}

}  // namespace
}  // namespace tern
