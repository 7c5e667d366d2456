#include "tern/multibody/plant/contact_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/plant/contact_common.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

ContactQuery::ContactQuery(const RigidBodyTree<double>& tree,
                           GeometryModel model, const std::string& owner)
    : model_(std::move(model)) {
  if (model_.num_bodies() != tree.num_bodies()) {
    throw std::invalid_argument(fmt::format(
        "{}: the geometry model has {} bodies but tree '{}' has {}", owner,
        model_.num_bodies(), tree.name(), tree.num_bodies()));
  }
  for (int b = 0; b < tree.num_bodies(); ++b) {
    body_frame_.push_back(tree.FindFrameIndex(tree.body(b).name));
    body_name_.push_back(tree.body(b).name);
  }
}

std::unique_ptr<AbstractValue> ContactQuery::MakeWorkspace() const {
  return std::make_unique<Value<GeometryWorkspace>>(GeometryWorkspace(model_));
}

const std::vector<Contact>& ContactQuery::FindContacts(
    const KinematicsCache<double>& cache, double margin, GeometryWorkspace* ws,
    double swept_h) const {
  UpdateGeometryPoses(model_, cache.X_WB, ws);
  if (swept_h > 0 && !cache.V.empty()) {
    double s1 = 0, s2 = 0;  // the two largest point speeds
    for (int g = 0; g < model_.num_geometries(); ++g) {
      const int b = model_.geometry(g).body;
      if (b == 0) continue;
      const Vector3<double> lo = ws->aabb_lo[g], hi = ws->aabb_hi[g];
      if (!lo.allFinite() || !hi.allFinite()) continue;
      const double r =
          (0.5 * (lo + hi) - cache.X_WB[b].p).norm() + 0.5 * (hi - lo).norm();
      const auto& V = cache.V[b];
      const double speed = V.tail<3>().norm() + V.head<3>().norm() * r;
      if (speed > s1) {
        s2 = s1;
        s1 = speed;
      } else if (speed > s2) {
        s2 = speed;
      }
    }
    margin += swept_h * (s1 + s2);
  }
  return ComputeContacts(model_, ws, margin);
}

ContactFrame ContactQuery::Frame(const std::vector<Contact>& contacts,
                                 int i) const {
  const Contact& c = contacts[i];
  ContactFrame f;
  f.contact = i;
  f.geometry_a = c.geometry_a;
  f.geometry_b = c.geometry_b;
  f.body_a = c.body_a;
  f.body_b = c.body_b;
  f.n = c.normal;
  ContactTangentBasis(c.normal, &f.t1, &f.t2);
  f.p_WA = c.p_WA;
  f.p_WB = c.p_WB;
  f.phi = c.signed_distance;
  const ContactProperties& pa = model_.geometry(c.geometry_a).properties;
  const ContactProperties& pb = model_.geometry(c.geometry_b).properties;
  f.mu = CombinedFriction(pa, pb);
  f.e = std::max(pa.restitution, pb.restitution);
  return f;
}

std::string ContactQuery::DescribePair(int geometry_a, int geometry_b) const {
  const Geometry& a = model_.geometry(geometry_a);
  const Geometry& b = model_.geometry(geometry_b);
  return fmt::format("geometry '{}' (body '{}') and geometry '{}' (body '{}')",
                     a.name, body_name_[a.body], b.name, body_name_[b.body]);
}

Vector3<double> ContactRelativeVelocity(const KinematicsCache<double>& cache,
                                        const ContactFrame& f) {
  return PointVelocityInWorld(cache, f.body_b, f.p_WB) -
         PointVelocityInWorld(cache, f.body_a, f.p_WA);
}

void ContactPointJacobian(const RigidBodyTree<double>& tree,
                          const KinematicsCache<double>& cache,
                          const std::vector<int>& body_frames, int body,
                          const Vector3<double>& p_W, Matrix6X<double>* J) {
  const RigidTransform<double>& X = cache.X_WB[body];
  const Vector3<double> p_B = X.R.transpose() * (p_W - X.p);
  WorldAlignedJacobian(tree, cache, body_frames[body], p_B, J);
}

void RelativePointJacobian(const RigidBodyTree<double>& tree,
                           const KinematicsCache<double>& cache,
                           const std::vector<int>& body_frames, int body_a,
                           const Vector3<double>& p_WA, int body_b,
                           const Vector3<double>& p_WB, Matrix6X<double>* J,
                           Eigen::Ref<MatrixX<double>> Jr) {
  Jr.setZero();
  if (body_b != 0) {
    ContactPointJacobian(tree, cache, body_frames, body_b, p_WB, J);
    Jr += J->bottomRows<3>();
  }
  if (body_a != 0) {
    ContactPointJacobian(tree, cache, body_frames, body_a, p_WA, J);
    Jr -= J->bottomRows<3>();
  }
}

}  // namespace tern
