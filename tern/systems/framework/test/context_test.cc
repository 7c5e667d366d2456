#include "tern/systems/framework/context.h"

#include <gtest/gtest.h>

#include <string>

#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/test/test_systems.h"

namespace tern {
namespace {

// A leaf with every kind of state and parameter.
class Everything final : public LeafSystem<double> {
 public:
  Everything() {
    DeclareContinuousState(Eigen::Vector3d(1, 2, 3), 1, 1);
    DeclareDiscreteState(Eigen::Vector2d(4, 5));
    DeclareDiscreteState(VectorX<double>::Constant(1, 6));
    DeclareAbstractState(std::string("hello"));
    DeclareNumericParameter(VectorX<double>::Constant(1, 7));
    DeclareAbstractParameter(Value<int>(8));
  }
  void DoCalcTimeDerivatives(const Context<double>&,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot.setZero();
  }
};

TEST(ContextTest, DefaultsAndSizes) {
  Everything system;
  auto context = system.CreateDefaultContext();
  EXPECT_EQ(context->get_time(), 0.0);
  EXPECT_EQ(context->num_continuous_states(), 3);
  EXPECT_EQ(system.num_positions(), 1);
  EXPECT_EQ(system.num_velocities(), 1);
  EXPECT_EQ(system.num_misc_continuous_states(), 1);
  EXPECT_EQ(context->get_continuous_state_vector(), Eigen::Vector3d(1, 2, 3));
  EXPECT_EQ(context->num_discrete_state_groups(), 2);
  EXPECT_EQ(context->get_discrete_state(0), Eigen::Vector2d(4, 5));
  EXPECT_EQ(context->get_discrete_state(1)[0], 6.0);
  EXPECT_EQ(context->get_abstract_state<std::string>(0), "hello");
  EXPECT_EQ(context->get_numeric_parameter(0)[0], 7.0);
  EXPECT_EQ(context->get_abstract_parameter<int>(0), 8);
}

TEST(ContextTest, CloneIsDeep) {
  Everything system;
  auto context = system.CreateDefaultContext();
  context->SetTime(1.5);
  auto clone = context->Clone();
  context->get_mutable_continuous_state_vector()[0] = 10;
  context->get_mutable_discrete_state(0)[1] = 11;
  context->get_mutable_abstract_state<std::string>(0) = "changed";
  context->get_mutable_numeric_parameter(0)[0] = 12;
  context->get_mutable_abstract_parameter<int>(0) = 13;
  EXPECT_EQ(clone->get_time(), 1.5);
  EXPECT_EQ(clone->get_continuous_state_vector()[0], 1.0);
  EXPECT_EQ(clone->get_discrete_state(0)[1], 5.0);
  EXPECT_EQ(clone->get_abstract_state<std::string>(0), "hello");
  EXPECT_EQ(clone->get_numeric_parameter(0)[0], 7.0);
  EXPECT_EQ(clone->get_abstract_parameter<int>(0), 8);
  clone->SetTimeStateAndParametersFrom(*context);
  EXPECT_EQ(clone->get_abstract_state<std::string>(0), "changed");
  EXPECT_EQ(clone->get_abstract_parameter<int>(0), 13);
}

TEST(ContextTest, SetDefaultContextRestoresDefaults) {
  Everything system;
  auto context = system.CreateDefaultContext();
  context->get_mutable_discrete_state(0)[0] = -1;
  system.SetDefaultContext(context.get());
  EXPECT_EQ(context->get_discrete_state(0)[0], 4.0);
}

TEST(ContextTest, BadIndicesAndSizesNameTheSystem) {
  Everything system;
  system.set_name("everything");
  auto context = system.CreateDefaultContext();
  EXPECT_THROW(context->get_discrete_state(2), std::out_of_range);
  EXPECT_THROW(context->get_discrete_state_vector(), std::logic_error);
  try {
    context->SetContinuousState(VectorX<double>::Zero(2));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'everything' has 3"),
              std::string::npos);
  }
  EXPECT_THROW(context->SetDiscreteState(0, VectorX<double>::Zero(3)),
               std::invalid_argument);
  EXPECT_THROW(context->get_abstract_state<int>(0), std::logic_error);
}

TEST(ContextTest, SubsystemContextsViewTheRootStorage) {
  DiagramBuilder<double> inner_builder;
  auto* a = inner_builder.AddNamedSystem<Everything>("a");
  auto* b = inner_builder.AddNamedSystem<Everything>("b");
  auto inner = inner_builder.Build();
  inner->set_name("inner");
  DiagramBuilder<double> builder;
  auto* c = builder.AddNamedSystem<Everything>("c");
  auto* inner_ptr = builder.AddSystem(std::move(inner));
  auto diagram = builder.Build();
  auto root = diagram->CreateDefaultContext();
  EXPECT_EQ(root->num_continuous_states(), 9);
  EXPECT_EQ(root->num_discrete_state_groups(), 6);
  EXPECT_EQ(b->GetPathName(), "diagram/inner/b");

  Context<double>& b_ctx = b->GetMyMutableContextFromRoot(root.get());
  b_ctx.get_mutable_continuous_state_vector()[2] = 42;
  // Flattened order: c, a, b -> b's z is the last entry of the root state.
  EXPECT_EQ(root->get_continuous_state_vector()[8], 42.0);
  const Context<double>& inner_ctx = inner_ptr->GetMyContextFromRoot(*root);
  EXPECT_EQ(inner_ctx.num_continuous_states(), 6);
  EXPECT_EQ(inner_ctx.get_continuous_state_vector()[5], 42.0);
  EXPECT_EQ(&a->GetMyContextFromRoot(*root), &inner_ctx.get_subcontext(0));
  EXPECT_EQ(&c->GetMyContextFromRoot(*root), &root->get_subcontext(0));
  EXPECT_THROW(b_ctx.Clone(), std::logic_error);

  // A clone of the root is independent and has the same layout.
  auto clone = root->Clone();
  EXPECT_EQ(b->GetMyContextFromRoot(*clone).get_continuous_state_vector()[2],
            42.0);
  b_ctx.get_mutable_continuous_state_vector()[2] = 0;
  EXPECT_EQ(b->GetMyContextFromRoot(*clone).get_continuous_state_vector()[2],
            42.0);

  Everything stranger;
  EXPECT_THROW(stranger.GetMyContextFromRoot(*root), std::invalid_argument);
}

TEST(ContextTest, CloneKeepsFixedInputs) {
  test::TestGain<double> gain(2.0, 1);
  auto context = gain.CreateDefaultContext();
  gain.get_input_port().FixValue(context.get(), 3.0);
  auto clone = context->Clone();
  EXPECT_EQ(gain.get_output_port().Eval(*clone)[0], 6.0);
}

}  // namespace
}  // namespace tern
