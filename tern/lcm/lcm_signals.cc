#include "tern/lcm/lcm_signals.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/lcm/lcm_lockstep_system.h"
#include "tern/lcm/lcm_publisher_system.h"
#include "tern/lcm/lcm_subscriber_system.h"

namespace tern {

std::vector<const OutputPort<double>*> AddLcmSignals(
    DiagramBuilder<double>* builder, LcmInterface* lcm,
    const std::vector<LcmSignalOut>& publish,
    const std::vector<LcmSignalIn>& subscribe,
    const LcmSignalsOptions& options) {
  if (builder == nullptr || lcm == nullptr) {
    throw std::invalid_argument("AddLcmSignals: builder and lcm must be set");
  }
  for (const LcmSignalOut& o : publish) {
    if (o.port == nullptr || o.translator == nullptr ||
        o.port->size() != o.translator->size()) {
      throw std::invalid_argument(fmt::format(
          "AddLcmSignals: channel '{}': the port is missing or its size "
          "does not match the message ({})",
          o.channel,
          o.translator ? o.translator->description() : "no translator"));
    }
  }
  for (const LcmSignalIn& i : subscribe) {
    if (i.translator == nullptr || i.initial.size() != i.translator->size()) {
      throw std::invalid_argument(fmt::format(
          "AddLcmSignals: channel '{}': no translator, or an initial value "
          "of the wrong size",
          i.channel));
    }
  }
  std::vector<const OutputPort<double>*> commands;
  if (options.lockstep) {
    if (publish.size() != 1 || subscribe.size() != 1) {
      throw std::invalid_argument(fmt::format(
          "AddLcmSignals: lockstep joins one published signal and one "
          "subscription (a request and its reply), got {} and {}",
          publish.size(), subscribe.size()));
    }
    LcmLockstepOptions lockstep;
    lockstep.timeout = options.timeout;
    auto* link = builder->AddSystem<LcmLockstepSystem>(
        publish[0].channel, publish[0].translator, subscribe[0].channel,
        subscribe[0].translator, lcm, options.period, subscribe[0].initial,
        lockstep);
    builder->Connect(*publish[0].port, link->get_input_port(0));
    commands.push_back(&link->get_output_port(0));
    return commands;
  }
  for (const LcmSignalOut& o : publish) {
    auto* pub = builder->AddSystem<LcmPublisherSystem>(o.channel, o.translator,
                                                       lcm, options.period);
    builder->Connect(*o.port, pub->get_input_port(0));
  }
  for (const LcmSignalIn& i : subscribe) {
    auto* sub = builder->AddSystem<LcmSubscriberSystem>(
        i.channel, i.translator, lcm, options.period, i.initial);
    commands.push_back(&sub->get_output_port(0));
  }
  return commands;
}

}  // namespace tern
