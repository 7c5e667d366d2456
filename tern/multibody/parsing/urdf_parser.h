#pragma once
// URDF loading (ROS URDF specification, http://wiki.ros.org/urdf/XML) into a
// RigidBodyTree<double>, using tinyxml2.
//
// Links become bodies (a link without <inertial> is massless, as the spec
// says) with their visual and collision geometry (box, sphere, cylinder,
// capsule, mesh) and materials; collision meshes are read (see
// mesh_reader.h) and <contact_coefficients mu kp kd> kept; joints of every URDF
// type (revolute, continuous, prismatic, fixed, floating, planar, plus the
// extension "ball") keep origin, axis, limits and dynamics (damping, friction,
// and the Tern extension attribute `armature`). Mimic joints are kept as
// MimicConstraint descriptions on the tree. The root link is welded to the
// world, or attached by a floating joint when UrdfParseOptions asks; a root
// link named "world" is the world itself.
//
// Mesh file names are resolved through a PackageMap (package_map.h).
//
// Bad input throws UrdfError, whose message starts "<file>:<line>:" and names
// the element. Elements Tern does not use (<gazebo>, <transmission>,
// <calibration>, ...) produce warnings, returned with the tree, as do the
// harmless oddities of real files: an undefined material name (default
// colour), a <mimic> on a fixed joint or following a missing joint (dropped),
// a small inertia defect (InertiaPolicy) and a root joint renamed because
// the file uses its name.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tern/multibody/parsing/model_diagnostics.h"
#include "tern/multibody/parsing/package_map.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// Error in a URDF: the message names file, line and element.
class UrdfError : public ModelParseError {
 public:
  using ModelParseError::ModelParseError;
};

using UrdfWarning = ModelWarning;

// What the parser does with an inertia that no rigid body has
// (docs/multibody.md "Inertias"). Principal moments A <= B <= C of the
// <inertia> (about the com): an eigenvalue within kInertiaRoundoff * C of zero
// counts as zero; the triangle inequality A + B >= C broken by up to
// kInertiaRoundoff * C is rounding and passes silently in every mode.
enum class InertiaPolicy {
  // Default. A + B >= C broken by up to kInertiaTriangleTolerance * C: kept
  // as written, with a warning; more: an error that suggests kBalance. A
  // body with mass and a zero moment (a rod, a point) is kept.
  kAccept,
  // As MuJoCo's <compiler balanceinertia="true"> (user_objects.cc,
  // mjCBody::Compile): when the triangle inequality is broken, all three
  // principal moments are set to their mean (C + B + A) / 3, with a warning.
  kBalance,
  // Any violation beyond rounding is an error, and so is a body with mass
  // whose inertia is not positive definite.
  kStrict,
};
const char* InertiaPolicyName(InertiaPolicy policy);
// The policy's name in a scenario (a model's `inertia:` key) and on the
// command line (`tern --inertia`): "accept", "balance", "strict". The
// reverse returns false for any other text.
const char* InertiaPolicyKey(InertiaPolicy policy);
bool InertiaPolicyFromKey(const std::string& key, InertiaPolicy* policy);

struct UrdfParseOptions {
  // Attach the root link to the world by a floating joint (q: position and
  // unit quaternion, v: body-frame twist) instead of welding it.
  bool floating_base{false};
  // Name of that joint (or of the weld, "world_to_<root>" by default). If a
  // link or joint of the file already has the name, a fresh one is made by
  // appending "_1", "_2", ... and a warning says so.
  std::string floating_joint_name{"floating_base"};
  // Read collision mesh files (with assimp) into BodyGeometry::mesh. A file
  // that exists but cannot be read is then an error naming the URDF line.
  bool load_collision_meshes{true};
  // Resolves every mesh uri (package://, model://, file://, absolute and
  // relative paths; see package_map.h).
  PackageMap packages;
  // Older spellings, folded into `packages`: package_map entries as
  // PackageMap::Add (they win), search_paths as PackageMap::AddSearchPath.
  std::map<std::string, std::string> package_map;
  std::vector<std::string> search_paths;
  // When a package:// or model:// uri names a package that the above do not
  // know, also look for package.xml files in the URDF's folder and the folders
  // above it (PackageMap::PopulateUpstream) and read $ROS_PACKAGE_PATH
  // (PackageMap::PopulateFromEnvironment). Turn off for hermetic loading.
  bool discover_packages{true};
  // When true (default), a mesh that cannot be found is an error; when
  // false, a warning and mesh_path is left empty.
  bool require_meshes{true};
  // When true (default), a model whose mass matrix is singular by
  // construction (CheckMassMatrixNonsingular: e.g. a massless link at the
  // end of a revolute joint) is an error naming the joint; turn it off for a
  // model used for kinematics only.
  bool check_mass_matrix{true};
  InertiaPolicy inertia{InertiaPolicy::kAccept};
};

struct UrdfModel {
  RigidBodyTree<double> tree;
  std::vector<UrdfWarning> warnings;
};

// Parses a URDF file. Throws UrdfError (a std::runtime_error) on bad input
// and if the file cannot be read.
UrdfModel ParseUrdfFile(const std::string& path,
                        const UrdfParseOptions& options = {});

// Parses URDF text; `source_name` is used in messages, and relative mesh
// paths are resolved against `base_dir` (default: current directory) and the
// search paths.
UrdfModel ParseUrdfString(const std::string& xml,
                          const UrdfParseOptions& options = {},
                          const std::string& source_name = "<string>",
                          const std::string& base_dir = ".");

}  // namespace tern
