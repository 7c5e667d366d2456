#pragma once
// RandomGenerator: the one pseudo-random number generator of Tern, and the
// distributions drawn from it.
//
// Engine. xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom
// number generators", ACM TOMS 47(4), 2021): 256 bits of state, period
// 2^256 - 1, passes BigCrush and PractRand, a few integer operations per
// draw. The generator is a 56-byte value type (trivially copyable, no heap),
// so its state can live in a Context as abstract state and be cloned with it;
// a copy continues the exact same stream as the original.
//
// Seeding. A 64-bit seed is expanded into the 256-bit state by SplitMix64
// (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014), as the xoshiro authors recommend, so nearby seeds give
// unrelated streams. seed() returns the seed the generator was last seeded
// with: Monte Carlo records it per sample, and RandomGenerator(seed) replays
// that sample. DeriveSeed(parent, index) gives deterministic, distinct child
// seeds (one per RandomSource, one per Monte Carlo sample).
//
// Reproducibility. The standard library's distributions
// (std::normal_distribution, ...) are specified by their output distribution
// only; libstdc++, libc++ and MSVC use different algorithms and give
// different numbers for the same engine state. Ours are written here and use
// only integer arithmetic and the IEEE-754 basic operations (+ - * / sqrt),
// which are correctly rounded and therefore bit-identical on every platform
// with FLT_EVAL_METHOD == 0 (SSE2, AArch64, ...). The logarithm they need is
// DeterministicLog below (libm's log is not correctly rounded and differs
// between C libraries). random_generator.cc is compiled with
// -ffp-contract=off so no fused multiply-add changes a rounding; do not build
// it with -ffast-math.
//   Uniform():     [0, 1), the top 53 bits of a draw times 2^-53.
//   Gaussian():    standard normal by Marsaglia's polar method (Marsaglia &
//                  Bray, SIAM Review 6(3), 1964); the second value of each
//                  pair is kept in the generator and returned by the next
//                  call, so it is part of the copied state.
//   Exponential(): rate 1 by inversion, -log(1 - U).
//
// It also models std::uniform_random_bit_generator, so it can drive a
// standard distribution, at the price of platform-dependent results.
#include <bit>
#include <cstdint>

#include "tern/common/random_distribution.h"

namespace tern {

class RandomGenerator {
 public:
  using result_type = std::uint64_t;

  // Seed of a default-constructed generator.
  static constexpr std::uint64_t kDefaultSeed = 0x7465726E5EEDull;

  RandomGenerator() : RandomGenerator(kDefaultSeed) {}
  explicit RandomGenerator(std::uint64_t seed) { Seed(seed); }

  // Restarts the stream from `seed` (drops any pending Gaussian).
  void Seed(std::uint64_t seed);
  // The seed given to the constructor or the last Seed() call.
  std::uint64_t seed() const { return seed_; }

  // A generator with the given raw xoshiro256** state (seed() is 0), to
  // check the engine against published test vectors. Throws
  // std::invalid_argument if all four words are zero.
  static RandomGenerator FromState(std::uint64_t s0, std::uint64_t s1,
                                   std::uint64_t s2, std::uint64_t s3);

  // The next 64 uniformly distributed bits.
  std::uint64_t NextUint64() {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }
  result_type operator()() { return NextUint64(); }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }

  // A seed for a child generator, drawn from this stream (Monte Carlo draws
  // one per sample so that RandomGenerator(that seed) replays the sample).
  std::uint64_t NextSeed() { return NextUint64(); }

  // Uniform on [0, 1), in steps of 2^-53.
  double Uniform() {
    return static_cast<double>(NextUint64() >> 11) * 0x1.0p-53;
  }
  // Standard normal: mean 0, variance 1.
  double Gaussian();
  // Exponential with rate 1: mean 1, variance 1.
  double Exponential();
  // One sample of `distribution` (see RandomDistribution).
  double Sample(RandomDistribution distribution);

  // The index-th child seed of `parent_seed`: a fixed bijective hash of
  // both, so different indices give different seeds for the same parent and
  // the children's streams are statistically independent.
  static std::uint64_t DeriveSeed(std::uint64_t parent_seed,
                                  std::uint64_t index);

  // Equal generators produce equal streams from here on.
  bool operator==(const RandomGenerator&) const = default;

 private:
  std::uint64_t s_[4];              // xoshiro256** state
  std::uint64_t seed_{};            // last seed, for seed()
  double spare_gaussian_{0.0};      // second value of the last polar pair
  bool has_spare_gaussian_{false};  // spare_gaussian_ is pending
};

// The SplitMix64 output function (Stafford's "Mix13" finalizer): a bijection
// on 64-bit words that scatters every input bit over the output.
std::uint64_t SplitMix64Mix(std::uint64_t z);

// Natural logarithm computed with IEEE basic operations only, so it returns
// the same bits on every platform (libm's log need not). Accurate to about 1
// ulp. x must be positive and finite; returns -inf for 0 and NaN for
// negative or NaN input. Used by the distributions above.
double DeterministicLog(double x);

}  // namespace tern
