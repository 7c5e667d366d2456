#include "apps/checkpoint.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tern/version.h"

namespace tern::cli {
namespace {

constexpr const char* kMagic = "tern-checkpoint 1";

// Reads whitespace-separated tokens, naming the file and line on error.
class Tokens {
 public:
  Tokens(std::string path, std::istream* in)
      : path_(std::move(path)), in_(in) {}
  std::string Word() {
    std::string w;
    while (w.empty()) {
      if (!(std::getline(line_, w, ' '))) {
        std::string next;
        if (!std::getline(*in_, next)) Fail("unexpected end of file");
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
    if (w != word) Fail(fmt::format("expected '{}', found '{}'", word, w));
  }
  double Number() {
    const std::string w = Word();
    char* end = nullptr;
    const double x = std::strtod(w.c_str(), &end);
    if (end == w.c_str() || *end != '\0') {
      Fail(fmt::format("'{}' is not a number", w));
    }
    return x;
  }
  long long Integer() {
    const std::string w = Word();
    char* end = nullptr;
    const long long x = std::strtoll(w.c_str(), &end, 10);
    if (end == w.c_str() || *end != '\0' || x < 0) {
      Fail(fmt::format("'{}' is not a count", w));
    }
    return x;
  }
  [[noreturn]] void Fail(const std::string& msg) const {
    throw std::runtime_error(fmt::format("{}:{}: not a tern checkpoint: {}",
                                         path_, line_number_, msg));
  }

 private:
  std::string path_;
  std::istream* in_;
  std::istringstream line_;
  int line_number_{0};
};

std::string Hex(double x) { return fmt::format("{:a}", x); }

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
  std::string text = fmt::format("{}\nversion {}\nscenario {:016x}\n", kMagic,
                                 c.version, c.scenario_hash);
  text += fmt::format("chunks_done {}\ntime {}\nxc {}", c.chunks_done,
                      Hex(c.time), c.xc.size());
  for (Eigen::Index i = 0; i < c.xc.size(); ++i) {
    text += ' ';
    text += Hex(c.xc[i]);
  }
  text += fmt::format("\nxd {}\n", c.xd.size());
  for (const Eigen::VectorXd& g : c.xd) {
    text += fmt::format("group {}", g.size());
    for (Eigen::Index i = 0; i < g.size(); ++i) {
      text += ' ';
      text += Hex(g[i]);
    }
    text += "\n";
  }
  text += fmt::format("log {} {} q {} {}\n", c.log.times.size(),
                      c.log.columns.size(), c.log.q_offset, c.log.num_q);
  for (const std::string& col : c.log.columns) text += col + "\n";
  for (std::size_t i = 0; i < c.log.times.size(); ++i) {
    text += Hex(c.log.times[i]);
    for (double x : c.log.rows[i]) {
      text += ' ';
      text += Hex(x);
    }
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

Checkpoint ReadCheckpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: no such file", path));
  std::string magic;
  std::getline(in, magic);
  if (magic != kMagic) {
    throw std::runtime_error(
        fmt::format("{}:1: not a tern checkpoint (it starts '{}')", path,
                    magic.substr(0, 40)));
  }
  Tokens t(path, &in);
  Checkpoint c;
  t.Expect("version");
  c.version = t.Word();
  t.Expect("scenario");
  c.scenario_hash = std::stoull(t.Word(), nullptr, 16);
  t.Expect("chunks_done");
  c.chunks_done = static_cast<int>(t.Integer());
  t.Expect("time");
  c.time = t.Number();
  t.Expect("xc");
  c.xc.resize(t.Integer());
  for (Eigen::Index i = 0; i < c.xc.size(); ++i) c.xc[i] = t.Number();
  t.Expect("xd");
  c.xd.resize(t.Integer());
  for (Eigen::VectorXd& g : c.xd) {
    t.Expect("group");
    g.resize(t.Integer());
    for (Eigen::Index i = 0; i < g.size(); ++i) g[i] = t.Number();
  }
  t.Expect("log");
  const long long n = t.Integer();
  const long long m = t.Integer();
  t.Expect("q");
  c.log.q_offset = static_cast<int>(t.Integer());
  c.log.num_q = static_cast<int>(t.Integer());
  for (long long j = 0; j < m; ++j) c.log.columns.push_back(t.Word());
  c.log.rows.assign(n, std::vector<double>(m));
  for (long long i = 0; i < n; ++i) {
    c.log.times.push_back(t.Number());
    for (long long j = 0; j < m; ++j) c.log.rows[i][j] = t.Number();
  }
  return c;
}

void CheckCheckpointMatches(const std::string& path, const Checkpoint& c,
                            const Scenario& scenario) {
  if (c.version != kVersion) {
    throw std::runtime_error(fmt::format(
        "{}: written by tern {}, this is tern {}: refusing to resume", path,
        c.version, kVersion));
  }
  if (c.scenario_hash != ScenarioHash(scenario)) {
    throw std::runtime_error(fmt::format(
        "{}: written for another scenario (or other options) than '{}': "
        "refusing to resume; resume with the scenario.yaml of the run that "
        "wrote it",
        path, scenario.source_file));
  }
}

}  // namespace tern::cli
