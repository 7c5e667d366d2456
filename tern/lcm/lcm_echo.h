#pragma once
// Looking at the traffic of one channel (`tern lcm-echo CHANNEL`): each
// message decoded as whichever tern_lcmt type its fingerprint names, one
// line per message.
#include <cstdint>
#include <ostream>
#include <string>

#include "tern/lcm/lcm_interface.h"

namespace tern {

// One line: "utime 1000 robot_state_t q [..] v [..]",
// "utime 1000 vector_t 'imu' [..]", or, for another type or garbage,
// "unknown message (N bytes, fingerprint 0x...)".
std::string DescribeLcmMessage(const std::uint8_t* data, int size);

// Prints DescribeLcmMessage of each message on `channel` until `count`
// messages (count > 0) or `timeout` seconds without a message. Returns the
// number printed.
long EchoLcmChannel(LcmInterface* lcm, const std::string& channel, long count,
                    double timeout, std::ostream& out);

}  // namespace tern
