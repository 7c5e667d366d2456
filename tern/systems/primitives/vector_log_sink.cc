#include "tern/systems/primitives/vector_log_sink.h"

#include <fmt/format.h>

#include <cmath>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {
namespace internal {

// The per-Context home of a sink's log (its abstract parameter 0). The log
// is `mutable` so that the publish handler, which sees a const Context, can
// append to it; copying the slot (Context::Clone) copies the log.
template <typename T>
struct VectorLogSlot {
  mutable VectorLog<T> log;
};

}  // namespace internal

template <typename T>
VectorLogSink<T>::VectorLogSink(int input_size, double publish_period)
    : LeafSystem<T>(), publish_period_(publish_period) {
  internal::CheckPositiveSize("VectorLogSink", "input_size", input_size);
  if (!(publish_period >= 0) || !std::isfinite(publish_period)) {
    throw std::invalid_argument(fmt::format(
        "VectorLogSink: publish_period must be finite and >= 0 (0 = every "
        "step), got {}",
        publish_period));
  }
  this->DeclareAbstractParameter(
      Value<internal::VectorLogSlot<T>>({VectorLog<T>(input_size)}));
  this->DeclareVectorInputPort("u", input_size);
  if (publish_period > 0) {
    this->DeclarePeriodicPublishEvent(publish_period, 0.0,
                                      &VectorLogSink::Record);
  } else {
    this->DeclarePerStepPublishEvent(&VectorLogSink::Record);
  }
  this->DeclareForcedPublishEvent(&VectorLogSink::Record);
}

template <typename T>
const VectorLog<T>& VectorLogSink<T>::GetLog(const Context<T>& context) const {
  return this->GetMyContextFromRoot(context)
      .template get_abstract_parameter<internal::VectorLogSlot<T>>(0)
      .log;
}

template <typename T>
VectorLog<T>& VectorLogSink<T>::GetMutableLog(Context<T>* context) const {
  return this->GetMyMutableContextFromRoot(context)
      .template get_mutable_abstract_parameter<internal::VectorLogSlot<T>>(0)
      .log;
}

template <typename T>
EventStatus VectorLogSink<T>::Record(const Context<T>& context) const {
  context.template get_abstract_parameter<internal::VectorLogSlot<T>>(0)
      .log.AddData(context.get_time(), this->get_input_port(0).Eval(context));
  return EventStatus::Succeeded();
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(VectorLogSink)

}  // namespace tern
