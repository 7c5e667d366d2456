#include "tern/systems/analysis/collocation.h"

#include <gtest/gtest.h>

#include <random>

#include "tern/systems/analysis/example_models.h"
#include "tern/systems/analysis/test/test_models.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using examples::Cartpole;
using examples::Quadrotor;

TEST(CollocationTest, ImplicitEulerOnLinearModelIsTheClosedForm) {
  const test::Oscillator model;
  const Eigen::Vector2d x(1.0, -0.5);
  const Vector<double, 1> u(0.2), u_next(0.6);
  const double dt = 0.1;
  const Eigen::Vector2d xn =
      DiscreteDynamics<ImplicitEuler>(model, x, u, u_next, 0.0, dt);
  const Eigen::Vector2d exact =
      (Eigen::Matrix2d::Identity() - dt * model.A()).inverse() *
      (x + dt * model.B() * u_next);
  EXPECT_LT((xn - exact).cwiseAbs().maxCoeff(), 1e-13);
  // The residual vanishes there.
  EXPECT_LT(CollocationResidual<ImplicitEuler>(model, x, u, xn, u_next, 0.0, dt)
                .cwiseAbs()
                .maxCoeff(),
            1e-13);
}

TEST(CollocationTest, ImplicitMidpointOnLinearModelIsTheClosedForm) {
  // Trapezoid on x and u: (I - dt/2 A) x' = (I + dt/2 A) x + dt B (u + u')/2.
  const test::Oscillator model;
  const Eigen::Vector2d x(1.0, -0.5);
  const Vector<double, 1> u(0.2), u_next(0.6);
  const double dt = 0.1;
  const Eigen::Matrix2d I = Eigen::Matrix2d::Identity();
  const Eigen::Vector2d exact =
      (I - dt / 2 * model.A()).inverse() *
      ((I + dt / 2 * model.A()) * x + dt * model.B() * (u + u_next) / 2);
  const Eigen::Vector2d xn =
      DiscreteDynamics<ImplicitMidpoint>(model, x, u, u_next, 0.0, dt);
  EXPECT_LT((xn - exact).cwiseAbs().maxCoeff(), 1e-13);
}

// Error at t = 1 of a rollout of the cart-pole swinging freely, against RK4
// with 2000 steps.
template <template <typename> class Rule>
double ErrorAtOne(int steps) {
  const Cartpole model;
  const Eigen::Vector4d x0(0, 2.0, 0, 0);
  const Vector<double, 1> u = Vector<double, 1>::Zero();
  Eigen::Vector4d ref = x0;
  for (int k = 0; k < 2000; ++k)
    ref = DiscreteDynamics<RK4>(model, ref, u, k * 5e-4, 5e-4);
  Eigen::Vector4d x = x0;
  const double dt = 1.0 / steps;
  for (int k = 0; k < steps; ++k) {
    x = DiscreteDynamics<Rule>(model, x, u, u, k * dt, dt);
  }
  return (x - ref).norm();
}

template <template <typename> class Rule>
double ObservedOrder() {
  return std::log2(ErrorAtOne<Rule>(20) / ErrorAtOne<Rule>(40));
}

TEST(CollocationTest, ImplicitRulesHaveTheirOrder) {
  EXPECT_NEAR(
      std::log2(ErrorAtOne<ImplicitEuler>(80) / ErrorAtOne<ImplicitEuler>(160)),
      1.0, 0.2);
  EXPECT_NEAR(ObservedOrder<ImplicitMidpoint>(), 2.0, 0.2);
  EXPECT_NEAR(ObservedOrder<HermiteSimpson>(), 4.0, 0.3);
}

template <template <typename> class Rule, class M>
void ExpectResidualJacobiansAgree(const M& model, const KnotPointOf<M>& z1,
                                  const KnotPointOf<M>& z2) {
  JacobianOf<M> ad1, ad2, fd1, fd2, an1, an2;
  DiscreteJacobian<Rule>(model, z1, z2, &ad1, &ad2);
  DiscreteJacobian<Rule>(model, z1, z2, &fd1, &fd2,
                         JacobianMethod::kCentralDifference);
  DiscreteJacobian<Rule>(model, z1, z2, &an1, &an2, JacobianMethod::kAnalytic);
  const double scale =
      1 + std::max(ad1.cwiseAbs().maxCoeff(), ad2.cwiseAbs().maxCoeff());
  EXPECT_LT((ad1 - fd1).cwiseAbs().maxCoeff(), 1e-8 * scale);
  EXPECT_LT((ad2 - fd2).cwiseAbs().maxCoeff(), 1e-8 * scale);
  EXPECT_LT((ad1 - an1).cwiseAbs().maxCoeff(), 1e-12 * scale);
  EXPECT_LT((ad2 - an2).cwiseAbs().maxCoeff(), 1e-12 * scale);
}

template <class M>
KnotPointOf<M> RandomKnot(std::mt19937* gen) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  KnotPointOf<M> z;
  for (Eigen::Index i = 0; i < z.z().size(); ++i) z.mutable_z()(i) = dist(*gen);
  z.set_t(0.1);
  z.set_dt(0.05);
  return z;
}

TEST(CollocationTest, ResidualJacobiansAgreeAcrossMethods) {
  std::mt19937 gen(5);
  const Cartpole cartpole;
  const Quadrotor quad;
  for (int trial = 0; trial < 3; ++trial) {
    const auto z1 = RandomKnot<Cartpole>(&gen);
    const auto z2 = RandomKnot<Cartpole>(&gen);
    ExpectResidualJacobiansAgree<ImplicitEuler>(cartpole, z1, z2);
    ExpectResidualJacobiansAgree<ImplicitMidpoint>(cartpole, z1, z2);
    ExpectResidualJacobiansAgree<HermiteSimpson>(cartpole, z1, z2);
    const auto q1 = RandomKnot<Quadrotor>(&gen);
    const auto q2 = RandomKnot<Quadrotor>(&gen);
    ExpectResidualJacobiansAgree<HermiteSimpson>(quad, q1, q2);
  }
}

TEST(CollocationTest, FixedSizeResidualJacobiansDoNotAllocate) {
  const Quadrotor model;
  KnotPointOf<Quadrotor> z1, z2;
  z1.mutable_z().segment<4>(3) << 1, 0, 0, 0;
  z1.mutable_z().tail<4>().setConstant(1.2);
  z1.set_dt(0.01);
  z2 = z1;
  JacobianOf<Quadrotor> J1, J2;
  test::ScopedAllocationCounter counter;
  for (JacobianMethod method :
       {JacobianMethod::kAutoDiff, JacobianMethod::kAnalytic,
        JacobianMethod::kCentralDifference}) {
    DiscreteJacobian<HermiteSimpson>(model, z1, z2, &J1, &J2, method);
    DiscreteJacobian<ImplicitMidpoint>(model, z1, z2, &J1, &J2, method);
    DiscreteJacobian<ImplicitEuler>(model, z1, z2, &J1, &J2, method);
  }
  EXPECT_EQ(counter.count(), 0);
}

TEST(CollocationTest, KnotPointFormsMatchVectorForms) {
  const Cartpole model;
  const KnotPointOf<Cartpole> z1(Eigen::Vector4d(0.1, 0.2, 0.3, 0.4),
                                 Vector<double, 1>(0.5), 0.0, 0.05);
  KnotPointOf<Cartpole> z2(Eigen::Vector4d(0.2, 0.1, 0.0, -0.1),
                           Vector<double, 1>(-0.5), 0.05, 0.05);
  EXPECT_EQ(CollocationResidual<HermiteSimpson>(model, z1, z2),
            CollocationResidual<HermiteSimpson>(model, z1.x(), z1.u(), z2.x(),
                                                z2.u(), 0.0, 0.05));
  z2.x() = DiscreteDynamics<HermiteSimpson>(model, z1, z2);
  EXPECT_LT(
      CollocationResidual<HermiteSimpson>(model, z1, z2).cwiseAbs().maxCoeff(),
      1e-12);
  // Newton with the analytic and the difference Jacobian reaches the same x'.
  ImplicitSolverOptions options;
  options.method = JacobianMethod::kAnalytic;
  const Eigen::Vector4d a =
      DiscreteDynamics<HermiteSimpson>(model, z1, z2, options);
  options.method = JacobianMethod::kCentralDifference;
  const Eigen::Vector4d b =
      DiscreteDynamics<HermiteSimpson>(model, z1, z2, options);
  EXPECT_LT((a - z2.x()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((b - z2.x()).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(CollocationTest, RunTimeSizedModel) {
  const test::PendulumChain chain;
  Eigen::VectorXd x(3), u(2), u2(2);
  x << 0.1, 0.2, 0.3;
  u << 0.5, 0.1;
  u2 << 0.4, 0.2;
  const Eigen::VectorXd xn =
      DiscreteDynamics<HermiteSimpson>(chain, x, u, u2, 0.0, 0.1);
  EXPECT_LT(CollocationResidual<HermiteSimpson>(chain, x, u, xn, u2, 0.0, 0.1)
                .cwiseAbs()
                .maxCoeff(),
            1e-12);
  Eigen::MatrixXd J1, J2, F1, F2;
  CollocationJacobian<HermiteSimpson>(chain, x, u, xn, u2, 0.0, 0.1, &J1, &J2);
  CollocationJacobian<HermiteSimpson>(chain, x, u, xn, u2, 0.0, 0.1, &F1, &F2,
                                      JacobianMethod::kCentralDifference);
  EXPECT_LT((J1 - F1).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((J2 - F2).cwiseAbs().maxCoeff(), 1e-8);
}

// x' = -k x^3 + u with k = 1e4: stiff for large x. An explicit Euler start
// x + dt f(x) lands at -999 from x = 1 with dt = 0.1, from where Newton
// shrinks the iterate by only 2/3 per iteration (a cubic) and runs out of
// iterations; from x itself it converges.
struct StiffCubic {
  static constexpr int kNumStates = 1;
  static constexpr int kNumInputs = 1;
  template <class T>
  Vector<T, 1> Dynamics(const Vector<T, 1>& x, const Vector<T, 1>& u,
                        const T& /*t*/) const {
    return Vector<T, 1>(-1e4 * x(0) * x(0) * x(0) + u(0));
  }
};

template <template <typename> class Rule>
void ExpectStiffRolloutConverges() {
  const StiffCubic model;
  const Vector<double, 1> u(0), x(1.0);
  const double dt = 0.1;
  Vector<double, 1> xn;
  ASSERT_NO_THROW(xn = DiscreteDynamics<Rule>(model, x, u, u, 0.0, dt));
  EXPECT_LT(CollocationResidual<Rule>(model, x, u, xn, u, 0.0, dt)
                .cwiseAbs()
                .maxCoeff(),
            1e-10);
  // Implicit Euler damps (x' ~ 0.097); the A-stable but not L-stable rules
  // overshoot the stiff decay (midpoint: x' ~ -0.76), but stay bounded.
  EXPECT_LT(std::abs(xn(0)), 1.0);
}

TEST(CollocationTest, StiffRolloutStartsNewtonFromLastState) {
  ExpectStiffRolloutConverges<ImplicitEuler>();
  ExpectStiffRolloutConverges<ImplicitMidpoint>();
  ExpectStiffRolloutConverges<HermiteSimpson>();
}

TEST(CollocationTest, NewtonFailureNamesRuleModelAndTime) {
  const Cartpole model;
  ImplicitSolverOptions options;
  options.tolerance = 0;  // unreachable
  options.max_iterations = 1;
  try {
    DiscreteDynamics<HermiteSimpson>(model, Eigen::Vector4d(0, 2, 0, 0),
                                     Vector<double, 1>(0), Vector<double, 1>(0),
                                     1.5, 0.1, options);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("HermiteSimpson"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Cartpole"), std::string::npos) << msg;
    EXPECT_NE(msg.find("t = 1.5"), std::string::npos) << msg;
  }
}

TEST(CollocationTest, WrongSizeNamesTheVector) {
  const test::PendulumChain chain;
  try {
    CollocationResidual<ImplicitEuler>(
        chain, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(2),
        Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(1), 0.0, 0.1);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("u_next has size 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tern
