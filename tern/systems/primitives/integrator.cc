#include "tern/systems/primitives/integrator.h"

#include <fmt/format.h>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
Integrator<T>::Integrator(int size)
    : Integrator(VectorX<double>::Zero(
          internal::CheckPositiveSize("Integrator", "size", size))) {}

template <typename T>
Integrator<T>::Integrator(const VectorX<double>& initial_value)
    : LeafSystem<T>() {
  internal::CheckPositiveSize("Integrator", "size of initial_value",
                              initial_value.size());
  internal::CheckFinite("Integrator", "initial_value", initial_value);
  const int n = static_cast<int>(initial_value.size());
  this->DeclareContinuousState(initial_value, 0, 0);
  this->DeclareVectorInputPort("u", n);
  this->template DeclareVectorOutputKernel<&Integrator::CalcOutput>("y", n,
                                                                  ticket::kXc);
}

template <typename T>
void Integrator<T>::set_integral_value(
    Context<T>* context, const Eigen::Ref<const VectorX<T>>& value) const {
  Context<T>& mine = this->GetMyMutableContextFromRoot(context);
  if (value.size() != mine.num_continuous_states()) {
    throw std::invalid_argument(fmt::format(
        "Integrator '{}': set_integral_value got a value of size {}, expected {}",
        this->GetPathName(), value.size(), mine.num_continuous_states()));
  }
  mine.SetContinuousState(value);
}

template <typename T>
void Integrator<T>::DoCalcTimeDerivatives(const Context<T>& context,
                                          Eigen::Ref<VectorX<T>> derivatives) const {
  const VectorX<T>& u = this->get_input_port(0).Eval(context);
  for (Eigen::Index i = 0; i < u.size(); ++i) derivatives[i] = u[i];
}

template <typename T>
void Integrator<T>::CalcOutput(const Integrator&, const Context<T>& context,
                               const KernelInputs<T>&, T* y) {
  const auto x = context.get_continuous_state_vector();
  for (Eigen::Index i = 0; i < x.size(); ++i) y[i] = x[i];
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Integrator)

}  // namespace tern
