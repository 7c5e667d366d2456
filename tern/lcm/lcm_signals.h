#pragma once
// Connects a diagram's signals to LCM channels in one call: the logic
// behind the scenario key `lcm:` of `tern simulate` (docs/scenarios.md).
// Publishes each `publish` output port on its channel and returns, for each
// `subscribe` entry, an output port carrying the commands received on its
// channel. Free running: an LcmPublisherSystem per published port and an
// LcmSubscriberSystem per subscription, every `period`. Lockstep: exactly
// one published port and one subscription, joined by an
// LcmLockstepSystem (the simulation waits for each reply).
#include <memory>
#include <string>
#include <vector>

#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_translators.h"
#include "tern/systems/framework/diagram_builder.h"

namespace tern {

struct LcmSignalOut {
  std::string channel;
  const OutputPort<double>* port{nullptr};
  std::shared_ptr<const LcmTranslator> translator;  // of port's size
};

struct LcmSignalIn {
  std::string channel;
  std::shared_ptr<const LcmTranslator> translator;
  VectorX<double> initial;  // the output until the first message
};

struct LcmSignalsOptions {
  double period{1e-3};  // s
  bool lockstep{false};
  double timeout{10.0};  // s, lockstep only
};

// Throws std::invalid_argument naming the channel on a null port or
// translator, a size mismatch, or (lockstep) not exactly one of each.
std::vector<const OutputPort<double>*> AddLcmSignals(
    DiagramBuilder<double>* builder, LcmInterface* lcm,
    const std::vector<LcmSignalOut>& publish,
    const std::vector<LcmSignalIn>& subscribe,
    const LcmSignalsOptions& options);

}  // namespace tern
