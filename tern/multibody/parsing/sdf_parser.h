#pragma once
// SDFormat loading (http://sdformat.org, version 1.9 as libsdformat 12 reads
// it) into a RigidBodyTree<double>. The file is parsed and its poses
// resolved (relative_to, nested and included models, model://) by Debian's
// libsdformat (sdf::Root); this layer only maps the result into the tree.
// Built when CMake finds sdformat12 (linked PRIVATE into `tern`); without it
// ParseSdfFile throws SdfError saying so.
//
// Mapping (docs/multibody.md "SDFormat"):
// - A <model> (or every model of a <world>, or nested models) adds its
//   links as bodies. Body names are the link names for a single model and
//   "<model>::<link>" when a world holds several (nested models always use
//   the scoped names libsdformat gives them).
// - Joints revolute, continuous, prismatic, ball and fixed; a joint to
//   "world" attaches its child to the world. A link that no joint moves is
//   floating (a free body, as in Gazebo), or welded when the model is
//   <static>. revolute2, universal, screw and gearbox are errors: the tree
//   has no such joint.
// - The joint frame is the SDF joint frame (by default the child link's);
//   when it is not at the child link's origin the link hangs on a massless
//   body "<link>.<joint>" by a weld, so body poses are link poses.
// - Axis limits, effort, velocity, damping and friction are kept in the
//   joint; <dynamics><spring_stiffness> and <spring_reference> on a
//   revolute, continuous or prismatic joint are kept in SdfModel::springs
//   (a plant element: tern/multibody/plant/mjcf_elements.h's
//   MakeJointSprings applies them, as it does MJCF's joint stiffness).
// - <collision>/<visual> with box, sphere, cylinder, capsule, ellipsoid,
//   plane (static links: a half-space on the world body) and mesh;
//   heightmap and polyline are left out with a warning. <surface> friction
//   (ode mu) becomes ContactCoefficients::mu, a visual's <material>
//   <diffuse> its colour.
//
// - <include>s of model://sun and model://ground_plane (in nearly every
//   Gazebo world) that the user's model paths (the PackageMap, SDF_PATH,
//   kSdfModelPathVariables) do not hold get Tern's stand-ins
//   (FindSdfStockModelsDir), with a warning saying so.
// - A world's <light>s are named in a warning (rendering only).
// - Every other element written in the file that Tern does not read is
//   named in a warning with its file and line when it carries a meaning: a
//   value off its default (<gravity>false</gravity>, <self_collide>,
//   <velocity_decay>, <bounce>, a world's or joint's <physics>, an <axis>
//   on a ball joint), or an element that always does (<plugin>, <sensor>,
//   <actor>, <gripper>); elements SDFormat does not define too
//   (libsdformat's report). Warnings of one element kind in one file are
//   folded into one listing the lines. With SdfParseOptions::strict they
//   are errors, except those that only change how a model looks.
//
// Errors throw SdfError (a ModelParseError) with libsdformat's file, line
// and element path, or naming the link or joint Tern cannot represent; a
// malformed file names the line of its XML error (read with tinyxml2
// before libsdformat).
#include <string>
#include <vector>

#include "tern/multibody/parsing/model_diagnostics.h"
#include "tern/multibody/parsing/model_elements.h"
#include "tern/multibody/parsing/package_map.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

class SdfError : public ModelParseError {
 public:
  using ModelParseError::ModelParseError;
};

struct SdfParseOptions {
  // What Tern does not model (the elements named in warnings, except those
  // that only change how a model looks: <light>, <scene>, visual
  // materials) is an error rather than a warning.
  bool strict{false};
  // Read collision mesh files (assimp) into BodyGeometry::mesh.
  bool load_collision_meshes{true};
  // A mesh file that cannot be found is an error (true) or a warning.
  bool require_meshes{true};
  // Resolves model:// and package:// uris (meshes and <include>s).
  PackageMap packages;
  // Reject a tree whose mass matrix is singular by construction.
  bool check_mass_matrix{true};
  // Supply Tern's stand-ins for Gazebo's stock models (kSdfStockModels)
  // when an <include> names one that no model path holds.
  bool use_stock_models{true};
};

// Gazebo's stock models that Tern stands in for (models/sdf_stock/<name>):
// "sun" is a directional light (rendering only, not simulated),
// "ground_plane" a static model whose link carries a plane collision
// (normal +z, through the origin, mu = 100 as Gazebo's) and a visual.
inline constexpr const char* kSdfStockModels[] = {"sun", "ground_plane"};

// Environment variables whose ':'-separated folders hold models by folder
// name (model://<name> -> <folder>/<name>), tried after the PackageMap and
// before the stand-ins: Gazebo Sim's, Ignition Gazebo's (the one that pairs
// with libsdformat 12) and Gazebo classic's. libsdformat 12 itself reads
// only SDF_PATH (sdf::findFile, before the find callback).
inline constexpr const char* kSdfModelPathVariables[] = {
    "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "GAZEBO_MODEL_PATH"};

// The folder holding the stand-ins (sun/, ground_plane/), or "" if none is
// found: $TERN_SDF_STOCK_DIR if set, else the source tree's models/sdf_stock
// (a build tree), else the install tree's <datadir>/tern/sdf_stock.
std::string FindSdfStockModelsDir();

struct SdfModel {
  RigidBodyTree<double> tree;
  std::vector<ModelWarning> warnings;
  // (nq) The configuration the file is written in: free links at their
  // pose, joints at 0.
  VectorX<double> q0;
  // Joint springs (<spring_stiffness> nonzero), by joint name.
  std::vector<JointSpringSpec> springs;
};

// True when Tern was built with libsdformat.
bool SdfSupported();

SdfModel ParseSdfFile(const std::string& path,
                      const SdfParseOptions& options = {});
SdfModel ParseSdfString(const std::string& xml,
                        const SdfParseOptions& options = {},
                        const std::string& source_name = "<string>");

}  // namespace tern
