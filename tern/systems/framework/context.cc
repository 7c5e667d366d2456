#include "tern/systems/framework/context.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/common/default_scalars.h"
#include "tern/systems/framework/context_builder.h"
#include "tern/systems/framework/system.h"

namespace tern {

template <typename T>
Context<T>::~Context() = default;

template <typename T>
std::unique_ptr<Context<T>> Context<T>::Clone() const {
  if (!is_root()) {
    throw std::logic_error(fmt::format(
        "Context::Clone: the context of '{}' is a subcontext; clone the root "
        "context instead",
        system_->GetPathName()));
  }
  auto clone = internal::ContextBuilder<T>::Create(*system_);
  clone->SetTimeStateAndParametersFrom(*this);
  internal::ContextBuilder<T>::CopyFixedInputs(*this, clone.get());
  return clone;
}

template <typename T>
void Context<T>::SetTimeStateAndParametersFrom(const Context<T>& source) {
  if (source.system_ != system_ || !is_root() || !source.is_root()) {
    throw std::invalid_argument(fmt::format(
        "Context::SetTimeStateAndParametersFrom: both contexts must be root "
        "contexts of the same system (got '{}' and '{}')",
        source.system_->GetPathName(), system_->GetPathName()));
  }
  auto& dst = *storage_;
  const auto& src = *source.storage_;
  dst.time = src.time;
  dst.xc = src.xc;
  for (size_t i = 0; i < dst.xd.size(); ++i) dst.xd[i] = src.xd[i];
  for (size_t i = 0; i < dst.xa.size(); ++i) dst.xa[i]->SetFrom(*src.xa[i]);
  for (size_t i = 0; i < dst.numeric_parameters.size(); ++i)
    dst.numeric_parameters[i] = src.numeric_parameters[i];
  for (size_t i = 0; i < dst.abstract_parameters.size(); ++i)
    dst.abstract_parameters[i]->SetFrom(*src.abstract_parameters[i]);
  NoteAllChanged();
}

template <typename T>
void Context<T>::SetTime(const T& t) {
  storage_->time = t;
  storage_->Bump(kTimeVersion);
}

template <typename T>
Eigen::VectorBlock<VectorX<T>>
Context<T>::get_mutable_continuous_state_vector() {
  storage_->Bump(kXcVersion);
  return storage_->xc.segment(xc_start_, xc_size_);
}

template <typename T>
void Context<T>::ThrowContinuousStateSize(Eigen::Index size) const {
  throw std::invalid_argument(fmt::format(
      "Context::SetContinuousState: system '{}' has {} continuous states, "
      "got a vector of size {}",
      system_->GetPathName(), xc_size_, size));
}

template <typename T>
void Context<T>::SetContinuousState(const Eigen::Ref<const VectorX<T>>& xc) {
  if (xc.size() != xc_size_) ThrowContinuousStateSize(xc.size());
  // A plain loop: for the small states of block diagrams it beats Eigen's
  // dynamic-size assignment, whose set-up dominates at a few entries.
  T* dst = storage_->xc.data() + xc_start_;
  for (Eigen::Index i = 0; i < xc_size_; ++i) dst[i] = xc[i];
  storage_->Bump(kXcVersion);
}

template <typename T>
[[noreturn]] void Context<T>::ThrowIndex(const char* what, int i, int n) const {
  throw std::out_of_range(
      fmt::format("Context of '{}': {} {} requested but there are {}",
                  system_->GetPathName(), what, i, n));
}

template <typename T>
int Context<T>::GroupIndex(int group) const {
  if (group < 0 || group >= num_groups_)
    ThrowIndex("discrete state group", group, num_groups_);
  return group_start_ + group;
}

template <typename T>
int Context<T>::AbstractIndex(int i) const {
  if (i < 0 || i >= num_abstract_)
    ThrowIndex("abstract state", i, num_abstract_);
  return abstract_start_ + i;
}

template <typename T>
int Context<T>::AbstractParamIndex(int i) const {
  if (i < 0 || i >= num_abstract_params_)
    ThrowIndex("abstract parameter", i, num_abstract_params_);
  return abstract_param_start_ + i;
}

template <typename T>
const VectorX<T>& Context<T>::get_discrete_state(int group) const {
  return storage_->xd[GroupIndex(group)];
}

template <typename T>
const VectorX<T>& Context<T>::get_discrete_state_vector() const {
  if (num_groups_ != 1) {
    throw std::logic_error(fmt::format(
        "Context::get_discrete_state_vector: system '{}' has {} discrete "
        "state groups, not exactly one; use get_discrete_state(group)",
        system_->GetPathName(), num_groups_));
  }
  return storage_->xd[group_start_];
}

template <typename T>
VectorX<T>& Context<T>::get_mutable_discrete_state(int group) {
  const int k = GroupIndex(group);
  storage_->Bump(kXdVersion);
  return storage_->xd[k];
}

template <typename T>
void Context<T>::SetDiscreteState(int group,
                                  const Eigen::Ref<const VectorX<T>>& value) {
  const int k = GroupIndex(group);
  if (value.size() != storage_->xd[k].size()) {
    throw std::invalid_argument(fmt::format(
        "Context::SetDiscreteState: group {} of system '{}' has size {}, got "
        "a vector of size {}",
        group, system_->GetPathName(), storage_->xd[k].size(), value.size()));
  }
  storage_->xd[k] = value;
  storage_->Bump(kXdVersion);
}

template <typename T>
DiscreteValues<T> Context<T>::get_mutable_discrete_state() {
  storage_->Bump(kXdVersion);
  return DiscreteValues<T>(storage_->xd.data() + group_start_, num_groups_);
}

template <typename T>
State<T> Context<T>::get_mutable_state() {
  storage_->Bump(kXcVersion);
  storage_->Bump(kXdVersion);
  storage_->Bump(kXaVersion);
  return State<T>(
      &storage_->xc, xc_start_, xc_size_,
      DiscreteValues<T>(storage_->xd.data() + group_start_, num_groups_),
      storage_->xa.data() + abstract_start_, num_abstract_);
}

template <typename T>
const VectorX<T>& Context<T>::get_numeric_parameter(int i) const {
  if (i < 0 || i >= num_numeric_params_)
    ThrowIndex("numeric parameter", i, num_numeric_params_);
  return storage_->numeric_parameters[numeric_param_start_ + i];
}

template <typename T>
VectorX<T>& Context<T>::get_mutable_numeric_parameter(int i) {
  if (i < 0 || i >= num_numeric_params_)
    ThrowIndex("numeric parameter", i, num_numeric_params_);
  storage_->Bump(kParamsVersion);
  return storage_->numeric_parameters[numeric_param_start_ + i];
}

template <typename T>
const Context<T>& Context<T>::get_subcontext(int i) const {
  if (i < 0 || i >= num_subcontexts())
    ThrowIndex("subcontext", i, num_subcontexts());
  return *subcontexts_[i];
}

template <typename T>
Context<T>& Context<T>::get_mutable_subcontext(int i) {
  if (i < 0 || i >= num_subcontexts())
    ThrowIndex("subcontext", i, num_subcontexts());
  return *subcontexts_[i];
}

template <typename T>
void Context<T>::NoteAllChanged() {
  for (int k = 0; k < ticket::kNumVersions; ++k) storage_->Bump(k);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Context)

}  // namespace tern
