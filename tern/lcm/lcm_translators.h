#pragma once
// Translators between a vector signal and an LCM message's bytes, one per
// message type in tern/lcm/msg (compiled by lcm-gen at build time):
//
//   LcmVectorTranslator      tern_lcmt::vector_t: any vector port, tagged
//                            with its kind. Kinds used by Tern:
//                            "joint_command" (nu actuator efforts),
//                            "imu", "encoder", "force_torque", "sensor"
//                            (a plant's sensor outputs, their sizes).
//   LcmRobotStateTranslator  tern_lcmt::robot_state_t: a plant's [q; v].
//
// Simulation time travels as integer microseconds (utime); doubles travel
// as their 8 bytes, so a value survives the trip bit for bit. Decode checks
// the bytes before the generated code reads them: a malformed message, a
// message of another type or kind, or a wrong size is a std::runtime_error
// naming the channel (and the sizes), never a crash or a silent zero.
#include <cstdint>
#include <string>
#include <vector>

#include "tern/common/eigen_types.h"

namespace tern {

// Simulation time <-> LCM utime (microseconds, rounded).
std::int64_t TimeToUtime(double t);
double UtimeToTime(std::int64_t utime);

class LcmTranslator {
 public:
  virtual ~LcmTranslator();
  // Size of the vector signal.
  virtual int size() const = 0;
  // What the messages hold, for error messages ("robot_state_t (nq 19,
  // nv 18)").
  virtual std::string description() const = 0;
  // Encodes `value` (size()) at time utime into *bytes (resized).
  virtual void Encode(std::int64_t utime, const VectorX<double>& value,
                      std::vector<std::uint8_t>* bytes) const = 0;
  // Decodes `size` bytes received on `channel` into *utime and *value
  // (resized to size()). Throws std::runtime_error naming the channel.
  virtual void Decode(const std::uint8_t* data, int size,
                      const std::string& channel, std::int64_t* utime,
                      VectorX<double>* value) const = 0;
};

class LcmVectorTranslator final : public LcmTranslator {
 public:
  // Throws std::invalid_argument if size < 0 or kind is empty.
  LcmVectorTranslator(std::string kind, int size);
  int size() const override { return size_; }
  const std::string& kind() const { return kind_; }
  std::string description() const override;
  void Encode(std::int64_t utime, const VectorX<double>& value,
              std::vector<std::uint8_t>* bytes) const override;
  void Decode(const std::uint8_t* data, int size, const std::string& channel,
              std::int64_t* utime, VectorX<double>* value) const override;

 private:
  std::string kind_;
  int size_;
};

class LcmRobotStateTranslator final : public LcmTranslator {
 public:
  // The vector is [q (num_positions); v (num_velocities)].
  LcmRobotStateTranslator(int num_positions, int num_velocities);
  int size() const override { return nq_ + nv_; }
  std::string description() const override;
  void Encode(std::int64_t utime, const VectorX<double>& value,
              std::vector<std::uint8_t>* bytes) const override;
  void Decode(const std::uint8_t* data, int size, const std::string& channel,
              std::int64_t* utime, VectorX<double>* value) const override;

 private:
  int nq_, nv_;
};

}  // namespace tern
