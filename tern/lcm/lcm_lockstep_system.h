#pragma once
// LcmLockstepSystem: a control period's round trip to another process.
// At initialization and then at every k * period, a discrete update sends
// the input port "u" on the request channel (tagged with the simulation
// time), waits for the peer's reply tagged with the same time on the reply
// channel, and holds it as discrete state, which is the output port "y".
// The simulation waits for its peer: so a plant here and a controller (or
// a sensor or actuator model) in another process compute the same numbers,
// bit for bit, as the one-process diagram in which "y" is the controller's
// output:
//  - a time-stepping plant (its step is an unrestricted update, so it runs
//    before this discrete update at the same time) with u = its state sees
//    y = controller(x_n) at step n, as if the controller were wired
//    directly;
//  - a continuous plant sees controller(x(k h)) held over [k h, (k+1) h),
//    as through a ZeroOrderHold(period).
// The peer is usually an LcmSystemServer. A peer that does not answer in
// `timeout` seconds, or a malformed reply, fails the update with a message
// naming the channel and the simulation time; the Context keeps its last
// good state (the previous reply).
#include <memory>
#include <string>

#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_translators.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

struct LcmLockstepOptions {
  double timeout{10.0};  // s of wall-clock time to wait for each reply
};

class LcmLockstepSystem final : public LeafSystem<double> {
 public:
  // `initial` (reply size) is the output before the first reply. `lcm`
  // must outlive the system. Throws std::invalid_argument on null
  // arguments, a period that is not positive and finite, a timeout that is
  // not positive, an initial value of the wrong size or a channel clash.
  LcmLockstepSystem(std::string request_channel,
                    std::shared_ptr<const LcmTranslator> request,
                    std::string reply_channel,
                    std::shared_ptr<const LcmTranslator> reply,
                    LcmInterface* lcm, double period,
                    const VectorX<double>& initial,
                    LcmLockstepOptions options = {});
  ~LcmLockstepSystem() override;

  const std::string& request_channel() const { return request_channel_; }
  const std::string& reply_channel() const { return reply_channel_; }

 private:
  struct Inbox;
  EventStatus RoundTrip(const Context<double>& context,
                        DiscreteValues<double>* xd) const;
  void CalcOutput(const Context<double>& context, VectorX<double>* y) const;

  std::string request_channel_, reply_channel_;
  std::shared_ptr<const LcmTranslator> request_, reply_;
  LcmInterface* lcm_;
  LcmLockstepOptions options_;
  std::string owner_;
  std::shared_ptr<Inbox> inbox_;  // replies received, not yet matched
};

}  // namespace tern
