// Scalar kernels (LeafSystem::DeclareScalarOutputKernel and
// DeclareScalarTimeDerivativesKernel): the evaluation plan hands values
// between them in registers, in chains; results must equal a pulled
// evaluation whatever the wiring.
#include <gtest/gtest.h>

#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/evaluation_plan.h"
#include "tern/systems/framework/test/test_systems.h"

namespace tern {
namespace {

// y = a u0 + b u1 + c through a scalar kernel: asymmetric in u0 and u1, so
// swapped inputs show.
class Affine2 final : public LeafSystem<double> {
 public:
  Affine2(double a, double b, double c) : a_(a), b_(b), c_(c) {
    DeclareVectorInputPort("u0", 1);
    DeclareVectorInputPort("u1", 1);
    DeclareScalarOutputKernel<&Affine2::Calc>("y");
  }

 private:
  static double Calc(const Affine2& self, const Context<double>&, double u0,
                     double u1) {
    return self.a_ * u0 + self.b_ * u1 + self.c_;
  }
  double a_, b_, c_;
};

// y = k u through a scalar kernel (one input: u1 reads zero).
class ScalarGain final : public LeafSystem<double> {
 public:
  explicit ScalarGain(double k) : k_(k) {
    DeclareVectorInputPort("u", 1);
    DeclareScalarOutputKernel<&ScalarGain::Calc>("y");
  }

 private:
  static double Calc(const ScalarGain& self, const Context<double>&, double u0,
                     double u1) {
    return self.k_ * u0 + u1;
  }
  double k_;
};

// x' = u0 - 2 u1 through a scalar derivative kernel; y = x.
class ScalarIntegrator final : public LeafSystem<double> {
 public:
  ScalarIntegrator() {
    DeclareContinuousState(1);
    DeclareVectorInputPort("u0", 1);
    DeclareVectorInputPort("u1", 1);
    DeclareScalarOutputKernel<&ScalarIntegrator::Output>("y", ticket::kXc);
    DeclareScalarTimeDerivativesKernel<&ScalarIntegrator::Derivative>();
  }

 private:
  static double Output(const ScalarIntegrator&, const Context<double>& c,
                       double, double) {
    return c.get_continuous_state_vector()[0];
  }
  static double Derivative(const ScalarIntegrator&, const Context<double>&,
                           double u0, double u1) {
    return u0 - 2 * u1;
  }
};

// Every way a scalar step can take its inputs: both from the previous
// output, u0 only, u1 only, neither; a calc output and a vector input
// between scalar kernels; derivatives reading the last output as u0 or u1.
std::unique_ptr<Diagram<double>> MakeTangle() {
  DiagramBuilder<double> builder;
  auto* x1 = builder.AddSystem<ScalarIntegrator>();
  auto* x2 = builder.AddSystem<ScalarIntegrator>();
  auto* g = builder.AddSystem<ScalarGain>(1.5);
  auto* both = builder.AddSystem<Affine2>(2.0, -0.5, 0.25);    // (g, g)
  auto* second = builder.AddSystem<Affine2>(0.75, 3.0, -1.0);  // (x2, both)
  auto* calc = builder.AddSystem<test::TestGain<double>>(-2.0, 1);
  auto* after = builder.AddSystem<Affine2>(1.25, 0.5, 0.0);  // (calc, x1)
  builder.Connect(x1->get_output_port(), g->get_input_port());
  builder.Connect(g->get_output_port(), both->get_input_port(0));
  builder.Connect(g->get_output_port(), both->get_input_port(1));
  builder.Connect(x2->get_output_port(), second->get_input_port(0));
  builder.Connect(both->get_output_port(), second->get_input_port(1));
  builder.Connect(second->get_output_port(), calc->get_input_port());
  builder.Connect(calc->get_output_port(), after->get_input_port(0));
  builder.Connect(x1->get_output_port(), after->get_input_port(1));
  builder.Connect(after->get_output_port(), x1->get_input_port(0));
  builder.Connect(second->get_output_port(), x1->get_input_port(1));
  builder.Connect(g->get_output_port(), x2->get_input_port(0));
  builder.Connect(after->get_output_port(), x2->get_input_port(1));
  return builder.Build();
}

TEST(ScalarKernelTest, PlanMatchesPulledEvaluationForEveryWiring) {
  auto diagram = MakeTangle();
  auto context = diagram->CreateDefaultContext();
  internal::EvaluationPlan<double> plan;
  VectorX<double> xdot(2), pulled(2);
  context->SetTimeAndContinuousState(0.0, Eigen::Vector2d(0.3, -0.7));
  plan.Record(*diagram, *context, &xdot);
  EXPECT_GE(plan.num_kernel_steps(), 5);
  for (const Eigen::Vector2d& x :
       {Eigen::Vector2d(1.0, 2.0), Eigen::Vector2d(-0.4, 0.9),
        Eigen::Vector2d(3.5, -1.25)}) {
    context->SetTimeAndContinuousState(0.1, x);
    plan.Eval(&xdot);
    auto clone = context->Clone();
    diagram->CalcTimeDerivatives(*clone, &pulled);
    EXPECT_EQ(xdot, pulled) << "x = " << x.transpose();
    // By hand: g = 1.5 x1; both = 1.5 g + 0.25; second = 0.75 x2 + 3 both
    // - 1; calc = -2 second; after = 1.25 calc + 0.5 x1.
    const double g = 1.5 * x[0];
    const double both = 2.0 * g - 0.5 * g + 0.25;
    const double second = 0.75 * x[1] + 3.0 * both - 1.0;
    const double after = 1.25 * (-2.0 * second) + 0.5 * x[0];
    EXPECT_DOUBLE_EQ(xdot[0], after - 2 * second);
    EXPECT_DOUBLE_EQ(xdot[1], g - 2 * after);
    // Outputs the plan computed read fresh through their ports.
    const int after_index = 6;
    EXPECT_DOUBLE_EQ(diagram->leaves()[after_index]->get_output_port(0).Eval(
                         diagram->leaf_context(*context, after_index))[0],
                     after);
  }
}

TEST(ScalarKernelTest, ScalarKernelsWorkWithoutAPlan) {
  Affine2 affine(2.0, -3.0, 0.5);
  auto context = affine.CreateDefaultContext();
  affine.get_input_port(0).FixValue(context.get(), 1.0);
  affine.get_input_port(1).FixValue(context.get(), 4.0);
  EXPECT_DOUBLE_EQ(affine.get_output_port(0).Eval(*context)[0], -9.5);
  EXPECT_NE(affine.get_output_port(0).scalar_kernel(), nullptr);
}

// A scalar kernel on a system whose inputs do not suit one.
class BadScalar final : public LeafSystem<double> {
 public:
  enum class Case { kThreeInputs, kWideInput, kInputAfter, kTwoStates };
  explicit BadScalar(Case c) {
    set_name("bad");
    if (c == Case::kThreeInputs) {
      for (const char* n : {"a", "b", "c"}) DeclareVectorInputPort(n, 1);
    }
    if (c == Case::kWideInput) DeclareVectorInputPort("wide", 2);
    if (c == Case::kTwoStates) {
      DeclareContinuousState(2);
      DeclareScalarTimeDerivativesKernel<&BadScalar::Calc>();
    }
    DeclareScalarOutputKernel<&BadScalar::Calc>("y");
    if (c == Case::kInputAfter) DeclareVectorInputPort("late", 3);
  }

 private:
  static double Calc(const BadScalar&, const Context<double>&, double u0,
                     double) {
    return u0;
  }
};

TEST(ScalarKernelTest, RejectsSystemsWhoseInputsDoNotSuitOne) {
  const auto message = [](BadScalar::Case c) {
    try {
      BadScalar bad(c);
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message(BadScalar::Case::kThreeInputs).find("at most two input"),
            std::string::npos);
  EXPECT_NE(message(BadScalar::Case::kWideInput).find("input 'wide'"),
            std::string::npos);
  EXPECT_NE(message(BadScalar::Case::kInputAfter).find("input 'late'"),
            std::string::npos);
  EXPECT_NE(message(BadScalar::Case::kInputAfter).find("output 'y'"),
            std::string::npos);
  EXPECT_NE(message(BadScalar::Case::kTwoStates)
                .find("exactly one continuous state; the system has 2"),
            std::string::npos);
}

}  // namespace
}  // namespace tern
