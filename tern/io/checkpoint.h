#pragma once
// Checkpoints of a `tern simulate` run (--checkpoint-every, --resume): the
// time, the diagram's whole continuous and discrete state, the plant's
// abstract state (the time-stepping plant's warm-start memory and sleep
// counters, as TimeSteppingRigidBodySystem::SaveState gives them), the
// effort limiters' clamp counters, the log so far, the number of progress
// chunks done, and what the run was (the tern version, the plant kind and a
// hash of the resolved scenario), in a text file (format 2) whose numbers are
// hexadecimal floats (exact). The diagrams a scenario builds have no other
// abstract state and no random sources, and their periodic events fire at
// offset + k period, a function of time alone, so this is the full state: a
// resumed run is bit-identical to an uninterrupted one, on either plant
// (apps/test).
//
// A checkpoint is untrusted input: every count is bounded by the file size
// before anything is allocated for it, every number must be finite, and
// RunScenario checks the counts against the scenario's diagram and plant.
// Errors name the file and the field.
#include <cstdint>
#include <string>
#include <vector>

#include "tern/io/scenario.h"
#include "tern/io/simulation.h"

namespace tern::io {

struct Checkpoint {
  std::string path;     // the file it was read from (for messages)
  std::string version;  // tern::kVersion of the run that wrote it
  std::uint64_t scenario_hash{0};
  std::string plant;   // the plant kind: "continuous" or "time-stepping"
  int chunks_done{0};  // of RunScenario's progress chunks
  double time{0};      // s
  Eigen::VectorXd xc;  // the diagram's continuous state
  std::vector<Eigen::VectorXd> xd;  // its discrete state groups
  // The time-stepping plant's TimeSteppingSavedState::memory; empty for the
  // continuous plant (no abstract state).
  std::vector<double> memory;
  // The effort limiters' counters (per controller: clamped steps per joint,
  // then the steps seen), so a resumed run reports the same clamping.
  std::vector<long long> clamped;
  RunLog log;  // every sample up to `time`
};

// FNV-1a (64 bit) of the resolved scenario (ScenarioToYaml).
std::uint64_t ScenarioHash(const Scenario& scenario);

// Throws std::runtime_error naming the file if it cannot be written.
void WriteCheckpoint(const std::string& path, const Checkpoint& checkpoint);
// The largest checkpoint file read (the log of a long run at a high rate
// fits; /dev/zero or a runaway file does not).
inline constexpr std::uintmax_t kMaxCheckpointBytes = std::uintmax_t{1} << 30;

// Throws std::runtime_error naming the file (and line) if it cannot be read
// (not a regular file, larger than kMaxCheckpointBytes) or is not a
// checkpoint. With `scenario`, the version, plant kind and scenario hash are
// checked (CheckCheckpointMatches) as soon as they are read, before any
// count, and the time must lie in [0, scenario duration] (CheckTime).
Checkpoint ReadCheckpoint(const std::string& path,
                          const Scenario* scenario = nullptr);
// The same from the file's text (the fuzz harness); `path` names it in
// messages.
Checkpoint ReadCheckpointString(const std::string& text,
                                const std::string& path,
                                const Scenario* scenario = nullptr);
// Throws std::runtime_error naming the file if another version wrote it.
void CheckVersion(const std::string& path, const Checkpoint& checkpoint);
// Throws std::runtime_error naming the file and the time if the time is not
// within [0, scenario.duration].
void CheckTime(const std::string& path, const Checkpoint& checkpoint,
               const Scenario& scenario);
// Throws std::runtime_error naming the file if `checkpoint` was written by
// another version of tern, for the other plant kind, or for another
// scenario (or other options).
void CheckCheckpointMatches(const std::string& path,
                            const Checkpoint& checkpoint,
                            const Scenario& scenario);

}  // namespace tern::io
