#pragma once
// Reads mesh files (STL, OBJ, DAE and the other formats of Debian's assimp)
// into vertices and triangles, for collision geometry.
#include <memory>
#include <string>

#include "tern/multibody/tree/body_geometry.h"

namespace tern {

// Reads every mesh of the file at `path`, with node transforms applied and
// polygons triangulated, and scales the vertices by `scale` (per axis).
// Throws std::runtime_error naming the path (and assimp's reason) if the file
// cannot be read or holds no triangles.
std::shared_ptr<const MeshData> ReadMeshFile(const std::string& path,
                                             const Vector3<double>& scale);

}  // namespace tern
