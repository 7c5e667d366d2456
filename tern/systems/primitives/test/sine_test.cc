#include "tern/systems/primitives/sine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(SineTest, ValueAndDerivativesMatchClosedForm) {
  const Eigen::Vector2d a(2.0, 0.5), w(3.0, 10.0), phi(0.25, -1.0);
  Sine<double> sine(a, w, phi);
  auto context = sine.CreateDefaultContext();
  for (double t : {0.0, 0.1, 0.77, 3.0}) {
    context->SetTime(t);
    const VectorX<double>& y0 = sine.get_output_port(0).Eval(*context);
    const VectorX<double>& y1 = sine.get_output_port(1).Eval(*context);
    const VectorX<double>& y2 = sine.get_output_port(2).Eval(*context);
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(y0[i], a[i] * std::sin(w[i] * t + phi[i]), 1e-14);
      EXPECT_NEAR(y1[i], a[i] * w[i] * std::cos(w[i] * t + phi[i]), 1e-13);
      EXPECT_NEAR(y2[i], -a[i] * w[i] * w[i] * std::sin(w[i] * t + phi[i]),
                  1e-12);
    }
  }
  EXPECT_EQ(sine.get_output_port(0).prerequisites(), ticket::kTime);
}

TEST(SineTest, AutoDiffTimeDerivativeIsTheY1Output) {
  Sine<AutoDiffXd> sine(1.5, 4.0, 0.3, 3);
  auto context = sine.CreateDefaultContext();
  AutoDiffXd t(0.4, Eigen::VectorXd::Ones(1));
  context->SetTime(t);
  const VectorX<AutoDiffXd> y0 = sine.get_output_port(0).Eval(*context);
  const VectorX<AutoDiffXd> y1 = sine.get_output_port(1).Eval(*context);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(y0[i].derivatives()[0], y1[i].value(), 1e-13);
    EXPECT_NEAR(y1[i].derivatives()[0],
                sine.get_output_port(2).Eval(*context)[i].value(), 1e-12);
  }
}

TEST(SineTest, RejectsMismatchedSizes) {
  try {
    Sine<double> sine(Eigen::Vector2d(1, 1), Eigen::Vector3d(1, 1, 1),
                      Eigen::Vector2d(0, 0));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Sine: frequencies has size 3 but must have size 2");
  }
  EXPECT_THROW(Sine<double>(1, 1, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
