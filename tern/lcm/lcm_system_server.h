#pragma once
// LcmSystemServer: the peer of an LcmLockstepSystem, in the other process.
// Serves a System<double> without state (a controller, a sensor or an
// actuator model: a function of its input and the time) over LCM: for each
// request on the request channel it sets the context's time to the
// request's, fixes input port 0 to the request's vector, evaluates output
// port 0 and publishes it on the reply channel with the request's time. The
// system is evaluated exactly as in a one-process diagram, so its replies
// are bit-identical to the values it computes there.
//
// Start-up: UDP multicast drops messages sent before the receiver
// subscribes, so the server announces itself on `reply_channel + "_READY"`
// until its first request arrives, and the simulating process calls
// WaitForLcmPeer before it starts.
#include <memory>
#include <string>

#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_translators.h"
#include "tern/systems/framework/context.h"
#include "tern/systems/framework/system.h"

namespace tern {

class LcmSystemServer {
 public:
  // `system` and `lcm` must outlive the server. Throws
  // std::invalid_argument if the system has state, does not have the
  // ports 0 of the translators' sizes, or a channel clashes.
  LcmSystemServer(const System<double>& system, LcmInterface* lcm,
                  std::string request_channel,
                  std::shared_ptr<const LcmTranslator> request,
                  std::string reply_channel,
                  std::shared_ptr<const LcmTranslator> reply);
  ~LcmSystemServer();

  // Serves requests until `max_requests` (if >= 0) have been answered or
  // no request came for `idle_timeout` seconds. Returns the number served.
  // A malformed request throws std::runtime_error naming the channel.
  long Serve(double idle_timeout, long max_requests = -1);

 private:
  struct Inbox;
  const System<double>& system_;
  LcmInterface* lcm_;
  std::string request_channel_, reply_channel_;
  std::shared_ptr<const LcmTranslator> request_, reply_;
  std::string owner_;
  std::unique_ptr<Context<double>> context_;
  std::shared_ptr<Inbox> inbox_;
};

// Waits up to `timeout` seconds for a message on `channel` + "_READY" (an
// LcmSystemServer's announcement on its reply channel `channel`). Throws
// std::runtime_error naming the channel if none comes.
void WaitForLcmPeer(LcmInterface* lcm, const std::string& channel,
                    double timeout);

}  // namespace tern
