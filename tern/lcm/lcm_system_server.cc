#include "tern/lcm/lcm_system_server.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tern {

struct LcmSystemServer::Inbox {
  std::mutex mutex;
  std::deque<std::vector<std::uint8_t>> messages;
};

LcmSystemServer::LcmSystemServer(const System<double>& system,
                                 LcmInterface* lcm, std::string request_channel,
                                 std::shared_ptr<const LcmTranslator> request,
                                 std::string reply_channel,
                                 std::shared_ptr<const LcmTranslator> reply)
    : system_(system),
      lcm_(lcm),
      request_channel_(std::move(request_channel)),
      reply_channel_(std::move(reply_channel)),
      request_(std::move(request)),
      reply_(std::move(reply)),
      owner_(fmt::format("LcmSystemServer('{}' -> '{}')", request_channel_,
                         reply_channel_)),
      inbox_(std::make_shared<Inbox>()) {
  if (request_ == nullptr || reply_ == nullptr || lcm_ == nullptr) {
    throw std::invalid_argument(
        fmt::format("{}: translators and lcm must not be null", owner_));
  }
  if (system_.num_input_ports() < 1 || system_.num_output_ports() < 1 ||
      system_.get_input_port(0).size() != request_->size() ||
      system_.get_output_port(0).size() != reply_->size()) {
    throw std::invalid_argument(fmt::format(
        "{}: system '{}' needs input port 0 of size {} ({}) and output port "
        "0 of size {} ({})",
        owner_, system_.get_name(), request_->size(), request_->description(),
        reply_->size(), reply_->description()));
  }
  context_ = system_.CreateDefaultContext();
  lcm_->ClaimPublisher(reply_channel_, owner_);
  std::shared_ptr<Inbox> inbox = inbox_;
  try {
    lcm_->Subscribe(request_channel_, owner_,
                    [inbox](const std::uint8_t* data, int size) {
                      std::lock_guard<std::mutex> lock(inbox->mutex);
                      inbox->messages.emplace_back(data, data + size);
                    });
  } catch (...) {
    lcm_->Release(reply_channel_, owner_);
    throw;
  }
}

LcmSystemServer::~LcmSystemServer() {
  lcm_->Release(request_channel_, owner_);
  lcm_->Release(reply_channel_, owner_);
}

long LcmSystemServer::Serve(double idle_timeout, long max_requests) {
  using Clock = std::chrono::steady_clock;
  const std::string ready = reply_channel_ + "_READY";
  const std::uint8_t hello = 1;
  long served = 0;
  Clock::time_point last = Clock::now();
  VectorX<double> u;
  std::vector<std::uint8_t> bytes;
  while (max_requests < 0 || served < max_requests) {
    std::deque<std::vector<std::uint8_t>> received;
    {
      std::lock_guard<std::mutex> lock(inbox_->mutex);
      received.swap(inbox_->messages);
    }
    for (const auto& m : received) {
      std::int64_t utime = 0;
      request_->Decode(m.data(), static_cast<int>(m.size()), request_channel_,
                       &utime, &u);
      context_->SetTime(UtimeToTime(utime));
      system_.get_input_port(0).FixValue(context_.get(), u);
      reply_->Encode(utime, system_.get_output_port(0).Eval(*context_), &bytes);
      lcm_->Publish(reply_channel_, bytes);
      ++served;
      last = Clock::now();
    }
    if (served == 0) lcm_->Publish(ready, &hello, 1);
    if (std::chrono::duration<double>(Clock::now() - last).count() >
        idle_timeout) {
      break;
    }
    // Until the first request, wake every 20 ms to announce readiness.
    lcm_->HandleSubscriptions(served == 0 ? 0.02 : 0.1);
  }
  return served;
}

void WaitForLcmPeer(LcmInterface* lcm, const std::string& channel,
                    double timeout) {
  using Clock = std::chrono::steady_clock;
  const std::string ready = channel + "_READY";
  auto seen = std::make_shared<bool>(false);
  const std::string owner = "WaitForLcmPeer";
  lcm->Subscribe(ready, owner,
                 [seen](const std::uint8_t*, int) { *seen = true; });
  const Clock::time_point start = Clock::now();
  double left = timeout;
  while (!*seen && left > 0) {
    lcm->HandleSubscriptions(left);
    left =
        timeout - std::chrono::duration<double>(Clock::now() - start).count();
  }
  lcm->Release(ready, owner);
  if (!*seen) {
    throw std::runtime_error(fmt::format(
        "WaitForLcmPeer: no peer announced itself on channel '{}' within {} s",
        ready, timeout));
  }
}

}  // namespace tern
