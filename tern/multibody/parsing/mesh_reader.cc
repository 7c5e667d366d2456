#include "tern/multibody/parsing/mesh_reader.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fmt/format.h>

#include <assimp/Importer.hpp>
#include <stdexcept>

namespace tern {

std::shared_ptr<const MeshData> ReadMeshFile(const std::string& path,
                                             const Vector3<double>& scale) {
  Assimp::Importer importer;
  // PreTransformVertices bakes the node hierarchy (DAE files place meshes
  // under transformed nodes); JoinIdenticalVertices turns STL's triangle soup
  // into shared vertices so that closedness can be checked later.
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                aiProcess_PreTransformVertices | aiProcess_SortByPType);
  if (scene == nullptr) {
    throw std::runtime_error(fmt::format("cannot read mesh '{}': {}", path,
                                         importer.GetErrorString()));
  }
  auto mesh = std::make_shared<MeshData>();
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* am = scene->mMeshes[m];
    const int offset = static_cast<int>(mesh->vertices.size());
    for (unsigned v = 0; v < am->mNumVertices; ++v) {
      const aiVector3D& p = am->mVertices[v];
      mesh->vertices.emplace_back(scale.x() * p.x, scale.y() * p.y,
                                  scale.z() * p.z);
    }
    for (unsigned f = 0; f < am->mNumFaces; ++f) {
      const aiFace& face = am->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines
      mesh->triangles.emplace_back(offset + static_cast<int>(face.mIndices[0]),
                                   offset + static_cast<int>(face.mIndices[1]),
                                   offset + static_cast<int>(face.mIndices[2]));
    }
  }
  if (mesh->triangles.empty()) {
    throw std::runtime_error(fmt::format("mesh '{}' holds no triangles", path));
  }
  return mesh;
}

}  // namespace tern
