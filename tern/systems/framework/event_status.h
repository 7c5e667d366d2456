#pragma once
// EventStatus: what an event handler (or the Simulator's monitor) reports.
// kReachedTermination stops the Simulator cleanly with the message as the
// reason; kFailed makes it throw, naming the system and the message.
#include <string>
#include <utility>

namespace tern {

class EventStatus {
 public:
  enum Severity {
    kDidNothing = 0,
    kSucceeded = 1,
    kReachedTermination = 2,
    kFailed = 3
  };

  static EventStatus DidNothing() { return EventStatus(kDidNothing, ""); }
  static EventStatus Succeeded() { return EventStatus(kSucceeded, ""); }
  static EventStatus ReachedTermination(std::string message) {
    return EventStatus(kReachedTermination, std::move(message));
  }
  static EventStatus Failed(std::string message) {
    return EventStatus(kFailed, std::move(message));
  }

  Severity severity() const { return severity_; }
  const std::string& message() const { return message_; }
  bool succeeded() const { return severity_ <= kSucceeded; }

 private:
  EventStatus(Severity s, std::string m)
      : severity_(s), message_(std::move(m)) {}
  Severity severity_;
  std::string message_;
};

}  // namespace tern
