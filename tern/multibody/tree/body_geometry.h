#pragma once
// Visual and collision geometry attached to a body, as a description (shape,
// size, pose in the body, material). The tree only carries it; the geometry
// and plant layers turn it into collision objects and drawings.
#include <string>

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

struct BodyGeometry {
  enum class Shape { kBox, kSphere, kCylinder, kCapsule, kMesh };
  std::string name;                  // URDF name attribute, may be empty
  Shape shape{Shape::kBox};
  RigidTransform<double> X_BG;       // geometry frame in body frame
  Vector3<double> box_size{Vector3<double>::Zero()};  // m, full side lengths
  double radius{0};                  // m; sphere, cylinder, capsule
  double length{0};                  // m; cylinder, capsule (along z of G)
  std::string mesh_uri;              // mesh file name as written in the URDF
  std::string mesh_path;             // resolved absolute path of the mesh
  Vector3<double> mesh_scale{Vector3<double>::Ones()};
  Material material;                 // resolved (named materials looked up)
};

}  // namespace tern
