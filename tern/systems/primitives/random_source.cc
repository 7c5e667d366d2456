#include "tern/systems/primitives/random_source.h"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "tern/systems/framework/diagram.h"
#include "tern/systems/framework/diagram_builder.h"

namespace tern {

namespace {
// Shared by both scalar types, so that a double and an AutoDiffXd source
// never share a default seed either.
std::atomic<std::uint64_t> next_instance_number{0};
}  // namespace

template <typename T>
RandomSource<T>::RandomSource(RandomDistribution distribution, int size,
                              double sampling_interval)
    : LeafSystem<T>(),
      distribution_(distribution),
      size_(size),
      sampling_interval_(sampling_interval),
      instance_number_(next_instance_number.fetch_add(1)) {
  if (size < 1) {
    throw std::invalid_argument(
        fmt::format("RandomSource: size must be at least 1, got {}", size));
  }
  if (!(sampling_interval > 0) || !std::isfinite(sampling_interval)) {
    throw std::invalid_argument(fmt::format(
        "RandomSource: sampling_interval must be positive and finite, got {}",
        sampling_interval));
  }
  if (distribution != RandomDistribution::kUniform &&
      distribution != RandomDistribution::kGaussian &&
      distribution != RandomDistribution::kExponential) {
    throw std::invalid_argument(
        fmt::format("RandomSource: unknown RandomDistribution value {}",
                    static_cast<int>(distribution)));
  }
  this->DeclareDiscreteState(size);
  this->DeclareAbstractState(RandomGenerator());
  this->DeclarePeriodicUnrestrictedUpdateEvent(sampling_interval, 0.0,
                                               &RandomSource::Update);
  this->DeclareVectorOutputPort("y0", size, &RandomSource::CalcOutput,
                                ticket::kXd);
}

template <typename T>
std::uint64_t RandomSource<T>::default_seed() const {
  if (fixed_seed_) return *fixed_seed_;
  return RandomGenerator::DeriveSeed(RandomGenerator::kDefaultSeed,
                                     instance_number_);
}

template <typename T>
void RandomSource<T>::Reseed(std::uint64_t seed, State<T>* state) const {
  RandomGenerator& generator =
      state->template get_mutable_abstract_state<RandomGenerator>(0);
  generator.Seed(seed);
  VectorX<T>& w = state->get_mutable_discrete_state().get_mutable_vector(0);
  for (int i = 0; i < size_; ++i) w[i] = generator.Sample(distribution_);
}

template <typename T>
void RandomSource<T>::SetDefaultState(const Context<T>&,
                                      State<T>* state) const {
  Reseed(default_seed(), state);
}

template <typename T>
void RandomSource<T>::SetRandomState(const Context<T>&, State<T>* state,
                                     RandomGenerator* generator) const {
  if (generator == nullptr) {
    throw std::invalid_argument(fmt::format(
        "RandomSource '{}': SetRandomState needs a generator, got null",
        this->GetPathName()));
  }
  const std::uint64_t drawn = generator->NextSeed();
  Reseed(fixed_seed_ ? *fixed_seed_ : drawn, state);
}

template <typename T>
EventStatus RandomSource<T>::Update(const Context<T>& context,
                                    State<T>* state) const {
  // x⁺ from x⁻: continue the generator held in the context.
  RandomGenerator generator =
      context.template get_abstract_state<RandomGenerator>(0);
  VectorX<T>& w = state->get_mutable_discrete_state().get_mutable_vector(0);
  for (int i = 0; i < size_; ++i) w[i] = generator.Sample(distribution_);
  state->template get_mutable_abstract_state<RandomGenerator>(0) = generator;
  return EventStatus::Succeeded();
}

template <typename T>
void RandomSource<T>::CalcOutput(const Context<T>& context,
                                 VectorX<T>* y) const {
  *y = context.get_discrete_state(0);
}

template <typename T>
int AddRandomInputs(double sampling_interval, DiagramBuilder<T>* builder) {
  if (builder == nullptr) {
    throw std::invalid_argument("AddRandomInputs: builder is null");
  }
  if (!(sampling_interval > 0) || !std::isfinite(sampling_interval)) {
    throw std::invalid_argument(fmt::format(
        "AddRandomInputs: sampling_interval must be positive and finite, got "
        "{}",
        sampling_interval));
  }
  int count = 0;
  // GetSystems() is a snapshot: the sources added below are not visited.
  for (System<T>* system : builder->GetSystems()) {
    for (int i = 0; i < system->num_input_ports(); ++i) {
      const InputPort<T>& port = system->get_input_port(i);
      if (!port.is_random() || builder->IsConnectedOrExported(port)) continue;
      auto* source = builder->template AddNamedSystem<RandomSource<T>>(
          fmt::format("random_source_for_{}_{}", system->get_name(),
                      port.get_name()),
          *port.get_random_type(), port.size(), sampling_interval);
      builder->Connect(source->get_output_port(0), port);
      ++count;
    }
  }
  return count;
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(RandomSource)
template int AddRandomInputs<double>(double, DiagramBuilder<double>*);
template int AddRandomInputs<AutoDiffXd>(double, DiagramBuilder<AutoDiffXd>*);

}  // namespace tern
