#pragma once
// Integrator: continuous state x (n entries, misc. state z), xdot = u, y = x.
// The output depends only on continuous state (ticket::kXc), so a feedback
// loop through an Integrator is not an algebraic loop.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class Integrator final : public LeafSystem<T> {
 public:
  // x(0) = 0 with `size` (>= 1) entries.
  explicit Integrator(int size);
  // x(0) = initial_value (default for every new Context).
  explicit Integrator(const VectorX<double>& initial_value);

  // Sets x in `context` (this system's context or a root containing it).
  void set_integral_value(Context<T>* context,
                          const Eigen::Ref<const VectorX<T>>& value) const;

 private:
  static void CalcOutput(const Integrator& self, const Context<T>& context,
                         const KernelInputs<T>& u, T* y);
  // Size 1: a scalar kernel, cheap in chains of scalar blocks.
  static T DerivativeScalar(const Integrator& self, const Context<T>& context,
                            T u0, T u1);
  static T OutputScalar(const Integrator& self, const Context<T>& context, T u0,
                        T u1);
  static void CalcDerivatives(const Integrator& self, const Context<T>& context,
                              const KernelInputs<T>& u, T* xdot);
  int size_{0};
};

}  // namespace tern
