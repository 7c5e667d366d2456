#pragma once
// Plant elements a model file describes beside its tree, as plain data that
// names bodies and joints (no tree indices), so that they survive copying
// the model into a world (tern/multibody/scene: MapJointSpring,
// MapEqualityConstraint) and can be built on any tree holding those names
// (tern/multibody/plant/mjcf_elements.h: MakeJointSprings,
// MakeEqualityConstraints). One description for every format: MJCF joint
// stiffness and SDFormat <spring_stiffness> are both JointSpringSpecs.
#include <string>
#include <vector>

#include "tern/math/spatial_algebra.h"

namespace tern {

// A passive spring on a single-dof joint: tau = -stiffness (q - reference).
// MJCF: joint stiffness and springref; SDFormat: <axis><dynamics>
// <spring_stiffness> and <spring_reference>.
struct JointSpringSpec {
  std::string joint;
  double stiffness{0};  // N·m/rad or N/m
  double reference{0};  // rad or m
};

// A bilateral constraint between a frame F on body1 and a frame G on body2
// (body names; "world" is the world). kPoint keeps the origins of F and G
// together (3 rows; only their positions are used), kWeld keeps F and G
// coincident (6 rows). MJCF <equality> connect and weld resolve to these
// (ResolveMjcfEqualities, mjcf_parser.h), with everything the file leaves
// implicit taken in qpos0.
struct EqualityConstraintSpec {
  enum class Type { kPoint, kWeld };
  std::string name;
  Type type{Type::kPoint};
  std::string body1;
  RigidTransform<double> X_1F;  // F in body1
  std::string body2;
  RigidTransform<double> X_2G;  // G in body2
};

}  // namespace tern
