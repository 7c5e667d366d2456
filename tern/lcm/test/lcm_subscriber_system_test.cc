// LcmSubscriberSystem: the newest message becomes abstract state at the
// next update; a malformed one fails the update naming the channel and
// leaves the last good message in the Context.
#include "tern/lcm/lcm_subscriber_system.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tern/lcm/child_process.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

class LcmSubscriberTest : public ::testing::Test {
 protected:
  // Publishes `bytes` on the channel and waits (bounded) until the
  // subscriber's handler has it, so that the next update must take it.
  void Send(const std::vector<std::uint8_t>& bytes) {
    lcm_.Publish(channel_, bytes);
    for (int i = 0; i < 100 && lcm_.HandleSubscriptions(0.05) == 0; ++i) {
    }
  }
  std::vector<std::uint8_t> Message(double t, const VectorX<double>& v) {
    std::vector<std::uint8_t> bytes;
    translator_->Encode(TimeToUtime(t), v, &bytes);
    return bytes;
  }

  LcmInterface lcm_{LoopbackUrlForThisProcess()};
  std::string channel_ = UniqueChannelName("IMU");
  std::shared_ptr<LcmVectorTranslator> translator_ =
      std::make_shared<LcmVectorTranslator>("imu", 3);
};

TEST_F(LcmSubscriberTest, TakesTheNewestMessageAtTheNextUpdate) {
  LcmSubscriberSystem sub(channel_, translator_, &lcm_, 0.01,
                          VectorX<double>::Constant(3, 7.0));
  Simulator<double> sim(sub);
  sim.AdvanceTo(0.05);
  EXPECT_EQ(sub.get_output_port(0).Eval(sim.get_context()),
            VectorX<double>::Constant(3, 7.0));  // nothing yet
  EXPECT_EQ(sub.GetReceived(sim.get_context()).count, 0);
  Send(Message(0.5, VectorX<double>::Constant(3, 1.0)));
  Send(Message(0.6, VectorX<double>::Constant(3, 2.0)));
  // Still the old value until an update takes the message.
  EXPECT_EQ(sub.get_output_port(0).Eval(sim.get_context())[0], 7.0);
  sim.AdvanceTo(0.055);  // the update at 0.05
  const LcmReceived& r = sub.GetReceived(sim.get_context());
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.utime, 600000);
  EXPECT_EQ(sub.get_output_port(0).Eval(sim.get_context()),
            VectorX<double>::Constant(3, 2.0));
  sim.AdvanceTo(0.1);  // no new message: unchanged
  EXPECT_EQ(sub.GetReceived(sim.get_context()).count, 1);
}

TEST_F(LcmSubscriberTest, MalformedMessageKeepsTheLastGoodState) {
  LcmSubscriberSystem sub(channel_, translator_, &lcm_, 0.01,
                          VectorX<double>::Zero(3));
  Simulator<double> sim(sub);
  Send(Message(0.0, VectorX<double>::Constant(3, 4.0)));
  sim.AdvanceTo(0.005);
  ASSERT_EQ(sub.GetReceived(sim.get_context()).count, 1);
  std::vector<std::uint8_t> wrong_size;
  LcmVectorTranslator("imu", 4).Encode(1, VectorX<double>::Ones(4),
                                       &wrong_size);
  Send(wrong_size);
  try {
    sim.AdvanceTo(0.05);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'" + channel_ + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("has 4 values, expected 3"), std::string::npos) << m;
    EXPECT_NE(m.find("t = 0.01"), std::string::npos) << m;
  }
  EXPECT_EQ(sim.get_context().get_time(), 0.01);
  EXPECT_EQ(sub.GetReceived(sim.get_context()).count, 1);
  EXPECT_EQ(sub.get_output_port(0).Eval(sim.get_context()),
            VectorX<double>::Constant(3, 4.0));
}

// Free running against another process publishing every 10 ms: the
// subscriber's updates take its messages as they come (bounded wait, so
// the test cannot hang; it needs only that some arrive within 30 s).
TEST_F(LcmSubscriberTest, TakesMessagesFromAnotherProcess) {
  auto encoder = std::make_shared<LcmVectorTranslator>("encoder", 1);
  LcmSubscriberSystem sub(channel_, encoder, &lcm_, 0.01,
                          VectorX<double>::Constant(1, -1.0));
  ChildProcess peer(
      {TERN_LCM_TEST_PEER, lcm_.url(), channel_, "UNUSED", "publish", "3000"});
  Simulator<double> sim(sub);
  sim.set_target_realtime_rate(1.0);
  const auto start = std::chrono::steady_clock::now();
  double t = 0;
  while (sub.GetReceived(sim.get_context()).count < 3 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    t += 0.01;
    sim.AdvanceTo(t);
  }
  const LcmReceived& r = sub.GetReceived(sim.get_context());
  ASSERT_GE(r.count, 3);
  // The peer sends value k at utime k: the message's time and value agree.
  EXPECT_EQ(r.value[0], static_cast<double>(r.utime));
}

TEST_F(LcmSubscriberTest, BadArguments) {
  EXPECT_THROW(LcmSubscriberSystem(channel_, translator_, &lcm_, 0,
                                   VectorX<double>::Zero(3)),
               std::invalid_argument);
  EXPECT_THROW(LcmSubscriberSystem(channel_, translator_, &lcm_, 0.1,
                                   VectorX<double>::Zero(2)),
               std::invalid_argument);
  LcmSubscriberSystem first(channel_, translator_, &lcm_, 0.1,
                            VectorX<double>::Zero(3));
  EXPECT_THROW(LcmSubscriberSystem(channel_, translator_, &lcm_, 0.1,
                                   VectorX<double>::Zero(3)),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern
