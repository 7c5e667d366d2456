#pragma once
// FirstOrderLowPassFilter: x' = (u - x) / tau elementwise, y = x; the
// transfer function is 1 / (tau s + 1) per entry. The output depends only on
// continuous state (ticket::kXc).
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class FirstOrderLowPassFilter final : public LeafSystem<T> {
 public:
  // time_constant > 0 (seconds) for each of `size` (>= 1) entries.
  explicit FirstOrderLowPassFilter(double time_constant, int size = 1);
  // One time constant (> 0) per entry.
  explicit FirstOrderLowPassFilter(const VectorX<double>& time_constants);

  const VectorX<double>& time_constants() const { return tau_; }
  // Sets the filter state (= output) in `context` (own or root context).
  void set_initial_output_value(
      Context<T>* context, const Eigen::Ref<const VectorX<T>>& value) const;

  void DoCalcTimeDerivatives(const Context<T>& context,
                             Eigen::Ref<VectorX<T>> derivatives) const override;

 private:
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
  VectorX<double> tau_;  // (n) time constants, s
};

}  // namespace tern
