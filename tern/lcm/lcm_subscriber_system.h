#pragma once
// LcmSubscriberSystem: the latest message received on one channel, as
// abstract state (LcmReceived) updated by a periodic unrestricted-update
// event, and its value on the vector output port "y". Between updates the
// output is a function of the Context only, so a simulation stays a
// deterministic function of its Context and of the messages taken at the
// update times. Each update handles the pending traffic of the process's
// LcmInterface without waiting (so one subscriber also serves the others
// of the same interface), and takes the newest message on its channel.
// Free-running use (hardware in the loop); for a reply in the same control
// period use LcmLockstepSystem.
#include <cstdint>
#include <memory>
#include <string>

#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_translators.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

// The subscriber's abstract state.
struct LcmReceived {
  std::int64_t utime{-1};  // the message's time, microseconds; -1: none yet
  std::int64_t count{0};   // messages taken so far
  VectorX<double> value;   // (size) the message's vector, or the initial one
};

class LcmSubscriberSystem final : public LeafSystem<double> {
 public:
  // `initial` (translator->size()) is the output until a message arrives.
  // `lcm` must outlive the system. Throws std::invalid_argument on a null
  // translator or lcm, a period that is not positive and finite, an
  // initial value of the wrong size, or a channel clash.
  LcmSubscriberSystem(std::string channel,
                      std::shared_ptr<const LcmTranslator> translator,
                      LcmInterface* lcm, double period,
                      const VectorX<double>& initial);
  ~LcmSubscriberSystem() override;

  const std::string& channel() const { return channel_; }
  // The abstract state in a context of this system.
  const LcmReceived& GetReceived(const Context<double>& context) const;

 private:
  struct Inbox;
  EventStatus Update(const Context<double>& context,
                     State<double>* state) const;
  void CalcOutput(const Context<double>& context, VectorX<double>* y) const;

  std::string channel_;
  std::shared_ptr<const LcmTranslator> translator_;
  LcmInterface* lcm_;
  std::string owner_;
  // Messages received and not yet taken by an update: the outside world,
  // not state (as Drake's subscriber's buffer).
  std::shared_ptr<Inbox> inbox_;
};

}  // namespace tern
