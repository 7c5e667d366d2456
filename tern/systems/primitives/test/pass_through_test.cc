#include "tern/systems/primitives/pass_through.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(PassThroughTest, OutputEqualsInput) {
  PassThrough<double> pass(3);
  auto context = pass.CreateDefaultContext();
  pass.get_input_port().FixValue(context.get(), Eigen::Vector3d(1, -2, 3));
  EXPECT_EQ(pass.get_output_port().Eval(*context), Eigen::Vector3d(1, -2, 3));
  EXPECT_TRUE(pass.HasDirectFeedthrough(0, 0));
}

TEST(PassThroughTest, AutoDiffAndErrors) {
  PassThrough<AutoDiffXd> pass(2);
  auto context = pass.CreateDefaultContext();
  pass.get_input_port().FixValue(context.get(),
                                 InitializeAutoDiff(Eigen::Vector2d(1, 2)));
  EXPECT_EQ(ExtractGradient(pass.get_output_port().Eval(*context)),
            Eigen::Matrix2d::Identity());
  try {
    PassThrough<double> bad(0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "PassThrough: size must be at least 1, got 0");
  }
}

}  // namespace
}  // namespace tern
