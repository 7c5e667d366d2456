#include "tern/systems/analysis/discrete_jacobian.h"

#include <gtest/gtest.h>

#include <random>

#include "tern/systems/analysis/example_models.h"
#include "tern/systems/analysis/test/test_models.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using examples::Cartpole;
using examples::Quadrotor;

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

template <class M>
KnotPointOf<M> RandomKnot(std::mt19937* gen, double dt) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  KnotPointOf<M> z;
  for (Eigen::Index i = 0; i < z.z().size(); ++i) z.mutable_z()(i) = dist(*gen);
  z.set_t(0.3);
  z.set_dt(dt);
  return z;
}

// All three methods agree to 1e-8 (max abs entry, relative to 1 + |J|).
template <template <typename> class Rule, class M>
void ExpectMethodsAgree(const M& model, const KnotPointOf<M>& z) {
  JacobianOf<M> ad, fd, an;
  DiscreteJacobian<Rule>(model, z, &ad, JacobianMethod::kAutoDiff);
  DiscreteJacobian<Rule>(model, z, &fd, JacobianMethod::kCentralDifference);
  DiscreteJacobian<Rule>(model, z, &an, JacobianMethod::kAnalytic);
  const double scale = 1 + ad.cwiseAbs().maxCoeff();
  EXPECT_LT((ad - fd).cwiseAbs().maxCoeff(), 1e-8 * scale);
  EXPECT_LT((ad - an).cwiseAbs().maxCoeff(), 1e-12 * scale);
}

TEST(DiscreteJacobianTest, CartpoleAllRulesAllMethodsAgree) {
  std::mt19937 gen(1);
  const Cartpole model;
  for (int trial = 0; trial < 5; ++trial) {
    const auto z = RandomKnot<Cartpole>(&gen, 0.05);
    ExpectMethodsAgree<ExplicitEuler>(model, z);
    ExpectMethodsAgree<RK2>(model, z);
    ExpectMethodsAgree<RK3>(model, z);
    ExpectMethodsAgree<RK4>(model, z);
    ExpectMethodsAgree<MyRK3>(model, z);
  }
}

TEST(DiscreteJacobianTest, QuadrotorRK4AllMethodsAgree) {
  std::mt19937 gen(2);
  const Quadrotor model;
  for (int trial = 0; trial < 3; ++trial) {
    auto z = RandomKnot<Quadrotor>(&gen, 0.02);
    z.mutable_z().segment<4>(3).normalize();
    z.mutable_z().tail<4>().array() += 2.0;
    ExpectMethodsAgree<RK4>(model, z);
  }
}

TEST(DiscreteJacobianTest, ContinuousJacobiansOfExampleModelsAreRight) {
  // The analytic Jacobians of the example models against autodiff of the
  // dynamics itself (the time-derivative "rule" of Linearize).
  std::mt19937 gen(3);
  const Cartpole cartpole;
  const Quadrotor quad;
  const auto zc = RandomKnot<Cartpole>(&gen, 0.0);
  const auto zq = RandomKnot<Quadrotor>(&gen, 0.0);
  Eigen::Matrix<double, 4, 5> Jc;
  cartpole.Jacobian(zc.x(), zc.u(), 0.0, &Jc);
  Eigen::Matrix<double, 13, 17> Jq;
  quad.Jacobian(zq.x(), zq.u(), 0.0, &Jq);
  // Euler with dt = 1 from x gives x + f: its Jacobian minus [I 0] is [fx fu].
  Eigen::Matrix<double, 4, 5> Ec;
  DiscreteJacobian<ExplicitEuler>(cartpole, zc.x(), zc.u(), 0.0, 1.0, &Ec);
  Ec.leftCols<4>() -= Eigen::Matrix4d::Identity();
  EXPECT_LT((Ec - Jc).cwiseAbs().maxCoeff(), 1e-12);
  Eigen::Matrix<double, 13, 17> Eq;
  DiscreteJacobian<ExplicitEuler>(quad, zq.x(), zq.u(), 0.0, 1.0, &Eq);
  Eq.leftCols<13>() -= Eigen::Matrix<double, 13, 13>::Identity();
  EXPECT_LT((Eq - Jq).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(DiscreteJacobianTest, ExponentialJacobianIsZeroOrderHold) {
  const test::Oscillator model;
  const Eigen::Vector2d x(0.3, -0.2);
  const Vector<double, 1> u(0.7);
  Eigen::Matrix<double, 2, 3> ad, an, fd;
  DiscreteJacobian<Exponential>(model, x, u, 0.0, 0.1, &ad);
  DiscreteJacobian<Exponential>(model, x, u, 0.0, 0.1, &an,
                                JacobianMethod::kAnalytic);
  DiscreteJacobian<Exponential>(model, x, u, 0.0, 0.1, &fd,
                                JacobianMethod::kCentralDifference);
  Eigen::MatrixXd Ad, Bd;
  DiscretizeZeroOrderHold(model.A(), model.B(), 0.1, &Ad, &Bd);
  EXPECT_LT((an.leftCols<2>() - Ad).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT((an.rightCols<1>() - Bd).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT((ad - an).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((fd - an).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(DiscreteJacobianTest, RunTimeSizedModelAutoDiffMatchesDifferences) {
  test::PendulumChain chain;
  Eigen::VectorXd x(3), u(2);
  x << 0.1, -0.4, 0.8;
  u << 0.3, 0.5;
  Eigen::MatrixXd ad, fd;
  DiscreteJacobian<RK4>(chain, x, u, 0.2, 0.1, &ad);
  DiscreteJacobian<RK4>(chain, x, u, 0.2, 0.1, &fd,
                        JacobianMethod::kCentralDifference);
  ASSERT_EQ(ad.rows(), 3);
  ASSERT_EQ(ad.cols(), 5);
  EXPECT_LT((ad - fd).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(DiscreteJacobianTest, PassThroughJacobian) {
  const test::CubicMap model;
  const Vector<double, 1> x(0.5), u(2.0);
  Eigen::Matrix<double, 1, 2> J;
  DiscreteJacobian<PassThrough>(model, x, u, 0.0, 0.1, &J);
  EXPECT_NEAR(J(0, 0), 1 - 0.1 * 3 * 0.25, 1e-15);
  EXPECT_NEAR(J(0, 1), 0.1, 1e-15);
}

TEST(DiscreteJacobianTest, AnalyticWithoutJacobianNamesTheModel) {
  test::PendulumChain chain;
  Eigen::MatrixXd J;
  try {
    DiscreteJacobian<RK4>(chain, Eigen::VectorXd::Zero(3),
                          Eigen::VectorXd::Zero(2), 0.0, 0.1, &J,
                          JacobianMethod::kAnalytic);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("PendulumChain"), std::string::npos) << msg;
    EXPECT_NE(msg.find("analytic"), std::string::npos) << msg;
  }
}

TEST(DiscreteJacobianTest, FixedSizeMethodsDoNotAllocate) {
  const Quadrotor model;
  KnotPointOf<Quadrotor> z;
  z.mutable_z().segment<4>(3) << 1, 0, 0, 0;
  z.mutable_z().tail<4>().setConstant(1.2);
  z.set_dt(0.01);
  JacobianOf<Quadrotor> J;
  test::ScopedAllocationCounter counter;
  DiscreteJacobian<RK4>(model, z, &J, JacobianMethod::kAutoDiff);
  DiscreteJacobian<RK4>(model, z, &J, JacobianMethod::kAnalytic);
  DiscreteJacobian<RK4>(model, z, &J, JacobianMethod::kCentralDifference);
  EXPECT_EQ(counter.count(), 0);
}

}  // namespace
}  // namespace tern
