#include "tern/systems/primitives/adder.h"

#include <fmt/format.h>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
Adder<T>::Adder(int num_inputs, int size) : LeafSystem<T>() {
  internal::CheckPositiveSize("Adder", "num_inputs", num_inputs);
  internal::CheckPositiveSize("Adder", "size", size);
  for (int i = 0; i < num_inputs; ++i)
    this->DeclareVectorInputPort(fmt::format("u{}", i), size);
  size_ = size;
  if (size == 1 && num_inputs == 2) {
    this->template DeclareScalarOutputKernel<&Adder::SumScalar>("sum");
  } else {
    this->template DeclareVectorOutputKernel<&Adder::CalcSum>("sum", size);
  }
}

template <typename T>
T Adder<T>::SumScalar(const Adder&, const Context<T>&, T u0, T u1) {
  return u0 + u1;
}

template <typename T>
void Adder<T>::CalcSum(const Adder& self, const Context<T>&,
                       const KernelInputs<T>& u, T* y) {
  const T* u0 = u[0];
  for (int j = 0; j < self.size_; ++j) y[j] = u0[j];
  for (int i = 1; i < self.num_input_ports(); ++i) {
    const T* ui = u[i];
    for (int j = 0; j < self.size_; ++j) y[j] += ui[j];
  }
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Adder)

}  // namespace tern
