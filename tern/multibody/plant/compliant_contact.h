#pragma once
// CompliantContact (seed 004's no-stick frictional contact): an Actuator
// that turns the geometry layer's contact points into forces, with no
// command and no state, so it runs inside RigidBodySystem<double> (or as an
// ActuatorSystem) like any other actuator. Per contact point between
// geometry A and B (normal n from A to B, signed distance phi < 0 when
// penetrating, relative velocity v_r of B's point with respect to A's):
//   f_n = max(-k phi - b phidot, 0),       phidot = n . v_r
//   f_t = -min(b_t |v_t|, mu f_n) v_t / |v_t|,  v_t = v_r - (n . v_r) n
// pushing B along +n (A along -n), applied at each body's own witness point
// through the transposed point Jacobian (the contact Jacobian as the force
// Jacobian). k, b and mu combine the two geometries' ContactProperties:
// k = k_A k_B / (k_A + k_B) and b = b_A b_B / (b_A + b_B) (springs and
// dashpots in series), mu = 2 mu_A mu_B / (mu_A + mu_B). b_t
// (tangential_damping, N s/m per contact point) sets how fast sliding
// saturates: below |v_t| = mu f_n / b_t the friction is viscous, so a body
// creeps instead of sticking (the seed's "no-stick"). Contacts come from
// UpdateGeometryPoses + ComputeContacts on a GeometryWorkspace kept per
// Context (MakeScratch); the workspace's lists grow to their largest size
// in the first evaluations and are reused after that. Double only: the
// geometry layer works in double. A Hunt-Crossley normal law is an option
// (CompliantContactParameters::normal_law).
#include <memory>
#include <string>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/contact_rows.h"

namespace tern {

struct CompliantContactParameters {
  double tangential_damping{1e3};  // N s/m per contact point, > 0
  double margin{0};                // m, contacts reported up to phi <= margin
  // Normal law. kLinear: the seed's f_n = max(-k phi - b phidot, 0).
  // kHuntCrossley (Hunt and Crossley 1975, linear-spring form): f_n =
  // max(k x (1 + d xdot), 0) with penetration x = -phi, xdot = -phidot and
  // d = hunt_crossley_dissipation (s/m): the damping force vanishes at first
  // touch, so no pull at separation and a restitution that depends on speed.
  enum class NormalLaw { kLinear, kHuntCrossley };
  NormalLaw normal_law{NormalLaw::kLinear};
  double hunt_crossley_dissipation{0.2};  // s/m, >= 0
};

class CompliantContact final : public Actuator<double> {
 public:
  // Throws std::invalid_argument naming the actuator if the model was built
  // for another number of bodies or a parameter is out of range.
  CompliantContact(const RigidBodyTree<double>& tree, GeometryModel model,
                   CompliantContactParameters parameters = {},
                   std::string name = "compliant_contact");
  void CalcGeneralizedForce(const ForceElementInputs<double>& in,
                            VectorX<double>* tau) const override;
  std::unique_ptr<AbstractValue> MakeScratch() const override;
  const GeometryModel& geometry_model() const { return query_.model(); }
  // The contacts carrying force at the cache's FK(q, v), as records of the
  // plant's "contact_forces" output (contact_common.h): writes the first
  // `capacity` to y (kContactRecordSize each) and returns how many there
  // are. Same numbers as CalcGeneralizedForce.
  int WriteContactRecords(const ForceElementInputs<double>& in, double* y,
                          int capacity) const override;

 private:
  // Force on B (N, world) of contact c, zero when not pressing.
  Vector3<double> ContactForce(const KinematicsCache<double>& cache,
                               const Contact& c) const;
  ContactQuery query_;  // the pipeline's contact query (contact_rows.h)
  CompliantContactParameters parameters_;
};

}  // namespace tern
