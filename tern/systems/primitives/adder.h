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
  static void CalcSum(const Adder& self, const Context<T>& context,
                      const KernelInputs<T>& u, T* y);
  // Two scalar inputs: a scalar kernel, cheap in chains of scalar blocks.
  static T SumScalar(const Adder& self, const Context<T>& context, T u0, T u1);
  int size_{0};  // of every input and the output
};

}  // namespace tern
