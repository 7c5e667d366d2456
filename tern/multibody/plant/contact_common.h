#pragma once
// What CompliantContact and RigidContact share: combining two geometries'
// friction, the world velocity of a body-fixed point, and the layout of the
// plant's "contact_forces" output (RigidBodySystemOptions).
#include "tern/math/spatial_algebra.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/tree/kinematics_cache.h"

namespace tern {

// mu = 2 mu_A mu_B / (mu_A + mu_B) (0 if both are 0).
inline double CombinedFriction(const ContactProperties& a,
                               const ContactProperties& b) {
  return (a.friction + b.friction > 0)
             ? 2 * a.friction * b.friction / (a.friction + b.friction)
             : 0.0;
}

// World velocity (m/s) of the point of body `body` now at p_W (m); the
// cache after ForwardKinematics(q, v). Body 0 (the world) is at rest.
inline Vector3<double> PointVelocityInWorld(
    const KinematicsCache<double>& cache, int body,
    const Vector3<double>& p_W) {
  if (body == 0) return Vector3<double>::Zero();
  const RigidTransform<double>& X = cache.X_WB[body];
  const SpatialMotion<double>& V = cache.V[body];
  const Vector3<double> p_B = X.R.transpose() * (p_W - X.p);
  return X.R * (V.tail<3>() + V.head<3>().cross(p_B));
}

// The "contact_forces" output: y[0] = the number of contacts carrying
// force (it may exceed the capacity; only the first `capacity` are
// written), then per contact k a record of kContactRecordSize entries at
// y[1 + kContactRecordSize k]: point p_WB on B (3, m, world), unit normal
// from A to B (3), force on B (3, N, world; A gets the opposite),
// geometry_a, geometry_b (indices in the element's GeometryModel) and phi
// (m). Unused records are zero. Contacts of the compliant and rigid
// elements in the order the plant holds them.
inline constexpr int kContactRecordSize = 12;

inline void WriteContactRecord(double* y, const Vector3<double>& p_WB,
                               const Vector3<double>& normal,
                               const Vector3<double>& force, int geometry_a,
                               int geometry_b, double phi) {
  for (int i = 0; i < 3; ++i) {
    y[i] = p_WB[i];
    y[3 + i] = normal[i];
    y[6 + i] = force[i];
  }
  y[9] = geometry_a;
  y[10] = geometry_b;
  y[11] = phi;
}

}  // namespace tern
