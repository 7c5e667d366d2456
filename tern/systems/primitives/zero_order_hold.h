#pragma once
// ZeroOrderHold: samples its input every `period` seconds (at offset +
// k period) into a discrete state and outputs the held sample:
//   x⁺(t_k) = u(t_k),  y(t) = x(t).
// With the sample-and-hold semantics of DESIGN.md, y = u(t_k) on
// (t_k, t_{k+1}] and y = x⁻ at t_k itself. The output depends only on the
// discrete state (ticket::kXd), so a feedback loop through a ZOH is not an
// algebraic loop.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class ZeroOrderHold final : public LeafSystem<T> {
 public:
  // period > 0, size >= 1, offset >= 0; the held value starts at zero.
  ZeroOrderHold(double period, int size, double offset = 0.0);
  // As above with the held value starting at `initial_value`.
  ZeroOrderHold(double period, const VectorX<double>& initial_value,
                double offset = 0.0);

  double period() const { return period_; }
  double offset() const { return offset_; }
  // Sets the held value in `context` (own or root context).
  void set_held_value(Context<T>* context,
                      const Eigen::Ref<const VectorX<T>>& value) const;

 private:
  EventStatus Sample(const Context<T>& context, DiscreteValues<T>* next) const;
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
  double period_, offset_;
};

}  // namespace tern
