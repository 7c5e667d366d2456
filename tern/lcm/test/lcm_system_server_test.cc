// LcmSystemServer's checks of the system it serves.
#include "tern/lcm/lcm_system_server.h"

#include <gtest/gtest.h>

#include <string>

#include "tern/systems/primitives/gain.h"

namespace tern {
namespace {

TEST(LcmSystemServer, PortSizesMustMatchTheTranslators) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  Gain<double> gain(2.0, 3);
  auto three = std::make_shared<LcmVectorTranslator>("sensor", 3);
  auto four = std::make_shared<LcmVectorTranslator>("joint_command", 4);
  try {
    LcmSystemServer server(gain, &lcm, "IN", three, "OUT", four);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("output port 0 of size 4"),
              std::string::npos)
        << e.what();
  }
  LcmSystemServer server(gain, &lcm, "IN", three, "OUT", three);
  EXPECT_EQ(server.Serve(0.01, 0), 0);  // nothing asked, nothing served
}

}  // namespace
}  // namespace tern
