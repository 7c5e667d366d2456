#include "tern/systems/framework/diagram_builder.h"

#include <gtest/gtest.h>

#include <string>

#include "tern/common/autodiff.h"
#include "tern/systems/framework/test/test_systems.h"

namespace tern {
namespace {

using test::TestGain;
using test::TestIntegrator;
using test::TestSource;

std::string MessageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(DiagramBuilderTest, SizeMismatchNamesBothPorts) {
  DiagramBuilder<double> builder;
  auto* a = builder.AddNamedSystem<TestGain<double>>("a", 1.0, 2);
  auto* b = builder.AddNamedSystem<TestGain<double>>("b", 1.0, 3);
  const std::string msg = MessageOf(
      [&] { builder.Connect(a->get_output_port(), b->get_input_port()); });
  EXPECT_TRUE(Contains(msg, "output port 'y' of system 'a' has size 2")) << msg;
  EXPECT_TRUE(Contains(msg, "input port 'u' of system 'b' has size 3")) << msg;
}

TEST(DiagramBuilderTest, InputConnectedTwiceIsRejected) {
  DiagramBuilder<double> builder;
  auto* a =
      builder.AddNamedSystem<TestSource<double>>("a", VectorX<double>::Ones(1));
  auto* b =
      builder.AddNamedSystem<TestSource<double>>("b", VectorX<double>::Ones(1));
  auto* g = builder.AddNamedSystem<TestGain<double>>("g", 1.0, 1);
  builder.Connect(a->get_output_port(), g->get_input_port());
  const std::string msg = MessageOf(
      [&] { builder.Connect(b->get_output_port(), g->get_input_port()); });
  EXPECT_TRUE(Contains(msg,
                       "input port 'u' of system 'g' is already connected "
                       "to output port 'y' of system 'a'"))
      << msg;
  EXPECT_THROW(builder.ExportInput(g->get_input_port()), std::invalid_argument);
}

TEST(DiagramBuilderTest, TypeMismatchIsRejected) {
  class AbstractOut final : public LeafSystem<double> {
   public:
    AbstractOut() {
      DeclareAbstractOutputPort(
          "s", Value<std::string>(),
          [](const Context<double>&, AbstractValue*) {}, ticket::kNothing);
    }
  };
  DiagramBuilder<double> builder;
  auto* s = builder.AddNamedSystem<AbstractOut>("s");
  auto* g = builder.AddNamedSystem<TestGain<double>>("g", 1.0, 1);
  const std::string msg = MessageOf(
      [&] { builder.Connect(s->get_output_port(), g->get_input_port()); });
  EXPECT_TRUE(
      Contains(msg, "is abstract but input port 'u' of system 'g' is a vector"))
      << msg;
}

TEST(DiagramBuilderTest, AlgebraicLoopListsTheCycle) {
  DiagramBuilder<double> builder;
  auto* a = builder.AddNamedSystem<TestGain<double>>("a", 1.0, 1);
  auto* b = builder.AddNamedSystem<TestGain<double>>("b", 1.0, 1);
  builder.Connect(a->get_output_port(), b->get_input_port());
  builder.Connect(b->get_output_port(), a->get_input_port());
  const std::string msg = MessageOf([&] { builder.Build(); });
  EXPECT_TRUE(Contains(msg, "algebraic loop")) << msg;
  EXPECT_TRUE(Contains(msg, "a.y -> b.u -> b.y -> a.u -> a.y")) << msg;
}

TEST(DiagramBuilderTest, LoopThroughAnIntegratorIsFine) {
  DiagramBuilder<double> builder;
  auto* k = builder.AddNamedSystem<TestGain<double>>("k", -1.0, 1);
  auto* x = builder.AddNamedSystem<TestIntegrator<double>>("x", 1);
  builder.Connect(k->get_output_port(), x->get_input_port());
  builder.Connect(x->get_output_port(), k->get_input_port());
  auto diagram = builder.Build();
  auto context = diagram->CreateDefaultContext();
  context->SetContinuousState(VectorX<double>::Constant(1, 2.0));
  VectorX<double> xdot(1);
  diagram->CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot[0], -2.0);
}

TEST(DiagramBuilderTest, DuplicateNamesAreRejected) {
  DiagramBuilder<double> builder;
  builder.AddNamedSystem<TestGain<double>>("same", 1.0, 1);
  builder.AddNamedSystem<TestGain<double>>("same", 1.0, 1);
  const std::string msg = MessageOf([&] { builder.Build(); });
  EXPECT_TRUE(Contains(msg, "two systems are named 'same'")) << msg;
}

TEST(DiagramBuilderTest, UnnamedSystemsGetDistinctNames) {
  DiagramBuilder<double> builder;
  auto* a = builder.AddSystem<TestGain<double>>(1.0, 1);
  auto* b = builder.AddSystem<TestGain<double>>(1.0, 1);
  EXPECT_NE(a->get_name(), b->get_name());
  EXPECT_TRUE(Contains(a->get_name(), "TestGain"));
  EXPECT_NO_THROW(builder.Build());
}

TEST(DiagramBuilderTest, PortsOfForeignSystemsAreRejected) {
  DiagramBuilder<double> builder;
  TestGain<double> outsider(1.0, 1);
  outsider.set_name("outsider");
  auto* g = builder.AddNamedSystem<TestGain<double>>("g", 1.0, 1);
  const std::string msg = MessageOf([&] {
    builder.Connect(outsider.get_output_port(), g->get_input_port());
  });
  EXPECT_TRUE(Contains(msg, "'outsider' was not added to this builder")) << msg;
}

TEST(DiagramBuilderTest, ExportedInputFansOutAndFeedthroughIsComputed) {
  DiagramBuilder<double> builder;
  auto* a = builder.AddNamedSystem<TestGain<double>>("a", 2.0, 1);
  auto* b = builder.AddNamedSystem<TestGain<double>>("b", 3.0, 1);
  auto* x = builder.AddNamedSystem<TestIntegrator<double>>("x", 1);
  builder.ExportInput(a->get_input_port(), "u");
  builder.ExportInput(b->get_input_port(), "u");
  builder.Connect(b->get_output_port(), x->get_input_port());
  builder.ExportOutput(a->get_output_port(), "ya");
  builder.ExportOutput(x->get_output_port(), "yx");
  auto diagram = builder.Build();
  ASSERT_EQ(diagram->num_input_ports(), 1);
  EXPECT_TRUE(diagram->HasDirectFeedthrough(0, 0));
  EXPECT_FALSE(diagram->HasDirectFeedthrough(0, 1));
  auto context = diagram->CreateDefaultContext();
  diagram->get_input_port(0).FixValue(context.get(), 5.0);
  EXPECT_EQ(diagram->get_output_port("ya").Eval(*context)[0], 10.0);
  VectorX<double> xdot(1);
  diagram->CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot[0], 15.0);
  // The leaf's own port is exported, so it cannot be fixed directly.
  auto& a_ctx = a->GetMyMutableContextFromRoot(context.get());
  EXPECT_THROW(a->get_input_port().FixValue(&a_ctx, 1.0), std::logic_error);
}

TEST(DiagramBuilderTest, NestedDiagramsAreFlattened) {
  DiagramBuilder<double> inner_builder;
  auto* g = inner_builder.AddNamedSystem<TestGain<double>>("g", 2.0, 1);
  inner_builder.ExportInput(g->get_input_port(), "in");
  inner_builder.ExportOutput(g->get_output_port(), "out");
  auto inner = inner_builder.Build();
  inner->set_name("inner");

  DiagramBuilder<double> builder;
  auto* src = builder.AddNamedSystem<TestSource<double>>(
      "src", VectorX<double>::Constant(1, 4));
  auto* sub = builder.AddSystem(std::move(inner));
  auto* x = builder.AddNamedSystem<TestIntegrator<double>>("x", 1);
  builder.Connect(src->get_output_port(), sub->get_input_port(0));
  builder.Connect(sub->get_output_port(0), x->get_input_port());
  auto diagram = builder.Build();
  EXPECT_EQ(diagram->leaves().size(), 3u);
  auto context = diagram->CreateDefaultContext();
  VectorX<double> xdot(1);
  diagram->CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot[0], 8.0);
}

// Diagrams work with autodiff scalars: d(xdot)/dx of xdot = -3 x.
TEST(DiagramBuilderTest, AutoDiffDiagram) {
  DiagramBuilder<AutoDiffXd> builder;
  auto* k = builder.AddNamedSystem<TestGain<AutoDiffXd>>("k", -3.0, 1);
  auto* x = builder.AddNamedSystem<TestIntegrator<AutoDiffXd>>("x", 1);
  builder.Connect(k->get_output_port(), x->get_input_port());
  builder.Connect(x->get_output_port(), k->get_input_port());
  auto diagram = builder.Build();
  auto context = diagram->CreateDefaultContext();
  context->SetContinuousState(
      InitializeAutoDiff(Eigen::VectorXd::Constant(1, 2.0)));
  VectorX<AutoDiffXd> xdot(1);
  diagram->CalcTimeDerivatives(*context, &xdot);
  EXPECT_EQ(xdot[0].value(), -6.0);
  EXPECT_EQ(xdot[0].derivatives()[0], -3.0);
}

}  // namespace
}  // namespace tern
