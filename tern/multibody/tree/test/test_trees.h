#pragma once
// Trees built in code for the tree tests: a pendulum, a double pendulum and a
// random tree using every joint type, damping and armature.
#include <random>

#include "tern/math/rotation.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern::test {

inline SpatialInertia<double> RandomInertia(std::mt19937* gen) {
  std::uniform_real_distribution<double> u(0.1, 1.0), s(-0.3, 0.3);
  const double m = 0.5 + 2 * u(*gen);
  const Vector3<double> c(s(*gen), s(*gen), s(*gen));
  // Principal moments satisfying the triangle inequality, rotated.
  // A = s2 + s3, B = s1 + s3, C = s1 + s2 from second moments s_k > 0.
  const Vector3<double> sm(u(*gen) + 0.2, u(*gen) + 0.2, u(*gen) + 0.2);
  const Vector3<double> d(sm(1) + sm(2), sm(0) + sm(2), sm(0) + sm(1));
  const Matrix3<double> R = RollPitchYawToRotationMatrix(
      Vector3<double>(3 * s(*gen), 3 * s(*gen), 3 * s(*gen)));
  const Matrix3<double> I = R * d.asDiagonal() * R.transpose() * 0.1;
  return SpatialInertia<double>::FromCom(m, c, I);
}

inline RigidTransform<double> RandomTransform(std::mt19937* gen) {
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  return RigidTransform<double>(
      RollPitchYawToRotationMatrix(Vector3<double>(s(*gen), s(*gen), s(*gen))),
      Vector3<double>(0.5 * s(*gen), 0.5 * s(*gen), 0.5 * s(*gen)));
}

// Point mass m on a massless rod of length l, rotating about world y; q = 0
// hangs straight down (-z).
inline RigidBodyTree<double> MakePendulum(double m, double l) {
  RigidBodyTree<double> tree("pendulum");
  Joint<double> j;
  j.name = "pivot";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitY();
  tree.AddBody("bob", 0, j,
               SpatialInertia<double>::FromCom(m, Vector3<double>(0, 0, -l),
                                               Matrix3<double>::Zero()));
  return tree;
}

// Two thin uniform rods (mass m_i, length l_i), both hinged about y, hanging
// along -z at q = 0 (the acrobot of Spong); `friction` is both hinges'
// Coulomb friction (N m).
inline RigidBodyTree<double> MakeDoublePendulum(double m1, double l1, double m2,
                                                double l2,
                                                double friction = 0) {
  RigidBodyTree<double> tree("double_pendulum");
  auto rod = [](double m, double l) {
    Matrix3<double> I = Matrix3<double>::Zero();
    I(0, 0) = I(1, 1) = m * l * l / 12;
    return SpatialInertia<double>::FromCom(m, Vector3<double>(0, 0, -l / 2), I);
  };
  Joint<double> j1;
  j1.name = "shoulder";
  j1.type = JointType::kRevolute;
  j1.axis = Vector3<double>::UnitY();
  j1.friction = friction;
  const int b1 = tree.AddBody("link1", 0, j1, rod(m1, l1));
  Joint<double> j2 = j1;
  j2.name = "elbow";
  j2.X_PJ.p = Vector3<double>(0, 0, -l1);
  tree.AddBody("link2", b1, j2, rod(m2, l2));
  return tree;
}

// A random tree of `n` bodies. With `all_types`, body 1 is floating and later
// bodies cycle through revolute, prismatic, ball, planar and fixed joints;
// otherwise only revolute, prismatic and planar (so qdot = v). Parents are
// random earlier bodies; damping and armature are random when `passive`.
inline RigidBodyTree<double> MakeRandomTree(int n, unsigned seed,
                                            bool all_types, bool passive) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  RigidBodyTree<double> tree("random");
  const JointType cycle_all[] = {JointType::kRevolute, JointType::kPrismatic,
                                 JointType::kBall,     JointType::kRevolute,
                                 JointType::kPlanar,   JointType::kFixed};
  const JointType cycle_min[] = {JointType::kRevolute, JointType::kPrismatic,
                                 JointType::kRevolute, JointType::kPlanar};
  for (int i = 1; i <= n; ++i) {
    Joint<double> j;
    j.name = "joint" + std::to_string(i);
    if (all_types) {
      j.type = i == 1 ? JointType::kFloating : cycle_all[(i - 2) % 6];
    } else {
      j.type = cycle_min[(i - 1) % 4];
    }
    j.X_PJ = RandomTransform(&gen);
    j.axis = Vector3<double>(u(gen) - 0.5, u(gen) - 0.5, u(gen) - 0.5);
    if (passive) {
      j.damping = 0.5 * u(gen);
      j.armature = 0.3 * u(gen);
    }
    const int parent =
        i == 1 ? 0 : 1 + static_cast<int>(u(gen) * (i - 1)) % (i - 1);
    tree.AddBody("body" + std::to_string(i), parent, j, RandomInertia(&gen));
  }
  return tree;
}

// A random configuration with unit quaternions, and a random vector.
inline VectorX<double> RandomConfiguration(const RigidBodyTree<double>& tree,
                                           std::mt19937* gen) {
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  VectorX<double> q(tree.num_positions());
  for (int i = 0; i < q.size(); ++i) q(i) = s(*gen);
  for (const auto& b : tree.bodies()) {
    int iq = -1;
    if (b.joint.type == JointType::kFloating) iq = b.position_start + 3;
    if (b.joint.type == JointType::kBall) iq = b.position_start;
    if (iq >= 0) q.segment<4>(iq).normalize();
  }
  return q;
}

inline VectorX<double> RandomVector(int n, std::mt19937* gen) {
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  VectorX<double> x(n);
  for (int i = 0; i < n; ++i) x(i) = s(*gen);
  return x;
}

}  // namespace tern::test
