// Nanoseconds per call of the analytic derivatives of the dynamics (issue
// 20), on models/arm7.urdf and models/humanoid.urdf with a floating base,
// each call from a new random state (a pool cycled through):
//   rnea   InverseDynamicsDerivatives (dtau/dq, dtau/dv, H)
//   aba    ForwardDynamicsDerivatives (dvdot/dq, dvdot/dv, H^-1)
// against AutoDiffXd through InverseDynamics / ForwardDynamics (seeded on
// q, v and vdot or tau), and, when configured with
// -DTERN_PINOCCHIO_SOURCE=<pinocchio source tree>, against Pinocchio's
// computeRNEADerivatives and computeABADerivatives on the same tree (built
// joint by joint from Tern's, so both libraries see the same bodies; each
// in its own coordinates). Also the RK4 discrete Jacobian of
// RigidBodyDynamicsModel (dt = 0.01) by kAnalytic against kAutoDiff.
// After the Google Benchmark output it prints
//   derivatives: <model> <algorithm> tern/autodiff = X
//   derivatives: <model> <algorithm> tern/pinocchio = X
//   rk4 discrete jacobian: <model> autodiff/analytic speedup = X
//   mass matrix (CRBA): <model> tern/pinocchio = X   (for reference)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/common/timing_reporter.h"
#include "bench/rigid_body/bench_models.h"
#include "tern/common/autodiff.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/dynamics_derivatives.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/rigid_body_model.h"

#ifdef TERN_WITH_PINOCCHIO
#include "bench/rigid_body/pinocchio_side.h"  // NOLINT
#endif

namespace {

using tern::AutoDiffXd;
using tern::KinematicsCache;
using tern::RigidBodyTree;
using tern::VectorX;

constexpr int kPool = 64;

struct Model {
  std::string name;
  RigidBodyTree<double> tree;
  tern::bench::StatePool s;  // random states
};

Model* LoadModel(const std::string& name, const std::string& path) {
  auto* model = new Model{name, tern::ParseUrdfFile(path).tree, {}};
  model->s = tern::bench::RandomStates(model->tree, kPool);
  return model;
}

template <typename Body>
void Loop(benchmark::State& st, Body body) {
  int k = 0;
  for (auto _ : st) {
    body(k);
    k = (k + 1) % kPool;
  }
}

void RegisterAll(Model* M) {
  const std::string p = M->name + "/";
  benchmark::RegisterBenchmark((p + "rnea/tern").c_str(), [M](auto& st) {
    KinematicsCache<double> cache(M->tree);
    tern::DynamicsDerivativesCache<double> d(M->tree);
    Loop(st, [&](int k) {
      tern::InverseDynamicsDerivatives(M->tree, &cache, &d, M->s.q[k],
                                       M->s.v[k], M->s.a[k]);
      benchmark::DoNotOptimize(d.dtau_dq.data());
    });
  });
  benchmark::RegisterBenchmark((p + "aba/tern").c_str(), [M](auto& st) {
    KinematicsCache<double> cache(M->tree);
    tern::DynamicsDerivativesCache<double> d(M->tree);
    Loop(st, [&](int k) {
      tern::ForwardDynamicsDerivatives(M->tree, &cache, &d, M->s.q[k],
                                       M->s.v[k], M->s.tau[k]);
      benchmark::DoNotOptimize(d.dvdot_dq.data());
    });
  });
  benchmark::RegisterBenchmark((p + "crba/tern").c_str(), [M](auto& st) {
    KinematicsCache<double> cache(M->tree);
    Loop(st, [&](int k) {
      benchmark::DoNotOptimize(tern::MassMatrix(M->tree, &cache, M->s.q[k]));
    });
  });
  // AutoDiffXd through the tree, derivatives seeded on [q; v; vdot or tau].
  auto autodiff = [M](bool forward) {
    return [M, forward](benchmark::State& st) {
      const auto tree_ad = tern::CastTree<AutoDiffXd>(M->tree);
      KinematicsCache<AutoDiffXd> cache(tree_ad);
      const int nq = M->tree.num_positions(), nv = M->tree.num_velocities();
      const int nz = nq + 2 * nv;
      Loop(st, [&](int k) {
        const VectorX<AutoDiffXd> q =
            tern::InitializeAutoDiff(M->s.q[k], nz, 0);
        const VectorX<AutoDiffXd> v =
            tern::InitializeAutoDiff(M->s.v[k], nz, nq);
        const VectorX<AutoDiffXd> u = tern::InitializeAutoDiff(
            forward ? M->s.tau[k] : M->s.a[k], nz, nq + nv);
        const VectorX<AutoDiffXd>& y =
            forward ? tern::ForwardDynamics(tree_ad, &cache, q, v, u)
                    : tern::InverseDynamics(tree_ad, &cache, q, v, u);
        benchmark::DoNotOptimize(y(0).derivatives().data());
      });
    };
  };
  benchmark::RegisterBenchmark((p + "rnea/autodiff").c_str(), autodiff(false));
  benchmark::RegisterBenchmark((p + "aba/autodiff").c_str(), autodiff(true));
  auto rk4 = [M](tern::JacobianMethod method) {
    return [M, method](benchmark::State& st) {
      tern::RigidBodyDynamicsModel model(M->tree);
      const int nq = M->tree.num_positions(), nv = M->tree.num_velocities();
      Eigen::MatrixXd J(nq + nv, nq + 2 * nv);
      VectorX<double> x(nq + nv);
      Loop(st, [&](int k) {
        x << M->s.q[k], M->s.v[k];
        tern::DiscreteJacobian<tern::RK4>(model, x, M->s.tau[k], 0.0, 0.01, &J,
                                          method);
        benchmark::DoNotOptimize(J.data());
      });
    };
  };
  benchmark::RegisterBenchmark((p + "rk4_jacobian/analytic").c_str(),
                               rk4(tern::JacobianMethod::kAnalytic));
  benchmark::RegisterBenchmark((p + "rk4_jacobian/autodiff").c_str(),
                               rk4(tern::JacobianMethod::kAutoDiff));
#ifdef TERN_WITH_PINOCCHIO
  tern::bench::RegisterPinocchio(p, M->tree, kPool);
#endif
}

class RatioReporter : public tern::bench::TimingReporter {
 public:
  void PrintRatios(const std::vector<std::string>& models) {
    MergeMedians();
    std::printf("\n");
    auto ratio = [&](const std::string& a, const std::string& b) {
      auto x = ns_.find(a), y = ns_.find(b);
      return (x == ns_.end() || y == ns_.end()) ? -1.0 : x->second / y->second;
    };
    for (const auto& m : models) {
      for (const char* alg : {"rnea", "aba"}) {
        const std::string base = m + "/" + alg + "/";
        for (const char* peer : {"autodiff", "pinocchio"}) {
          const double r = ratio(base + "tern", base + peer);
          if (r > 0) {
            std::printf("derivatives: %s %s tern/%s = %.3f\n", m.c_str(), alg,
                        peer, r);
          }
        }
      }
      const double crba = ratio(m + "/crba/tern", m + "/crba/pinocchio");
      if (crba > 0) {
        std::printf("mass matrix (CRBA): %s tern/pinocchio = %.3f\n", m.c_str(),
                    crba);
      }
      const double s =
          ratio(m + "/rk4_jacobian/autodiff", m + "/rk4_jacobian/analytic");
      if (s > 0) {
        std::printf(
            "rk4 discrete jacobian: %s autodiff/analytic speedup = %.1f\n",
            m.c_str(), s);
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = TERN_MODELS_DIR;
  Model* arm = LoadModel("arm7", dir + "/arm7.urdf");
  Model* humanoid =
      LoadModel("humanoid",
                tern::bench::FloatingVariant(dir + "/humanoid.urdf", "pelvis"));
  RegisterAll(arm);
  RegisterAll(humanoid);
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios({"arm7", "humanoid"});
  benchmark::Shutdown();
  delete arm;
  delete humanoid;
  return 0;
}
