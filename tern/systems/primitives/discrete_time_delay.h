#pragma once
// DiscreteTimeDelay: delays a sampled signal by k periods. Every `period`
// seconds (offset 0) the input is pushed into a FIFO of k samples held as
// discrete state; the output is the oldest sample. With the sample-and-hold
// semantics of DESIGN.md, on (t_{n-1}, t_n] the output is u(t_{n-k}) (zero
// before k samples were taken), so k = 1 is a ZeroOrderHold. The output
// depends only on discrete state (ticket::kXd).
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class DiscreteTimeDelay final : public LeafSystem<T> {
 public:
  // period > 0, delay_steps >= 1, size >= 1.
  DiscreteTimeDelay(double period, int delay_steps, int size);

  double period() const { return period_; }
  int delay_steps() const { return k_; }

 private:
  EventStatus Shift(const Context<T>& context, DiscreteValues<T>* next) const;
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
  double period_;
  int k_;  // delay in periods
  int m_;  // signal size
};

}  // namespace tern
