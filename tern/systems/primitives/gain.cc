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
  this->template DeclareVectorOutputKernel<&Gain::CalcOutput>("y", n);
}

template <typename T>
void Gain<T>::CalcOutput(const Gain& self, const Context<T>&,
                         const KernelInputs<T>& u, T* y) {
  const T* u0 = u[0];
  const double* k = self.k_.data();
  for (Eigen::Index i = 0; i < self.k_.size(); ++i) y[i] = k[i] * u0[i];
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Gain)

}  // namespace tern
