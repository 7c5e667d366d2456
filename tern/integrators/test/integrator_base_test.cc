#include "tern/integrators/integrator_base.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tern {
namespace {

class Decay final : public OdeFunction<double> {
 public:
  void Eval(const double&, const VectorX<double>& x,
            VectorX<double>* xd) override {
    *xd = -x;
  }
};

class BlowUp final : public OdeFunction<double> {
 public:
  void Eval(const double& t, const VectorX<double>& x,
            VectorX<double>* xd) override {
    *xd = x;
    if (t > 0.5) (*xd)(1) = std::numeric_limits<double>::quiet_NaN();
  }
};

TEST(IntegratorBaseTest, FixedStepLandsExactlyOnLimit) {
  auto rk4 = MakeIntegrator<double>("rk4");
  rk4->mutable_settings().fixed_step = 0.1;
  rk4->Initialize(1);
  Decay f;
  VectorX<double> x = VectorX<double>::Ones(1);
  double t = 0;
  while (t < 0.35) t = rk4->Step(f, t, 0.35, &x);
  EXPECT_EQ(t, 0.35);
  EXPECT_EQ(rk4->statistics().steps, 4);
  EXPECT_EQ(rk4->statistics().derivative_evaluations, 16);
  EXPECT_NEAR(x(0), std::exp(-0.35), 1e-6);
}

TEST(IntegratorBaseTest, UnknownNameListsKnownOnes) {
  try {
    MakeIntegrator<double>("rk5x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rk5x"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("rk4"), std::string::npos);
  }
}

TEST(IntegratorBaseTest, NonFiniteStateThrowsAndRestores) {
  auto euler = MakeIntegrator<double>("euler");
  euler->mutable_settings().fixed_step = 0.25;
  euler->Initialize(2);
  BlowUp f;
  VectorX<double> x = VectorX<double>::Ones(2);
  double t = 0;
  t = euler->Step(f, t, 10.0, &x);
  t = euler->Step(f, t, 10.0, &x);
  t = euler->Step(f, t, 10.0, &x);  // evaluates at t = 0.5 (fine)
  const VectorX<double> good = x;
  try {
    euler->Step(f, t, 10.0, &x);
    FAIL();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("euler"), std::string::npos);
    EXPECT_NE(msg.find("component 1"), std::string::npos);
    EXPECT_NE(msg.find("t = 0.75"), std::string::npos);
  }
  EXPECT_EQ(x, good);
}

}  // namespace
}  // namespace tern
