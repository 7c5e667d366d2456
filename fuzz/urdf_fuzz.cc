// Fuzz harness: the URDF parser (tern/multibody/parsing/urdf_parser.h) on
// arbitrary text. Any std::exception is a refusal, which is fine; a crash,
// a sanitizer report, a hang or a non-std exception is a finding. Meshes are
// not loaded (assimp is fuzzed by its own project) and no folder is
// scanned for packages.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "tern/multibody/parsing/urdf_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  tern::UrdfParseOptions options;
  options.load_collision_meshes = false;
  options.require_meshes = false;
  options.discover_packages = false;
  for (const bool floating : {false, true}) {
    options.floating_base = floating;
    try {
      const tern::UrdfModel model =
          tern::ParseUrdfString(xml, options, "fuzz.urdf", "/nonexistent");
      (void)model;
    } catch (const std::exception&) {
    }
  }
  return 0;
}
