#pragma once
// Progress of a run on the terminal: a bar redrawn in place when stderr is a
// terminal (simulated time, real-time factor, ETA), otherwise (logs, CI) a
// plain line at every 10% of the run and at least every
// `line_interval` seconds of wall-clock time (5 s by default), so a slow run
// stays visible; nothing when quiet. Update may be called after every
// simulator step: it reads the clock and prints only when due.
#include <chrono>
#include <cstdio>

namespace tern::io {

class Progress {
 public:
  enum class Mode { kQuiet, kLines, kBar };
  // kBar or kLines depending on whether `stream` is a terminal.
  static Mode AutomaticMode(std::FILE* stream);

  Progress(Mode mode, double duration, std::FILE* stream = stderr,
           double line_interval = 5.0);
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
  double line_interval_;  // s of wall-clock time between lines
  double last_line_{0};   // s, wall-clock time of the last line
  double last_bar_{-1};   // s, wall-clock time of the last redraw
};

}  // namespace tern::io
