#include "tern/io/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tern/io/simulation.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern::io {
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

// plant.time_stepping: read, written back only when set, bad values named;
// its defaults are TimeSteppingOptions' (so a scenario that does not set
// it runs the plant's defaults).
TEST(ScenarioTest, TimeSteppingSolverSettings) {
  const TimeSteppingSpec spec;
  const TimeSteppingOptions options;
  EXPECT_EQ(options.solver, TimeSteppingOptions::Solver::kConvex);
  EXPECT_EQ(spec.solver, "convex");
  EXPECT_EQ(spec.tolerance, options.convex_tolerance);
  EXPECT_EQ(spec.max_iterations, options.convex_max_iterations);
  EXPECT_EQ(spec.creep_velocity, options.convex_creep_velocity);
  EXPECT_EQ(spec.anchor_sticking, options.convex_anchor_sticking);
  EXPECT_EQ(options.on_nonconvergence,
            TimeSteppingOptions::OnNonConvergence::kThrow);
  EXPECT_EQ(spec.on_nonconvergence, "error");

  const std::string box = "boxes: [{}]\n";
  const Scenario plain = LoadScenarioString(
      box + "plant: {kind: time-stepping}\n", "p.yaml", kModels);
  EXPECT_EQ(ScenarioToYaml(plain).find("time_stepping"), std::string::npos);
  const Scenario s = LoadScenarioString(
      box +
          "plant: {kind: time-stepping, time_stepping: {solver: lemke, "
          "tolerance: 1e-8, max_iterations: 50, creep_velocity: 1e-7, "
          "anchor_sticking: true, on_nonconvergence: warn}}\n",
      "s.yaml", kModels);
  const TimeSteppingSpec& t = s.plant.time_stepping;
  EXPECT_EQ(t.solver, "lemke");
  EXPECT_EQ(t.tolerance, 1e-8);
  EXPECT_EQ(t.max_iterations, 50);
  EXPECT_EQ(t.creep_velocity, 1e-7);
  EXPECT_TRUE(t.anchor_sticking);
  EXPECT_EQ(t.on_nonconvergence, "warn");
  const std::string yaml = ScenarioToYaml(s);
  const Scenario again = LoadScenarioString(yaml, "again.yaml", "/");
  EXPECT_EQ(ScenarioToYaml(again), yaml);
  EXPECT_EQ(again.plant.time_stepping.solver, "lemke");
  EXPECT_TRUE(again.plant.time_stepping.anchor_sticking);
  // anchor_sticking alone is written too (false: a non-default setting).
  const Scenario unanchored = LoadScenarioString(
      box +
          "plant: {kind: time-stepping, time_stepping: {anchor_sticking: "
          "false}}\n",
      "a.yaml", kModels);
  EXPECT_FALSE(unanchored.plant.time_stepping.anchor_sticking);
  EXPECT_NE(ScenarioToYaml(unanchored).find("anchor_sticking: false"),
            std::string::npos);
  const std::string bad =
      ErrorOf(box + "plant: {time_stepping: {anchor_sticking: 2}}\n");
  EXPECT_NE(bad.find("s.yaml:2:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("'plant.time_stepping.anchor_sticking'"),
            std::string::npos)
      << bad;

  EXPECT_EQ(ErrorOf(box + "plant: {time_stepping: {solver: newton}}\n"),
            "s.yaml:2:33: 'plant.time_stepping.solver' is 'newton'; accepted "
            "values: convex, lemke, pgs, auto");
  EXPECT_EQ(ErrorOf(box + "plant: {time_stepping: {max_iterations: 0}}\n"),
            "s.yaml:2:41: 'plant.time_stepping.max_iterations' must be an "
            "integer in [1, 1000000], not 0");
  EXPECT_EQ(ErrorOf(box + "plant: {time_stepping: {creep_velocity: -1}}\n"),
            "s.yaml:2:41: 'plant.time_stepping.creep_velocity' must be >= 0, "
            "not -1");
  EXPECT_NE(ErrorOf(box + "plant: {time_stepping: {sigma: 1}}\n").find("sigma"),
            std::string::npos);
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

// Every example scenario, written as the resolved scenario.yaml a run
// writes, reads back to the same text, byte for byte (issue 27: a written
// `nan` no longer loaded).
TEST(ScenarioTest, EveryExampleScenarioRoundTripsByteIdentical) {
  int n = 0;
  for (const auto& f : fs::directory_iterator(TERN_SCENARIOS_DIR)) {
    if (f.path().extension() != ".yaml") continue;
    SCOPED_TRACE(f.path().string());
    const std::string yaml = ScenarioToYaml(LoadScenarioFile(f.path()));
    EXPECT_EQ(ScenarioToYaml(LoadScenarioString(yaml, "resolved.yaml", "/")),
              yaml);
    ++n;
  }
  EXPECT_GE(n, 4);
}

// Issue 27, findings 5 to 7: keys that are not strings, nesting beyond
// yaml-cpp's limit, non-finite numbers and integers beyond an int are
// refused, naming the file, line, column and key.
TEST(ScenarioTest, UntrustedValuesNameTheKey) {
  const std::string m = "models: [{file: pendulum.urdf}]\n";
  EXPECT_EQ(ErrorOf("{[a]: 1}\n"),
            "s.yaml:1:2: a key in 'scenario' must be a plain string, not a "
            "list");
  EXPECT_EQ(ErrorOf(m + "initial_state: {positions: {{a: 1}: 2}}\n"),
            "s.yaml:2:29: a key in 'initial_state.positions' must be a plain "
            "string, not a map");
  EXPECT_EQ(ErrorOf(m + "effort_limits: {[j]: 1}\n"),
            "s.yaml:2:17: a key in 'effort_limits' must be a plain string, "
            "not a list");
  const std::string deep = ErrorOf(std::string(100000, '['));
  EXPECT_NE(deep.find("YAML nesting deeper than yaml-cpp's limit"),
            std::string::npos)
      << deep;
  EXPECT_EQ(deep.rfind("s.yaml:", 0), 0u) << deep;
  EXPECT_EQ(ErrorOf(m + "duration: .nan\n"),
            "s.yaml:2:11: 'duration' must be a finite number, not '.nan'");
  EXPECT_EQ(ErrorOf(m + "ground: {height: .inf}\n"),
            "s.yaml:2:18: 'ground.height' must be a finite number, not "
            "'.inf'");
  EXPECT_EQ(ErrorOf(m + "initial_state: {velocities: {pivot: -.inf}}\n"),
            "s.yaml:2:37: 'initial_state.velocities.pivot' must be a finite "
            "number, not '-.inf'");
  EXPECT_EQ(ErrorOf(m + "monte_carlo: {samples: 2, output: q.pivot, vary: "
                        "{contact.friction: {uniform: [0, .nan]}}}\n"),
            "s.yaml:2:83: 'monte_carlo.vary.contact.friction.uniform[1]' "
            "must be a finite number, not '.nan'");
  EXPECT_EQ(ErrorOf(m + "monte_carlo: {samples: 4294967297, output: q}\n"),
            "s.yaml:2:24: 'monte_carlo.samples' must be an integer in [1, "
            "100000000], not 4294967297");
  EXPECT_EQ(ErrorOf(m + "monte_carlo: {samples: 2147483648, output: q}\n"),
            "s.yaml:2:24: 'monte_carlo.samples' must be an integer in [1, "
            "100000000], not 2147483648");
  EXPECT_EQ(
      ErrorOf(m + "monte_carlo: {samples: 1, threads: -1, output: q}\n"),
      "s.yaml:2:36: 'monte_carlo.threads' must be an integer in [0, 4096], "
      "not -1");
  EXPECT_EQ(ErrorOf(m + "sensors: [{type: encoder, joints: [pivot], "
                        "ticks_per_revolution: 4294967297}]\n"),
            "s.yaml:2:66: 'sensors[0].ticks_per_revolution' must be an "
            "integer in [1, 2147483647], not 4294967297");
  EXPECT_EQ(ErrorOf(m + "seed: 99999999999999999999\n"),
            "s.yaml:2:7: 'seed' must be an integer in [0, "
            "9223372036854775807], not '99999999999999999999'");
  EXPECT_EQ(ErrorOf("models: [{file: /dev/zero}]\n"),
            "s.yaml:1:17: 'models[0].file': /dev/zero: not a regular file "
            "(model files must be regular files)");
  EXPECT_EQ(ErrorOf("models: [{file: /tmp}]\n"),
            "s.yaml:1:17: 'models[0].file': /tmp: not a regular file (model "
            "files must be regular files)");
}

TEST(ScenarioTest, UnknownKeyNamesFileLineColumnAndAcceptedKeys) {
  EXPECT_EQ(
      ErrorOf("duration: 1\nmodels: [{file: pendulum.urdf}]\nduraton: 2\n"),
      "s.yaml:3:1: unknown key 'duraton' in 'scenario'; accepted keys: "
      "name, duration, seed, plant, integrator, packages, models, "
      "effort_limits, ground, boxes, initial_state, controllers, sensors, "
      "log, monte_carlo, lcm");
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
  // A robot taller than 0.5 m is lifted until its lowest collision
  // geometry is 5 mm above the ground (at 0.5 m its feet were 0.45 m
  // deep, and the contact threw it).
  const Scenario humanoid = ScenarioFromUrdf(kModels + "/humanoid.urdf");
  EXPECT_GT(humanoid.models[0].position.z(), 0.5);
  const World w = BuildWorld(humanoid);
  KinematicsCache<double> cache(w.tree, /*with_mass_matrix=*/false);
  ForwardKinematics(w.tree, &cache, w.q0);
  GeometryWorkspace ws(w.geometry);
  UpdateGeometryPoses(w.geometry, cache.X_WB, &ws);
  double lowest = INFINITY;
  for (int g : ws.bounded) lowest = std::min(lowest, ws.aabb_lo[g].z());
  EXPECT_NEAR(lowest, 0.005, 1e-12);
}

TEST(ScenarioTest, UrdfWithAWorldRootIsWeldedNotFloating) {
  // The root link "world" is the world: the robot is welded, and the
  // scenario must say so (issue 29).
  const fs::path dir = fs::path(::testing::TempDir()) / "tern_world_root";
  fs::create_directories(dir);
  const std::string urdf = (dir / "r.urdf").string();
  std::ofstream(urdf) << R"(<robot name="r">
  <link name="world"/>
  <link name="a"><inertial><mass value="2"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="world"/><child link="a"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";
  const Scenario s = ScenarioFromUrdf(urdf);
  EXPECT_FALSE(s.models[0].floating);
  EXPECT_NE(ScenarioToYaml(s).find("floating: false"), std::string::npos);
}

TEST(ScenarioTest, PackagesFiltersAndEffortLimitsReadAndRoundTrip) {
  const fs::path dir = fs::path(::testing::TempDir()) / "tern_packages";
  fs::create_directories(dir / "pkgs" / "mine");
  const Scenario s = LoadScenarioString(R"(
packages:
  - {herb_description: pkgs/mine}
  - pkgs
effort_limits: {joint1: 5, joint2: none}
models:
  - file: )" + kModels + R"(/arm7.urdf
    self_collision: false
    exclude_collisions: [[link1, link3], [link2, link4]]
    collision_groups:
      - {name: a, links: [link1, link2], ignore: [b]}
      - {name: b, links: [link5]}
)",
                                        "s.yaml", dir.string());
  ASSERT_EQ(s.packages.packages.size(), 1u);
  EXPECT_EQ(s.packages.packages.at("herb_description"),
            (dir / "pkgs" / "mine").lexically_normal().string());
  ASSERT_EQ(s.packages.search_paths.size(), 1u);
  EXPECT_EQ(s.packages.search_paths[0],
            (dir / "pkgs").lexically_normal().string());
  EXPECT_FALSE(s.effort_limits.disable_all);
  EXPECT_EQ(s.effort_limits.joints.at("joint1"), 5);
  EXPECT_TRUE(std::isinf(s.effort_limits.joints.at("joint2")));
  const ModelSpec& m = s.models[0];
  EXPECT_FALSE(m.self_collision);
  ASSERT_EQ(m.exclude_collisions.size(), 2u);
  EXPECT_EQ(m.exclude_collisions[1].second, "link4");
  ASSERT_EQ(m.collision_groups.size(), 2u);
  EXPECT_EQ(m.collision_groups[0].ignore, std::vector<std::string>{"b"});
  // The resolved scenario reads back to the same scenario.
  const std::string yaml = ScenarioToYaml(s);
  const Scenario again = LoadScenarioString(yaml, "again.yaml", "/");
  EXPECT_EQ(ScenarioToYaml(again), yaml);
  EXPECT_EQ(again.packages.packages, s.packages.packages);
  // 'none' disables every URDF limit.
  const Scenario none = LoadScenarioString("effort_limits: none\nboxes: [{}]\n",
                                           "n.yaml", kModels);
  EXPECT_TRUE(none.effort_limits.disable_all);
  EXPECT_NE(ScenarioToYaml(none).find("effort_limits: none"),
            std::string::npos);
}

TEST(ScenarioTest, PackageAndFilterMistakesNameTheKey) {
  const std::string arm = "models: [{file: arm7.urdf, ";
  EXPECT_NE(ErrorOf("packages: {p: /no/such/folder}\nboxes: [{}]\n")
                .find("'packages.p': no such folder '/no/such/folder'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(arm + "exclude_collisions: [[a, b, c]]}]\n")
                .find("'models[0].exclude_collisions[0]' must be a pair"),
            std::string::npos);
  EXPECT_NE(ErrorOf(arm + "collision_groups: [{name: a, links: [link1], "
                          "ignore: [z]}]}]\n")
                .find("no group 'z' in this model; groups: a"),
            std::string::npos);
  EXPECT_NE(ErrorOf(arm + "srdf: none.srdf}]\n").find("no such file"),
            std::string::npos);
  EXPECT_NE(ErrorOf("effort_limits: {j: -1}\nboxes: [{}]\n")
                .find("'effort_limits.j' must be positive"),
            std::string::npos);
  EXPECT_NE(ErrorOf("effort_limits: 3\nboxes: [{}]\n")
                .find("'effort_limits' must be 'none'"),
            std::string::npos);
}

TEST(ScenarioTest, PackagePathArguments) {
  const fs::path dir = fs::path(::testing::TempDir()) / "tern_package_args";
  fs::create_directories(dir / "shelf" / "pkg_a");
  std::ofstream(dir / "shelf" / "pkg_a" / "package.xml") << "<package/>";
  PackagesSpec p;
  AddPackagePath("named=" + (dir / "shelf").string(), &p);
  AddPackagePath((dir / "shelf" / "pkg_a").string(), &p);  // a package
  AddPackagePath((dir / "shelf").string(), &p);            // a folder
  AddPackagePath((dir / "shelf").string(), &p);            // once only
  EXPECT_EQ(p.packages.at("named"), (dir / "shelf").string());
  EXPECT_EQ(p.packages.at("pkg_a"), (dir / "shelf" / "pkg_a").string());
  EXPECT_EQ(p.search_paths, std::vector<std::string>{(dir / "shelf").string()});
  for (const std::string bad : {"x=/no/such", "=/tmp", "/no/such"}) {
    try {
      AddPackagePath(bad, &p);
      ADD_FAILURE() << bad;
    } catch (const ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos)
          << e.what();
    }
  }
  // ROS_PACKAGE_PATH: ':'-separated, missing folders skipped.
  const std::string env = (dir / "shelf").string() +
                          ":/no/such:" + (dir / "shelf" / "pkg_a").string();
  setenv("ROS_PACKAGE_PATH", env.c_str(), 1);
  PackagesSpec ros;
  AddRosPackagePath(&ros);
  unsetenv("ROS_PACKAGE_PATH");
  EXPECT_EQ(ros.search_paths,
            std::vector<std::string>{(dir / "shelf").string()});
  EXPECT_EQ(ros.packages.count("pkg_a"), 1u);
  // The parser's options, in one place.
  UrdfParseOptions options;
  ApplyPackages(p, &options);
  EXPECT_EQ(options.packages.GetPath("pkg_a"),
            (dir / "shelf" / "pkg_a").string());
  EXPECT_EQ(options.packages.GetPath("named"), (dir / "shelf").string());
  EXPECT_EQ(options.packages.search_paths(), p.search_paths);
}

}  // namespace
}  // namespace tern::io
