#include "tern/systems/framework/evaluation_plan.h"

#include <gtest/gtest.h>

#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/test/test_systems.h"

namespace tern {
namespace {

// y = k u through an output kernel.
class KernelGain final : public LeafSystem<double> {
 public:
  KernelGain(double k, int size) : k_(k) {
    DeclareVectorInputPort("u", size);
    DeclareVectorOutputKernel<&KernelGain::Calc>("y", size);
  }

 private:
  static void Calc(const KernelGain& self, const Context<double>& context,
                   const KernelInputs<double>& u, double* y) {
    const int n = self.get_input_port(0).size();
    (void)context;
    for (int i = 0; i < n; ++i) y[i] = self.k_ * u[0][i];
  }
  double k_;
};

// Discrete state held at its value; y = xd (depends on discrete state only).
class Held final : public LeafSystem<double> {
 public:
  Held() {
    DeclareDiscreteState(VectorX<double>::Constant(1, 1.0));
    DeclareVectorOutputPort(
        "y", 1,
        [](const Context<double>& c, VectorX<double>* y) {
          *y = c.get_discrete_state_vector();
        },
        ticket::kXd);
  }
};

// x' = 2 * 3 * 0.5 * x through a chain of kernel and calc outputs.
std::unique_ptr<Diagram<double>> MakeChain() {
  DiagramBuilder<double> builder;
  auto* x = builder.AddSystem<test::TestIntegrator<double>>(1);
  auto* g1 = builder.AddSystem<KernelGain>(2.0, 1);
  auto* g2 = builder.AddSystem<test::TestGain<double>>(3.0, 1);
  auto* g3 = builder.AddSystem<KernelGain>(0.5, 1);
  builder.Connect(x->get_output_port(), g1->get_input_port());
  builder.Connect(g1->get_output_port(), g2->get_input_port());
  builder.Connect(g2->get_output_port(), g3->get_input_port());
  builder.Connect(g3->get_output_port(), x->get_input_port());
  return builder.Build();
}

TEST(EvaluationPlanTest, ReplaysKernelsAndCalcsInDependencyOrder) {
  auto diagram = MakeChain();
  auto context = diagram->CreateDefaultContext();
  context->SetTimeAndContinuousState(0.0, VectorX<double>::Constant(1, 1.0));
  internal::EvaluationPlan<double> plan;
  VectorX<double> xdot(1);
  plan.Record(*diagram, *context, &xdot);
  EXPECT_DOUBLE_EQ(xdot[0], 3.0);
  // Integrator output, two kernel gains, one calc gain.
  EXPECT_EQ(plan.num_steps(), 4);
  EXPECT_EQ(plan.num_kernel_steps(), 2);

  for (double x : {2.0, -0.25, 7.5}) {
    context->SetTimeAndContinuousState(0.1, VectorX<double>::Constant(1, x));
    plan.Eval(&xdot);
    EXPECT_DOUBLE_EQ(xdot[0], 3.0 * x);
    // The plan left the cache fresh: pulled outputs agree with a clone's.
    auto clone = context->Clone();
    VectorX<double> pulled(1);
    diagram->CalcTimeDerivatives(*clone, &pulled);
    EXPECT_DOUBLE_EQ(pulled[0], xdot[0]);
    const auto& g3 = *diagram->leaves()[3];
    EXPECT_DOUBLE_EQ(
        g3.get_output_port(0).Eval(diagram->leaf_context(*context, 3))[0],
        3.0 * x);
  }
}

TEST(EvaluationPlanTest, PrepareRefreshesOutputsKernelsReadDirectly) {
  DiagramBuilder<double> builder;
  auto* held = builder.AddSystem<Held>();
  auto* gain = builder.AddSystem<KernelGain>(4.0, 1);
  auto* x = builder.AddSystem<test::TestIntegrator<double>>(1);
  builder.Connect(held->get_output_port(), gain->get_input_port());
  builder.Connect(gain->get_output_port(), x->get_input_port());
  auto diagram = builder.Build();
  auto context = diagram->CreateDefaultContext();
  internal::EvaluationPlan<double> plan;
  VectorX<double> xdot(1);
  context->SetTimeAndContinuousState(0.0, VectorX<double>::Zero(1));
  plan.Record(*diagram, *context, &xdot);
  EXPECT_DOUBLE_EQ(xdot[0], 4.0);
  // The held output depends on discrete state only: outside the plan, read
  // by the kernel through a pointer that Prepare() refreshes.
  EXPECT_EQ(plan.num_steps(), 1);
  EXPECT_EQ(plan.num_kernel_steps(), 1);

  Context<double>& held_ctx = diagram->mutable_leaf_context(context.get(), 0);
  held_ctx.SetDiscreteState(0, VectorX<double>::Constant(1, -2.5));
  context->SetTimeAndContinuousState(0.5, VectorX<double>::Zero(1));
  plan.Prepare();
  plan.Eval(&xdot);
  EXPECT_DOUBLE_EQ(xdot[0], -10.0);
}

TEST(EvaluationPlanTest, KernelOutputsWorkWithoutAPlan) {
  KernelGain gain(-3.0, 2);
  auto context = gain.CreateDefaultContext();
  gain.get_input_port(0).FixValue(context.get(), Eigen::Vector2d(1.0, 2.0));
  const auto& y = gain.get_output_port(0).Eval(*context);
  EXPECT_DOUBLE_EQ(y[0], -3.0);
  EXPECT_DOUBLE_EQ(y[1], -6.0);
  EXPECT_NE(gain.get_output_port(0).kernel(), nullptr);
}

TEST(EvaluationPlanTest, FixedInputsFeedKernelsDirectly) {
  DiagramBuilder<double> builder;
  auto* gain = builder.AddSystem<KernelGain>(2.0, 1);
  auto* x = builder.AddSystem<test::TestIntegrator<double>>(1);
  builder.ExportInput(gain->get_input_port(), "u");
  builder.Connect(gain->get_output_port(), x->get_input_port());
  auto diagram = builder.Build();
  auto context = diagram->CreateDefaultContext();
  diagram->get_input_port(0).FixValue(context.get(), 1.5);
  internal::EvaluationPlan<double> plan;
  VectorX<double> xdot(1);
  context->SetTimeAndContinuousState(0.0, VectorX<double>::Zero(1));
  plan.Record(*diagram, *context, &xdot);
  EXPECT_EQ(plan.num_kernel_steps(), 1);
  diagram->get_input_port(0).FixValue(context.get(), -4.0);
  context->SetTimeAndContinuousState(0.1, VectorX<double>::Zero(1));
  plan.Prepare();
  plan.Eval(&xdot);
  EXPECT_DOUBLE_EQ(xdot[0], -8.0);
}

}  // namespace
}  // namespace tern
