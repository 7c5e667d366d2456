#pragma once
// From a Scenario to a simulation: the world (one RigidBodyTree merging the
// scenario's models (URDF, MJCF, SDFormat) and boxes, their constraints and
// joint springs, its collision geometry with the ground plane,
// the initial state), the diagram (plant, controllers, log sinks), and the
// run, whose log comes back as a table with named columns.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tern/io/scenario.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/parsing/model_elements.h"
#include "tern/multibody/tree/rigid_body_tree.h"
#include "tern/systems/analysis/monte_carlo.h"

namespace tern::io {

struct World {
  RigidBodyTree<double> tree;
  GeometryModel geometry;
  Eigen::VectorXd q0;  // (nq) initial positions
  Eigen::VectorXd v0;  // (nv) initial velocities
  // From the model parsers, and what the scenario does not apply of a
  // model (an <option> that differs from the scenario's plant). Joint
  // friction is applied by both plants.
  std::vector<std::string> warnings;
  // Per scenario model: its bodies [first, end) in the tree, and whether
  // its root is floating (false for a root link named "world", welded
  // whatever the scenario asked).
  std::vector<std::pair<int, int>> model_bodies;
  std::vector<bool> model_floating;
  // The models' plant elements on the world's names (model_elements.h,
  // mapped by scene.h's MapEqualityConstraint and MapJointSpring): MJCF
  // <equality> connect and weld, MJCF and SDFormat joint springs. The
  // diagram builds them on `tree` (both plants).
  std::vector<EqualityConstraintSpec> equalities;
  std::vector<JointSpringSpec> springs;
  // The models' MJCF <motor> and <position> actuators and <jointpos>,
  // <accelerometer>, <gyro> sensors on the world's names (scene.h's
  // MapMjcfActuator, MapMjcfSensor: names prefixed as the joints), in model
  // and file order. The diagram applies the actuators on both plants as
  // one MjcfActuators "mjcf_actuators" whose ctrl is 0 unless an mjcf_ctrl
  // controller drives it, and makes each sensor a plant output.
  std::vector<MjcfActuator> mjcf_actuators;
  std::vector<MjcfSensor> mjcf_sensors;
};

// Throws ScenarioError (or the URDF parser's UrdfError) naming the culprit:
// an unknown joint or body, a name used twice, a singular model.
World BuildWorld(const Scenario& scenario);

// Model i's collision filters (self_collision, exclude_collisions, srdf,
// collision_groups) on `geometry`, whose body names are the world tree's;
// `bodies` is the model's range of world bodies. Throws ScenarioError
// naming the key and an unknown link.
void ApplyCollisionFilters(const Scenario& scenario, std::size_t i,
                           std::pair<int, int> bodies, GeometryModel* geometry);

// The geometry pairs in contact or overlapping (signed distance <= 0) at
// the initial state, deepest first per body pair.
struct InitialContact {
  std::string body_a, body_b, geometry_a, geometry_b;
  double depth;   // m, -signed distance (>= 0)
  int model{-1};  // scenario model holding both bodies, or -1
};
std::vector<InitialContact> FindInitialContacts(const Scenario& scenario,
                                                const World& world);
// The report of FindInitialContacts for `tern check`: one line per pair
// with its depth, and the filter key that would exclude it.
std::string DescribeInitialContacts(const Scenario& scenario,
                                    const World& world);

// One line for `tern simulate` when bodies overlap by more than 2 mm at the
// initial state (their contact pushes them apart from t = 0 with forces no
// model asked for: a robot placed in the ground, links overlapping in
// their file), naming how many pairs, the deepest and `tern check`, which
// lists them with the filter keys; "" if none.
std::string InitialOverlapWarning(const Scenario& scenario, const World& world);

// Every signal the scenario can log ("state", then sensor names, then
// controller names), and the column names of one signal.
std::vector<std::string> AvailableSignals(const Scenario& scenario);

// The model as text, for `tern check`: bodies, joints, actuators, sensors,
// contact geometry.
std::string DescribeModel(const Scenario& scenario, const World& world);

// A recorded run: times (num_samples) and one row per sample of the logged
// columns, named in `columns` (without "time").
struct RunLog {
  std::vector<std::string> columns;
  std::vector<double> times;
  std::vector<std::vector<double>> rows;
  // Where each position of the tree is in a row (the report replays q).
  int q_offset{0};
  int num_q{0};
  // The run stopped early (RunOptions::stop) at end_time.
  bool interrupted{false};
  double end_time{0};
  // Per controller joint: the steps whose command its effort limit clamped,
  // of the steps seen (the initial state and every simulator step); the log
  // records the clamped, applied effort. For MJCF actuators (kind
  // "ctrlrange" or "forcerange", controller "mjcf_actuators", joint the
  // actuator's name, limit the larger magnitude of the range): the steps
  // whose ctrl or force MuJoCo's law clamped; the log records the ctrl.
  struct Clamped {
    std::string kind;  // "" (a controller's effort limit) | ctrlrange | ...
    std::string controller, joint;
    double limit;  // N m or N
    long long steps;
    long long of_steps;
  };
  std::vector<Clamped> clamped;
  long long steps{0};  // simulator steps of the run
  // Time-stepping plant with plant.time_stepping.on_nonconvergence: warn:
  // the islands that did not converge and were kept (counted since the
  // run's first step); 0 otherwise (an unconverged island is an error).
  long long unconverged_islands{0};
  // One line each, for the report and the terminal: clamping, interruption,
  // unconverged islands.
  std::vector<std::string> Notes() const;
};

struct RunStatistics {
  double wall_seconds{0};
  long long steps{0};
  long long derivative_evaluations{0};
};

struct Checkpoint;  // checkpoint.h

// A run advances in kRunChunks equal chunks of its duration (the progress
// callback and the checkpoints happen between chunks).
inline constexpr int kRunChunks = 200;

struct RunOptions {
  double realtime_rate{0};  // 0: as fast as possible
  // Called with the simulated time after each chunk and after every step.
  std::function<void(double t)> progress;
  // When it becomes true (a signal handler sets it), the run stops after
  // the current step and returns the log so far, marked interrupted.
  const std::atomic<bool>* stop{nullptr};
  // Write a checkpoint into checkpoint_dir ("checkpoint-<t>s.tck") at the
  // first chunk end at or after each multiple of checkpoint_every (s; 0:
  // never). With checkpoints or a resume, the integrator is Reset at every
  // chunk end, so that an error-controlled rule's step-size history (which
  // a checkpoint does not hold) cannot differ between the two runs, whatever
  // the Simulator keeps across AdvanceTo calls.
  double checkpoint_every{0};
  std::string checkpoint_dir;
  // Continue from this checkpoint (CheckCheckpointMatches it first).
  const Checkpoint* resume{nullptr};
};

// The most samples a run's log holds (it is kept in memory, reserved at the
// start): duration x log.rate beyond this is refused.
inline constexpr long long kMaxLogSamples = 10'000'000;
// The samples a run logs, ceil(duration * log.rate) + 2. Throws
// ScenarioError naming the duration and rate beyond kMaxLogSamples.
int LogSamples(const Scenario& scenario);

// Checks what BuildWorld cannot: the plant kind, the integrator name, log
// signals, controller and sensor names. Throws ScenarioError.
void ValidateScenario(const Scenario& scenario, const World& world);

// Runs the scenario from its initial state (or options.resume) to its
// duration. Throws std::runtime_error if the checkpoint does not fit the
// diagram.
RunLog RunScenario(const Scenario& scenario, const World& world,
                   const RunOptions& options, RunStatistics* stats);

// The Monte Carlo block: `runner` is MonteCarloSimulation by default. The
// hook for MPI: pass a lambda calling DistributedMonteCarloSimulation
// (tern/mpi/monte_carlo_mpi.h) with num_parallel_executions as
// options.threads_per_rank; results are the same to the bit.
using MonteCarloRunner = std::function<std::vector<RandomSimulationResult>(
    const SimulatorFactory& make_simulator, const ScalarSystemFunction& output,
    double final_time, int num_samples, RandomGenerator* generator,
    int num_parallel_executions)>;
std::vector<RandomSimulationResult> RunMonteCarlo(
    const Scenario& scenario, const MonteCarloRunner& runner = nullptr);

// log.csv of a run: the header "time,<columns>" and one line per sample,
// each number in the shortest form that reads back to the same double.
std::string LogCsv(const RunLog& log);

// monte_carlo.csv: "sample,seed,<output>,error" and one line per sample.
std::string MonteCarloCsv(const std::string& output,
                          const std::vector<RandomSimulationResult>& results);

// The samples that succeeded, and the mean and sample standard deviation
// (n - 1) of their outputs (0 when there are too few).
struct MonteCarloSummary {
  int ok{0};
  int samples{0};
  double mean{0};
  double std_dev{0};
};
MonteCarloSummary SummarizeMonteCarlo(
    const std::vector<RandomSimulationResult>& results);

}  // namespace tern::io
