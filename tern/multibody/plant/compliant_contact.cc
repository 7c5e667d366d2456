#include "tern/multibody/plant/compliant_contact.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/multibody/plant/contact_common.h"

namespace tern {

namespace {
double Series(double a, double b) {
  return (a + b > 0) ? a * b / (a + b) : 0.0;
}
}  // namespace

CompliantContact::CompliantContact(const RigidBodyTree<double>& tree,
                                   GeometryModel model,
                                   CompliantContactParameters parameters,
                                   std::string name)
    : Actuator<double>(name, tree, 0, 0, true),
      query_(tree, std::move(model),
             fmt::format("CompliantContact '{}'", name)),
      parameters_(parameters) {
  if (!(parameters.tangential_damping > 0) ||
      !std::isfinite(parameters.tangential_damping) ||
      !std::isfinite(parameters.margin) ||
      !(parameters.hunt_crossley_dissipation >= 0)) {
    throw std::invalid_argument(fmt::format(
        "CompliantContact '{}': tangential_damping must be finite and > 0, "
        "margin finite and hunt_crossley_dissipation >= 0, got {}, {} and {}",
        name, parameters.tangential_damping, parameters.margin,
        parameters.hunt_crossley_dissipation));
  }
}

std::unique_ptr<AbstractValue> CompliantContact::MakeScratch() const {
  return query_.MakeWorkspace();
}

Vector3<double> CompliantContact::ContactForce(
    const KinematicsCache<double>& cache, const Contact& c) const {
  const ContactProperties& pa =
      query_.model().geometry(c.geometry_a).properties;
  const ContactProperties& pb =
      query_.model().geometry(c.geometry_b).properties;
  const double k = Series(pa.stiffness, pb.stiffness);
  const double b = Series(pa.dissipation, pb.dissipation);
  const double mu = CombinedFriction(pa, pb);
  const Vector3<double>& n = c.normal;
  const Vector3<double> v_r = PointVelocityInWorld(cache, c.body_b, c.p_WB) -
                              PointVelocityInWorld(cache, c.body_a, c.p_WA);
  const double phidot = n.dot(v_r);
  const double fn =
      parameters_.normal_law ==
              CompliantContactParameters::NormalLaw::kHuntCrossley
          ? std::max(-k * c.signed_distance *
                         (1 - parameters_.hunt_crossley_dissipation * phidot),
                     0.0)
          : std::max(-k * c.signed_distance - b * phidot, 0.0);
  if (fn == 0) return Vector3<double>::Zero();
  Vector3<double> f = fn * n;  // on B
  const Vector3<double> v_t = v_r - phidot * n;
  const double speed = v_t.norm();
  if (speed > 0) {
    const double ft = std::min(parameters_.tangential_damping * speed, mu * fn);
    f -= (ft / speed) * v_t;
  }
  return f;
}

void CompliantContact::CalcGeneralizedForce(
    const ForceElementInputs<double>& in, VectorX<double>* tau) const {
  tau->setZero();
  auto& ws = in.scratch->get_mutable_value<GeometryWorkspace>();
  const KinematicsCache<double>& cache = *in.cache;
  const std::vector<Contact>& contacts =
      query_.FindContacts(cache, parameters_.margin, &ws);
  const Vector3<double> zero = Vector3<double>::Zero();
  for (const Contact& c : contacts) {
    const Vector3<double> f = ContactForce(cache, c);
    if (f.isZero(0)) continue;
    if (c.body_b != 0) {
      const RigidTransform<double>& X = cache.X_WB[c.body_b];
      AddWrenchAsGeneralizedForce<double>(
          *in.tree, cache, query_.body_frames()[c.body_b],
          X.R.transpose() * (c.p_WB - X.p), zero, f, in.J, tau);
    }
    if (c.body_a != 0) {
      const RigidTransform<double>& X = cache.X_WB[c.body_a];
      AddWrenchAsGeneralizedForce<double>(
          *in.tree, cache, query_.body_frames()[c.body_a],
          X.R.transpose() * (c.p_WA - X.p), zero, -f, in.J, tau);
    }
  }
}

int CompliantContact::WriteContactRecords(const ForceElementInputs<double>& in,
                                          double* y, int capacity) const {
  auto& ws = in.scratch->get_mutable_value<GeometryWorkspace>();
  const std::vector<Contact>& contacts =
      query_.FindContacts(*in.cache, parameters_.margin, &ws);
  int count = 0;
  for (const Contact& c : contacts) {
    const Vector3<double> f = ContactForce(*in.cache, c);
    if (f.isZero(0)) continue;
    if (count < capacity) {
      WriteContactRecord(y + kContactRecordSize * count, c.p_WB, c.normal, f,
                         c.geometry_a, c.geometry_b, c.signed_distance);
    }
    ++count;
  }
  return count;
}

}  // namespace tern
