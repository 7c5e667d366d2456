#pragma once
// Reads mesh files into vertices and triangles, for collision geometry and
// bounding boxes, with Debian's assimp: STL (binary and ASCII), OBJ, COLLADA
// (.dae), PLY, glTF 2.0 (.gltf, .glb) and assimp's other formats.
//
// Conventions (docs/geometry.md, "Meshes"):
// - Node transforms are applied and polygons triangulated.
// - Vertices are welded by position: two vertices with the same coordinates
//   become one, whatever their normals or texture coordinates (binary STL
//   stores one normal per face, so a cube's 12 triangles arrive as 36
//   vertices and weld to 8). Triangles that welding makes degenerate (two
//   equal corners) are dropped.
// - COLLADA: <unit meter> is applied; <up_axis> is not: the coordinates are
//   taken as written, in the frame of the link, as RViz, MoveIt's
//   geometric_shapes and DART do for URDF meshes. (assimp alone turns every
//   file to Y-up in its root node; the Y_UP meshes of the dart-doc WAM only
//   agree with their collision STLs when that turn is not applied, and a
//   Z_UP file is then as written too.) glTF is Y-up by its specification
//   and is turned +90 degrees about x so its +y becomes +z, as Drake does.
//   STL, OBJ and PLY have no up axis and are taken as written.
#include <memory>
#include <string>

#include "tern/multibody/tree/body_geometry.h"

namespace tern {

// Reads every mesh of the file at `path` and scales the vertices by `scale`
// (per axis, URDF <mesh scale>). Throws std::runtime_error naming the path
// (and assimp's reason) if the file cannot be read or holds no triangles.
std::shared_ptr<const MeshData> ReadMeshFile(const std::string& path,
                                             const Vector3<double>& scale);

}  // namespace tern
