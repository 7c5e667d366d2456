#include "tern/multibody/parsing/mesh_reader.h"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fmt/format.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace tern {

namespace {

// Exact position of a vertex as assimp stores it (float), for welding.
struct Key {
  float x, y, z;
  bool operator==(const Key& o) const {
    return x == o.x && y == o.y && z == o.z;
  }
};
struct KeyHash {
  std::size_t operator()(const Key& k) const {
    // +0.0f makes -0 and +0 hash alike (they compare equal).
    const float v[3] = {k.x + 0.0f, k.y + 0.0f, k.z + 0.0f};
    std::uint32_t b[3];
    std::memcpy(b, v, sizeof(b));
    std::size_t h = b[0];
    h = h * 0x9E3779B97F4A7C15ull + b[1];
    h = h * 0x9E3779B97F4A7C15ull + b[2];
    return h ^ (h >> 29);
  }
};

std::string LowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

}  // namespace

std::shared_ptr<const MeshData> ReadMeshFile(const std::string& path,
                                             const Vector3<double>& scale) {
  Assimp::Importer importer;
  // COLLADA: keep the file's coordinates (see the header) but its unit.
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  // Only positions are needed: the loaders' normals, colours and texture
  // coordinates would be read and then ignored. No JoinIdenticalVertices:
  // it compares every attribute (so an STL's per-face normals keep its
  // triangles apart) and is slower than the weld below. PreTransformVertices
  // bakes the node hierarchy and COLLADA's unit.
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_PreTransformVertices);
  if (scene == nullptr) {
    throw std::runtime_error(fmt::format("cannot read mesh '{}': {}", path,
                                         importer.GetErrorString()));
  }
  // glTF is Y-up by specification: turn +y into +z (+90 degrees about x:
  // (x, y, z) -> (x, -z, y)), as Drake does.
  const std::string ext = LowerExtension(path);
  const bool y_up = ext == ".gltf" || ext == ".glb";
  auto mesh = std::make_shared<MeshData>();
  std::unordered_map<Key, int, KeyHash> index;
  std::size_t total = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    total += scene->mMeshes[m]->mNumVertices;
  }
  index.reserve(total);
  mesh->vertices.reserve(total);
  std::vector<int> remap;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* am = scene->mMeshes[m];
    remap.resize(am->mNumVertices);
    for (unsigned v = 0; v < am->mNumVertices; ++v) {
      const aiVector3D& p = am->mVertices[v];
      const Key k = y_up ? Key{p.x, -p.z, p.y} : Key{p.x, p.y, p.z};
      auto [it, added] =
          index.emplace(k, static_cast<int>(mesh->vertices.size()));
      if (added) {
        mesh->vertices.emplace_back(scale.x() * k.x, scale.y() * k.y,
                                    scale.z() * k.z);
      }
      remap[v] = it->second;
    }
    mesh->triangles.reserve(mesh->triangles.size() + am->mNumFaces);
    for (unsigned f = 0; f < am->mNumFaces; ++f) {
      const aiFace& face = am->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines
      const int a = remap[face.mIndices[0]], b = remap[face.mIndices[1]],
                c = remap[face.mIndices[2]];
      if (a == b || b == c || c == a) continue;  // welded flat
      mesh->triangles.emplace_back(a, b, c);
    }
  }
  if (mesh->triangles.empty()) {
    throw std::runtime_error(fmt::format("mesh '{}' holds no triangles", path));
  }
  return mesh;
}

}  // namespace tern
