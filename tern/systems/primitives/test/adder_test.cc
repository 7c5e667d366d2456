#include "tern/systems/primitives/adder.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(AdderTest, SumsAllInputs) {
  Adder<double> adder(3, 2);
  ASSERT_EQ(adder.num_input_ports(), 3);
  EXPECT_EQ(adder.get_input_port(2).get_name(), "u2");
  auto context = adder.CreateDefaultContext();
  adder.get_input_port(0).FixValue(context.get(), Eigen::Vector2d(1, 2));
  adder.get_input_port(1).FixValue(context.get(), Eigen::Vector2d(10, 20));
  adder.get_input_port(2).FixValue(context.get(), Eigen::Vector2d(-3, 0.5));
  EXPECT_EQ(adder.get_output_port().Eval(*context), Eigen::Vector2d(8, 22.5));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(adder.HasDirectFeedthrough(i, 0));
  // A changed input is seen (the cached sum is not stale).
  adder.get_input_port(1).FixValue(context.get(), Eigen::Vector2d(0, 0));
  EXPECT_EQ(adder.get_output_port().Eval(*context), Eigen::Vector2d(-2, 2.5));
}

TEST(AdderTest, AutoDiff) {
  Adder<AutoDiffXd> adder(2, 1);
  auto context = adder.CreateDefaultContext();
  VectorX<AutoDiffXd> u0(1), u1(1);
  u0[0] = AutoDiffXd(1.0, Eigen::Vector2d(1, 0));
  u1[0] = AutoDiffXd(2.0, Eigen::Vector2d(0, 1));
  adder.get_input_port(0).FixValue(context.get(), u0);
  adder.get_input_port(1).FixValue(context.get(), u1);
  const AutoDiffXd y = adder.get_output_port().Eval(*context)[0];
  EXPECT_EQ(y.value(), 3.0);
  EXPECT_EQ(y.derivatives(), Eigen::Vector2d(1, 1));
}

TEST(AdderTest, RejectsBadSizes) {
  try {
    Adder<double> adder(0, 2);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Adder: num_inputs must be at least 1, got 0");
  }
  EXPECT_THROW(Adder<double>(2, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
