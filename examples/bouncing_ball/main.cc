// A ball dropped from 1 m bounces with restitution 0.8. The impact is a
// witness function (the height, crossing downward) whose unrestricted update
// reverses the velocity; once an impact is slower than 1 mm/s the ball is put
// at rest, which ends the Zeno cascade of ever shorter bounces cleanly.
// Prints the first impacts against the closed form t_k = t1 (1 + 2 sum e^j).
#include <cmath>
#include <cstdio>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/leaf_system.h"

namespace {

using tern::Context;
using tern::State;
using tern::VectorX;

constexpr double kGravity = 9.81;  // m/s²
constexpr double kRestitution = 0.8;
constexpr double kRestSpeed = 1e-3;  // m/s

class BouncingBall final : public tern::LeafSystem<double> {
 public:
  BouncingBall() {
    // [height (m), vertical velocity (m/s)] as q, v.
    DeclareContinuousState(Eigen::Vector2d(1.0, 0.0), 1, 1);
    DeclareAbstractState(false);  // at rest
    DeclareWitnessFunction("height",
                           tern::WitnessDirection::kPositiveToNegative,
                           &BouncingBall::Height, &BouncingBall::Bounce);
  }
  void DoCalcTimeDerivatives(const Context<double>& c,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    const bool resting = c.get_abstract_state<bool>(0);
    xdot[0] = resting ? 0.0 : c.get_continuous_state_vector()[1];
    xdot[1] = resting ? 0.0 : -kGravity;
  }
  const std::vector<double>& impacts() const { return impacts_; }

 private:
  static double Height(const Context<double>& c) {
    return c.get_abstract_state<bool>(0) ? 1.0
                                         : c.get_continuous_state_vector()[0];
  }
  void Bounce(const Context<double>& c, State<double>* next) const {
    impacts_.push_back(c.get_time());
    const double v = c.get_continuous_state_vector()[1];
    auto x = next->get_mutable_continuous_state_vector();
    if (std::abs(v) * kRestitution < kRestSpeed) {
      x << 0.0, 0.0;
      next->get_mutable_abstract_state<bool>(0) = true;
    } else {
      x << 0.0, -kRestitution * v;
    }
  }
  // The log of a demo, not state: the ball's dynamics never read it.
  mutable std::vector<double> impacts_;
};

}  // namespace

int main() {
  BouncingBall ball;
  tern::Simulator<double> simulator(ball);
  simulator.reset_integrator<tern::RK4>(1e-3);
  simulator.AdvanceTo(6.0);

  const double t1 = std::sqrt(2.0 / kGravity);
  std::printf("impact   simulated t (s)   closed form (s)   difference\n");
  double closed = t1;
  for (int k = 1; k <= 10; ++k) {
    if (k > 1) closed += 2 * std::pow(kRestitution, k - 1) * t1;
    const double t = ball.impacts()[k - 1];
    std::printf("%6d   %15.12f   %15.12f   %10.2e\n", k, t, closed, t - closed);
  }
  const auto& ctx = simulator.get_context();
  std::printf(
      "%zu impacts; at rest from t = %.6f s (Zeno limit %.6f s); "
      "at t = %.1f s height = %g m\n",
      ball.impacts().size(), ball.impacts().back(), 9 * t1, ctx.get_time(),
      ctx.get_continuous_state_vector()[0]);
  return 0;
}
