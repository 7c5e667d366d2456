#include "tern/systems/framework/system.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/common/default_scalars.h"
#include "tern/systems/framework/context_builder.h"
#include "tern/systems/framework/diagram.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
System<T>::~System() = default;

template <typename T>
std::string System<T>::GetPathName() const {
  const std::string own = name_.empty() ? "<unnamed>" : name_;
  if (parent_ == nullptr) return own;
  return parent_->GetPathName() + "/" + own;
}

template <typename T>
void System<T>::ThrowPortIndex(bool input, int i) const {
  const char* kind = input ? "input" : "output";
  throw std::out_of_range(fmt::format(
      "System '{}': {} port {} requested but it has {} {} ports", GetPathName(),
      kind, i, input ? num_input_ports() : num_output_ports(), kind));
}

template <typename T>
const InputPort<T>& System<T>::get_input_port(const std::string& name) const {
  for (const auto& p : inputs_)
    if (p->get_name() == name) return *p;
  std::string names;
  for (const auto& p : inputs_)
    names += (names.empty() ? "" : ", ") + p->get_name();
  throw std::invalid_argument(
      fmt::format("System '{}' has no input port named '{}' (it has: {})",
                  GetPathName(), name, names.empty() ? "none" : names));
}

template <typename T>
const InputPort<T>& System<T>::get_input_port() const {
  if (num_input_ports() != 1) {
    throw std::logic_error(fmt::format(
        "System '{}': get_input_port() needs exactly one input port, it has {}",
        GetPathName(), num_input_ports()));
  }
  return *inputs_[0];
}

template <typename T>
const OutputPort<T>& System<T>::get_output_port(const std::string& name) const {
  for (const auto& p : outputs_)
    if (p->get_name() == name) return *p;
  std::string names;
  for (const auto& p : outputs_)
    names += (names.empty() ? "" : ", ") + p->get_name();
  throw std::invalid_argument(
      fmt::format("System '{}' has no output port named '{}' (it has: {})",
                  GetPathName(), name, names.empty() ? "none" : names));
}

template <typename T>
const OutputPort<T>& System<T>::get_output_port() const {
  if (num_output_ports() != 1) {
    throw std::logic_error(
        fmt::format("System '{}': get_output_port() needs exactly one output "
                    "port, it has {}",
                    GetPathName(), num_output_ports()));
  }
  return *outputs_[0];
}

template <typename T>
bool System<T>::HasAnyDirectFeedthrough() const {
  for (int i = 0; i < num_input_ports(); ++i)
    for (int o = 0; o < num_output_ports(); ++o)
      if (HasDirectFeedthrough(i, o)) return true;
  return false;
}

template <typename T>
void System<T>::CheckPortNameIsNew(const std::string& name, bool input) const {
  const auto& ports_have = [&](const auto& ports) {
    for (const auto& p : ports)
      if (p->get_name() == name) return true;
    return false;
  };
  if (input ? ports_have(inputs_) : ports_have(outputs_)) {
    throw std::invalid_argument(
        fmt::format("System '{}' already has an {} port named '{}'",
                    GetPathName(), input ? "input" : "output", name));
  }
}

template <typename T>
InputPort<T>& System<T>::AddInputPort(std::unique_ptr<InputPort<T>> port) {
  CheckPortNameIsNew(port->get_name(), true);
  inputs_.push_back(std::move(port));
  return *inputs_.back();
}

template <typename T>
OutputPort<T>& System<T>::AddOutputPort(std::unique_ptr<OutputPort<T>> port) {
  CheckPortNameIsNew(port->get_name(), false);
  outputs_.push_back(std::move(port));
  return *outputs_.back();
}

template <typename T>
std::unique_ptr<Context<T>> System<T>::CreateDefaultContext() const {
  auto context = internal::ContextBuilder<T>::Create(*this);
  SetDefaultContext(context.get());
  return context;
}

template <typename T>
void System<T>::CheckContext(const Context<T>& context,
                             const char* func) const {
  if (&context.get_system() != this) {
    throw std::invalid_argument(fmt::format(
        "{}: the context given belongs to system '{}', not '{}'; use "
        "GetMyContextFromRoot()",
        func, context.get_system().GetPathName(), GetPathName()));
  }
}

template <typename T>
const Context<T>& System<T>::leaf_context(const Context<T>& context,
                                          int k) const {
  return *context.storage_->leaf_contexts[context.leaf_start_ + k];
}

template <typename T>
Context<T>& System<T>::mutable_leaf_context(Context<T>* context, int k) const {
  return *context->storage_->leaf_contexts[context->leaf_start_ + k];
}

template <typename T>
void System<T>::SetDefaultContext(Context<T>* context) const {
  CheckContext(*context, "SetDefaultContext");
  for (int k = 0; k < static_cast<int>(leaves_.size()); ++k) {
    Context<T>& leaf_ctx = mutable_leaf_context(context, k);
    leaves_[k]->SetDefaultParameters(&leaf_ctx);
    State<T> state = leaf_ctx.get_mutable_state();
    leaves_[k]->SetDefaultState(leaf_ctx, &state);
  }
}

template <typename T>
void System<T>::SetRandomContext(Context<T>* context,
                                 RandomGenerator* generator) const {
  CheckContext(*context, "SetRandomContext");
  for (int k = 0; k < static_cast<int>(leaves_.size()); ++k) {
    Context<T>& leaf_ctx = mutable_leaf_context(context, k);
    leaves_[k]->SetRandomParameters(&leaf_ctx, generator);
    State<T> state = leaf_ctx.get_mutable_state();
    leaves_[k]->SetRandomState(leaf_ctx, &state, generator);
  }
}

template <typename T>
const Context<T>& System<T>::GetMyContextFromRoot(
    const Context<T>& root) const {
  if (&root.get_system() == this) return root;
  if (parent_ == nullptr) {
    throw std::invalid_argument(fmt::format(
        "GetMyContextFromRoot: system '{}' is not part of the diagram '{}' "
        "that the context belongs to",
        GetPathName(), root.get_system().GetPathName()));
  }
  const Context<T>& parent_ctx = parent_->GetMyContextFromRoot(root);
  return parent_ctx.get_subcontext(index_in_parent_);
}

template <typename T>
Context<T>& System<T>::GetMyMutableContextFromRoot(Context<T>* root) const {
  return const_cast<Context<T>&>(GetMyContextFromRoot(*root));
}

template <typename T>
void System<T>::CalcTimeDerivatives(const Context<T>& context,
                                    VectorX<T>* derivatives) const {
  CheckContext(context, "CalcTimeDerivatives");
  if (derivatives->size() != context.num_continuous_states()) {
    throw std::invalid_argument(fmt::format(
        "CalcTimeDerivatives: system '{}' has {} continuous states but the "
        "derivative vector has size {}",
        GetPathName(), context.num_continuous_states(), derivatives->size()));
  }
  for (int k = 0; k < static_cast<int>(leaves_.size()); ++k) {
    const Context<T>& leaf_ctx = leaf_context(context, k);
    const Eigen::Index n = leaf_ctx.xc_size_;
    if (n == 0) continue;
    leaves_[k]->DoCalcTimeDerivatives(
        leaf_ctx,
        derivatives->segment(leaf_ctx.xc_start_ - context.xc_start_, n));
  }
}

template <typename T>
void System<T>::MapVelocityToQDot(const Context<T>& context,
                                  const Eigen::Ref<const VectorX<T>>& v,
                                  Eigen::Ref<VectorX<T>> qdot) const {
  CheckContext(context, "MapVelocityToQDot");
  if (v.size() != nv_ || qdot.size() != nq_) {
    throw std::invalid_argument(fmt::format(
        "MapVelocityToQDot: system '{}' has nq = {}, nv = {}; got v of size "
        "{} and qdot of size {}",
        GetPathName(), nq_, nv_, v.size(), qdot.size()));
  }
  Eigen::Index iq = 0, iv = 0;
  for (int k = 0; k < static_cast<int>(leaves_.size()); ++k) {
    const Context<T>& leaf_ctx = leaf_context(context, k);
    if (leaf_ctx.nq_ == 0 && leaf_ctx.nv_ == 0) continue;
    leaves_[k]->DoMapVelocityToQDot(leaf_ctx, v.segment(iv, leaf_ctx.nv_),
                                    qdot.segment(iq, leaf_ctx.nq_));
    iq += leaf_ctx.nq_;
    iv += leaf_ctx.nv_;
  }
}

namespace {
template <typename T>
void ThrowIfFailed(const EventStatus& status, const System<T>& leaf,
                   const char* what) {
  if (status.severity() == EventStatus::kFailed) {
    throw std::runtime_error(fmt::format("{} event of system '{}' failed: {}",
                                         what, leaf.GetPathName(),
                                         status.message()));
  }
}
bool Selected(TriggerType trigger, bool forced) {
  return forced ? trigger == TriggerType::kForced
                : (trigger == TriggerType::kPeriodic ||
                   trigger == TriggerType::kPerStep);
}
}  // namespace

template <typename T>
void System<T>::DispatchDiscrete(const Context<T>& context,
                                 DiscreteValues<T>* next, bool forced) const {
  CheckContext(context, "CalcDiscreteVariableUpdate");
  if (next->num_groups() != context.num_discrete_state_groups()) {
    throw std::invalid_argument(fmt::format(
        "CalcDiscreteVariableUpdate: system '{}' has {} discrete groups, the "
        "target has {}",
        GetPathName(), context.num_discrete_state_groups(),
        next->num_groups()));
  }
  for (int k = 0; k < static_cast<int>(leaves_.size()); ++k) {
    const Context<T>& leaf_ctx = leaf_context(context, k);
    DiscreteValues<T> view = next->Sub(
        leaf_ctx.group_start_ - context.group_start_, leaf_ctx.num_groups_);
    for (const auto& e : leaves_[k]->events()) {
      if (e.kind != EventKind::kDiscreteUpdate || !Selected(e.trigger, forced))
        continue;
      ThrowIfFailed(e.discrete(leaf_ctx, &view), *leaves_[k],
                    "discrete update");
    }
  }
}

template <typename T>
void System<T>::CalcDiscreteVariableUpdate(const Context<T>& context,
                                           DiscreteValues<T>* next) const {
  if (context.num_discrete_state_groups() == 0) return;
  DispatchDiscrete(context, next, false);
}

template <typename T>
void System<T>::CalcForcedDiscreteUpdate(const Context<T>& context,
                                         DiscreteValues<T>* next) const {
  if (context.num_discrete_state_groups() == 0) return;
  DispatchDiscrete(context, next, true);
}

template <typename T>
void System<T>::DispatchUnrestricted(const Context<T>& context, State<T>* next,
                                     bool forced) const {
  CheckContext(context, "CalcUnrestrictedUpdate");
  for (int k = 0; k < static_cast<int>(leaves_.size()); ++k) {
    const Context<T>& leaf_ctx = leaf_context(context, k);
    bool any = false;
    for (const auto& e : leaves_[k]->events())
      any |= e.kind == EventKind::kUnrestrictedUpdate &&
             Selected(e.trigger, forced);
    if (!any) continue;
    // The leaf's part of `next`: same offsets as its context in `context`.
    State<T> view = next->Sub(
        leaf_ctx.xc_start_ - context.xc_start_, leaf_ctx.xc_size_,
        leaf_ctx.group_start_ - context.group_start_, leaf_ctx.num_groups_,
        leaf_ctx.abstract_start_ - context.abstract_start_,
        leaf_ctx.num_abstract_);
    for (const auto& e : leaves_[k]->events()) {
      if (e.kind != EventKind::kUnrestrictedUpdate ||
          !Selected(e.trigger, forced))
        continue;
      ThrowIfFailed(e.unrestricted(leaf_ctx, &view), *leaves_[k],
                    "unrestricted update");
    }
  }
}

template <typename T>
void System<T>::CalcUnrestrictedUpdate(const Context<T>& context,
                                       State<T>* next) const {
  DispatchUnrestricted(context, next, false);
}

template <typename T>
void System<T>::CalcForcedUnrestrictedUpdate(const Context<T>& context,
                                             State<T>* next) const {
  DispatchUnrestricted(context, next, true);
}

template <typename T>
void System<T>::DispatchPublish(const Context<T>& context, bool forced) const {
  CheckContext(context, "Publish");
  for (int k = 0; k < static_cast<int>(leaves_.size()); ++k) {
    const Context<T>& leaf_ctx = leaf_context(context, k);
    for (const auto& e : leaves_[k]->events()) {
      if (e.kind != EventKind::kPublish || !Selected(e.trigger, forced))
        continue;
      ThrowIfFailed(e.publish(leaf_ctx), *leaves_[k], "publish");
    }
  }
}

template <typename T>
void System<T>::Publish(const Context<T>& context) const {
  DispatchPublish(context, false);
}

template <typename T>
void System<T>::ForcedPublish(const Context<T>& context) const {
  DispatchPublish(context, true);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(System)

}  // namespace tern
