#pragma once
// `tern plot`: a static plot of columns of a log.csv, drawn by gnuplot
// (Debian gnuplot-nox), as SVG or PNG.
#include <string>
#include <vector>

namespace tern::io {

// At most this many columns are plotted when no signals are named.
inline constexpr int kDefaultPlotColumns = 8;

// Plots `signals` (column names of the CSV's header; empty: the first
// kDefaultPlotColumns columns after time) against time into `output`
// (.svg or .png). Throws std::runtime_error naming the culprit: a missing
// or malformed CSV, an unknown signal (listing the columns), an unknown
// output format, gnuplot missing or failing.
void PlotCsv(const std::string& csv, const std::vector<std::string>& signals,
             const std::string& output);

}  // namespace tern::io
