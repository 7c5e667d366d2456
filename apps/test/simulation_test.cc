#include "apps/simulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "apps/progress.h"
#include "apps/report.h"

namespace tern::cli {
namespace {

const std::string kModels = TERN_MODELS_DIR;

Scenario Load(const std::string& yaml) {
  return LoadScenarioString(yaml, "s.yaml", kModels);
}

std::string ErrorOf(const Scenario& s) {
  try {
    ValidateScenario(s, BuildWorld(s));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

double Column(const RunLog& log, const std::string& name, std::size_t row) {
  const auto it = std::find(log.columns.begin(), log.columns.end(), name);
  EXPECT_NE(it, log.columns.end()) << name;
  return log.rows.at(row).at(it - log.columns.begin());
}

TEST(SimulationTest, BoxFallsFreelyThenRestsOnTheGround) {
  const Scenario s = Load(R"(
duration: 1.0
boxes: [{name: b, size: [0.2, 0.2, 0.2], position: [0, 0, 1], mass: 1}]
plant: {contact: {stiffness: 1e5, dissipation: 500}}
integrator: {name: rk4, step: 1e-3}
log: {rate: 100}
)");
  const World w = BuildWorld(s);
  ValidateScenario(s, w);
  RunStatistics stats;
  const RunLog log = RunScenario(s, w, {}, &stats);
  ASSERT_EQ(log.times.size(), 101u);
  EXPECT_EQ(log.columns.front(), "q.b_joint_x");
  EXPECT_EQ(log.num_q, 7);
  // Before touching the ground (at t ~ 0.4 s): z = 1 - g t^2 / 2.
  EXPECT_NEAR(Column(log, "q.b_joint_z", 30), 1 - 9.81 * 0.09 / 2, 1e-9);
  // At rest on the ground: its centre at half its height (1e5 N/m spring).
  EXPECT_NEAR(Column(log, "q.b_joint_z", 100), 0.1, 2e-3);
  EXPECT_NEAR(Column(log, "v.b_joint_vz", 100), 0, 1e-2);
  EXPECT_GT(stats.steps, 0);
}

TEST(SimulationTest, TimeSteppingPlantDropsABoxOntoTheGround) {
  const Scenario s = Load(R"(
duration: 1.0
boxes: [{name: b, size: [0.2, 0.2, 0.2], position: [0, 0, 1], mass: 1}]
plant: {kind: time-stepping, dt: 1e-3}
log: {rate: 100}
)");
  const World w = BuildWorld(s);
  ValidateScenario(s, w);
  const RunLog log = RunScenario(s, w, {}, nullptr);
  ASSERT_EQ(log.times.size(), 101u);
  // Semi-implicit Euler free fall: z_n = 1 - g h^2 n (n + 1) / 2.
  EXPECT_NEAR(Column(log, "q.b_joint_z", 30), 1 - 9.81 * 1e-6 * 300 * 301 / 2,
              1e-9);
  // At rest on the ground, with the LCP's small penetration.
  EXPECT_NEAR(Column(log, "q.b_joint_z", 100), 0.1, 2e-3);
  EXPECT_NEAR(Column(log, "v.b_joint_vz", 100), 0, 1e-2);
}

TEST(SimulationTest, JointPdReachesItsTargetWithoutGravity) {
  const Scenario s = Load(R"(
duration: 3
models: [{file: pendulum.urdf}]
ground: false
plant: {gravity: [0, 0, 0]}
controllers: [{name: pd, type: joint_pd, joints: [pivot], kp: 20, kd: 5, target: 0.4}]
)");
  const RunLog log = RunScenario(s, BuildWorld(s), {}, nullptr);
  EXPECT_NEAR(Column(log, "q.pivot", log.times.size() - 1), 0.4, 1e-3);
  // The controller's command is logged by its name.
  EXPECT_NEAR(Column(log, "pd.pivot", 0), 20 * 0.4, 1e-12);
}

TEST(SimulationTest, ModelErrorsNameTheCulprit) {
  const std::string pendulum = "models: [{file: pendulum.urdf}]\n";
  EXPECT_EQ(
      ErrorOf(Load(pendulum + "initial_state: {positions: {elbow: 1}}\n")),
      "s.yaml: initial_state.positions: no joint 'elbow' in the "
      "model; single-dof joints: pivot");
  EXPECT_EQ(ErrorOf(Load(pendulum + "integrator: rk5\n"))
                .rfind("s.yaml: unknown integrator 'rk5'; known: ", 0),
            0u);
  EXPECT_EQ(ErrorOf(Load(pendulum + "plant: {kind: time-stepping}\n"
                                    "monte_carlo: {samples: 2, output: "
                                    "q.pivot}\n")),
            "s.yaml: monte_carlo needs the continuous plant (the "
            "time-stepping plant has no settable default state yet)");
  EXPECT_EQ(ErrorOf(Load(pendulum + "log: {signals: [state, imu]}\n")),
            "s.yaml: log.signals: unknown signal 'imu'; available: state");
  EXPECT_EQ(ErrorOf(Load(pendulum + "sensors: [{type: imu, body: hand}]\n")),
            "s.yaml: sensor 'imu': no body 'hand' in the model; bodies: "
            "world, base, arm");
  EXPECT_EQ(ErrorOf(Load("models: [{file: pendulum.urdf}, {file: "
                         "pendulum.urdf}]\n")),
            "s.yaml: body 'base' is defined twice; give one model a 'prefix'");
}

TEST(SimulationTest, MonteCarloIsReproducibleAcrossThreadCounts) {
  Scenario s = Load(R"(
duration: 0.5
models: [{file: pendulum.urdf}]
ground: false
integrator: {name: rk4, step: 1e-3}
monte_carlo:
  samples: 6
  threads: 1
  output: q.pivot
  vary: {initial_state.positions.pivot: {uniform: [-1, 1]}, mass.arm: {uniform: [0.5, 2]}}
)");
  const auto one = RunMonteCarlo(s);
  s.monte_carlo.threads = 2;
  const auto two = RunMonteCarlo(s);
  ASSERT_EQ(one.size(), 6u);
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(one[i].ok()) << one[i].error;
    EXPECT_EQ(one[i].output, two[i].output);
  }
  EXPECT_NE(one[0].output, one[1].output);
  // The hook: a runner passed in replaces MonteCarloSimulation.
  int calls = 0;
  const auto hooked = RunMonteCarlo(
      s, [&calls](const SimulatorFactory& f, const ScalarSystemFunction& out,
                  double tf, int n, RandomGenerator* g, int threads) {
        ++calls;
        return MonteCarloSimulation(f, out, tf, n, g, threads);
      });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(hooked[3].output, one[3].output);
}

TEST(SimulationTest, ReportIsOneFileWithTheLibrariesAndTheBodies) {
  const Scenario s = Load(R"(
duration: 0.1
boxes: [{name: crate, size: [0.2, 0.2, 0.2], position: [0, 0, 0.1], mass: 1}]
)");
  const World w = BuildWorld(s);
  const RunLog log = RunScenario(s, w, {}, nullptr);
  const std::string path =
      (std::filesystem::temp_directory_path() / "tern_report_test.html")
          .string();
  WriteReport(path, s, w, log);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string html = ss.str();
  std::filesystem::remove(path);
  EXPECT_NE(html.find("REVISION"), std::string::npos);  // three.js
  EXPECT_NE(html.find("OrbitControls"), std::string::npos);
  EXPECT_NE(html.find("Chart.js v3"), std::string::npos);
  EXPECT_NE(html.find("\"name\":\"crate\""), std::string::npos);
  EXPECT_EQ(html.find("TERN_DATA"), std::string::npos);
  // No network: nothing is loaded from elsewhere.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_LT(html.size(), 2'000'000u);
  // Resting on the ground from the start: four corner contacts in every
  // frame, each pushing the box up with a quarter of its weight.
  const std::size_t at = html.find("\"contacts\":[[");
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = html.find(']', at);
  const std::string first = html.substr(at + 13, end - at - 13);
  EXPECT_EQ(std::count(first.begin(), first.end(), ','), 4 * 7 - 1) << first;
  EXPECT_NE(first.find(",0,0,1,"), std::string::npos) << first;
}

std::string ProgressText(Progress::Mode mode,
                         const std::vector<double>& times) {
  std::FILE* f = std::tmpfile();
  Progress p(mode, 1.0, f);
  for (double t : times) p.Update(t);
  p.Finish();
  std::rewind(f);
  std::string text;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) text += char(c);
  std::fclose(f);
  return text;
}

TEST(ProgressTest, BarOnATerminalLinesOtherwiseNothingWhenQuiet) {
  const std::string bar = ProgressText(Progress::Mode::kBar, {0.5});
  EXPECT_EQ(bar.rfind("\r[###############---------------]   0.500 / 1.000 s  "
                      "real-time x",
                      0),
            0u)
      << bar;
  EXPECT_NE(bar.find("ETA"), std::string::npos);
  const std::string lines =
      ProgressText(Progress::Mode::kLines, {0.05, 0.1, 0.15, 1.0});
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2) << lines;
  EXPECT_EQ(
      lines.rfind("tern: t = 0.100 / 1.000 s (10%), real-time factor ", 0), 0u)
      << lines;
  EXPECT_NE(lines.find("(100%)"), std::string::npos);
  EXPECT_EQ(ProgressText(Progress::Mode::kQuiet, {0.5, 1.0}), "");
}

TEST(SimulationTest, ReportDrawsMeshVisuals) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tern_report_mesh_test";
  fs::create_directories(dir);
  std::ofstream(dir / "tet.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                    "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  std::ofstream(dir / "r.urdf")
      << "<robot name='r'><link name='a'><inertial><mass value='1'/>"
         "<inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/>"
         "</inertial><visual><geometry><mesh filename='tet.obj' "
         "scale='2 2 2'/></geometry></visual></link></robot>";
  const Scenario s = LoadScenarioString(
      "duration: 0.02\nmodels: [{file: r.urdf, floating: true}]\n", "s.yaml",
      dir.string());
  const World w = BuildWorld(s);
  const RunLog log = RunScenario(s, w, {}, nullptr);
  WriteReport((dir / "report.html").string(), s, w, log);
  std::ifstream in(dir / "report.html");
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove_all(dir);
  // The tetrahedron's 4 vertices scaled by 2 (assimp may reorder them) and
  // its 4 faces.
  const std::string html = ss.str();
  const std::string key = "\"shape\":\"mesh\",\"vertices\":[";
  const std::size_t at = html.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = html.find(']', at + key.size());
  std::stringstream numbers(
      html.substr(at + key.size(), end - at - key.size()));
  std::vector<double> v;
  for (std::string x; std::getline(numbers, x, ',');) v.push_back(std::stod(x));
  ASSERT_EQ(v.size(), 12u);
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0.0), 6.0);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 2.0);
  const std::size_t faces = html.find("],\"faces\":[", at);
  ASSERT_EQ(faces, end);
  const std::string f =
      html.substr(faces + 11, html.find(']', faces + 11) - faces - 11);
  EXPECT_EQ(std::count(f.begin(), f.end(), ','), 11) << f;
}

}  // namespace
}  // namespace tern::cli
