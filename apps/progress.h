#pragma once
// Progress of a run on the terminal: a bar redrawn in place when stderr is a
// terminal (simulated time, real-time factor, ETA), a plain line every 10%
// of the run otherwise (logs, CI), nothing when quiet.
#include <chrono>
#include <cstdio>

namespace tern::cli {

class Progress {
 public:
  enum class Mode { kQuiet, kLines, kBar };
  // kBar or kLines depending on whether `stream` is a terminal.
  static Mode AutomaticMode(std::FILE* stream);

  Progress(Mode mode, double duration, std::FILE* stream = stderr);
  // The simulation reached time t (s).
  void Update(double t);
  // Ends the bar's line.
  void Finish();

 private:
  Mode mode_;
  double duration_;
  std::FILE* stream_;
  std::chrono::steady_clock::time_point start_;
  int next_decile_{1};
};

}  // namespace tern::cli
