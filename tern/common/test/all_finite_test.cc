#include "tern/common/all_finite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace tern {
namespace {

// Against std::isfinite on every length up to 13 (the four-wide loop and
// its remainder) with each position in turn infinite, -infinite or NaN,
// among finite values of both signs, zeros and the largest double.
TEST(AllFiniteTest, AgreesWithIsFiniteAtEveryPosition) {
  const double kBad[] = {std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN()};
  for (int n = 0; n <= 13; ++n) {
    std::vector<double> x(n);
    for (int i = 0; i < n; ++i) {
      x[i] = i % 3 == 0   ? -0.0
             : i % 3 == 1 ? std::numeric_limits<double>::max()
                          : -1.5 * i;
    }
    EXPECT_TRUE(AllFinite(x.data(), n)) << "n = " << n;
    for (int i = 0; i < n; ++i) {
      for (const double bad : kBad) {
        std::vector<double> y = x;
        y[i] = bad;
        EXPECT_FALSE(AllFinite(y.data(), n))
            << "n = " << n << ", x[" << i << "] = " << bad;
      }
    }
  }
}

}  // namespace
}  // namespace tern
