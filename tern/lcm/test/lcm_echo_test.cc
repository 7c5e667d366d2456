// DescribeLcmMessage names every tern_lcmt type with its values, and
// anything else as unknown, never crashing on garbage.
#include "tern/lcm/lcm_echo.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "tern/lcm/child_process.h"
#include "tern/lcm/lcm_translators.h"

namespace tern {
namespace {

TEST(LcmEcho, DescribesEachType) {
  std::vector<std::uint8_t> bytes;
  LcmRobotStateTranslator(2, 1).Encode(
      1000, VectorX<double>::LinSpaced(3, 1, 3), &bytes);
  EXPECT_EQ(DescribeLcmMessage(bytes.data(), static_cast<int>(bytes.size())),
            "utime 1000 robot_state_t q [1, 2] v [3]");
  LcmVectorTranslator("imu", 2).Encode(7, VectorX<double>::Constant(2, 0.5),
                                       &bytes);
  EXPECT_EQ(DescribeLcmMessage(bytes.data(), static_cast<int>(bytes.size())),
            "utime 7 vector_t 'imu' [0.5, 0.5]");
  // Garbage, truncated messages and corrupted counts.
  const std::vector<std::uint8_t> junk = {1, 2, 3};
  EXPECT_NE(DescribeLcmMessage(junk.data(), 3).find("unknown message (3 bytes"),
            std::string::npos);
  for (int cut = 0; cut < static_cast<int>(bytes.size()); ++cut) {
    EXPECT_NE(DescribeLcmMessage(bytes.data(), cut).find("unknown"),
              std::string::npos);
  }
  bytes[16] = 0x7f;  // kind length
  EXPECT_NE(DescribeLcmMessage(bytes.data(), static_cast<int>(bytes.size()))
                .find("unknown"),
            std::string::npos);
}

TEST(LcmEcho, EchoesAnotherProcesssMessages) {
  const std::string url = LoopbackUrlForThisProcess();
  const std::string channel = UniqueChannelName("ENCODER");
  LcmInterface lcm(url);
  ChildProcess peer(
      {TERN_LCM_TEST_PEER, url, channel, "UNUSED", "publish", "3000"});
  std::ostringstream out;
  EXPECT_EQ(EchoLcmChannel(&lcm, channel, 3, 30.0, out), 3);
  std::istringstream lines(out.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    EXPECT_NE(line.find("vector_t 'encoder' ["), std::string::npos) << line;
    ++n;
  }
  EXPECT_EQ(n, 3);
}

// (Only when the program is built: TERN_BUILD_APPS.)
#ifdef TERN_EXECUTABLE
// `tern lcm-echo CHANNEL --url URL --count 2` prints two decoded lines.
TEST(LcmEcho, TernLcmEchoCommand) {
  const std::string url = LoopbackUrlForThisProcess();
  const std::string channel = UniqueChannelName("CLI_ENCODER");
  ChildProcess peer(
      {TERN_LCM_TEST_PEER, url, channel, "UNUSED", "publish", "3000"});
  const std::string command = std::string(TERN_EXECUTABLE) + " lcm-echo " +
                              channel + " --url '" + url +
                              "' --count 2 --timeout 30";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[512];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) out += buffer;
  EXPECT_EQ(pclose(pipe), 0) << out;
  std::istringstream lines(out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    EXPECT_NE(line.find("vector_t 'encoder' ["), std::string::npos) << line;
    ++n;
  }
  EXPECT_EQ(n, 2) << out;
}
#endif

TEST(LcmEcho, QuietChannelTimesOut) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  std::ostringstream out;
  EXPECT_EQ(EchoLcmChannel(&lcm, UniqueChannelName("QUIET"), 0, 0.05, out), 0);
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace tern
