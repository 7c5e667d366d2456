#pragma once
// One entry point for every model format Tern reads: URDF (urdf_parser.h),
// MJCF (mjcf_parser.h) and SDFormat (sdf_parser.h), picked by the file's
// extension (.urdf, .mjcf, .sdf, .world) or, for .xml and anything else, by
// its root element (<robot>, <mujoco>, <sdf>).
#include <string>
#include <vector>

#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/parsing/sdf_parser.h"
#include "tern/multibody/parsing/urdf_parser.h"

namespace tern {

enum class ModelFormat { kUrdf, kMjcf, kSdf };
const char* ModelFormatName(ModelFormat format);

// The format of the file at `path`, by extension, else by root element.
// Throws ModelParseError naming the file if it cannot be read or its root
// element is none of <robot>, <mujoco>, <sdf>.
ModelFormat DetectModelFormat(const std::string& path);

struct ModelFileOptions {
  // For URDF: floating base, meshes, packages, inertia policy, ...
  UrdfParseOptions urdf;
  // For MJCF: strict mode, meshes, ...
  MjcfParseOptions mjcf;
  // For SDFormat.
  SdfParseOptions sdf;
};

// A tree and its warnings, whatever the format; an MJCF file's extra
// contents (actuators, sensors, equalities, option) are in `mjcf` (whose
// tree is left empty: it is `tree`).
struct ModelFile {
  ModelFormat format{ModelFormat::kUrdf};
  RigidBodyTree<double> tree;
  std::vector<ModelWarning> warnings;
  MjcfModel mjcf;  // format == kMjcf: everything but tree and warnings
  // (nq) The configuration the file is written in (MJCF qpos0, SDF free
  // links at their pose; URDF: the zero configuration).
  VectorX<double> q0;
  // Plant elements of any format (model_elements.h), on `tree`'s names:
  // MJCF's active equalities resolved in qpos0 (ResolveMjcfEqualities),
  // MJCF and SDFormat joint springs. tern/multibody/plant/mjcf_elements.h
  // builds them (MakeEqualityConstraints, MakeJointSprings).
  std::vector<EqualityConstraintSpec> equalities;
  std::vector<JointSpringSpec> springs;
};

// Parses the file with the parser its format needs. Throws the parser's
// error (a ModelParseError).
ModelFile ParseModelFile(const std::string& path,
                         const ModelFileOptions& options = {});

}  // namespace tern
