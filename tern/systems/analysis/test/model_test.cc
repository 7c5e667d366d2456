#include "tern/systems/analysis/model.h"

#include <gtest/gtest.h>

#include "tern/systems/analysis/example_models.h"
#include "tern/systems/analysis/test/test_models.h"

namespace tern {
namespace {

static_assert(Model<examples::Cartpole>);
static_assert(Model<examples::Quadrotor>);
static_assert(Model<test::PendulumChain>);
static_assert(HasAnalyticJacobian<examples::Cartpole>);
static_assert(!HasAnalyticJacobian<test::PendulumChain>);
static_assert(LinearModel<test::Oscillator>);
static_assert(!LinearModel<examples::Cartpole>);
static_assert(kNumStatesOf<examples::Quadrotor> == 13);
static_assert(kNumKnotOf<examples::Quadrotor> == 17);
static_assert(kNumKnotOf<test::PendulumChain> == Eigen::Dynamic);

TEST(ModelTest, Sizes) {
  EXPECT_EQ(NumStates(examples::Cartpole{}), 4);
  EXPECT_EQ(NumInputs(examples::Cartpole{}), 1);
  test::PendulumChain chain;
  chain.n = 7;
  EXPECT_EQ(NumStates(chain), 7);
  EXPECT_EQ(NumInputs(chain), 2);
}

TEST(ModelTest, EvalDynamicsUsesEitherForm) {
  // Returning form.
  const examples::Cartpole cartpole;
  Eigen::Vector4d xdot;
  EvalDynamics(cartpole, Eigen::Vector4d(0, 0.3, 1, 2), Vector<double, 1>(0.5),
               0.0, &xdot);
  EXPECT_EQ(xdot(0), 1.0);
  EXPECT_EQ(xdot(1), 2.0);
  // In-place form; xdot is sized by EvalDynamics.
  const test::PendulumChain chain;
  Eigen::VectorXd xc(3), uc(2), xcdot;
  xc << 0.1, 0.2, 0.3;
  uc << 1.0, 2.0;
  EvalDynamics(chain, xc, uc, 0.5, &xcdot);
  ASSERT_EQ(xcdot.size(), 3);
  EXPECT_DOUBLE_EQ(xcdot(2), -std::sin(0.3) + 1.0 + 0.5 * 2.0);
}

TEST(ModelTest, NamesForMessages) {
  EXPECT_EQ(ModelName(examples::Cartpole{}), "Cartpole");
  EXPECT_EQ(ModelName(test::Oscillator{}), "tern::test::Oscillator");
}

TEST(ModelTest, SizeCheckNamesCallerModelAndVector) {
  try {
    internal::CheckStateInputSizes("Caller", test::PendulumChain{}, 3, 5);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Caller"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PendulumChain"), std::string::npos) << msg;
    EXPECT_NE(msg.find("u has size 5"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace tern
