#include "tern/systems/primitives/trajectory_source.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace tern {
namespace {

TEST(TrajectorySourceTest, InterpolatesHoldsAndDifferentiates) {
  TrajectorySource source({1.0, 2.0, 4.0},
                          {{0.0, 1.0}, {1.0, 1.0}, {-1.0, 3.0}});
  EXPECT_EQ(source.num_coordinates(), 2);
  EXPECT_EQ(source.get_output_port(0).size(), 4);
  EXPECT_EQ(source.get_output_port(0).prerequisites(), ticket::kTime);
  auto context = source.CreateDefaultContext();
  auto y = [&](double t) {
    context->SetTime(t);
    return VectorX<double>(source.get_output_port(0).Eval(*context));
  };
  // Before the first knot and after the last: the end knot, at rest.
  EXPECT_EQ(y(0.5), (Eigen::Vector4d() << 0, 1, 0, 0).finished());
  EXPECT_EQ(y(5.0), (Eigen::Vector4d() << -1, 3, 0, 0).finished());
  // Inside a segment, v_d is the finite difference of q_d (exact for a
  // linear segment) and q_d the linear interpolation.
  for (double t : {1.25, 2.5, 3.9}) {
    const VectorX<double> a = y(t), b = y(t + 1e-3);
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR((b[i] - a[i]) / 1e-3, a[2 + i], 1e-9) << t;
    }
  }
  EXPECT_NEAR(y(1.25)[0], 0.25, 1e-15);
  EXPECT_NEAR(y(3.0)[1], 2.0, 1e-15);
  // At a knot time the next segment starts.
  EXPECT_EQ(y(2.0), (Eigen::Vector4d() << 1, 1, -1, 1).finished());
}

TEST(TrajectorySourceTest, BadKnotsNameTheKnot) {
  auto error = [](std::vector<double> t, std::vector<std::vector<double>> q) {
    try {
      TrajectorySource source(std::move(t), std::move(q));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error({}, {}),
            "TrajectorySource: 0 times and 0 knots; needs one time per knot "
            "and at least one knot");
  EXPECT_EQ(error({0, 1}, {{1, 2}, {3}}),
            "TrajectorySource: knot 1 has 1 entries but knot 0 has 2");
  EXPECT_EQ(error({0, 0}, {{1}, {2}}),
            "TrajectorySource: knot 1 at t = 0 s; times must be finite and "
            "strictly increasing");
}

}  // namespace
}  // namespace tern
