#include "tern/io/checkpoint.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "tern/version.h"

namespace tern::io {
namespace {

constexpr const char* kMagic = "tern-checkpoint";
constexpr int kFormat = 2;

// Reads whitespace-separated tokens of a checkpoint held in memory, naming
// the file, the line and the field on error.
class Tokens {
 public:
  Tokens(std::string path, const std::string& text)
      : path_(std::move(path)), size_(text.size()), in_(text) {}
  std::string Word() {
    std::string w;
    while (w.empty()) {
      if (!(std::getline(line_, w, ' '))) {
        std::string next;
        if (!std::getline(in_, next)) {
          Fail("not a tern checkpoint: unexpected end of file");
        }
        ++line_number_;
        line_.clear();
        line_.str(next);
        w.clear();
      }
    }
    return w;
  }
  void Expect(const std::string& word) {
    const std::string w = Word();
    if (w != word) {
      Fail(fmt::format("not a tern checkpoint: expected '{}', found '{}'", word,
                       w));
    }
  }
  // A finite number; `field()` names it (only formatted on error).
  template <typename Name>
  double Number(const Name& field) {
    const std::string w = Word();
    char* end = nullptr;
    const double x = std::strtod(w.c_str(), &end);
    if (end == w.c_str() || *end != '\0') {
      Fail(fmt::format("{}: '{}' is not a number", field(), w));
    }
    if (!std::isfinite(x)) {
      Fail(fmt::format("{}: {} is not finite", field(), w));
    }
    return x;
  }
  double Number(const char* field) {
    return Number([field] { return std::string(field); });
  }
  // A count of things that each take at least `bytes` bytes of the file
  // (a number and its separator: 2), so no count read makes the reader
  // allocate more than the file's size allows.
  long long Count(const std::string& field, std::size_t bytes = 2) {
    const std::string w = Word();
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(w.c_str(), &end, 10);
    if (end == w.c_str() || *end != '\0' || x < 0 || errno == ERANGE) {
      Fail(fmt::format("{}: '{}' is not a count", field, w));
    }
    if (static_cast<unsigned long long>(x) > size_ / bytes) {
      Fail(fmt::format("{}: {} is more than a file of {} bytes can hold", field,
                       x, size_));
    }
    return x;
  }
  // An integer in [lo, hi].
  long long Integer(const std::string& field, long long lo, long long hi) {
    const std::string w = Word();
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(w.c_str(), &end, 10);
    if (end == w.c_str() || *end != '\0' || errno == ERANGE || x < lo ||
        x > hi) {
      Fail(fmt::format("{}: '{}' is not an integer in [{}, {}]", field, w, lo,
                       hi));
    }
    return x;
  }
  std::size_t size() const { return size_; }
  [[noreturn]] void Fail(const std::string& msg) const {
    throw std::runtime_error(
        fmt::format("{}:{}: {}", path_, line_number_, msg));
  }

 private:
  std::string path_;
  std::size_t size_;  // bytes in the file
  std::istringstream in_;
  std::istringstream line_;
  int line_number_{1};  // the first line (the format) is read before
};

std::string Hex(double x) { return fmt::format("{:a}", x); }

void AppendNumbers(const double* x, std::size_t n, std::string* text) {
  for (std::size_t i = 0; i < n; ++i) {
    *text += ' ';
    *text += Hex(x[i]);
  }
}

}  // namespace

std::uint64_t ScenarioHash(const Scenario& scenario) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : ScenarioToYaml(scenario)) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

void WriteCheckpoint(const std::string& path, const Checkpoint& c) {
  std::string text =
      fmt::format("{} {}\nversion {}\nscenario {:016x}\nplant {}\n", kMagic,
                  kFormat, c.version, c.scenario_hash, c.plant);
  text += fmt::format("chunks_done {}\ntime {}\nxc {}", c.chunks_done,
                      Hex(c.time), c.xc.size());
  AppendNumbers(c.xc.data(), static_cast<std::size_t>(c.xc.size()), &text);
  text += fmt::format("\nxd {}\n", c.xd.size());
  for (const Eigen::VectorXd& g : c.xd) {
    text += fmt::format("group {}", g.size());
    AppendNumbers(g.data(), static_cast<std::size_t>(g.size()), &text);
    text += "\n";
  }
  text += fmt::format("memory {}", c.memory.size());
  AppendNumbers(c.memory.data(), c.memory.size(), &text);
  text += fmt::format("\nclamped {}", c.clamped.size());
  for (long long n : c.clamped) text += fmt::format(" {}", n);
  text += "\n";
  text += fmt::format("log {} {} q {} {}\n", c.log.times.size(),
                      c.log.columns.size(), c.log.q_offset, c.log.num_q);
  for (const std::string& col : c.log.columns) text += col + "\n";
  for (std::size_t i = 0; i < c.log.times.size(); ++i) {
    text += Hex(c.log.times[i]);
    AppendNumbers(c.log.rows[i].data(), c.log.rows[i].size(), &text);
    text += "\n";
  }
  // Written beside and renamed, so a crash never leaves half a checkpoint.
  const std::string tmp = path + ".part";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) {
      throw std::runtime_error(fmt::format("{}: cannot write", path));
    }
  }
  std::filesystem::rename(tmp, path);
}

Checkpoint ReadCheckpoint(const std::string& path, const Scenario* scenario) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw std::runtime_error(fmt::format("{}: no such file", path));
  }
  // Only a regular file, of a size known before reading: /dev/zero or a
  // pipe would be read until memory runs out.
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw std::runtime_error(
        fmt::format("{}: not a regular file (a checkpoint is a file that "
                    "tern simulate --checkpoint-every wrote)",
                    path));
  }
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes > kMaxCheckpointBytes) {
    throw std::runtime_error(fmt::format(
        "{}: {} bytes, more than the {} bytes a checkpoint may have", path,
        bytes, kMaxCheckpointBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read", path));
  std::string text(static_cast<std::size_t>(bytes), '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return ReadCheckpointString(text, path, scenario);
}

Checkpoint ReadCheckpointString(const std::string& text,
                                const std::string& path,
                                const Scenario* scenario) {
  const std::string magic = text.substr(0, text.find('\n'));
  const std::string current = fmt::format("{} {}", kMagic, kFormat);
  if (magic != current) {
    if (magic.rfind(std::string(kMagic) + " ", 0) == 0) {
      throw std::runtime_error(fmt::format(
          "{}:1: checkpoint format {}, this tern reads format {}: refusing "
          "to resume",
          path, magic.substr(std::string(kMagic).size() + 1, 20), kFormat));
    }
    throw std::runtime_error(
        fmt::format("{}:1: not a tern checkpoint (it starts '{}')", path,
                    magic.substr(0, 40)));
  }
  Tokens t(path, text.substr(std::min(text.size(), magic.size() + 1)));
  Checkpoint c;
  c.path = path;
  t.Expect("version");
  c.version = t.Word();
  // What the run was is checked before any count is read, so a checkpoint
  // of another version or scenario is refused before it sizes anything.
  if (scenario != nullptr) CheckVersion(path, c);
  t.Expect("scenario");
  {
    const std::string w = t.Word();
    char* end = nullptr;
    errno = 0;
    c.scenario_hash = std::strtoull(w.c_str(), &end, 16);
    if (w.size() != 16 || *end != '\0' || errno == ERANGE) {
      t.Fail(fmt::format("scenario: '{}' is not a hash", w));
    }
  }
  t.Expect("plant");
  c.plant = t.Word();
  if (c.plant != "continuous" && c.plant != "time-stepping") {
    t.Fail(fmt::format("plant: '{}' is not a plant kind", c.plant));
  }
  if (scenario != nullptr) CheckCheckpointMatches(path, c, *scenario);
  t.Expect("chunks_done");
  c.chunks_done = static_cast<int>(t.Integer("chunks_done", 1, kRunChunks - 1));
  t.Expect("time");
  c.time = t.Number("time");
  if (!(c.time >= 0)) t.Fail(fmt::format("time: {} is negative", c.time));
  if (scenario != nullptr) CheckTime(path, c, *scenario);
  t.Expect("xc");
  c.xc.resize(t.Count("xc"));
  for (Eigen::Index i = 0; i < c.xc.size(); ++i) {
    c.xc[i] = t.Number([i] { return fmt::format("xc[{}]", i); });
  }
  t.Expect("xd");
  // Each group takes at least "group 0\n".
  c.xd.resize(t.Count("xd", 8));
  for (std::size_t g = 0; g < c.xd.size(); ++g) {
    t.Expect("group");
    c.xd[g].resize(t.Count(fmt::format("xd group {}", g)));
    for (Eigen::Index i = 0; i < c.xd[g].size(); ++i) {
      c.xd[g][i] =
          t.Number([g, i] { return fmt::format("xd group {}[{}]", g, i); });
    }
  }
  t.Expect("memory");
  c.memory.resize(t.Count("memory"));
  for (std::size_t i = 0; i < c.memory.size(); ++i) {
    c.memory[i] = t.Number([i] { return fmt::format("memory[{}]", i); });
  }
  t.Expect("clamped");
  c.clamped.resize(t.Count("clamped"));
  for (std::size_t i = 0; i < c.clamped.size(); ++i) {
    c.clamped[i] = t.Integer(fmt::format("clamped[{}]", i), 0,
                             std::numeric_limits<long long>::max());
  }
  t.Expect("log");
  const long long n = t.Count("log samples");
  const long long m = t.Count("log columns");
  // A sample is its time and m numbers of at least 2 bytes each.
  if (n > 0 && static_cast<unsigned long long>(m + 1) >
                   t.size() / 2 / static_cast<unsigned long long>(n)) {
    t.Fail(fmt::format(
        "log: {} samples of {} columns are more than a file of {} bytes can "
        "hold",
        n, m, t.size()));
  }
  t.Expect("q");
  c.log.q_offset = static_cast<int>(t.Count("log q offset"));
  c.log.num_q = static_cast<int>(t.Count("log q count"));
  if (c.log.q_offset + c.log.num_q > m) {
    t.Fail(fmt::format("log: positions at [{}, {}) of {} columns",
                       c.log.q_offset, c.log.q_offset + c.log.num_q, m));
  }
  // A checkpoint is written after the first chunk, so its log holds at
  // least the sample at the start time: an empty log would resume into a
  // log.csv that silently lacks the earlier samples.
  if (n < 1) t.Fail("log: no samples (a checkpoint's log starts at t = 0)");
  for (long long j = 0; j < m; ++j) c.log.columns.push_back(t.Word());
  // Rows grow as they are read, so memory follows the data present.
  for (long long i = 0; i < n; ++i) {
    const double ti =
        t.Number([i] { return fmt::format("log sample {} time", i); });
    const double before = c.log.times.empty() ? 0.0 : c.log.times.back();
    if (!(ti >= before && ti <= c.time)) {
      t.Fail(fmt::format(
          "log sample {} time: {} is not in [{}, {}] (samples are in time "
          "order, up to the checkpoint's time)",
          i, ti, before, c.time));
    }
    c.log.times.push_back(ti);
    std::vector<double> row(static_cast<std::size_t>(m));
    for (long long j = 0; j < m; ++j) {
      row[j] = t.Number([&c, i, j] {
        return fmt::format("log sample {} column '{}'", i, c.log.columns[j]);
      });
    }
    c.log.rows.push_back(std::move(row));
  }
  return c;
}

void CheckVersion(const std::string& path, const Checkpoint& c) {
  if (c.version != kVersion) {
    throw std::runtime_error(fmt::format(
        "{}: written by tern {}, this is tern {}: refusing to resume", path,
        c.version.substr(0, 40), kVersion));
  }
}

void CheckTime(const std::string& path, const Checkpoint& c,
               const Scenario& scenario) {
  if (!(c.time >= 0 && c.time <= scenario.duration)) {
    throw std::runtime_error(fmt::format(
        "{}: time {} is outside the run [0, {}] s of '{}': refusing to resume",
        path, c.time, scenario.duration, scenario.source_file));
  }
}

void CheckCheckpointMatches(const std::string& path, const Checkpoint& c,
                            const Scenario& scenario) {
  CheckVersion(path, c);
  if (c.plant != scenario.plant.kind) {
    throw std::runtime_error(fmt::format(
        "{}: written by a run on the {} plant, and '{}' uses the {} plant: "
        "refusing to resume",
        path, c.plant, scenario.source_file, scenario.plant.kind));
  }
  if (c.scenario_hash != ScenarioHash(scenario)) {
    throw std::runtime_error(fmt::format(
        "{}: written for another scenario (or other options) than '{}': "
        "refusing to resume; resume with the scenario.yaml of the run that "
        "wrote it",
        path, scenario.source_file));
  }
}

}  // namespace tern::io
