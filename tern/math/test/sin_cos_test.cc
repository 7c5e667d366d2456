#include "tern/math/sin_cos.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

// Relative error of SinCos against the long double library functions (64-bit
// significand, so a reference about 2^11 times finer than a double ulp).
struct MaxError {
  double sin{0};
  double cos{0};
  void Check(double x) {
    double s, c;
    SinCos(x, &s, &c);
    const long double rs = std::sin(static_cast<long double>(x));
    const long double rc = std::cos(static_cast<long double>(x));
    sin = std::max(sin, static_cast<double>(std::fabs((s - rs) / rs)));
    cos = std::max(cos, static_cast<double>(std::fabs((c - rc) / rc)));
  }
};

TEST(SinCosTest, WithinTwoUlpsRelativeOverTheFastRange) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> moderate(-10, 10);
  std::uniform_real_distribution<double> wide(-4096, 4096);
  std::uniform_real_distribution<double> exponent(-300, 0);
  MaxError err;
  for (int i = 0; i < 200000; ++i) {
    err.Check(moderate(gen));
    err.Check(wide(gen));
    err.Check(std::pow(10.0, exponent(gen)));
    err.Check(-std::pow(10.0, exponent(gen)));
  }
  // The doubles nearest the multiples of pi/2, where the reduced argument
  // cancels most, and their neighbours.
  for (int k = -2608; k <= 2608; ++k) {
    double x = k * (M_PI / 2);
    for (int step = 0; step < 3; ++step) {
      err.Check(x);
      err.Check(std::nextafter(x, -HUGE_VAL));
      x = std::nextafter(x, HUGE_VAL);
    }
  }
  EXPECT_LE(err.sin, 1.5e-16);
  EXPECT_LE(err.cos, 1.5e-16);
}

// Every arm of the reduction (k = 0, +-1, +-2 by branch, larger k by the
// data path) and every quadrant, including both sides of each boundary
// (k + 1/2) pi/2 where k changes, against long double.
TEST(SinCosTest, EachQuadrantAndReductionArm) {
  MaxError err;
  for (int k = -8; k <= 8; ++k) {
    for (double f = -0.5; f <= 0.5; f += 1.0 / 64) {
      err.Check((k + f) * (M_PI / 2));
    }
    const double boundary = (k + 0.5) * (M_PI / 2);
    double lo = boundary, hi = boundary;
    for (int i = 0; i < 4; ++i) {
      err.Check(lo);
      err.Check(hi);
      lo = std::nextafter(lo, -HUGE_VAL);
      hi = std::nextafter(hi, HUGE_VAL);
    }
  }
  EXPECT_LE(err.sin, 1.5e-16);
  EXPECT_LE(err.cos, 1.5e-16);
  // Signs by quadrant: sin and cos of k pi/2 + 0.3.
  for (int k = -6; k <= 6; ++k) {
    const double x = k * (M_PI / 2) + 0.3;
    double s, c;
    SinCos(x, &s, &c);
    EXPECT_EQ(std::signbit(s), std::signbit(std::sin(x))) << x;
    EXPECT_EQ(std::signbit(c), std::signbit(std::cos(x))) << x;
  }
}

TEST(SinCosTest, TinyArgumentsAndSignedZero) {
  double s, c;
  SinCos(-0.0, &s, &c);
  EXPECT_EQ(s, 0.0);
  EXPECT_TRUE(std::signbit(s));
  EXPECT_EQ(c, 1.0);
  for (double x : {0x1p-27, -0x1p-27, 0x1.0000000000001p-27, 1e-300,
                   -std::numeric_limits<double>::denorm_min()}) {
    SinCos(x, &s, &c);
    EXPECT_EQ(s, std::sin(x)) << x;
    EXPECT_EQ(c, std::cos(x)) << x;
  }
}

TEST(SinCosTest, OutsideTheFastRangeIsTheStandardLibrary) {
  for (double x : {4096.5, -5000.25, 1e6, -3e15, 1e300}) {
    double s, c;
    SinCos(x, &s, &c);
    EXPECT_EQ(s, std::sin(x)) << x;
    EXPECT_EQ(c, std::cos(x)) << x;
  }
  double s, c;
  SinCos(std::numeric_limits<double>::infinity(), &s, &c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  SinCos(std::numeric_limits<double>::quiet_NaN(), &s, &c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  SinCos(0.0, &s, &c);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(c, 1.0);
}

TEST(SinCosTest, AutoDiffDerivativesAreCosAndMinusSin) {
  for (double x : {-7.0, -1.0, 0.3, 2.0, 100.0}) {
    AutoDiffN<2> xa(x, Eigen::Vector2d(1.0, -2.0));
    AutoDiffN<2> s, c;
    SinCos(xa, &s, &c);
    EXPECT_NEAR(s.value(), std::sin(x), 1e-15);
    EXPECT_NEAR(c.value(), std::cos(x), 1e-15);
    EXPECT_NEAR(s.derivatives()(0), std::cos(x), 1e-15);
    EXPECT_NEAR(s.derivatives()(1), -2 * std::cos(x), 1e-15);
    EXPECT_NEAR(c.derivatives()(0), -std::sin(x), 1e-15);
    EXPECT_NEAR(c.derivatives()(1), 2 * std::sin(x), 1e-15);
    AutoDiffXd xd(x, Eigen::VectorXd::Ones(3));
    AutoDiffXd sd, cd;
    SinCos(xd, &sd, &cd);
    EXPECT_NEAR(sd.derivatives()(2), std::cos(x), 1e-15);
    EXPECT_NEAR(cd.derivatives()(2), -std::sin(x), 1e-15);
  }
}

}  // namespace
}  // namespace tern
