// URDF + mesh loading: Tern's ParseUrdfFile against DART 6.12's
// dart::utils::DartLoader (Debian libdart-utils-urdf-dev) on the robots that
// dart-doc ships, the same files in the same process.
//   tern       ParseUrdfFile as a user calls it: links, joints, inertias, the
//              collision meshes read (assimp) and welded, visual meshes
//              resolved but not read (the report reads them later)
//   tern_all   the same plus every visual mesh read, so that the meshes read
//              are those DART reads (DART builds a shape for every visual
//              and collision mesh at load)
//   dart       DartLoader::parseSkeleton (urdfdom, then a Skeleton with a
//              MeshShape, i.e. an aiScene, per visual and collision mesh)
//   tern_bare  ParseUrdfFile without reading any mesh (the parser alone)
// After the Google Benchmark output: per robot ms per load, us per mesh
// triangle read and the ratio to DART, then `urdf load: tern/dart = X`, the
// worst robot's ratio for `tern_all` (like for like; the goal is <= 1.0).
// The times are CPU times (the machine is shared).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <dart/utils/urdf/DartLoader.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/common/timing_reporter.h"
#include "tern/multibody/parsing/mesh_reader.h"
#include "tern/multibody/parsing/urdf_parser.h"

namespace tern {
namespace {

const std::string kData = TERN_DART_DATA_DIR;

struct Robot {
  std::string name;
  std::string urdf;
  bool floating;
};

const std::vector<Robot>& Corpus() {
  static const std::vector<Robot> robots = {
      {"wam", kData + "/urdf/wam/wam.urdf", false},
      {"kr5", kData + "/urdf/KR5/KR5 sixx R650.urdf", false},
      {"drchubo", kData + "/urdf/drchubo/drchubo.urdf", true},
      {"atlas", kData + "/sdf/atlas/atlas_v3_no_head.urdf", true},
  };
  return robots;
}

UrdfParseOptions TernOptions(const Robot& r) {
  UrdfParseOptions o;
  o.floating_base = r.floating;
  o.packages.Add("herb_description", kData + "/urdf/wam");
  o.packages.Add("drchubo", kData + "/urdf/drchubo");
  o.discover_packages = false;
  return o;
}

// Triangles of every mesh the robot's file names (visual and collision), as
// Tern reads them.
long CountTriangles(const UrdfModel& m, bool visual) {
  long n = 0;
  for (int b = 0; b < m.tree.num_bodies(); ++b) {
    for (const auto& g : m.tree.body(b).collisions) {
      if (g.mesh) n += static_cast<long>(g.mesh->triangles.size());
    }
    if (!visual) continue;
    for (const auto& g : m.tree.body(b).visuals) {
      if (g.shape == BodyGeometry::Shape::kMesh) {
        n += static_cast<long>(
            ReadMeshFile(g.mesh_path, g.mesh_scale)->triangles.size());
      }
    }
  }
  return n;
}

void Tern(benchmark::State& state, const Robot* r, bool all_meshes) {
  const UrdfParseOptions options = TernOptions(*r);
  long triangles = 0;
  for (auto _ : state) {
    UrdfModel m = ParseUrdfFile(r->urdf, options);
    if (all_meshes) {
      for (int b = 0; b < m.tree.num_bodies(); ++b) {
        for (const auto& g : m.tree.body(b).visuals) {
          if (g.shape != BodyGeometry::Shape::kMesh) continue;
          benchmark::DoNotOptimize(ReadMeshFile(g.mesh_path, g.mesh_scale));
        }
      }
    }
    benchmark::DoNotOptimize(m);
  }
  triangles = CountTriangles(ParseUrdfFile(r->urdf, options), all_meshes);
  state.counters["triangles"] = static_cast<double>(triangles);
}

// The parser alone: no mesh file read (meshes still resolved).
void TernBare(benchmark::State& state, const Robot* r) {
  UrdfParseOptions options = TernOptions(*r);
  options.load_collision_meshes = false;
  for (auto _ : state) {
    UrdfModel m = ParseUrdfFile(r->urdf, options);
    benchmark::DoNotOptimize(m);
  }
}

void Dart(benchmark::State& state, const Robot* r) {
  dart::utils::DartLoader::Options options;
  options.mDefaultRootJointType =
      r->floating ? dart::utils::DartLoader::RootJointType::FLOATING
                  : dart::utils::DartLoader::RootJointType::FIXED;
  dart::utils::DartLoader loader(options);
  loader.addPackageDirectory("herb_description", kData + "/urdf/wam");
  loader.addPackageDirectory("drchubo", kData + "/urdf/drchubo");
  const auto uri = dart::common::Uri::createFromPath(r->urdf);
  for (auto _ : state) {
    auto skeleton = loader.parseSkeleton(uri);
    if (!skeleton) {
      state.SkipWithError(("DART cannot load " + r->urdf).c_str());
      return;
    }
    benchmark::DoNotOptimize(skeleton);
  }
}

class Reporter : public bench::TimingReporter {
 public:
  // ns_ holds CPU time per iteration in each benchmark's unit: ms here.
  void Print() {
    MergeMedians();
    double worst = 0, worst_collision = 0;
    std::string worst_name;
    std::printf("\n%-8s %6s %9s %9s %9s %9s %10s %10s %9s %9s\n", "robot",
                "joints", "bare ms", "tern ms", "all ms", "dart ms",
                "triangles", "all us/tri", "tern/dart", "all/dart");
    for (const Robot& r : Corpus()) {
      const double bare = ns_[r.name + "/tern_bare"], t = ns_[r.name + "/tern"],
                   a = ns_[r.name + "/tern_all"], d = ns_[r.name + "/dart"];
      const double tris = triangles_[r.name];
      std::printf(
          "%-8s %6d %9.3f %9.2f %9.2f %9.2f %10.0f %10.3f %9.2f %9.2f\n",
          r.name.c_str(), joints_[r.name], bare, t, a, d, tris,
          tris > 0 ? a * 1e3 / tris : 0.0, t / d, a / d);
      if (a / d > worst) worst = a / d, worst_name = r.name;
      worst_collision = std::max(worst_collision, t / d);
    }
    std::printf(
        "(bare: no mesh read; us per joint = bare ms * 1000 / joints)\n"
        "urdf load: tern/dart = %.2f (worst robot: %s; all meshes read by "
        "both; collision meshes only: %.2f)\n",
        worst, worst_name.c_str(), worst_collision);
  }
  std::map<std::string, int> joints_;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const auto it = r.counters.find("triangles");
      if (it == r.counters.end()) continue;
      const std::string name = r.run_name.function_name;
      if (name.size() > 9 && name.substr(name.size() - 9) == "/tern_all") {
        triangles_[name.substr(0, name.size() - 9)] = it->second.value;
      }
    }
    TimingReporter::ReportRuns(runs);
  }

 private:
  std::map<std::string, double> triangles_;
};

}  // namespace
}  // namespace tern

int main(int argc, char** argv) {
  using namespace tern;
  for (const Robot& r : Corpus()) {
    if (!std::filesystem::exists(r.urdf)) {
      std::fprintf(stderr, "urdf_load_bench: %s missing (install dart-doc)\n",
                   r.urdf.c_str());
      return 1;
    }
    benchmark::RegisterBenchmark((r.name + "/tern_bare").c_str(), TernBare, &r)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((r.name + "/tern").c_str(), Tern, &r, false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((r.name + "/tern_all").c_str(), Tern, &r, true)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((r.name + "/dart").c_str(), Dart, &r)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  Reporter reporter;
  for (const Robot& r : Corpus()) {
    UrdfParseOptions o = TernOptions(r);
    o.load_collision_meshes = false;
    reporter.joints_[r.name] = ParseUrdfFile(r.urdf, o).tree.num_bodies() - 1;
  }
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.Print();
  benchmark::Shutdown();
  return 0;
}
