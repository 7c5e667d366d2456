#include "tern/systems/primitives/saturation.h"

#include <fmt/format.h>

#include <cmath>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
Saturation<T>::Saturation(double lower, double upper, int size)
    : Saturation(
          VectorX<double>::Constant(
              internal::CheckPositiveSize("Saturation", "size", size), lower),
          VectorX<double>::Constant(
              internal::CheckPositiveSize("Saturation", "size", size), upper)) {
}

template <typename T>
Saturation<T>::Saturation(const VectorX<double>& lower,
                          const VectorX<double>& upper)
    : LeafSystem<T>(), lower_(lower), upper_(upper) {
  internal::CheckPositiveSize("Saturation", "size of lower", lower.size());
  internal::CheckSize("Saturation", "upper", upper, lower.size());
  for (Eigen::Index i = 0; i < lower.size(); ++i) {
    if (std::isnan(lower[i]) || std::isnan(upper[i]) || lower[i] > upper[i]) {
      throw std::invalid_argument(fmt::format(
          "Saturation: limits of entry {} are [{}, {}]; need lower <= upper", i,
          lower[i], upper[i]));
    }
  }
  const int n = static_cast<int>(lower.size());
  this->DeclareVectorInputPort("u", n);
  this->DeclareVectorOutputPort("y", n, &Saturation::CalcOutput);
}

template <typename T>
void Saturation<T>::CalcOutput(const Context<T>& context, VectorX<T>* y) const {
  const VectorX<T>& u = this->get_input_port(0).Eval(context);
  for (Eigen::Index i = 0; i < u.size(); ++i) {
    if (u[i] < lower_[i]) {
      (*y)[i] = T(lower_[i]);
    } else if (u[i] > upper_[i]) {
      (*y)[i] = T(upper_[i]);
    } else {
      (*y)[i] = u[i];
    }
  }
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Saturation)

}  // namespace tern
