// Message round trips for every type, bit for bit, and every way a
// received message can be wrong.
#include "tern/lcm/lcm_translators.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace tern {
namespace {

// Values whose bits a lossy encoding would change.
VectorX<double> Awkward(int n) {
  VectorX<double> v(n);
  const double special[] = {-0.0,
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::max(),
                            1.0 / 3.0,
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
  for (int i = 0; i < n; ++i) v[i] = special[i % 6] * (i < 6 ? 1 : i);
  return v;
}

void ExpectSameBits(const VectorX<double>& a, const VectorX<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(double) * a.size()), 0);
}

TEST(LcmTranslators, VectorRoundTripIsBitExact) {
  for (const char* kind : {"joint_command", "imu", "encoder", "force_torque"}) {
    LcmVectorTranslator t(kind, 13);
    std::vector<std::uint8_t> bytes;
    t.Encode(123456789, Awkward(13), &bytes);
    std::int64_t utime = 0;
    VectorX<double> back;
    t.Decode(bytes.data(), static_cast<int>(bytes.size()), "C", &utime, &back);
    EXPECT_EQ(utime, 123456789);
    ExpectSameBits(back, Awkward(13));
  }
}

TEST(LcmTranslators, RobotStateRoundTripIsBitExact) {
  LcmRobotStateTranslator t(19, 18);
  EXPECT_EQ(t.size(), 37);
  std::vector<std::uint8_t> bytes;
  t.Encode(-5, Awkward(37), &bytes);
  std::int64_t utime = 0;
  VectorX<double> back;
  t.Decode(bytes.data(), static_cast<int>(bytes.size()), "C", &utime, &back);
  EXPECT_EQ(utime, -5);
  ExpectSameBits(back, Awkward(37));
}

TEST(LcmTranslators, TimeToUtimeRoundsToMicroseconds) {
  EXPECT_EQ(TimeToUtime(0.001 * 3), 3000);
  EXPECT_EQ(TimeToUtime(1e-7), 0);
  EXPECT_EQ(UtimeToTime(2500000), 2.5);
}

// The error message of decoding `bytes` with `t` on channel "CHAN".
std::string DecodeError(const LcmTranslator& t,
                        const std::vector<std::uint8_t>& bytes) {
  std::int64_t utime = 0;
  VectorX<double> v;
  try {
    t.Decode(bytes.data(), static_cast<int>(bytes.size()), "CHAN", &utime, &v);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(LcmTranslators, BadMessagesNameTheChannel) {
  LcmVectorTranslator command("joint_command", 3);
  LcmRobotStateTranslator state(2, 2);
  std::vector<std::uint8_t> good_command, good_state;
  command.Encode(1, VectorX<double>::Ones(3), &good_command);
  state.Encode(1, VectorX<double>::Ones(4), &good_state);

  // Truncated, empty, padded.
  for (const auto* good : {&good_command, &good_state}) {
    const LcmTranslator& t = good == &good_command
                                 ? static_cast<const LcmTranslator&>(command)
                                 : static_cast<const LcmTranslator&>(state);
    std::vector<std::uint8_t> cut(good->begin(), good->end() - 3);
    EXPECT_NE(DecodeError(t, cut).find("'CHAN'"), std::string::npos);
    EXPECT_NE(DecodeError(t, {}).find("'CHAN'"), std::string::npos);
    std::vector<std::uint8_t> padded = *good;
    padded.push_back(0);
    EXPECT_NE(DecodeError(t, padded).find("not a valid"), std::string::npos);
  }
  // Another message type: its fingerprint differs.
  EXPECT_NE(DecodeError(command, good_state).find("'CHAN'"), std::string::npos);
  EXPECT_NE(DecodeError(state, good_command).find("'CHAN'"), std::string::npos);
  // A negative count must not reach the generated decoder (which would
  // try to allocate it).
  std::vector<std::uint8_t> negative = good_state;
  negative[16] = 0xff;
  EXPECT_NE(DecodeError(state, negative).find("no valid position count"),
            std::string::npos);
  // Right type, wrong kind or size.
  std::vector<std::uint8_t> imu;
  LcmVectorTranslator("imu", 3).Encode(1, VectorX<double>::Ones(3), &imu);
  EXPECT_NE(DecodeError(command, imu)
                .find("kind 'imu', expected "
                      "'joint_command'"),
            std::string::npos);
  std::vector<std::uint8_t> four;
  LcmVectorTranslator("joint_command", 4)
      .Encode(1, VectorX<double>::Ones(4), &four);
  EXPECT_NE(DecodeError(command, four).find("has 4 values, expected 3"),
            std::string::npos);
  std::vector<std::uint8_t> bigger;
  LcmRobotStateTranslator(3, 2).Encode(1, VectorX<double>::Ones(5), &bigger);
  EXPECT_NE(DecodeError(state, bigger).find("nq 3 and nv 2, expected 2"),
            std::string::npos);
  // And the good ones decode.
  EXPECT_EQ(DecodeError(command, good_command), "");
  EXPECT_EQ(DecodeError(state, good_state), "");
}

TEST(LcmTranslators, EncodeChecksTheSize) {
  std::vector<std::uint8_t> bytes;
  EXPECT_THROW(
      LcmVectorTranslator("imu", 3).Encode(0, VectorX<double>(2), &bytes),
      std::invalid_argument);
  EXPECT_THROW(
      LcmRobotStateTranslator(2, 2).Encode(0, VectorX<double>(3), &bytes),
      std::invalid_argument);
  EXPECT_THROW(LcmVectorTranslator("", 3), std::invalid_argument);
}

}  // namespace
}  // namespace tern
