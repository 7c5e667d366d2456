// A program outside the Tern tree, built against the installed package. It
// also compiles and runs the custom-rule example of docs/discretization.md
// (extracted by test/install_consumer.cmake into docs_example.h), so the
// documented example cannot stop compiling unnoticed.
#include <cmath>
#include <iostream>
#include <string>

#include "tern/common/value.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/primitives/affine_system.h"
#include "tern/version.h"

namespace {
using tern::DiscreteDynamics;
using tern::DiscreteJacobian;
#include "docs_example.h"

// A damped oscillator with a force input, in the model form of
// docs/discretization.md.
struct Oscillator {
  static constexpr int kNumStates = 2;
  static constexpr int kNumInputs = 1;
  template <class T>
  tern::Vector<T, 2> Dynamics(const tern::Vector<T, 2>& x,
                              const tern::Vector<T, 1>& u, const T&) const {
    return tern::Vector<T, 2>(x(1), -4.0 * x(0) - 0.3 * x(1) + u(0));
  }
  void Jacobian(const tern::Vector<double, 2>&, const tern::Vector<double, 1>&,
                double, Eigen::Matrix<double, 2, 3>* J) const {
    *J << 0, 1, 0, -4, -0.3, 1;
  }
};

int Fail(const char* what) {
  std::cerr << "consumer: " << what << "\n";
  return 1;
}

// x(1) of xdot = -x from 1, simulated with Rule at step 0.1.
template <template <typename> class Rule>
double SimulateDecay() {
  tern::LinearSystem<double> system(
      -Eigen::MatrixXd::Identity(1, 1), Eigen::MatrixXd(1, 0),
      Eigen::MatrixXd::Identity(1, 1), Eigen::MatrixXd(1, 0));
  tern::Simulator<double> simulator(system);
  simulator.reset_integrator<Rule>(0.1);
  system.set_state(&simulator.get_mutable_context(), Eigen::VectorXd::Ones(1));
  simulator.AdvanceTo(1.0);
  return system.get_state(simulator.get_context())[0];
}
}  // namespace

int main() {
  auto v = tern::AbstractValue::Make(42);
  if (v->get_value<int>() != 42) return Fail("AbstractValue");

  // The documented rule against Tern's own RK3.
  const Oscillator model;
  const Eigen::Vector2d x(0.4, -1.1);
  const tern::Vector<double, 1> u(0.7);
  const Eigen::Vector2d mine = DiscreteDynamics<MyRK3>(model, x, u, 0.0, 0.05);
  const Eigen::Vector2d ours =
      DiscreteDynamics<tern::RK3>(model, x, u, 0.0, 0.05);
  if (!((mine - ours).cwiseAbs().maxCoeff() < 1e-15)) {
    return Fail("DiscreteDynamics<MyRK3>");
  }
  Eigen::Matrix<double, 2, 3> J_ours;
  DiscreteJacobian<tern::RK3>(model, x, u, 0.0, 0.05, &J_ours);
  for (auto method : {tern::JacobianMethod::kAutoDiff,
                      tern::JacobianMethod::kCentralDifference,
                      tern::JacobianMethod::kAnalytic}) {
    Eigen::Matrix<double, 2, 3> J;
    DiscreteJacobian<MyRK3>(model, x, u, 0.0, 0.05, &J, method);
    if (!((J - J_ours).cwiseAbs().maxCoeff() < 1e-8)) {
      return Fail(tern::to_string(method));
    }
  }
  const double a = SimulateDecay<MyRK3>();
  const double b = SimulateDecay<tern::RK3>();
  if (!(std::abs(a - b) < 1e-15 && std::abs(a - std::exp(-1.0)) < 1e-4)) {
    return Fail("Simulator::reset_integrator<MyRK3>");
  }
  // The installed version header agrees with the package version CMake
  // found (TERN_PACKAGE_VERSION, from test/consumer/CMakeLists.txt).
  if (std::string(tern::kVersion) != TERN_PACKAGE_VERSION ||
      tern::kVersionMajor != 0 || tern::kVersionMinor != 2) {
    return Fail("tern::kVersion");
  }
  std::cout << "consumer linked tern::tern " << tern::kVersion
            << " and ran the docs' custom rule\n";
  return 0;
}
