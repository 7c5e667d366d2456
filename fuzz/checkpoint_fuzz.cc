// Fuzz harness: the checkpoint reader (tern/io/checkpoint.h) on arbitrary
// text, and a resume from what it accepts. Two fixed scenarios (a pendulum
// on the continuous plant, a box on the time-stepping plant; the
// checkpoint's `plant` line picks one) stand for the scenario a user
// resumes; their checkpoints are in the corpus (fuzz/make_corpus.sh). Any
// std::exception is a refusal; a crash, a sanitizer report, a hang, memory
// out of proportion to the input or a non-std exception is a finding.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "tern/io/checkpoint.h"
#include "tern/io/scenario.h"
#include "tern/io/simulation.h"

namespace {

struct Fixture {
  tern::io::Scenario scenario;
  tern::io::World world;
};

Fixture Make(const char* yaml) {
  Fixture f;
  f.scenario = tern::io::LoadScenarioString(yaml, "fuzz.yaml", TERN_MODELS_DIR);
  f.world = tern::io::BuildWorld(f.scenario);
  tern::io::ValidateScenario(f.scenario, f.world);
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  static const Fixture continuous = Make(
      "name: fuzz\nduration: 0.1\nground: false\n"
      "models: [{file: pendulum.urdf}]\n"
      "initial_state: {positions: {pivot: 0.5}}\nlog: {rate: 100}\n");
  static const Fixture time_stepping = Make(
      "name: fuzz\nduration: 0.1\nplant: {kind: time-stepping}\n"
      "boxes: [{position: [0, 0, 0.06]}]\nlog: {rate: 100}\n");
  const std::string text(reinterpret_cast<const char*>(data), size);
  tern::io::Checkpoint c;
  try {
    c = tern::io::ReadCheckpointString(text, "fuzz.tck");
  } catch (const std::exception&) {
    return 0;
  }
  const Fixture& f = c.plant == "continuous" ? continuous : time_stepping;
  // The version and scenario hash are what a user's resume checks first;
  // the fuzzer rarely gets them right, so the resume below runs with or
  // without them (RunScenario checks every count against the diagram).
  try {
    tern::io::CheckCheckpointMatches(c.path, c, f.scenario);
  } catch (const std::exception&) {
  }
  try {
    tern::io::RunOptions options;
    options.resume = &c;
    tern::io::RunScenario(f.scenario, f.world, options, nullptr);
  } catch (const std::exception&) {
  }
  return 0;
}
