#pragma once
// Scenario: one simulation run of the `tern` program, as read from a YAML
// file (docs/scenarios.md specifies every key) or made from a URDF with the
// defaults (ScenarioFromUrdf). Every field holds its resolved value, so
// ScenarioToYaml writes a file that repeats the run exactly.
//
// Errors in a scenario file throw ScenarioError, whose message starts
// "<file>:<line>:<column>: " and names the key at fault (and, for an unknown
// key, lists the accepted ones).
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/multibody/parsing/urdf_parser.h"

namespace tern::io {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A number, or a random draw (Monte Carlo): uniform on [a, b] or Gaussian
// with mean a and standard deviation b.
struct Distribution {
  enum class Kind { kConstant, kUniform, kGaussian };
  Kind kind{Kind::kConstant};
  double a{0};
  double b{0};
};

// A named set of a model's links whose collisions with the links of the
// groups in `ignore` (its own name included, for the links among
// themselves) are not tested: Drake's collision filter groups.
struct CollisionGroupSpec {
  std::string name;
  std::vector<std::string> links;
  std::vector<std::string> ignore;  // group names of the same model
};

// A URDF placed in the world.
struct ModelSpec {
  std::string file;      // as written (relative to the scenario's folder)
  std::string path;      // resolved
  bool floating{false};  // root attached by a floating joint
  Vector3<double> position{Vector3<double>::Zero()};  // m, root in world
  Vector3<double> rpy{Vector3<double>::Zero()};       // rad
  std::string prefix;  // prepended to body and joint names
  // Collision filters, link names as in the URDF (without the prefix).
  // Bodies joined by a joint never collide (except a floating root with the
  // world); these add to that.
  bool self_collision{true};  // false: no pair of this model's links
  std::vector<std::pair<std::string, std::string>> exclude_collisions;
  std::string srdf;       // as written: its <disable_collisions> pairs
  std::string srdf_path;  // resolved
  std::vector<CollisionGroupSpec> collision_groups;
  // What a URDF's inertia that no rigid body has becomes (InertiaPolicy,
  // urdf_parser.h; key `inertia: accept | balance | strict`). MJCF and
  // SDFormat files keep their own rules (MJCF: <compiler balanceinertia>).
  InertiaPolicy inertia{InertiaPolicy::kAccept};
};

// Where package://NAME/... URIs resolve: explicit NAME -> folder entries
// and folders searched for NAME (a folder holding a package.xml is the
// package named after the folder). Relative folders resolve against the
// scenario's folder when read from a file.
struct PackagesSpec {
  std::map<std::string, std::string> packages;  // name -> folder
  std::vector<std::string> search_paths;
  bool empty() const { return packages.empty() && search_paths.empty(); }
};

// Joint effort limits: the URDF's <limit effort> clamps every TorqueSource
// command unless disabled (all, or per joint) or overridden per joint.
struct EffortLimitsSpec {
  bool disable_all{false};
  // joint name -> limit (N m or N); infinity disables that joint's limit.
  std::map<std::string, double> joints;
};

// A box in the world: fixed to the world (mass 0) or a free body.
struct BoxSpec {
  std::string name;
  Vector3<double> size{0.1, 0.1, 0.1};                // m, full side lengths
  Vector3<double> position{Vector3<double>::Zero()};  // m
  Vector3<double> rpy{Vector3<double>::Zero()};       // rad
  Vector4<double> color{0.8, 0.3, 0.2, 1.0};          // rgba in [0, 1]
  double mass{1};  // kg; 0: fixed to the world
};

struct ContactSpec {
  double stiffness{1e6};                  // N/m
  double dissipation{100};                // N s/m
  double friction{1.0};                   // Coulomb coefficient
  double tangential_damping{1e3};         // N s/m per contact point
  std::string normal_law{"linear"};       // linear | hunt_crossley
  double hunt_crossley_dissipation{0.2};  // s/m
};

// The time-stepping plant's solver settings a scenario may set
// (plant.time_stepping; TimeSteppingOptions' other fields keep their
// defaults, which these equal until set). The continuous plant ignores them.
struct TimeSteppingSpec {
  std::string solver{"convex"};            // convex | lemke | pgs | auto
  double tolerance{1e-6};                  // convex_tolerance, relative
  int max_iterations{100};                 // convex_max_iterations
  double creep_velocity{0};                // m/s, convex_creep_velocity
  bool anchor_sticking{true};              // convex_anchor_sticking
  std::string on_nonconvergence{"error"};  // error | warn (and count)
};

struct PlantSpec {
  std::string kind{"continuous"};        // continuous | time-stepping
  double dt{1e-3};                       // s, time-stepping period
  Vector3<double> gravity{0, 0, -9.81};  // m/s^2
  ContactSpec contact;
  TimeSteppingSpec time_stepping;
};

struct GroundSpec {
  bool enabled{true};
  double height{0};  // m, the plane z = height
  Vector4<double> color{0.85, 0.85, 0.85, 1.0};
};

struct IntegratorSpec {
  std::string name{"rk4"};
  double step{5e-4};  // s, fixed-step rules (and first step of others)
  double rtol{1e-6};
  double atol{1e-6};
};

// Joint PD to a target (or a piecewise-linear trajectory), or constant
// efforts, on the named joints through a TorqueSource; or (mjcf_ctrl) the
// ctrl of MJCF actuators of the models (MjcfActuators, mjcf_elements.h), a
// constant or a piecewise-linear trajectory.
struct ControllerSpec {
  std::string name;
  // joint_pd | constant_effort | lcm (from lcm.subscribe) | mjcf_ctrl
  std::string type;
  std::vector<std::string> joints;     // not mjcf_ctrl
  std::vector<std::string> actuators;  // mjcf_ctrl: MJCF actuator names
  std::vector<double> ctrl;            // mjcf_ctrl: constant ctrl per actuator
  std::vector<double> kp, kd;          // per joint (joint_pd)
  // joint_pd: target positions per joint (rad or m); with a trajectory,
  // knot times (s) and one row of positions per knot (mjcf_ctrl: of ctrl
  // per actuator).
  std::vector<double> target;
  std::vector<double> trajectory_times;
  std::vector<std::vector<double>> trajectory;
  std::vector<double> effort;     // constant_effort, per joint (N m or N)
  double motor_time_constant{0};  // s
};

struct SensorSpec {
  std::string name;
  std::string type;                 // imu | encoder | force_torque
  std::string body;                 // imu
  std::vector<std::string> joints;  // encoder
  std::string joint;                // force_torque
  int ticks_per_revolution{4096};   // encoder
};

struct LogSpec {
  double rate{100};  // Hz
  // "state", sensor names and controller names (their commands); empty in a
  // file means every one of them.
  std::vector<std::string> signals;
  // Also log every MJCF <sensor> of the models (jointpos, accelerometer,
  // gyro), columns named after the sensor (prefixed as the model's joints).
  bool model_sensors{true};
};

struct MonteCarloSpec {
  int samples{0};  // 0: no Monte Carlo
  int threads{0};  // 0: every hardware thread
  // What varies per sample: "initial_state.positions.<joint>",
  // "initial_state.velocities.<joint>", "contact.<stiffness|dissipation|
  // friction>", "mass.<body>" (scales the body's mass and inertia).
  std::vector<std::pair<std::string, Distribution>> vary;
  // The scalar reported per sample: a log column at the final time, e.g.
  // "q.pivot" or "v.pivot".
  std::string output;
};

// The plant's signals to and from another process over LCM (issue 26,
// docs/signals.md): `publish` names plant outputs ("state" or a sensor),
// `subscribe` names controllers of type lcm, each on the channel of its
// name. Empty publish and subscribe: no LCM.
struct LcmSpec {
  std::string url;   // "" is LCM's default ($LCM_DEFAULT_URL)
  double period{0};  // s; 0: the plant's dt (time-stepping)
  std::vector<std::string> publish, subscribe;
  bool lockstep{false};
  double timeout{10.0};  // s, lockstep
  bool enabled() const { return !publish.empty() || !subscribe.empty(); }
};

struct Scenario {
  std::string name;
  std::string source_file;  // the file it was read from
  std::string base_dir;     // relative paths resolve against this
  double duration{1.0};     // s
  std::uint64_t seed{1};
  PlantSpec plant;
  IntegratorSpec integrator;
  std::vector<ModelSpec> models;
  PackagesSpec packages;
  EffortLimitsSpec effort_limits;
  GroundSpec ground;
  std::vector<BoxSpec> boxes;
  std::map<std::string, double> initial_positions;   // by joint name
  std::map<std::string, double> initial_velocities;  // by joint name
  std::vector<ControllerSpec> controllers;
  std::vector<SensorSpec> sensors;
  LogSpec log;
  MonteCarloSpec monte_carlo;
  LcmSpec lcm;
};

// Limits on untrusted input (issue 27): files larger than these are refused
// by name before they are read; counts larger than these are refused by
// key.
// A scenario file: yaml-cpp's node tree takes about 100 times the text (180
// under AddressSanitizer), so 2 MB bound it to a few hundred MB; a world at
// kMaxBodies written out as boxes is about 1 MB.
inline constexpr std::uintmax_t kMaxScenarioBytes = std::uintmax_t{2} << 20;
inline constexpr std::uintmax_t kMaxModelBytes = std::uintmax_t{256} << 20;
inline constexpr long long kMaxMonteCarloSamples = 100'000'000;
inline constexpr long long kMaxThreads = 4096;
// Bodies of a world (the models' links and the boxes): the plants'
// workspaces take about 0.3 MB per body (bench/memory), so a scenario at
// the limit needs about 3 GB; a 10 MB scenario of 124,738 boxes would need
// 40 GB and is refused by name instead.
inline constexpr long long kMaxBodies = 10'000;

// Throws ScenarioError naming `path` unless it is a regular file (not
// /dev/zero, a pipe or a folder) of at most `max_bytes`; `what` says what
// the file is for ("scenario", "model").
void CheckInputFile(const std::string& path, std::uintmax_t max_bytes,
                    const char* what);

// Reads and checks a scenario file. Throws ScenarioError (file, line,
// column, key) on bad input, and if the file cannot be read.
Scenario LoadScenarioFile(const std::string& path);
// The same from text; `source_name` is used in messages, `base_dir` for
// relative model paths.
Scenario LoadScenarioString(const std::string& yaml,
                            const std::string& source_name,
                            const std::string& base_dir);
// A URDF robot with the defaults (docs/scenarios.md): a ground plane, the
// robot's root floating 0.5 m above it (welded at the origin instead when
// the root link has no mass, e.g. a pendulum's mount, or is "world"), no
// controllers, 2 s; a floating model (URDF, or an MJCF or SDFormat file
// without a ground of its own) that would start partly below the ground is
// lifted until its lowest collision geometry is 5 mm above it. Throws
// ScenarioError if the file cannot be read (or as BuildWorld does).
// `packages` resolves the URDF's package:// URIs (and is kept in the
// scenario); `inertia` is the model's inertia policy (ModelSpec::inertia).
Scenario ScenarioFromUrdf(const std::string& urdf_path,
                          const PackagesSpec& packages = {},
                          InertiaPolicy inertia = InertiaPolicy::kAccept);
// Adds one --package-path argument: "NAME=DIR" (an explicit package) or
// "DIR" (a package if it holds a package.xml, else a folder to search).
// Relative folders resolve against the current folder. Throws ScenarioError
// naming the argument if the folder does not exist.
void AddPackagePath(const std::string& arg, PackagesSpec* packages);
// Adds the folders of ROS_PACKAGE_PATH (':'-separated), if set, as
// AddPackagePath does; folders that do not exist are skipped.
void AddRosPackagePath(PackagesSpec* packages);
// Sets the URDF parser's package resolution from `packages`: the one place
// where a PackagesSpec becomes parser options (today package_map and
// search_paths; PackageMap once it lands).
void ApplyPackages(const PackagesSpec& packages, UrdfParseOptions* options);
// The scenario with every default filled in, as YAML that LoadScenario
// reads back to the same Scenario.
std::string ScenarioToYaml(const Scenario& scenario);

}  // namespace tern::io
