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
// angle (it is on the hot path: four calls per RK4 step, two of them on the
// step's critical path). For 2^-27 < |x| <= 2^12 it reduces x to
// r = x - k pi/2, |r| <= pi/4, by Cody and Waite's method with pi/2 split
// into three parts, the first two of 33 bits so that k times them is exact
// (Cody & Waite, Software Manual for the Elementary Functions, 1980, ch. 8;
// Muller, Elementary Functions, 3rd ed., sec. 11.2), keeping the rounding
// error of the reduction as a tail rr. For |k| <= 2 (|x| < 5.5) the reduction
// branches on k instead, and each arm is one exact subtraction with a
// constant tail, so that when the branch is predicted r is ready 3 cycles
// after x rather than 18; the branch is taken on the quadrant, which
// changes rarely from one call to the next in a simulation, and even for
// random angles it measured faster than the data path.
//
// On [-pi/4, pi/4], sin r = r + r^3 P(r^2) and cos r = 1 - r^2/2 + r^4 Q(r^2)
// with P and Q of degree 5: minimax for the relative error of sin and cos
// on |r| <= 1.00025 pi/4, found by a weighted Remez exchange in 60-digit
// arithmetic and rounded to double one coefficient at a time, re-fitting
// the others after each rounding (Muller, ch. 3; the script is
// bench/discretization/sin_cos_coefficients.py). Approximation error below
// 2^-57.8 (sin) and 2^-63.9 (cos) relative. Both are evaluated in a split
// Estrin form (Knuth, TAOCP vol. 2, sec. 4.6.4) whose last additions are the
// small terms, and cos recovers the rounding error of 1 - r^2/2 as in
// Dekker's Fast2Sum. Error within about 1 ulp of the exact values: the test
// checks 1.3e-16 relative against long double.
//
// |x| <= 2^-27 gives sin x = x (keeping the sign of -0) and cos x = 1, which
// are correctly rounded. Larger |x|, infinities and NaN go to std::sin and
// std::cos.
TERN_ALWAYS_INLINE void SinCos(double x, double* s, double* c) {
  constexpr double kFastLimit = 4096.0;
  constexpr double kTiny = 0x1p-27;  // x^2 / 6 < 2^-56: sin x = x
  if (!(std::abs(x) <= kFastLimit && std::abs(x) > kTiny)) [[unlikely]] {
    if (std::abs(x) <= kTiny) {
      *s = x;
      *c = 1.0;
    } else {
      *s = std::sin(x);
      *c = std::cos(x);
    }
    return;
  }
  constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
  constexpr double kPio2A = 0x1.921fb544p+0;        // pi/2, first 33 bits
  constexpr double kPio2B = 0x1.0b4611a6p-34;       // next 33 bits
  constexpr double kPio2C = 0x1.3198a2e037073p-69;  // the rest, rounded
  // Round to nearest integer by the 1.5 * 2^52 shift (no SSE4.1 roundsd in
  // the baseline x86-64 instruction set, and nearbyint is a library call).
  constexpr double kShift = 0x1.8p52;
  const double kd_data = (x * kTwoOverPi + kShift) - kShift;
  const auto k = static_cast<long>(kd_data);
  double r, rr;
  auto reduce = [&](double kd) {
    const double t1 = x - kd * kPio2A;
    const double w = kd * kPio2B;
    r = t1 - w;
    rr = ((t1 - r) - w) - kd * kPio2C;
  };
  // (t1 - r) - w is the rounding error of t1 - w (Fast2Sum); k pi/2 is a
  // double-double plus the rounded third part. For |k| <= 2 a branch on k
  // instead, with k a constant in each arm so that, when the branch is
  // predicted, r does not wait for k: r = x - k P, with P = pi/2 rounded to
  // double, is exact (Sterbenz: x lies within a factor 2 of k P), and the
  // reduced argument's tail rr = -k (pi/2 - P) is a constant (its own
  // rounding error, 1.5e-33 k, measured no difference even within 2e5 ulps
  // of k pi/2).
  constexpr double kPio2 = 0x1.921fb54442d18p+0;       // pi/2 rounded
  constexpr double kPio2Tail = 0x1.1a62633145c07p-54;  // pi/2 - kPio2
  auto reduce_small = [&](double kd) {
    r = x - kd * kPio2;
    rr = -kd * kPio2Tail;
  };
  switch (k) {
    case 0:
      r = x;
      rr = 0;
      break;
    case 1:
      reduce_small(1.0);
      break;
    case -1:
      reduce_small(-1.0);
      break;
    case 2:
      reduce_small(2.0);
      break;
    case -2:
      reduce_small(-2.0);
      break;
    default:
      reduce(kd_data);
  }
  // Powers of r for the split Estrin form: each part's product is formed
  // while its polynomial factor is, so that the sums come last.
  const double z = r * r;
  const double z2 = z * z;
  const double r3 = r * z;
  const double r3z2 = r3 * z2;
  const double r3z4 = r3z2 * z2;
  const double z4 = z2 * z2;
  const double z6 = z4 * z2;
  constexpr double S0 = -0x1.5555555555548p-3, S1 = 0x1.111111110f730p-7,
                   S2 = -0x1.a01a019be9217p-13, S3 = 0x1.71de35552b51fp-19,
                   S4 = -0x1.ae5e4b83e24e8p-26, S5 = 0x1.5d8b559343387p-33;
  constexpr double C0 = 0x1.555555555554bp-5, C1 = -0x1.6c16c16c15011p-10,
                   C2 = 0x1.a01a019c8e7bbp-16, C3 = -0x1.27e4f7f0f0f0cp-22,
                   C4 = 0x1.1ee9db4d86affp-29, C5 = -0x1.8fa638b7be968p-37;
  // sin(r + rr) ~ r + r^3 P(z) + rr (1 - z / 2). The corrections for rr
  // (which waits on the reduction) join the sums where they do not delay
  // them: both results are then three additions after their highest-degree
  // product, for every k (24 cycles after r on Zen 4 and 5 latencies).
  const double hz = 0.5 * z;
  const double one_minus_hz = 1 - hz;
  const double tail_s = rr * one_minus_hz;
  const double sa = r3 * (S0 + z * S1) + tail_s;
  const double sb = r3z2 * (S2 + z * S3) + r3z4 * (S4 + z * S5);
  const double sr = r + (sa + sb);
  // cos(r + rr) ~ (1 - z / 2) + z^2 Q(z) - r rr, with the rounding error e
  // of 1 - z / 2 added back (Fast2Sum).
  const double e = (1 - one_minus_hz) - hz;
  const double ca = (z2 * (C0 + z * C1) + z4 * (C2 + z * C3)) - r * rr;
  const double cb = z6 * (C4 + z * C5) + e;
  const double cr = one_minus_hz + (ca + cb);
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
