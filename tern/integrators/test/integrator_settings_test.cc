// Bad settings throw at once, naming the setting and its value, instead of
// hanging or being silently reinterpreted (issue 12, item 8).
#include "tern/integrators/integrator_settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tern/integrators/embedded_rules.h"
#include "tern/integrators/error_control.h"
#include "tern/integrators/implicit_rules.h"
#include "tern/integrators/integrator_base.h"
#include "tern/integrators/rodas4.h"

namespace tern {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

class Decay final : public OdeFunction<double> {
 public:
  void Eval(const double&, const VectorX<double>& x,
            VectorX<double>* xd) override {
    *xd = -x;
  }
};

class Oscillator final : public SecondOrderOdeFunction<double> {
 public:
  Oscillator() : SecondOrderOdeFunction<double>(1, 1) {}
  void EvalQdot(const double&, ConstRef, ConstRef v, Ref qdot) override {
    qdot = v;
  }
  void EvalVdot(const double&, ConstRef q, ConstRef, Ref vdot) override {
    vdot = -q;
  }
};

// Runs `call` and expects std::invalid_argument whose message contains
// every one of `parts`.
void ExpectThrowNaming(const std::function<void()>& call,
                       const std::vector<std::string>& parts,
                       const std::string& context) {
  try {
    call();
    ADD_FAILURE() << context << ": no throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    for (const auto& part : parts) {
      EXPECT_NE(msg.find(part), std::string::npos)
          << context << ": '" << part << "' not in: " << msg;
    }
  }
}

const char* const kAdaptive[] = {
    "bs3",    "dopri5", "dop853",       "implicit_euler", "implicit_trapezoid",
    "radau5", "rodas4", "kaps_rentrop4"};
const char* const kFixedFirstOrder[] = {"euler",
                                        "rk2",
                                        "rk3",
                                        "rk4",
                                        "implicit_euler_fixed",
                                        "implicit_trapezoid_fixed",
                                        "radau5_fixed",
                                        "exponential"};

struct BadSetting {
  const char* setting;  // as named in the message
  std::function<void(IntegratorSettings*)> apply;
  const char* value;  // as printed in the message
};

std::vector<BadSetting> BadSettings() {
  return {
      {"rtol", [](IntegratorSettings* s) { s->rtol = kNaN; }, "nan"},
      {"rtol", [](IntegratorSettings* s) { s->rtol = -1e-6; }, "-1e-06"},
      {"rtol", [](IntegratorSettings* s) { s->rtol = kInf; }, "inf"},
      {"atol", [](IntegratorSettings* s) { s->atol = kNaN; }, "nan"},
      {"atol", [](IntegratorSettings* s) { s->atol = -1e-6; }, "-1e-06"},
      {"atol_per_component(1)",
       [](IntegratorSettings* s) {
         s->atol_per_component = Eigen::Vector2d(1e-6, kNaN);
       },
       "nan"},
      {"rtol and settings.atol",
       [](IntegratorSettings* s) { s->rtol = s->atol = 0; }, "all 0"},
      {"max_step", [](IntegratorSettings* s) { s->max_step = 0; }, "= 0"},
      {"max_step", [](IntegratorSettings* s) { s->max_step = -1; }, "-1"},
      {"max_step", [](IntegratorSettings* s) { s->max_step = kNaN; }, "nan"},
      {"initial_step", [](IntegratorSettings* s) { s->initial_step = kNaN; },
       "nan"},
      {"initial_step", [](IntegratorSettings* s) { s->initial_step = -1; },
       "-1"},
      {"initial_step", [](IntegratorSettings* s) { s->initial_step = kInf; },
       "inf"},
      {"min_step", [](IntegratorSettings* s) { s->min_step = kNaN; }, "nan"},
      {"min_step",
       [](IntegratorSettings* s) {
         s->max_step = 0.1;
         s->min_step = 0.5;
       },
       "exceeds settings.max_step = 0.1"},
      {"fixed_step", [](IntegratorSettings* s) { s->fixed_step = 0; }, "0"},
      {"fixed_step", [](IntegratorSettings* s) { s->fixed_step = kNaN; },
       "nan"},
      {"fixed_step", [](IntegratorSettings* s) { s->fixed_step = kInf; },
       "inf"},
      {"max_newton_iterations",
       [](IntegratorSettings* s) { s->max_newton_iterations = 0; }, "0"},
  };
}

TEST(IntegratorSettingsTest, DefaultsAreValid) {
  EXPECT_NO_THROW(ValidateSettings(IntegratorSettings{}, "test"));
  IntegratorSettings s;
  s.rtol = 0;  // pure absolute tolerance is fine
  s.max_step = kInf;
  s.initial_step = 0;
  EXPECT_NO_THROW(ValidateSettings(s, "test"));
}

TEST(IntegratorSettingsTest, MakeIntegratorRejectsEachBadSetting) {
  for (const BadSetting& bad : BadSettings()) {
    IntegratorSettings s;
    bad.apply(&s);
    ExpectThrowNaming(
        [&] { MakeIntegrator<double>("dopri5", s); },
        {"dopri5", std::string("settings.") + bad.setting, bad.value},
        bad.setting);
  }
}

// Settings changed after construction are checked at the next step, by
// every rule (before: max_step = 0 and NaN tolerances hung, negative
// tolerances were used as |tol|, a NaN initial step was ignored).
TEST(IntegratorSettingsTest, EveryAdaptiveRuleChecksAtEachStep) {
  for (const char* name : kAdaptive) {
    for (const BadSetting& bad : BadSettings()) {
      auto integrator = MakeIntegrator<double>(name);
      integrator->Initialize(2);
      bad.apply(&integrator->mutable_settings());
      Decay f;
      Eigen::VectorXd x = Eigen::Vector2d(1.0, 2.0);
      ExpectThrowNaming(
          [&] { integrator->Step(f, 0.0, 1.0, &x); },
          {name, std::string("settings.") + bad.setting, bad.value},
          std::string(name) + " " + bad.setting);
      EXPECT_EQ(x, Eigen::Vector2d(1.0, 2.0)) << name;
    }
  }
}

TEST(IntegratorSettingsTest, EveryFixedStepRuleChecksItsStep) {
  for (const char* name : kFixedFirstOrder) {
    for (double h : {0.0, -0.1, kNaN, kInf}) {
      auto integrator = MakeIntegrator<double>(name);
      integrator->Initialize(1);
      integrator->mutable_settings().fixed_step = h;
      Decay f;
      Eigen::VectorXd x = Eigen::VectorXd::Ones(1);
      ExpectThrowNaming([&] { integrator->Step(f, 0.0, 1.0, &x); },
                        {"settings.fixed_step", fmt::format("{}", h)}, name);
    }
  }
}

// h = 1e-17 at t = 1: t + h == t, so a step would never advance (before:
// AdvanceTo hung). The same step is fine at t = 0.
TEST(IntegratorSettingsTest, FixedStepBelowTimeResolutionThrows) {
  for (const char* name : kFixedFirstOrder) {
    auto integrator = MakeIntegrator<double>(name);
    integrator->Initialize(1);
    integrator->mutable_settings().fixed_step = 1e-17;
    Decay f;
    Eigen::VectorXd x = Eigen::VectorXd::Ones(1);
    EXPECT_EQ(integrator->Step(f, 0.0, 1.0, &x), 1e-17) << name;
    x.setOnes();
    ExpectThrowNaming(
        [&] { integrator->Step(f, 1.0, 2.0, &x); },
        {name, "settings.fixed_step = 1e-17", "t = 1", "time resolution"},
        name);
    EXPECT_EQ(x(0), 1.0) << name;
  }
  for (const char* name : {"velocity_verlet", "semi_explicit_euler",
                           "semi_implicit_euler_v", "semi_implicit_euler_q"}) {
    auto integrator = MakeIntegrator<double>(name);
    integrator->InitializeSecondOrder(1, 1);
    integrator->mutable_settings().fixed_step = 1e-17;
    Oscillator f;
    Eigen::VectorXd x = Eigen::Vector2d(1.0, 0.0);
    ExpectThrowNaming([&] { integrator->Step(f, 1.0, 2.0, &x); },
                      {"settings.fixed_step = 1e-17", "t = 1"}, name);
  }
  // A user of the template class directly.
  FixedStepIntegrator<RK4, double> rk4(1e-17);
  rk4.Initialize(1);
  Decay f;
  Eigen::VectorXd x = Eigen::VectorXd::Ones(1);
  ExpectThrowNaming([&] { rk4.Step(f, 1.0, 2.0, &x); },
                    {"rk4", "settings.fixed_step = 1e-17"}, "FixedStep rk4");
}

TEST(IntegratorSettingsTest, MaxOrInitialStepBelowTimeResolutionThrows) {
  for (const char* name : kAdaptive) {
    for (const char* setting : {"max_step", "initial_step"}) {
      auto integrator = MakeIntegrator<double>(name);
      integrator->Initialize(1);
      if (std::string(setting) == "max_step") {
        integrator->mutable_settings().min_step = 0;
        integrator->mutable_settings().max_step = 1e-17;
      } else {
        integrator->mutable_settings().initial_step = 1e-17;
      }
      Decay f;
      Eigen::VectorXd x = Eigen::VectorXd::Ones(1);
      ExpectThrowNaming(
          [&] { integrator->Step(f, 1.0, 2.0, &x); },
          {name, std::string("settings.") + setting + " = 1e-17", "t = 1"},
          std::string(name) + " " + setting);
    }
  }
}

// The template fast path checks the same way.
TEST(IntegratorSettingsTest, TemplateSteppersCheckTheirSettings) {
  auto f = [](double, const Eigen::Vector2d& x, Eigen::Vector2d* xd) {
    *xd = -x;
  };
  AdaptiveStepper<DormandPrince5, Eigen::Vector2d> dopri;
  dopri.mutable_settings().rtol = kNaN;
  Eigen::Vector2d x(1, 2);
  ExpectThrowNaming([&] { dopri.Step(f, 0.0, 1.0, &x); },
                    {"dopri5", "settings.rtol = nan"}, "AdaptiveStepper");
  RadauIIA5<Eigen::Vector2d> radau;
  radau.mutable_settings().max_step = 0;
  ExpectThrowNaming([&] { radau.StepAdaptive(f, 0.0, 1.0, &x); },
                    {"radau5", "settings.max_step = 0"}, "RadauIIA5");
  Rodas4<Eigen::Vector2d> rodas;
  rodas.mutable_settings().atol = -1e-8;
  ExpectThrowNaming([&] { rodas.StepAdaptive(f, 0.0, 1.0, &x); },
                    {"rodas4", "settings.atol = -1e-08"}, "Rodas4");
  EXPECT_EQ(x, Eigen::Vector2d(1, 2));
}

}  // namespace
}  // namespace tern
