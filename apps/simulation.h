#pragma once
// From a Scenario to a simulation: the world (one RigidBodyTree merging the
// scenario's URDFs and boxes, its collision geometry with the ground plane,
// the initial state), the diagram (plant, controllers, log sinks), and the
// run, whose log comes back as a table with named columns.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/scenario.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/tree/rigid_body_tree.h"
#include "tern/systems/analysis/monte_carlo.h"

namespace tern::cli {

struct World {
  RigidBodyTree<double> tree;
  GeometryModel geometry;
  Eigen::VectorXd q0;                 // (nq) initial positions
  Eigen::VectorXd v0;                 // (nv) initial velocities
  std::vector<std::string> warnings;  // from the URDF parser
};

// Throws ScenarioError (or the URDF parser's UrdfError) naming the culprit:
// an unknown joint or body, a name used twice, a singular model.
World BuildWorld(const Scenario& scenario);

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
  // Called with the simulated time after each chunk.
  std::function<void(double t)> progress;
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

}  // namespace tern::cli
