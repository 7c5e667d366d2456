#pragma once
// MatrixGain: y = D u with a constant (p x m) matrix D and direct
// feedthrough. Input "u" (m), output "y" (p).
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class MatrixGain final : public LeafSystem<T> {
 public:
  // D must have at least one row and one column.
  explicit MatrixGain(const MatrixX<double>& D);
  // y = u for vectors of `size` entries (D = identity).
  explicit MatrixGain(int size);

  const MatrixX<double>& D() const { return D_; }

 private:
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
  MatrixX<double> D_;  // (p x m)
  MatrixX<T> D_t_;     // D as T, so that the product never converts per call
};

}  // namespace tern
