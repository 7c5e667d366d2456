#pragma once
// Reading of the Semantic Robot Description Format (SRDF, MoveIt:
// http://wiki.ros.org/srdf), for its <disable_collisions link1 link2 reason/>
// entries: pairs of links whose collisions a planner or a plant should skip
// (adjacent links, links that never meet, links that always touch). Other
// SRDF elements (groups, end effectors, virtual joints, states) are not used
// by Tern and are ignored.
#include <string>
#include <utility>
#include <vector>

namespace tern {

// The (link1, link2) pairs of every <disable_collisions> element of the SRDF
// file at `path`, in document order. Throws std::runtime_error naming the
// file (and "<file>:<line>: <element>" for a bad element: a missing link1 or
// link2 attribute, or a root element other than <robot>) if the file cannot
// be read or is malformed. The link names are not checked against a model
// here; the caller that knows the model does that.
std::vector<std::pair<std::string, std::string>> ParseSrdfDisabledCollisions(
    const std::string& path);

// The same for SRDF text; `source_name` is used in messages.
std::vector<std::pair<std::string, std::string>>
ParseSrdfDisabledCollisionsString(const std::string& xml,
                                  const std::string& source_name = "<string>");

}  // namespace tern
