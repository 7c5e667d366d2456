#include "tern/systems/primitives/constant_vector_source.h"

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
ConstantVectorSource<T>::ConstantVectorSource(const VectorX<double>& value)
    : LeafSystem<T>() {
  internal::CheckFinite("ConstantVectorSource", "value", value);
  this->DeclareNumericParameter(value);
  this->DeclareVectorOutputPort("y0", static_cast<int>(value.size()),
                                &ConstantVectorSource::CalcOutput,
                                ticket::kParams);
}

template <typename T>
ConstantVectorSource<T>::ConstantVectorSource(double value)
    : ConstantVectorSource(VectorX<double>::Constant(1, value)) {}

template <typename T>
const VectorX<T>& ConstantVectorSource<T>::get_source_value(
    const Context<T>& context) const {
  return this->GetMyContextFromRoot(context).get_numeric_parameter(0);
}

template <typename T>
VectorX<T>& ConstantVectorSource<T>::get_mutable_source_value(
    Context<T>* context) const {
  return this->GetMyMutableContextFromRoot(context)
      .get_mutable_numeric_parameter(0);
}

template <typename T>
void ConstantVectorSource<T>::CalcOutput(const Context<T>& context,
                                         VectorX<T>* y) const {
  *y = context.get_numeric_parameter(0);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(ConstantVectorSource)

}  // namespace tern
