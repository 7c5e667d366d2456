#pragma once
// Visual and collision geometry attached to a body, as a description (shape,
// size, pose in the body, material). The tree only carries it; the geometry
// and plant layers turn it into collision objects and drawings.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"

namespace tern {

// A named color/texture (URDF <material>).
struct Material {
  std::string name;
  Vector4<double> rgba{0.5, 0.5, 0.5, 1.0};
  bool has_rgba{false};
  std::string texture;  // file name as written, empty if none
};

// Vertices and triangles of a mesh file, already scaled (URDF <mesh scale>).
struct MeshData {
  std::vector<Vector3<double>> vertices;   // m, in the mesh's frame
  std::vector<Eigen::Vector3i> triangles;  // vertex indices, CCW outside
};

// Contact coefficients of a collision geometry (URDF <contact_coefficients
// mu kp kd> inside <collision>). A value is used only if its has_ flag is
// set; otherwise the geometry layer's documented default applies.
struct ContactCoefficients {
  double mu{0};  // Coulomb friction, dimensionless
  double kp{0};  // stiffness, N/m
  double kd{0};  // dissipation, N·s/m
  bool has_mu{false};
  bool has_kp{false};
  bool has_kd{false};
};

struct BodyGeometry {
  // kEllipsoid: semi-axes `radii` along G's x, y, z (MJCF, SDFormat).
  // kPlane: the half-space z <= 0 of G, its boundary the plane z = 0
  // (MJCF and SDFormat planes; static: on the world body only).
  enum class Shape {
    kBox,
    kSphere,
    kCylinder,
    kCapsule,
    kMesh,
    kEllipsoid,
    kPlane
  };
  std::string name;  // URDF name attribute, may be empty
  Shape shape{Shape::kBox};
  RigidTransform<double> X_BG;  // geometry frame in body frame
  Vector3<double> box_size{Vector3<double>::Zero()};  // m, full side lengths
  double radius{0};  // m; sphere, cylinder, capsule
  double length{0};  // m; cylinder, capsule (along z of G)
  Vector3<double> radii{Vector3<double>::Zero()};  // m; ellipsoid semi-axes
  std::string mesh_uri;   // mesh file name as written in the URDF
  std::string mesh_path;  // resolved absolute path of the mesh
  Vector3<double> mesh_scale{Vector3<double>::Ones()};
  Material material;  // resolved (named materials looked up)
  // Collision meshes: the file's contents, read when the URDF is parsed
  // (null for other shapes, or when the mesh was not found and
  // UrdfParseOptions::require_meshes is false).
  std::shared_ptr<const MeshData> mesh;
  ContactCoefficients contact;  // collision geometry only
  // MJCF's collision bits (geom contype and conaffinity; Geometry::contype
  // says the rule); (1, 1) collides with everything.
  std::uint32_t contype{1};
  std::uint32_t conaffinity{1};
  std::string source_file;  // where it was declared, for messages
  int source_line{0};
};

}  // namespace tern
