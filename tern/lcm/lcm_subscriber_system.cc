#include "tern/lcm/lcm_subscriber_system.h"

#include <fmt/format.h>

#include <cmath>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tern {

struct LcmSubscriberSystem::Inbox {
  std::mutex mutex;
  std::vector<std::uint8_t> latest;  // bytes of the newest message
  std::int64_t received{0};          // messages received so far
  std::int64_t taken{0};             // ... of which an update has seen
};

LcmSubscriberSystem::LcmSubscriberSystem(
    std::string channel, std::shared_ptr<const LcmTranslator> translator,
    LcmInterface* lcm, double period, const VectorX<double>& initial)
    : channel_(std::move(channel)),
      translator_(std::move(translator)),
      lcm_(lcm),
      owner_(fmt::format("LcmSubscriberSystem('{}')", channel_)),
      inbox_(std::make_shared<Inbox>()) {
  if (translator_ == nullptr || lcm_ == nullptr) {
    throw std::invalid_argument(
        fmt::format("{}: translator and lcm must not be null", owner_));
  }
  if (!(period > 0) || !std::isfinite(period)) {
    throw std::invalid_argument(fmt::format(
        "{}: period must be positive and finite, got {}", owner_, period));
  }
  if (initial.size() != translator_->size()) {
    throw std::invalid_argument(
        fmt::format("{}: initial value has size {}, the messages {}", owner_,
                    initial.size(), translator_->size()));
  }
  LcmReceived x0;
  x0.value = initial;
  this->DeclareAbstractState(Value<LcmReceived>(x0));
  this->DeclarePeriodicUnrestrictedUpdateEvent(period, 0.0,
                                               &LcmSubscriberSystem::Update);
  this->DeclareVectorOutputPort("y", translator_->size(),
                                &LcmSubscriberSystem::CalcOutput, ticket::kXa);
  std::shared_ptr<Inbox> inbox = inbox_;
  lcm_->Subscribe(channel_, owner_,
                  [inbox](const std::uint8_t* data, int size) {
                    std::lock_guard<std::mutex> lock(inbox->mutex);
                    inbox->latest.assign(data, data + size);
                    ++inbox->received;
                  });
}

LcmSubscriberSystem::~LcmSubscriberSystem() { lcm_->Release(channel_, owner_); }

const LcmReceived& LcmSubscriberSystem::GetReceived(
    const Context<double>& context) const {
  return context.get_abstract_state<LcmReceived>(0);
}

EventStatus LcmSubscriberSystem::Update(const Context<double>& context,
                                        State<double>* state) const {
  lcm_->HandleSubscriptions(0);
  std::vector<std::uint8_t> bytes;
  std::int64_t received = 0;
  {
    std::lock_guard<std::mutex> lock(inbox_->mutex);
    if (inbox_->received == inbox_->taken) return EventStatus::DidNothing();
    bytes = inbox_->latest;
    received = inbox_->received;
    inbox_->taken = received;
  }
  LcmReceived x = context.get_abstract_state<LcmReceived>(0);
  try {
    translator_->Decode(bytes.data(), static_cast<int>(bytes.size()), channel_,
                        &x.utime, &x.value);
  } catch (const std::exception& e) {
    // x⁺ is never written: the context keeps the last good message.
    return EventStatus::Failed(e.what());
  }
  ++x.count;
  state->get_mutable_abstract_state<LcmReceived>(0) = std::move(x);
  return EventStatus::Succeeded();
}

void LcmSubscriberSystem::CalcOutput(const Context<double>& context,
                                     VectorX<double>* y) const {
  *y = GetReceived(context).value;
}

}  // namespace tern
