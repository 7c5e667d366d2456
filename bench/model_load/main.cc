// MJCF loading: Tern's ParseMjcfFile against MuJoCo 2.2.2's mj_loadXML
// (Debian libmujoco-dev) on the sample humanoid (libmujoco-samples), the same
// file in the same process.
//   tern    ParseMjcfFile: XML, defaults, bodies and joint chains, inertia
//           from geoms, actuators; the tree is ready for the algorithms
//   mujoco  mj_loadXML: XML, compile (which also builds what Tern's tree
//           does not hold: collision bounds, solver parameters, ...)
// After the Google Benchmark output: `mjcf load: tern/mujoco = X` (CPU
// time per load; the goal is <= 1.0).
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "bench/common/timing_reporter.h"
#include "tern/multibody/parsing/mjcf_parser.h"

namespace tern {
namespace {

const std::string kHumanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";

void BM_TernMjcf(benchmark::State& state) {
  for (auto _ : state) {
    MjcfModel m = ParseMjcfFile(kHumanoid);
    benchmark::DoNotOptimize(m.tree.num_velocities());
  }
}
BENCHMARK(BM_TernMjcf)->Name("mjcf_load/humanoid/tern");

void BM_MujocoLoadXml(benchmark::State& state) {
  char err[1000] = "";
  for (auto _ : state) {
    mjModel* m = mj_loadXML(kHumanoid.c_str(), nullptr, err, sizeof(err));
    if (m == nullptr) {
      state.SkipWithError(err);
      return;
    }
    benchmark::DoNotOptimize(m->nv);
    mj_deleteModel(m);
  }
}
BENCHMARK(BM_MujocoLoadXml)->Name("mjcf_load/humanoid/mujoco");

class Reporter : public bench::TimingReporter {
 public:
  void Finalize() override {
    ConsoleReporter::Finalize();
    MergeMedians();
    const double tern = ns_["mjcf_load/humanoid/tern"];
    const double mujoco = ns_["mjcf_load/humanoid/mujoco"];
    if (tern > 0 && mujoco > 0) {
      std::printf("humanoid: tern %.3f ms, mujoco %.3f ms per load\n",
                  tern * 1e-6, mujoco * 1e-6);
      std::printf("mjcf load: tern/mujoco = %.2f\n", tern / mujoco);
    }
  }
};

}  // namespace
}  // namespace tern

int main(int argc, char** argv) {
  if (!std::filesystem::exists(tern::kHumanoid)) {
    std::printf("skip: %s not found (libmujoco-samples)\n",
                tern::kHumanoid.c_str());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  tern::Reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
