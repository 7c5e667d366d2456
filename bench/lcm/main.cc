// The round trip of one control period in lockstep over LCM on the
// loopback: the quadruped plant (time-stepping, h = 1 ms) here, its joint
// PD in a second process (this program, started with --serve), state out
// and command back; against the same period with the PD in this process.
// Wall-clock time per period (a lockstep period is mostly waiting).
// Prints "lcm lockstep period: X us (in-process Y us)"; a robot controlled
// at 1 kHz needs X < 1000.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "examples/lcm_quadruped/quadruped_lcm.h"
#include "tern/lcm/child_process.h"
#include "tern/lcm/lcm_system_server.h"
#include "tern/systems/analysis/simulator.h"

namespace {

using tern::QuadrupedLcmDiagram;
using tern::Simulator;

struct Channels {
  std::string url, state, command;
};
Channels* channels = nullptr;

// Advances the quadruped one control period per iteration.
void RunPeriods(benchmark::State& state, tern::LcmInterface* lcm) {
  const tern::QuadrupedStance s = tern::MakeQuadrupedLcmStance(TERN_MODELS_DIR);
  QuadrupedLcmDiagram d = lcm == nullptr
                              ? tern::MakeQuadrupedLcmDiagram(s, nullptr)
                              : tern::MakeQuadrupedLcmDiagram(
                                    s, lcm, channels->state, channels->command);
  Simulator<double> sim(*d.diagram);
  d.plant->SetPositionsAndVelocities(
      &d.plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), s.q0,
      tern::VectorX<double>::Zero(s.tree.num_velocities()));
  sim.Initialize();
  long k = 0;
  for (auto _ : state) {
    ++k;
    sim.AdvanceTo(static_cast<double>(k) * tern::kQuadrupedLcmPeriod);
  }
  const double z =
      d.plant->GetState(d.plant->GetMyContextFromRoot(sim.get_context()))[2];
  if (!(z > 0.8 * s.q0[2])) state.SkipWithError("the quadruped fell");
}

void BM_InProcess(benchmark::State& state) { RunPeriods(state, nullptr); }

void BM_LcmLockstep(benchmark::State& state) {
  tern::LcmInterface lcm(channels->url);
  RunPeriods(state, &lcm);
}

class RealTimeReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    // The median over --benchmark_repetitions when repeated.
    for (const Run& r : runs) {
      const std::string name = r.run_name.function_name;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        us_[name] = r.GetAdjustedRealTime();
        median_.insert(name);
      } else if (r.run_type == Run::RT_Iteration && r.iterations > 0 &&
                 median_.count(name) == 0) {
        us_[name] = r.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> us_;  // name -> wall-clock us per period
  std::set<std::string> median_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--serve") {
    tern::LcmInterface lcm(argv[2]);
    const tern::QuadrupedStance s =
        tern::MakeQuadrupedLcmStance(TERN_MODELS_DIR);
    auto pd = tern::MakeQuadrupedPdController(s);
    tern::LcmSystemServer server(*pd, &lcm, argv[3],
                                 tern::QuadrupedStateTranslator(s), argv[4],
                                 tern::QuadrupedCommandTranslator(s));
    server.Serve(/*idle_timeout=*/10.0);
    return 0;
  }
  Channels c{tern::LoopbackUrlForThisProcess(),
             tern::UniqueChannelName("BENCH_STATE"),
             tern::UniqueChannelName("BENCH_COMMAND")};
  channels = &c;
  tern::ChildProcess peer(
      {"/proc/self/exe", "--serve", c.url, c.state, c.command});
  {
    tern::LcmInterface lcm(c.url);
    tern::WaitForLcmPeer(&lcm, c.command, 30.0);
  }
  // A fixed number of periods (3 s of simulated time): the quadruped
  // stands for 10 s under this PD.
  benchmark::RegisterBenchmark("in_process", BM_InProcess)
      ->Iterations(3000)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("lcm_lockstep", BM_LcmLockstep)
      ->Iterations(3000)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  RealTimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("lcm lockstep period: %.1f us (in-process %.1f us)\n",
              reporter.us_["lcm_lockstep"], reporter.us_["in_process"]);
  benchmark::Shutdown();
  return 0;
}
