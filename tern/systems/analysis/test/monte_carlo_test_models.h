#pragma once
// Small random systems shared by the Monte Carlo tests (threads here, MPI
// ranks in tern/mpi/test).
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/random_source.h"

namespace tern::test {

// xdot = -a x + w: random initial state x0 ~ N(0, 1) (SetRandomState), random
// rate a ~ U[0.5, 1.5] (SetRandomParameters), Gaussian noise w through a
// random input port. If x0 > fail_above, derivative evaluation throws.
class NoisyDecay final : public LeafSystem<double> {
 public:
  explicit NoisyDecay(double fail_above = INFINITY) : fail_above_(fail_above) {
    DeclareContinuousState(1);
    DeclareNumericParameter(VectorX<double>::Constant(1, 1.0));
    DeclareAbstractState(0.0);  // x0, to decide failure
    DeclareVectorInputPort("w", 1, RandomDistribution::kGaussian);
    DeclareVectorOutputPort("x", 1, &NoisyDecay::CalcX, ticket::kXc);
  }
  void DoCalcTimeDerivatives(const Context<double>& context,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    const double x0 = context.get_abstract_state<double>(0);
    if (x0 > fail_above_) {
      throw std::runtime_error("NoisyDecay: x0 = " + std::to_string(x0) +
                               " is too large");
    }
    xdot[0] = -context.get_numeric_parameter(0)[0] *
                  context.get_continuous_state_vector()[0] +
              get_input_port(0).Eval(context)[0];
  }
  void SetRandomState(const Context<double>&, State<double>* state,
                      RandomGenerator* generator) const override {
    const double x0 = generator->Gaussian();
    state->get_mutable_continuous_state_vector()[0] = x0;
    state->get_mutable_abstract_state<double>(0) = x0;
  }
  void SetRandomParameters(Context<double>* context,
                           RandomGenerator* generator) const override {
    context->get_mutable_numeric_parameter(0)[0] = 0.5 + generator->Uniform();
  }

 private:
  void CalcX(const Context<double>& c, VectorX<double>* y) const {
    *y = c.get_continuous_state_vector();
  }
  double fail_above_;
};

// xdot = w with w ~ N(0, 1) held over h: a random walk, x(T) ~ N(0, h T).
class Walk final : public LeafSystem<double> {
 public:
  Walk() {
    DeclareContinuousState(1);
    DeclareVectorInputPort("w", 1, RandomDistribution::kGaussian);
    DeclareVectorOutputPort("x", 1, &Walk::CalcX, ticket::kXc);
  }
  void DoCalcTimeDerivatives(const Context<double>& context,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = get_input_port(0).Eval(context)[0];
  }

 private:
  void CalcX(const Context<double>& c, VectorX<double>* y) const {
    *y = c.get_continuous_state_vector();
  }
};

template <class Leaf, typename... Args>
std::unique_ptr<Diagram<double>> MakeDiagram(double h, Args... args) {
  DiagramBuilder<double> builder;
  auto* leaf = builder.AddSystem<Leaf>(args...);
  AddRandomInputs(h, &builder);
  builder.ExportOutput(leaf->get_output_port(0), "x");
  return builder.Build();
}

inline SimulatorFactory Factory(const Diagram<double>& diagram, double step) {
  return [&diagram, step](RandomGenerator*) {
    auto simulator = std::make_unique<Simulator<double>>(diagram);
    simulator->reset_integrator<RK4>(step);
    return simulator;
  };
}

inline const ScalarSystemFunction kOutputX =
    [](const System<double>& system, const Context<double>& context) {
      return system.get_output_port(0).Eval(context)[0];
    };

}  // namespace tern::test
