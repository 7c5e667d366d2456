#include "tern/lcm/lcm_interface.h"

#include <fmt/format.h>
#include <lcm/lcm.h>
#include <poll.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace tern {

struct LcmInterface::Subscription {
  std::string owner;
  Handler handler;
  lcm_subscription_t* handle{nullptr};
};

namespace {
void Dispatch(const lcm_recv_buf_t* rbuf, const char*, void* user) {
  auto* handler = static_cast<LcmInterface::Handler*>(user);
  (*handler)(static_cast<const std::uint8_t*>(rbuf->data),
             static_cast<int>(rbuf->data_size));
}
}  // namespace

LcmInterface::LcmInterface(std::string url) : url_(std::move(url)) {
  lcm_ = lcm_create(url_.empty() ? nullptr : url_.c_str());
  if (lcm_ == nullptr) {
    throw std::runtime_error(fmt::format(
        "LcmInterface: LCM could not start the provider for URL '{}' (see "
        "docs/signals.md, \"Which provider\")",
        url_));
  }
}

LcmInterface::~LcmInterface() {
  for (auto& [channel, s] : subscriptions_) {
    lcm_unsubscribe(lcm_, s->handle);
  }
  lcm_destroy(lcm_);
}

void CheckLcmChannelName(const std::string& channel, const std::string& who) {
  bool ok = !channel.empty();
  for (const char c : channel) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
          c == '.')) {
      ok = false;
    }
  }
  if (!ok) {
    throw std::invalid_argument(fmt::format(
        "{}: channel name '{}' is not a plain identifier (letters, digits, "
        "'_', '-', '.')",
        who, channel));
  }
}

void LcmInterface::Publish(const std::string& channel, const std::uint8_t* data,
                           int size) {
  if (lcm_publish(lcm_, channel.c_str(), data, static_cast<unsigned>(size)) !=
      0) {
    throw std::runtime_error(fmt::format(
        "LcmInterface: publishing {} bytes on channel '{}' over '{}' failed "
        "(no multicast route? see docs/signals.md)",
        size, channel, url_));
  }
}

void LcmInterface::Subscribe(const std::string& channel,
                             const std::string& owner, Handler handler) {
  CheckLcmChannelName(channel, owner);
  auto it = subscriptions_.find(channel);
  if (it != subscriptions_.end()) {
    throw std::invalid_argument(fmt::format(
        "LcmInterface: channel clash: '{}' wants to subscribe to channel '{}' "
        "which '{}' already receives in this process",
        owner, channel, it->second->owner));
  }
  auto s = std::make_unique<Subscription>();
  s->owner = owner;
  s->handler = std::move(handler);
  // LCM matches a subscription as a regular expression; the name was
  // checked to be a plain identifier, and '.' is escaped.
  std::string regex;
  for (const char c : channel) {
    if (c == '.') regex += '\\';
    regex += c;
  }
  s->handle = lcm_subscribe(lcm_, regex.c_str(), &Dispatch, &s->handler);
  if (s->handle == nullptr) {
    throw std::runtime_error(fmt::format(
        "LcmInterface: LCM refused the subscription of '{}' to channel '{}'",
        owner, channel));
  }
  subscriptions_.emplace(channel, std::move(s));
}

void LcmInterface::ClaimPublisher(const std::string& channel,
                                  const std::string& owner) {
  CheckLcmChannelName(channel, owner);
  auto [it, inserted] = publishers_.emplace(channel, owner);
  if (!inserted) {
    throw std::invalid_argument(fmt::format(
        "LcmInterface: channel clash: '{}' wants to publish on channel '{}' "
        "on which '{}' already publishes in this process",
        owner, channel, it->second));
  }
}

void LcmInterface::Release(const std::string& channel,
                           const std::string& owner) {
  auto s = subscriptions_.find(channel);
  if (s != subscriptions_.end() && s->second->owner == owner) {
    lcm_unsubscribe(lcm_, s->second->handle);
    subscriptions_.erase(s);
  }
  auto p = publishers_.find(channel);
  if (p != publishers_.end() && p->second == owner) publishers_.erase(p);
}

int LcmInterface::HandleSubscriptions(double timeout) {
  pollfd fd{lcm_get_fileno(lcm_), POLLIN, 0};
  if (fd.fd < 0) {
    throw std::runtime_error(fmt::format(
        "LcmInterface: LCM cannot receive over '{}' (its socket could not be "
        "set up: port in use or no multicast route? see docs/signals.md)",
        url_));
  }
  int wait_ms = timeout > 0 ? static_cast<int>(std::ceil(timeout * 1e3)) : 0;
  int handled = 0;
  // After the first wait, drain without waiting: every message already
  // received is dispatched, none that arrives later.
  while (poll(&fd, 1, wait_ms) > 0 && (fd.revents & POLLIN) != 0) {
    if (lcm_handle(lcm_) != 0) {
      throw std::runtime_error(
          fmt::format("LcmInterface: receiving over '{}' failed", url_));
    }
    ++handled;
    wait_ms = 0;
  }
  return handled;
}

std::string LoopbackUrl(int port) {
  return fmt::format("udpm://239.255.76.67:{}?ttl=0", port);
}

std::string LoopbackUrlForThisProcess() {
  // Below Linux's ephemeral ports (32768 and up), where a port is less
  // likely to be held by an unrelated socket.
  return LoopbackUrl(20000 + static_cast<int>(getpid() % 12000));
}

std::string UniqueChannelName(const std::string& base) {
  return fmt::format("{}_{}", base, static_cast<long>(getpid()));
}

}  // namespace tern
