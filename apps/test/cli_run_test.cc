// `tern simulate` and `tern plot` as a user runs them: the files a run
// writes, repeatability from the resolved scenario, checkpoints, pacing,
// the time-stepping plant, plots.
#include <gtest/gtest.h>

#include "apps/test/cli_fixture.h"

namespace tern::cli::test {
namespace {

TEST_F(CliTest, SimulateWritesLogScenarioAndReportAndRepeatsExactly) {
  Write("swing.yaml", "duration: 0.5\nmodels: [{file: " + kModels +
                          "/pendulum.urdf}]\ninitial_state: {positions: "
                          "{pivot: 1.0}}\nlog: {rate: 50}\n");
  Result r = Run("simulate swing.yaml --output first --seed 5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("report: first/report.html"), std::string::npos);
  // Not a terminal: plain progress lines, the last at 100%.
  EXPECT_NE(r.err.find("(100%)"), std::string::npos) << r.err;
  const std::string log = Slurp(dir_ / "first/log.csv");
  EXPECT_EQ(log.rfind("time,q.pivot,v.pivot\n0,1,0\n", 0), 0u) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 27);  // header + 26
  const std::string resolved = Slurp(dir_ / "first/scenario.yaml");
  EXPECT_NE(resolved.find("seed: 5"), std::string::npos);
  EXPECT_TRUE(fs::file_size(dir_ / "first/report.html") > 100000);
  // The resolved scenario repeats the run to the bit.
  r = Run("simulate first/scenario.yaml --output second --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Slurp(dir_ / "second/log.csv"), log);
  // Default output folder: ./tern-out/NAME.
  r = Run("simulate swing.yaml --quiet --duration 0.02");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "tern-out/swing/log.csv"));
}

TEST_F(CliTest, TimeSteppingPlantFromTheCommandLine) {
  const Result r = Run("simulate " + kScenarios +
                       "/boxes_falling.yaml --plant time-stepping --dt 0.002 "
                       "--duration 0.2 --output ts --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string resolved = Slurp(dir_ / "ts/scenario.yaml");
  EXPECT_NE(resolved.find("kind: time-stepping"), std::string::npos);
  EXPECT_NE(resolved.find("dt: 0.002"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "ts/report.html"));
}

TEST_F(CliTest, RealtimePacesTheRun) {
  const Result r = Run("simulate " + kModels +
                       "/pendulum.urdf --duration 0.2 --realtime 0.5");
  ASSERT_EQ(r.code, 0) << r.err;
  // 0.2 s at half real time takes at least 0.4 s of wall-clock time.
  const std::size_t at = r.out.find("' in ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_GE(std::stod(r.out.substr(at + 5)), 0.39) << r.out;
  EXPECT_EQ(Error("simulate " + kModels + "/pendulum.urdf --realtime -1", 2),
            "--realtime must be >= 0, not -1");
}

TEST_F(CliTest, PlotDrawsTheChosenColumnsWithGnuplot) {
  Write("log.csv", "time,q.a,v.a\n0,0,1\n0.1,0.1,1\n0.2,0.2,1\n");
  Result r = Run("plot log.csv --signals v.a -o v.svg");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = Slurp(dir_ / "v.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("v.a"), std::string::npos);
  EXPECT_EQ(svg.find("q.a"), std::string::npos);
  r = Run("plot log.csv -o all.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Slurp(dir_ / "all.png").substr(1, 3), "PNG");
  EXPECT_EQ(Error("plot log.csv --signals x", 1),
            "log.csv: no column 'x'; columns: q.a, v.a");
  EXPECT_EQ(Error("plot log.csv -o plot.pdf", 1),
            "plot.pdf: unknown plot format '.pdf' (use .svg or .png)");
}

TEST_F(CliTest, ResumedRunIsBitIdenticalToTheUninterruptedOne) {
  // A box landing on the ground (contact) and a PD-driven pendulum
  // (controller state), with an error-controlled rule.
  Write("scene.yaml",
        "duration: 0.4\nboxes: [{name: b, size: [0.2, 0.2, "
        "0.2], position: [0, 0, 0.3], mass: 1}]\nmodels: "
        "[{file: " +
            kModels +
            "/pendulum.urdf, position: [1, "
            "0, 1.5]}]\ncontrollers: [{name: pd, type: joint_pd, "
            "joints: [pivot], kp: 5, kd: 1, target: 1}]\n"
            "integrator: {name: dopri5, rtol: 1e-7}\n");
  Result r = Run("simulate scene.yaml --checkpoint-every 0.15 --output full");
  ASSERT_EQ(r.code, 0) << r.err;
  // Chunks of 0.4 / 200 = 2 ms: checkpoints at the first chunk end at or
  // after 0.15 and 0.3 s.
  ASSERT_TRUE(fs::exists(dir_ / "full/checkpoint-0.15s.tck"));
  ASSERT_TRUE(fs::exists(dir_ / "full/checkpoint-0.3s.tck"));
  r =
      Run("simulate full/scenario.yaml --resume full/checkpoint-0.15s.tck "
          "--output resumed --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string full = Slurp(dir_ / "full/log.csv");
  EXPECT_EQ(std::count(full.begin(), full.end(), '\n'), 42);
  EXPECT_EQ(Slurp(dir_ / "resumed/log.csv"), full);
  // The original file resolves to the same scenario.
  r =
      Run("simulate scene.yaml --resume full/checkpoint-0.3s.tck --output "
          "again --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Slurp(dir_ / "again/log.csv"), full);

  EXPECT_EQ(Error("simulate scene.yaml --duration 0.5 --resume "
                  "full/checkpoint-0.15s.tck",
                  1),
            "full/checkpoint-0.15s.tck: written for another scenario (or "
            "other options) than 'scene.yaml': refusing to resume; resume "
            "with the scenario.yaml of the run that wrote it");
  std::string text = Slurp(dir_ / "full/checkpoint-0.15s.tck");
  text.replace(text.find("version 0."), 11, "version 9.9");
  Write("old.tck", text);
  EXPECT_EQ(Error("simulate scene.yaml --resume old.tck", 1)
                .rfind("old.tck: written by tern 9.9", 0),
            0u);
  Write("junk.tck", "hello\n");
  EXPECT_EQ(Error("simulate scene.yaml --resume junk.tck", 1),
            "junk.tck:1: not a tern checkpoint (it starts 'hello')");
  EXPECT_EQ(Error("simulate scene.yaml --checkpoint-every 0", 2),
            "--checkpoint-every must be positive, not 0");
}

}  // namespace
}  // namespace tern::cli::test
