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
  if (n == 1) {
    this->template DeclareScalarOutputKernel<&Gain::CalcScalar>("y");
  } else {
    this->template DeclareVectorOutputKernel<&Gain::CalcOutput>("y", n);
  }
}

template <typename T>
T Gain<T>::CalcScalar(const Gain& self, const Context<T>&, T u0, T) {
  return self.k_[0] * u0;
}

template <typename T>
void Gain<T>::CalcOutput(const Gain& self, const Context<T>&,
                         const KernelInputs<T>& u, T* y) {
  const T* u0 = u[0];
  const double* k = self.k_.data();
  const Eigen::Index n = self.k_.size();
  for (Eigen::Index i = 0; i < n; ++i) y[i] = k[i] * u0[i];
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Gain)

}  // namespace tern
