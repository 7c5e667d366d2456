#include "tern/systems/framework/ports.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/common/default_scalars.h"
#include "tern/systems/framework/system.h"

namespace tern {

namespace {
constexpr Prerequisites kVersionedMask = (1 << ticket::kNumVersions) - 1;

// Which version counters a value with these prerequisites depends on.
Prerequisites VersionMask(Prerequisites p) {
  return (p & ticket::kInputs) ? kVersionedMask : (p & kVersionedMask);
}
}  // namespace

// ---------------------------------------------------------------- InputPort

template <typename T>
InputPort<T>::InputPort(const System<T>* system, int index, std::string name,
                        PortDataType type, int size,
                        std::optional<RandomDistribution> random,
                        std::unique_ptr<AbstractValue> model)
    : system_(system),
      index_(index),
      name_(std::move(name)),
      type_(type),
      size_(size),
      random_(random),
      model_(std::move(model)) {}

template <typename T>
std::string InputPort<T>::GetFullDescription() const {
  return fmt::format("input port '{}' of system '{}'", name_,
                     system_->GetPathName());
}

template <typename T>
void InputPort<T>::CheckContext(const Context<T>& context) const {
  if (&context.get_system() != system_) {
    throw std::invalid_argument(
        fmt::format("{}: the context given belongs to system '{}'; use "
                    "GetMyContextFromRoot() to get this system's context",
                    GetFullDescription(), context.get_system().GetPathName()));
  }
}

template <typename T>
const internal::FixedInput<T>& InputPort<T>::Resolve(
    const Context<T>& context, const internal::InputSource<T>** src) const {
  CheckContext(context);
  const auto* storage = context.storage_;
  if (storage->computing_without_inputs == &context) {
    throw std::logic_error(fmt::format(
        "{} was evaluated while computing output port '{}', whose "
        "prerequisites exclude inputs; declare ticket::kInputs for that output",
        GetFullDescription(), storage->computing_port->get_name()));
  }
  *src = &context.input_sources_[index_];
  static const internal::FixedInput<T> kNone{};
  if ((*src)->upstream) return kNone;
  const auto& fixed = (*src)->context->fixed_inputs_[(*src)->index];
  if (!fixed.has_value) {
    const auto& owner =
        (*src)->context->get_system().get_input_port((*src)->index);
    throw std::runtime_error(fmt::format(
        "{} has no value: connect it in a diagram or FixValue() it{}",
        GetFullDescription(),
        &owner == this
            ? ""
            : " (it is exported as " + owner.GetFullDescription() + ")"));
  }
  return fixed;
}

template <typename T>
const VectorX<T>& InputPort<T>::EvalSlow(const Context<T>& context) const {
  if (type_ != PortDataType::kVector) {
    throw std::logic_error(
        fmt::format("{} is abstract; use Eval<V>() or EvalAbstract()",
                    GetFullDescription()));
  }
  const internal::InputSource<T>* resolved = nullptr;
  const auto& fixed = Resolve(context, &resolved);
  if (resolved->upstream)
    return resolved->port->EvalLeaf(*resolved->context).vector;
  return fixed.vector;
}

template <typename T>
const AbstractValue& InputPort<T>::EvalAbstract(
    const Context<T>& context) const {
  if (type_ != PortDataType::kAbstract) {
    throw std::logic_error(
        fmt::format("{} is a vector port; use Eval()", GetFullDescription()));
  }
  const internal::InputSource<T>* src = nullptr;
  const auto& fixed = Resolve(context, &src);
  if (src->upstream) return *src->port->EvalLeaf(*src->context).abstract;
  return *fixed.abstract;
}

template <typename T>
bool InputPort<T>::HasValue(const Context<T>& context) const {
  CheckContext(context);
  const auto& src = context.input_sources_[index_];
  return src.upstream || src.context->fixed_inputs_[src.index].has_value;
}

template <typename T>
internal::FixedInput<T>& InputPort<T>::FixedSlotFor(Context<T>* context) const {
  const auto& src = context->input_sources_[index_];
  if (src.upstream || src.context != context) {
    throw std::logic_error(fmt::format(
        "FixValue: {} is connected or exported in its diagram; fix the value "
        "of the diagram's input port instead",
        GetFullDescription()));
  }
  return context->fixed_inputs_[index_];
}

template <typename T>
void InputPort<T>::FixVectorValue(Context<T>* context,
                                  const VectorX<T>& value) const {
  CheckContext(*context);
  if (type_ != PortDataType::kVector) {
    throw std::invalid_argument(
        fmt::format("FixValue: {} is abstract ({}), got a vector",
                    GetFullDescription(), model_->type_name()));
  }
  if (value.size() != size_) {
    throw std::invalid_argument(
        fmt::format("FixValue: {} has size {}, got a value of size {}",
                    GetFullDescription(), size_, value.size()));
  }
  auto& slot = FixedSlotFor(context);
  slot.vector = value;
  slot.has_value = true;
  context->storage_->Bump(Context<T>::kFixedVersion);
}

template <typename T>
void InputPort<T>::FixAbstractValue(Context<T>* context,
                                    const AbstractValue& value) const {
  CheckContext(*context);
  if (type_ == PortDataType::kVector) {
    if (const auto* v = value.maybe_get_value<VectorX<T>>()) {
      FixVectorValue(context, *v);
      return;
    }
    throw std::invalid_argument(fmt::format(
        "FixValue: {} is a vector port of size {}, got a value of type {}",
        GetFullDescription(), size_, value.type_name()));
  }
  if (value.type_info() != model_->type_info()) {
    throw std::invalid_argument(fmt::format(
        "FixValue: {} holds {}, got a value of type {}", GetFullDescription(),
        model_->type_name(), value.type_name()));
  }
  auto& slot = FixedSlotFor(context);
  slot.abstract = value.Clone();
  slot.has_value = true;
  context->storage_->Bump(Context<T>::kFixedVersion);
}

namespace internal {
template <typename T>
EvaluatedInputs<T>::EvaluatedInputs(const System<T>& system,
                                    const Context<T>& context, bool read) {
  if (!read) return;
  const int n = system.num_input_ports();
  const T** u = inline_;
  if (n > kInline) {
    heap_.assign(n, nullptr);
    u = heap_.data();
    data_ = u;
  }
  for (int i = 0; i < n; ++i) {
    const InputPort<T>& port = system.get_input_port(i);
    if (port.get_data_type() == PortDataType::kVector) {
      u[i] = port.Eval(context).data();
    }
  }
}
}  // namespace internal

// --------------------------------------------------------------- OutputPort

template <typename T>
OutputPort<T>::OutputPort(const System<T>* system, int index, std::string name,
                          PortDataType type, int size,
                          Prerequisites prerequisites, VectorCalc calc,
                          AbstractCalc abstract_calc,
                          std::unique_ptr<AbstractValue> model)
    : system_(system),
      index_(index),
      name_(std::move(name)),
      type_(type),
      size_(size),
      prerequisites_(prerequisites),
      version_mask_(VersionMask(prerequisites)),
      calc_(std::move(calc)),
      abstract_calc_(std::move(abstract_calc)),
      model_(std::move(model)) {}

template <typename T>
OutputPort<T>::OutputPort(const System<T>* system, int index, std::string name,
                          const OutputPort<T>& source, int child)
    : system_(system),
      index_(index),
      name_(std::move(name)),
      type_(source.type_),
      size_(source.size_),
      prerequisites_(source.prerequisites_),
      version_mask_(source.version_mask_),
      model_(source.model_ ? source.model_->Clone() : nullptr),
      source_(&source),
      child_(child) {}

template <typename T>
std::string OutputPort<T>::GetFullDescription() const {
  return fmt::format("output port '{}' of system '{}'", name_,
                     system_->GetPathName());
}

template <typename T>
void OutputPort<T>::CheckContext(const Context<T>& context) const {
  if (&context.get_system() != system_) {
    throw std::invalid_argument(
        fmt::format("{}: the context given belongs to system '{}'; use "
                    "GetMyContextFromRoot() to get this system's context",
                    GetFullDescription(), context.get_system().GetPathName()));
  }
}

template <typename T>
const internal::CacheEntry<T>& OutputPort<T>::Revalidate(
    const Context<T>& context) const {
  auto& entry = context.cache_.data()[index_];
  const std::uint64_t* now = context.storage_->versions;
  if (entry.valid) {
    int k = 0;
    while (k < ticket::kNumVersions &&
           (!((version_mask_ >> k) & 1) || entry.versions[k] == now[k]))
      ++k;
    if (k == ticket::kNumVersions) {
      // Only counters it does not depend on changed: still valid.
      entry.serial = context.storage_->serial;
      return entry;
    }
  }
  return Recompute(context);
}

template <typename T>
const internal::CacheEntry<T>& OutputPort<T>::Recompute(
    const Context<T>& context) const {
  auto& entry = context.cache_[index_];
  auto* storage = context.storage_;
  const Context<T>* saved_ctx = storage->computing_without_inputs;
  const OutputPort<T>* saved_port = storage->computing_port;
  const bool no_inputs = !(prerequisites_ & ticket::kInputs);
  storage->computing_without_inputs = no_inputs ? &context : nullptr;
  storage->computing_port = no_inputs ? this : nullptr;
  entry.valid = false;
  entry.serial = 0;
  try {
    if (type_ == PortDataType::kVector) {
      calc_(context, &entry.vector);
    } else {
      abstract_calc_(context, entry.abstract.get());
    }
  } catch (...) {
    storage->computing_without_inputs = saved_ctx;
    storage->computing_port = saved_port;
    throw;
  }
  storage->computing_without_inputs = saved_ctx;
  storage->computing_port = saved_port;
  if (type_ == PortDataType::kVector && entry.vector.size() != size_) {
    const auto n = entry.vector.size();
    entry.vector.resize(size_);
    throw std::logic_error(
        fmt::format("{}: the calc function resized the output from {} to {}",
                    GetFullDescription(), size_, n));
  }
  for (int k = 0; k < ticket::kNumVersions; ++k)
    entry.versions[k] = storage->versions[k];
  entry.serial = storage->serial;
  entry.valid = true;
  if (storage->trace != nullptr) storage->trace->push_back({this, &context});
  return entry;
}

template <typename T>
const VectorX<T>& OutputPort<T>::Eval(const Context<T>& context) const {
  CheckContext(context);
  if (type_ != PortDataType::kVector) {
    throw std::logic_error(
        fmt::format("{} is abstract; use Eval<V>() or EvalAbstract()",
                    GetFullDescription()));
  }
  if (child_ >= 0) {
    const auto& target = context.output_targets_[index_];
    return target.port->EvalLeaf(*target.context).vector;
  }
  return EvalLeaf(context).vector;
}

template <typename T>
const AbstractValue& OutputPort<T>::EvalAbstract(
    const Context<T>& context) const {
  CheckContext(context);
  if (type_ != PortDataType::kAbstract) {
    throw std::logic_error(
        fmt::format("{} is a vector port; use Eval()", GetFullDescription()));
  }
  if (child_ >= 0) {
    const auto& target = context.output_targets_[index_];
    return *target.port->EvalLeaf(*target.context).abstract;
  }
  return *EvalLeaf(context).abstract;
}

template <typename T>
void OutputPort<T>::Calc(const Context<T>& context, VectorX<T>* value) const {
  CheckContext(context);
  if (child_ >= 0) {
    const auto& target = context.output_targets_[index_];
    target.port->Calc(*target.context, value);
    return;
  }
  if (type_ != PortDataType::kVector) {
    throw std::logic_error(fmt::format("{} is abstract; Calc() takes vectors",
                                       GetFullDescription()));
  }
  value->resize(size_);
  calc_(context, value);
}

template <typename T>
std::unique_ptr<AbstractValue> OutputPort<T>::Allocate() const {
  if (type_ == PortDataType::kVector)
    return std::make_unique<Value<VectorX<T>>>(VectorX<T>::Zero(size_));
  return model_->Clone();
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(internal::EvaluatedInputs)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(InputPort)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(OutputPort)

}  // namespace tern
