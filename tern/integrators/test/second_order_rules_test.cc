#include "tern/integrators/second_order_rules.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tern/integrators/explicit_rules.h"
#include "tern/integrators/integrator_base.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using Vec1 = Eigen::Matrix<double, 1, 1>;
using Vec2 = Eigen::Matrix<double, 2, 1>;

// Frictionless pendulum q'' = -sin q (N = I).
struct Pendulum {
  template <typename S, typename Q, typename V>
  void Qdot(const S&, const Q&, const V& v, Q* qd) const {
    (*qd)(0) = v(0);
  }
  template <typename S, typename Q, typename V, typename Out>
  void Vdot(const S&, const Q& q, const V& v, Out* a) const {
    using std::sin;
    (*a)(0) = -sin(q(0)) + 0 * v(0);
  }
  static double Energy(double q, double v) { return v * v / 2 - std::cos(q); }
};

// A nonlinear second-order system with velocity-dependent forces and a
// configuration-dependent N(q): qdot = (1 + q^2/4) v,
// vdot = -q - 0.3 v |v| - 0.5 v.
struct Nonlinear {
  template <typename S, typename Q, typename V, typename Out>
  void Qdot(const S&, const Q& q, const V& v, Out* qd) const {
    (*qd)(0) = (1 + q(0) * q(0) / 4) * v(0);
  }
  template <typename S, typename Q, typename V, typename Out>
  void Vdot(const S&, const Q& q, const V& v, Out* a) const {
    using std::abs;
    (*a)(0) = -q(0) - 0.3 * v(0) * abs(v(0)) - 0.5 * v(0);
  }
};

// Reference: RK4 on the stacked first-order system with a tiny step.
Vec2 NonlinearReference(double tf) {
  RK4<Vec2> rk4;
  Vec2 x(1.0, 0.5);
  Nonlinear sys;
  auto f = [&](double t, const Vec2& xx, Vec2* xd) {
    Vec1 q(xx(0)), v(xx(1)), qd, a;
    sys.Qdot(t, q, v, &qd);
    sys.Vdot(t, q, v, &a);
    *xd << qd(0), a(0);
  };
  const int n = 20000;
  for (int k = 0; k < n; ++k) rk4.Step(f, k * tf / n, tf / n, &x);
  return x;
}

template <template <typename, typename> class Rule>
double Error(int n, double tf, const Vec2& ref) {
  Rule<Vec1, Vec1> rule;
  Vec1 q(1.0), v(0.5);
  const double h = tf / n;
  for (int k = 0; k < n; ++k) rule.Step(Nonlinear{}, k * h, h, &q, &v);
  return std::max(std::abs(q(0) - ref(0)), std::abs(v(0) - ref(1)));
}

template <template <typename, typename> class Rule>
double ObservedOrder() {
  const double tf = 2.0;
  const Vec2 ref = NonlinearReference(tf);
  return std::log2(Error<Rule>(100, tf, ref) / Error<Rule>(200, tf, ref));
}

TEST(SecondOrderRulesTest, ObservedOrders) {
  EXPECT_NEAR(ObservedOrder<SemiExplicitEuler>(), 1.0, 0.2);
  EXPECT_NEAR(ObservedOrder<SemiImplicitEulerV>(), 1.0, 0.2);
  EXPECT_NEAR(ObservedOrder<SemiImplicitEulerQ>(), 1.0, 0.2);
  EXPECT_NEAR(ObservedOrder<VelocityVerlet>(), 2.0, 0.2);
}

// 10^6 steps of h = 0.1 on the pendulum (amplitude ~ 115 degrees): the
// symplectic rules keep the energy error bounded (O(h) resp. O(h^2), no
// drift); RK4 at the same step dissipates energy steadily.
TEST(SecondOrderRulesTest, SymplecticEnergyBoundedWhereRK4Drifts) {
  const int n = 1000000;
  const double h = 0.1;
  const double q0 = 2.0, v0 = 0.0;
  const double e0 = Pendulum::Energy(q0, v0);
  Pendulum sys;

  // Largest energy error over the first 10^4 steps and over all 10^6.
  auto run_second_order = [&](auto rule) {
    Vec1 q(q0), v(v0);
    double max_early = 0, max_all = 0;
    for (int k = 0; k < n; ++k) {
      rule.Step(sys, k * h, h, &q, &v);
      if (k % 16 == 0) {
        const double e = std::abs(Pendulum::Energy(q(0), v(0)) - e0);
        max_all = std::max(max_all, e);
        if (k < 10000) max_early = max_all;
      }
    }
    return std::make_pair(max_early, max_all);
  };
  const auto [verlet_early, verlet_all] =
      run_second_order(VelocityVerlet<Vec1>());
  const auto [euler_early, euler_all] =
      run_second_order(SemiExplicitEuler<Vec1>());

  RK4<Vec2> rk4;
  Vec2 x(q0, v0);
  auto f = [](double, const Vec2& xx, Vec2* xd) {
    *xd << xx(1), -std::sin(xx(0));
  };
  double rk4_early = 0;
  for (int k = 0; k < n; ++k) {
    rk4.Step(f, k * h, h, &x);
    if (k == 10000) rk4_early = std::abs(Pendulum::Energy(x(0), x(1)) - e0);
  }
  const double rk4_end = std::abs(Pendulum::Energy(x(0), x(1)) - e0);

  // Bounded: O(h^2) for Verlet, O(h) for symplectic Euler, and no growth
  // from the first 10^4 steps to 10^6.
  EXPECT_LT(verlet_all, 0.05);
  EXPECT_LT(euler_all, 0.3);
  EXPECT_LT(verlet_all, 1.2 * verlet_early);
  EXPECT_LT(euler_all, 1.2 * euler_early);
  // RK4 at the same step drifts: its error grows ~100x from 10^4 to 10^6
  // steps (linearly in time).
  EXPECT_GT(rk4_end, 50 * rk4_early);
}

// Strongly damped oscillator q'' = -q - c q' with c = 1000, h = 0.01
// (h c = 10): the gaming form and form 1 (explicit in v) blow up, the form
// implicit in v is stable and decays.
struct Damped {
  double c = 1000;
  template <typename S, typename Q, typename V, typename Out>
  void Qdot(const S&, const Q&, const V& v, Out* qd) const {
    (*qd)(0) = v(0);
  }
  template <typename S, typename Q, typename V, typename Out>
  void Vdot(const S&, const Q& q, const V& v, Out* a) const {
    (*a)(0) = -q(0) - c * v(0);
  }
};

template <typename Rule>
double DampedFinalMagnitude(Rule rule) {
  Vec1 q(1.0), v(0.0);
  const double h = 0.01;
  for (int k = 0; k < 200; ++k) rule.Step(Damped{}, k * h, h, &q, &v);
  return std::abs(q(0)) + std::abs(v(0));
}

TEST(SecondOrderRulesTest, ImplicitVelocityFormStableUnderStrongDamping) {
  const double implicit_v = DampedFinalMagnitude(SemiImplicitEulerV<Vec1>());
  EXPECT_LT(implicit_v, 1.0);
  // Exact solution decays like exp(-t / c): q(2) ~ 0.998.
  EXPECT_NEAR(implicit_v, std::exp(-2.0 / 1000), 0.01);
  const double gaming = DampedFinalMagnitude(SemiExplicitEuler<Vec1>());
  EXPECT_FALSE(gaming < 1e6);  // diverged (or inf / nan)
  const double form1 = DampedFinalMagnitude(SemiImplicitEulerQ<Vec1>());
  EXPECT_FALSE(form1 < 1e6);
}

// Jacobian sources: user-supplied, autodiff, central differences.
struct DampedWithJacobian : Damped {
  mutable int calls = 0;
  bool VdotJacobianV(const double&, const Vec1&, const Vec1&,
                     Eigen::Matrix<double, 1, 1>* J) const {
    ++calls;
    (*J)(0, 0) = -c;
    return true;
  }
};
struct DampedDoubleOnly {
  void Qdot(double, const Vec1&, const Vec1& v, Vec1* qd) const { *qd = v; }
  void Vdot(double, const Vec1& q, const Vec1& v, Vec1* a) const {
    (*a)(0) = -q(0) - 1000 * v(0);
  }
};

TEST(SecondOrderRulesTest, JacobianSourcesAgree) {
  auto run = [](auto sys) {
    SemiImplicitEulerV<Vec1> rule;
    Vec1 q(1.0), v(0.0);
    for (int k = 0; k < 10; ++k) rule.Step(sys, k * 0.01, 0.01, &q, &v);
    return Vec2(q(0), v(0));
  };
  const Vec2 a = run(Damped{});
  const Vec2 b = run(DampedWithJacobian{});
  const Vec2 c = run(DampedDoubleOnly{});
  EXPECT_LT((a - b).norm(), 1e-12);
  EXPECT_LT((a - c).norm(), 1e-9);
}

// q1 = q0 + h N(q1) v0 with N depending on q: Newton on q converges and
// matches the fixed point.
TEST(SecondOrderRulesTest, ImplicitPositionFormSolvesFixedPoint) {
  SemiImplicitEulerQ<Vec1> rule;
  Vec1 q(1.0), v(0.5);
  const double h = 0.1;
  rule.Step(Nonlinear{}, 0.0, h, &q, &v);
  EXPECT_NEAR(q(0), 1.0 + h * (1 + q(0) * q(0) / 4) * 0.5, 1e-12);
  EXPECT_GT(rule.newton_iterations(), 0);
}

// vdot = -1e6 v^3: stiff and nonlinear in v.
struct Cubic {
  template <typename S, typename Q, typename V, typename Out>
  void Qdot(const S&, const Q&, const V& v, Out* qd) const {
    (*qd)(0) = v(0);
  }
  template <typename S, typename Q, typename V, typename Out>
  void Vdot(const S&, const Q&, const V& v, Out* a) const {
    (*a)(0) = -1e6 * v(0) * v(0) * v(0);
  }
};

TEST(SecondOrderRulesTest, NewtonFailureNamesRuleAndLeavesStateUnchanged) {
  // vdot = -v^3 * 1e6 with a huge step: Newton with max 1 iteration fails.
  SemiImplicitEulerV<Vec1> rule;
  rule.set_max_newton_iterations(1);
  Vec1 q(0.0), v(1.0);
  try {
    rule.Step(Cubic{}, 0.5, 1.0, &q, &v);
    FAIL();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("semi_implicit_euler_v"), std::string::npos) << msg;
    EXPECT_NE(msg.find("t = 0.5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("h = 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("component 0"), std::string::npos) << msg;
  }
  EXPECT_EQ(q(0), 0.0);
  EXPECT_EQ(v(0), 1.0);
}

// The Verlet step as it was before the acceleration was reused (three vdot
// evaluations per step): the reference for the one-evaluation form.
template <typename Vec>
struct ThreeEvaluationVerlet {
  Vec qd, qm, a, vh, vt;
  template <typename Sys>
  void Step(const Sys& sys, double t, double h, Vec* q, Vec* v) {
    const double h2 = h / 2;
    sys.Vdot(t, *q, *v, &a);
    vh = *v + h2 * a;
    sys.Qdot(t, *q, vh, &qd);
    qm = *q + h2 * qd;
    sys.Qdot(t + h2, qm, vh, &qd);
    *q += h * qd;
    sys.Vdot(t + h, *q, vh, &a);
    vt = vh + h2 * a;
    sys.Vdot(t + h, *q, vt, &a);
    *v = vh + h2 * a;
  }
};

// Counts vdot evaluations of a model.
template <class Sys>
struct Counting {
  Sys sys;
  mutable int vdots = 0;
  template <typename S, typename Q, typename V, typename Out>
  void Qdot(const S& t, const Q& q, const V& v, Out* qd) const {
    sys.Qdot(t, q, v, qd);
  }
  template <typename S, typename Q, typename V, typename Out>
  void Vdot(const S& t, const Q& q, const V& v, Out* a) const {
    ++vdots;
    sys.Vdot(t, q, v, a);
  }
};

// Position-dependent forces with a configuration-dependent N(q):
// qdot = (1 + q^2/4) v, vdot = -q.
struct CurvedSpring {
  template <typename S, typename Q, typename V, typename Out>
  void Qdot(const S&, const Q& q, const V& v, Out* qd) const {
    (*qd)(0) = (1 + q(0) * q(0) / 4) * v(0);
  }
  template <typename S, typename Q, typename V, typename Out>
  void Vdot(const S&, const Q& q, const V&, Out* a) const {
    (*a)(0) = -q(0);
  }
};

template <class Sys>
void CheckVerletReusesVdot() {
  const int n = 2000;
  const double h = 0.05;
  Counting<Sys> once, thrice;
  VelocityVerlet<Vec1> verlet;
  ThreeEvaluationVerlet<Vec1> reference;
  Vec1 q(1.2), v(-0.3), q_ref(1.2), v_ref(-0.3);
  // Each step starts at the time the last one reached (t + h), as the
  // run-time drivers do; reuse needs the same t, q and v.
  double t = 0;
  for (int k = 0; k < n; ++k) {
    verlet.Step(once, t, h, &q, &v);
    reference.Step(thrice, t, h, &q_ref, &v_ref);
    t += h;
    ASSERT_EQ(q(0), q_ref(0)) << "step " << k;
    ASSERT_EQ(v(0), v_ref(0)) << "step " << k;
  }
  EXPECT_EQ(thrice.vdots, 3 * n);
  EXPECT_EQ(once.vdots, n + 1);
  // A step from anywhere else evaluates afresh, as does one after Reset().
  Vec1 q2(0.5), v2(0.1);
  verlet.Step(once, t, h, &q2, &v2);
  EXPECT_EQ(once.vdots, n + 3);
  t += h;
  verlet.Reset();
  verlet.Step(once, t, h, &q2, &v2);
  EXPECT_EQ(once.vdots, n + 5);
}

// Same numbers as the three-evaluation step, bit for bit, for forces that
// depend on q only; one vdot per step after the first.
TEST(SecondOrderRulesTest, VerletEvaluatesVdotOncePerStep) {
  CheckVerletReusesVdot<Pendulum>();
  CheckVerletReusesVdot<CurvedSpring>();
}

// The run-time integrator counts one evaluation per step too.
TEST(SecondOrderRulesTest, VerletIntegratorEvaluatesVdotOncePerStep) {
  class Spring final : public SecondOrderOdeFunction<double> {
   public:
    Spring() : SecondOrderOdeFunction<double>(1, 1) {}
    void EvalQdot(const double&, ConstRef, ConstRef v, Ref qdot) override {
      qdot = v;
    }
    void EvalVdot(const double&, ConstRef q, ConstRef, Ref vdot) override {
      vdot = -q;
    }
  } spring;
  auto verlet = MakeIntegrator<double>("velocity_verlet");
  verlet->InitializeSecondOrder(1, 1);
  verlet->mutable_settings().fixed_step = 0.01;
  Eigen::VectorXd x = Eigen::Vector2d(1.0, 0.0);
  double t = 0;
  for (int k = 0; k < 100; ++k) t = verlet->Step(spring, t, 10.0, &x);
  EXPECT_EQ(verlet->statistics().derivative_evaluations, 101);
  EXPECT_NEAR(x(0), std::cos(t), 1e-5);
  verlet->Reset();
  t = verlet->Step(spring, t, 10.0, &x);
  EXPECT_EQ(verlet->statistics().derivative_evaluations, 103);
}

TEST(SecondOrderRulesTest, FixedSizeStepsDoNotAllocate) {
  SemiExplicitEuler<Vec1> a;
  SemiImplicitEulerV<Vec1> b;
  SemiImplicitEulerQ<Vec1> c;
  VelocityVerlet<Vec1> d;
  Vec1 q(1.0), v(0.5);
  test::ScopedAllocationCounter counter;
  a.Step(Nonlinear{}, 0.0, 0.01, &q, &v);
  b.Step(Nonlinear{}, 0.0, 0.01, &q, &v);
  c.Step(Nonlinear{}, 0.0, 0.01, &q, &v);
  d.Step(Nonlinear{}, 0.0, 0.01, &q, &v);
  EXPECT_EQ(counter.count(), 0);
}

}  // namespace
}  // namespace tern
