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
  if (n == 1) {
    this->template DeclareScalarOutputKernel<&Integrator::OutputScalar>(
        "y", ticket::kXc);
  } else {
    this->template DeclareVectorOutputKernel<&Integrator::CalcOutput>(
        "y", n, ticket::kXc);
  }
  if (n == 1) {
    this->template DeclareScalarTimeDerivativesKernel<
        &Integrator::DerivativeScalar>();
  } else {
    this->template DeclareTimeDerivativesKernel<&Integrator::CalcDerivatives>();
  }
  size_ = n;
}

template <typename T>
void Integrator<T>::set_integral_value(
    Context<T>* context, const Eigen::Ref<const VectorX<T>>& value) const {
  Context<T>& mine = this->GetMyMutableContextFromRoot(context);
  if (value.size() != mine.num_continuous_states()) {
    throw std::invalid_argument(fmt::format(
        "Integrator '{}': set_integral_value got a value of size {}, expected "
        "{}",
        this->GetPathName(), value.size(), mine.num_continuous_states()));
  }
  mine.SetContinuousState(value);
}

template <typename T>
void Integrator<T>::CalcDerivatives(const Integrator& self, const Context<T>&,
                                    const KernelInputs<T>& u, T* xdot) {
  const T* u0 = u[0];
  for (int i = 0; i < self.size_; ++i) xdot[i] = u0[i];
}

template <typename T>
T Integrator<T>::DerivativeScalar(const Integrator&, const Context<T>&, T u0,
                                  T) {
  return u0;
}

template <typename T>
T Integrator<T>::OutputScalar(const Integrator&, const Context<T>& context, T,
                              T) {
  return context.get_continuous_state_vector()[0];
}

template <typename T>
void Integrator<T>::CalcOutput(const Integrator& self,
                               const Context<T>& context,
                               const KernelInputs<T>&, T* y) {
  const T* x = context.get_continuous_state_vector().data();
  for (int i = 0; i < self.size_; ++i) y[i] = x[i];
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Integrator)

}  // namespace tern
