// Discretization speed: ns per call of discrete dynamics, discrete Jacobians
// (fixed-size autodiff, central differences, analytic chain rule) and the
// Hermite-Simpson collocation residual and its Jacobians, for the cart-pole
// (4 states, 1 input) and a quadrotor (13 states with quaternion, 4 inputs).
// After the table it prints the ratio of each Jacobian method to central
// differences, measured in this run.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "tern/systems/analysis/collocation.h"
#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/example_models.h"

namespace {

using tern::JacobianMethod;
using tern::examples::Cartpole;
using tern::examples::Quadrotor;

template <class M>
tern::KnotPointOf<M> Knot();

template <>
tern::KnotPointOf<Cartpole> Knot<Cartpole>() {
  return {Eigen::Vector4d(0.1, 2.0, -0.3, 0.5), tern::Vector<double, 1>(1.2),
          0.0, 0.05};
}

template <>
tern::KnotPointOf<Quadrotor> Knot<Quadrotor>() {
  tern::Vector<double, 13> x;
  x << 0.1, -0.2, 1.0, 0.9, 0.1, -0.2, 0.3, 0.5, 0.1, -0.3, 0.2, -0.4, 0.6;
  x.segment<4>(3).normalize();
  return {x, Eigen::Vector4d(1.3, 1.2, 1.25, 1.22), 0.0, 0.01};
}

template <class M>
void BM_RK4Dynamics(benchmark::State& state) {
  const M model;
  auto z = Knot<M>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(z.mutable_z());
    auto xn = tern::DiscreteDynamics<tern::RK4>(model, z);
    benchmark::DoNotOptimize(xn);
  }
}

template <class M, JacobianMethod kMethod>
void BM_RK4Jacobian(benchmark::State& state) {
  const M model;
  auto z = Knot<M>();
  tern::JacobianOf<M> J;
  for (auto _ : state) {
    benchmark::DoNotOptimize(z.mutable_z());
    tern::DiscreteJacobian<tern::RK4>(model, z, &J, kMethod);
    benchmark::DoNotOptimize(J);
  }
}

template <class M>
void BM_HermiteSimpsonResidual(benchmark::State& state) {
  const M model;
  auto z1 = Knot<M>();
  auto z2 = Knot<M>();
  z2.x() = tern::DiscreteDynamics<tern::RK4>(model, z1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(z1.mutable_z());
    auto r = tern::CollocationResidual<tern::HermiteSimpson>(model, z1, z2);
    benchmark::DoNotOptimize(r);
  }
}

template <class M, JacobianMethod kMethod>
void BM_HermiteSimpsonJacobians(benchmark::State& state) {
  const M model;
  auto z1 = Knot<M>();
  auto z2 = Knot<M>();
  z2.x() = tern::DiscreteDynamics<tern::RK4>(model, z1);
  tern::JacobianOf<M> J1, J2;
  for (auto _ : state) {
    benchmark::DoNotOptimize(z1.mutable_z());
    tern::DiscreteJacobian<tern::HermiteSimpson>(model, z1, z2, &J1, &J2,
                                                 kMethod);
    benchmark::DoNotOptimize(J1);
    benchmark::DoNotOptimize(J2);
  }
}

constexpr auto kAD = JacobianMethod::kAutoDiff;
constexpr auto kFD = JacobianMethod::kCentralDifference;
constexpr auto kAn = JacobianMethod::kAnalytic;

BENCHMARK(BM_RK4Dynamics<Cartpole>)->Name("cartpole/rk4_dynamics");
BENCHMARK(BM_RK4Jacobian<Cartpole, kAD>)
    ->Name("cartpole/rk4_jacobian_autodiff");
BENCHMARK(BM_RK4Jacobian<Cartpole, kFD>)
    ->Name("cartpole/rk4_jacobian_central_fd");
BENCHMARK(BM_RK4Jacobian<Cartpole, kAn>)
    ->Name("cartpole/rk4_jacobian_analytic");
BENCHMARK(BM_HermiteSimpsonResidual<Cartpole>)->Name("cartpole/hs_residual");
BENCHMARK(BM_HermiteSimpsonJacobians<Cartpole, kAD>)
    ->Name("cartpole/hs_jacobians_autodiff");
BENCHMARK(BM_HermiteSimpsonJacobians<Cartpole, kFD>)
    ->Name("cartpole/hs_jacobians_central_fd");
BENCHMARK(BM_HermiteSimpsonJacobians<Cartpole, kAn>)
    ->Name("cartpole/hs_jacobians_analytic");
BENCHMARK(BM_RK4Dynamics<Quadrotor>)->Name("quadrotor/rk4_dynamics");
BENCHMARK(BM_RK4Jacobian<Quadrotor, kAD>)
    ->Name("quadrotor/rk4_jacobian_autodiff");
BENCHMARK(BM_RK4Jacobian<Quadrotor, kFD>)
    ->Name("quadrotor/rk4_jacobian_central_fd");
BENCHMARK(BM_RK4Jacobian<Quadrotor, kAn>)
    ->Name("quadrotor/rk4_jacobian_analytic");
BENCHMARK(BM_HermiteSimpsonResidual<Quadrotor>)->Name("quadrotor/hs_residual");
BENCHMARK(BM_HermiteSimpsonJacobians<Quadrotor, kAD>)
    ->Name("quadrotor/hs_jacobians_autodiff");
BENCHMARK(BM_HermiteSimpsonJacobians<Quadrotor, kFD>)
    ->Name("quadrotor/hs_jacobians_central_fd");
BENCHMARK(BM_HermiteSimpsonJacobians<Quadrotor, kAn>)
    ->Name("quadrotor/hs_jacobians_analytic");

// Console output plus a record of CPU ns per iteration by name: the median
// when --benchmark_repetitions gives one, else the single run. CPU time
// because the shared development machine is loaded and wall time then
// counts other processes' time slices.
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const double ns =
          run.GetAdjustedCPUTime() *
          benchmark::GetTimeUnitMultiplier(benchmark::kNanosecond) /
          benchmark::GetTimeUnitMultiplier(run.time_unit);
      const std::string name = run.run_name.str();
      if (run.run_type == Run::RT_Aggregate) {
        if (run.aggregate_name == "median") {
          ns_[name] = ns;
          from_median_.insert(name);
        }
      } else if (!from_median_.count(name)) {
        ns_[name] = ns;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  const std::map<std::string, double>& ns() const { return ns_; }

 private:
  std::map<std::string, double> ns_;
  std::set<std::string> from_median_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RecordingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto& ns = reporter.ns();
  auto ratio = [&](const std::string& a, const std::string& b) {
    if (ns.count(a) && ns.count(b)) {
      std::printf("%-36s / %-36s = %.2f\n", a.c_str(), b.c_str(),
                  ns.at(a) / ns.at(b));
    }
  };
  std::printf(
      "\nRatios (CPU time / CPU time of central differences, same run):\n");
  for (const char* model : {"cartpole", "quadrotor"}) {
    const std::string m = model;
    ratio(m + "/rk4_jacobian_autodiff", m + "/rk4_jacobian_central_fd");
    ratio(m + "/rk4_jacobian_analytic", m + "/rk4_jacobian_central_fd");
    ratio(m + "/hs_jacobians_autodiff", m + "/hs_jacobians_central_fd");
    ratio(m + "/hs_jacobians_analytic", m + "/hs_jacobians_central_fd");
  }
  benchmark::Shutdown();
  return 0;
}
