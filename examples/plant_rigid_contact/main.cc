// Rigid contact in a RigidBodySystem (docs/plant.md, "Contact"): three
// scenes on a ground plane, each a free body with one collision geometry.
//  1. A ball with restitution 0.8 dropped from 1 m: the impact witness and
//     the Newton impact law give apex heights h_{k+1} = e^2 h_k.
//  2. A box pushed at 2 m/s with mu = 0.5: it slides to rest after
//     v0^2 / (2 mu g), then sticks; its four corners carry its weight
//     (the plant's contact_forces output).
//  3. The Painlevé rod: a rod at 45 degrees sliding on its lower end with
//     mu = 2 has no consistent contact force; the plant says so.
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/plant/contact_common.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/rigid_contact.h"
#include "tern/systems/analysis/simulator.h"

namespace {

using tern::Vector3;
using tern::VectorX;
constexpr double kG = 9.81;

struct Scene {
  tern::RigidBodyTree<double> tree{"scene"};
  tern::GeometryModel model;
  // A free body `name` of mass 1 kg and inertia i (about each axis) with
  // geometry `shape` at X_BG, friction mu and restitution e, over the plane.
  Scene(const std::string& name, double i, tern::Shape shape, double mu,
        double e, const tern::RigidTransform<double>& X_BG = {}) {
    tern::Joint<double> j;
    j.name = "floating";
    j.type = tern::JointType::kFloating;
    tree.AddBody(name, 0, j,
                 tern::SpatialInertia<double>::FromCom(
                     1.0, Vector3<double>::Zero(),
                     tern::Matrix3<double>::Identity() * i));
    model = tern::GeometryModel(tree.num_bodies());
    tern::Geometry g;
    g.name = "ground";
    g.shape = tern::Shape::HalfSpace();
    g.properties.friction = mu;
    model.AddGeometry(g);
    g.name = name;
    g.body = 1;
    g.X_BG = X_BG;
    g.shape = shape;
    g.properties.restitution = e;
    model.AddGeometry(g);
  }
  std::unique_ptr<tern::RigidBodySystem<double>> Plant() const {
    tern::RigidBodySystemOptions options;
    options.rigid_contact = std::make_shared<tern::RigidContact>(tree, model);
    options.contact_force_output_capacity = 4;
    return std::make_unique<tern::RigidBodySystem<double>>(
        tree, std::vector<std::shared_ptr<const tern::Actuator<double>>>{},
        std::vector<std::shared_ptr<const tern::Sensor<double>>>{},
        std::vector<std::shared_ptr<
            const tern::ContinuousTimeConstraintForce<double>>>{},
        options);
  }
};

// q of a free body: position, then the quaternion (w, x, y, z).
VectorX<double> Pose(double x, double z, double pitch = 0) {
  VectorX<double> q(7);
  q << x, 0, z, std::cos(pitch / 2), 0, std::sin(pitch / 2), 0;
  return q;
}

void BouncingBall() {
  const double e = 0.8, r = 0.1;
  Scene scene("ball", 0.004, tern::Shape::Sphere(r), 0.5, e);
  auto plant = scene.Plant();
  tern::Simulator<double> sim(*plant);
  plant->SetPositionsAndVelocities(&sim.get_mutable_context(), Pose(0, r + 1.0),
                                   VectorX<double>::Zero(6));
  sim.reset_integrator<tern::RK4>(5e-3);
  std::printf("1. ball, e = %.1f: apex heights (m)\n", e);
  std::printf("   bounce   simulated      e^2 law\n");
  double apex = 1.0, law = 1.0;
  for (int k = 1, bounce = 1; k <= 600 && bounce <= 6; ++k) {
    sim.AdvanceTo(5e-3 * k);
    const auto x = sim.get_context().get_continuous_state_vector();
    const double h = x[2] - r + x[7 + 5] * x[7 + 5] / (2 * kG);
    if (std::abs(h - apex) > 1e-9) {
      apex = h;
      law *= e * e;
      std::printf("   %6d   %.9f    %.9f\n", bounce++, apex, law);
    }
  }
}

void SlidingBox() {
  const double mu = 0.5, v0 = 2.0;
  Scene scene("box", 0.01 / 6, tern::Shape::Box(0.1, 0.1, 0.1), mu, 0);
  auto plant = scene.Plant();
  tern::Simulator<double> sim(*plant);
  VectorX<double> v = VectorX<double>::Zero(6);
  v[3] = v0;
  plant->SetPositionsAndVelocities(&sim.get_mutable_context(), Pose(0, 0.05),
                                   v);
  tern::IntegratorSettings settings;
  settings.rtol = settings.atol = 1e-8;
  sim.reset_integrator("dopri5", settings);
  sim.AdvanceTo(1.0);
  const auto x = sim.get_context().get_continuous_state_vector();
  std::printf(
      "2. box, mu = %.1f, pushed at %.1f m/s: stopped at x = %.6f m "
      "(v0^2 / (2 mu g) = %.6f m), speed %.1e m/s\n",
      mu, v0, x[0], v0 * v0 / (2 * mu * kG), x.tail<6>().norm());
  const VectorX<double> y = plant->get_output_port(0).Eval(sim.get_context());
  std::printf("   contact_forces: %d contacts\n", static_cast<int>(y[0]));
  for (int k = 0; k < static_cast<int>(y[0]); ++k) {
    const double* rec = y.data() + 1 + tern::kContactRecordSize * k;
    std::printf(
        "   at (%+.3f, %+.3f, %+.3f) m: force (%+.4f, %+.4f, %+.4f) N\n",
        rec[0], rec[1], rec[2], rec[6], rec[7], rec[8]);
  }
}

void PainleveRod() {
  const double l = 0.5;
  tern::RigidTransform<double> X_BG;
  X_BG.p = Vector3<double>(-l, 0, 0);
  Scene scene("rod", 1.0 / 12, tern::Shape::Sphere(1e-3), 2.0, 0, X_BG);
  auto plant = scene.Plant();
  auto context = plant->CreateDefaultContext();
  const double pitch = -std::numbers::pi / 4;  // lower end at -x
  VectorX<double> v = VectorX<double>::Zero(6);
  // World velocity (-1, 0, 0) in the body frame.
  v[3] = -std::cos(pitch);
  v[5] = -std::sin(pitch);
  plant->SetPositionsAndVelocities(
      context.get(), Pose(0, l * std::sqrt(0.5) + 1e-3, pitch), v);
  VectorX<double> xdot(13);
  try {
    plant->CalcTimeDerivatives(*context, &xdot);
    std::printf("3. Painlevé rod: no error (unexpected)\n");
  } catch (const std::runtime_error& error) {
    std::printf("3. Painlevé rod, mu = 2:\n   %s\n", error.what());
  }
}

}  // namespace

int main() {
  BouncingBall();
  SlidingBox();
  PainleveRod();
  return 0;
}
