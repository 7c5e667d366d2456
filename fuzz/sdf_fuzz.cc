// Fuzz harness: the SDFormat parser (tern/multibody/parsing/sdf_parser.h:
// Debian's libsdformat 12, then Tern's mapping into a tree) on arbitrary
// text, then the collision geometry built from the tree. libsdformat is not
// instrumented, so coverage guides through Tern's mapping only; a crash
// inside libsdformat is reported upstream, not fixed here. Any
// std::exception is a refusal, which is fine. Meshes are not read.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/sdf_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  tern::SdfParseOptions options;
  options.load_collision_meshes = false;
  options.require_meshes = false;
  try {
    const tern::SdfModel model = tern::ParseSdfString(xml, options, "fuzz.sdf");
    (void)tern::GeometryModel::FromTree(model.tree);
  } catch (const std::exception&) {
  }
  return 0;
}
