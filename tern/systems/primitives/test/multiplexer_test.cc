#include "tern/systems/primitives/multiplexer.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(MultiplexerTest, ConcatenatesInputs) {
  Multiplexer<double> mux(std::vector<int>{2, 1, 3});
  ASSERT_EQ(mux.num_input_ports(), 3);
  EXPECT_EQ(mux.get_output_port().size(), 6);
  auto context = mux.CreateDefaultContext();
  mux.get_input_port(0).FixValue(context.get(), Eigen::Vector2d(1, 2));
  mux.get_input_port(1).FixValue(context.get(), 3.0);
  mux.get_input_port(2).FixValue(context.get(), Eigen::Vector3d(4, 5, 6));
  Eigen::VectorXd expected(6);
  expected << 1, 2, 3, 4, 5, 6;
  EXPECT_EQ(mux.get_output_port().Eval(*context), expected);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(mux.HasDirectFeedthrough(i, 0));
}

TEST(MultiplexerTest, ScalarInputsAndAutoDiff) {
  Multiplexer<AutoDiffXd> mux(2);
  auto context = mux.CreateDefaultContext();
  mux.get_input_port(0).FixValue(context.get(), 7.0);
  mux.get_input_port(1).FixValue(context.get(), 8.0);
  const VectorX<AutoDiffXd>& y = mux.get_output_port().Eval(*context);
  EXPECT_EQ(y[0].value(), 7.0);
  EXPECT_EQ(y[1].value(), 8.0);
}

TEST(MultiplexerTest, RejectsEmptyInputs) {
  try {
    Multiplexer<double> mux(std::vector<int>{2, 0});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "Multiplexer: input 1 has size 0; sizes must be at least 1");
  }
  EXPECT_THROW(Multiplexer<double>(std::vector<int>{}), std::invalid_argument);
  EXPECT_THROW(Multiplexer<double>(0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
