// The time-stepping plant (issue 15): TimeSteppingRigidBodySystem with
// rigid contact solved as an LCP per step of h = 1 ms.
//  1. 25 boxes (10 cm, 1 kg) fall in a 4 x 4 grid, 9 of them onto others,
//     onto a plane and come to rest; prints the contact count, islands and
//     solver sweeps, and the mean height, every 0.25 s.
//  2. The shipped quadruped (models/quadruped.urdf) stands for 3 s under
//     joint PD control (a PidController wired through the plant's "state"
//     output), its feet in rigid contact with the ground; prints the base
//     height every 0.5 s.
//
//   time_stepping
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "examples/quadruped/quadruped_stance.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/pid_controller.h"

using namespace tern;

namespace {

void FallingBoxes() {
  const int n = 25;
  const double a = 0.1, m = 1;
  RigidBodyTree<double> tree("boxes");
  Joint<double> free;
  free.type = JointType::kFloating;
  for (int i = 0; i < n; ++i) {
    free.name = "free" + std::to_string(i);
    tree.AddBody("box" + std::to_string(i), 0, free,
                 SpatialInertia<double>::FromCom(
                     m, Vector3<double>::Zero(),
                     Matrix3<double>::Identity() * m * a * a / 6));
  }
  GeometryModel geometry(tree.num_bodies());
  for (int i = 1; i <= n; ++i) {
    Geometry g;
    g.name = "box" + std::to_string(i);
    g.body = i;
    g.shape = Shape::Box(a, a, a);
    g.properties.friction = 0.5;
    geometry.AddGeometry(g);
  }
  Geometry ground;
  ground.name = "ground";
  ground.shape = Shape::HalfSpace();
  ground.properties.friction = 0.5;
  geometry.AddGeometry(ground);
  TimeSteppingRigidBodySystem plant(tree, geometry, 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = tree.GetZeroConfiguration();
  for (int i = 0; i < n; ++i) {
    // 16 columns 0.12 m apart; the last 9 boxes fall onto the first ones.
    // Heights 0.1 m to 0.33 m, turns 0 to 0.4 rad about the vertical.
    const int cell = i % 16;
    const double yaw = 0.2 * (i % 3);
    q[7 * i + 0] = 0.12 * (cell % 4);
    q[7 * i + 1] = 0.12 * (cell / 4);
    q[7 * i + 2] = 0.1 + 0.15 * (i / 16) + 0.02 * (i % 5);
    q[7 * i + 3] = std::cos(yaw / 2);
    q[7 * i + 6] = std::sin(yaw / 2);
  }
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(6 * n));
  std::printf("25 boxes falling on a plane (h = 1 ms, PGS)\n");
  std::printf("    t   contacts islands sweeps  mean z (m)\n");
  const auto start = std::chrono::steady_clock::now();
  for (int k = 1; k <= 8; ++k) {
    sim.AdvanceTo(0.25 * k);
    const VectorX<double>& x = plant.GetState(sim.get_context());
    const TimeSteppingStepStats& s = plant.GetStepStats(sim.get_context());
    double z = 0;
    for (int i = 0; i < n; ++i) z += x[7 * i + 2] / n;
    std::printf("%5.2f %9d %7d %6d %10.4f\n", 0.25 * k, s.num_contacts,
                s.num_islands, s.pgs_sweeps, z);
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("2000 steps in %.2f s of wall time\n\n", wall);
}

void StandingQuadruped() {
  ContactProperties ground;
  ground.friction = 0.9;
  // Dropped from 7 cm above its standing height.
  const QuadrupedStance s = MakeQuadrupedStance(TERN_MODELS_DIR, 0.5, ground);
  auto motors =
      std::make_shared<TorqueSource<double>>(s.tree, s.joints, 0.0, "motors");
  TimeSteppingOptions plant_options;
  plant_options.state_output = true;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<TimeSteppingRigidBodySystem>(
      s.tree, s.geometry, 1e-3,
      std::vector<std::shared_ptr<const Actuator<double>>>{motors},
      std::vector<std::shared_ptr<const Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
      plant_options);
  ConnectJointPd(&builder, plant, s.select, s.x_des, 300, 10);
  const VectorX<double>& q0 = s.q0;
  const int nv = s.tree.num_velocities();
  auto diagram = builder.Build();
  Simulator<double> sim(*diagram);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), q0,
      VectorX<double>::Zero(nv));
  std::printf("The quadruped dropped on its feet, standing under PD\n");
  std::printf("    t   base z (m)  contacts  solver pivots\n");
  for (int k = 1; k <= 6; ++k) {
    sim.AdvanceTo(0.5 * k);
    const Context<double>& c = plant->GetMyContextFromRoot(sim.get_context());
    const TimeSteppingStepStats& s = plant->GetStepStats(c);
    std::printf("%5.2f %11.4f %9d %14d\n", 0.5 * k, plant->GetState(c)[2],
                s.num_contacts, s.lemke_pivots);
  }
}

}  // namespace

int main() {
  try {
    FallingBoxes();
    StandingQuadruped();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
