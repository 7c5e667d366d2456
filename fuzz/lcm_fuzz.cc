// Fuzz harness: the LCM message decoders (tern/lcm/lcm_translators.h, the
// bytes a subscriber receives from any process on the network) and
// DescribeLcmMessage (tern lcm-echo), on arbitrary bytes. Decode must
// either fill the value or throw std::runtime_error; a crash, a sanitizer
// report or an allocation sized by the message's counts is a finding. A
// decoded value re-encodes to the same bytes (the translators' round trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "tern/lcm/lcm_echo.h"
#include "tern/lcm/lcm_translators.h"

namespace {

void Check(const tern::LcmTranslator& t, const std::uint8_t* data, int size) {
  std::int64_t utime = 0;
  tern::VectorX<double> value;
  try {
    t.Decode(data, size, "FUZZ", &utime, &value);
  } catch (const std::exception&) {
    return;
  }
  if (value.size() != t.size()) std::abort();
  std::vector<std::uint8_t> bytes;
  t.Encode(utime, value, &bytes);
  std::int64_t utime2 = 0;
  tern::VectorX<double> value2;
  t.Decode(bytes.data(), static_cast<int>(bytes.size()), "FUZZ", &utime2,
           &value2);
  // Bit for bit (NaN payloads included): compare the bytes.
  if (utime2 != utime || value2.size() != value.size() ||
      (value.size() > 0 &&
       std::memcmp(value.data(), value2.data(), value.size() * 8) != 0)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size > (1u << 20)) return 0;  // LCM's UDP messages are smaller
  const int n = static_cast<int>(size);
  static const tern::LcmVectorTranslator vector3("joint_command", 3);
  static const tern::LcmVectorTranslator imu("imu", 10);
  static const tern::LcmRobotStateTranslator state(7, 6);
  Check(vector3, data, n);
  Check(imu, data, n);
  Check(state, data, n);
  try {
    (void)tern::DescribeLcmMessage(data, n);
  } catch (const std::exception&) {
  }
  return 0;
}
