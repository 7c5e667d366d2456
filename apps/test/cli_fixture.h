#pragma once
// The fixture of the `tern` program's tests: runs the executable in a
// fresh temporary folder and captures its exit code, stdout and stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tern::io::test {

namespace fs = std::filesystem;

inline const std::string kModels = TERN_MODELS_DIR;
inline const std::string kScenarios = TERN_SCENARIOS_DIR;

struct Result {
  int code;
  std::string out, err;
};

inline std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Named by the test and the process, so that two runs of the suite at
    // once (two build trees, ctest -j) never share a directory.
    dir_ =
        fs::temp_directory_path() /
        ("tern_cli_test_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()) +
         "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result Run(const std::string& args) {
    const std::string cmd =
        "cd '" + dir_.string() + "' && '" TERN_EXECUTABLE "' " + args + " >'" +
        (dir_ / "out").string() + "' 2>'" + (dir_ / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(dir_ / "out"),
            Slurp(dir_ / "err")};
  }
  // Runs a command that must fail with `code` and one line on stderr
  // starting "tern: error: "; returns the line without that prefix.
  std::string Error(const std::string& args, int code) {
    const Result r = Run(args);
    EXPECT_EQ(r.code, code) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("tern: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    const std::string line = r.err.substr(0, r.err.find('\n'));
    return line.size() > 13 ? line.substr(13) : line;
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

}  // namespace tern::io::test
