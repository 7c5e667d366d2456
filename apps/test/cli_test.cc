// The `tern` program as a user runs it: help and version, exit codes and the
// one-line error of each documented mistake, `tern check`.
#include <gtest/gtest.h>

#include "apps/test/cli_fixture.h"

namespace tern::io::test {
namespace {

TEST_F(CliTest, VersionAndHelp) {
  Result r = Run("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("tern 0.", 0), 0u) << r.out;
  r = Run("help");
  EXPECT_EQ(r.code, 0);
  for (const char* word : {"simulate", "check", "plot", "help", "--version"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  }
  r = Run("simulate --help");
  EXPECT_EQ(r.code, 0);
  for (const char* option : {"--duration", "--plant", "--dt", "--integrator",
                             "--seed", "--output", "--realtime", "--quiet"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
}

TEST_F(CliTest, CommandLineMistakes) {
  EXPECT_EQ(Error("", 2), "A subcommand is required (see 'tern help')");
  EXPECT_EQ(Error("simulate", 2), "FILE is required (see 'tern help')");
  EXPECT_NE(Error("simulate x.yaml --durration 1", 2).find("--durration"),
            std::string::npos);
  EXPECT_EQ(Error("simulate " + kModels + "/pendulum.urdf --duration -1", 2),
            "--duration must be positive, not -1");
  EXPECT_EQ(Error("simulate " + kModels + "/pendulum.urdf --dt 0", 2),
            "--dt must be positive, not 0");
  Write("notes.txt", "hello");
  EXPECT_EQ(Error("simulate notes.txt", 2),
            "notes.txt: unknown file type '.txt' (give a scenario .yaml or a "
            "robot .urdf, .sdf, .world or MJCF .xml)");
}

TEST_F(CliTest, FileMistakes) {
  EXPECT_EQ(Error("simulate missing.yaml", 1), "missing.yaml: no such file");
  EXPECT_EQ(Error("check missing.urdf", 1), "missing.urdf: no such file");
  Write("bad.urdf",
        "<robot name='r'>\n<link name='a'/>\n<joint name='j' "
        "type='revolute'>\n</joint>\n</robot>\n");
  EXPECT_EQ(Error("check bad.urdf", 1).rfind("bad.urdf:3:", 0), 0u);
  Write("bad.yaml", "models: [{file: " + kModels +
                        "/pendulum.urdf}]\nplant:\n  kind: continuous\n  "
                        "step: 1\n");
  EXPECT_EQ(Error("simulate bad.yaml", 1),
            "bad.yaml:4:3: unknown key 'step' in 'plant'; accepted keys: "
            "kind, dt, gravity, contact, time_stepping");
  // A bad integrator or plant in the scenario file is a file mistake (1).
  Write("rk5.yaml", "models: [{file: " + kModels +
                        "/pendulum.urdf}]\nintegrator: {name: rk5}\n");
  EXPECT_EQ(Error("simulate rk5.yaml", 1)
                .rfind("rk5.yaml: unknown integrator 'rk5'; known: ", 0),
            0u);
  Write("discrete.yaml", "models: [{file: " + kModels +
                             "/pendulum.urdf}]\nplant: {kind: discrete}\n");
  EXPECT_EQ(Error("simulate discrete.yaml", 1),
            "discrete.yaml:2:15: 'plant.kind' is 'discrete'; accepted values: "
            "continuous, time-stepping");
  EXPECT_EQ(Error("plot missing.csv", 1), "missing.csv: no such file");
}

// The same values given on the command line are command-line mistakes (2).
TEST_F(CliTest, BadOptionValuesAreUsageErrors) {
  const std::string integrator =
      Error("simulate " + kModels + "/pendulum.urdf --integrator rk5", 2);
  EXPECT_EQ(integrator.rfind(kModels + "/pendulum.urdf: unknown integrator "
                                       "'rk5'; known: ",
                             0),
            0u)
      << integrator;
  EXPECT_NE(integrator.find("dopri5"), std::string::npos);
  EXPECT_EQ(Error("simulate " + kModels + "/pendulum.urdf --plant discrete", 2),
            kModels +
                "/pendulum.urdf: plant kind 'discrete'; accepted: "
                "continuous, time-stepping");
  EXPECT_EQ(Error("check", 2), "FILE is required (see 'tern help')");
  EXPECT_EQ(Error("frobnicate", 2),
            "A subcommand is required (see 'tern help')");
}

TEST_F(CliTest, EveryShippedModelChecks) {
  int n = 0;
  for (const auto& f : fs::directory_iterator(kModels)) {
    if (f.path().extension() != ".urdf") continue;
    const Result r = Run("check " + f.path().string());
    EXPECT_EQ(r.code, 0) << f.path() << "\n" << r.err;
    EXPECT_NE(r.out.find("ok: " + f.path().string()), std::string::npos);
    ++n;
  }
  EXPECT_GE(n, 6);
}

TEST_F(CliTest, CheckPrintsTheModel) {
  const Result r = Run("check " + kScenarios + "/quadruped_standing.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* what : {"bodies (17)", "fl_knee", "nq = 19, nv = 18",
                           "legs (joint_pd)", "imu (imu)", "ground plane"}) {
    EXPECT_NE(r.out.find(what), std::string::npos) << what << "\n" << r.out;
  }
}

}  // namespace
}  // namespace tern::io::test
