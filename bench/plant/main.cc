// Cost of RigidBodySystem's time derivatives against the bare
// articulated-body algorithm on the same model, in one run: models/arm7.urdf
// (fixed base) and models/humanoid.urdf (floating base). "plant" is the
// plant with no actuators evaluated through System::CalcTimeDerivatives
// (state read from the Context, ABA, qdot = N(q) v, written to xdot);
// "plant_gf" adds a GeneralizedForce actuator (nv commands from an input
// port); "aba" is ForwardDynamics alone with the same q, v, tau. Prints
//   plant overhead: arm7 X, humanoid Y
// (plant / aba, goal <= 1.2), using medians with --benchmark_repetitions.
// The configuration is random but inside every joint's limits. Then the
// real-time factor of the quadruped standing on CompliantContact under
// joint PD control with the Simulator's default integrator.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "bench/common/timing_reporter.h"
#include "examples/quadruped/quadruped_stance.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/compliant_contact.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/pid_controller.h"

namespace {

using tern::VectorX;

struct Model {
  std::string name;
  tern::RigidBodyTree<double> tree;
  VectorX<double> q, v, tau;
};

Model Load(const std::string& name, const std::string& path, bool floating) {
  tern::UrdfParseOptions options;
  options.floating_base = floating;
  options.require_meshes = false;
  Model m{name, tern::ParseUrdfFile(path, options).tree, {}, {}, {}};
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  m.q = m.tree.GetZeroConfiguration();
  for (int i = 0; i < m.q.size(); ++i) m.q[i] += u(gen);
  tern::NormalizeQuaternions(m.tree, &m.q);
  // Inside every joint's range, so that no limit is active (the plant's
  // common case; an active limit adds the constrained solve).
  for (const auto& b : m.tree.bodies()) {
    if (b.num_positions != 1) continue;
    double& qi = m.q[b.position_start];
    qi = std::clamp(qi, b.joint.position_lower + 0.1,
                    b.joint.position_upper - 0.1);
  }
  m.v.resize(m.tree.num_velocities());
  m.tau.resize(m.tree.num_velocities());
  for (int i = 0; i < m.v.size(); ++i) {
    m.v[i] = u(gen);
    m.tau[i] = u(gen);
  }
  return m;
}

void RegisterAll(const Model* m) {
  benchmark::RegisterBenchmark(
      (m->name + "/aba").c_str(), [m](benchmark::State& state) {
        tern::KinematicsCache<double> cache(m->tree);
        for (auto _ : state) {
          benchmark::DoNotOptimize(
              tern::ForwardDynamics(m->tree, &cache, m->q, m->v, m->tau));
        }
      });
  for (bool with_actuator : {false, true}) {
    const std::string name = m->name + (with_actuator ? "/plant_gf" : "/plant");
    benchmark::RegisterBenchmark(
        name.c_str(), [m, with_actuator](benchmark::State& state) {
          std::vector<std::shared_ptr<const tern::Actuator<double>>> acts;
          if (with_actuator) {
            acts.push_back(
                std::make_shared<tern::GeneralizedForce<double>>(m->tree));
          }
          tern::RigidBodySystem<double> plant(m->tree, acts);
          auto context = plant.CreateDefaultContext();
          plant.SetPositionsAndVelocities(context.get(), m->q, m->v);
          if (with_actuator) {
            plant.get_input_port(0).FixValue(context.get(), m->tau);
          }
          VectorX<double> xdot(plant.num_continuous_states());
          for (auto _ : state) {
            plant.CalcTimeDerivatives(*context, &xdot);
            benchmark::DoNotOptimize(xdot.data());
          }
        });
  }
}

class RatioReporter : public tern::bench::TimingReporter {
 public:
  double Ratio(const std::string& model, const std::string& what) {
    MergeMedians();
    auto p = ns_.find(model + "/" + what), a = ns_.find(model + "/aba");
    if (p == ns_.end() || a == ns_.end()) return -1;
    return p->second / a->second;
  }
};

// The shipped quadruped standing on CompliantContact under joint PD control
// (as in the plant test), simulated for `duration` s with the Simulator's
// default integrator; returns simulated time / wall time.
double QuadrupedRealTimeFactor(const std::string& dir, double duration,
                               long* steps) {
  const tern::QuadrupedStance s =
      tern::MakeQuadrupedStance(dir, tern::QuadrupedFeetOnGroundHeight() - 2e-4,
                                tern::ContactProperties{0.9, 0.0, 2e5, 500});
  const VectorX<double>& q0 = s.q0;
  const int nv = s.tree.num_velocities();
  tern::RigidBodySystemOptions plant_options;
  plant_options.state_output = true;
  tern::DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<tern::RigidBodySystem<double>>(
      s.tree,
      std::vector<std::shared_ptr<const tern::Actuator<double>>>{
          std::make_shared<tern::TorqueSource<double>>(s.tree, s.joints, 0.0,
                                                       "motors"),
          std::make_shared<tern::CompliantContact>(s.tree, s.geometry)},
      std::vector<std::shared_ptr<const tern::Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const tern::ContinuousTimeConstraintForce<double>>>{},
      plant_options);
  tern::ConnectJointPd(&builder, plant, s.select, s.x_des, 300, 10);
  auto diagram = builder.Build();
  tern::Simulator<double> sim(*diagram);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), q0,
      VectorX<double>::Zero(nv));
  const auto start = std::chrono::steady_clock::now();
  sim.AdvanceTo(duration);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  *steps = static_cast<long>(sim.get_statistics().steps);
  const double z = plant->GetMyContextFromRoot(sim.get_context())
                       .get_continuous_state_vector()[2];
  if (!(z > 0.8 * q0[2])) std::printf("warning: the quadruped fell\n");
  return duration / wall;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = TERN_MODELS_DIR;
  const Model arm = Load("arm7", dir + "/arm7.urdf", false);
  const Model humanoid = Load("humanoid", dir + "/humanoid.urdf", true);
  RegisterAll(&arm);
  RegisterAll(&humanoid);
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("plant overhead: arm7 %.2f, humanoid %.2f\n",
              reporter.Ratio("arm7", "plant"),
              reporter.Ratio("humanoid", "plant"));
  std::printf(
      "plant overhead with a GeneralizedForce actuator: arm7 %.2f, "
      "humanoid %.2f\n",
      reporter.Ratio("arm7", "plant_gf"),
      reporter.Ratio("humanoid", "plant_gf"));
  long steps = 0;
  const double rtf = QuadrupedRealTimeFactor(dir, 2.0, &steps);
  std::printf(
      "quadruped standing on compliant contact, default integrator: "
      "real-time factor %.2f (%ld steps over 2 s)\n",
      rtf, steps);
  benchmark::Shutdown();
  return 0;
}
