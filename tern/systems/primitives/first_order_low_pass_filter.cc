#include "tern/systems/primitives/first_order_low_pass_filter.h"

#include <fmt/format.h>

#include <cmath>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
FirstOrderLowPassFilter<T>::FirstOrderLowPassFilter(double time_constant,
                                                    int size)
    : FirstOrderLowPassFilter(VectorX<double>::Constant(
          internal::CheckPositiveSize("FirstOrderLowPassFilter", "size", size),
          time_constant)) {}

template <typename T>
FirstOrderLowPassFilter<T>::FirstOrderLowPassFilter(
    const VectorX<double>& time_constants)
    : LeafSystem<T>(), tau_(time_constants) {
  internal::CheckPositiveSize("FirstOrderLowPassFilter",
                              "size of time_constants", tau_.size());
  for (Eigen::Index i = 0; i < tau_.size(); ++i) {
    if (!(tau_[i] > 0) || !std::isfinite(tau_[i])) {
      throw std::invalid_argument(fmt::format(
          "FirstOrderLowPassFilter: time constant {} is {}; it must be finite "
          "and > 0",
          i, tau_[i]));
    }
  }
  const int n = static_cast<int>(tau_.size());
  this->DeclareContinuousState(n);
  this->DeclareVectorInputPort("u", n);
  this->DeclareVectorOutputPort("y", n, &FirstOrderLowPassFilter::CalcOutput,
                                ticket::kXc);
}

template <typename T>
void FirstOrderLowPassFilter<T>::set_initial_output_value(
    Context<T>* context, const Eigen::Ref<const VectorX<T>>& value) const {
  Context<T>& mine = this->GetMyMutableContextFromRoot(context);
  if (value.size() != tau_.size()) {
    throw std::invalid_argument(fmt::format(
        "FirstOrderLowPassFilter '{}': set_initial_output_value got a value of "
        "size {}, expected {}",
        this->GetPathName(), value.size(), tau_.size()));
  }
  mine.SetContinuousState(value);
}

template <typename T>
void FirstOrderLowPassFilter<T>::DoCalcTimeDerivatives(
    const Context<T>& context, Eigen::Ref<VectorX<T>> derivatives) const {
  const VectorX<T>& u = this->get_input_port(0).Eval(context);
  const auto x = context.get_continuous_state_vector();
  for (Eigen::Index i = 0; i < tau_.size(); ++i)
    derivatives[i] = (u[i] - x[i]) / tau_[i];
}

template <typename T>
void FirstOrderLowPassFilter<T>::CalcOutput(const Context<T>& context,
                                            VectorX<T>* y) const {
  *y = context.get_continuous_state_vector();
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(FirstOrderLowPassFilter)

}  // namespace tern
