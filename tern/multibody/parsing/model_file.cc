#include "tern/multibody/parsing/model_file.h"

#include <fmt/format.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace tern {

const char* ModelFormatName(ModelFormat format) {
  switch (format) {
    case ModelFormat::kUrdf:
      return "URDF";
    case ModelFormat::kMjcf:
      return "MJCF";
    case ModelFormat::kSdf:
      return "SDFormat";
  }
  return "?";
}

ModelFormat DetectModelFormat(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (ext == ".urdf") return ModelFormat::kUrdf;
  if (ext == ".mjcf") return ModelFormat::kMjcf;
  if (ext == ".sdf" || ext == ".world") return ModelFormat::kSdf;
  // .xml and the rest: the root element decides.
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) {
    throw ModelParseError(
        path, doc.ErrorLineNum(), "file",
        fmt::format("cannot read the model file: {}", doc.ErrorStr()));
  }
  const tinyxml2::XMLElement* root = doc.RootElement();
  const std::string name = root ? root->Name() : "";
  if (name == "robot") return ModelFormat::kUrdf;
  if (name == "mujoco") return ModelFormat::kMjcf;
  if (name == "sdf") return ModelFormat::kSdf;
  throw ModelParseError(
      path, root ? root->GetLineNum() : 1,
      root ? fmt::format("<{}>", name) : "document",
      "not a model file: the root element must be <robot> (URDF), <mujoco> "
      "(MJCF) or <sdf> (SDFormat)");
}

ModelFile ParseModelFile(const std::string& path,
                         const ModelFileOptions& options) {
  ModelFile out;
  out.format = DetectModelFormat(path);
  switch (out.format) {
    case ModelFormat::kUrdf: {
      UrdfModel u = ParseUrdfFile(path, options.urdf);
      out.tree = std::move(u.tree);
      out.warnings = std::move(u.warnings);
      out.q0 = out.tree.GetZeroConfiguration();
      break;
    }
    case ModelFormat::kMjcf: {
      out.mjcf = ParseMjcfFile(path, options.mjcf);
      out.equalities = ResolveMjcfEqualities(out.mjcf.tree, out.mjcf.equalities,
                                             out.mjcf.qpos0, path);
      out.springs = out.mjcf.springs;
      out.tree = std::move(out.mjcf.tree);
      out.warnings = std::move(out.mjcf.warnings);
      out.mjcf.tree = RigidBodyTree<double>(out.tree.name());
      out.q0 = out.mjcf.qpos0;
      break;
    }
    case ModelFormat::kSdf: {
      SdfModel s = ParseSdfFile(path, options.sdf);
      out.tree = std::move(s.tree);
      out.warnings = std::move(s.warnings);
      out.q0 = std::move(s.q0);
      out.springs = std::move(s.springs);
      break;
    }
  }
  return out;
}

}  // namespace tern
