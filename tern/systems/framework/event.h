#pragma once
// Events declared by a LeafSystem: what happens (publish, discrete update,
// unrestricted update) and when (the trigger). The Simulator dispatches them
// with the timing rules of docs/semantics.md.
#include <functional>
#include <string>

#include "tern/systems/framework/event_status.h"
#include "tern/systems/framework/state_views.h"

namespace tern {

template <typename T>
class Context;

enum class EventKind { kPublish, kDiscreteUpdate, kUnrestrictedUpdate };

enum class TriggerType {
  kPeriodic,  // at offset + k * period, k = 0, 1, ...
  kPerStep,   // every simulator step (updates at its start, publish at its end)
  kInitialization,  // once, in Simulator::Initialize()
  kForced,          // only when called: ForcedPublish() and friends
  kWitness,         // at a witness-function crossing
};

template <typename T>
struct Event {
  using PublishHandler = std::function<EventStatus(const Context<T>&)>;
  using DiscreteHandler =
      std::function<EventStatus(const Context<T>&, DiscreteValues<T>*)>;
  using UnrestrictedHandler =
      std::function<EventStatus(const Context<T>&, State<T>*)>;

  EventKind kind{EventKind::kPublish};
  TriggerType trigger{TriggerType::kForced};
  double period{0};  // s, periodic only
  double offset{0};  // s, periodic only
  PublishHandler publish;
  DiscreteHandler discrete;
  UnrestrictedHandler unrestricted;
};

const char* to_string(EventKind kind);
const char* to_string(TriggerType trigger);

}  // namespace tern
