#include "tern/systems/primitives/zero_order_hold.h"

#include <fmt/format.h>

#include <cmath>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
ZeroOrderHold<T>::ZeroOrderHold(double period, int size, double offset)
    : ZeroOrderHold(period,
                    VectorX<double>::Zero(internal::CheckPositiveSize(
                        "ZeroOrderHold", "size", size)),
                    offset) {}

template <typename T>
ZeroOrderHold<T>::ZeroOrderHold(double period,
                                const VectorX<double>& initial_value,
                                double offset)
    : LeafSystem<T>(), period_(period), offset_(offset) {
  internal::CheckPeriod("ZeroOrderHold", period);
  if (!(offset >= 0) || !std::isfinite(offset)) {
    throw std::invalid_argument(fmt::format(
        "ZeroOrderHold: offset must be finite and >= 0, got {}", offset));
  }
  internal::CheckPositiveSize("ZeroOrderHold", "size of initial_value",
                              initial_value.size());
  internal::CheckFinite("ZeroOrderHold", "initial_value", initial_value);
  const int n = static_cast<int>(initial_value.size());
  this->DeclareDiscreteState(initial_value);
  this->DeclarePeriodicDiscreteUpdateEvent(period, offset,
                                           &ZeroOrderHold::Sample);
  this->DeclareVectorInputPort("u", n);
  this->DeclareVectorOutputPort("y", n, &ZeroOrderHold::CalcOutput,
                                ticket::kXd);
}

template <typename T>
void ZeroOrderHold<T>::set_held_value(
    Context<T>* context, const Eigen::Ref<const VectorX<T>>& value) const {
  Context<T>& mine = this->GetMyMutableContextFromRoot(context);
  if (value.size() != mine.get_discrete_state(0).size()) {
    throw std::invalid_argument(fmt::format(
        "ZeroOrderHold '{}': set_held_value got a value of size {}, expected "
        "{}",
        this->GetPathName(), value.size(), mine.get_discrete_state(0).size()));
  }
  mine.SetDiscreteState(0, value);
}

template <typename T>
EventStatus ZeroOrderHold<T>::Sample(const Context<T>& context,
                                     DiscreteValues<T>* next) const {
  next->get_mutable_vector(0) = this->get_input_port(0).Eval(context);
  return EventStatus::Succeeded();
}

template <typename T>
void ZeroOrderHold<T>::CalcOutput(const Context<T>& context,
                                  VectorX<T>* y) const {
  *y = context.get_discrete_state(0);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(ZeroOrderHold)

}  // namespace tern
