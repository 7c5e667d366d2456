#include "tern/systems/primitives/sine.h"

#include <cmath>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
Sine<T>::Sine(double amplitude, double frequency, double phase, int size)
    : Sine(VectorX<double>::Constant(
               internal::CheckPositiveSize("Sine", "size", size), amplitude),
           VectorX<double>::Constant(
               internal::CheckPositiveSize("Sine", "size", size), frequency),
           VectorX<double>::Constant(
               internal::CheckPositiveSize("Sine", "size", size), phase)) {}

template <typename T>
Sine<T>::Sine(const VectorX<double>& amplitudes,
              const VectorX<double>& frequencies, const VectorX<double>& phases)
    : LeafSystem<T>(), a_(amplitudes), w_(frequencies), phi_(phases) {
  internal::CheckPositiveSize("Sine", "size of amplitudes", a_.size());
  internal::CheckSize("Sine", "frequencies", w_, a_.size());
  internal::CheckSize("Sine", "phases", phi_, a_.size());
  internal::CheckFinite("Sine", "amplitudes", a_);
  internal::CheckFinite("Sine", "frequencies", w_);
  internal::CheckFinite("Sine", "phases", phi_);
  const int n = static_cast<int>(a_.size());
  this->DeclareVectorOutputPort("y0", n, &Sine::template CalcOutput<0>,
                                ticket::kTime);
  this->DeclareVectorOutputPort("y1", n, &Sine::template CalcOutput<1>,
                                ticket::kTime);
  this->DeclareVectorOutputPort("y2", n, &Sine::template CalcOutput<2>,
                                ticket::kTime);
}

template <typename T>
template <int kDerivative>
void Sine<T>::CalcOutput(const Context<T>& context, VectorX<T>* y) const {
  using std::cos;
  using std::sin;
  const T& t = context.get_time();
  for (Eigen::Index i = 0; i < a_.size(); ++i) {
    const T angle = w_[i] * t + phi_[i];
    if constexpr (kDerivative == 0) {
      (*y)[i] = a_[i] * sin(angle);
    } else if constexpr (kDerivative == 1) {
      (*y)[i] = a_[i] * w_[i] * cos(angle);
    } else {
      (*y)[i] = -a_[i] * w_[i] * w_[i] * sin(angle);
    }
  }
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Sine)

}  // namespace tern
