#include "tern/systems/primitives/constant_vector_source.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(ConstantVectorSourceTest, OutputsTheValueAndFollowsTheParameter) {
  const Eigen::Vector3d value(1.5, -2.0, 4.0);
  ConstantVectorSource<double> source(value);
  auto context = source.CreateDefaultContext();
  EXPECT_EQ(source.get_output_port().Eval(*context), value);
  EXPECT_EQ(source.get_output_port().prerequisites(), ticket::kParams);
  // Changing the parameter invalidates the cached output.
  source.get_mutable_source_value(context.get()) = Eigen::Vector3d(7, 8, 9);
  EXPECT_EQ(source.get_output_port().Eval(*context), Eigen::Vector3d(7, 8, 9));
  EXPECT_EQ(source.get_source_value(*context), Eigen::Vector3d(7, 8, 9));
  // A fresh context has the declared value again.
  EXPECT_EQ(source.get_output_port().Eval(*source.CreateDefaultContext()),
            value);
}

TEST(ConstantVectorSourceTest, ScalarAndAutoDiff) {
  ConstantVectorSource<AutoDiffXd> source(3.25);
  auto context = source.CreateDefaultContext();
  const VectorX<AutoDiffXd>& y = source.get_output_port().Eval(*context);
  ASSERT_EQ(y.size(), 1);
  EXPECT_EQ(y[0].value(), 3.25);
}

TEST(ConstantVectorSourceTest, RejectsNonFiniteValues) {
  try {
    ConstantVectorSource<double> source(Eigen::Vector2d(1, NAN));
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ConstantVectorSource: value(1, 0)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tern
