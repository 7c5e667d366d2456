#include "tern/systems/analysis/monte_carlo.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tern/systems/analysis/test/monte_carlo_test_models.h"

namespace tern {
namespace {

using test::Factory;
using test::kOutputX;
using test::MakeDiagram;
using test::NoisyDecay;
using test::Walk;

TEST(RandomSimulationTest, SameSeedSameOutput) {
  const auto diagram = MakeDiagram<NoisyDecay>(0.1);
  const auto factory = Factory(*diagram, 0.01);
  RandomGenerator a(8), b(8), c(9);
  const double ya = RandomSimulation(factory, kOutputX, 1.0, &a);
  const double yb = RandomSimulation(factory, kOutputX, 1.0, &b);
  const double yc = RandomSimulation(factory, kOutputX, 1.0, &c);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(ya), std::bit_cast<std::uint64_t>(yb));
  EXPECT_NE(ya, yc);
  EXPECT_EQ(a, b);
}

TEST(MonteCarloTest, BitIdenticalForOneTwoFourThreads) {
  const auto diagram = MakeDiagram<NoisyDecay>(0.1);
  const auto factory = Factory(*diagram, 0.01);
  std::vector<std::vector<RandomSimulationResult>> runs;
  for (int threads : {1, 2, 4, kNumThreadsAutomatic}) {
    RandomGenerator generator(77);
    runs.push_back(
        MonteCarloSimulation(factory, kOutputX, 1.0, 24, &generator, threads));
  }
  RandomGenerator seeds(77);
  for (int i = 0; i < 24; ++i) {
    const std::uint64_t seed = seeds.NextSeed();
    for (const auto& run : runs) {
      ASSERT_TRUE(run[i].ok()) << run[i].error;
      EXPECT_EQ(run[i].seed, seed);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(run[i].output),
                std::bit_cast<std::uint64_t>(runs[0][i].output))
          << "sample " << i;
    }
  }
  EXPECT_NE(runs[0][0].output, runs[0][1].output);

  // Any sample replays alone from its seed.
  for (int i : {0, 13, 23}) {
    RandomGenerator replay(runs[0][i].seed);
    EXPECT_EQ(RandomSimulation(factory, kOutputX, 1.0, &replay),
              runs[0][i].output);
  }
}

// A failing sample is reported with its index and seed; the others still run
// and the failures are the same whatever the thread count. NoisyDecay is the
// first leaf and draws its rate and then x0, so the failing seeds are known
// in advance.
TEST(MonteCarloTest, FailingSamplesReportedWithSeed) {
  const auto diagram = MakeDiagram<NoisyDecay>(0.1, 0.8);
  const auto factory = Factory(*diagram, 0.05);
  constexpr int kSamples = 30;
  for (int threads : {1, 2, 4}) {
    RandomGenerator generator(5);
    const auto results = MonteCarloSimulation(factory, kOutputX, 0.5, kSamples,
                                              &generator, threads);
    int failures = 0;
    for (int i = 0; i < kSamples; ++i) {
      RandomGenerator probe(results[i].seed);
      probe.Uniform();  // the rate, drawn first (parameters before state)
      const bool should_fail = probe.Gaussian() > 0.8;
      EXPECT_EQ(!results[i].ok(), should_fail) << "sample " << i;
      if (!should_fail) continue;
      ++failures;
      EXPECT_TRUE(std::isnan(results[i].output));
      const std::string prefix = "sample " + std::to_string(i) + " (seed " +
                                 std::to_string(results[i].seed) + "): ";
      EXPECT_EQ(results[i].error.rfind(prefix, 0), 0u) << results[i].error;
      EXPECT_NE(results[i].error.find("too large"), std::string::npos);
      RandomGenerator replay(results[i].seed);
      EXPECT_THROW(RandomSimulation(factory, kOutputX, 0.5, &replay),
                   std::runtime_error);
    }
    // P(N(0,1) > 0.8) = 0.21: some, but not all, fail.
    EXPECT_GT(failures, 0) << threads;
    EXPECT_LT(failures, kSamples) << threads;
  }
}

// End to end through RandomSource and the Simulator: a random walk
// x(T) = h (w_0 + ... + w_{N-1}) has mean 0 and variance h T. The sample
// mean and variance of 400 samples are within their alpha = 0.001
// intervals (z = 3.29).
TEST(MonteCarloTest, RandomWalkStatistics) {
  constexpr double h = 0.1, T = 1.0;
  constexpr int n = 400;
  const auto diagram = MakeDiagram<Walk>(h);
  RandomGenerator generator(2024);
  const auto results = MonteCarloSimulation(Factory(*diagram, 0.05), kOutputX,
                                            T, n, &generator, 2);
  double mean = 0;
  for (const auto& r : results) mean += r.output;
  mean /= n;
  double var = 0;
  for (const auto& r : results) var += (r.output - mean) * (r.output - mean);
  var /= n - 1;
  const double sigma2 = h * T;
  EXPECT_NEAR(mean, 0.0, 3.29 * std::sqrt(sigma2 / n));
  EXPECT_NEAR(var, sigma2, 3.29 * sigma2 * std::sqrt(2.0 / n));
}

TEST(MonteCarloTest, RejectsBadArguments) {
  const auto diagram = MakeDiagram<NoisyDecay>(0.1);
  const auto factory = Factory(*diagram, 0.01);
  RandomGenerator g(1);
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no invalid_argument)";
  };
  EXPECT_EQ(
      message([&] { MonteCarloSimulation(factory, kOutputX, 1, -1, &g); }),
      "MonteCarloSimulation: num_samples must be >= 0, got -1");
  EXPECT_NE(message([&] {
              MonteCarloSimulation(factory, kOutputX, 1, 2, &g, -3);
            }).find("num_parallel_executions must be >= 0"),
            std::string::npos);
  EXPECT_EQ(
      message([&] { MonteCarloSimulation(factory, kOutputX, 1, 2, nullptr); }),
      "MonteCarloSimulation: generator is null");
  EXPECT_EQ(message([&] { RandomSimulation(nullptr, kOutputX, 1, &g); }),
            "RandomSimulation: make_simulator is empty");
  EXPECT_EQ(message([&] { RandomSimulation(factory, nullptr, 1, &g); }),
            "RandomSimulation: output is empty");
  const SimulatorFactory null_factory = [](RandomGenerator*) {
    return std::unique_ptr<Simulator<double>>();
  };
  EXPECT_NE(message([&] {
              RandomSimulation(null_factory, kOutputX, 1, &g);
            }).find("null simulator"),
            std::string::npos);
  // Inside Monte Carlo the same mistake is a per-sample error.
  const auto results = MonteCarloSimulation(null_factory, kOutputX, 1, 2, &g);
  EXPECT_NE(results[1].error.find("null simulator"), std::string::npos);
  EXPECT_TRUE(MonteCarloSimulation(factory, kOutputX, 1, 0, &g).empty());
  // An infinite final time would run forever; NaN would fail every sample.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(message([&] { RandomSimulation(factory, kOutputX, inf, &g); }),
            "RandomSimulation: final_time must be finite, got inf");
  EXPECT_EQ(message([&] {
              MonteCarloSimulation(factory, kOutputX,
                                   std::numeric_limits<double>::quiet_NaN(), 2,
                                   &g);
            }),
            "MonteCarloSimulation: final_time must be finite, got nan");
}

// Wilson score interval against its closed forms.
TEST(EstimateProportionTest, WilsonInterval) {
  const double z = 1.96, z2 = z * z;
  // No successes: [0, z^2 / (n + z^2)].
  auto e = EstimateProportion(0, 10, z);
  EXPECT_EQ(e.estimate, 0.0);
  EXPECT_NEAR(e.lower, 0.0, 1e-15);
  EXPECT_NEAR(e.upper, z2 / (10 + z2), 1e-15);
  // All successes: [n / (n + z^2), 1].
  e = EstimateProportion(10, 10, z);
  EXPECT_NEAR(e.lower, 10 / (10 + z2), 1e-15);
  EXPECT_NEAR(e.upper, 1.0, 1e-15);
  // Symmetry k <-> n - k.
  const auto a = EstimateProportion(3, 40, z);
  const auto b = EstimateProportion(37, 40, z);
  EXPECT_NEAR(a.lower, 1 - b.upper, 1e-15);
  EXPECT_NEAR(a.upper, 1 - b.lower, 1e-15);
  // Large n: the normal approximation p ± z sqrt(p (1 - p) / n).
  const auto big = EstimateProportion(300000, 1000000, z);
  const double half = z * std::sqrt(0.3 * 0.7 / 1e6);
  EXPECT_NEAR(big.lower, 0.3 - half, 1e-6);
  EXPECT_NEAR(big.upper, 0.3 + half, 1e-6);
  EXPECT_THROW(EstimateProportion(5, 4), std::invalid_argument);
  EXPECT_THROW(EstimateProportion(0, 0), std::invalid_argument);
  EXPECT_THROW(EstimateProportion(1, 4, -1.0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
