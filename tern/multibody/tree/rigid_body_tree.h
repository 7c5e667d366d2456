#pragma once
// RigidBodyTree: the immutable model of a tree of rigid bodies connected by
// joints (seed 004). Body 0 is the world. Bodies are stored in topological
// order (a parent before its children), so the recursive algorithms are
// plain loops over body indices. Each body has one joint to its parent,
// mass properties (SpatialInertia about the body origin, in the body frame),
// geometry descriptions, and a name; frames are named poses fixed in a body.
// Build a tree in code with AddBody/AddFrame (or from URDF, see
// multibody/parsing), then treat it as read-only: algorithms take it by const
// reference together with a KinematicsCache, so one tree serves many threads.
#include <string>
#include <unordered_map>
#include <vector>

#include "tern/common/default_scalars.h"
#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/tree/body_geometry.h"
#include "tern/multibody/tree/joint.h"

namespace tern {

template <typename T>
struct RigidBody {
  std::string name;
  int parent{-1};             // index of the parent body; -1 for the world
  Joint<T> joint;             // joint to the parent
  SpatialInertia<T> inertia;  // about the body origin, in the body frame
  int position_start{0};      // first index of this joint's q
  int velocity_start{0};      // first index of this joint's v
  int num_positions{0};
  int num_velocities{0};
  // Revolute/prismatic joints whose axis is +-e_k: k and the sign, so the
  // algorithms can use cheaper axis-aligned code; -1 otherwise.
  int axis_index{-1};
  double axis_sign{1};
  // True if the joint frame is not rotated in the parent (X_PJ.R is the
  // identity), as in most URDFs: then an axis-aligned revolute joint's world
  // rotation is two columns of the parent's mixed, with no 3x3 product.
  bool joint_frame_unrotated{false};
  // A revolute joint about +-e_k (axis_index >= 0) in an unrotated joint
  // frame: R_PB is R_k(angle) itself, the case the algorithms specialize.
  bool simple_revolute{false};
  // Fixed joint to a body other than the world: the body moves rigidly with
  // its parent, so the dynamics algorithms count its inertia in its carrier
  // (the nearest ancestor that is not welded; MuJoCo's fusestatic does the
  // same when it compiles a model) and skip it otherwise.
  bool welded{false};
  // This body's inertia plus those of the bodies it carries, about B's
  // origin, in B: what the dynamics algorithms use.
  SpatialInertia<T> inertia_with_welded;
  // inertia_with_welded about its center of mass, the form from which the
  // algorithms that work in world coordinates (MassMatrix, ForwardDynamics)
  // re-express it at each call.
  CentralInertia<T> central_inertia_with_welded;
  Vector3<T> planar_t1{Vector3<T>::UnitX()};  // planar joints: in-plane basis
  Vector3<T> planar_t2{Vector3<T>::UnitY()};
  std::vector<BodyGeometry> visuals;
  std::vector<BodyGeometry> collisions;
};

// A named frame F fixed in body `body` at pose X_BF.
template <typename T>
struct Frame {
  std::string name;
  int body{0};
  RigidTransform<T> X_BF;
};

// A mimic joint (URDF <mimic>): q_joint = multiplier * q_leader + offset.
// The tree keeps it as a constraint description; the plant enforces it.
struct MimicConstraint {
  std::string joint;         // follower joint name
  std::string leader_joint;  // joint it follows
  int body{0};               // body whose joint is the follower
  int leader_body{0};
  double multiplier{1};
  double offset{0};
};

template <typename T>
class RigidBodyTree {
 public:
  // An empty tree holding only the world body (index 0, named "world").
  explicit RigidBodyTree(std::string name = "tree");

  // Adds a body attached to `parent` (an existing body index) by `joint` and
  // returns its index. Throws std::invalid_argument naming the body if the
  // name is taken, the parent does not exist, the mass is negative, the
  // inertia is not positive semidefinite, the axis is zero, or the joint name
  // is taken. The joint axis is normalized.
  int AddBody(const std::string& name, int parent, const Joint<T>& joint,
              const SpatialInertia<T>& inertia);
  // Adds a frame fixed in `body`; every body also has a frame of its own name.
  int AddFrame(const std::string& name, int body,
               const RigidTransform<T>& X_BF);
  void AddVisual(int body, const BodyGeometry& g);
  void AddCollision(int body, const BodyGeometry& g);
  void AddMimicConstraint(const MimicConstraint& m);
  void set_gravity(const Vector3<T>& g) { gravity_ = g; }

  const std::string& name() const { return name_; }
  int num_bodies() const { return static_cast<int>(bodies_.size()); }
  int num_positions() const { return nq_; }
  int num_velocities() const { return nv_; }
  int num_frames() const { return static_cast<int>(frames_.size()); }
  const RigidBody<T>& body(int i) const { return bodies_.at(i); }
  const std::vector<RigidBody<T>>& bodies() const { return bodies_; }
  const Frame<T>& frame(int i) const { return frames_.at(i); }
  const std::vector<Frame<T>>& frames() const { return frames_; }
  const std::vector<MimicConstraint>& mimic_constraints() const {
    return mimics_;
  }
  const Vector3<T>& gravity() const { return gravity_; }  // m/s^2, in world
  // (nv) For each velocity index, the previous velocity index on the path to
  // the root, or -1: the parent array lambda of the tree expanded to one dof
  // per joint (Featherstone, RBDA sec. 6.2), so CRBA can walk the nonzeros of
  // a column of H without visiting bodies.
  const std::vector<int>& velocity_parents() const { return velocity_parents_; }
  // Total mass, kg.
  T total_mass() const;

  // Look-up by name; each throws std::invalid_argument naming the missing
  // name and the tree.
  int FindBodyIndex(const std::string& name) const;
  // The body whose joint to its parent has this name.
  int FindJointBodyIndex(const std::string& joint_name) const;
  int FindFrameIndex(const std::string& name) const;
  bool HasBody(const std::string& name) const;
  bool HasJoint(const std::string& name) const;

  // q with every quaternion set to identity and other coordinates 0.
  VectorX<T> GetZeroConfiguration() const;
  // Names of coordinates / velocities, e.g. "shoulder", "base_qw", "base_wx".
  std::vector<std::string> GetPositionNames() const;
  std::vector<std::string> GetVelocityNames() const;

 private:
  std::string name_;
  std::vector<RigidBody<T>> bodies_;
  std::vector<Frame<T>> frames_;
  std::vector<MimicConstraint> mimics_;
  std::unordered_map<std::string, int> body_by_name_;
  std::unordered_map<std::string, int> joint_by_name_;
  std::unordered_map<std::string, int> frame_by_name_;
  Vector3<T> gravity_{T(0), T(0), T(-9.81)};
  std::vector<int> velocity_parents_;  // (nv)
  // Per body, kept so that AddBody costs O(1) however deep the tree: the
  // last dof on the path from the body to the root (-1 if none), and for a
  // welded body its carrier and its pose in the carrier.
  std::vector<int> last_dof_;
  std::vector<int> carrier_;
  std::vector<RigidTransform<T>> X_CB_;
  int nq_{0};
  int nv_{0};
};

// A copy of `tree` with scalar U (e.g. double -> AutoDiffXd, whose parameters
// then have empty derivatives).
template <typename U, typename T>
RigidBodyTree<U> CastTree(const RigidBodyTree<T>& tree);

// Throws std::invalid_argument if the mass matrix H(q) of `tree` is singular
// by construction (for every q), naming the joint and its body: a joint
// whose subtree has no mass or inertia along one of the joint's directions
// of motion, such as a massless leaf body on a revolute joint without
// armature, or a massless floating base whose children can all slide or
// turn freely. H is positive definite exactly when every joint's
// articulated inertia D_i = S_i^T IA_i S_i (+ armature) is (RBDA sec. 7.3),
// so this runs the articulated-body inertia pass (RBDA Table 7.1) in body
// coordinates at a generic configuration, in O(num_bodies), and rejects a
// D_i whose smallest eigenvalue is below 1e-12 times the size of IA_i (what
// rounding leaves of an exact zero). The URDF parser calls it.
void CheckMassMatrixNonsingular(const RigidBodyTree<double>& tree);

// Relative tolerances of the inertia checks, in units of the body's largest
// principal moment C about its com. kInertiaRoundoff: what rounding to about
// six digits (as URDF and CAD exports write inertias) leaves of an exact zero
// or an exact A + B = C (a thin disk). kInertiaTriangleTolerance: how far
// RigidBodyTree::AddBody lets A + B fall below C (the URDF parser warns
// beyond kInertiaRoundoff; InertiaPolicy in urdf_parser.h).
inline constexpr double kInertiaRoundoff = 1e-6;
inline constexpr double kInertiaTriangleTolerance = 1e-2;
// The same test: the index of the first body (leaves first) whose joint
// makes H singular, with the reason in *why (may be null), or -1.
int FindSingularMassMatrixJoint(const RigidBodyTree<double>& tree,
                                std::string* why);

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(RigidBodyTree)

}  // namespace tern
