#include "tern/multibody/tree/joint.h"

#include <cmath>

namespace tern {

const char* JointTypeName(JointType type) {
  switch (type) {
    case JointType::kFixed:
      return "fixed";
    case JointType::kRevolute:
      return "revolute";
    case JointType::kPrismatic:
      return "prismatic";
    case JointType::kFloating:
      return "floating";
    case JointType::kBall:
      return "ball";
    case JointType::kPlanar:
      return "planar";
  }
  return "unknown";
}

int JointNumPositions(JointType type) {
  switch (type) {
    case JointType::kFixed:
      return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic:
      return 1;
    case JointType::kFloating:
      return 7;
    case JointType::kBall:
      return 4;
    case JointType::kPlanar:
      return 3;
  }
  return 0;
}

int JointNumVelocities(JointType type) {
  switch (type) {
    case JointType::kFixed:
      return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic:
      return 1;
    case JointType::kFloating:
      return 6;
    case JointType::kBall:
      return 3;
    case JointType::kPlanar:
      return 3;
  }
  return 0;
}

void PlanarBasis(const Vector3<double>& axis, Vector3<double>* t1,
                 Vector3<double>* t2) {
  // Start from the unit vector least aligned with the axis; for axis = z this
  // gives x, so the common case has the obvious basis.
  Vector3<double> seed = Vector3<double>::UnitX();
  if (std::abs(axis.x()) > std::abs(axis.z()) &&
      std::abs(axis.x()) >= std::abs(axis.y())) {
    seed = Vector3<double>::UnitY();
  }
  *t1 = (seed - axis.dot(seed) * axis).normalized();
  *t2 = axis.cross(*t1);
}

}  // namespace tern
