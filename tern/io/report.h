#pragma once
// report.html: one self-contained file (no server, no network) with a
// three.js replay of the bodies' visual geometry (URDF primitives, meshes and
// colours) and Chart.js plots of the logged signals, whose cursor follows
// the replay. three.js, its OrbitControls and Chart.js are read from the
// Debian packages libjs-three and libjs-chart.js when the report is written
// and inlined. docs/cli.md describes the page.
#include <string>

#include "tern/io/scenario.h"
#include "tern/io/simulation.h"

namespace tern::io {

// The replay keeps at most this many frames (evenly spaced log samples).
inline constexpr int kMaxReportFrames = 600;

// Writes the report to `path`. Throws std::runtime_error naming the file if
// a JavaScript library cannot be read (and the package that provides it) or
// the report cannot be written.
void WriteReport(const std::string& path, const Scenario& scenario,
                 const World& world, const RunLog& log);

}  // namespace tern::io
