// The `tern` program on untrusted input (issue 27): each finding of the
// fuzzing campaign, run as a user would, fails fast with one line naming
// the file and the field, within a time and a memory limit (the child's
// peak resident memory from wait4; in builds without AddressSanitizer,
// whose shadow memory needs an unlimited address space, also RLIMIT_AS).
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "apps/test/cli_fixture.h"

namespace tern::io::test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

struct Limited {
  int code;
  std::string err;
  double seconds;  // wall clock
  long peak_mb;    // the child's peak resident memory
};

class UntrustedTest : public CliTest {
 protected:
  // Runs `tern <args>` in the test's folder under a memory limit.
  Limited RunLimited(const std::string& args, long limit_mb = 1024) {
    const std::string cmd = "cd '" + dir_.string() + "' && exec '" +
                            TERN_EXECUTABLE "' " + args + " >'" +
                            (dir_ / "out").string() + "' 2>'" +
                            (dir_ / "err").string() + "'";
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
      if (!kAsan) {
        const rlimit as{static_cast<rlim_t>(limit_mb) << 20,
                        static_cast<rlim_t>(limit_mb) << 20};
        setrlimit(RLIMIT_AS, &as);
      }
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(dir_ / "err"),
            seconds, usage.ru_maxrss / 1024};
  }
  // A run that must fail with exit code 1 and one line, within 20 s
  // (under ASan on a loaded machine; about 0.5 s in Release) and `limit_mb`;
  // returns the line without "tern: error: ".
  std::string FailsFast(const std::string& args, long limit_mb = 1024) {
    const Limited r = RunLimited(args, limit_mb);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("tern: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(r.seconds, 20.0) << args;
    EXPECT_LT(r.peak_mb, limit_mb) << args;
    const std::string line = r.err.substr(0, r.err.find('\n'));
    return line.size() > 13 ? line.substr(13) : line;
  }
  // A scenario and a checkpoint of it at 0.05 s: scene.yaml, good.tck.
  std::string MakeCheckpoint() {
    Write("scene.yaml",
          "duration: 0.1\nground: false\nmodels: [{file: " + kModels +
              "/pendulum.urdf}]\ninitial_state: {positions: "
              "{pivot: 0.5}}\nlog: {rate: 100}\n");
    const Result r =
        Run("simulate scene.yaml --quiet --checkpoint-every 0.05 --output o");
    EXPECT_EQ(r.code, 0) << r.err;
    fs::copy_file(dir_ / "o/checkpoint-0.05s.tck", dir_ / "good.tck");
    return Slurp(dir_ / "good.tck");
  }
  // `text` with the line starting `key ` replaced by `line`.
  static std::string WithLine(std::string text, const std::string& key,
                              const std::string& line) {
    const std::size_t at = text.find("\n" + key + " ") + 1;
    const std::size_t end = text.find('\n', at);
    return text.replace(at, end - at, line);
  }
};

// Finding 1: a checkpoint time of inf, nan or 1e300 made the resume hang in
// Simulator::Initialize.
TEST_F(UntrustedTest, ResumeFromANonFiniteOrOutOfRangeTimeFailsFast) {
  const std::string good = MakeCheckpoint();
  for (const char* t : {"inf", "nan", "-inf"}) {
    Write("t.tck", WithLine(good, "time", fmt::format("time {}", t)));
    EXPECT_EQ(FailsFast("simulate scene.yaml --resume t.tck"),
              fmt::format("t.tck:6: time: {} is not finite", t));
  }
  for (const char* t : {"1e300", "0x1p+2"}) {
    Write("t.tck", WithLine(good, "time", fmt::format("time {}", t)));
    const std::string e = FailsFast("simulate scene.yaml --resume t.tck");
    EXPECT_EQ(e.rfind("t.tck: time ", 0), 0u) << e;
    EXPECT_NE(e.find("is outside the run [0, 0.1] s of 'scene.yaml'"),
              std::string::npos)
        << e;
  }
  Write("t.tck", WithLine(good, "time", "time -0x1p+0"));
  EXPECT_EQ(FailsFast("simulate scene.yaml --resume t.tck"),
            "t.tck:6: time: -1 is negative");
  // The control: the unmodified checkpoint resumes.
  EXPECT_EQ(
      Run("simulate scene.yaml --quiet --resume good.tck --output r").code, 0);
}

// Finding 2: counts in the header sized gigabytes before any data was read
// (78 bytes: 3.1 GB; 93 bytes: 2.7 GB). Now each count is bounded by the
// file's size, and the version and scenario are checked first.
TEST_F(UntrustedTest, HugeCountsInATinyCheckpointFailFastInBoundedMemory) {
  const std::string good = MakeCheckpoint();
  const std::string header = good.substr(0, good.find("\nxc ") + 1);
  Write("xd.tck", header + "xc 0\nxd 200000000\n");
  EXPECT_EQ(FailsFast("simulate scene.yaml --resume xd.tck", 400)
                .rfind("xd.tck:8: xd: 200000000 is more than a file of ", 0),
            0u);
  Write("log.tck",
        header + "xc 0\nxd 0\nmemory 0\nclamped 0\nlog 50000000 1\n");
  const std::string log =
      FailsFast("simulate scene.yaml --resume log.tck", 400);
  EXPECT_NE(log.find("log samples: 50000000 is more than a file of"),
            std::string::npos)
      << log;
  Write("xc.tck", WithLine(good, "xc", "xc 9000000000000000000 0"));
  EXPECT_NE(FailsFast("simulate scene.yaml --resume xc.tck", 400)
                .find("xc: 9000000000000000000 is more than a file of"),
            std::string::npos);
  // The 78-byte file of the issue: another version, refused before its
  // counts are read.
  Write("old.tck",
        "tern-checkpoint 2\nversion 0\nscenario 0000000000000000\nplant "
        "continuous\nxd 200000000\n");
  EXPECT_EQ(FailsFast("simulate scene.yaml --resume old.tck", 400)
                .rfind("old.tck: written by tern 0, this is tern ", 0),
            0u);
  // Not a regular file.
  EXPECT_EQ(FailsFast("simulate scene.yaml --resume /dev/zero", 400),
            "/dev/zero: not a regular file (a checkpoint is a file that tern "
            "simulate --checkpoint-every wrote)");
}

// Finding 4 (chunks_done + 1 overflowed) and finding 8 (an empty log was
// accepted and the resumed log.csv lacked the earlier samples).
TEST_F(UntrustedTest, ChunkCountAndEmptyLogAreRefused) {
  const std::string good = MakeCheckpoint();
  Write("c.tck", WithLine(good, "chunks_done", "chunks_done 2147483647"));
  EXPECT_EQ(FailsFast("simulate scene.yaml --resume c.tck"),
            "c.tck:5: chunks_done: '2147483647' is not an integer in [1, 199]");
  const std::size_t log_at = good.find("\nlog ") + 1;
  const std::string log_line =
      good.substr(log_at, good.find('\n', log_at) - log_at);
  std::string empty =
      WithLine(good, "log", "log 0" + log_line.substr(log_line.find(' ', 4)));
  // Keep the column names, drop the samples.
  const std::size_t samples = empty.find("\n0x0p+0") + 1;
  empty.resize(samples);
  Write("e.tck", empty);
  const std::string e = FailsFast("simulate scene.yaml --resume e.tck");
  EXPECT_NE(e.find("log: no samples"), std::string::npos) << e;
}

// Findings 4 and 8: a duration that overflowed the log size, and a model
// that is not a regular file.
TEST_F(UntrustedTest, LongDurationsAndDeviceFilesAreRefusedByName) {
  Write("long.yaml",
        "duration: 1e10\nmodels: [{file: " + kModels + "/pendulum.urdf}]\n");
  EXPECT_EQ(FailsFast("check long.yaml"),
            "long.yaml: duration 10000000000 s at log.rate 100 Hz is "
            "1000000000002 samples, more than the 10000000 a run's log may "
            "hold: lower log.rate or the duration");
  EXPECT_NE(FailsFast("simulate " + kModels + "/pendulum.urdf --duration 1e300")
                .find("duration 1e+300 s at log.rate 100 Hz"),
            std::string::npos);
  Write("zero.yaml", "models: [{file: /dev/zero}]\n");
  EXPECT_EQ(FailsFast("check zero.yaml"),
            "zero.yaml:1:17: 'models[0].file': /dev/zero: not a regular file "
            "(model files must be regular files)");
  // A model file over the 256 MB limit (sparse: no disk is used) is refused
  // by its size, before it is read, from a scenario and on its own.
  const std::uintmax_t big_bytes = 300u << 20;
  { std::ofstream(dir_ / "big.urdf") << "<robot name='big'>"; }
  fs::resize_file(dir_ / "big.urdf", big_bytes);
  Write("big.yaml", "models: [{file: big.urdf}]\n");
  const std::string limit = fmt::format(
      "{} bytes, more than the 268435456 bytes a model file may have",
      big_bytes);
  EXPECT_EQ(FailsFast("check big.yaml", 512),
            "big.yaml:1:17: 'models[0].file': big.urdf: " + limit);
  EXPECT_EQ(FailsFast("check big.urdf", 512), "big.urdf: " + limit);
}

// Finding 3: `tern check` of 2,725 free boxes took 6.2 GB (dense nv x nv
// matrices in the plants' workspaces). Now memory is linear in the bodies:
// a few hundred MB under ASan, well under 1 GB.
TEST_F(UntrustedTest, ManyFreeBoxesCheckInMemoryLinearInTheBodies) {
  for (const char* plant : {"continuous", "time-stepping"}) {
    std::string yaml = fmt::format("plant: {{kind: {}}}\nboxes:\n", plant);
    for (int i = 0; i < 2725; ++i) {
      yaml += fmt::format("  - {{position: [{}, {}, 0.3]}}\n", 0.5 * (i % 50),
                          0.5 * (i / 50));
    }
    Write("boxes.yaml", yaml);
    const Limited r = RunLimited("check boxes.yaml", 1024);
    EXPECT_EQ(r.code, 0) << plant << "\n" << r.err;
    EXPECT_LT(r.peak_mb, kAsan ? 600 : 400) << plant;
    EXPECT_NE(Slurp(dir_ / "out").find("bodies (2725)"), std::string::npos);
  }
}

// Issue 25: a 10 MB scenario of 124,738 boxes used 4.8 GB and ended in
// std::bad_alloc. Now it is refused before it is parsed, by its size (the
// YAML node tree alone took 1.8 GB under ASan); a smaller file with too
// many boxes is refused by the body limit. Both name the scenario and the
// limit, fast and within 1 GB.
TEST_F(UntrustedTest, HugeScenariosFailFastNamingTheLimit) {
  std::string yaml = "boxes:\n";
  for (int i = 0; i < 124738; ++i) {
    yaml += fmt::format(
        "  - {{name: box{}, size: [0.1, 0.1, 0.1], position: [{}, {}, 0.3], "
        "mass: 1}}\n",
        i, 0.5 * (i % 400), 0.5 * (i / 400));
  }
  ASSERT_GT(yaml.size(), 10'000'000u);
  Write("huge.yaml", yaml);
  const std::string too_big = fmt::format(
      "huge.yaml: {} bytes, more than the 2097152 bytes a "
      "scenario file may have",
      yaml.size());
  EXPECT_EQ(FailsFast("check huge.yaml"), too_big);
  EXPECT_EQ(FailsFast("simulate huge.yaml --quiet"), too_big);
  // 1 MB: 200,000 boxes of the default size and mass.
  std::string many = "boxes:\n";
  for (int i = 0; i < 200'000; ++i) many += "- {}\n";
  Write("many.yaml", many);
  EXPECT_EQ(FailsFast("check many.yaml"),
            "many.yaml:2:1: 'boxes' has 200000 entries; a scenario may have at "
            "most 10000 bodies (boxes and model links)");
}

}  // namespace
}  // namespace tern::io::test
