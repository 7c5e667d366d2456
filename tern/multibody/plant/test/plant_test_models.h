#pragma once
// Models built in code for the plant tests: a four-bar linkage and a
// quadrotor body.
#include <cmath>

#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern::test {

// A uniform rod of mass m and length l along +x of its body frame.
inline SpatialInertia<double> RodAlongX(double m, double l) {
  Matrix3<double> I = Matrix3<double>::Zero();
  I(0, 0) = 1e-4 * m;
  I(1, 1) = I(2, 2) = m * l * l / 12;
  return SpatialInertia<double>::FromCom(m, Vector3<double>(l / 2, 0, 0), I);
}

// A planar four-bar linkage moving in the x-y plane (gravity -y): crank
// (length a) hinged at the world origin, coupler (length b) hinged at the
// crank's tip, rocker (length c) hinged at the world point (d, 0, 0). All
// joints about z. The tree is open; the loop closes by keeping the
// coupler's tip (b, 0, 0) at the rocker's tip (c, 0, 0).
struct FourBar {
  double a{1.0}, b{2.0}, c{1.5}, d{2.0};
  RigidBodyTree<double> tree{"four_bar"};
  FourBar() {
    tree.set_gravity(Vector3<double>(0, -9.81, 0));
    Joint<double> j;
    j.type = JointType::kRevolute;
    j.axis = Vector3<double>::UnitZ();
    j.name = "crank_joint";
    const int crank = tree.AddBody("crank", 0, j, RodAlongX(1.0, a));
    j.name = "coupler_joint";
    j.X_PJ.p = Vector3<double>(a, 0, 0);
    tree.AddBody("coupler", crank, j, RodAlongX(2.0, b));
    j.name = "rocker_joint";
    j.X_PJ.p = Vector3<double>(d, 0, 0);
    tree.AddBody("rocker", 0, j, RodAlongX(1.5, c));
  }
  // A closed configuration [crank, coupler (relative), rocker] for crank
  // angle theta (the elbow-up assembly).
  VectorX<double> ClosedConfiguration(double theta) const {
    const Vector3<double> A(a * std::cos(theta), a * std::sin(theta), 0);
    const Vector3<double> D(d, 0, 0);
    const Vector3<double> AD = D - A;
    const double L = AD.norm();
    // Circle intersection: |B - A| = b, |B - D| = c.
    const double x = (b * b - c * c + L * L) / (2 * L);
    const double h = std::sqrt(b * b - x * x);
    const Vector3<double> e = AD / L;
    const Vector3<double> n(-e.y(), e.x(), 0);
    const Vector3<double> B = A + x * e + h * n;
    VectorX<double> q(3);
    q[0] = theta;
    q[1] = std::atan2(B.y() - A.y(), B.x() - A.x()) - theta;
    q[2] = std::atan2(B.y() - D.y(), B.x() - D.x());
    return q;
  }
};

// A quadrotor: one floating body of mass m (a flat box), arms of length L
// along +-x and +-y.
inline RigidBodyTree<double> MakeQuadrotorTree(double m) {
  RigidBodyTree<double> tree("quadrotor");
  Joint<double> j;
  j.name = "floating";
  j.type = JointType::kFloating;
  Matrix3<double> I = Matrix3<double>::Zero();
  I.diagonal() << 0.0023, 0.0023, 0.004;
  tree.AddBody("body", 0, j,
               SpatialInertia<double>::FromCom(m, Vector3<double>::Zero(), I));
  return tree;
}

}  // namespace tern::test
