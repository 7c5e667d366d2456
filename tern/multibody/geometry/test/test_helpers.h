#pragma once
// Random poses and small helpers shared by the geometry tests.
#include <Eigen/Geometry>
#include <random>

#include "tern/math/spatial_algebra.h"

namespace tern::test {

inline RigidTransform<double> RandomPose(std::mt19937* gen, double box) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::Quaterniond q(u(*gen), u(*gen), u(*gen), u(*gen));
  if (q.norm() < 1e-3) q = Eigen::Quaterniond::Identity();
  q.normalize();
  return RigidTransform<double>(
      q.toRotationMatrix(),
      Vector3<double>(box * u(*gen), box * u(*gen), box * u(*gen)));
}

inline RigidTransform<double> Translation(double x, double y, double z) {
  return RigidTransform<double>(Matrix3<double>::Identity(),
                                Vector3<double>(x, y, z));
}

inline RigidTransform<double> RotZ(double angle, const Vector3<double>& p) {
  return RigidTransform<double>(
      Eigen::AngleAxisd(angle, Vector3<double>::UnitZ()).toRotationMatrix(), p);
}

}  // namespace tern::test
