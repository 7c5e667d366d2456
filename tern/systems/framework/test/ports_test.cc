#include "tern/systems/framework/ports.h"

#include <gtest/gtest.h>

#include <string>

#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/test/test_systems.h"

namespace tern {
namespace {

using test::TestGain;
using test::TestIntegrator;
using test::TestSource;

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(PortsTest, CachedOutputIsNotRecomputedWhenNothingChanged) {
  TestGain<double> gain(2.0, 2);
  auto context = gain.CreateDefaultContext();
  gain.get_input_port().FixValue(context.get(), Eigen::Vector2d(1, 2));
  EXPECT_EQ(gain.get_output_port().Eval(*context), Eigen::Vector2d(2, 4));
  EXPECT_EQ(gain.calc_count, 1);
  gain.get_output_port().Eval(*context);
  EXPECT_EQ(gain.calc_count, 1);
}

TEST(PortsTest, StaleValueIsNeverReturned) {
  TestGain<double> gain(3.0, 1);
  auto context = gain.CreateDefaultContext();
  gain.get_input_port().FixValue(context.get(), 1.0);
  EXPECT_EQ(gain.get_output_port().Eval(*context)[0], 3.0);
  gain.get_input_port().FixValue(context.get(), 2.0);  // input changed
  EXPECT_EQ(gain.get_output_port().Eval(*context)[0], 6.0);
  EXPECT_EQ(gain.calc_count, 2);
  context->SetTime(1.0);  // default prerequisites include time
  gain.get_output_port().Eval(*context);
  EXPECT_EQ(gain.calc_count, 3);
}

TEST(PortsTest, OutputWithNarrowPrerequisitesIgnoresTime) {
  // The integrator's output depends only on xc: changing time keeps it, and
  // changing xc through any accessor refreshes it.
  TestIntegrator<double> integrator(1);
  auto context = integrator.CreateDefaultContext();
  context->get_mutable_continuous_state_vector()[0] = 4.0;
  EXPECT_EQ(integrator.get_output_port().Eval(*context)[0], 4.0);
  context->SetTime(2.0);
  EXPECT_EQ(integrator.get_output_port().Eval(*context)[0], 4.0);
  context->SetContinuousState(VectorX<double>::Constant(1, 5.0));
  EXPECT_EQ(integrator.get_output_port().Eval(*context)[0], 5.0);
}

TEST(PortsTest, UpstreamChangesPropagateThroughDiagram) {
  DiagramBuilder<double> builder;
  auto* source =
      builder.AddSystem<TestSource<double>>(VectorX<double>::Ones(1));
  auto* gain = builder.AddSystem<TestGain<double>>(5.0, 1);
  builder.Connect(source->get_output_port(), gain->get_input_port());
  builder.ExportOutput(gain->get_output_port(), "y");
  auto diagram = builder.Build();
  auto context = diagram->CreateDefaultContext();
  EXPECT_EQ(diagram->get_output_port(0).Eval(*context)[0], 5.0);
  auto& source_ctx = source->GetMyMutableContextFromRoot(context.get());
  source_ctx.get_mutable_numeric_parameter(0)[0] = 2.0;
  EXPECT_EQ(diagram->get_output_port(0).Eval(*context)[0], 10.0);
  EXPECT_EQ(gain->calc_count, 2);
}

TEST(PortsTest, UnconnectedInputWithoutValueNamesPort) {
  TestGain<double> gain(1.0, 1);
  gain.set_name("my_gain");
  auto context = gain.CreateDefaultContext();
  try {
    gain.get_output_port().Eval(*context);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(Contains(e.what(), "input port 'u' of system 'my_gain'"))
        << e.what();
  }
  EXPECT_FALSE(gain.get_input_port().HasValue(*context));
}

TEST(PortsTest, FixValueWrongSizeNamesPortAndSizes) {
  TestGain<double> gain(1.0, 3);
  gain.set_name("g");
  auto context = gain.CreateDefaultContext();
  try {
    gain.get_input_port().FixValue(context.get(), Eigen::Vector2d(1, 2));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(Contains(e.what(), "input port 'u' of system 'g' has size 3"))
        << e.what();
    EXPECT_TRUE(Contains(e.what(), "size 2"));
  }
}

TEST(PortsTest, WrongContextIsRejected) {
  TestGain<double> a(1.0, 1), b(1.0, 1);
  a.set_name("a");
  b.set_name("b");
  auto context_b = b.CreateDefaultContext();
  EXPECT_THROW(a.get_output_port().Eval(*context_b), std::invalid_argument);
}

// An output that declares it does not depend on inputs but reads one.
class Liar final : public LeafSystem<double> {
 public:
  Liar() {
    DeclareVectorInputPort("u", 1);
    DeclareVectorOutputPort(
        "y", 1,
        [this](const Context<double>& c, VectorX<double>* y) {
          *y = get_input_port().Eval(c);
        },
        ticket::kXd);
  }
};

TEST(PortsTest, ReadingAnInputUndeclaredAsPrerequisiteThrows) {
  Liar liar;
  auto context = liar.CreateDefaultContext();
  liar.get_input_port().FixValue(context.get(), 1.0);
  try {
    liar.get_output_port().Eval(*context);
    FAIL();
  } catch (const std::logic_error& e) {
    EXPECT_TRUE(Contains(e.what(), "ticket::kInputs")) << e.what();
  }
  EXPECT_FALSE(liar.HasDirectFeedthrough(0, 0));
}

struct Message {
  std::string text;
};

class AbstractEcho final : public LeafSystem<double> {
 public:
  AbstractEcho() {
    DeclareAbstractInputPort("in", Value<Message>());
    DeclareAbstractOutputPort("out", &AbstractEcho::Calc);
  }

 private:
  void Calc(const Context<double>& c, Message* out) const {
    out->text = get_input_port().Eval<Message>(c).text + "!";
  }
};

TEST(PortsTest, AbstractPortsCarryAnyType) {
  AbstractEcho echo;
  auto context = echo.CreateDefaultContext();
  echo.get_input_port().FixValue(context.get(), Message{"hi"});
  EXPECT_EQ(echo.get_output_port().Eval<Message>(*context).text, "hi!");
  EXPECT_THROW(echo.get_input_port().FixValue(context.get(), 3.0),
               std::invalid_argument);
  EXPECT_THROW(echo.get_output_port().Eval(*context), std::logic_error);
}

}  // namespace
}  // namespace tern
