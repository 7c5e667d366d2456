// A robot landing and standing: the shipped quadruped (models/quadruped.urdf)
// is dropped from 10 cm above its standing height onto the ground, lands on
// its four feet and stands under joint PD control (kp = 300 N m/rad, kd = 10
// N m s/rad, a PidController wired through the plant's "state" output). The
// same scene runs on both plants:
//  1. RigidBodySystem (continuous time) with CompliantContact (k = 2e5 N/m,
//     b = 500 N s/m per foot, mu = 0.9), integrated by dopri5 with error
//     control (rtol = atol = 1e-5): the step shrinks at the touch-down and
//     grows again once the robot stands.
//  2. TimeSteppingRigidBodySystem with its default options, h = 1 ms.
// Prints the base height, the lowest foot's penetration and the number of
// feet in contact every 0.1 s, then the standing height of each plant next
// to the height at which the feet just touch (QuadrupedFeetOnGroundHeight).
//
//   robot_landing
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "examples/quadruped/quadruped_stance.h"
#include "tern/multibody/plant/compliant_contact.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/systems/analysis/simulator.h"

using namespace tern;

namespace {

using ActuatorList = std::vector<std::shared_ptr<const Actuator<double>>>;
using SensorList = std::vector<std::shared_ptr<const Sensor<double>>>;
using ConstraintList =
    std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>;

constexpr double kDrop = 0.10;  // m above the standing height
constexpr double kEnd = 2.0;    // s

// The lowest point of the robot's geometry (m) and the number of feet
// below z = 0 (in contact) at positions q.
void Feet(const QuadrupedStance& s, const VectorX<double>& q, double* lowest,
          int* touching) {
  KinematicsCache<double> cache(s.tree);
  ForwardKinematics(s.tree, &cache, q);
  GeometryWorkspace ws(s.geometry);
  UpdateGeometryPoses(s.geometry, cache.X_WB, &ws);
  *lowest = 1e9;
  *touching = 0;
  for (int g = 0; g < s.geometry.num_geometries(); ++g) {
    if (s.geometry.geometry(g).shape.kind == ShapeKind::kHalfSpace) continue;
    *lowest = std::min(*lowest, ws.aabb_lo[g].z());
    if (ws.aabb_lo[g].z() < 1e-6) ++*touching;
  }
}

// Runs the diagram, printing every 0.1 s; returns the final base height.
// positions(c): the plant's q in its context c.
template <class Plant, class Positions>
double Run(const char* title, const QuadrupedStance& s, Plant* plant,
           Simulator<double>* sim, Positions positions) {
  std::printf("%s\n    t   base z (m)  lowest point (mm)  feet down\n", title);
  const auto start = std::chrono::steady_clock::now();
  double z = 0;
  for (int k = 1; k <= static_cast<int>(kEnd / 0.1 + 0.5); ++k) {
    sim->AdvanceTo(0.1 * k);
    const Context<double>& c = plant->GetMyContextFromRoot(sim->get_context());
    const VectorX<double> q = positions(c);
    double lowest;
    int touching;
    Feet(s, q, &lowest, &touching);
    z = q[2];
    if (k % 2 == 1 || k <= 6) {
      std::printf("%5.2f %11.4f %18.2f %10d\n", 0.1 * k, z, 1e3 * lowest,
                  touching);
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%.1f s simulated in %.2f s of wall time, %lld steps\n\n", kEnd,
              wall, static_cast<long long>(sim->get_statistics().steps));
  return z;
}

double Continuous(const QuadrupedStance& s) {
  auto motors =
      std::make_shared<TorqueSource<double>>(s.tree, s.joints, 0.0, "motors");
  auto contact = std::make_shared<CompliantContact>(s.tree, s.geometry);
  RigidBodySystemOptions options;
  options.state_output = true;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<RigidBodySystem<double>>(
      s.tree, ActuatorList{motors, contact}, SensorList{}, ConstraintList{},
      options);
  ConnectJointPd(&builder, plant, s.select, s.x_des, 300, 10);
  auto diagram = builder.Build();
  Simulator<double> sim(*diagram);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), s.q0,
      VectorX<double>::Zero(s.tree.num_velocities()));
  IntegratorSettings settings;
  settings.rtol = settings.atol = 1e-5;
  sim.reset_integrator("dopri5", settings);
  const int nq = s.tree.num_positions();
  return Run("Continuous plant, compliant contact, dopri5", s, plant, &sim,
             [nq](const Context<double>& c) {
               return VectorX<double>(c.get_continuous_state_vector().head(nq));
             });
}

double TimeStepping(const QuadrupedStance& s) {
  auto motors =
      std::make_shared<TorqueSource<double>>(s.tree, s.joints, 0.0, "motors");
  TimeSteppingOptions options;
  options.state_output = true;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<TimeSteppingRigidBodySystem>(
      s.tree, s.geometry, 1e-3, ActuatorList{motors}, SensorList{},
      ConstraintList{}, options);
  ConnectJointPd(&builder, plant, s.select, s.x_des, 300, 10);
  auto diagram = builder.Build();
  Simulator<double> sim(*diagram);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), s.q0,
      VectorX<double>::Zero(s.tree.num_velocities()));
  const int nq = s.tree.num_positions();
  return Run("Time-stepping plant, default options, h = 1 ms", s, plant, &sim,
             [plant, nq](const Context<double>& c) {
               return VectorX<double>(plant->GetState(c).head(nq));
             });
}

}  // namespace

int main() {
  try {
    ContactProperties ground{0.9, 0.0, 2e5, 500};
    const double touch = QuadrupedFeetOnGroundHeight();
    const QuadrupedStance s =
        MakeQuadrupedStance(TERN_MODELS_DIR, touch + kDrop, ground);
    std::printf("The quadruped dropped from %.2f m above standing height\n\n",
                kDrop);
    const double z_continuous = Continuous(s);
    const double z_stepping = TimeStepping(s);
    std::printf(
        "standing base height: continuous %.4f m, time-stepping %.4f "
        "m, feet just touching %.4f m\n",
        z_continuous, z_stepping, touch);
    // Both stand: the base within 3 cm of the touching height (the legs
    // give a little under PD, the compliant feet sink by m g / (4 k)).
    if (std::abs(z_continuous - touch) > 0.03 ||
        std::abs(z_stepping - touch) > 0.03) {
      std::fprintf(stderr, "error: the robot did not land on its feet\n");
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
