#include "tern/lcm/lcm_lockstep_system.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tern {

struct LcmLockstepSystem::Inbox {
  std::mutex mutex;
  std::deque<std::vector<std::uint8_t>> messages;
};

LcmLockstepSystem::LcmLockstepSystem(
    std::string request_channel, std::shared_ptr<const LcmTranslator> request,
    std::string reply_channel, std::shared_ptr<const LcmTranslator> reply,
    LcmInterface* lcm, double period, const VectorX<double>& initial,
    LcmLockstepOptions options)
    : request_channel_(std::move(request_channel)),
      reply_channel_(std::move(reply_channel)),
      request_(std::move(request)),
      reply_(std::move(reply)),
      lcm_(lcm),
      options_(options),
      owner_(fmt::format("LcmLockstepSystem('{}' -> '{}')", request_channel_,
                         reply_channel_)),
      inbox_(std::make_shared<Inbox>()) {
  if (request_ == nullptr || reply_ == nullptr || lcm_ == nullptr) {
    throw std::invalid_argument(
        fmt::format("{}: translators and lcm must not be null", owner_));
  }
  if (!(period > 0) || !std::isfinite(period)) {
    throw std::invalid_argument(fmt::format(
        "{}: period must be positive and finite, got {}", owner_, period));
  }
  if (!(options_.timeout > 0)) {
    throw std::invalid_argument(fmt::format(
        "{}: timeout must be positive, got {}", owner_, options_.timeout));
  }
  if (initial.size() != reply_->size()) {
    throw std::invalid_argument(
        fmt::format("{}: initial value has size {}, the replies {}", owner_,
                    initial.size(), reply_->size()));
  }
  this->DeclareVectorInputPort("u", request_->size());
  this->DeclareDiscreteState(initial);
  this->DeclareInitializationDiscreteUpdateEvent(&LcmLockstepSystem::RoundTrip);
  this->DeclarePeriodicDiscreteUpdateEvent(period, 0.0,
                                           &LcmLockstepSystem::RoundTrip);
  this->DeclareVectorOutputPort("y", reply_->size(),
                                &LcmLockstepSystem::CalcOutput, ticket::kXd);
  lcm_->ClaimPublisher(request_channel_, owner_);
  std::shared_ptr<Inbox> inbox = inbox_;
  try {
    lcm_->Subscribe(reply_channel_, owner_,
                    [inbox](const std::uint8_t* data, int size) {
                      std::lock_guard<std::mutex> lock(inbox->mutex);
                      inbox->messages.emplace_back(data, data + size);
                    });
  } catch (...) {
    lcm_->Release(request_channel_, owner_);
    throw;
  }
}

LcmLockstepSystem::~LcmLockstepSystem() {
  lcm_->Release(request_channel_, owner_);
  lcm_->Release(reply_channel_, owner_);
}

EventStatus LcmLockstepSystem::RoundTrip(const Context<double>& context,
                                         DiscreteValues<double>* xd) const {
  using Clock = std::chrono::steady_clock;
  const double t = context.get_time();
  const std::int64_t utime = TimeToUtime(t);
  // Replies to earlier requests (none, in a healthy exchange) are stale.
  lcm_->HandleSubscriptions(0);
  {
    std::lock_guard<std::mutex> lock(inbox_->mutex);
    inbox_->messages.clear();
  }
  std::vector<std::uint8_t> bytes;
  request_->Encode(utime, this->get_input_port(0).Eval(context), &bytes);
  lcm_->Publish(request_channel_, bytes);

  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(options_.timeout));
  VectorX<double> value;
  for (;;) {
    std::deque<std::vector<std::uint8_t>> received;
    {
      std::lock_guard<std::mutex> lock(inbox_->mutex);
      received.swap(inbox_->messages);
    }
    for (const auto& m : received) {
      std::int64_t reply_utime = -1;
      try {
        reply_->Decode(m.data(), static_cast<int>(m.size()), reply_channel_,
                       &reply_utime, &value);
      } catch (const std::exception& e) {
        return EventStatus::Failed(
            fmt::format("lockstep reply at t = {}: {}", t, e.what()));
      }
      if (reply_utime == utime) {
        xd->get_mutable_vector(0) = value;
        return EventStatus::Succeeded();
      }
    }
    const double left =
        std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) break;
    lcm_->HandleSubscriptions(left);
  }
  return EventStatus::Failed(fmt::format(
      "no reply on channel '{}' to the request sent on '{}' at t = {} "
      "within {} s: the peer stopped answering",
      reply_channel_, request_channel_, t, options_.timeout));
}

void LcmLockstepSystem::CalcOutput(const Context<double>& context,
                                   VectorX<double>* y) const {
  *y = context.get_discrete_state(0);
}

}  // namespace tern
