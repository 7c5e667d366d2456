#include "tern/common/random_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

// Statistical tests run at fixed seeds, so they are deterministic. Their
// significance levels say how often a correct generator would fail them for
// a seed picked at random: alpha = 0.01 for each Kolmogorov-Smirnov and
// chi-square test, alpha = 0.001 (z = 3.29) for each mean and variance
// interval.

namespace tern {
namespace {

static_assert(std::uniform_random_bit_generator<RandomGenerator>);
static_assert(std::is_trivially_copyable_v<RandomGenerator>);

constexpr int kNumSamples = 100000;
// Two-sided standard-normal quantile for alpha = 0.001.
constexpr double kZ001 = 3.2905;

std::vector<double> Draw(RandomDistribution d, std::uint64_t seed, int n) {
  RandomGenerator g(seed);
  std::vector<double> x(n);
  for (double& xi : x) xi = g.Sample(d);
  return x;
}

double UniformCdf(double x) { return std::clamp(x, 0.0, 1.0); }
double GaussianCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double ExponentialCdf(double x) { return x <= 0 ? 0.0 : -std::expm1(-x); }

std::function<double(double)> CdfOf(RandomDistribution d) {
  switch (d) {
    case RandomDistribution::kUniform:
      return UniformCdf;
    case RandomDistribution::kGaussian:
      return GaussianCdf;
    case RandomDistribution::kExponential:
      return ExponentialCdf;
  }
  return nullptr;
}

// Kolmogorov-Smirnov statistic sup |F_n(x) - F(x)|, scaled by Stephens'
// factor sqrt(n) + 0.12 + 0.11/sqrt(n) (Stephens, JASA 69, 1974) so it can be
// compared with the asymptotic Kolmogorov quantile.
double ScaledKolmogorovSmirnov(std::vector<double> x,
                               const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  const double rn = std::sqrt(n);
  return (rn + 0.12 + 0.11 / rn) * d;
}
// Kolmogorov distribution quantile at 1 - alpha: sqrt(-ln(alpha/2)/2).
double KolmogorovCritical(double alpha) {
  return std::sqrt(-std::log(alpha / 2) / 2);
}

// Pearson's chi-square statistic of F(x) in `bins` equiprobable bins (F(X) is
// uniform when X has CDF F).
double ChiSquare(const std::vector<double>& x,
                 const std::function<double(double)>& cdf, int bins) {
  std::vector<double> count(bins, 0.0);
  for (double xi : x) {
    const int b = std::min(bins - 1, static_cast<int>(cdf(xi) * bins));
    count[b] += 1;
  }
  const double expected = static_cast<double>(x.size()) / bins;
  double chi2 = 0;
  for (double c : count) chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}
// Chi-square quantile with k degrees of freedom by Wilson & Hilferty's
// approximation (1931), good to 0.1% for k = 99; z is the normal quantile.
double ChiSquareCritical(int k, double z) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + z * std::sqrt(a), 3);
}

struct Moments {
  RandomDistribution distribution;
  double mean;
  double variance;
  double fourth_central;  // E[(X - mean)^4]
};
const Moments kMoments[] = {
    {RandomDistribution::kUniform, 0.5, 1.0 / 12.0, 1.0 / 80.0},
    {RandomDistribution::kGaussian, 0.0, 1.0, 3.0},
    {RandomDistribution::kExponential, 1.0, 1.0, 9.0},
};

TEST(RandomGeneratorTest, SameSeedSameStream) {
  RandomGenerator a(7), b(7);
  for (int i = 0; i < 1000; ++i) {
    const auto d = static_cast<RandomDistribution>(i % 3);
    const double x = a.Sample(d);
    const double y = b.Sample(d);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(x), std::bit_cast<std::uint64_t>(y))
        << "draw " << i;
  }
  EXPECT_EQ(a, b);
  RandomGenerator c(8);
  RandomGenerator d(7);
  int equal = 0;
  for (int i = 0; i < 100; ++i) equal += (c.NextUint64() == d.NextUint64());
  EXPECT_EQ(equal, 0);
}

TEST(RandomGeneratorTest, CopyContinuesIdentically) {
  RandomGenerator g(123);
  for (int i = 0; i < 17; ++i) g.Gaussian();  // odd: a spare is pending
  g.Uniform();
  RandomGenerator copy = g;
  EXPECT_EQ(copy, g);
  for (int i = 0; i < 1000; ++i) {
    const auto d = static_cast<RandomDistribution>((i * 7) % 3);
    ASSERT_EQ(g.Sample(d), copy.Sample(d)) << "draw " << i;
  }
  // Copy assignment, too.
  RandomGenerator assigned(999);
  assigned = g;
  EXPECT_EQ(assigned.Gaussian(), g.Gaussian());
}

TEST(RandomGeneratorTest, SeedAccessorReplays) {
  RandomGenerator g;
  EXPECT_EQ(g.seed(), RandomGenerator::kDefaultSeed);
  RandomGenerator h(55);
  EXPECT_EQ(h.seed(), 55u);
  const double first = h.Gaussian();
  h.Gaussian();
  h.Gaussian();  // spare pending
  h.Seed(55);    // restarts and drops the spare
  EXPECT_EQ(h.seed(), 55u);
  EXPECT_EQ(h, RandomGenerator(55));
  EXPECT_EQ(h.Gaussian(), first);

  // Monte Carlo pattern: record the seed drawn for a sample, replay it later.
  RandomGenerator master(1);
  std::vector<std::uint64_t> seeds;
  std::vector<double> first_draws;
  for (int i = 0; i < 5; ++i) {
    RandomGenerator sample(master.NextSeed());
    seeds.push_back(sample.seed());
    first_draws.push_back(sample.Gaussian());
  }
  RandomGenerator replay(seeds[3]);
  EXPECT_EQ(replay.Gaussian(), first_draws[3]);
}

// Values from tern/common/test/random_generator_golden.py, an independent
// Python implementation of the same algorithms. A platform or compiler that
// rounds differently (FMA contraction, x87, another libm) fails here.
TEST(RandomGeneratorTest, GoldenValuesSeed42) {
  RandomGenerator g(42);
  EXPECT_EQ(g.NextUint64(), 0x15780B2E0C2EC716ull);
  EXPECT_EQ(g.NextUint64(), 0x6104D9866D113A7Eull);
  EXPECT_EQ(g.NextUint64(), 0xAE17533239E499A1ull);
  EXPECT_EQ(g.NextUint64(), 0xECB8AD4703B360A1ull);

  g.Seed(42);
  EXPECT_EQ(g.Uniform(), 0x1.5780b2e0c2ec0p-4);
  EXPECT_EQ(g.Uniform(), 0x1.84136619b444ep-2);
  EXPECT_EQ(g.Uniform(), 0x1.5c2ea66473c93p-1);

  g.Seed(42);
  EXPECT_EQ(g.Gaussian(), -0x1.73d2feb0fb377p-1);
  EXPECT_EQ(g.Gaussian(), -0x1.b088028693f9cp-3);
  EXPECT_EQ(g.Gaussian(), 0x1.c5e21f7812a4cp-3);
  EXPECT_EQ(g.Gaussian(), 0x1.0ba8bb0c5fa51p-1);

  g.Seed(42);
  EXPECT_EQ(g.Exponential(), 0x1.66c411e559569p-4);
  EXPECT_EQ(g.Exponential(), 0x1.e7d36873b4ac6p-2);
  EXPECT_EQ(g.Exponential(), 0x1.23badb3ab7799p+0);

  EXPECT_EQ(RandomGenerator::DeriveSeed(42, 0), 0x989B3F130A063869ull);
  EXPECT_EQ(RandomGenerator::DeriveSeed(42, 1), 0x290DB4BF2570DED7ull);
  EXPECT_EQ(RandomGenerator::DeriveSeed(42, 2), 0x2A990BE63A01B2D5ull);

  EXPECT_EQ(DeterministicLog(0.1), -0x1.26bb1bbb55515p+1);
  EXPECT_EQ(DeterministicLog(2.5), 0x1.d5240f0e0e078p-1);
  EXPECT_EQ(DeterministicLog(1e-300), -0x1.5963447f87fb5p+9);
  EXPECT_EQ(DeterministicLog(12345.678), 0x1.2d79559791e31p+3);
}

// Published test vectors of the two algorithms (the xoshiro256** and
// SplitMix64 reference implementations' own checks).
TEST(RandomGeneratorTest, PublishedVectors) {
  RandomGenerator g = RandomGenerator::FromState(1, 2, 3, 4);
  EXPECT_EQ(g.NextUint64(), 11520u);
  EXPECT_EQ(g.NextUint64(), 0u);
  EXPECT_EQ(g.NextUint64(), 1509978240u);
  EXPECT_EQ(g.NextUint64(), 1215971899390074240u);
  // SplitMix64 from 1234567: the state is incremented by the golden gamma,
  // then mixed.
  const std::uint64_t gamma = 0x9E3779B97F4A7C15ull;
  EXPECT_EQ(SplitMix64Mix(1234567 + gamma), 6457827717110365317u);
  EXPECT_EQ(SplitMix64Mix(1234567 + 2 * gamma), 3203168211198807973u);
}

TEST(RandomGeneratorTest, FromStateRejectsZero) {
  try {
    RandomGenerator::FromState(0, 0, 0, 0);
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("FromState"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("all-zero"), std::string::npos);
  }
}

TEST(RandomGeneratorTest, SampleMatchesNamedMethodsAndRejectsBadTag) {
  RandomGenerator a(3), b(3);
  EXPECT_EQ(a.Sample(RandomDistribution::kUniform), b.Uniform());
  EXPECT_EQ(a.Sample(RandomDistribution::kGaussian), b.Gaussian());
  EXPECT_EQ(a.Sample(RandomDistribution::kExponential), b.Exponential());
  try {
    a.Sample(static_cast<RandomDistribution>(17));
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("17"), std::string::npos);
  }
}

TEST(RandomGeneratorTest, RangesAndSigns) {
  RandomGenerator g(11);
  for (int i = 0; i < 10000; ++i) {
    const double u = g.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const double e = g.Exponential();
    ASSERT_GE(e, 0.0);
    ASSERT_FALSE(std::signbit(e));
    ASSERT_TRUE(std::isfinite(g.Gaussian()));
  }
}

// DeterministicLog against libm's log: within 1 ulp over 30 decades, near 1,
// and for subnormals; and the special values.
TEST(DeterministicLogTest, MatchesStdLog) {
  std::vector<double> xs = {1.0,
                            2.0,
                            0.5,
                            0.75,
                            1.5,
                            0x1.6a09e667f3bcdp-1,
                            0x1.6a09e667f3bcep-1,
                            1.0 + 0x1p-52,
                            1.0 - 0x1p-53,
                            4.9e-324,
                            2.2250738585072014e-308,
                            1.7e308};
  for (int i = 0; i <= 6000; ++i) xs.push_back(std::pow(10.0, -300 + 0.1 * i));
  for (int i = -1000; i <= 1000; ++i) xs.push_back(1.0 + i * 1e-6);
  for (double x : xs) {
    const double ours = DeterministicLog(x);
    const double ref = std::log(x);
    const double ulp = std::nextafter(std::abs(ref), INFINITY) - std::abs(ref);
    ASSERT_LE(std::abs(ours - ref), ulp + 1e-300) << "x = " << x;
  }
  EXPECT_EQ(DeterministicLog(1.0), 0.0);
  EXPECT_EQ(DeterministicLog(0.0), -INFINITY);
  EXPECT_EQ(DeterministicLog(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(DeterministicLog(-1.0)));
  EXPECT_TRUE(std::isnan(DeterministicLog(NAN)));
}

TEST(RandomGeneratorStatsTest, KolmogorovSmirnov) {
  const double critical = KolmogorovCritical(0.01);  // 1.628
  EXPECT_NEAR(critical, 1.628, 1e-3);
  for (const auto& m : kMoments) {
    const auto x = Draw(m.distribution, 2024, kNumSamples);
    EXPECT_LT(ScaledKolmogorovSmirnov(x, CdfOf(m.distribution)), critical)
        << to_string(m.distribution);
  }
}

// The KS test above has power: it rejects a Gaussian shifted by 0.03
// standard deviations and an exponential with rate 1.02.
TEST(RandomGeneratorStatsTest, KolmogorovSmirnovDetectsSmallErrors) {
  const double critical = KolmogorovCritical(0.01);
  auto g = Draw(RandomDistribution::kGaussian, 2024, kNumSamples);
  for (double& x : g) x += 0.03;
  EXPECT_GT(ScaledKolmogorovSmirnov(g, GaussianCdf), critical);
  auto e = Draw(RandomDistribution::kExponential, 2024, kNumSamples);
  for (double& x : e) x /= 1.02;
  EXPECT_GT(ScaledKolmogorovSmirnov(e, ExponentialCdf), critical);
}

TEST(RandomGeneratorStatsTest, ChiSquare) {
  constexpr int kBins = 100;
  // Upper 1% point of chi-square with 99 degrees of freedom (134.64).
  const double critical = ChiSquareCritical(kBins - 1, 2.3263);
  EXPECT_NEAR(critical, 134.64, 0.1);
  for (const auto& m : kMoments) {
    const auto x = Draw(m.distribution, 77, kNumSamples);
    EXPECT_LT(ChiSquare(x, CdfOf(m.distribution), kBins), critical)
        << to_string(m.distribution);
  }
}

// Sample mean within mean ± z sqrt(var/n); sample variance within
// var ± z sqrt((mu4 - var^2)/n) (its asymptotic standard error).
TEST(RandomGeneratorStatsTest, MeanAndVarianceInConfidenceIntervals) {
  const double n = kNumSamples;
  for (const auto& m : kMoments) {
    const auto x = Draw(m.distribution, 31337, kNumSamples);
    double mean = 0;
    for (double xi : x) mean += xi;
    mean /= n;
    double var = 0;
    for (double xi : x) var += (xi - mean) * (xi - mean);
    var /= n - 1;
    EXPECT_NEAR(mean, m.mean, kZ001 * std::sqrt(m.variance / n))
        << to_string(m.distribution);
    EXPECT_NEAR(
        var, m.variance,
        kZ001 * std::sqrt((m.fourth_central - m.variance * m.variance) / n))
        << to_string(m.distribution);
  }
}

// Consecutive uniforms, and the Gaussian pairs of the polar method, are
// uncorrelated: |r| < z / sqrt(n).
TEST(RandomGeneratorStatsTest, NoSerialCorrelation) {
  for (auto d : {RandomDistribution::kUniform, RandomDistribution::kGaussian}) {
    const auto x = Draw(d, 5, kNumSamples);
    double mean = 0;
    for (double xi : x) mean += xi;
    mean /= x.size();
    double num = 0, den = 0;
    for (size_t i = 0; i + 1 < x.size(); ++i) {
      num += (x[i] - mean) * (x[i + 1] - mean);
    }
    for (double xi : x) den += (xi - mean) * (xi - mean);
    EXPECT_LT(std::abs(num / den), kZ001 / std::sqrt(kNumSamples))
        << to_string(d);
  }
}

TEST(RandomGeneratorTest, DeriveSeedGivesDistinctIndependentChildren) {
  std::set<std::uint64_t> seeds;
  for (std::uint64_t parent : {0ull, 1ull, 42ull}) {
    for (std::uint64_t i = 0; i < 3000; ++i) {
      seeds.insert(RandomGenerator::DeriveSeed(parent, i));
    }
  }
  EXPECT_EQ(seeds.size(), 9000u);
  EXPECT_EQ(RandomGenerator::DeriveSeed(9, 4),
            RandomGenerator::DeriveSeed(9, 4));

  // Children 0 and 1 of one parent: sample correlation of their Gaussian
  // streams is within the 0.001 interval of zero.
  RandomGenerator a(RandomGenerator::DeriveSeed(42, 0));
  RandomGenerator b(RandomGenerator::DeriveSeed(42, 1));
  double sab = 0, saa = 0, sbb = 0;
  for (int i = 0; i < kNumSamples; ++i) {
    const double x = a.Gaussian(), y = b.Gaussian();
    sab += x * y;
    saa += x * x;
    sbb += y * y;
  }
  EXPECT_LT(std::abs(sab / std::sqrt(saa * sbb)),
            kZ001 / std::sqrt(kNumSamples));
}

}  // namespace
}  // namespace tern
