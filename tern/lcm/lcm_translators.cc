#include "tern/lcm/lcm_translators.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>

#include "tern_lcmt/robot_state_t.hpp"
#include "tern_lcmt/vector_t.hpp"

namespace tern {

std::int64_t TimeToUtime(double t) { return std::llround(t * 1e6); }
double UtimeToTime(std::int64_t utime) {
  return static_cast<double>(utime) * 1e-6;
}

LcmTranslator::~LcmTranslator() = default;

namespace {

// LCM's wire format is big-endian: fingerprint (8 bytes), then the fields.
constexpr int kFingerprint = 8;

// The int32 at `offset` of a message, or -1 if it lies past its end.
std::int64_t ReadInt32(const std::uint8_t* data, int size,
                       std::int64_t offset) {
  if (offset < 0 || offset + 4 > size) return -1;
  const std::uint32_t u = (std::uint32_t{data[offset]} << 24) |
                          (std::uint32_t{data[offset + 1]} << 16) |
                          (std::uint32_t{data[offset + 2]} << 8) |
                          std::uint32_t{data[offset + 3]};
  return static_cast<std::int32_t>(u);
}

[[noreturn]] void Malformed(const std::string& channel, const std::string& what,
                            int size, const std::string& detail) {
  throw std::runtime_error(fmt::format(
      "LCM message on channel '{}' ({} bytes) is not a valid {}: {}", channel,
      size, what, detail));
}

template <class Msg>
void EncodeMessage(const Msg& msg, std::vector<std::uint8_t>* bytes) {
  bytes->resize(static_cast<std::size_t>(msg.getEncodedSize()));
  msg.encode(bytes->data(), 0, static_cast<int>(bytes->size()));
}

template <class Msg>
void DecodeMessage(const std::uint8_t* data, int size,
                   const std::string& channel, const std::string& what,
                   Msg* msg) {
  if (msg->decode(data, 0, size) != size) {
    Malformed(channel, what, size,
              "its fingerprint or layout does not match (another message "
              "type?)");
  }
}

}  // namespace

LcmVectorTranslator::LcmVectorTranslator(std::string kind, int size)
    : kind_(std::move(kind)), size_(size) {
  if (kind_.empty() || size < 0) {
    throw std::invalid_argument(fmt::format(
        "LcmVectorTranslator: needs a kind and a size >= 0, got '{}' and {}",
        kind_, size));
  }
}

std::string LcmVectorTranslator::description() const {
  return fmt::format("vector_t (kind '{}', size {})", kind_, size_);
}

void LcmVectorTranslator::Encode(std::int64_t utime,
                                 const VectorX<double>& value,
                                 std::vector<std::uint8_t>* bytes) const {
  if (value.size() != size_) {
    throw std::invalid_argument(
        fmt::format("LcmVectorTranslator '{}': value has size {}, expected {}",
                    kind_, value.size(), size_));
  }
  tern_lcmt::vector_t msg;
  msg.utime = utime;
  msg.kind = kind_;
  msg.size = size_;
  msg.values.assign(value.data(), value.data() + size_);
  EncodeMessage(msg, bytes);
}

void LcmVectorTranslator::Decode(const std::uint8_t* data, int size,
                                 const std::string& channel,
                                 std::int64_t* utime,
                                 VectorX<double>* value) const {
  const std::string what = "tern_lcmt::vector_t";
  // Layout: fingerprint, utime (8), kind (int32 length with its NUL, then
  // the bytes), size (int32), values (8 * size).
  const std::int64_t kind_length = ReadInt32(data, size, kFingerprint + 8);
  if (kind_length < 1) Malformed(channel, what, size, "no kind string");
  const std::int64_t n = ReadInt32(data, size, kFingerprint + 12 + kind_length);
  if (n < 0) Malformed(channel, what, size, "no valid value count");
  if (kFingerprint + 16 + kind_length + 8 * n != size) {
    Malformed(channel, what, size,
              fmt::format("{} values do not fill the message", n));
  }
  tern_lcmt::vector_t msg;
  DecodeMessage(data, size, channel, what, &msg);
  if (msg.kind != kind_) {
    throw std::runtime_error(
        fmt::format("LCM message on channel '{}' has kind '{}', expected '{}'",
                    channel, msg.kind, kind_));
  }
  if (msg.size != size_) {
    throw std::runtime_error(fmt::format(
        "LCM message on channel '{}' (kind '{}') has {} values, expected {}",
        channel, kind_, msg.size, size_));
  }
  *utime = msg.utime;
  value->resize(size_);
  for (int i = 0; i < size_; ++i) (*value)[i] = msg.values[i];
}

LcmRobotStateTranslator::LcmRobotStateTranslator(int num_positions,
                                                 int num_velocities)
    : nq_(num_positions), nv_(num_velocities) {
  if (nq_ < 0 || nv_ < 0) {
    throw std::invalid_argument(
        fmt::format("LcmRobotStateTranslator: sizes must be >= 0, got nq {} "
                    "and nv {}",
                    nq_, nv_));
  }
}

std::string LcmRobotStateTranslator::description() const {
  return fmt::format("robot_state_t (nq {}, nv {})", nq_, nv_);
}

void LcmRobotStateTranslator::Encode(std::int64_t utime,
                                     const VectorX<double>& value,
                                     std::vector<std::uint8_t>* bytes) const {
  if (value.size() != nq_ + nv_) {
    throw std::invalid_argument(fmt::format(
        "LcmRobotStateTranslator: state has size {}, expected nq + nv = {}",
        value.size(), nq_ + nv_));
  }
  tern_lcmt::robot_state_t msg;
  msg.utime = utime;
  msg.num_positions = nq_;
  msg.q.assign(value.data(), value.data() + nq_);
  msg.num_velocities = nv_;
  msg.v.assign(value.data() + nq_, value.data() + nq_ + nv_);
  EncodeMessage(msg, bytes);
}

void LcmRobotStateTranslator::Decode(const std::uint8_t* data, int size,
                                     const std::string& channel,
                                     std::int64_t* utime,
                                     VectorX<double>* value) const {
  const std::string what = "tern_lcmt::robot_state_t";
  // Layout: fingerprint, utime (8), nq (int32), q (8 nq), nv (int32),
  // v (8 nv).
  const std::int64_t nq = ReadInt32(data, size, kFingerprint + 8);
  if (nq < 0) Malformed(channel, what, size, "no valid position count");
  const std::int64_t nv = ReadInt32(data, size, kFingerprint + 12 + 8 * nq);
  if (nv < 0) Malformed(channel, what, size, "no valid velocity count");
  if (kFingerprint + 16 + 8 * (nq + nv) != size) {
    Malformed(channel, what, size,
              fmt::format("nq {} and nv {} do not fill the message", nq, nv));
  }
  tern_lcmt::robot_state_t msg;
  DecodeMessage(data, size, channel, what, &msg);
  if (msg.num_positions != nq_ || msg.num_velocities != nv_) {
    throw std::runtime_error(fmt::format(
        "LCM robot state on channel '{}' has nq {} and nv {}, expected {} "
        "and {}",
        channel, msg.num_positions, msg.num_velocities, nq_, nv_));
  }
  *utime = msg.utime;
  value->resize(nq_ + nv_);
  for (int i = 0; i < nq_; ++i) (*value)[i] = msg.q[i];
  for (int i = 0; i < nv_; ++i) (*value)[nq_ + i] = msg.v[i];
}

}  // namespace tern
