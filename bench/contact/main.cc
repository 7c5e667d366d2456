// Contact simulation: Tern's TimeSteppingRigidBodySystem against Bullet, ODE
// and MuJoCo, in one process, on the same scene (scene.h): N spheres or cubes
// dropped in a 5 x 5 grid of columns onto a plane, h = 1 ms, 3000 steps.
// Each benchmark iteration builds the engine's world (untimed) and runs the
// 3000 steps (timed, CPU time). Cases: spheres100, cubes100, spheres1000;
// engines: tern (default options, sleeping off), tern_sleeping (for
// reference), bullet (default settings: bodies at rest sleep after 2 s),
// bullet_awake (sleeping off, for reference), ode, mujoco. Each engine's file
// says its settings, and the program prints them as the libraries report
// them. Counters: steps/s over the run and over its last third
// (rest_steps/s, the pile at rest), mean contact points per step (each
// engine counts its own way, see its file), mean final height of the bodies
// (z_mean) and largest final speed (v_max): with 100 bodies a resting pile
// has spheres at z = 0.05 m on the plane (higher ones resting on others) and
// cubes in columns of 4 at 0.05, 0.15, 0.25, 0.35 m (mean 0.2 m if they all
// stand).
// After the Google Benchmark output: a table of the counters, then
//   contact spheres: tern/fastest-peer = X
//   contact cubes: tern/fastest-peer = X
// the ratio of CPU times per run (median over repetitions), < 1 when Tern is
// faster than Bullet, ODE and MuJoCo (Bullet with its default sleeping).
// Robot scenes (robots.cc) run Tern (default options and Solver::kLemke)
// against MuJoCo on the same URDF and end with
//   contact robots: tern/mujoco = X
// the worst scene's ratio of CPU time per step, with each scene's final base
// heights side by side (flagged when they differ by more than 5 cm); before
// it, the mean ratio over 30 humanoid falls from perturbed starts (the
// fall is chaotic: the goal's one fall is one draw); after it, for
// reference,
//   contact robots, same cone: tern/mujoco_elliptic = X
// against MuJoCo with cone = elliptic (the round cone Tern solves; MuJoCo's
// default is pyramidal).
// Run with --benchmark_repetitions=3 on a loaded machine.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench/common/timing_reporter.h"
#include "bench/contact/peers.h"

namespace tern::bench::contact {
namespace {

const std::vector<std::string> kEngines = {
    "tern", "tern_sleeping", "bullet", "bullet_awake", "ode", "mujoco"};
const std::vector<std::string> kPeers = {"bullet", "ode", "mujoco"};
const std::vector<std::string> kCounters = {"steps/s", "rest_steps/s",
                                            "contacts", "z_mean", "v_max"};

class ContactReporter : public TimingReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        median_counters_[r.run_name.str()] = r.counters;
      } else if (r.run_type == Run::RT_Iteration) {
        counters_[r.benchmark_name()] = r.counters;
      }
    }
    TimingReporter::ReportRuns(runs);
  }

  void PrintSummary(const std::vector<std::string>& scenes) {
    MergeMedians();
    for (const auto& [name, c] : median_counters_) counters_[name] = c;
    // Names carry "/iterations:1" (every run is one iteration) and, for the
    // 1000-body cases, "/repeats:1"; drop them.
    std::map<std::string, double> plain_ns;
    for (const auto& [name, v] : ns_) plain_ns[Plain(name)] = v;
    ns_ = plain_ns;
    std::map<std::string, benchmark::UserCounters> plain;
    for (const auto& [name, c] : counters_) plain[Plain(name)] = c;
    counters_ = plain;
    std::printf("\n%-12s %-13s %9s %10s %12s %9s %8s %8s\n", "scene", "engine",
                "ms/run", "steps/s", "rest_steps/s", "contacts", "z_mean",
                "v_max");
    for (const std::string& s : scenes) {
      for (const std::string& e : kEngines) {
        const auto t = ns_.find(s + "/" + e);
        const auto c = counters_.find(s + "/" + e);
        if (t == ns_.end() || c == counters_.end()) {
          std::printf("%-12s %-13s (not run)\n", s.c_str(), e.c_str());
          continue;
        }
        std::printf("%-12s %-13s %9.1f", s.c_str(), e.c_str(), t->second);
        for (const std::string& k : kCounters) {
          const auto v = c->second.find(k);
          std::printf(k == "steps/s"        ? " %10.0f"
                      : k == "rest_steps/s" ? " %12.0f"
                      : k == "contacts"     ? " %9.1f"
                                            : " %8.4f",
                      v == c->second.end() ? 0.0 : v->second.value);
        }
        std::printf("\n");
      }
    }
    for (const std::string& s : scenes) {
      const auto c = counters_.find(s + "/tern");
      if (c == counters_.end() || !c->second.count("pgs_sweeps")) continue;
      std::printf(
          "%-12s tern solver work per step: %.1f PGS sweeps (%.0f contact "
          "steps), %.1f Lemke pivots, %.2f Newton iterations, %.3f PGS "
          "fallbacks to the convex solver\n",
          s.c_str(), c->second.at("pgs_sweeps").value,
          c->second.count("pgs_steps") ? c->second.at("pgs_steps").value : 0.0,
          c->second.at("lemke_pivots").value, c->second.at("newton_iter").value,
          c->second.at("pgs_fallbacks").value);
    }
  }

  // Robot scenes: per scene, each engine's CPU time per step, final base
  // height and solver work; Tern/MuJoCo ratios; then the worst ratio.
  void PrintRobots(const std::vector<std::string>& scenes) {
    std::printf("\n%-22s %-15s %9s %8s %9s %s\n", "scene", "engine", "ms/step",
                "base_z", "contacts", "solver work per step");
    double worst = 0, worst_lemke = 0, worst_elliptic = 0;
    std::string worst_scene, worst_lemke_scene, worst_elliptic_scene;
    bool missing = false;
    std::string lemke_failed;
    // The humanoid's perturbed falls (robots.cc): their ratios and Newton
    // iterations, reported apart from the goal's scenes.
    std::vector<double> fall_ratios;
    double fall_tern_iter = 0, fall_mj_iter = 0;
    auto is_fall = [](const std::string& s) {
      return s.find("_fall") != std::string::npos;
    };
    for (const std::string& s : scenes) {
      for (const std::string e :
           {"tern", "tern_lemke", "mujoco", "mujoco_elliptic"}) {
        if (e != "tern" && e != "mujoco" && is_fall(s)) continue;  // not run
        const auto c = counters_.find(s + "/" + e);
        if (c == counters_.end() || !c->second.count("ms/step")) {
          std::printf("%-22s %-15s (not run or failed)\n", s.c_str(),
                      e.c_str());
          continue;
        }
        const auto& k = c->second;
        std::printf("%-22s %-15s %9.4f %8.4f %9.1f ", s.c_str(), e.c_str(),
                    k.at("ms/step").value, k.at("base_z").value,
                    k.at("contacts").value);
        if (k.count("solver_iter")) {
          std::printf("%.1f Newton iterations\n", k.at("solver_iter").value);
        } else {
          std::printf(
              "%.1f Newton iterations (convex), %.1f PGS sweeps, %.1f Lemke "
              "pivots\n",
              k.at("newton_iter").value, k.at("pgs_sweeps").value,
              k.at("lemke_pivots").value);
        }
      }
      const auto mj = counters_.find(s + "/mujoco");
      for (const std::string e : {"tern", "tern_lemke"}) {
        if (e == "tern_lemke" && is_fall(s)) continue;
        const auto t = counters_.find(s + "/" + e);
        if (mj == counters_.end() || t == counters_.end() ||
            !mj->second.count("ms/step") || !t->second.count("ms/step")) {
          if (e == "tern" && !is_fall(s)) missing = true;
          if (e == "tern_lemke") lemke_failed += " " + s;  // reported above
          continue;
        }
        const double r =
            t->second.at("ms/step").value / mj->second.at("ms/step").value;
        const double dz =
            t->second.at("base_z").value - mj->second.at("base_z").value;
        std::printf(
            "%-22s %s/mujoco = %.2f, base height %s %.4f m, mujoco "
            "%.4f m: %s\n",
            s.c_str(), e.c_str(), r, e.c_str(), t->second.at("base_z").value,
            mj->second.at("base_z").value,
            std::abs(dz) <= 0.05 ? "agree (within 5 cm)"
                                 : "DISAGREE (more than 5 cm)");
        if (is_fall(s)) {
          fall_ratios.push_back(r);
          fall_tern_iter += t->second.at("newton_iter").value;
          fall_mj_iter += mj->second.at("solver_iter").value;
          continue;
        }
        double& w = e == "tern" ? worst : worst_lemke;
        std::string& ws = e == "tern" ? worst_scene : worst_lemke_scene;
        if (r > w) {
          w = r;
          ws = s;
        }
      }
      // Reference: MuJoCo on the round cone that Tern solves.
      const auto t = counters_.find(s + "/tern");
      const auto me = counters_.find(s + "/mujoco_elliptic");
      if (!is_fall(s) && t != counters_.end() && me != counters_.end() &&
          t->second.count("ms/step") && me->second.count("ms/step")) {
        const double r =
            t->second.at("ms/step").value / me->second.at("ms/step").value;
        std::printf(
            "%-22s tern/mujoco_elliptic = %.2f, base height mujoco_elliptic "
            "%.4f m (reference: the same cone)\n",
            s.c_str(), r, me->second.at("base_z").value);
        if (r > worst_elliptic) {
          worst_elliptic = r;
          worst_elliptic_scene = s;
        }
      }
    }
    if (!fall_ratios.empty()) {
      double sum = 0;
      for (double r : fall_ratios) sum += r;
      const auto [lo, hi] =
          std::minmax_element(fall_ratios.begin(), fall_ratios.end());
      const double n = static_cast<double>(fall_ratios.size());
      std::printf(
          "contact robots, humanoid falls: tern/mujoco mean %.2f (%.2f to "
          "%.2f over %zu falls from joint velocities perturbed by 1e-3 "
          "rad/s; Newton iterations per step, tern %.1f, mujoco %.1f; "
          "not the goal's scene)\n",
          sum / n, *lo, *hi, fall_ratios.size(), fall_tern_iter / n,
          fall_mj_iter / n);
    }
    if (missing) {
      std::printf("contact robots: tern/mujoco = missing\n");
      return;
    }
    std::printf(
        "contact robots: tern/mujoco = %.2f  (worst scene %s, CPU "
        "time; goal <= 0.7)\n",
        worst, worst_scene.c_str());
    if (!worst_elliptic_scene.empty()) {
      std::printf(
          "contact robots, same cone: tern/mujoco_elliptic = %.2f  (worst "
          "scene %s; MuJoCo with cone = elliptic, the round Coulomb cone "
          "Tern solves; reference, not the goal)\n",
          worst_elliptic, worst_elliptic_scene.c_str());
    }
    if (!lemke_failed.empty()) {
      std::printf("contact robots lemke: failed on%s (see stderr)\n",
                  lemke_failed.c_str());
      return;
    }
    std::printf(
        "contact robots lemke: tern_lemke/mujoco = %.2f  (worst "
        "scene %s)\n",
        worst_lemke, worst_lemke_scene.c_str());
  }

  // label: "spheres", "cubes"; scene: its benchmark prefix.
  void PrintRatio(const std::string& label, const std::string& scene) {
    std::string fastest;
    double best = 0;
    for (const std::string& p : kPeers) {
      const auto it = ns_.find(scene + "/" + p);
      if (it != ns_.end() && (fastest.empty() || it->second < best)) {
        fastest = p;
        best = it->second;
      }
    }
    const auto tern = ns_.find(scene + "/tern");
    if (tern == ns_.end() || fastest.empty()) {
      std::printf("contact %s: tern/fastest-peer = missing (%s not run)\n",
                  label.c_str(), fastest.empty() ? "peers" : "Tern");
      return;
    }
    std::printf("contact %s: tern/fastest-peer = %.2f  (vs %s, %s)\n",
                label.c_str(), tern->second / best, fastest.c_str(),
                scene.c_str());
  }

 private:
  static std::string Plain(std::string name) {
    for (const std::string tag : {"/iterations:1", "/repeats:1"}) {
      const auto pos = name.find(tag);
      if (pos != std::string::npos) name.erase(pos, tag.size());
    }
    return name;
  }

  // benchmark name -> its counters (medians over repetitions when repeated)
  std::map<std::string, benchmark::UserCounters> counters_, median_counters_;
};

}  // namespace
}  // namespace tern::bench::contact

int main(int argc, char** argv) {
  namespace c = tern::bench::contact;
  static const c::Scene kScenes[] = {c::MakeScene(c::BodyShape::kSphere, 100),
                                     c::MakeScene(c::BodyShape::kCube, 100),
                                     c::MakeScene(c::BodyShape::kSphere, 1000)};
  // --trace=<scene>: the untimed height and energy trace of every engine on
  // that scene, instead of the benchmark.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--trace=", 0) != 0) continue;
    if (c::TraceRobotScene(arg.substr(8))) return 0;
    for (const c::Scene& s : kScenes) {
      if (s.name != arg.substr(8)) continue;
      c::TraceTern(&s);
      c::TraceBullet(&s);
      c::TraceOde(&s);
      c::TraceMujoco(&s);
      return 0;
    }
    std::fprintf(stderr,
                 "--trace: no scene '%s' (spheres100, cubes100, "
                 "spheres1000, robots_quadruped, robots_quadrupeds4, "
                 "robots_quadrupeds16, robots_humanoid)\n",
                 arg.substr(8).c_str());
    return 2;
  }
  std::vector<std::string> names;
  for (const c::Scene& s : kScenes) {
    names.push_back(s.name);
    auto add = [&s](const std::string& engine, auto fn) {
      auto* b =
          benchmark::RegisterBenchmark((s.name + "/" + engine).c_str(), fn, &s)
              ->Iterations(1)
              ->Unit(benchmark::kMillisecond);
      // 1000 bodies take minutes per run for some engines (MuJoCo 2.2.2:
      // about 2 CPU minutes): one run, whatever --benchmark_repetitions says.
      if (s.poses.size() > 100) b->Repetitions(1);
    };
    add("tern", [](benchmark::State& st, const c::Scene* sc) {
      c::RunTern(st, sc, false);
    });
    add("tern_sleeping", [](benchmark::State& st, const c::Scene* sc) {
      c::RunTern(st, sc, true);
    });
    add("bullet", [](benchmark::State& st, const c::Scene* sc) {
      c::RunBullet(st, sc, true);
    });
    add("bullet_awake", [](benchmark::State& st, const c::Scene* sc) {
      c::RunBullet(st, sc, false);
    });
    add("ode", c::RunOde);
    add("mujoco", c::RunMujoco);
  }
  const std::vector<std::string> robots = c::RegisterRobotBenchmarks();
  benchmark::Initialize(&argc, argv);
  c::CheckRobotMassMatrices();
  c::PrintTernSettings();
  c::PrintBulletSettings();
  c::PrintOdeSettings();
  c::PrintMujocoSettings();
  c::ContactReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintSummary(names);
  reporter.PrintRatio("spheres", "spheres100");
  reporter.PrintRatio("cubes", "cubes100");
  reporter.PrintRatio("spheres1000", "spheres1000");
  reporter.PrintRobots(robots);
  benchmark::Shutdown();
  return 0;
}
