// `tern simulate` and `tern plot` as a user runs them: the files a run
// writes, repeatability from the resolved scenario, checkpoints, pacing,
// the time-stepping plant, plots.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <vector>

#include "apps/test/cli_fixture.h"

namespace tern::io::test {
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

// The memory line of a checkpoint replaced by a cold one: the plant's layout
// version and subtree count kept, its still-step counters zero and no
// warm-start entries (what a resume without the warm start would use).
std::string WithColdMemory(const std::string& text) {
  const std::size_t at = text.find("\nmemory ") + 1;
  const std::size_t end = text.find('\n', at);
  std::istringstream line(text.substr(at, end - at));
  std::string word, version, subtrees;
  line >> word >> word >> version >> subtrees;
  const int n = static_cast<int>(std::strtod(subtrees.c_str(), nullptr));
  std::string cold = fmt::format("memory {} {} {}", n + 3, version, subtrees);
  for (int i = 0; i < n + 1; ++i) cold += " 0x0p+0";
  return text.substr(0, at) + cold + text.substr(end);
}

TEST_F(CliTest, TimeSteppingResumeIsBitIdenticalWithItsWarmStart) {
  // A box landing on the ground and a PD-driven pendulum on the
  // time-stepping plant, an IMU on the box (the plant's acceleration
  // group); the box rests on the ground from t = 0.2 s, so the checkpoint
  // at 0.3 s holds its contact impulses.
  Write("scene.yaml",
        "duration: 0.4\nboxes: [{name: b, size: [0.2, 0.2, 0.2], position: "
        "[0, 0, 0.3], mass: 1}]\nmodels: [{file: " +
            kModels +
            "/pendulum.urdf, position: [1, 0, 1.5]}]\ncontrollers: [{name: "
            "pd, type: joint_pd, joints: [pivot], kp: 5, kd: 1, target: "
            "1}]\nsensors: [{name: imu, type: imu, body: b}]\nlog: {signals: "
            "[state, imu]}\nplant: {kind: time-stepping, dt: 0.002}\n"
            "effort_limits: {pivot: 3}\n");
  Result r = Run("simulate scene.yaml --checkpoint-every 0.15 --output full");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(fs::exists(dir_ / "full/checkpoint-0.3s.tck"));
  const std::string text = Slurp(dir_ / "full/checkpoint-0.3s.tck");
  EXPECT_EQ(text.rfind("tern-checkpoint 2\n", 0), 0u);
  EXPECT_NE(text.find("\nplant time-stepping\n"), std::string::npos);
  const std::string full = Slurp(dir_ / "full/log.csv");
  const std::string note = "controller 'pd', joint 'pivot': the effort limit";
  const std::size_t at = r.err.find(note);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string clamping = r.err.substr(at, r.err.find('\n', at) - at);
  r =
      Run("simulate full/scenario.yaml --resume full/checkpoint-0.3s.tck "
          "--output resumed");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Slurp(dir_ / "resumed/log.csv"), full);
  // The clamp counters are in the checkpoint too: the same note.
  EXPECT_NE(r.err.find(clamping), std::string::npos) << clamping << "\n"
                                                     << r.err;
  // The control: the same checkpoint without its warm start resumes to
  // another log (the contact solve starts cold at 0.3 s).
  Write("cold.tck", WithColdMemory(text));
  r = Run("simulate scene.yaml --resume cold.tck --output cold --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string cold = Slurp(dir_ / "cold/log.csv");
  EXPECT_EQ(cold.size() > 0 && cold != full, true);

  // A checkpoint of the other plant kind, or of the other format.
  EXPECT_EQ(Error("simulate scene.yaml --plant continuous --resume "
                  "full/checkpoint-0.3s.tck",
                  1),
            "full/checkpoint-0.3s.tck: written by a run on the time-stepping "
            "plant, and 'scene.yaml' uses the continuous plant: refusing to "
            "resume");
  std::string old = text;
  old.replace(0, 17, "tern-checkpoint 1");
  Write("old.tck", old);
  EXPECT_EQ(Error("simulate scene.yaml --resume old.tck", 1),
            "old.tck:1: checkpoint format 1, this tern reads format 2: "
            "refusing to resume");
  // Untrusted numbers: a count larger than the file, a value that is not
  // finite, a memory that does not fit the plant.
  const std::size_t memory = text.find("\nmemory ") + 8;
  const int memory_line = static_cast<int>(
      std::count(text.begin(), text.begin() + memory, '\n') + 1);
  std::string bad = text;
  bad.replace(memory, bad.find(' ', memory) - memory, "999999999999");
  Write("huge.tck", bad);
  EXPECT_EQ(Error("simulate scene.yaml --resume huge.tck", 1),
            fmt::format("huge.tck:{}: memory: 999999999999 is more than a "
                        "file of {} bytes can hold",
                        memory_line, bad.size() - 18));
  bad = text;
  const std::size_t third = bad.find(' ', bad.find(' ', memory) + 1) + 1;
  bad.replace(third, bad.find(' ', third) - third, "nan");
  Write("nan.tck", bad);
  EXPECT_EQ(
      Error("simulate scene.yaml --resume nan.tck", 1),
      fmt::format("nan.tck:{}: memory[1]: nan is not finite", memory_line));
  bad = text;
  bad.replace(third, bad.find(' ', third) - third, "0x1.8p+1");  // 3
  Write("subtrees.tck", bad);
  EXPECT_EQ(Error("simulate scene.yaml --resume subtrees.tck", 1),
            "subtrees.tck: TimeSteppingRigidBodySystem 'scene': RestoreState: "
            "memory[1] (subtrees): 3, this plant has 2 subtrees");
}

// SIGINT and SIGTERM sent to a running `tern simulate` (a child process):
// it writes the partial log and report, says so, and exits 128 + signal.
TEST_F(CliTest, SignalWritesThePartialLogAndReportThenExitsNonZero) {
  Write("long.yaml",
        "duration: 1000\nboxes: [{name: b, position: [0, 0, 1]}]\n"
        "integrator: {name: rk4, step: 1e-3}\n");
  for (const int sig : {SIGTERM, SIGINT}) {
    const fs::path out = dir_ / ("run" + std::to_string(sig));
    const fs::path err = dir_ / ("err" + std::to_string(sig));
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 2);
      dup2(fd, 1);
      if (chdir(dir_.c_str()) != 0) _exit(99);
      execl(TERN_EXECUTABLE, "tern", "simulate", "long.yaml", "--output",
            out.c_str(), static_cast<char*>(nullptr));
      _exit(98);
    }
    // Its handlers are in place once the resolved scenario is written.
    const auto start = std::chrono::steady_clock::now();
    while (!fs::exists(out / "scenario.yaml") &&
           std::chrono::steady_clock::now() - start <
               std::chrono::seconds(60)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(kill(pid, sig), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    const std::string text = Slurp(err);
    ASSERT_TRUE(WIFEXITED(status)) << text;
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig) << text;
    EXPECT_NE(text.find(sig == SIGTERM ? "tern: SIGTERM at t = "
                                       : "tern: SIGINT at t = "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("wrote the partial log and report"), std::string::npos);
    const std::string log = Slurp(out / "log.csv");
    EXPECT_GT(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_TRUE(fs::file_size(out / "report.html") > 100000);
    EXPECT_NE(Slurp(out / "scenario.yaml").find("#   interrupted at t = "),
              std::string::npos);
  }
}

// package://mypkg/... from --package-path NAME=DIR, --package-path DIR and
// ROS_PACKAGE_PATH; the resolved scenario keeps the packages.
TEST_F(CliTest, PackagePathsFromTheCommandLineAndTheEnvironment) {
  fs::create_directories(dir_ / "shelf" / "mypkg" / "meshes");
  {
    std::ofstream obj(dir_ / "shelf" / "mypkg" / "meshes" / "cube.obj");
    for (int i = 0; i < 8; ++i) {
      obj << "v " << ((i & 1) ? 0.1 : -0.1) << " " << ((i & 2) ? 0.1 : -0.1)
          << " " << ((i & 4) ? 0.1 : -0.1) << "\n";
    }
    for (const char* f : {"1 3 4", "1 4 2", "5 6 8", "5 8 7", "1 2 6", "1 6 5",
                          "3 7 8", "3 8 4", "1 5 7", "1 7 3", "2 4 8", "2 8 6"})
      obj << "f " << f << "\n";
  }
  Write("robot.urdf", R"(<robot name="robot"><link name="box">
  <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><mesh filename="package://mypkg/meshes/cube.obj"/></geometry></collision>
  </link></robot>)");
  unsetenv("ROS_PACKAGE_PATH");
  EXPECT_NE(Error("check robot.urdf", 1).find("mypkg"), std::string::npos);
  Result r = Run("check robot.urdf --package-path mypkg=shelf/mypkg");
  EXPECT_EQ(r.code, 0) << r.err;
  r = Run("check robot.urdf --package-path shelf");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Error("check robot.urdf --package-path nowhere", 1),
            "package path 'nowhere': no such folder '" +
                (dir_ / "nowhere").string() + "'");
  setenv("ROS_PACKAGE_PATH", (dir_ / "shelf").c_str(), 1);
  r = Run("simulate robot.urdf --duration 0.01 --output env --quiet");
  unsetenv("ROS_PACKAGE_PATH");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string resolved = Slurp(dir_ / "env/scenario.yaml");
  EXPECT_NE(resolved.find("packages:\n  - " + (dir_ / "shelf").string()),
            std::string::npos)
      << resolved;
  // The resolved scenario needs no flag and no environment.
  r = Run("simulate env/scenario.yaml --output again --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Slurp(dir_ / "again/log.csv"), Slurp(dir_ / "env/log.csv"));
}

// A URDF whose inertia breaks the triangle inequality by a third of C: the
// error names the flag, --inertia balance loads it (for a model file and
// for every URDF model of a scenario), and the resolved scenario.yaml
// repeats the policy, so it runs again without the flag.
TEST_F(CliTest, InertiaPolicyFromTheCommandLine) {
  Write("rod.urdf", R"(<robot name="rod"><link name="rod">
  <inertial><mass value="2"/><inertia ixx="0.01" iyy="0.01" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link></robot>)");
  Write("rod.yaml",
        "duration: 0.01\nmodels: [{file: rod.urdf, floating: true}]\n");
  for (const char* file : {"rod.urdf", "rod.yaml"}) {
    const std::string refused = Error(std::string("check ") + file, 1);
    EXPECT_NE(refused.find("--inertia balance"), std::string::npos) << refused;
    const Result r = Run(std::string("check --inertia balance ") + file);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("set to their mean"), std::string::npos) << r.out;
  }
  EXPECT_EQ(Error("check --inertia mean rod.urdf", 2),
            "--inertia: 'mean'; accepted values: accept, balance, strict");
  Result r = Run("simulate rod.urdf --inertia balance --output bal --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(Slurp(dir_ / "bal/scenario.yaml").find("inertia: balance"),
            std::string::npos);
  r = Run("simulate bal/scenario.yaml --output again --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Slurp(dir_ / "again/log.csv"), Slurp(dir_ / "bal/log.csv"));
}

TEST_F(CliTest, ClampedEffortsAreReportedOnStderrAndInTheReport) {
  Write("push.yaml", "duration: 0.05\nmodels: [{file: " + kModels +
                         "/arm7.urdf}]\nplant: {gravity: [0, 0, 0]}\n"
                         "controllers: [{name: push, type: constant_effort, "
                         "joints: [joint1], effort: 500}]\n");
  const Result r = Run("simulate push.yaml --output push");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string note =
      "controller 'push', joint 'joint1': the effort limit 176 clamped the "
      "command in ";
  EXPECT_NE(r.err.find("tern: warning: " + note), std::string::npos) << r.err;
  EXPECT_NE(Slurp(dir_ / "push/report.html").find(note), std::string::npos);
  EXPECT_NE(Slurp(dir_ / "push/scenario.yaml").find("#   " + note),
            std::string::npos);
  const std::string log = Slurp(dir_ / "push/log.csv");
  EXPECT_NE(log.find(",176\n"), std::string::npos);
  EXPECT_EQ(log.find(",500\n"), std::string::npos);
}

// MJCF actuators driven by an mjcf_ctrl controller: the forcerange clamp is
// reported on stderr, and a run resumed from a checkpoint repeats the log
// and the clamp counts (the checkpoint holds them) to the bit.
TEST_F(CliTest, MjcfActuatorClampsAreReportedAndSurviveAResume) {
  Write("lift.xml", R"(<mujoco><worldbody>
    <body name="cart" pos="0 0 1">
      <joint name="lift" type="slide" axis="0 0 1" damping="80"/>
      <inertial pos="0 0 0" mass="2" diaginertia="0.1 0.1 0.1"/></body>
  </worldbody>
  <actuator><position name="hold" joint="lift" kp="2000" forcelimited="true"
      forcerange="-30 30"/></actuator>
  <sensor><jointpos name="z" joint="lift"/></sensor></mujoco>)");
  // Raised by 5 cm at t = 0.1 s: the servo asks 100 N, clamped to 30 N.
  Write("lift.yaml",
        "duration: 0.4\nground: false\nmodels: [{file: lift.xml}]\n"
        "plant: {kind: time-stepping, dt: 1e-3}\n"
        "controllers: [{name: up, type: mjcf_ctrl, actuators: [hold], "
        "trajectory: [{t: 0.1, ctrl: [0]}, {t: 0.1001, ctrl: [0.05]}]}]\n");
  Result r = Run("simulate lift.yaml --checkpoint-every 0.15 --output full");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string note =
      "MJCF actuator 'hold': its forcerange clamped the "
      "force in ";
  const std::size_t at = r.err.find("tern: warning: " + note);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
  r =
      Run("simulate full/scenario.yaml --resume full/checkpoint-0.15s.tck "
          "--output resumed");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
  const std::string full = Slurp(dir_ / "full/log.csv");
  EXPECT_EQ(Slurp(dir_ / "resumed/log.csv"), full);
  EXPECT_NE(full.substr(0, full.find('\n')).find(",up.hold,z"),
            std::string::npos)
      << full.substr(0, full.find('\n'));
}

// `tern simulate model.xml`: the MJCF's joint spring and connect act on both
// plants (closed forms: q(t) = r (1 - cos(sqrt(k / I) t)); the held body's
// origin stays 0.2 m from the connect's world point), its <motor> is
// applied at ctrl 0 (no torque, as in MuJoCo) without a warning, its
// <jointpos> and <gyro> are logged, and the resolved scenario repeats the
// run.
TEST_F(CliTest, SimulateAnMjcfFileAppliesItsSpringsAndEqualities) {
  Write("held.xml", R"(<mujoco model="held">
  <worldbody>
    <body name="wheel" pos="0 0 1">
      <joint name="spin" axis="0 0 1" stiffness="2" springref="17.188733853924695"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>
      <site name="rim" pos="0.1 0 0"/></body>
    <body name="held" pos="1 0 2"><freejoint name="free"/>
      <geom size="0.05" contype="0" conaffinity="0"/></body>
  </worldbody>
  <equality><connect body1="held" anchor="0.2 0 0"/></equality>
  <actuator><motor name="drive" joint="spin"/></actuator>
  <sensor><jointpos name="angle" joint="spin"/><gyro name="rate" site="rim"/>
  </sensor>
</mujoco>)");
  for (const std::string plant : {"continuous", "time-stepping"}) {
    SCOPED_TRACE(plant);
    const Result r = Run("simulate held.xml --duration 1.5 --output " + plant +
                         " --plant " + plant);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("not applied"), std::string::npos) << r.err;
    std::istringstream csv(Slurp(dir_ / plant / "log.csv"));
    std::string line;
    std::getline(csv, line);
    std::vector<std::string> header;
    std::istringstream h(line);
    for (std::string c; std::getline(h, c, ',');) header.push_back(c);
    const auto col = [&header](const std::string& name) {
      const auto it = std::find(header.begin(), header.end(), name);
      EXPECT_NE(it, header.end()) << name;
      return static_cast<std::size_t>(it - header.begin());
    };
    const std::size_t spin = col("q.spin"), x = col("q.free_x"),
                      z = col("q.free_z"), angle = col("angle"),
                      rate = col("rate.z"), v_spin = col("v.spin");
    const double w = std::sqrt(2 / 0.1), ref = 0.3;
    double spring_error = 0, string_error = 0, drop = 0;
    int rows = 0;
    while (std::getline(csv, line)) {
      std::vector<double> v;
      std::istringstream l(line);
      for (std::string c; std::getline(l, c, ',');) v.push_back(std::stod(c));
      const double t = v[0];
      spring_error = std::max(spring_error,
                              std::abs(v[spin] - ref * (1 - std::cos(w * t))));
      string_error = std::max(
          string_error,
          std::abs(std::hypot(v[x] - 1.2, v[col("q.free_y")], v[z] - 2) - 0.2));
      drop = std::max(drop, 2 - v[z]);
      // The MJCF sensors: q and the body's rate about its z axis, exactly.
      EXPECT_EQ(v[angle], v[spin]);
      EXPECT_NEAR(v[rate], v[v_spin], 1e-15);
      ++rows;
    }
    EXPECT_EQ(rows, 151);
    std::printf("%s: spring %.1e rad, connect %.1e m\n", plant.c_str(),
                spring_error, string_error);
    EXPECT_LT(spring_error, plant == "continuous" ? 1e-8 : 3e-3);
    EXPECT_LT(string_error, plant == "continuous" ? 1e-8 : 5e-4);
    EXPECT_GT(drop, 0.1);  // it swung (falling freely: 11 m)
  }
  // The resolved scenario (MJCF gravity and timestep in its plant) repeats
  // the run to the bit.
  const Result again =
      Run("simulate time-stepping/scenario.yaml --output again --quiet");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(Slurp(dir_ / "again/log.csv"),
            Slurp(dir_ / "time-stepping/log.csv"));
}

}  // namespace
}  // namespace tern::io::test
