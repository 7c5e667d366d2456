// Sampled-data control: a continuous double-integrator plant (q'' = u, built
// from two Integrators) under a discrete PD controller running at 100 Hz. The
// controller sees the plant state [q; v] through a ZeroOrderHold, so its
// control u is piecewise constant: u = kp (q_d - q_k) + kd (0 - v_k) held on
// (t_k, t_k + 10 ms]. The log [q, v, u] is written as CSV.
//
//   usage: sampled_data [output.csv]     (default sampled_data.csv)
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/adder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/gain.h"
#include "tern/systems/primitives/integrator.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/multiplexer.h"
#include "tern/systems/primitives/saturation.h"
#include "tern/systems/primitives/vector_log_sink.h"
#include "tern/systems/primitives/zero_order_hold.h"

namespace {

using tern::DiagramBuilder;

int Run(const std::string& csv_path) {
  const double q_desired = 1.0;  // m
  const double kp = 25.0,
               kd = 10.0;  // continuous-time critical damping at 5 rad/s
  const double control_period = 0.01;  // s (100 Hz)
  const double u_max = 20.0;           // m/s², actuator limit
  const double log_period = 0.002;     // s, finer than the controller
  const double t_final = 3.0;          // s

  DiagramBuilder<double> builder;
  // Plant: v' = u, q' = v.
  auto* velocity =
      builder.AddNamedSystem<tern::Integrator<double>>("velocity", 1);
  auto* position =
      builder.AddNamedSystem<tern::Integrator<double>>("position", 1);
  builder.Connect(*velocity, *position);
  auto* state = builder.AddNamedSystem<tern::Multiplexer<double>>("state", 2);
  builder.Connect(position->get_output_port(), state->get_input_port(0));
  builder.Connect(velocity->get_output_port(), state->get_input_port(1));

  // Discrete PD: sample [q; v], e = x_d - x_k, u = sat([kp kd] e).
  auto* sampler = builder.AddNamedSystem<tern::ZeroOrderHold<double>>(
      "sampler", control_period, 2);
  builder.Connect(*state, *sampler);
  auto* desired = builder.AddNamedSystem<tern::ConstantVectorSource<double>>(
      "desired", Eigen::Vector2d(q_desired, 0.0));
  auto* negate = builder.AddNamedSystem<tern::Gain<double>>("negate", -1.0, 2);
  builder.Connect(*sampler, *negate);
  auto* error = builder.AddNamedSystem<tern::Adder<double>>("error", 2, 2);
  builder.Connect(desired->get_output_port(), error->get_input_port(0));
  builder.Connect(negate->get_output_port(), error->get_input_port(1));
  Eigen::MatrixXd K(1, 2);
  K << kp, kd;
  auto* pd = builder.AddNamedSystem<tern::MatrixGain<double>>("pd", K);
  builder.Connect(*error, *pd);
  auto* limit = builder.AddNamedSystem<tern::Saturation<double>>(
      "limit", -u_max, u_max, 1);
  builder.Connect(*pd, *limit);
  builder.Connect(*limit, *velocity);

  // Log [q, v, u].
  auto* signals = builder.AddNamedSystem<tern::Multiplexer<double>>(
      "signals", std::vector<int>{2, 1});
  builder.Connect(state->get_output_port(), signals->get_input_port(0));
  builder.Connect(limit->get_output_port(), signals->get_input_port(1));
  auto* logger = builder.AddNamedSystem<tern::VectorLogSink<double>>(
      "logger", 3, log_period);
  builder.Connect(*signals, *logger);
  auto diagram = builder.Build();

  tern::Simulator<double> simulator(*diagram);
  simulator.reset_integrator<tern::RK4>(1e-3);
  simulator.AdvanceTo(t_final);

  const tern::VectorLog<double>& log = logger->GetLog(simulator.get_context());
  std::FILE* file = std::fopen(csv_path.c_str(), "w");
  if (file == nullptr) {
    fmt::print(stderr, "sampled_data: cannot open '{}' for writing\n",
               csv_path);
    return 1;
  }
  fmt::print(file, "t,q,v,u\n");
  double overshoot = 0, u_peak = 0, settling_time = 0;
  for (int k = 0; k < log.num_samples(); ++k) {
    const double t = log.sample_times()[k];
    const auto x = log.data().col(k);
    fmt::print(file, "{:.6f},{:.9g},{:.9g},{:.9g}\n", t, x[0], x[1], x[2]);
    overshoot = std::max(overshoot, x[0] - q_desired);
    u_peak = std::max(u_peak, std::abs(x[2]));
    if (std::abs(x[0] - q_desired) > 0.02 * q_desired) settling_time = t;
  }
  std::fclose(file);

  const auto& stats = simulator.get_statistics();
  fmt::print(
      "sampled-data PD on a double integrator (q_d = {} m, kp = {}, kd = {}, "
      "{} Hz)\n",
      q_desired, kp, kd, 1 / control_period);
  fmt::print("  final q = {:.6f} m, v = {:.6f} m/s at t = {} s\n",
             log.data()(0, log.num_samples() - 1),
             log.data()(1, log.num_samples() - 1), t_final);
  fmt::print(
      "  overshoot {:.2f} %, 2 % settling time {:.3f} s, peak |u| {:.2f} "
      "m/s²\n",
      100 * overshoot / q_desired, settling_time, u_peak);
  fmt::print("  {} steps, {} discrete updates, {} samples written to {}\n",
             stats.steps, stats.discrete_updates, log.num_samples(), csv_path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc > 1 ? argv[1] : "sampled_data.csv");
  } catch (const std::exception& e) {
    fmt::print(stderr, "sampled_data: {}\n", e.what());
    return 1;
  }
}
