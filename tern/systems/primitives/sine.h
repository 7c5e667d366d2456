#pragma once
// Sine: a time-based source y(t) = a ∘ sin(ω t + φ) (elementwise), with its
// first and second time derivatives on outputs "y1" = a ∘ ω ∘ cos(ω t + φ) and
// "y2" = -a ∘ ω² ∘ sin(ω t + φ). The frequency ω is in rad/s, φ in rad. All
// outputs depend only on time.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class Sine final : public LeafSystem<T> {
 public:
  // The same amplitude, frequency and phase for each of `size` entries.
  Sine(double amplitude, double frequency, double phase, int size);
  // One entry per element; the three vectors must have the same size >= 1.
  Sine(const VectorX<double>& amplitudes, const VectorX<double>& frequencies,
       const VectorX<double>& phases);

  const VectorX<double>& amplitudes() const { return a_; }
  const VectorX<double>& frequencies() const { return w_; }
  const VectorX<double>& phases() const { return phi_; }

 private:
  template <int kDerivative>
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;

  VectorX<double> a_;    // (n) amplitudes
  VectorX<double> w_;    // (n) frequencies, rad/s
  VectorX<double> phi_;  // (n) phases, rad
};

}  // namespace tern
