// Seed 000's discrete system x_{n+1} = x_n + 1, y_n = 10 x_n, sampled every
// h = 0.02 s and published at the same period, advanced to t = 3h.
// Prints "n: y_n" for each publish, then a table of what a continuous-time
// observer sees around each sample time (sample-and-hold at the start of a
// step: x⁻(t) before the update, x⁺(t) after, and the value seen strictly
// between samples).
#include <cstdio>
#include <vector>

#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/leaf_system.h"

namespace {

using tern::Context;
using tern::DiscreteValues;
using tern::EventStatus;
using tern::VectorX;

class DiscreteCounter final : public tern::LeafSystem<double> {
 public:
  DiscreteCounter(double h, bool print) : h_(h) {
    DeclareDiscreteState(1);  // x_0 = 0
    DeclarePeriodicDiscreteUpdateEvent(h, 0.0, &DiscreteCounter::Update);
    DeclareVectorOutputPort("y", 1, &DiscreteCounter::CalcY, tern::ticket::kXd);
    if (print) DeclarePeriodicPublishEvent(h, 0.0, &DiscreteCounter::Print);
  }

 private:
  EventStatus Update(const Context<double>& context,
                     DiscreteValues<double>* next) const {
    next->get_mutable_vector()[0] = context.get_discrete_state_vector()[0] + 1;
    return EventStatus::Succeeded();
  }
  void CalcY(const Context<double>& context, VectorX<double>* y) const {
    (*y)[0] = 10 * context.get_discrete_state_vector()[0];
  }
  void Print(const Context<double>& context) const {
    const int n = static_cast<int>(context.get_time() / h_ + 0.5);
    std::printf("%d: %g\n", n, get_output_port().Eval(context)[0]);
  }
  double h_;
};

}  // namespace

int main() {
  const double h = 0.02;
  DiscreteCounter counter(h, /* print = */ true);
  tern::Simulator<double> simulator(counter);
  simulator.AdvanceTo(3 * h);

  // The same system observed at and between sample times.
  std::printf("\n  t      y⁻(t)  y⁺(t)  y(t + h/2)\n");
  DiscreteCounter silent(h, /* print = */ false);
  tern::Simulator<double> observer(silent);
  const auto& port = silent.get_output_port();
  observer.Initialize();
  for (int n = 0; n <= 3; ++n) {
    observer.AdvanceTo(n * h);
    const double before = port.Eval(observer.get_context())[0];
    observer.AdvancePendingEvents();
    const double after = port.Eval(observer.get_context())[0];
    observer.AdvanceTo(n * h + h / 2);
    const double between = port.Eval(observer.get_context())[0];
    std::printf("  %.2f   %5g  %5g  %7g\n", n * h, before, after, between);
  }
  return 0;
}
