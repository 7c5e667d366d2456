// LcmInterface on the loopback: a message comes back to its own process,
// waits are bounded, clashes and bad names are named.
#include "tern/lcm/lcm_interface.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace tern {
namespace {

TEST(LcmInterface, LoopbackDeliversToTheSameProcess) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  const std::string channel = UniqueChannelName("ECHO");
  std::vector<std::uint8_t> got;
  lcm.Subscribe(channel, "test",
                [&got](const std::uint8_t* d, int n) { got.assign(d, d + n); });
  const std::vector<std::uint8_t> sent = {1, 2, 3, 250};
  lcm.Publish(channel, sent);
  for (int i = 0; i < 100 && got.empty(); ++i) lcm.HandleSubscriptions(0.1);
  EXPECT_EQ(got, sent);
}

TEST(LcmInterface, WaitIsBounded) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  lcm.Subscribe(UniqueChannelName("QUIET"), "test",
                [](const std::uint8_t*, int) {});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(lcm.HandleSubscriptions(0.05), 0);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_GE(waited, 0.04);
  EXPECT_LT(waited, 5.0);
}

TEST(LcmInterface, ChannelClashNamesBothOwners) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  lcm.Subscribe("STATE", "first", [](const std::uint8_t*, int) {});
  try {
    lcm.Subscribe("STATE", "second", [](const std::uint8_t*, int) {});
    FAIL() << "no clash reported";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'second'"), std::string::npos) << m;
    EXPECT_NE(m.find("'first'"), std::string::npos) << m;
    EXPECT_NE(m.find("'STATE'"), std::string::npos) << m;
  }
  lcm.ClaimPublisher("CMD", "a");
  EXPECT_THROW(lcm.ClaimPublisher("CMD", "b"), std::invalid_argument);
  lcm.Release("CMD", "a");
  lcm.ClaimPublisher("CMD", "b");  // free again
  lcm.Release("STATE", "first");
  lcm.Subscribe("STATE", "second", [](const std::uint8_t*, int) {});
}

TEST(LcmInterface, ChannelNamesArePlainIdentifiers) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  for (const char* bad : {"", "A*", "A B", "(x)"}) {
    EXPECT_THROW(lcm.Subscribe(bad, "test", [](const std::uint8_t*, int) {}),
                 std::invalid_argument)
        << bad;
  }
  EXPECT_THROW(lcm.ClaimPublisher("a|b", "test"), std::invalid_argument);
}

TEST(LcmInterface, BadUrlIsNamed) {
  try {
    LcmInterface lcm("nosuchprovider://x");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchprovider://x"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace tern
