// Fuzz harness: the MJCF parser (tern/multibody/parsing/mjcf_parser.h) on
// arbitrary text, default and strict mode, then what the plants build from
// the result: the collision geometry (planes, ellipsoids, meshes' hulls),
// the equality constraints and the joint springs. Any std::exception is a
// refusal, which is fine; a crash, a sanitizer report, a hang or a
// non-std exception is a finding. Meshes are not read (assimp is fuzzed by
// its own project); <include> and mesh names resolve against a folder that
// does not exist, or absolute paths (/dev/zero must fail fast).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/plant/mjcf_elements.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  tern::MjcfParseOptions options;
  options.load_collision_meshes = false;
  options.require_meshes = false;
  for (const bool strict : {false, true}) {
    options.strict = strict;
    try {
      const tern::MjcfModel model =
          tern::ParseMjcfString(xml, options, "fuzz.xml", "/nonexistent");
      if (strict) break;  // the rest does not depend on the mode
      (void)tern::GeometryModel::FromTree(model.tree);
      (void)tern::MakeMjcfEqualityConstraints(model);
      (void)tern::MakeMjcfJointSprings(model);
    } catch (const std::exception&) {
    }
  }
  return 0;
}
