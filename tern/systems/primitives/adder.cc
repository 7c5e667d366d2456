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
  this->DeclareVectorOutputPort("sum", size, &Adder::CalcSum);
}

template <typename T>
void Adder<T>::CalcSum(const Context<T>& context, VectorX<T>* y) const {
  *y = this->get_input_port(0).Eval(context);
  for (int i = 1; i < this->num_input_ports(); ++i)
    *y += this->get_input_port(i).Eval(context);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Adder)

}  // namespace tern
