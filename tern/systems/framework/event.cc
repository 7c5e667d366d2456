#include "tern/systems/framework/event.h"

namespace tern {

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kPublish:
      return "publish";
    case EventKind::kDiscreteUpdate:
      return "discrete update";
    case EventKind::kUnrestrictedUpdate:
      return "unrestricted update";
  }
  return "unknown";
}

const char* to_string(TriggerType trigger) {
  switch (trigger) {
    case TriggerType::kPeriodic:
      return "periodic";
    case TriggerType::kPerStep:
      return "per-step";
    case TriggerType::kInitialization:
      return "initialization";
    case TriggerType::kForced:
      return "forced";
    case TriggerType::kWitness:
      return "witness";
  }
  return "unknown";
}

}  // namespace tern
