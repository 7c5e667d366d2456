#pragma once
// Scene composition: one world (a RigidBodyTree and its GeometryModel) made
// of several models, boxes and the ground, as Drake's Parser and model
// instances do. The scenario code (tern/io) and programs that build worlds
// in C++ call these; the collision filters themselves are GeometryModel's
// (ExcludeWithin, ExcludeBodyPair, ExcludeGroupPair).
//
// Trees are immutable once built, so every edit of a tree (merging a model
// into a world, scaling masses for Monte Carlo) copies bodies through one
// function, CopyBodies, which carries the joints, inertias, visual and
// collision geometry, frames and mimic constraints.
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tern/math/spatial_algebra.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/parsing/model_elements.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// Changes a body before CopyBodies adds it (its name, joint, inertia and
// geometry are the copy's; parent and indices are set by CopyBodies).
// `source` is the body's index in the tree being copied.
using BodyEdit = std::function<void(int source, RigidBody<double>* body)>;

// Copies bodies 1.. of `source` into `destination`, attached to the
// bodies copied before them, a root (child of the world) to body 0 of
// `destination`: names of bodies, joints and frames get `prefix`; a root
// attached by a joint other than a floating one is placed at X_WM (a
// floating root's pose is in q, so the caller sets it); the geometry of
// the world body of `source` (an MJCF floor) goes onto the world of
// `destination`, placed at X_WM; `edit`, if given,
// may change each body before it is added. Copies frames and mimic
// constraints (renamed and re-indexed). Returns, per body of `source`, its
// index in `destination` (0 for the world).
// Throws std::invalid_argument naming a body, joint or frame whose
// (prefixed) name `destination` has already.
std::vector<int> CopyBodies(const RigidBodyTree<double>& source,
                            const std::string& prefix,
                            const RigidTransform<double>& X_WM,
                            const BodyEdit& edit,
                            RigidBodyTree<double>* destination);

// A model's plant elements (model_elements.h) carried along CopyBodies:
// `index` is CopyBodies' result for `source` copied into `destination` with
// the model frame placed at X_WM. Body and joint names become the copies'
// (the prefix follows from the index, not from the names); a frame on the
// source's world (a connect to "world") is moved by X_WM, as the model's
// world-fixed roots are. For a model with floating roots the caller places
// them at X_WM times their pose in the model, so the elements hold at the
// model's own configuration. Throws std::invalid_argument naming the
// element and the body or joint `source` lacks.
EqualityConstraintSpec MapEqualityConstraint(
    const EqualityConstraintSpec& spec, const RigidBodyTree<double>& source,
    const std::vector<int>& index, const RigidTransform<double>& X_WM,
    const RigidBodyTree<double>& destination);
JointSpringSpec MapJointSpring(const JointSpringSpec& spec,
                               const RigidBodyTree<double>& source,
                               const std::vector<int>& index,
                               const RigidBodyTree<double>& destination);
// An MJCF actuator or sensor carried along CopyBodies as the elements
// above: its joint becomes the copy's (by `index`), a sensor's site the
// frame CopyBodies made of it (`prefix` + site), and its name gets
// `prefix`, as the model's joints do. Throws std::invalid_argument naming
// the actuator or sensor and the joint or site `source` lacks.
MjcfActuator MapMjcfActuator(const MjcfActuator& actuator,
                             const RigidBodyTree<double>& source,
                             const std::vector<int>& index,
                             const std::string& prefix,
                             const RigidBodyTree<double>& destination);
MjcfSensor MapMjcfSensor(const MjcfSensor& sensor,
                         const RigidBodyTree<double>& source,
                         const std::vector<int>& index,
                         const std::string& prefix,
                         const RigidBodyTree<double>& destination);

// The tree with the mass properties (m, h = m c, I) of the named bodies
// multiplied by their factor; everything else (joints, geometry, frames,
// mimic constraints, gravity, name) as in `tree`. Through CopyBodies.
// Throws std::invalid_argument naming an unknown body or a factor that is
// not finite and positive.
RigidBodyTree<double> ScaleBodyMasses(
    const RigidBodyTree<double>& tree,
    const std::map<std::string, double>& factors);

// The spatial inertia of a solid box of `mass` kg and edge lengths `size`
// (m), about its centre, in its own frame.
SpatialInertia<double> BoxInertia(double mass, const Vector3<double>& size);

// A box body for AddBox.
struct BoxBody {
  std::string name;             // body name; its joint is name + "_joint"
  Vector3<double> size;         // (3) edge lengths, m
  double mass{0};               // kg; 0 welds the box to the world
  RigidTransform<double> X_WB;  // pose of a welded box (a free box's is in q)
  Vector4<double> rgba{0.7, 0.7, 0.7, 1};  // visual colour
};

// Adds the box as a body with a visual and a collision box: a free body
// (floating joint) if its mass is positive, else welded to the world at
// X_WB. Returns its index. Throws std::invalid_argument naming the box if
// the tree has a body of that name, the size is not positive or the mass is
// negative or not finite.
int AddBox(const BoxBody& box, RigidBodyTree<double>* tree);

// The collision geometry of a world: the tree's geometries (FromTree),
// bodies named as in the tree, the parent-child pairs excluded (except a
// free body with the world), each geometry's properties that its model
// left at the library defaults (friction, stiffness, dissipation,
// restitution, property by property) taken from `material`, and, if
// `ground_height` is set,
// the ground: a half-space on the world whose surface is the plane
// z = ground_height, of `material`, named "ground". Linear in the bodies.
// Bodies flagged in `own_pair_filter` (by index; empty: none) come from a
// model that lists its own filtered pairs, MJCF (MuJoCo's rule, in
// MjcfModel::contact_excludes, lets a body hinged to the world touch the
// world's geometry): their pair with their parent is not excluded here.
GeometryModel SceneGeometry(const RigidBodyTree<double>& tree,
                            const ContactProperties& material,
                            std::optional<double> ground_height,
                            std::span<const char> own_pair_filter = {});

}  // namespace tern
