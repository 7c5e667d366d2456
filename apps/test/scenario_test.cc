#include "apps/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace tern::cli {
namespace {

namespace fs = std::filesystem;

const std::string kModels = TERN_MODELS_DIR;

// The error message LoadScenarioString throws for `yaml`, or "" if none.
std::string ErrorOf(const std::string& yaml) {
  try {
    LoadScenarioString(yaml, "s.yaml", kModels);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioTest, ReadsEveryBlock) {
  const Scenario s = LoadScenarioString(R"(
name: demo
duration: 0.5
seed: 3
plant: {kind: continuous, gravity: [0, 0, -1], contact: {stiffness: 2e5, normal_law: hunt_crossley}}
integrator: {name: dopri5, rtol: 1e-8}
models:
  - {file: pendulum.urdf, position: [0, 0, 1], prefix: "p_"}
ground: {height: -0.5}
boxes: [{name: b, size: [0.1, 0.2, 0.3], mass: 2}]
initial_state: {positions: {p_pivot: 0.25}, velocities: {p_pivot: -1}}
controllers:
  - {name: pd, type: joint_pd, joints: [p_pivot], kp: 10, kd: 1,
     trajectory: [{t: 0, q: [0]}, {t: 1, q: [1]}]}
sensors: [{name: enc, type: encoder, joints: [p_pivot]}]
log: {rate: 50}
monte_carlo: {samples: 4, output: q.p_pivot, vary: {contact.friction: {gaussian: [1, 0.1]}}}
)",
                                        "s.yaml", kModels);
  EXPECT_EQ(s.name, "demo");
  EXPECT_EQ(s.duration, 0.5);
  EXPECT_EQ(s.seed, 3u);
  EXPECT_EQ(s.plant.gravity.z(), -1);
  EXPECT_EQ(s.plant.contact.stiffness, 2e5);
  EXPECT_EQ(s.plant.contact.normal_law, "hunt_crossley");
  EXPECT_EQ(s.integrator.name, "dopri5");
  EXPECT_EQ(s.integrator.rtol, 1e-8);
  ASSERT_EQ(s.models.size(), 1u);
  EXPECT_EQ(s.models[0].path, kModels + "/pendulum.urdf");
  EXPECT_EQ(s.models[0].prefix, "p_");
  EXPECT_EQ(s.ground.height, -0.5);
  ASSERT_EQ(s.boxes.size(), 1u);
  EXPECT_EQ(s.boxes[0].size.z(), 0.3);
  EXPECT_EQ(s.initial_positions.at("p_pivot"), 0.25);
  EXPECT_EQ(s.initial_velocities.at("p_pivot"), -1);
  ASSERT_EQ(s.controllers.size(), 1u);
  EXPECT_EQ(s.controllers[0].trajectory_times.size(), 2u);
  EXPECT_EQ(s.controllers[0].kp, std::vector<double>{10});
  // An empty signal list means every signal.
  EXPECT_EQ(s.log.signals, (std::vector<std::string>{"state", "enc", "pd"}));
  EXPECT_EQ(s.monte_carlo.samples, 4);
  ASSERT_EQ(s.monte_carlo.vary.size(), 1u);
  EXPECT_EQ(s.monte_carlo.vary[0].second.kind, Distribution::Kind::kGaussian);
}

TEST(ScenarioTest, ResolvedScenarioReadsBackToTheSameScenario) {
  const Scenario s = LoadScenarioFile(std::string(TERN_SCENARIOS_DIR) +
                                      "/quadruped_standing.yaml");
  const std::string yaml = ScenarioToYaml(s);
  const Scenario again = LoadScenarioString(yaml, "resolved.yaml", "/");
  EXPECT_EQ(ScenarioToYaml(again), yaml);
  EXPECT_NE(yaml.find("tangential_damping"), std::string::npos);
}

TEST(ScenarioTest, EveryExampleScenarioLoads) {
  int n = 0;
  for (const auto& f : fs::directory_iterator(TERN_SCENARIOS_DIR)) {
    if (f.path().extension() != ".yaml") continue;
    SCOPED_TRACE(f.path().string());
    EXPECT_NO_THROW(LoadScenarioFile(f.path().string()));
    ++n;
  }
  EXPECT_GE(n, 4);
}

TEST(ScenarioTest, UnknownKeyNamesFileLineColumnAndAcceptedKeys) {
  EXPECT_EQ(
      ErrorOf("duration: 1\nmodels: [{file: pendulum.urdf}]\nduraton: 2\n"),
      "s.yaml:3:1: unknown key 'duraton' in 'scenario'; accepted keys: "
      "name, duration, seed, plant, integrator, models, ground, boxes, "
      "initial_state, controllers, sensors, log, monte_carlo");
  const std::string nested = ErrorOf(
      "models: [{file: pendulum.urdf}]\nplant:\n  contact:\n    stifness: 1\n");
  EXPECT_EQ(nested.rfind("s.yaml:4:5: unknown key 'stifness' in "
                         "'plant.contact'; accepted keys: stiffness,",
                         0),
            0u)
      << nested;
}

TEST(ScenarioTest, BadValuesNameTheKey) {
  const std::string m = "models: [{file: pendulum.urdf}]\n";
  EXPECT_EQ(ErrorOf(m + "duration: abc\n"),
            "s.yaml:2:11: 'duration' must be a number, not 'abc'");
  EXPECT_EQ(ErrorOf(m + "duration: -1\n"),
            "s.yaml:2:11: 'duration' must be positive, not -1");
  EXPECT_EQ(ErrorOf(m + "plant: {kind: discrete}\n"),
            "s.yaml:2:15: 'plant.kind' is 'discrete'; accepted values: "
            "continuous, time-stepping");
  EXPECT_EQ(ErrorOf(m + "boxes: [{size: [1, 2]}]\n"),
            "s.yaml:2:16: 'boxes[0].size' must have 3 numbers, not 2");
  EXPECT_EQ(ErrorOf("models: [{file: nope.urdf}]\n"),
            "s.yaml:1:17: 'models[0].file': no such file '" + kModels +
                "/nope.urdf'");
  EXPECT_EQ(ErrorOf(m + "controllers: [{type: joint_pd, joints: [a, b], "
                        "kp: [1, 2, 3], kd: 1, target: 0}]\n"),
            "s.yaml:2:52: 'controllers[0].kp' has 3 numbers for 2 joints");
  EXPECT_EQ(
      ErrorOf(m + "monte_carlo: {samples: 2, output: q.x, vary: "
                  "{x.y: 1}}\n")
          .rfind("s.yaml:2:47: unknown key 'x.y' in 'monte_carlo.vary'", 0),
      0u);
  EXPECT_EQ(ErrorOf("seed: 1\n"),
            "s.yaml:1:1: the scenario has no 'models' and no 'boxes': nothing "
            "to simulate");
  EXPECT_EQ(ErrorOf("duration: [1\n").rfind("s.yaml:2:1: YAML syntax error", 0),
            0u);
}

TEST(ScenarioTest, MissingFileIsNamed) {
  try {
    LoadScenarioFile("/no/such/scenario.yaml");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "/no/such/scenario.yaml: no such file");
  }
}

TEST(ScenarioTest, UrdfDefaults) {
  const Scenario arm = ScenarioFromUrdf(kModels + "/arm7.urdf");
  ASSERT_EQ(arm.models.size(), 1u);
  EXPECT_TRUE(arm.models[0].floating);  // a massive root falls
  EXPECT_EQ(arm.models[0].position.z(), 0.5);
  EXPECT_TRUE(arm.ground.enabled);
  const Scenario pendulum = ScenarioFromUrdf(kModels + "/pendulum.urdf");
  EXPECT_FALSE(pendulum.models[0].floating);  // a massless mount is welded
}

}  // namespace
}  // namespace tern::cli
