#pragma once
// GeometryModel: the immutable collision geometry of a scene (issue 13),
// built once from a RigidBodyTree's <collision> elements plus extra geometry
// added in code (a ground plane, scenery meshes), and GeometryWorkspace, the
// per-thread data the queries write into (geometry_queries.h). The model
// owns each geometry's shape, pose in its body, contact properties and
// collision-filter bits, and the table of body pairs that never collide.
// One model serves many threads, each with its own workspace.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tern/math/spatial_algebra.h"
#include "tern/multibody/geometry/narrow_phase.h"
#include "tern/multibody/geometry/shape.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// Contact material of one geometry. Defaults (used where the URDF gives no
// <contact_coefficients>): friction 1, restitution 0, stiffness 1e6 N/m,
// dissipation 100 N·s/m. The plant combines two geometries' values.
struct ContactProperties {
  double friction{1.0};     // Coulomb coefficient mu, dimensionless
  double restitution{0.0};  // in [0, 1]
  double stiffness{1e6};    // N/m, compliant contact
  double dissipation{100};  // N·s/m, compliant contact
};

struct Geometry {
  std::string name;
  int body{0};                  // body index in the tree; 0 is the world
  RigidTransform<double> X_BG;  // geometry frame in body frame
  Shape shape;
  ContactProperties properties;
  // Collision filter: geometries g and h are tested only if
  // (g.group & h.mask) != 0 and (h.group & g.mask) != 0.
  std::uint32_t group{1};
  std::uint32_t mask{0xffffffffu};
  // And MJCF's filter (MuJoCo's contype and conaffinity, whose rule is an
  // or): tested only if (g.contype & h.conaffinity) != 0 or (h.contype &
  // g.conaffinity) != 0. The defaults (1, 1) pass every pair.
  std::uint32_t contype{1};
  std::uint32_t conaffinity{1};
};

struct GeometryModelOptions {
  // Do not test bodies joined by a joint (parent and child), except a body
  // joined to the world by a floating or planar joint: it moves freely, so
  // it must collide with the world's geometry (the ground).
  bool exclude_parent_child{true};
  // Tree collision meshes on bodies other than the world become their
  // convex hull; on the world they stay triangle meshes.
};

class GeometryModel {
 public:
  // An empty model for a scene of `num_bodies` bodies (body 0 the world).
  explicit GeometryModel(int num_bodies = 1,
                         const GeometryModelOptions& options = {});

  // The collision geometry of `tree` (its bodies' <collision> elements).
  // Mesh geometry needs BodyGeometry::mesh (read by the URDF parser). Throws
  // std::invalid_argument naming the geometry, body and, for URDF input, the
  // file and line, for a non-positive size, a NaN pose, an empty mesh, or a
  // mesh on a moving body without a convex hull (fewer than 4 non-coplanar
  // vertices). A moving body's mesh becomes the convex hull of its vertices,
  // whether or not the mesh is closed.
  static GeometryModel FromTree(const RigidBodyTree<double>& tree,
                                const GeometryModelOptions& options = {});

  // Adds a geometry and returns its index. Throws std::invalid_argument
  // naming the geometry and body if the body does not exist, the pose is not
  // finite or not a rotation, a property is negative, or a half-space or
  // triangle mesh is attached to a body other than the world.
  int AddGeometry(Geometry g);
  // Never test geometries of bodies a and b against each other.
  void ExcludeBodyPair(int body_a, int body_b);

  // Collision filters by body name (the tree's link names, as FromTree or
  // SetBodyName set them). Each throws std::invalid_argument naming the
  // unknown body and listing the known ones.
  // The body's index, or an error naming `name` (and `where`, if given).
  int FindBody(const std::string& name, const std::string& where = "") const;
  void ExcludeBodyPair(const std::string& body_a, const std::string& body_b);
  // Every pair, e.g. the <disable_collisions> of an SRDF
  // (ParseSrdfDisabledCollisions, tern/multibody/parsing/srdf_parser.h).
  void ExcludeBodyPairs(
      const std::vector<std::pair<std::string, std::string>>& pairs);
  // Collision groups (Drake's collision filter groups): every body of
  // `group_a` stops colliding with every body of `group_b`. With
  // group_a == group_b the group's bodies stop colliding with each other;
  // that is how a model's self-collision is turned off (ExcludeWithin).
  void ExcludeGroupPair(const std::vector<int>& group_a,
                        const std::vector<int>& group_b);
  void ExcludeWithin(const std::vector<int>& bodies) {
    ExcludeGroupPair(bodies, bodies);
  }
  // Names a body (messages, FindBody); FromTree names every body.
  void SetBodyName(int body, const std::string& name);
  // Whether bodies a and b are excluded from each other.
  bool IsExcluded(int body_a, int body_b) const {
    if (dense_filter()) {
      return excluded_[static_cast<std::size_t>(body_a) * num_bodies_ + body_b];
    }
    return excluded_pairs_.count(PairKey(body_a, body_b)) != 0;
  }
  // Up to this many bodies the excluded pairs are a bit matrix (at most
  // 2 MB, one load per test); above, a hash set of the pairs excluded, so a
  // scene of many free bodies costs memory linear in the bodies (issue 27:
  // 200,000 boxes made a 5 GB matrix).
  static constexpr int kDenseFilterBodies = 4096;
  bool dense_filter() const { return num_bodies_ <= kDenseFilterBodies; }

  int num_geometries() const { return static_cast<int>(geometries_.size()); }
  int num_bodies() const { return num_bodies_; }
  const Geometry& geometry(int i) const { return geometries_.at(i); }
  const std::vector<Geometry>& geometries() const { return geometries_; }
  const std::string& body_name(int body) const { return body_names_.at(body); }
  // True if the pair passes the filter (different bodies, not excluded,
  // groups and masks agree, contype and conaffinity agree).
  bool CanCollide(int g1, int g2) const {
    const Geometry& a = geometries_[g1];
    const Geometry& b = geometries_[g2];
    if (a.body == b.body) return false;
    if ((a.group & b.mask) == 0 || (b.group & a.mask) == 0) return false;
    if ((a.contype & b.conaffinity) == 0 && (b.contype & a.conaffinity) == 0) {
      return false;
    }
    return !IsExcluded(a.body, b.body);
  }

 private:
  std::string Describe(const Geometry& g) const;
  static std::uint64_t PairKey(int a, int b) {
    if (a > b) std::swap(a, b);
    return (static_cast<std::uint64_t>(a) << 32) |
           static_cast<std::uint32_t>(b);
  }
  int num_bodies_;
  GeometryModelOptions options_;
  std::vector<std::string> body_names_;  // (num_bodies)
  std::vector<Geometry> geometries_;
  // Excluded body pairs: (num_bodies²) bits up to kDenseFilterBodies, else
  // empty and the pairs are in excluded_pairs_ (PairKey).
  std::vector<bool> excluded_;
  std::unordered_set<std::uint64_t> excluded_pairs_;
};

// Per-thread query data for one GeometryModel: geometry poses, boxes, the
// broad phase's sorted order and pair list, the contacts and ray hits.
// Sized for the model when constructed; the lists grow to their largest
// size during the first queries and are then reused without allocation.
struct GeometryWorkspace {
  explicit GeometryWorkspace(const GeometryModel& model);

  int num_geometries{0};
  std::vector<RigidTransform<double>> X_WG;  // (ng) geometry poses, world
  std::vector<Vector3<double>> aabb_lo;      // (ng) world boxes, m
  std::vector<Vector3<double>> aabb_hi;      // (ng)
  std::vector<int> bounded;    // geometries with a finite box, by min x
  std::vector<int> unbounded;  // half-spaces
  // (bounded.size()) the boxes in `bounded` order, packed for the sweep.
  struct SweepBox {
    double xlo, ylo, yhi, zlo, zhi, xhi;  // m
  };
  std::vector<SweepBox> sweep;
  std::vector<std::pair<int, int>> pairs;  // broad-phase candidates
  // Scratch of ComputeCandidatePairs' sort: (ng + 1) run starts by first
  // index, and the pairs before they are sorted.
  std::vector<int> pair_start;
  std::vector<std::pair<int, int>> unsorted_pairs;
  std::vector<Contact> contacts;  // narrow-phase output
};

}  // namespace tern
