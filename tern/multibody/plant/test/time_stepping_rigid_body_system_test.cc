// Tests of TimeSteppingRigidBodySystem (issue 15): contact, friction, stacks,
// rolling, energy, robots, bad input.
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

using Options = TimeSteppingOptions;

// A scene of free bodies (spheres of radius r or cubes of side a, mass m)
// over a ground half-space whose normal is tilted by `incline` rad about
// the world y axis (0: the plane z = 0).
struct Scene {
  RigidBodyTree<double> tree{"scene"};
  std::vector<Geometry> geometries;
  double incline{0};
  double mu{0.5};

  int AddSphere(double r, double m = 1) {
    Joint<double> j;
    j.type = JointType::kFloating;
    j.name = "free" + std::to_string(tree.num_bodies());
    const int b =
        tree.AddBody("body" + std::to_string(tree.num_bodies()), 0, j,
                     SpatialInertia<double>::FromCom(
                         m, Vector3<double>::Zero(),
                         Matrix3<double>::Identity() * 0.4 * m * r * r));
    Geometry g;
    g.name = "geometry" + std::to_string(b);
    g.body = b;
    g.shape = Shape::Sphere(r);
    geometries.push_back(g);
    return b;
  }
  int AddCube(double a, double m = 1) {
    Joint<double> j;
    j.type = JointType::kFloating;
    j.name = "free" + std::to_string(tree.num_bodies());
    const int b =
        tree.AddBody("body" + std::to_string(tree.num_bodies()), 0, j,
                     SpatialInertia<double>::FromCom(
                         m, Vector3<double>::Zero(),
                         Matrix3<double>::Identity() * m * a * a / 6));
    Geometry g;
    g.name = "geometry" + std::to_string(b);
    g.body = b;
    g.shape = Shape::Box(a, a, a);
    geometries.push_back(g);
    return b;
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

// Position index of body b's origin (free bodies in order, 7 q each).
int Pos(int b) { return 7 * (b - 1); }
int Vel(int b) { return 6 * (b - 1); }

TEST(TimeStepping, SphereFallsAndRestsOnPlane) {
  Scene scene;
  const int b = scene.AddSphere(0.05);
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q[Pos(b) + 2] = 0.5;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(6));
  sim.AdvanceTo(1.0);
  const VectorX<double>& x = plant.GetState(sim.get_context());
  EXPECT_NEAR(x[Pos(b) + 2], 0.05, 1e-4);
  EXPECT_NEAR(x.tail(6).segment<6>(Vel(b)).norm(), 0, 1e-6);
  EXPECT_EQ(plant.GetStepStats(sim.get_context()).num_contacts, 1);
}

}  // namespace
}  // namespace tern
