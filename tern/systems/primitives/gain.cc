#include "tern/systems/primitives/gain.h"

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
Gain<T>::Gain(double k, int size)
    : Gain(VectorX<double>::Constant(
          internal::CheckPositiveSize("Gain", "size", size), k)) {}

template <typename T>
Gain<T>::Gain(const VectorX<double>& k) : LeafSystem<T>(), k_(k) {
  internal::CheckPositiveSize("Gain", "size of k", k_.size());
  internal::CheckFinite("Gain", "k", k_);
  const int n = static_cast<int>(k_.size());
  this->DeclareVectorInputPort("u", n);
  this->DeclareVectorOutputPort("y", n, &Gain::CalcOutput);
}

template <typename T>
void Gain<T>::CalcOutput(const Context<T>& context, VectorX<T>* y) const {
  const VectorX<T>& u = this->get_input_port(0).Eval(context);
  for (Eigen::Index i = 0; i < k_.size(); ++i) (*y)[i] = k_[i] * u[i];
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Gain)

}  // namespace tern
