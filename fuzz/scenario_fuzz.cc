// Fuzz harness: the scenario loader (tern/io/scenario.h) on arbitrary YAML.
// A loaded scenario must round-trip: ScenarioToYaml's text loads again to
// the same text (docs/scenarios.md promises that the resolved scenario.yaml
// repeats the run). Small scenes are also built and validated (BuildWorld,
// ValidateScenario), as `tern check` does. Relative model paths resolve in
// the repository's models/ folder. Any std::exception is a refusal; a
// crash, a sanitizer report, a hang, a failed round trip or a non-std
// exception is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "tern/io/scenario.h"
#include "tern/io/simulation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string yaml(reinterpret_cast<const char*>(data), size);
  tern::io::Scenario s;
  try {
    s = tern::io::LoadScenarioString(yaml, "fuzz.yaml", TERN_MODELS_DIR);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string written = tern::io::ScenarioToYaml(s);
  std::string again;
  try {
    again = tern::io::ScenarioToYaml(
        tern::io::LoadScenarioString(written, "fuzz.yaml", TERN_MODELS_DIR));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "the written scenario does not load: %s\n%s\n",
                 e.what(), written.c_str());
    std::abort();
  }
  if (again != written) {
    std::fprintf(stderr, "round trip differs:\n%s\n---\n%s\n", written.c_str(),
                 again.c_str());
    std::abort();
  }
  // A fuzzer should spend its time on the loader: only small scenes are
  // built.
  if (s.boxes.size() + s.models.size() <= 8) {
    try {
      const tern::io::World world = tern::io::BuildWorld(s);
      tern::io::ValidateScenario(s, world);
    } catch (const std::exception&) {
    }
  }
  return 0;
}
