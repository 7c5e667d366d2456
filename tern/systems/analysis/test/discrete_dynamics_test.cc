#include "tern/systems/analysis/discrete_dynamics.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>

#include "tern/systems/analysis/collocation.h"
#include "tern/systems/analysis/example_models.h"
#include "tern/systems/analysis/linearize.h"
#include "tern/systems/analysis/test/test_models.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using examples::Cartpole;

// The seed's user-defined RK3 (docs/discretization.md): one small type.
template <typename Vec>
struct MyRK3 {
  Vec k1, k2, k3;
  template <typename F, typename S>
  void Step(F&& f, const S& t, const S& h, Vec* x) {
    f(t, *x, &k1);
    f(t + h / 2, *x + h / 2 * k1, &k2);
    f(t + h, *x - h * k1 + 2 * h * k2, &k3);
    *x += h / 6 * (k1 + 4 * k2 + k3);
  }
};

const Eigen::Vector4d kX(0.1, 2.5, -0.3, 0.7);
const Vector<double, 1> kU(1.5);

TEST(DiscreteDynamicsTest, RK4IsTheIntegratorRule) {
  const Cartpole model;
  const Eigen::Vector4d xn = DiscreteDynamics<RK4>(model, kX, kU, 0.2, 0.05);
  RK4<Eigen::Vector4d> rule;
  Eigen::Vector4d x = kX;
  rule.Step([&](double t, const Eigen::Vector4d& xx,
                Eigen::Vector4d* xd) { *xd = model.Dynamics(xx, kU, t); },
            0.2, 0.05, &x);
  EXPECT_EQ(xn, x);
}

TEST(DiscreteDynamicsTest, UserRuleMatchesBuiltInRK3) {
  const Cartpole model;
  const Eigen::Vector4d mine =
      DiscreteDynamics<MyRK3>(model, kX, kU, 0.0, 0.05);
  const Eigen::Vector4d theirs =
      DiscreteDynamics<RK3>(model, kX, kU, 0.0, 0.05);
  EXPECT_LT((mine - theirs).cwiseAbs().maxCoeff(), 1e-15);
  // A user rule also works for run-time sizes.
  test::PendulumChain chain;
  Eigen::VectorXd x(3), u(2);
  x << 0.1, 0.2, 0.3;
  u << 1.0, -1.0;
  const Eigen::VectorXd a = DiscreteDynamics<MyRK3>(chain, x, u, 0.1, 0.01);
  const Eigen::VectorXd b = DiscreteDynamics<RK3>(chain, x, u, 0.1, 0.01);
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-15);
}

// Error of the rule on the oscillator against the exact ZOH solution.
template <template <typename> class Rule>
double ErrorOverOneSecond(int steps) {
  const test::Oscillator model;
  const double dt = 1.0 / steps;
  Eigen::Vector2d x(1.0, 0.0);
  const Vector<double, 1> u(0.5);
  for (int k = 0; k < steps; ++k) {
    x = DiscreteDynamics<Rule>(model, x, u, k * dt, dt);
  }
  Eigen::Matrix3d M = Eigen::Matrix3d::Zero();
  M.topLeftCorner<2, 2>() = model.A();
  M.topRightCorner<2, 1>() = model.B();
  const Eigen::Matrix3d E = M.exp();
  const Eigen::Vector2d exact =
      E.topLeftCorner<2, 2>() * Eigen::Vector2d(1, 0) +
      E.topRightCorner<2, 1>() * u;
  return (x - exact).norm();
}

template <template <typename> class Rule>
double ObservedOrder() {
  return std::log2(ErrorOverOneSecond<Rule>(20) / ErrorOverOneSecond<Rule>(40));
}

TEST(DiscreteDynamicsTest, ExplicitRulesHaveTheirOrder) {
  EXPECT_NEAR(ObservedOrder<ExplicitEuler>(), 1.0, 0.15);
  EXPECT_NEAR(ObservedOrder<RK2>(), 2.0, 0.15);
  EXPECT_NEAR(ObservedOrder<RK3>(), 3.0, 0.15);
  EXPECT_NEAR(ObservedOrder<MyRK3>(), 3.0, 0.15);
  EXPECT_NEAR(ObservedOrder<RK4>(), 4.0, 0.15);
  EXPECT_LT(ErrorOverOneSecond<Exponential>(7), 1e-13);
}

TEST(DiscreteDynamicsTest, ExponentialIsExactForDoubleIntegrator) {
  const test::DoubleIntegrator model;
  const double dt = 0.3;
  const Eigen::Vector2d x(0.4, -1.2);
  const Vector<double, 1> u(2.0);
  const Eigen::Vector2d xn =
      DiscreteDynamics<Exponential>(model, x, u, 0.0, dt);
  EXPECT_NEAR(xn(0), x(0) + dt * x(1) + dt * dt / 2 * u(0), 1e-14);
  EXPECT_NEAR(xn(1), x(1) + dt * u(0), 1e-14);
}

TEST(DiscreteDynamicsTest, ZeroOrderHoldRejectsBadSizes) {
  Eigen::MatrixXd Ad, Bd;
  try {
    DiscretizeZeroOrderHold(Eigen::MatrixXd::Zero(2, 3),
                            Eigen::MatrixXd::Zero(2, 1), 0.1, &Ad, &Bd);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("A is 2x3"), std::string::npos);
  }
}

TEST(DiscreteDynamicsTest, PassThroughUsesTheModelsMap) {
  const test::CubicMap model;
  const Vector<double, 1> x(0.5), u(2.0);
  const Vector<double, 1> xn =
      DiscreteDynamics<PassThrough>(model, x, u, 0.0, 0.1);
  EXPECT_DOUBLE_EQ(xn(0), 0.5 + 0.1 * (2.0 - 0.125));
}

TEST(DiscreteDynamicsTest, KnotPointFormMatchesVectorForm) {
  const Cartpole model;
  const KnotPointOf<Cartpole> z(kX, kU, 0.3, 0.02);
  EXPECT_EQ(DiscreteDynamics<RK4>(model, z),
            DiscreteDynamics<RK4>(model, kX, kU, 0.3, 0.02));
}

TEST(DiscreteDynamicsTest, RunTimeSizedModelWithInPlaceDynamics) {
  test::PendulumChain chain;
  chain.n = 4;
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(4, 0.1, 0.4);
  Eigen::VectorXd u(2);
  u << 0.3, 0.2;
  // Against RK4 on the same right-hand side, driven directly.
  RK4<Eigen::VectorXd> rule(4);
  Eigen::VectorXd x_direct = x;
  rule.Step([&](double t, const Eigen::VectorXd& xx,
                Eigen::VectorXd* xd) { chain.Dynamics(xx, u, t, xd); },
            0.5, 0.1, &x_direct);
  EXPECT_EQ(DiscreteDynamics<RK4>(chain, x, u, 0.5, 0.1), x_direct);
}

TEST(DiscreteDynamicsTest, WrongSizeNamesModelAndVector) {
  test::PendulumChain chain;
  try {
    DiscreteDynamics<RK4>(chain, Eigen::VectorXd::Zero(2),
                          Eigen::VectorXd::Zero(2), 0.0, 0.1);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("DiscreteDynamics"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PendulumChain"), std::string::npos) << msg;
    EXPECT_NE(msg.find("x has size 2"), std::string::npos) << msg;
  }
}

TEST(DiscreteDynamicsTest, FixedSizeModelDoesNotAllocate) {
  const Cartpole model;
  Eigen::Vector4d x = kX;
  {
    test::ScopedAllocationCounter counter;
    for (int k = 0; k < 10; ++k) {
      x = DiscreteDynamics<RK4>(model, x, kU, 0.0, 0.01);
    }
    x = DiscreteDynamics<MyRK3>(model, x, kU, 0.0, 0.01);
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_TRUE(x.allFinite());
}

// t and dt that are NaN or infinite throw, naming the function, the model
// and the values (before: NaN came back).
template <class Call>
void ExpectNonFiniteTimeThrows(const Call& call, const std::string& caller,
                               const std::string& value) {
  try {
    call();
    ADD_FAILURE() << caller << ": no throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(caller + ":"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Cartpole"), std::string::npos) << msg;
    EXPECT_NE(msg.find(value), std::string::npos) << msg;
  }
}

TEST(DiscreteDynamicsTest, NonFiniteTimeOrStepThrows) {
  const Cartpole model;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf}) {
    const std::string dt = fmt::format("dt = {}", bad);
    ExpectNonFiniteTimeThrows(
        [&] { DiscreteDynamics<RK4>(model, kX, kU, 0.0, bad); },
        "DiscreteDynamics", dt);
    ExpectNonFiniteTimeThrows(
        [&] { DiscreteDynamics<RK4>(model, kX, kU, bad, 0.1); },
        "DiscreteDynamics", fmt::format("t = {}", bad));
    for (JacobianMethod method :
         {JacobianMethod::kAutoDiff, JacobianMethod::kCentralDifference,
          JacobianMethod::kAnalytic}) {
      JacobianOf<Cartpole> J;
      ExpectNonFiniteTimeThrows(
          [&] { DiscreteJacobian<RK4>(model, kX, kU, 0.0, bad, &J, method); },
          "DiscreteJacobian", dt);
      ExpectNonFiniteTimeThrows(
          [&] { DiscreteTimeLinearize<RK4>(model, kX, kU, 0.0, bad, method); },
          "DiscreteTimeLinearize", dt);
    }
    ExpectNonFiniteTimeThrows([&] { Linearize(model, kX, kU, bad); },
                              "Linearize", fmt::format("t = {}", bad));
    ExpectNonFiniteTimeThrows(
        [&] {
          CollocationResidual<HermiteSimpson>(model, kX, kU, kX, kU, 0.0, bad);
        },
        "CollocationResidual", dt);
    ExpectNonFiniteTimeThrows(
        [&] { DiscreteDynamics<ImplicitEuler>(model, kX, kU, kU, 0.0, bad); },
        "ImplicitEuler", dt);
    // The exponential rule's zero-order hold, directly.
    Eigen::MatrixXd Ad, Bd;
    EXPECT_THROW(
        DiscretizeZeroOrderHold(Eigen::MatrixXd::Identity(2, 2),
                                Eigen::MatrixXd::Ones(2, 1), bad, &Ad, &Bd),
        std::invalid_argument);
  }
}

TEST(DiscreteDynamicsTest, ImplicitSolverOptionsAreChecked) {
  const Cartpole model;
  ImplicitSolverOptions options;
  options.tolerance = std::numeric_limits<double>::quiet_NaN();
  try {
    DiscreteDynamics<HermiteSimpson>(model, kX, kU, kU, 0.0, 0.05, options);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tolerance = nan"), std::string::npos)
        << e.what();
  }
  options = ImplicitSolverOptions{};
  options.max_iterations = 0;
  EXPECT_THROW(
      DiscreteDynamics<HermiteSimpson>(model, kX, kU, kU, 0.0, 0.05, options),
      std::invalid_argument);
}

}  // namespace
}  // namespace tern
