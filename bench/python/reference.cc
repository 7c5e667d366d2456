// The C++ side of bench/python/bench_python.py: the cost of one
// ForwardDynamics call on models/arm7.urdf and of one Simulator step of a
// one-state C++ leaf system (an Integrator fed by a constant) with a fixed
// RK4 step, each as the best over 5 repetitions of a timed loop, printed as
// "name ns_per_call". Same inputs as the Python side. Both sides time the
// process's CPU time, not the wall clock: on a machine shared with other
// jobs the wall clock counts the time this process waits for a core.
//   python_bench_reference <arm7.urdf>
#include <algorithm>
#include <cstdio>
#include <ctime>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/integrator.h"

namespace {

double CpuNs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e9 * static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec);
}

template <class F>
double BestNsPerCall(int n, F&& f) {
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = CpuNs();
    for (int i = 0; i < n; ++i) f(i);
    best = std::min(best, (CpuNs() - t0) / n);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s arm7.urdf\n", argv[0]);
    return 2;
  }
  const tern::UrdfModel model = tern::ParseUrdfFile(argv[1]);
  tern::KinematicsCache<double> cache(model.tree);
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(7, 0.3);
  const Eigen::VectorXd v = Eigen::VectorXd::Constant(7, 0.1);
  const Eigen::VectorXd tau = Eigen::VectorXd::Constant(7, 0.5);
  double sink = 0;
  const double fd = BestNsPerCall(20000, [&](int) {
    sink += tern::ForwardDynamics(model.tree, &cache, q, v, tau)[0];
  });
  std::printf("forward_dynamics_arm7 %.1f\n", fd);

  tern::DiagramBuilder<double> builder;
  auto* source = builder.AddSystem<tern::ConstantVectorSource<double>>(
      Eigen::VectorXd::Constant(1, 0.5));
  auto* integrator = builder.AddSystem<tern::Integrator<double>>(1);
  builder.Connect(*source, *integrator);
  auto diagram = builder.Build();
  tern::Simulator<double> simulator(*diagram);
  tern::IntegratorSettings settings;
  settings.fixed_step = 1e-3;
  simulator.reset_integrator("rk4", settings);
  simulator.Initialize();
  double t = 0;
  const double step = BestNsPerCall(20000, [&](int) {
    t += 1e-3;
    simulator.AdvanceTo(t);
  });
  std::printf("simulator_step_cpp_leaf %.1f\n", step);
  return sink == 12345.678 ? 1 : 0;
}
