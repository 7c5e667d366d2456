#pragma once
// Checkpoints of a `tern simulate` run (--checkpoint-every, --resume): the
// time, the diagram's whole continuous and discrete state, the log so far,
// the number of progress chunks done, and what the run was (the tern version
// and a hash of the resolved scenario), in a text file whose numbers are
// hexadecimal floats (exact). The diagrams a scenario builds have no
// abstract state and no random sources, and their periodic events fire at
// offset + k period, a function of time alone, so this is the full state:
// a resumed run is bit-identical to an uninterrupted one (apps/test).
#include <cstdint>
#include <string>
#include <vector>

#include "apps/scenario.h"
#include "apps/simulation.h"

namespace tern::cli {

struct Checkpoint {
  std::string version;  // tern::kVersion of the run that wrote it
  std::uint64_t scenario_hash{0};
  int chunks_done{0};               // of RunScenario's progress chunks
  double time{0};                   // s
  Eigen::VectorXd xc;               // the diagram's continuous state
  std::vector<Eigen::VectorXd> xd;  // its discrete state groups
  RunLog log;                       // every sample up to `time`
};

// FNV-1a (64 bit) of the resolved scenario (ScenarioToYaml).
std::uint64_t ScenarioHash(const Scenario& scenario);

// Throws std::runtime_error naming the file if it cannot be written.
void WriteCheckpoint(const std::string& path, const Checkpoint& checkpoint);
// Throws std::runtime_error naming the file (and line) if it cannot be read
// or is not a checkpoint.
Checkpoint ReadCheckpoint(const std::string& path);
// Throws std::runtime_error naming the file if `checkpoint` was written by
// another version of tern or for another scenario (or other options).
void CheckCheckpointMatches(const std::string& path,
                            const Checkpoint& checkpoint,
                            const Scenario& scenario);

}  // namespace tern::cli
