#include "tern/common/random_generator.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

// The distributions are bit-reproducible only if every double operation is
// rounded once to double (no x87 extended precision).
static_assert(FLT_EVAL_METHOD == 0,
              "tern::RandomGenerator needs FLT_EVAL_METHOD == 0 (SSE2 or "
              "another IEEE-754 double unit) to be reproducible");
static_assert(std::numeric_limits<double>::is_iec559);

namespace tern {
namespace {

// 2^64 / golden ratio, the SplitMix64 increment (Steele, Lea & Flood 2014).
constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^21: kLn2Hi has 32
// significant bits and kLn2Hi + kLn2Lo = ln 2 to about 2^-85.
constexpr double kLn2Hi = 0x1.62e42ffp-1;
constexpr double kLn2Lo = -0x1.718432a1b0e26p-35;
constexpr double kSqrtHalf = 0x1.6a09e667f3bcdp-1;

}  // namespace

std::uint64_t SplitMix64Mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double DeterministicLog(double x) {
  if (std::isnan(x) || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  // x = m 2^k with m in [sqrt(1/2), sqrt(2)); frexp is exact (it only moves
  // the exponent), also for subnormal x.
  int k = 0;
  double m = std::frexp(x, &k);
  if (m < kSqrtHalf) {
    m *= 2.0;
    --k;
  }
  // With f = m - 1 (exact, Sterbenz) and s = f/(2 + f), |s| <= 0.1716,
  // log(m) = 2 atanh(s) = 2s + 2s z p(z), z = s^2,
  // p(z) = 1/3 + z/5 + z^2/7 + ... (Abramowitz & Stegun 4.1.28). Truncated
  // after z^9/21 it errs by less than z^10/23 < 2^-55 relative. Rewritten
  // as log(m) = f - (f^2/2 - s (f^2/2 + 2 z p)), the leading term f is exact
  // and the rounding errors fall on terms at most f/2 times smaller, as in
  // Sun's fdlibm e_log.c design; accurate to about 1 ulp.
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 1.0 / 21.0;
  p = p * z + 1.0 / 19.0;
  p = p * z + 1.0 / 17.0;
  p = p * z + 1.0 / 15.0;
  p = p * z + 1.0 / 13.0;
  p = p * z + 1.0 / 11.0;
  p = p * z + 1.0 / 9.0;
  p = p * z + 1.0 / 7.0;
  p = p * z + 1.0 / 5.0;
  p = p * z + 1.0 / 3.0;
  const double r = 2.0 * (z * p);
  const double half_f2 = 0.5 * f * f;
  const double dk = static_cast<double>(k);
  return dk * kLn2Hi - ((half_f2 - (s * (half_f2 + r) + dk * kLn2Lo)) - f);
}

void RandomGenerator::Seed(std::uint64_t seed) {
  seed_ = seed;
  // SplitMix64 stream started at `seed`; it never yields four zero words
  // in a row (its output is a bijection of a counter), so the xoshiro state
  // is never all zero.
  std::uint64_t x = seed;
  for (std::uint64_t& word : s_) {
    x += kGoldenGamma;
    word = SplitMix64Mix(x);
  }
  spare_gaussian_ = 0.0;
  has_spare_gaussian_ = false;
}

RandomGenerator RandomGenerator::FromState(std::uint64_t s0, std::uint64_t s1,
                                           std::uint64_t s2, std::uint64_t s3) {
  if ((s0 | s1 | s2 | s3) == 0) {
    throw std::invalid_argument(
        "RandomGenerator::FromState: the all-zero state is a fixed point of "
        "xoshiro256**");
  }
  RandomGenerator g(0);
  g.s_[0] = s0;
  g.s_[1] = s1;
  g.s_[2] = s2;
  g.s_[3] = s3;
  return g;
}

double RandomGenerator::Gaussian() {
  if (has_spare_gaussian_) {
    const double g = spare_gaussian_;
    spare_gaussian_ = 0.0;
    has_spare_gaussian_ = false;
    return g;
  }
  // Polar method: (u, v) uniform in the unit disc (accepted with probability
  // pi/4); then u*r and v*r with r = sqrt(-2 log(s)/s) are two independent
  // standard normals. 2U - 1 is exact, so u, v are multiples of 2^-52.
  for (;;) {
    const double u = 2.0 * Uniform() - 1.0;
    const double v = 2.0 * Uniform() - 1.0;
    const double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0) continue;
    const double r = std::sqrt(-2.0 * DeterministicLog(s) / s);
    spare_gaussian_ = v * r;
    has_spare_gaussian_ = true;
    return u * r;
  }
}

double RandomGenerator::Exponential() {
  // 1 - U is exact and lies in (0, 1]; 0.0 - log(1) is +0, not -0.
  return 0.0 - DeterministicLog(1.0 - Uniform());
}

double RandomGenerator::Sample(RandomDistribution distribution) {
  switch (distribution) {
    case RandomDistribution::kUniform:
      return Uniform();
    case RandomDistribution::kGaussian:
      return Gaussian();
    case RandomDistribution::kExponential:
      return Exponential();
  }
  throw std::invalid_argument(
      "RandomGenerator::Sample: unknown RandomDistribution value " +
      std::to_string(static_cast<int>(distribution)));
}

std::uint64_t RandomGenerator::DeriveSeed(std::uint64_t parent_seed,
                                          std::uint64_t index) {
  // For a fixed parent this is a bijection of index (odd multiplier, then a
  // bijective mix), so children never share a seed.
  return SplitMix64Mix(SplitMix64Mix(parent_seed) + (index + 1) * kGoldenGamma);
}

}  // namespace tern
