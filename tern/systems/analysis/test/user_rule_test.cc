// A rule written outside the library (here, in a test) works in every
// driver with no adapter: DiscreteDynamics, each DiscreteJacobian method,
// DiscreteTimeLinearize and Simulator::reset_integrator<Rule>(h).
#include <gtest/gtest.h>

#include <cmath>

#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/linearize.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/analysis/test/test_models.h"
#include "tern/systems/primitives/affine_system.h"

namespace tern {
namespace {

// Ralston's second-order rule (Ralston 1962; HNW I, II.1): the two-stage
// rule of minimal error bound. Complete shape: kName, kOrder, Resize.
template <typename Vec>
struct Ralston {
  static constexpr const char* kName = "ralston";
  static constexpr int kOrder = 2;
  Vec k1, k2;
  void Resize(Eigen::Index n) { k1.resize(n), k2.resize(n); }
  template <typename F, typename S>
  void Step(F&& f, const S& t, const S& h, Vec* x) {
    f(t, *x, &k1);
    f(t + 2 * h / 3, *x + (2 * h / 3) * k1, &k2);
    *x += h / 4 * (k1 + 3 * k2);
  }
};

// The same rule with nothing but Step (the shape of docs/discretization.md).
template <typename Vec>
struct BareRalston {
  Vec k1, k2;
  template <typename F, typename S>
  void Step(F&& f, const S& t, const S& h, Vec* x) {
    f(t, *x, &k1);
    f(t + 2 * h / 3, *x + (2 * h / 3) * k1, &k2);
    *x += h / 4 * (k1 + 3 * k2);
  }
};

// Every two-stage second-order rule maps xdot = A x + B u (u held) to
// x' = (I + hA + (hA)^2/2) x + (h I + h^2 A / 2) B u.
Eigen::Matrix<double, 2, 3> SecondOrderTaylorMap(const test::Oscillator& m,
                                                 double h) {
  const Eigen::Matrix2d A = m.A();
  const Eigen::Matrix2d I = Eigen::Matrix2d::Identity();
  Eigen::Matrix<double, 2, 3> J;
  J.leftCols<2>() = I + h * A + h * h / 2 * A * A;
  J.col(2) = (h * I + h * h / 2 * A) * m.B();
  return J;
}

template <template <typename> class Rule>
void CheckDiscretization() {
  const test::Oscillator model;
  const double h = 0.1;
  const Eigen::Vector2d x(0.7, -0.4);
  const Vector<double, 1> u(1.3);
  const Eigen::Matrix<double, 2, 3> map = SecondOrderTaylorMap(model, h);
  const Eigen::Vector2d expected = map.leftCols<2>() * x + map.col(2) * u(0);
  EXPECT_LT((DiscreteDynamics<Rule>(model, x, u, 0.0, h) - expected).norm(),
            1e-15);
  for (JacobianMethod method :
       {JacobianMethod::kAutoDiff, JacobianMethod::kCentralDifference,
        JacobianMethod::kAnalytic}) {
    Eigen::Matrix<double, 2, 3> J;
    DiscreteJacobian<Rule>(model, x, u, 0.0, h, &J, method);
    const double tol =
        method == JacobianMethod::kCentralDifference ? 1e-9 : 1e-14;
    EXPECT_LT((J - map).cwiseAbs().maxCoeff(), tol) << to_string(method);
  }
  const auto lin = DiscreteTimeLinearize<Rule>(model, x, u, 0.0, h);
  EXPECT_LT((lin.A - map.leftCols<2>()).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(UserRuleTest, DiscreteDynamicsAndEveryJacobianMethod) {
  CheckDiscretization<Ralston>();
  CheckDiscretization<BareRalston>();
}

// xdot = -x from 1 with step h: x_k = (1 - h + h^2/2)^k.
template <template <typename> class Rule>
double SimulateDecay(double h, int steps, std::string* name, int* order) {
  LinearSystem<double> system(
      -Eigen::MatrixXd::Identity(1, 1), Eigen::MatrixXd(1, 0),
      Eigen::MatrixXd::Identity(1, 1), Eigen::MatrixXd(1, 0));
  Simulator<double> simulator(system);
  IntegratorBase<double>& integrator = simulator.reset_integrator<Rule>(h);
  *name = integrator.name();
  *order = integrator.order();
  system.set_state(&simulator.get_mutable_context(), Eigen::VectorXd::Ones(1));
  simulator.AdvanceTo(h * steps);
  EXPECT_EQ(simulator.get_statistics().derivative_evaluations, 2 * steps);
  return system.get_state(simulator.get_context())[0];
}

TEST(UserRuleTest, SimulatorResetIntegratorTakesAUserRule) {
  const double h = 0.125;
  const int steps = 16;
  const double expected = std::pow(1 - h + h * h / 2, steps);
  std::string name;
  int order = -1;
  EXPECT_NEAR(SimulateDecay<Ralston>(h, steps, &name, &order), expected, 1e-15);
  EXPECT_EQ(name, "ralston");
  EXPECT_EQ(order, 2);
  EXPECT_NEAR(SimulateDecay<BareRalston>(h, steps, &name, &order), expected,
              1e-15);
  EXPECT_EQ(name, "user_rule");
  EXPECT_EQ(order, 0);
}

TEST(UserRuleTest, FixedStepIntegratorOfAUserRuleChecksItsStep) {
  try {
    FixedStepIntegrator<Ralston, double> bad(-0.1);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ralston"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fixed_step = -0.1"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace tern
