#include "tern/systems/analysis/knot_point.h"

#include <gtest/gtest.h>

#include "tern/systems/analysis/example_models.h"

namespace tern {
namespace {

TEST(KnotPointTest, StoresStateAndInputContiguously) {
  const Eigen::Vector4d x(1, 2, 3, 4);
  const Vector<double, 1> u(5);
  KnotPoint<4, 1> z(x, u, 0.5, 0.1);
  EXPECT_EQ(z.num_states(), 4);
  EXPECT_EQ(z.num_inputs(), 1);
  EXPECT_EQ(z.x(), x);
  EXPECT_EQ(z.u(), u);
  EXPECT_EQ(z.t(), 0.5);
  EXPECT_EQ(z.dt(), 0.1);
  // z = [x; u] in one block of memory.
  EXPECT_EQ(z.u().data(), z.z().data() + 4);
  z.u()(0) = 7;
  EXPECT_EQ(z.z()(4), 7);
  static_assert(
      std::is_same_v<KnotPointOf<examples::Cartpole>, KnotPoint<4, 1>>);
}

TEST(KnotPointTest, RunTimeSizes) {
  KnotPoint<Eigen::Dynamic, Eigen::Dynamic> z(3, 2);
  EXPECT_EQ(z.z().size(), 5);
  // Entry by entry: assigning a fixed-size Vector2d to the block trips a
  // false -Wstringop-overflow in GCC 12 at -O3.
  z.x() << 1, 2, 3;
  z.u()(0) = 4;
  z.u()(1) = 5;
  EXPECT_EQ(z.z(), (Eigen::VectorXd(5) << 1, 2, 3, 4, 5).finished());
  z.set_t(2.0);
  z.set_dt(0.25);
  EXPECT_EQ(z.t(), 2.0);
  EXPECT_EQ(z.dt(), 0.25);
}

TEST(KnotPointTest, WrongFixedSizeThrows) {
  try {
    KnotPoint<4, 1> z(Eigen::Vector3d::Zero(), Vector<double, 1>::Zero(), 0.0,
                      0.1);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("KnotPoint"), std::string::npos);
  }
}

}  // namespace
}  // namespace tern
