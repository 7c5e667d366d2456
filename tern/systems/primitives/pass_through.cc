#include "tern/systems/primitives/pass_through.h"

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
PassThrough<T>::PassThrough(int size) : LeafSystem<T>() {
  internal::CheckPositiveSize("PassThrough", "size", size);
  this->DeclareVectorInputPort("u", size);
  this->DeclareVectorOutputPort("y", size, &PassThrough::CalcOutput);
}

template <typename T>
void PassThrough<T>::CalcOutput(const Context<T>& context,
                                VectorX<T>* y) const {
  *y = this->get_input_port(0).Eval(context);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(PassThrough)

}  // namespace tern
