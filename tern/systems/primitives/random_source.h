#pragma once
// RandomSource: the one block through which randomness enters a simulation
// (seed 002). Its vector output "y0" holds `size` independent samples of
// `distribution`, redrawn at every multiple of `sampling_interval` by a
// periodic unrestricted update (offset 0) and held constant in between
// (zero-order hold). The current samples are discrete state (group 0) and the
// generator is abstract state 0, so every output is a deterministic function
// of the Context and a cloned Context continues with the same stream.
//
// Seeds. SetDefaultState seeds the generator with default_seed(): the fixed
// seed if set_fixed_seed() was called, else one derived from the source's
// position in its diagram (the chain of subsystem indices from the root), so
// default runs are reproducible and each source in a diagram draws its own
// stream. SetRandomState (called by System::SetRandomContext) instead seeds
// it from the generator it is given, which is how Monte Carlo varies the
// noise from sample to sample.
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

  // Fixes (or, with nullopt, un-fixes) the seed SetDefaultState uses; it
  // affects contexts created or reset afterwards.
  void set_fixed_seed(std::optional<std::uint64_t> seed) { fixed_seed_ = seed; }
  std::optional<std::uint64_t> get_fixed_seed() const { return fixed_seed_; }
  // The seed SetDefaultState uses: the fixed seed, else
  // DeriveSeed(... DeriveSeed(kDefaultSeed, i_1) ..., i_n) over the indices
  // i_1..i_n of this source and its ancestors in their parents, root first.
  std::uint64_t default_seed() const;

  // Seeds the generator with default_seed() and draws the first samples.
  void SetDefaultState(const Context<T>& context,
                       State<T>* state) const override;
  // Seeds the generator with generator->NextSeed() and draws the first
  // samples.
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
