#pragma once
// RandomSource: the one block through which randomness enters a simulation
// (seed 002). Its vector output "y0" holds `size` independent samples of
// `distribution`, redrawn at every multiple of `sampling_interval` by a
// periodic unrestricted update (offset 0) and held constant in between
// (zero-order hold). The current samples are discrete state (group 0) and the
// generator is abstract state 0, so every output is a deterministic function
// of the Context and a cloned Context continues with the same stream.
//
// Seeds. Every RandomSource gets its own default seed when it is created:
// DeriveSeed(kDefaultSeed, n) for the n-th source the process creates
// (counting from 0), so two sources never share a default stream, whether
// they are in one diagram, in two, or in none, and a program that creates
// its sources in the same order gets the same default run every time.
// set_fixed_seed() pins the seed instead; it is honoured by SetDefaultState
// and by SetRandomState (System::SetRandomContext) alike. Without a fixed
// seed, SetRandomState seeds the generator from the generator it is given,
// which is how Monte Carlo varies the noise from sample to sample; a fixed
// source still takes its seed from that generator (and ignores it), so that
// fixing one source does not change the streams of the others.
//
// Continuous time: a Gaussian source held over intervals h is not white
// noise; to approximate white noise of intensity (power spectral density)
// sigma^2, scale the samples by sigma / sqrt(h) (docs/stochastic.md).
#include <cstdint>
#include <optional>

#include "tern/common/default_scalars.h"
#include "tern/common/random_distribution.h"
#include "tern/common/random_generator.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class DiagramBuilder;

template <typename T>
class RandomSource final : public LeafSystem<T> {
 public:
  // Throws std::invalid_argument unless size >= 1 and sampling_interval is
  // positive and finite.
  RandomSource(RandomDistribution distribution, int size,
               double sampling_interval);

  RandomDistribution get_distribution() const { return distribution_; }
  int size() const { return size_; }
  double sampling_interval() const { return sampling_interval_; }

  // Fixes (or, with nullopt, un-fixes) the seed SetDefaultState and
  // SetRandomState use; it affects contexts created, reset or randomized
  // afterwards.
  void set_fixed_seed(std::optional<std::uint64_t> seed) { fixed_seed_ = seed; }
  std::optional<std::uint64_t> get_fixed_seed() const { return fixed_seed_; }
  // The seed SetDefaultState uses: the fixed seed, else
  // DeriveSeed(kDefaultSeed, instance_number()).
  std::uint64_t default_seed() const;
  // This source's place in the order the process created RandomSources.
  std::uint64_t instance_number() const { return instance_number_; }

  // Seeds the generator with default_seed() and draws the first samples.
  void SetDefaultState(const Context<T>& context,
                       State<T>* state) const override;
  // Seeds the generator with generator->NextSeed() (or the fixed seed, after
  // drawing that seed all the same) and draws the first samples.
  void SetRandomState(const Context<T>& context, State<T>* state,
                      RandomGenerator* generator) const override;

 private:
  void Reseed(std::uint64_t seed, State<T>* state) const;
  EventStatus Update(const Context<T>& context, State<T>* state) const;
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;

  RandomDistribution distribution_;
  int size_;
  double sampling_interval_;  // s
  std::optional<std::uint64_t> fixed_seed_;
  std::uint64_t instance_number_;
};

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(RandomSource)

// Connects a new RandomSource (of the port's distribution and size, with the
// given sampling interval) to every random vector input port of the systems
// in `builder` that is neither connected nor exported. Systems are visited in
// the order they were added, ports in index order, so the added sources (and
// their default seeds) are the same on every run. Returns how many it added.
// Throws std::invalid_argument if builder is null or sampling_interval is not
// positive and finite.
template <typename T>
int AddRandomInputs(double sampling_interval, DiagramBuilder<T>* builder);

}  // namespace tern
