#pragma once
// Saturation: y_i = min(max(u_i, lower_i), upper_i), direct feedthrough.
// Where u is saturated, dy/du = 0 (AutoDiffXd outputs carry no derivative).
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class Saturation final : public LeafSystem<T> {
 public:
  // The same limits for each of `size` (>= 1) entries; lower <= upper.
  Saturation(double lower, double upper, int size);
  // Elementwise limits of the same size (>= 1); lower_i <= upper_i. Use
  // ±infinity for an open side.
  Saturation(const VectorX<double>& lower, const VectorX<double>& upper);

  const VectorX<double>& lower() const { return lower_; }
  const VectorX<double>& upper() const { return upper_; }

 private:
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
  VectorX<double> lower_, upper_;  // (n)
};

}  // namespace tern
