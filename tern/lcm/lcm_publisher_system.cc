#include "tern/lcm/lcm_publisher_system.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tern {

LcmPublisherSystem::LcmPublisherSystem(
    std::string channel, std::shared_ptr<const LcmTranslator> translator,
    LcmInterface* lcm, double period)
    : channel_(std::move(channel)),
      translator_(std::move(translator)),
      lcm_(lcm),
      owner_(fmt::format("LcmPublisherSystem('{}')", channel_)) {
  if (translator_ == nullptr || lcm_ == nullptr) {
    throw std::invalid_argument(
        fmt::format("{}: translator and lcm must not be null", owner_));
  }
  if (!(period >= 0) || !std::isfinite(period)) {
    throw std::invalid_argument(fmt::format(
        "{}: period must be >= 0 and finite, got {}", owner_, period));
  }
  lcm_->ClaimPublisher(channel_, owner_);
  this->DeclareVectorInputPort("u", translator_->size());
  if (period > 0) {
    this->DeclarePeriodicPublishEvent(period, 0.0, &LcmPublisherSystem::Send);
  } else {
    this->DeclarePerStepPublishEvent(&LcmPublisherSystem::Send);
  }
  this->DeclareForcedPublishEvent(&LcmPublisherSystem::Send);
}

LcmPublisherSystem::~LcmPublisherSystem() { lcm_->Release(channel_, owner_); }

EventStatus LcmPublisherSystem::Send(const Context<double>& context) const {
  std::vector<std::uint8_t> bytes;
  translator_->Encode(TimeToUtime(context.get_time()),
                      this->get_input_port(0).Eval(context), &bytes);
  lcm_->Publish(channel_, bytes);
  return EventStatus::Succeeded();
}

}  // namespace tern
