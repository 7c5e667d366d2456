#include "tern/common/autodiff.h"

#include <gtest/gtest.h>

namespace tern {
namespace {

TEST(AutoDiffTest, GradientOfProduct) {
  Eigen::Vector2d x(2.0, 3.0);
  VectorX<AutoDiffXd> xa = InitializeAutoDiff(x);
  VectorX<AutoDiffXd> y(2);
  y(0) = xa(0) * xa(1);
  y(1) = sin(xa(0));
  Eigen::MatrixXd J = ExtractGradient(y);
  EXPECT_DOUBLE_EQ(J(0, 0), 3.0);
  EXPECT_DOUBLE_EQ(J(0, 1), 2.0);
  EXPECT_DOUBLE_EQ(J(1, 0), std::cos(2.0));
  EXPECT_DOUBLE_EQ(J(1, 1), 0.0);
  EXPECT_DOUBLE_EQ(ExtractValue(y)(0), 6.0);
}

TEST(AutoDiffTest, FixedSizeDoesNotNeedHeap) {
  AutoDiffN<2> a(1.5, Eigen::Vector2d(1, 0));
  AutoDiffN<2> b(2.0, Eigen::Vector2d(0, 1));
  AutoDiffN<2> c = a * b + a;
  EXPECT_DOUBLE_EQ(c.value(), 4.5);
  EXPECT_DOUBLE_EQ(c.derivatives()(0), 3.0);
  EXPECT_DOUBLE_EQ(c.derivatives()(1), 1.5);
}

}  // namespace
}  // namespace tern
