// Nanoseconds per call of forward kinematics, mass matrix, inverse dynamics
// and forward dynamics, Tern against MuJoCo in the same process on the same
// URDF (models/arm7.urdf, and models/humanoid.urdf with a floating base),
// each call from a new random state (a pool of states cycled through).
//
// MuJoCo calls, with contacts and constraints disabled:
//   FK   mj_kinematics
//   H    mj_kinematics + mj_comPos + mj_crb      (what a new q needs; the
//        bare mj_crb on stale kinematics is printed too, for reference)
//   ID   mj_kinematics + mj_comPos + mj_comVel + mj_rne(flg_acc = 1)
//   FD   mj_fwdPosition + mj_fwdVelocity + mj_fwdAcceleration
// Tern: ForwardKinematics(q), MassMatrix, InverseDynamics, ForwardDynamics,
// each of which computes from q (and v) everything it needs.
// After the Google Benchmark output, a table gives Tern / MuJoCo per row.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/timing_reporter.h"
#include "bench/rigid_body/bench_models.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

namespace {

using tern::KinematicsCache;
using tern::RigidBodyTree;
using tern::VectorX;

constexpr int kPool = 256;

struct Model {
  std::string name;
  RigidBodyTree<double> tree;
  mjModel* m{nullptr};
  // Random states, in each library's own coordinates (same q; v, vdot, tau
  // random in each, which is what the timing needs).
  std::vector<VectorX<double>> q, v, a, tau;
};

Model* LoadModel(const std::string& name, const std::string& path) {
  auto* model =
      new Model{name, tern::ParseUrdfFile(path).tree, nullptr, {}, {}, {}, {}};
  char err[1000] = "";
  model->m = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
  if (model->m == nullptr) {
    std::fprintf(stderr, "MuJoCo cannot load %s: %s\n", path.c_str(), err);
    std::exit(1);
  }
  model->m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_CONTACT;
  tern::bench::StatePool pool = tern::bench::RandomStates(model->tree, kPool);
  model->q = std::move(pool.q);
  model->v = std::move(pool.v);
  model->a = std::move(pool.a);
  model->tau = std::move(pool.tau);
  return model;
}

void SetMujocoState(const Model& model, mjData* d, int k) {
  const mjModel* m = model.m;
  mju_copy(d->qpos, model.q[k].data(), m->nq);
  mju_copy(d->qvel, model.v[k].data(), m->nv);
}

void RegisterAll(Model* model) {
  const std::string p = model->name + "/";
  auto tern_bench = [model](auto body) {
    return [model, body](benchmark::State& st) {
      KinematicsCache<double> cache(model->tree);
      int k = 0;
      for (auto _ : st) {
        body(*model, &cache, k);
        k = (k + 1) & (kPool - 1);
      }
    };
  };
  auto mj_bench = [model](auto body) {
    return [model, body](benchmark::State& st) {
      mjData* d = mj_makeData(model->m);
      int k = 0;
      for (auto _ : st) {
        SetMujocoState(*model, d, k);
        body(*model, d, k);
        benchmark::DoNotOptimize(d->qacc);
        k = (k + 1) & (kPool - 1);
      }
      mj_deleteData(d);
    };
  };
  using C = KinematicsCache<double>;
  benchmark::RegisterBenchmark((p + "FK/tern").c_str(),
                               tern_bench([](const Model& M, C* c, int k) {
                                 tern::ForwardKinematics(M.tree, c, M.q[k]);
                                 benchmark::DoNotOptimize(c->X_WB.back());
                               }));
  benchmark::RegisterBenchmark(
      (p + "FK/mujoco").c_str(),
      mj_bench([](const Model& M, mjData* d, int) { mj_kinematics(M.m, d); }));
  benchmark::RegisterBenchmark(
      (p + "MassMatrix/tern").c_str(),
      tern_bench([](const Model& M, C* c, int k) {
        benchmark::DoNotOptimize(tern::MassMatrix(M.tree, c, M.q[k]).data());
      }));
  benchmark::RegisterBenchmark((p + "MassMatrix/mujoco").c_str(),
                               mj_bench([](const Model& M, mjData* d, int) {
                                 mj_kinematics(M.m, d);
                                 mj_comPos(M.m, d);
                                 mj_crb(M.m, d);
                               }));
  benchmark::RegisterBenchmark(
      (p + "MassMatrix/mujoco_crb_only").c_str(),
      mj_bench([](const Model& M, mjData* d, int) { mj_crb(M.m, d); }));
  benchmark::RegisterBenchmark(
      (p + "InverseDynamics/tern").c_str(),
      tern_bench([](const Model& M, C* c, int k) {
        benchmark::DoNotOptimize(
            tern::InverseDynamics(M.tree, c, M.q[k], M.v[k], M.a[k]).data());
      }));
  benchmark::RegisterBenchmark((p + "InverseDynamics/mujoco").c_str(),
                               mj_bench([](const Model& M, mjData* d, int k) {
                                 mju_copy(d->qacc, M.a[k].data(), M.m->nv);
                                 mj_kinematics(M.m, d);
                                 mj_comPos(M.m, d);
                                 mj_comVel(M.m, d);
                                 mj_rne(M.m, d, 1, d->qfrc_inverse);
                               }));
  benchmark::RegisterBenchmark(
      (p + "ForwardDynamics/tern").c_str(),
      tern_bench([](const Model& M, C* c, int k) {
        benchmark::DoNotOptimize(
            tern::ForwardDynamics(M.tree, c, M.q[k], M.v[k], M.tau[k]).data());
      }));
  benchmark::RegisterBenchmark((p + "ForwardDynamics/mujoco").c_str(),
                               mj_bench([](const Model& M, mjData* d, int k) {
                                 mju_copy(d->qfrc_applied, M.tau[k].data(),
                                          M.m->nv);
                                 mj_fwdPosition(M.m, d);
                                 mj_fwdVelocity(M.m, d);
                                 mj_fwdAcceleration(M.m, d);
                               }));
}

// Records ns per iteration of every run, then prints Tern / MuJoCo.
class RatioReporter : public tern::bench::TimingReporter {
 public:
  void PrintRatios(const std::vector<std::string>& models) {
    MergeMedians();
    std::printf("\n%-10s %-16s %10s %10s %8s\n", "model", "algorithm",
                "tern ns", "mujoco ns", "ratio");
    for (const auto& model : models) {
      for (const char* alg :
           {"FK", "MassMatrix", "InverseDynamics", "ForwardDynamics"}) {
        const std::string base = model + "/" + alg + "/";
        auto t = ns_.find(base + "tern"), m = ns_.find(base + "mujoco");
        if (t == ns_.end() || m == ns_.end()) continue;
        std::printf("%-10s %-16s %10.0f %10.0f %8.2f\n", model.c_str(), alg,
                    t->second, m->second, t->second / m->second);
      }
      auto crb = ns_.find(model + "/MassMatrix/mujoco_crb_only");
      auto t = ns_.find(model + "/MassMatrix/tern");
      if (crb != ns_.end() && t != ns_.end()) {
        std::printf(
            "%-10s %-16s %10.0f %10.0f %8.2f  (mj_crb alone, stale "
            "kinematics)\n",
            model.c_str(), "MassMatrix", t->second, crb->second,
            t->second / crb->second);
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
  std::printf("arm7: nv = %d; humanoid: nv = %d (floating base + %d joints)\n",
              arm->tree.num_velocities(), humanoid->tree.num_velocities(),
              humanoid->tree.num_velocities() - 6);
  RegisterAll(arm);
  RegisterAll(humanoid);
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios({"arm7", "humanoid"});
  benchmark::Shutdown();
  for (Model* m : {arm, humanoid}) {
    mj_deleteModel(m->m);
    delete m;
  }
  return 0;
}
