#pragma once
// Scenes of free bodies over a (tilted) ground plane for the tests of the
// time-stepping plant.
#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "tern/multibody/plant/time_stepping_rigid_body_system.h"

namespace tern::test {

// Free bodies (spheres of radius r or cubes of side a, mass m) over a
// ground half-space whose normal is tilted by `incline` rad about the world
// y axis (0: the plane z = 0), every geometry with friction mu.
struct Scene {
  RigidBodyTree<double> tree{"scene"};
  std::vector<Geometry> geometries;
  double incline{0};
  double mu{0.5};

  int AddBody(const Shape& shape, const Matrix3<double>& I_com, double m) {
    Joint<double> j;
    j.type = JointType::kFloating;
    j.name = "free" + std::to_string(tree.num_bodies());
    const int b = tree.AddBody(
        "body" + std::to_string(tree.num_bodies()), 0, j,
        SpatialInertia<double>::FromCom(m, Vector3<double>::Zero(), I_com));
    Geometry g;
    g.name = "geometry" + std::to_string(b);
    g.body = b;
    g.shape = shape;
    geometries.push_back(g);
    return b;
  }
  int AddSphere(double r, double m = 1) {
    return AddBody(Shape::Sphere(r),
                   Matrix3<double>::Identity() * 0.4 * m * r * r, m);
  }
  int AddCube(double a, double m = 1) {
    return AddBody(Shape::Box(a, a, a),
                   Matrix3<double>::Identity() * m * a * a / 6, m);
  }
  GeometryModel Model() const {
    GeometryModel model(tree.num_bodies());
    for (Geometry g : geometries) {
      g.properties.friction = mu;
      model.AddGeometry(g);
    }
    Geometry ground;
    ground.name = "ground";
    ground.shape = Shape::HalfSpace();
    ground.properties.friction = mu;
    ground.X_BG.R =
        Eigen::AngleAxisd(incline, Vector3<double>::UnitY()).toRotationMatrix();
    model.AddGeometry(ground);
    return model;
  }
};

// Position and velocity index of free body b (bodies in order, 7 q and 6 v
// each).
inline int Pos(int b) { return 7 * (b - 1); }
inline int Vel(int b) { return 6 * (b - 1); }

// World velocity of body b's origin (v = [w_B; v_B] in the body frame).
inline Vector3<double> WorldVelocity(const VectorX<double>& x, int nq, int b) {
  const Eigen::Quaterniond quat(x[Pos(b) + 3], x[Pos(b) + 4], x[Pos(b) + 5],
                                x[Pos(b) + 6]);
  return quat.toRotationMatrix() * x.segment<3>(nq + Vel(b) + 3);
}
inline Vector3<double> WorldAngularVelocity(const VectorX<double>& x, int nq,
                                            int b) {
  const Eigen::Quaterniond quat(x[Pos(b) + 3], x[Pos(b) + 4], x[Pos(b) + 5],
                                x[Pos(b) + 6]);
  return quat.toRotationMatrix() * x.segment<3>(nq + Vel(b));
}

// Sets body b's pose (position p, rotation R) in q.
inline void SetPose(VectorX<double>* q, int b, const Vector3<double>& p,
                    const Matrix3<double>& R) {
  const Eigen::Quaterniond quat(R);
  q->segment<3>(Pos(b)) = p;
  (*q)[Pos(b) + 3] = quat.w();
  (*q)[Pos(b) + 4] = quat.x();
  (*q)[Pos(b) + 5] = quat.y();
  (*q)[Pos(b) + 6] = quat.z();
}

inline TimeSteppingOptions WithSolver(TimeSteppingOptions::Solver solver) {
  TimeSteppingOptions o;
  o.solver = solver;
  return o;
}

}  // namespace tern::test
