#include "tern/integrators/integrator_base.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tern/test_support/allocation_counter.h"

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

namespace tern {
namespace {

// Kepler orbit (e = 0.5), period 2 pi.
class Kepler final : public OdeFunction<double> {
 public:
  void Eval(const double&, const VectorX<double>& x,
            VectorX<double>* xd) override {
    const double r2 = x(0) * x(0) + x(1) * x(1);
    const double r3 = r2 * std::sqrt(r2);
    (*xd) << x(2), x(3), -x(0) / r3, -x(1) / r3;
  }
  static VectorX<double> Start() {
    VectorX<double> x(4);
    x << 0.5, 0, 0, std::sqrt(3.0);
    return x;
  }
};

// Van der Pol (mu = 100) with an analytic Jacobian when enabled.
class VanDerPolFn final : public OdeFunction<double> {
 public:
  explicit VanDerPolFn(bool jacobian) : jacobian_(jacobian) {}
  void Eval(const double&, const VectorX<double>& x,
            VectorX<double>* xd) override {
    (*xd) << x(1), 100 * (1 - x(0) * x(0)) * x(1) - x(0);
  }
  bool EvalJacobian(const double&, const VectorX<double>& x,
                    MatrixX<double>* J) override {
    if (!jacobian_) return false;
    *J << 0, 1, -200 * x(0) * x(1) - 1, 100 * (1 - x(0) * x(0));
    ++calls;
    return true;
  }
  int calls = 0;

 private:
  bool jacobian_;
};

// Pendulum as a SecondOrderOdeFunction.
class PendulumFn final : public SecondOrderOdeFunction<double> {
 public:
  PendulumFn() : SecondOrderOdeFunction<double>(1, 1) {}
  void EvalQdot(const double&, ConstRef, ConstRef v, Ref qdot) override {
    qdot = v;
  }
  void EvalVdot(const double&, ConstRef q, ConstRef v, Ref vdot) override {
    vdot(0) = -std::sin(q(0)) - damping * v(0);
  }
  double damping = 0;
};

double Integrate(IntegratorBase<double>* integrator, OdeFunction<double>& f,
                 double tf, VectorX<double>* x) {
  double t = 0;
  while (t < tf) t = integrator->Step(f, t, tf, x);
  return t;
}

TEST(IntegratorBaseTest, EveryNameIsConstructibleAndNamedBack) {
  std::string names = KnownIntegratorNames();
  for (const char* name : {"euler",
                           "rk2",
                           "rk3",
                           "rk4",
                           "bs3",
                           "dopri5",
                           "dop853",
                           "radau5",
                           "radau5_fixed",
                           "implicit_euler",
                           "implicit_euler_fixed",
                           "implicit_trapezoid",
                           "implicit_trapezoid_fixed",
                           "kaps_rentrop4",
                           "rodas4",
                           "exponential",
                           "semi_explicit_euler",
                           "semi_implicit_euler_v",
                           "semi_implicit_euler_q",
                           "velocity_verlet"}) {
    EXPECT_NE(names.find(name), std::string::npos) << name;
    auto integrator = MakeIntegrator<double>(name);
    EXPECT_EQ(integrator->name(), name);
  }
  EXPECT_EQ(MakeIntegrator<double>("rosenbrock4")->name(), "rodas4");
  EXPECT_EQ(MakeIntegrator<double>("default")->name(), "dopri5");
  auto def = MakeDefaultIntegrator<double>();
  EXPECT_EQ(def->name(), "dopri5");
  EXPECT_TRUE(def->supports_error_control());
  EXPECT_EQ(def->settings().rtol, 1e-6);
  // AutoDiffXd: explicit rules yes, implicit ones say they are double-only.
  EXPECT_EQ(MakeIntegrator<AutoDiffXd>("dop853")->name(), "dop853");
  EXPECT_EQ(MakeIntegrator<AutoDiffXd>("velocity_verlet")->name(),
            "velocity_verlet");
  try {
    MakeIntegrator<AutoDiffXd>("radau5");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("double only"), std::string::npos);
  }
}

// Counts its evaluations; Van der Pol (mu = 100) with an analytic
// Jacobian, so the only differencing left is df/dt's.
class CountingVanDerPol final : public OdeFunction<double> {
 public:
  void Eval(const double&, const VectorX<double>& x,
            VectorX<double>* xd) override {
    ++evaluations;
    (*xd) << x(1), 100 * (1 - x(0) * x(0)) * x(1) - x(0);
  }
  bool EvalJacobian(const double&, const VectorX<double>& x,
                    MatrixX<double>* J) override {
    *J << 0, 1, -200 * x(0) * x(1) - 1, 100 * (1 - x(0) * x(0));
    return true;
  }
  int evaluations = 0;
};

// rodas4 and kaps_rentrop4 difference f in t for df/dt (two evaluations per
// Jacobian) unless the ODE is declared autonomous; the steps are the same.
TEST(IntegratorBaseTest, AutonomousOdeSkipsTimeDerivative) {
  for (const char* name : {"rodas4", "kaps_rentrop4"}) {
    VectorX<double> x[2];
    int evaluations[2];
    IntegratorStatistics stats[2];
    for (int autonomous = 0; autonomous < 2; ++autonomous) {
      IntegratorSettings s;
      s.rtol = s.atol = 1e-6;
      s.autonomous = autonomous == 1;
      auto integ = MakeIntegrator<double>(name, s);
      CountingVanDerPol f;
      x[autonomous] = Eigen::Vector2d(2, 0);
      integ->Initialize(2);
      Integrate(integ.get(), f, 1.0, &x[autonomous]);
      evaluations[autonomous] = f.evaluations;
      stats[autonomous] = integ->statistics();
    }
    EXPECT_EQ(stats[1].steps, stats[0].steps) << name;
    EXPECT_EQ(stats[1].rejected_steps, stats[0].rejected_steps) << name;
    EXPECT_GT(stats[0].jacobian_evaluations, 10) << name;
    EXPECT_EQ(evaluations[0] - evaluations[1],
              2 * stats[0].jacobian_evaluations)
        << name;
    EXPECT_EQ(stats[1].derivative_evaluations, evaluations[1]) << name;
    EXPECT_LT((x[1] - x[0]).norm(), 1e-12) << name;
  }
}

// x'' = -x as x = (q, v): x(t) = (cos t, -sin t) from (1, 0).
class Oscillator final : public OdeFunction<double> {
 public:
  void Eval(const double&, const VectorX<double>& x,
            VectorX<double>* xd) override {
    (*xd) << x(1), -x(0);
  }
  static VectorX<double> Start() { return Eigen::Vector2d(1, 0); }
  static VectorX<double> Exact(double t) {
    return Eigen::Vector2d(std::cos(t), -std::sin(t));
  }
};

// dop853's interpolant needs three more evaluations of f per step; they are
// made only in a step where DenseOutput is asked for.
TEST(IntegratorBaseTest, Dop853DenseOutputOnlyWhenAsked) {
  Oscillator osc;
  IntegratorSettings s;
  s.rtol = s.atol = 1e-9;
  auto quiet = MakeIntegrator<double>("dop853", s);  // dense_output = true
  s.dense_output = false;
  auto off = MakeIntegrator<double>("dop853", s);
  VectorX<double> x0 = Oscillator::Start(), x1 = Oscillator::Start();
  quiet->Initialize(2);
  off->Initialize(2);
  Integrate(quiet.get(), osc, 10.0, &x0);
  Integrate(off.get(), osc, 10.0, &x1);
  EXPECT_EQ(quiet->statistics().derivative_evaluations,
            off->statistics().derivative_evaluations);
  EXPECT_EQ(x0, x1);

  // Asked for: three evaluations once per step, 7th-order accurate.
  s.dense_output = true;
  auto dense = MakeIntegrator<double>("dop853", s);
  dense->Initialize(2);
  VectorX<double> x = Oscillator::Start(), xm(2);
  double t = 0;
  int steps = 0;
  while (t < 10.0) {
    const double t_next = dense->Step(osc, t, 10.0, &x);
    const int64_t before = dense->statistics().derivative_evaluations;
    dense->DenseOutput(0.5 * (t + t_next), &xm);
    EXPECT_EQ(dense->statistics().derivative_evaluations, before + 3);
    dense->DenseOutput(0.25 * t + 0.75 * t_next, &xm);
    EXPECT_EQ(dense->statistics().derivative_evaluations, before + 3);
    EXPECT_LT((xm - Oscillator::Exact(0.25 * t + 0.75 * t_next)).norm(), 1e-7);
    t = t_next;
    ++steps;
  }
  EXPECT_EQ(dense->statistics().derivative_evaluations,
            off->statistics().derivative_evaluations + 3 * steps);
}

TEST(IntegratorBaseTest, ErrorControlledMeetsToleranceAndDenseOutput) {
  for (const char* name : {"bs3", "dopri5", "dop853"}) {
    IntegratorSettings s;
    s.rtol = s.atol = 1e-8;
    auto integ = MakeIntegrator<double>(name, s);
    integ->Initialize(4);
    Kepler f;
    VectorX<double> x = Kepler::Start();
    double t = 0;
    VectorX<double> xm(4);
    int checked = 0;
    while (t < 2 * M_PI) {
      const double t0 = t;
      const VectorX<double> x0 = x;
      t = integ->Step(f, t, 2 * M_PI, &x);
      // Dense output agrees with a fine RK4 from the step start.
      if (checked < 3 && t - t0 > 1e-3) {
        const double tm = 0.5 * (t0 + t);
        integ->DenseOutput(tm, &xm);
        auto rk4 = MakeIntegrator<double>("rk4");
        rk4->mutable_settings().fixed_step = (tm - t0) / 200;
        rk4->Initialize(4);
        VectorX<double> xr = x0;
        Integrate(rk4.get(), f, tm - t0, &xr);
        EXPECT_LT((xm - xr).cwiseAbs().maxCoeff(), 1e-6) << name;
        ++checked;
      }
    }
    EXPECT_LT((x - Kepler::Start()).cwiseAbs().maxCoeff(), 1e-6) << name;
    EXPECT_GT(integ->dense_output_order(), 2);
    EXPECT_GT(integ->statistics().steps, 10);
  }
}

TEST(IntegratorBaseTest, ImplicitRulesUseSuppliedOrDifferencedJacobian) {
  VectorX<double> xa(2), xb(2);
  xa << 2, 0;
  xb << 2, 0;
  VanDerPolFn with(true), without(false);
  auto a = MakeIntegrator<double>("radau5");
  auto b = MakeIntegrator<double>("radau5");
  a->Initialize(2);
  b->Initialize(2);
  Integrate(a.get(), with, 50.0, &xa);
  Integrate(b.get(), without, 50.0, &xb);
  EXPECT_GT(with.calls, 0);
  EXPECT_EQ(without.calls, 0);
  EXPECT_LT((xa - xb).norm(), 1e-4);
  EXPECT_GT(a->statistics().jacobian_evaluations, 0);
  EXPECT_GT(a->statistics().lu_factorizations, 0);
  EXPECT_TRUE(a->is_implicit());
  // Differencing costs 2n evaluations per Jacobian.
  EXPECT_GT(b->statistics().derivative_evaluations,
            a->statistics().derivative_evaluations);
  a->mutable_settings().jacobian_scheme = JacobianScheme::kUserSupplied;
  a->Reset();
  VectorX<double> xc(2);
  xc << 2, 0;
  EXPECT_THROW(a->Step(without, 0.0, 1.0, &xc), std::invalid_argument);
}

TEST(IntegratorBaseTest, SecondOrderRulesNeedSecondOrderFunction) {
  auto verlet = MakeIntegrator<double>("velocity_verlet");
  EXPECT_TRUE(verlet->requires_second_order());
  verlet->InitializeSecondOrder(1, 1);
  verlet->mutable_settings().fixed_step = 0.01;
  Decay plain;
  VectorX<double> x(2);
  x << 1, 0;
  try {
    verlet->Step(plain, 0.0, 1.0, &x);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("SecondOrderOdeFunction"),
              std::string::npos);
  }
  PendulumFn pendulum;
  Integrate(verlet.get(), pendulum, 10.0, &x);
  EXPECT_NEAR(x(1) * x(1) / 2 - std::cos(x(0)), -std::cos(1.0), 1e-4);
  // The same function drives first-order rules as a stacked [qdot; vdot].
  auto rk4 = MakeIntegrator<double>("rk4");
  rk4->mutable_settings().fixed_step = 0.01;
  rk4->Initialize(2);
  VectorX<double> y(2);
  y << 1, 0;
  Integrate(rk4.get(), pendulum, 10.0, &y);
  EXPECT_LT((x - y).norm(), 1e-3);
}

TEST(IntegratorBaseTest, SemiImplicitEulerByNameHandlesStrongDamping) {
  PendulumFn pendulum;
  pendulum.damping = 1000;
  for (const char* name : {"semi_implicit_euler_v", "semi_explicit_euler"}) {
    auto integ = MakeIntegrator<double>(name);
    integ->InitializeSecondOrder(1, 1);
    integ->mutable_settings().fixed_step = 0.01;
    VectorX<double> x(2);
    x << 1, 0;
    bool threw = false;
    try {
      // |1 - h c| = 9 per step: overflow after ~330 steps.
      Integrate(integ.get(), pendulum, 5.0, &x);
    } catch (const std::runtime_error& e) {
      threw = true;
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos);
    }
    EXPECT_EQ(threw, std::string(name) == "semi_explicit_euler");
  }
}

TEST(IntegratorBaseTest, StepsDoNotAllocateAfterInitialize) {
  Kepler kepler;
  VanDerPolFn vdp(false);
  PendulumFn pendulum;
  struct Case {
    const char* name;
    OdeFunction<double>* f;
    VectorX<double> x;
  };
  VectorX<double> x4 = Kepler::Start(), x2(2);
  x2 << 2, 0;
  std::vector<Case> cases = {{"rk4", &kepler, x4},
                             {"bs3", &kepler, x4},
                             {"dopri5", &kepler, x4},
                             {"dop853", &kepler, x4},
                             {"radau5", &vdp, x2},
                             {"kaps_rentrop4", &vdp, x2},
                             {"rodas4", &vdp, x2},
                             {"implicit_euler", &vdp, x2},
                             {"implicit_trapezoid", &vdp, x2},
                             {"radau5_fixed", &vdp, x2},
                             {"velocity_verlet", &pendulum, x2},
                             {"semi_implicit_euler_v", &pendulum, x2},
                             {"semi_implicit_euler_q", &pendulum, x2}};
  for (auto& c : cases) {
    auto integ = MakeIntegrator<double>(c.name);
    integ->mutable_settings().fixed_step = 0.01;
    if (integ->requires_second_order()) {
      integ->InitializeSecondOrder(1, 1);
    } else {
      integ->Initialize(c.x.size());
    }
    double t = integ->Step(*c.f, 0.0, 1.0, &c.x);  // warm-up
    VectorX<double> xd(c.x.size());
    {
      test::ScopedAllocationCounter counter;
      for (int k = 0; k < 20 && t < 1.0; ++k)
        t = integ->Step(*c.f, t, 1.0, &c.x);
      if (integ->dense_output_order() > 0) integ->DenseOutput(t, &xd);
      EXPECT_EQ(counter.count(), 0) << c.name;
    }
  }
}

}  // namespace
}  // namespace tern
