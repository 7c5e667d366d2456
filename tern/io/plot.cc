#include "tern/io/plot.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tern::io {
namespace {

// A gnuplot single-quoted string ('' stands for ').
std::string GnuplotQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void PlotCsv(const std::string& csv, const std::vector<std::string>& signals,
             const std::string& output) {
  std::ifstream in(csv);
  if (!in) throw std::runtime_error(fmt::format("{}: no such file", csv));
  std::string header;
  std::getline(in, header);
  std::vector<std::string> columns;
  for (std::size_t a = 0, b; a <= header.size(); a = b + 1) {
    b = header.find(',', a);
    if (b == std::string::npos) b = header.size();
    columns.push_back(header.substr(a, b - a));
  }
  if (columns.size() < 2 || columns[0] != "time") {
    throw std::runtime_error(fmt::format(
        "{}:1: not a Tern log: the header must start with 'time' and name at "
        "least one signal",
        csv));
  }
  std::vector<int> chosen;
  if (signals.empty()) {
    for (int j = 1;
         j < static_cast<int>(columns.size()) && j <= kDefaultPlotColumns;
         ++j) {
      chosen.push_back(j);
    }
  }
  for (const std::string& s : signals) {
    const auto it = std::find(columns.begin() + 1, columns.end(), s);
    if (it == columns.end()) {
      throw std::runtime_error(
          fmt::format("{}: no column '{}'; columns: {}", csv, s,
                      fmt::join(columns.begin() + 1, columns.end(), ", ")));
    }
    chosen.push_back(static_cast<int>(it - columns.begin()));
  }
  const std::string ext = std::filesystem::path(output).extension().string();
  std::string terminal;
  if (ext == ".svg") {
    terminal = "svg size 900,500 dynamic background rgb 'white'";
  } else if (ext == ".png") {
    terminal = "pngcairo size 900,500";
  } else {
    throw std::runtime_error(fmt::format(
        "{}: unknown plot format '{}' (use .svg or .png)", output, ext));
  }
  std::string script = fmt::format(
      "set terminal {}\nset output {}\nset datafile separator ','\n"
      "set xlabel 'time (s)'\nset grid\nset key outside right\n"
      "set title {} noenhanced\nplot ",
      terminal, GnuplotQuote(output), GnuplotQuote(csv));
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    script += fmt::format("{}{} using 1:{} with lines title {} noenhanced",
                          k ? ", " : "", GnuplotQuote(csv), chosen[k] + 1,
                          GnuplotQuote(columns[chosen[k]]));
  }
  script += "\n";
  // Header line skipped: gnuplot ignores the non-numeric first row.
  FILE* gp = popen("gnuplot 2>&1", "w");
  if (gp == nullptr) throw std::runtime_error("plot: cannot start gnuplot");
  std::fwrite(script.data(), 1, script.size(), gp);
  const int status = pclose(gp);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    throw std::runtime_error(
        "plot: gnuplot not found (install the Debian package gnuplot-nox)");
  }
  if (WEXITSTATUS(status) != 0) {
    throw std::runtime_error(
        fmt::format("plot: gnuplot failed (exit code {}) writing {}",
                    WEXITSTATUS(status), output));
  }
}

}  // namespace tern::io
