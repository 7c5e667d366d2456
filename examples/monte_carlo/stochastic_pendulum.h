#pragma once
// StochasticPendulum: a damped pendulum driven by a random disturbance
// torque, used by examples/monte_carlo (threads and MPI) and
// bench/monte_carlo. The study they share is at the end of this file.
//
//   m L^2 theta'' = -m g L sin(theta) - b theta' + tau,   tau = sigma/sqrt(h) w
//
// w is the random Gaussian input port "disturbance" (fed by a RandomSource
// with sampling interval h, see AddRandomInputs), so tau approximates white
// noise of intensity sigma^2 (docs/stochastic.md). Randomness:
//   initial angle  theta(0) ~ N(theta0_mean, theta0_std^2), theta'(0) = 0
//                  (SetRandomState);
//   damping        b ~ U[b_min, b_max] (SetRandomParameters, numeric
//                  parameter 0).
// State: continuous [theta; theta'] (rad, rad/s); discrete group 0 holds
// max |theta| seen so far, sampled every monitor_period by a periodic
// discrete update. Outputs: "state" (2) and "max_abs_angle" (1).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "tern/common/random_generator.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/leaf_system.h"
#include "tern/systems/primitives/random_source.h"

namespace tern::examples {

struct StochasticPendulumOptions {
  double mass{1.0};      // kg
  double length{1.0};    // m
  double gravity{9.81};  // m/s^2
  double b_min{0.3};     // N·m·s/rad, damping range
  double b_max{0.7};
  double theta0_mean{0.4};         // rad
  double theta0_std{0.15};         // rad
  double sigma{0.6};               // N·m/sqrt(s), disturbance intensity
  double sampling_interval{0.05};  // s, h of the RandomSource
  double monitor_period{0.01};     // s
};

class StochasticPendulum final : public LeafSystem<double> {
 public:
  explicit StochasticPendulum(const StochasticPendulumOptions& options = {})
      : LeafSystem<double>("pendulum"), o_(options) {
    Eigen::VectorXd x0(2);
    x0 << o_.theta0_mean, 0.0;
    DeclareContinuousState(x0, 1, 1);
    DeclareDiscreteState(Eigen::VectorXd::Constant(1, std::abs(x0[0])));
    DeclareNumericParameter(
        Eigen::VectorXd::Constant(1, 0.5 * (o_.b_min + o_.b_max)));
    DeclareVectorInputPort("disturbance", 1, RandomDistribution::kGaussian);
    DeclarePeriodicDiscreteUpdateEvent(o_.monitor_period, 0.0,
                                       &StochasticPendulum::TrackMax);
    DeclareVectorOutputPort("state", 2, &StochasticPendulum::CalcState,
                            ticket::kXc);
    DeclareVectorOutputPort("max_abs_angle", 1,
                            &StochasticPendulum::CalcMaxAngle, ticket::kXd);
  }

  const StochasticPendulumOptions& options() const { return o_; }

  void DoCalcTimeDerivatives(const Context<double>& context,
                             Eigen::Ref<Eigen::VectorXd> xdot) const override {
    const auto x = context.get_continuous_state_vector();
    const double b = context.get_numeric_parameter(0)[0];
    const double w = get_input_port(0).Eval(context)[0];
    const double tau = o_.sigma / std::sqrt(o_.sampling_interval) * w;
    const double ml2 = o_.mass * o_.length * o_.length;
    xdot[0] = x[1];
    xdot[1] =
        (-o_.mass * o_.gravity * o_.length * std::sin(x[0]) - b * x[1] + tau) /
        ml2;
  }

  void SetRandomState(const Context<double>& context, State<double>* state,
                      RandomGenerator* generator) const override {
    SetDefaultState(context, state);
    const double theta0 =
        o_.theta0_mean + o_.theta0_std * generator->Gaussian();
    auto x = state->get_mutable_continuous_state_vector();
    x[0] = theta0;
    x[1] = 0.0;
    state->get_mutable_discrete_state().get_mutable_vector(0)[0] =
        std::abs(theta0);
  }

  void SetRandomParameters(Context<double>* context,
                           RandomGenerator* generator) const override {
    context->get_mutable_numeric_parameter(0)[0] =
        o_.b_min + (o_.b_max - o_.b_min) * generator->Uniform();
  }

 private:
  EventStatus TrackMax(const Context<double>& context,
                       DiscreteValues<double>* next) const {
    const double theta = context.get_continuous_state_vector()[0];
    double& m = next->get_mutable_vector(0)[0];
    m = std::max(context.get_discrete_state(0)[0], std::abs(theta));
    return EventStatus::Succeeded();
  }
  void CalcState(const Context<double>& context, Eigen::VectorXd* y) const {
    *y = context.get_continuous_state_vector();
  }
  void CalcMaxAngle(const Context<double>& context, Eigen::VectorXd* y) const {
    (*y)[0] = context.get_discrete_state(0)[0];
  }

  StochasticPendulumOptions o_;
};

// The study: a pendulum fed by one RandomSource (AddRandomInputs), whose one
// output is max |theta| over the run; a run "fails" if it exceeds
// kPendulumFailureAngle within kPendulumFinalTime.
inline constexpr double kPendulumFinalTime = 10.0;    // s
inline constexpr double kPendulumFailureAngle = 0.6;  // rad

inline std::unique_ptr<Diagram<double>> MakeStochasticPendulumDiagram(
    const StochasticPendulumOptions& options = {}) {
  DiagramBuilder<double> builder;
  auto* pendulum = builder.AddSystem<StochasticPendulum>(options);
  const int added =
      AddRandomInputs(pendulum->options().sampling_interval, &builder);
  if (added != 1) throw std::logic_error("expected one random input");
  builder.ExportOutput(pendulum->get_output_port("max_abs_angle"),
                       "max_abs_angle");
  return builder.Build();
}

// The sample's output: output port 0 of the diagram (max |theta|).
inline double PeakAngle(const System<double>& system,
                        const Context<double>& context) {
  return system.get_output_port(0).Eval(context)[0];
}

// Prints the failure probability with its 95% Wilson interval and the
// failed samples' errors; returns the index of the first failing run (-1 if
// none). Throws std::runtime_error if every sample failed with an error.
inline int PrintPendulumStudy(const std::vector<RandomSimulationResult>& r) {
  int failures = 0, errors = 0, first_failure = -1;
  for (int i = 0; i < static_cast<int>(r.size()); ++i) {
    if (!r[i].ok()) {
      ++errors;
      std::printf("error: %s\n", r[i].error.c_str());
    } else if (r[i].output > kPendulumFailureAngle) {
      ++failures;
      if (first_failure < 0) first_failure = i;
    }
  }
  const int n = static_cast<int>(r.size()) - errors;
  if (n == 0) throw std::runtime_error("every sample failed");
  const auto p = EstimateProportion(failures, n, 1.96);
  std::printf(
      "pendulum: P(max |theta| > %.2f rad within %.0f s) = %.4f, 95%% "
      "interval [%.4f, %.4f] (%d of %d samples)\n",
      kPendulumFailureAngle, kPendulumFinalTime, p.estimate, p.lower, p.upper,
      failures, n);
  return first_failure;
}

}  // namespace tern::examples
