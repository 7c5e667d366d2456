#pragma once
// Queries over a GeometryModel with a GeometryWorkspace: geometry poses from
// body poses, the broad phase (candidate pairs), contacts (broad plus narrow
// phase) and ray casts. None allocates once the workspace's lists have
// reached their largest size (a test proves it with the counting allocator).
#include <vector>

#include "tern/multibody/geometry/geometry_model.h"

namespace tern {

// Sets ws->X_WG = X_WB[body] * X_BG and the world boxes. X_WB has one pose
// per body (KinematicsCache::X_WB after ForwardKinematics). Throws
// std::invalid_argument if X_WB has the wrong size, or naming the geometry
// and body if a body pose is not finite.
void UpdateGeometryPoses(const GeometryModel& model,
                         const std::vector<RigidTransform<double>>& X_WB,
                         GeometryWorkspace* ws);

// Broad phase: fills ws->pairs with the pairs (a < b) whose boxes, grown by
// `margin` (m), overlap and that pass the model's filter, sorted. Uses the
// poses of the last UpdateGeometryPoses.
const std::vector<std::pair<int, int>>& ComputeCandidatePairs(
    const GeometryModel& model, GeometryWorkspace* ws, double margin = 0);

// Broad and narrow phase: fills ws->contacts with every contact point of
// signed distance <= margin, pair by pair in ws->pairs order (geometry_a <
// geometry_b), each pair's manifold together.
const std::vector<Contact>& ComputeContacts(const GeometryModel& model,
                                            GeometryWorkspace* ws,
                                            double margin = 0);

// Excludes (GeometryModel::ExcludeBodyPair) every pair of bodies whose
// geometries touch (phi <= margin) at the body poses X_WB, e.g. the zero
// configuration: geometry drawn overlapping at the joints of a chain (a
// hip's sphere inside the pelvis's box) then does not report contacts that
// are only artifacts of the modelling. World pairs (body 0) are kept. Returns
// the number of body pairs excluded. A set-up step: it allocates.
int ExcludeBodyPairsInContact(GeometryModel* model,
                              const std::vector<RigidTransform<double>>& X_WB,
                              double margin = 0);

struct RayHit {
  bool hit{false};
  double distance{0};  // m along the ray
  int geometry{-1};
  int body{-1};
  Vector3<double> point{Vector3<double>::Zero()};   // world, m
  Vector3<double> normal{Vector3<double>::Zero()};  // world, unit
};

// The first geometry hit by the ray origin + t dir, 0 <= t <= max_distance
// (dir need not be unit; it is normalized), ignoring geometries of body
// `ignore_body` (e.g. the sensor's own body; -1 ignores none). A miss has
// hit == false. Throws std::invalid_argument for a zero or non-finite dir or
// a non-finite origin.
RayHit CastRay(const GeometryModel& model, const GeometryWorkspace& ws,
               const Vector3<double>& origin, const Vector3<double>& dir,
               double max_distance, int ignore_body = -1);

// A batch (a Lidar scan): ray k starts at origins.col(k) (or origins.col(0)
// if origins has one column) along dirs.col(k). Writes hits->at(k).
void CastRays(const GeometryModel& model, const GeometryWorkspace& ws,
              const Matrix3X<double>& origins, const Matrix3X<double>& dirs,
              double max_distance, std::vector<RayHit>* hits,
              int ignore_body = -1);

}  // namespace tern
