#pragma once
// LcmInterface: one process's connection to an LCM network (Drake's
// DrakeLcm). Owns the lcm_t, the subscriptions by channel and who holds
// them, and hands received messages to their handlers when asked
// (HandleSubscriptions), on the caller's thread: nothing is received behind
// the simulation's back. Publisher and subscriber systems keep a pointer to
// it; it must outlive them.
//
// The provider is chosen by URL. Tern uses UDP multicast on the loopback
// (LoopbackUrl: ttl=0, so no packet leaves the machine); docs/signals.md
// says why and what to do on a machine without a multicast route. Channel
// names are plain identifiers (letters, digits, '_', '-', '.'), since LCM
// matches subscriptions as regular expressions.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

typedef struct _lcm_t lcm_t;

namespace tern {

class LcmInterface {
 public:
  // Handler of one message: its bytes.
  using Handler = std::function<void(const std::uint8_t* data, int size)>;

  // Connects to `url` ("" is LCM's default, or $LCM_DEFAULT_URL). Throws
  // std::runtime_error naming the URL if LCM cannot start the provider.
  explicit LcmInterface(std::string url = "");
  ~LcmInterface();
  LcmInterface(const LcmInterface&) = delete;
  LcmInterface& operator=(const LcmInterface&) = delete;

  const std::string& url() const { return url_; }

  // Sends `data` on `channel`. Throws std::runtime_error naming the
  // channel and URL if LCM fails to send (e.g. no route for multicast).
  void Publish(const std::string& channel, const std::uint8_t* data, int size);
  void Publish(const std::string& channel,
               const std::vector<std::uint8_t>& bytes) {
    Publish(channel, bytes.data(), static_cast<int>(bytes.size()));
  }

  // Registers `owner` (a system's name, for messages) as the one
  // subscriber of `channel`. Throws std::invalid_argument naming both
  // owners if the channel already has a subscriber in this process (a
  // channel clash), or if the name is not a plain identifier.
  void Subscribe(const std::string& channel, const std::string& owner,
                 Handler handler);
  // Registers `owner` as the one publisher of `channel` in this process;
  // throws std::invalid_argument naming both owners on a clash.
  void ClaimPublisher(const std::string& channel, const std::string& owner);
  // Drops `owner`'s subscription or publisher claim (no-op if none).
  void Release(const std::string& channel, const std::string& owner);

  // Waits up to `timeout` seconds (0: do not wait) for a message, then
  // dispatches every message already received to its handler. Returns the
  // number dispatched. Handlers run on this thread, inside this call.
  int HandleSubscriptions(double timeout);

 private:
  struct Subscription;
  std::string url_;
  lcm_t* lcm_{nullptr};
  std::map<std::string, std::unique_ptr<Subscription>> subscriptions_;
  std::map<std::string, std::string> publishers_;  // channel -> owner
};

// "udpm://239.255.76.67:<port>?ttl=0": UDP multicast confined to this
// machine. Tests pick a port per process (LoopbackUrlForThisProcess) so
// that parallel test runs do not even see each other's packets.
std::string LoopbackUrl(int port);
// LoopbackUrl on a port in [20000, 32000) derived from the process id.
std::string LoopbackUrlForThisProcess();
// `base` + "_" + the process id: a channel name unique to this run.
std::string UniqueChannelName(const std::string& base);
// Throws std::invalid_argument naming `who` unless `channel` is a
// non-empty plain identifier (letters, digits, '_', '-', '.').
void CheckLcmChannelName(const std::string& channel, const std::string& who);

}  // namespace tern
