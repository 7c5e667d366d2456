#pragma once
// Fast, accurate sine and cosine of one angle, for dynamics on hot paths
// (a model's right-hand side evaluated four times per RK4 step). Works for
// double and forward-mode dual numbers.
#include <cassert>
#include <cmath>

#include "tern/common/autodiff.h"
#include "tern/common/compiler.h"

namespace tern {

// sin(x) and cos(x) together, for models whose dynamics need both of one
// angle (it is on the hot path: four calls per RK4 step). For |x| <= 2^12 it
// reduces x to r = x - k pi/2, |r| <= pi/4, by Cody and Waite's method with
// pi/2 split into three parts, the first two of 33 bits so that k times them
// is exact (Cody & Waite, Software Manual for the Elementary Functions, 1980,
// ch. 8; Muller, Elementary Functions, 3rd ed., sec. 11.2), keeping the
// rounding error of the reduction as a tail rr. On [-pi/4, pi/4] the Taylor
// series to degree 17 (sin) and 16 (cos) truncate below 1e-18 relative; cos
// evaluates 1 - r^2/2 with its rounding error recovered, as in fdlibm's
// __kernel_cos. Error within about 1 ulp of the exact values (the test checks
// it against std::sin and std::cos). Larger |x|, infinities and NaN go to
// std::sin and std::cos.
TERN_ALWAYS_INLINE void SinCos(double x, double* s, double* c) {
  constexpr double kFastLimit = 4096.0;
  if (!(std::abs(x) <= kFastLimit)) {
    *s = std::sin(x);
    *c = std::cos(x);
    return;
  }
  constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
  constexpr double kPio2A = 0x1.921fb544p+0;        // pi/2, first 33 bits
  constexpr double kPio2B = 0x1.0b4611a6p-34;       // next 33 bits
  constexpr double kPio2C = 0x1.3198a2e037073p-69;  // the rest, rounded
  // Round to nearest integer by the 1.5 * 2^52 shift (no SSE4.1 roundsd in
  // the baseline x86-64 instruction set, and nearbyint is a library call).
  constexpr double kShift = 0x1.8p52;
  const double kd = (x * kTwoOverPi + kShift) - kShift;
  const auto k = static_cast<long>(kd);
  const double t1 = x - kd * kPio2A;  // exact: kd * kPio2A is, and Sterbenz
  const double w = kd * kPio2B;       // exact
  double r = t1 - w;
  // (t1 - r) - w is the rounding error of t1 - w (Fast2Sum).
  const double rr = ((t1 - r) - w) - kd * kPio2C;
  const double z = r * r;
  // sin(r + rr) ~ r + r^3 ps(z) + rr (1 - z / 2). Polynomials in Estrin's
  // form (Knuth, TAOCP vol. 2, sec. 4.6.4): a shorter dependency chain than
  // Horner's rule, which matters when RK4 stages wait on each other.
  const double z2 = z * z;
  const double z4 = z2 * z2;
  const double ps =
      ((-1.0 / 6 + z * (1.0 / 120)) + z2 * (-1.0 / 5040 + z * (1.0 / 362880))) +
      z4 * ((-1.0 / 39916800 + z * (1.0 / 6227020800)) +
            z2 * (-1.0 / 1307674368000 + z * (1.0 / 355687428096000)));
  const double sr = r + (r * z * ps + rr * (1 - 0.5 * z));
  // cos(r + rr) ~ 1 - z / 2 + z^2 pc(z) - r rr.
  const double pc = ((1.0 / 24 + z * (-1.0 / 720)) +
                     z2 * (1.0 / 40320 + z * (-1.0 / 3628800))) +
                    z4 * ((1.0 / 479001600 + z * (-1.0 / 87178291200)) +
                          z2 * (1.0 / 20922789888000));
  const double hz = 0.5 * z;
  const double one_minus_hz = 1 - hz;
  const double cr =
      one_minus_hz + (((1 - one_minus_hz) - hz) + (z2 * pc - r * rr));
  // sin(r + k pi/2), cos(r + k pi/2) by the quadrant k mod 4.
  const bool odd = (k & 1) != 0;
  const double s0 = odd ? cr : sr;
  const double c0 = odd ? -sr : cr;
  const bool negate = (k & 2) != 0;
  *s = negate ? -s0 : s0;
  *c = negate ? -c0 : c0;
}

// The same for a forward-mode dual number: d sin = cos dx, d cos = -sin dx.
// s and c must not alias x.
template <class D, class T>
void SinCos(const Eigen::AutoDiffScalar<D>& x, T* s, T* c) {
  assert(static_cast<const void*>(s) != &x &&
         static_cast<const void*>(c) != &x);
  double sv, cv;
  SinCos(x.value(), &sv, &cv);
  *s = T(sv, cv * x.derivatives());
  *c = T(cv, -sv * x.derivatives());
}

}  // namespace tern
