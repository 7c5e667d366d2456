// The second process of tern/lcm's two-process tests:
//   lcm_test_peer URL STATE_CHANNEL COMMAND_CHANNEL MODE MAX_REQUESTS
// MODE "pd": serves the quadruped's joint PD (examples/lcm_quadruped) for
// MAX_REQUESTS requests, then exits 0. MODE "garbage": announces itself,
// then answers the first request with bytes that are no message. Exits 2
// on bad arguments, 3 on an exception (printed).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "examples/lcm_quadruped/quadruped_lcm.h"
#include "tern/lcm/lcm_system_server.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(
        stderr,
        "usage: lcm_test_peer URL STATE COMMAND pd|garbage|publish N\n");
    return 2;
  }
  try {
    const std::string url = argv[1], state = argv[2], command = argv[3];
    const std::string mode = argv[4];
    const long n = std::atol(argv[5]);
    tern::LcmInterface lcm(url);
    const tern::QuadrupedStance s =
        tern::MakeQuadrupedLcmStance(TERN_MODELS_DIR);
    if (mode == "pd") {
      auto pd = tern::MakeQuadrupedPdController(s);
      tern::LcmSystemServer server(*pd, &lcm, state,
                                   tern::QuadrupedStateTranslator(s), command,
                                   tern::QuadrupedCommandTranslator(s));
      const long served = server.Serve(/*idle_timeout=*/30.0, n);
      return served == n ? 0 : 1;
    }
    if (mode == "garbage") {
      bool got = false;
      lcm.Subscribe(state, "peer",
                    [&got](const std::uint8_t*, int) { got = true; });
      const std::uint8_t hello = 1, junk[5] = {1, 2, 3, 4, 5};
      for (int i = 0; i < 1500 && !got; ++i) {
        lcm.Publish(command + "_READY", &hello, 1);
        lcm.HandleSubscriptions(0.02);
      }
      if (!got) return 1;
      lcm.Publish(command, junk, 5);
      return 0;
    }
    if (mode == "publish") {
      tern::LcmVectorTranslator encoder("encoder", 1);
      std::vector<std::uint8_t> bytes;
      for (long k = 0; k < n; ++k) {
        encoder.Encode(k, tern::VectorX<double>::Constant(1, k), &bytes);
        lcm.Publish(state, bytes);
        lcm.HandleSubscriptions(0.01);
      }
      return 0;
    }
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lcm_test_peer: %s\n", e.what());
    return 3;
  }
}
