// AddLcmSignals' checks, and the scenario key `lcm:` of `tern simulate`:
// the quadruped's legs commanded in lockstep by lcm_test_peer's joint PD
// log exactly what the same scenario with a joint_pd controller logs.
#include "tern/lcm/lcm_signals.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tern/lcm/child_process.h"
#include "tern/systems/primitives/pass_through.h"

namespace tern {
namespace {

TEST(LcmSignals, LockstepNeedsOneOfEachAndSizesMustMatch) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  DiagramBuilder<double> builder;
  auto* source = builder.AddSystem<PassThrough<double>>(3);
  auto three = std::make_shared<LcmVectorTranslator>("sensor", 3);
  auto four = std::make_shared<LcmVectorTranslator>("sensor", 4);
  LcmSignalsOptions lockstep;
  lockstep.lockstep = true;
  EXPECT_THROW(
      AddLcmSignals(&builder, &lcm, {{"A", &source->get_output_port(0), three}},
                    {}, lockstep),
      std::invalid_argument);
  try {
    AddLcmSignals(&builder, &lcm, {{"A", &source->get_output_port(0), four}},
                  {}, {});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("channel 'A'"), std::string::npos);
  }
  EXPECT_THROW(AddLcmSignals(&builder, &lcm, {},
                             {{"B", three, VectorX<double>::Zero(2)}}, {}),
               std::invalid_argument);
  // Free running: one publisher, one subscriber with its command port.
  const auto commands =
      AddLcmSignals(&builder, &lcm, {{"A", &source->get_output_port(0), three}},
                    {{"B", three, VectorX<double>::Zero(3)}}, {});
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0]->size(), 3);
}

#ifdef TERN_EXECUTABLE
std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Scenario(const std::string& controller, const std::string& lcm) {
  return std::string(R"(name: lcm_legs
duration: 0.3
models:
  - file: )") +
         TERN_MODELS_DIR + R"(/quadruped.urdf
    floating: true
    position: [0, 0, 0.44]
plant: {kind: time-stepping, dt: 0.001, contact: {friction: 0.9}}
initial_state:
  positions: {fl_hip_flexion: 0.6, fr_hip_flexion: 0.6, hl_hip_flexion: 0.6,
              hr_hip_flexion: 0.6, fl_knee: -1.2, fr_knee: -1.2,
              hl_knee: -1.2, hr_knee: -1.2}
controllers:
  - name: legs
    joints: [fl_hip_abduction, fl_hip_flexion, fl_knee,
             fr_hip_abduction, fr_hip_flexion, fr_knee,
             hl_hip_abduction, hl_hip_flexion, hl_knee,
             hr_hip_abduction, hr_hip_flexion, hr_knee]
)" + controller +
         R"(
log: {rate: 100, signals: [state, legs]}
)" + lcm;
}

TEST(LcmSignals, TernSimulateLockstepScenarioEqualsOneProcess) {
  namespace fs = std::filesystem;
  const std::string url = LoopbackUrlForThisProcess();
  const fs::path dir =
      fs::temp_directory_path() / ("tern_lcm_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "pd.yaml") << Scenario(
        "    type: joint_pd\n    kp: 300\n    kd: 10\n"
        "    target: [0, 0.6, -1.2, 0, 0.6, -1.2, 0, 0.6, -1.2, 0, 0.6, -1.2]",
        "");
    std::ofstream(dir / "lcm.yaml") << Scenario(
        "    type: lcm",
        "lcm: {url: '" + url +
            "', publish: [state], subscribe: [legs], lockstep: true, "
            "timeout: 30}\n");
  }
  const std::string tern = TERN_EXECUTABLE;
  ASSERT_EQ(std::system((tern + " simulate " + (dir / "pd.yaml").string() +
                         " --quiet --output " + (dir / "pd").string())
                            .c_str()),
            0);
  // The controller: the quadruped's PD served on channels state -> legs
  // (the port, unique to this process, keeps parallel runs apart).
  ChildProcess peer(
      {TERN_LCM_TEST_PEER, url, "state", "legs", "pd", "1000000"});
  ASSERT_EQ(std::system((tern + " simulate " + (dir / "lcm.yaml").string() +
                         " --quiet --output " + (dir / "lcm").string())
                            .c_str()),
            0);
  const std::string pd = ReadAll((dir / "pd" / "log.csv").string());
  const std::string lcm = ReadAll((dir / "lcm" / "log.csv").string());
  EXPECT_GT(pd.size(), 1000u);
  EXPECT_EQ(pd, lcm);
  // The resolved scenario keeps the key.
  EXPECT_NE(
      ReadAll((dir / "lcm" / "scenario.yaml").string()).find("lockstep: true"),
      std::string::npos);
  fs::remove_all(dir);
}
// A plant's sensor published by `tern simulate` (lcm: {publish: [imu]},
// free running): another process receives vector_t messages of kind "imu"
// every period whose times and values are the log's imu columns at those
// times, the quadruped standing under joint PD (the accelerometer reads
// about +9.81 m/s^2 along the base's z).
TEST(LcmSignals, TernSimulatePublishesAPlantSensor) {
  namespace fs = std::filesystem;
  const std::string url = LoopbackUrlForThisProcess();
  const std::string channel = UniqueChannelName("imu");
  const fs::path dir =
      fs::temp_directory_path() / ("tern_lcm_imu_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string yaml = Scenario(
      "    type: joint_pd\n    kp: 300\n    kd: 10\n"
      "    target: [0, 0.6, -1.2, 0, 0.6, -1.2, 0, 0.6, -1.2, 0, 0.6, -1.2]",
      "sensors: [{name: " + channel + ", type: imu, body: base}]\n" +
          "lcm: {url: '" + url + "', publish: [" + channel +
          "], period: 0.01}\n");
  const std::string logged = "signals: [state, legs]";
  yaml.replace(yaml.find(logged), logged.size(),
               "signals: [state, legs, " + channel + "]");
  std::ofstream(dir / "imu.yaml") << yaml;
  // Received here while `tern simulate` runs in its own process.
  LcmInterface lcm(url);
  LcmVectorTranslator imu("imu", 6);
  std::vector<std::pair<std::int64_t, VectorX<double>>> received;
  lcm.Subscribe(channel, "test", [&](const std::uint8_t* data, int size) {
    std::int64_t utime = 0;
    VectorX<double> value;
    imu.Decode(data, size, channel, &utime, &value);
    received.emplace_back(utime, value);
  });
  std::atomic<bool> done{false};
  int code = -1;
  std::thread run([&] {
    code = std::system((std::string(TERN_EXECUTABLE) + " simulate " +
                        (dir / "imu.yaml").string() + " --quiet --output " +
                        (dir / "out").string())
                           .c_str());
    done = true;
  });
  while (!done) lcm.HandleSubscriptions(0.02);
  run.join();
  lcm.HandleSubscriptions(0.2);  // the last ones still in flight
  ASSERT_EQ(code, 0);
  // The log: time, then the imu's 6 columns at the end of each row.
  std::istringstream log(ReadAll((dir / "out" / "log.csv").string()));
  std::string line;
  std::getline(log, line);
  ASSERT_NE(line.find(channel + ".ax"), std::string::npos) << line;
  std::map<std::int64_t, VectorX<double>> rows;
  while (std::getline(log, line)) {
    std::vector<double> cells;
    std::istringstream row(line);
    for (std::string c; std::getline(row, c, ',');) {
      cells.push_back(std::stod(c));
    }
    rows[std::llround(cells[0] * 1e6)] =
        Eigen::Map<VectorX<double>>(cells.data() + cells.size() - 6, 6);
  }
  ASSERT_GE(received.size(), 25u);  // 31 sent (0 to 0.3 s)
  int matched = 0;
  for (const auto& [utime, value] : received) {
    const auto it = rows.find(utime);
    ASSERT_NE(it, rows.end()) << "no log row at utime " << utime;
    for (int i = 0; i < 6; ++i) {
      EXPECT_NEAR(value[i], it->second[i], 1e-12 * (1 + std::abs(value[i])))
          << "utime " << utime << ", component " << i;
    }
    ++matched;
  }
  EXPECT_EQ(matched, static_cast<int>(received.size()));
  EXPECT_NEAR(received.back().second[2], 9.81, 0.5);  // az, standing
  fs::remove_all(dir);
}

// The key's mistakes, each named (tern check reads and validates).
TEST(LcmSignals, ScenarioMistakesAreNamed) {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() /
                        ("tern_lcm_bad_" + std::to_string(getpid()) + ".yaml");
  const std::string lcm_legs = "    type: lcm";
  const struct {
    std::string controller, lcm, expected;
  } cases[] = {
      {lcm_legs, "",
       "controller 'legs' has type lcm but is not in "
       "'lcm.subscribe'"},
      {lcm_legs, "lcm: {publish: [gps], subscribe: [legs]}\n",
       "'lcm.publish' names 'gps', which is neither 'state' nor a sensor"},
      {"    type: joint_pd\n    kp: 1\n    kd: 1\n    target: 0",
       "lcm: {publish: [state], subscribe: [legs]}\n",
       "'lcm.subscribe' names 'legs', which is not a controller of type lcm"},
      {lcm_legs,
       "lcm: {publish: [state, state], subscribe: [legs], lockstep: true}\n",
       "'lcm.lockstep' needs exactly one 'publish' and one 'subscribe'"},
      {lcm_legs + "\n    kp: 3", "lcm: {subscribe: [legs]}\n",
       "'controllers[0].kp' is not for lcm controllers"},
      {lcm_legs, "lcm: {subscribe: [legs], rate: 3}\n", "rate"},
      {lcm_legs,
       "lcm: {subscribe: [legs]}\nmonte_carlo: {samples: 2, output: "
       "q.fl_knee}\n",
       "'lcm' and 'monte_carlo' do not go together"},
  };
  for (const auto& c : cases) {
    std::ofstream(file) << Scenario(c.controller, c.lcm);
    const std::string command =
        std::string(TERN_EXECUTABLE) + " check " + file.string() + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buffer[512];
    while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) out += buffer;
    EXPECT_NE(pclose(pipe), 0) << c.lcm;
    EXPECT_NE(out.find(c.expected), std::string::npos) << out;
  }
  fs::remove(file);
}
#endif

}  // namespace
}  // namespace tern
