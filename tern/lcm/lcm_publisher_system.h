#pragma once
// LcmPublisherSystem: sends its vector input port "u" as an LCM message on
// one channel, periodically (period > 0, at k * period) or after every
// simulator step (period 0). Drake's semantics: a publish event at t sees
// x⁻(t), the state before the updates due at t, and never changes state.
// Free-running use; for a reply in the same control period use
// LcmLockstepSystem.
#include <memory>
#include <string>

#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_translators.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

class LcmPublisherSystem final : public LeafSystem<double> {
 public:
  // `lcm` must outlive the system. Throws std::invalid_argument if the
  // translator or lcm is null, the period is negative or not finite, or the
  // channel already has a publisher in this process (a clash).
  LcmPublisherSystem(std::string channel,
                     std::shared_ptr<const LcmTranslator> translator,
                     LcmInterface* lcm, double period);
  ~LcmPublisherSystem() override;

  const std::string& channel() const { return channel_; }
  const LcmTranslator& translator() const { return *translator_; }

 private:
  EventStatus Send(const Context<double>& context) const;

  std::string channel_;
  std::shared_ptr<const LcmTranslator> translator_;
  LcmInterface* lcm_;
  std::string owner_;
};

}  // namespace tern
