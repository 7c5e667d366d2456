#pragma once
// Adder: y = u0 + u1 + ... + u(n-1), n inputs "u0".."u{n-1}" of the same size
// m, one output "sum" of size m, direct feedthrough from every input.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class Adder final : public LeafSystem<T> {
 public:
  // num_inputs >= 1, size >= 1.
  Adder(int num_inputs, int size);

 private:
  void CalcSum(const Context<T>& context, VectorX<T>* y) const;
};

}  // namespace tern
