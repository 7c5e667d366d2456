#include "tern/lcm/lcm_echo.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "tern/lcm/lcm_translators.h"
#include "tern_lcmt/robot_state_t.hpp"
#include "tern_lcmt/vector_t.hpp"

namespace tern {

namespace {
// The big-endian int32 at `offset`, or -1 past the end.
std::int64_t Int32At(const std::uint8_t* data, int size, std::int64_t offset) {
  if (offset < 0 || offset + 4 > size) return -1;
  return static_cast<std::int32_t>((std::uint32_t{data[offset]} << 24) |
                                   (std::uint32_t{data[offset + 1]} << 16) |
                                   (std::uint32_t{data[offset + 2]} << 8) |
                                   std::uint32_t{data[offset + 3]});
}
}  // namespace

std::string DescribeLcmMessage(const std::uint8_t* data, int size) {
  std::uint64_t fingerprint = 0;
  for (int i = 0; i < 8 && i < size; ++i) {
    fingerprint = (fingerprint << 8) | data[i];
  }
  const auto hash = static_cast<std::int64_t>(fingerprint);
  std::int64_t utime = 0;
  VectorX<double> v;
  // The sizes are read from the message, then the translator checks the
  // whole message before decoding it.
  try {
    if (size >= 8 && hash == tern_lcmt::robot_state_t::getHash()) {
      const std::int64_t nq = Int32At(data, size, 16);
      const std::int64_t nv = nq < 0 ? -1 : Int32At(data, size, 20 + 8 * nq);
      if (nq >= 0 && nv >= 0 && nq < size && nv < size) {
        LcmRobotStateTranslator(static_cast<int>(nq), static_cast<int>(nv))
            .Decode(data, size, "", &utime, &v);
        const std::vector<double> q(v.data(), v.data() + nq);
        const std::vector<double> qd(v.data() + nq, v.data() + nq + nv);
        return fmt::format("utime {} robot_state_t q [{}] v [{}]", utime,
                           fmt::join(q, ", "), fmt::join(qd, ", "));
      }
    }
    if (size >= 8 && hash == tern_lcmt::vector_t::getHash()) {
      const std::int64_t kind_length = Int32At(data, size, 16);
      const std::int64_t n =
          kind_length < 1 ? -1 : Int32At(data, size, 20 + kind_length);
      if (kind_length >= 1 && n >= 0 && n < size) {
        const std::string kind(reinterpret_cast<const char*>(data) + 20,
                               static_cast<std::size_t>(kind_length - 1));
        LcmVectorTranslator(kind, static_cast<int>(n))
            .Decode(data, size, "", &utime, &v);
        const std::vector<double> values(v.data(), v.data() + v.size());
        return fmt::format("utime {} vector_t '{}' [{}]", utime, kind,
                           fmt::join(values, ", "));
      }
    }
  } catch (const std::exception&) {
    // Described as unknown below.
  }
  return fmt::format("unknown message ({} bytes, fingerprint {:#018x})", size,
                     fingerprint);
}

long EchoLcmChannel(LcmInterface* lcm, const std::string& channel, long count,
                    double timeout, std::ostream& out) {
  long printed = 0;
  lcm->Subscribe(channel, "lcm-echo", [&](const std::uint8_t* data, int size) {
    // One handling call may dispatch more messages than are wanted.
    if (count > 0 && printed >= count) return;
    out << DescribeLcmMessage(data, size) << '\n';
    ++printed;
  });
  while (count <= 0 || printed < count) {
    if (lcm->HandleSubscriptions(timeout) == 0) break;
  }
  lcm->Release(channel, "lcm-echo");
  out.flush();
  return printed;
}

}  // namespace tern
