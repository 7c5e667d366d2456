#include "tern/io/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace tern::io {

Progress::Mode Progress::AutomaticMode(std::FILE* stream) {
  return isatty(fileno(stream)) ? Mode::kBar : Mode::kLines;
}

Progress::Progress(Mode mode, double duration, std::FILE* stream,
                   double line_interval)
    : mode_(mode),
      duration_(duration),
      stream_(stream),
      start_(std::chrono::steady_clock::now()),
      line_interval_(line_interval) {}

void Progress::Update(double t) {
  if (mode_ == Mode::kQuiet) return;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  const double fraction = std::clamp(t / duration_, 0.0, 1.0);
  const double rate = wall > 0 ? t / wall : 0;  // real-time factor
  const double eta = rate > 0 ? (duration_ - t) / rate : 0;
  if (mode_ == Mode::kBar) {
    // Redrawn at most 20 times a second, and at the end.
    if (wall - last_bar_ < 0.05 && fraction < 1) return;
    last_bar_ = wall;
    const int width = 30;
    const int filled = static_cast<int>(fraction * width + 0.5);
    fmt::print(stream_,
               "\r[{}{}] {:7.3f} / {:.3f} s  real-time x{:.2f}  ETA {:.0f} s ",
               std::string(filled, '#'), std::string(width - filled, '-'), t,
               duration_, rate, eta);
    std::fflush(stream_);
    return;
  }
  const bool decile = fraction * 10 + 1e-9 >= next_decile_;
  if (decile || wall - last_line_ >= line_interval_) {
    while (fraction * 10 + 1e-9 >= next_decile_) ++next_decile_;
    last_line_ = wall;
    fmt::print(
        stream_,
        "tern: t = {:.3f} / {:.3f} s ({:.0f}%), real-time factor {:.2f}, "
        "ETA {:.0f} s\n",
        t, duration_, 100 * fraction, rate, eta);
    std::fflush(stream_);
  }
}

void Progress::Finish() {
  if (mode_ == Mode::kBar) fmt::print(stream_, "\n");
}

}  // namespace tern::io
