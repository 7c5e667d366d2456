#pragma once
// Joints of a RigidBodyTree. Each body has exactly one joint to its parent;
// the joint frame J is fixed in the parent body at X_PJ (URDF <origin>), and
// the child body frame B coincides with J moved by the joint: X_PB = X_PJ *
// X_J(q). Coordinates (nq) and velocities (nv) of each type:
//   kFixed     nq = nv = 0.
//   kRevolute  nq = nv = 1: angle about unit `axis` (in J), rad.
//   kPrismatic nq = nv = 1: displacement along unit `axis` (in J), m.
//   kFloating  nq = 7: [x y z] position of B in J, then unit quaternion
//              [qw qx qy qz] of R_JB; nv = 6: spatial velocity of B in B's
//              own frame [w_B; v_B] (angular, then linear velocity of B's
//              origin), so qdot != v.
//   kBall      nq = 4: unit quaternion [qw qx qy qz] of R_JB; nv = 3: angular
//              velocity w_B in B.
//   kPlanar    nq = nv = 3: [x, y, theta]: translation x t1 + y t2 in the
//              plane normal to `axis` (t1, t2, axis right-handed, chosen by
//              PlanarBasis), then rotation theta about axis; qdot = v.
// Damping b (N m s/rad or N s/m) adds b * v to the bias term of every dof of
// the joint; armature (rotor inertia reflected through the gear, kg m^2 or kg)
// adds to the diagonal of the mass matrix. Coulomb friction is a parameter
// for the plant (it is non-smooth) and does not enter the tree's algorithms.
#include <limits>
#include <string>

#include "tern/common/eigen_types.h"
#include "tern/math/spatial_algebra.h"

namespace tern {

enum class JointType {
  kFixed,
  kRevolute,
  kPrismatic,
  kFloating,
  kBall,
  kPlanar
};

// "fixed", "revolute", ... for messages.
const char* JointTypeName(JointType type);
int JointNumPositions(JointType type);
int JointNumVelocities(JointType type);

// Joint parameters; the scalar-valued ones take part in the dynamics.
template <typename T>
struct Joint {
  std::string name;
  JointType type{JointType::kFixed};
  RigidTransform<T> X_PJ;                // joint frame in parent body
  Vector3<T> axis{Vector3<T>::UnitZ()};  // unit, in J
  // Limits of the single coordinate of revolute/prismatic joints (URDF
  // <limit>); infinite when absent. Enforcing them is the plant's job.
  double position_lower{-std::numeric_limits<double>::infinity()};
  double position_upper{std::numeric_limits<double>::infinity()};
  double velocity_limit{std::numeric_limits<double>::infinity()};
  double effort_limit{std::numeric_limits<double>::infinity()};
  T damping{0};        // viscous damping per dof
  double friction{0};  // Coulomb friction per dof (N m or N), for the plant
  T armature{0};       // rotor inertia per dof

  template <typename U>
  Joint<U> cast() const {
    Joint<U> j;
    j.name = name;
    j.type = type;
    j.X_PJ = X_PJ.template cast<U>();
    j.axis = axis.template cast<U>();
    j.position_lower = position_lower;
    j.position_upper = position_upper;
    j.velocity_limit = velocity_limit;
    j.effort_limit = effort_limit;
    j.damping = U(damping);
    j.friction = friction;
    j.armature = U(armature);
    return j;
  }
};

// In-plane unit vectors t1, t2 of a planar joint with normal `axis`, so that
// (t1, t2, axis) is right-handed; for axis = z they are x and y.
void PlanarBasis(const Vector3<double>& axis, Vector3<double>* t1,
                 Vector3<double>* t2);

}  // namespace tern
