#pragma once
// Gain: y = k ∘ u, an elementwise (or scalar) gain with direct feedthrough.
// For a full matrix y = D u use MatrixGain.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class Gain final : public LeafSystem<T> {
 public:
  // y = k u for vectors of `size` (>= 1) entries.
  Gain(double k, int size);
  // y_i = k_i u_i; size k.size() (>= 1).
  explicit Gain(const VectorX<double>& k);

  const VectorX<double>& k() const { return k_; }

 private:
  static void CalcOutput(const Gain& self, const Context<T>& context,
                         const KernelInputs<T>& u, T* y);
  // Size 1: a scalar kernel, cheap in chains of scalar blocks.
  static T CalcScalar(const Gain& self, const Context<T>& context, T u0, T u1);
  VectorX<double> k_;  // (n) gains
};

}  // namespace tern
