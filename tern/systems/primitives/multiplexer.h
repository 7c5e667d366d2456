#pragma once
// Multiplexer: concatenates inputs "u0".."u{n-1}" of the given sizes into one
// output "y" of their total size, direct feedthrough.
#include <vector>

#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class Multiplexer final : public LeafSystem<T> {
 public:
  // One input per entry of input_sizes (each >= 1, at least one input).
  explicit Multiplexer(const std::vector<int>& input_sizes);
  // num_scalar_inputs inputs of size 1.
  explicit Multiplexer(int num_scalar_inputs);

 private:
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
};

}  // namespace tern
