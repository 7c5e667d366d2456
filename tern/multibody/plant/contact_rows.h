#pragma once
// The contact stage of the constraint pipeline that both plants share
// (docs/plant.md, "Pipeline"): the contact query and what every contact row
// is built from. RigidContact (the continuous plant's acceleration- and
// impulse-level rows) and TimeSteppingContact with the time-stepping
// plant's row assembly (velocity-level rows) both call it; each keeps only
// what differs: the bias of the rows (acceleration or velocity level), which
// contacts take part and at which points the Jacobian is taken.
//
// A ContactQuery owns the GeometryModel and runs the query (poses, broad and
// narrow phase, optionally the swept margin of speculative contacts); a
// ContactFrame is one contact as a constraint element: the pair, its bodies,
// the witness points, the frame (n, t1, t2) by ContactTangentBasis, phi, the
// combined friction (CombinedFriction) and restitution (the larger of the
// two). ContactPointJacobian and RelativePointJacobian give the contact
// rows' Jacobians. Double only, like the geometry layer.
#include <memory>
#include <string>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/common/value.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/geometry/narrow_phase.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

// One contact of the query as a constraint element (all vectors in world).
struct ContactFrame {
  int contact{-1};  // index in the query's contacts (ws.contacts)
  int geometry_a{-1}, geometry_b{-1};            // indices in the GeometryModel
  int body_a{-1}, body_b{-1};                    // body 0: the world
  Vector3<double> n{Vector3<double>::UnitZ()};   // unit normal, A to B
  Vector3<double> t1{Vector3<double>::UnitX()};  // ContactTangentBasis(n)
  Vector3<double> t2{Vector3<double>::UnitY()};  // n x t1
  Vector3<double> p_WA{Vector3<double>::Zero()};  // witness point on A, m
  Vector3<double> p_WB{Vector3<double>::Zero()};  // witness point on B, m
  double phi{0};  // signed distance, m (< 0 penetrating)
  double mu{0};   // CombinedFriction of the two geometries
  double e{0};    // restitution: max(e_A, e_B)
};

class ContactQuery {
 public:
  // `owner` names the element in messages ("RigidContact 'floor'"). Throws
  // std::invalid_argument naming it if the model was built for another
  // number of bodies than `tree` has.
  ContactQuery(const RigidBodyTree<double>& tree, GeometryModel model,
               const std::string& owner);

  const GeometryModel& model() const { return model_; }
  // Frame index of each body (num bodies), for the tree's Jacobians.
  const std::vector<int>& body_frames() const { return body_frame_; }
  // A fresh Value<GeometryWorkspace> for one Context.
  std::unique_ptr<AbstractValue> MakeWorkspace() const;

  // Updates the geometry poses from cache.X_WB and returns every contact of
  // signed distance <= margin (m), in ws->contacts (ComputeContacts order).
  // With swept_h > 0 (speculative contacts over a step of swept_h s) the
  // margin grows by swept_h (s_1 + s_2), s_1 >= s_2 the two largest speeds
  // of any geometry point (|v_B| + |w_B| r, r the geometry's box radius
  // about the body origin), read from the cache's velocities (FK(q, v);
  // after FK(q) alone they are zero and nothing is swept).
  const std::vector<Contact>& FindContacts(const KinematicsCache<double>& cache,
                                           double margin, GeometryWorkspace* ws,
                                           double swept_h = 0) const;

  // The frame of contact i of `contacts` (from FindContacts).
  ContactFrame Frame(const std::vector<Contact>& contacts, int i) const;

  // "geometry 'a' (body 'A') and geometry 'b' (body 'B')".
  std::string DescribePair(int geometry_a, int geometry_b) const;

 private:
  GeometryModel model_;
  std::vector<int> body_frame_;         // (num bodies) frame index
  std::vector<std::string> body_name_;  // (num bodies)
};

// World velocity (m/s) of B's material point at p_WB relative to A's at
// p_WA: v_r = v_B(p_WB) - v_A(p_WA); the cache after FK(q, v).
Vector3<double> ContactRelativeVelocity(const KinematicsCache<double>& cache,
                                        const ContactFrame& f);

// The world-aligned Jacobian of the point p_W (m, world) of `body` (> 0)
// into J (6 x nv, [angular; translational]; the contact rows use its bottom
// three rows): WorldAlignedJacobian at the point's offset in the body.
// body_frames: ContactQuery::body_frames(). No heap allocation.
void ContactPointJacobian(const RigidBodyTree<double>& tree,
                          const KinematicsCache<double>& cache,
                          const std::vector<int>& body_frames, int body,
                          const Vector3<double>& p_W, Matrix6X<double>* J);

// The relative point Jacobian of a contact, Jr = J_B(p_WB) - J_A(p_WA) (3 x
// nv, world; the world body contributes nothing), into the 3 x nv block
// `Jr`. J: 6 x nv scratch. The continuous plant passes the two witness
// points; a plant that takes one point for both bodies passes it twice.
void RelativePointJacobian(const RigidBodyTree<double>& tree,
                           const KinematicsCache<double>& cache,
                           const std::vector<int>& body_frames, int body_a,
                           const Vector3<double>& p_WA, int body_b,
                           const Vector3<double>& p_WB, Matrix6X<double>* J,
                           Eigen::Ref<MatrixX<double>> Jr);

// Whether a contact's normal row has authority: normal_sq = |J_n|^2 and
// tangent_sq = |J_t1|^2 + |J_t2|^2 (squared norms of its rows). A contact
// that no motion can move along its normal (J_n = 0 to round-off:
// geometries overlapping about a joint's axis or a spherical joint's
// centre, the normal along the axis of their only relative motion) cannot
// be resolved by a normal force: its force would grow without bound and act
// through round-off or, through the friction cone, lock the tangential
// motion it does have. Both plants leave such contacts out.
inline bool NormalRowHasAuthority(double normal_sq, double tangent_sq) {
  return normal_sq > 1e-20 * tangent_sq;
}

}  // namespace tern
