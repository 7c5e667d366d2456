// Picking an integration rule by name: Van der Pol's oscillator with
// mu = 1000 is stiff. The default (dopri5) needs about a thousand steps
// for one second of it; radau5 and kaps_rentrop4 need a few dozen.
#include <cstdio>

#include "tern/integrators/integrator_base.h"

namespace {

// x'' = mu (1 - x^2) x' - x as a first-order system, with its Jacobian so
// the implicit rules need no finite differences.
class VanDerPol final : public tern::OdeFunction<double> {
 public:
  void Eval(const double&, const Eigen::VectorXd& x,
            Eigen::VectorXd* xdot) override {
    (*xdot) << x(1), kMu * (1 - x(0) * x(0)) * x(1) - x(0);
  }
  bool EvalJacobian(const double&, const Eigen::VectorXd& x,
                    Eigen::MatrixXd* J) override {
    *J << 0, 1, -2 * kMu * x(0) * x(1) - 1, kMu * (1 - x(0) * x(0));
    return true;
  }

 private:
  static constexpr double kMu = 1000;
};

}  // namespace

int main() {
  VanDerPol f;
  for (const char* name : {"dopri5", "kaps_rentrop4", "radau5"}) {
    auto integrator = tern::MakeIntegrator<double>(name);
    integrator->mutable_settings().rtol = 1e-6;
    integrator->mutable_settings().atol = 1e-6;
    integrator->Initialize(2);
    Eigen::VectorXd x(2);
    x << 2, 0;
    double t = 0;
    const double tf = 1.0;
    while (t < tf) t = integrator->Step(f, t, tf, &x);
    const auto& s = integrator->statistics();
    std::printf(
        "%-14s x(1) = [%.6f, %.6f]  steps %lld  rejected %lld  f evals %lld  "
        "Jacobians %lld  LUs %lld\n",
        name, x(0), x(1), static_cast<long long>(s.steps),
        static_cast<long long>(s.rejected_steps),
        static_cast<long long>(s.derivative_evaluations),
        static_cast<long long>(s.jacobian_evaluations),
        static_cast<long long>(s.lu_factorizations));
  }
  return 0;
}
