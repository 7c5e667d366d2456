#pragma once
// MJCF loading (MuJoCo's XML format, https://mujoco.readthedocs.io/en/2.2.2/
// XMLreference.html) into a RigidBodyTree<double>, with Tern's own parser on
// tinyxml2. MuJoCo is the test oracle (mjcf_parser_test.cc compares masses,
// poses, mass matrices and bias forces with mj_loadXML), not a dependency.
//
// Mapping (docs/multibody.md "MJCF"):
// - Each <body> becomes a Tern body of the same name whose frame is the MJCF
//   body frame. A body without joints is welded to its parent. A body with
//   one or more joints (MuJoCo composes them in order, each about its anchor
//   `pos` in the body frame) becomes a chain: joint k sits on a massless
//   body "<body>.<joint>" and the last joint moves the body itself; when the
//   last joint's anchor is not the body origin the body hangs on that chain
//   by a weld at -anchor. Poses of the named bodies then equal MuJoCo's
//   xpos/xquat exactly.
// - Coordinates: hinge, slide and ball as Tern's revolute, prismatic and
//   ball joints (ball: q = [qw qx qy qz], v = angular velocity in the body,
//   as MuJoCo). A free joint is Tern's floating joint with q = [p, qw qx qy
//   qz] as MuJoCo's qpos, but v = [w_B, v_B] (body-frame angular velocity,
//   then the body origin's velocity in the body frame) where MuJoCo's qvel
//   is [pdot in world, w_B]: qvel = [R v_B; w_B].
// - Armature adds to the mass-matrix diagonal as in MuJoCo (per dof, the same
//   on all six dofs of a free joint, so H_tern = Tᵀ M_mj T keeps it; on a
//   free joint MuJoCo's multiplies qacc and Tern's vdot, so the bias terms
//   differ by Tᵀ A Tdot v). Damping
//   is in Tern's bias term C(q, v) (MuJoCo keeps it in qfrc_passive);
//   frictionloss is Joint::friction. Joint stiffness has no place in the tree:
//   it is kept in MjcfModel::springs (MakeMjcfJointSprings applies it).
// - Inertia: <inertial>, or from the geoms (compiler inertiafromgeom, density
//   or mass per geom, MuJoCo's solid formulas, meshes by their closed
//   triangle surface).
// - <geom>s become collision geometry (contype or conaffinity nonzero, the
//   bits kept: two geoms collide only if (contype1 & conaffinity2) or
//   (contype2 & conaffinity1) is nonzero, as in MuJoCo) and visual geometry;
//   ellipsoids are convex shapes, planes in <worldbody> static half-spaces
//   (a plane on a moving body is left out with a warning; an hfield too).
//   <site>s become frames.
//
// What the tree cannot hold is returned beside it: option timestep and
// gravity (gravity is also set on the tree), actuators (motor, position),
// sensors (jointpos, accelerometer, gyro), contact excludes, equality
// constraints (connect, weld) and joint springs (stiffness, springref);
// tern/multibody/plant/mjcf_elements.h turns the last two into plant
// constraints and force elements. Elements Tern does not model
// (tendons, muscles, composites, flex, ...) are named in a warning; with
// MjcfParseOptions::strict they are errors.
//
// Bad input throws MjcfError (a ModelParseError), whose message starts
// "<file>:<line>:" and names the element.
#include <string>
#include <vector>

#include "tern/multibody/parsing/model_diagnostics.h"
#include "tern/multibody/parsing/model_elements.h"
#include "tern/multibody/parsing/package_map.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

class MjcfError : public ModelParseError {
 public:
  using ModelParseError::ModelParseError;
};

struct MjcfParseOptions {
  // Unknown or unsupported elements are errors rather than warnings.
  bool strict{false};
  // Read collision mesh files (assimp) into BodyGeometry::mesh.
  bool load_collision_meshes{true};
  // A mesh file that cannot be found is an error (true) or a warning.
  bool require_meshes{true};
  // Extra package roots for model:// and package:// mesh names.
  PackageMap packages;
  // Reject a tree whose mass matrix is singular by construction
  // (CheckMassMatrixNonsingular), naming the joint.
  bool check_mass_matrix{true};
};

// <motor> and <position> actuators on a joint (gear, ctrlrange, kp).
struct MjcfActuator {
  enum class Kind { kMotor, kPosition };
  std::string name;
  Kind kind{Kind::kMotor};
  std::string joint;
  double gear{1};  // generalized force = gear * force
  bool ctrl_limited{false};
  double ctrl_lower{0};  // ctrlrange, N·m or N (motor), rad or m (position)
  double ctrl_upper{0};
  bool force_limited{false};
  double force_lower{0};  // forcerange
  double force_upper{0};
  double kp{1};  // position: force = kp (ctrl - q)
  int line{0};
};

// <jointpos joint>, <accelerometer site>, <gyro site>.
struct MjcfSensor {
  std::string name;
  std::string type;    // "jointpos", "accelerometer", "gyro"
  std::string target;  // joint name or site (frame) name
  double noise{0};
  int line{0};
};

// <equality><connect> and <weld> (MuJoCo 2.2.2). Body names; body2 "world"
// when omitted. connect: the point `anchor` of body1 stays at the point of
// body2 that coincides with it in qpos0. weld: body2's pose in body1 stays
// X_12, which is `relpose` when the file gives one with a nonzero
// quaternion and otherwise the relative pose in qpos0; `anchor` (in body2)
// is where the position part is measured (MuJoCo's eq_data holds the
// same). The plants enforce them through MakeMjcfEqualityConstraints
// (tern/multibody/plant/mjcf_elements.h).
struct MjcfEquality {
  enum class Type { kConnect, kWeld };
  std::string name;
  Type type{Type::kConnect};
  std::string body1;
  std::string body2;
  // connect: in body1; weld: in body2. m.
  Vector3<double> anchor{Vector3<double>::Zero()};
  bool has_relpose{false};         // weld: relpose given (nonzero quaternion)
  RigidTransform<double> relpose;  // weld: X_12, body2's pose in body1
  bool active{true};
  int line{0};
};

// <contact><exclude body1 body2>: no contact between the two bodies.
// MjcfModel::contact_excludes also lists, after the file's own, the pairs
// MuJoCo filters by itself: two bodies welded together (no joint between
// them), and a body and its parent (both their weld bodies), unless one is
// welded to the world. Tern splits a body with several joints into a
// chain, so without these a thigh would collide with the pelvis it hangs
// from through a three-hinge hip. These pairs are MuJoCo's whole filter
// (with the geoms' contype / conaffinity): build the geometry with
// GeometryModelOptions::exclude_parent_child false and exclude them, as
// scenarios do, or a link hinged to the world misses the world's floor.
struct MjcfContactExclude {
  std::string body1;
  std::string body2;
};

// Joint stiffness (MuJoCo passive spring: tau = -stiffness (q - springref)),
// the same description as SDFormat's springs (model_elements.h).
using MjcfJointSpring = JointSpringSpec;

struct MjcfModel {
  RigidBodyTree<double> tree;
  std::vector<ModelWarning> warnings;
  double timestep{0.002};    // <option timestep>, s (MuJoCo's default)
  bool has_timestep{false};  // the file gives <option timestep>
  Vector3<double> gravity{0, 0, -9.81};
  std::vector<MjcfActuator> actuators;
  std::vector<MjcfSensor> sensors;
  std::vector<MjcfEquality> equalities;
  std::vector<MjcfContactExclude> contact_excludes;
  std::vector<MjcfJointSpring> springs;
  // (nq) MuJoCo's qpos0, the configuration the file is written in: a free
  // joint's body pos and quat, a hinge's or slide's ref, identity balls.
  VectorX<double> qpos0;
};

// The active equalities of `model` (connect, weld; active="false" left
// out) resolved to frames on model.tree, in file order, named after the
// equality ("equality<k>" when unnamed, k its index in the file). connect:
// F at `anchor` in body1, G the point of body2 that coincides with it in
// qpos0. weld: G at the anchor in body2, F the same frame in body1 with
// body2's pose in body1 at relpose (or at its value in qpos0). Throws
// MjcfError naming the equality's line if a body is not in the tree.
std::vector<EqualityConstraintSpec> ResolveMjcfEqualities(
    const MjcfModel& model);
std::vector<EqualityConstraintSpec> ResolveMjcfEqualities(
    const RigidBodyTree<double>& tree,
    const std::vector<MjcfEquality>& equalities, const VectorX<double>& qpos0,
    const std::string& source_name = "<mjcf>");

// Parses an MJCF file (and the files it <include>s). Throws MjcfError on bad
// input and if a file cannot be read.
MjcfModel ParseMjcfFile(const std::string& path,
                        const MjcfParseOptions& options = {});

// Parses MJCF text; `source_name` is used in messages and relative file
// names (meshdir, include) are taken against `base_dir`.
MjcfModel ParseMjcfString(const std::string& xml,
                          const MjcfParseOptions& options = {},
                          const std::string& source_name = "<string>",
                          const std::string& base_dir = ".");

}  // namespace tern
