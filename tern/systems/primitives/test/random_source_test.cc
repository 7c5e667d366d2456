#include "tern/systems/primitives/random_source.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

// xdot = u, u a random Gaussian input of size 1: integrates the noise.
class NoiseIntegrator final : public LeafSystem<double> {
 public:
  NoiseIntegrator() {
    DeclareContinuousState(1);
    DeclareVectorInputPort("w", 1, RandomDistribution::kGaussian);
    DeclareVectorOutputPort("x", 1, &NoiseIntegrator::CalcX, ticket::kXc);
  }
  void DoCalcTimeDerivatives(const Context<double>& context,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    xdot[0] = get_input_port(0).Eval(context)[0];
  }

 private:
  void CalcX(const Context<double>& c, VectorX<double>* y) const {
    *y = c.get_continuous_state_vector();
  }
};

// Ports of every kind, to test AddRandomInputs: a (Gaussian, 2),
// b (uniform, 1), c (not random), d (exponential, 1).
class ManyInputs final : public LeafSystem<double> {
 public:
  ManyInputs() {
    DeclareVectorInputPort("a", 2, RandomDistribution::kGaussian);
    DeclareVectorInputPort("b", 1, RandomDistribution::kUniform);
    DeclareVectorInputPort("c", 1);
    DeclareVectorInputPort("d", 1, RandomDistribution::kExponential);
    DeclareVectorOutputPort(
        "sum", 1,
        [this](const Context<double>& c, VectorX<double>* y) {
          (*y)[0] = get_input_port(0).Eval(c).sum() +
                    get_input_port(1).Eval(c)[0] + get_input_port(3).Eval(c)[0];
        },
        ticket::kInputs);
  }
};

template <typename F>
std::string ThrownMessage(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

std::vector<double> Draws(std::uint64_t seed, RandomDistribution d, int n) {
  RandomGenerator g(seed);
  std::vector<double> out(n);
  for (double& x : out) x = g.Sample(d);
  return out;
}

TEST(RandomSourceTest, RejectsBadArguments) {
  EXPECT_NE(ThrownMessage([] {
              RandomSource<double>(RandomDistribution::kUniform, 0, 0.1);
            }).find("size must be at least 1, got 0"),
            std::string::npos);
  for (double h : {0.0, -1.0, double{NAN}, double{INFINITY}}) {
    EXPECT_NE(ThrownMessage([h] {
                RandomSource<double>(RandomDistribution::kUniform, 1, h);
              }).find("sampling_interval must be positive and finite"),
              std::string::npos)
        << h;
  }
  EXPECT_NE(ThrownMessage([] {
              RandomSource<double>(static_cast<RandomDistribution>(9), 1, 0.1);
            }).find("unknown RandomDistribution value 9"),
            std::string::npos);
}

// The output is the generator's stream, held between multiples of h: the
// default context holds draw set 0; the update at t = 0 (start of the first
// step) gives set 1 on (0, h], the update at h gives set 2, and so on.
TEST(RandomSourceTest, ZeroOrderHoldOfTheGeneratorStream) {
  for (auto d : {RandomDistribution::kUniform, RandomDistribution::kGaussian,
                 RandomDistribution::kExponential}) {
    RandomSource<double> source(d, 3, 0.1);
    source.set_fixed_seed(99);
    EXPECT_EQ(source.default_seed(), 99u);
    const std::vector<double> expected = Draws(99, d, 3 * 5);
    auto set = [&](int k) {
      return Eigen::Map<const VectorX<double>>(&expected[3 * k], 3).eval();
    };
    Simulator<double> simulator(source);
    const auto& context = simulator.get_context();
    auto y = [&] { return source.get_output_port(0).Eval(context); };
    EXPECT_EQ(y(), set(0)) << to_string(d);
    simulator.AdvanceTo(0.05);
    EXPECT_EQ(y(), set(1)) << to_string(d);
    simulator.AdvanceTo(0.1);
    EXPECT_EQ(y(), set(1)) << to_string(d);
    simulator.AdvanceTo(0.15);
    EXPECT_EQ(y(), set(2)) << to_string(d);
    simulator.AdvanceTo(0.35);
    EXPECT_EQ(y(), set(4)) << to_string(d);
  }
}

// Every source gets its own default seed, whether it is in one diagram with
// another, in another diagram built the same way, or alone: the n-th source
// the process creates is seeded with DeriveSeed(kDefaultSeed, n).
TEST(RandomSourceTest, EveryInstanceGetsItsOwnDefaultSeed) {
  auto build = [] {
    DiagramBuilder<double> builder;
    builder.AddSystem<RandomSource<double>>(RandomDistribution::kGaussian, 1,
                                            0.1);
    builder.AddSystem<RandomSource<double>>(RandomDistribution::kGaussian, 1,
                                            0.1);
    return builder.Build();
  };
  const auto d1 = build();
  const auto d2 = build();
  auto source = [](const Diagram<double>& d,
                   int i) -> const RandomSource<double>& {
    return dynamic_cast<const RandomSource<double>&>(d.get_subsystem(i));
  };
  std::vector<std::uint64_t> seeds = {
      source(*d1, 0).default_seed(), source(*d1, 1).default_seed(),
      source(*d2, 0).default_seed(), source(*d2, 1).default_seed()};
  // Two standalone sources, created separately (the case that used to share
  // the library's default seed and so the same output).
  RandomSource<double> alone_a(RandomDistribution::kUniform, 1, 0.1);
  RandomSource<double> alone_b(RandomDistribution::kUniform, 1, 0.1);
  RandomSource<AutoDiffXd> alone_ad(RandomDistribution::kUniform, 1, 0.1);
  seeds.push_back(alone_a.default_seed());
  seeds.push_back(alone_b.default_seed());
  seeds.push_back(alone_ad.default_seed());
  for (size_t i = 0; i < seeds.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE(seeds[i], seeds[j]) << i << " " << j;
  // Creation order decides: consecutive instance numbers, and the seed is a
  // function of the number alone (so a program that creates its sources in
  // the same order gets the same default run every time).
  EXPECT_EQ(source(*d1, 1).instance_number(),
            source(*d1, 0).instance_number() + 1);
  EXPECT_EQ(alone_b.instance_number(), alone_a.instance_number() + 1);
  EXPECT_EQ(alone_a.default_seed(),
            RandomGenerator::DeriveSeed(RandomGenerator::kDefaultSeed,
                                        alone_a.instance_number()));
  // Different seeds, different outputs in default contexts.
  auto first_sample = [](const RandomSource<double>& s) {
    const auto context = s.CreateDefaultContext();
    return s.get_output_port(0).Eval(*context)[0];
  };
  EXPECT_NE(first_sample(alone_a), first_sample(alone_b));
  const auto c1 = d1->CreateDefaultContext();
  const auto c2 = d2->CreateDefaultContext();
  auto sample = [](const Diagram<double>& d, const Context<double>& c, int i) {
    const System<double>& s = d.get_subsystem(i);
    return s.get_output_port(0).Eval(s.GetMyContextFromRoot(c))[0];
  };
  EXPECT_NE(sample(*d1, *c1, 0), sample(*d1, *c1, 1));
  EXPECT_NE(sample(*d1, *c1, 0), sample(*d2, *c2, 0));
  // A fixed seed overrides it, and un-fixing restores it.
  const std::uint64_t own = alone_a.default_seed();
  alone_a.set_fixed_seed(5);
  EXPECT_EQ(alone_a.get_fixed_seed(), 5u);
  EXPECT_EQ(alone_a.default_seed(), 5u);
  alone_a.set_fixed_seed(std::nullopt);
  EXPECT_EQ(alone_a.default_seed(), own);
}

// set_fixed_seed is honoured by SetRandomContext too; the fixed source still
// takes its seed from the generator, so the other sources' streams do not
// change when one is fixed.
TEST(RandomSourceTest, FixedSeedIsHonouredBySetRandomContext) {
  auto build = [](bool fix_first) {
    DiagramBuilder<double> builder;
    auto* a = builder.AddSystem<RandomSource<double>>(
        RandomDistribution::kGaussian, 1, 0.1);
    builder.AddSystem<RandomSource<double>>(RandomDistribution::kGaussian, 1,
                                            0.1);
    if (fix_first) a->set_fixed_seed(1234);
    return builder.Build();
  };
  auto seeds = [](const Diagram<double>& d) {
    auto context = d.CreateDefaultContext();
    RandomGenerator generator(77);
    d.SetRandomContext(context.get(), &generator);
    std::vector<std::uint64_t> out;
    for (int i = 0; i < 2; ++i) {
      const auto& leaf = d.get_subsystem(i).GetMyContextFromRoot(*context);
      out.push_back(leaf.get_abstract_state<RandomGenerator>(0).seed());
    }
    return out;
  };
  const auto free_seeds = seeds(*build(false));
  const auto fixed_seeds = seeds(*build(true));
  EXPECT_EQ(fixed_seeds[0], 1234u);
  EXPECT_NE(free_seeds[0], 1234u);
  EXPECT_EQ(fixed_seeds[1], free_seeds[1]);
  RandomGenerator reference(77);
  EXPECT_EQ(free_seeds[0], reference.NextSeed());
  EXPECT_EQ(free_seeds[1], reference.NextSeed());
}

// SetRandomContext reseeds each source with the next seed of the generator,
// in the diagram's leaf order.
TEST(RandomSourceTest, SetRandomContextReseedsInLeafOrder) {
  DiagramBuilder<double> builder;
  builder.AddSystem<RandomSource<double>>(RandomDistribution::kUniform, 2, 0.1);
  builder.AddSystem<RandomSource<double>>(RandomDistribution::kExponential, 1,
                                          0.2);
  const auto diagram = builder.Build();
  auto context = diagram->CreateDefaultContext();
  RandomGenerator generator(5);
  diagram->SetRandomContext(context.get(), &generator);
  RandomGenerator reference(5);
  for (int i = 0; i < 2; ++i) {
    const auto& source =
        dynamic_cast<const RandomSource<double>&>(diagram->get_subsystem(i));
    const auto& leaf = source.GetMyContextFromRoot(*context);
    const std::uint64_t seed = reference.NextSeed();
    EXPECT_EQ(leaf.get_abstract_state<RandomGenerator>(0).seed(), seed);
    const auto draws = Draws(seed, source.get_distribution(), source.size());
    for (int j = 0; j < source.size(); ++j) {
      EXPECT_EQ(source.get_output_port(0).Eval(leaf)[j], draws[j]);
    }
  }
  EXPECT_EQ(generator, reference);
  EXPECT_NE(ThrownMessage([&] {
              const auto& source = dynamic_cast<const RandomSource<double>&>(
                  diagram->get_subsystem(1));
              auto& leaf = source.GetMyMutableContextFromRoot(context.get());
              State<double> state = leaf.get_mutable_state();
              source.SetRandomState(leaf, &state, nullptr);
            }).find("needs a generator"),
            std::string::npos);
}

std::unique_ptr<Diagram<double>> NoiseDiagram() {
  DiagramBuilder<double> builder;
  auto* integrator = builder.AddSystem<NoiseIntegrator>();
  EXPECT_EQ(AddRandomInputs(0.1, &builder), 1);
  builder.ExportOutput(integrator->get_output_port(0), "x");
  return builder.Build();
}

// Same seed, same diagram: bit-identical trajectories across runs; another
// seed gives another trajectory.
TEST(RandomSourceTest, SameSeedSameTrajectory) {
  const auto diagram = NoiseDiagram();
  auto run = [&](std::uint64_t seed) {
    Simulator<double> simulator(*diagram);
    RandomGenerator generator(seed);
    diagram->SetRandomContext(&simulator.get_mutable_context(), &generator);
    std::vector<double> x;
    for (int k = 1; k <= 20; ++k) {
      simulator.AdvanceTo(0.05 * k);
      x.push_back(diagram->get_output_port(0).Eval(simulator.get_context())[0]);
    }
    return x;
  };
  const auto a = run(11), b = run(11), c = run(12);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a[i]),
              std::bit_cast<std::uint64_t>(b[i]))
        << i;
  }
  EXPECT_NE(a.back(), c.back());
}

// Cloning the Context mid-simulation copies the generator state: both copies
// continue bit-identically.
TEST(RandomSourceTest, ContextCloneMidSimulationContinuesIdentically) {
  const auto diagram = NoiseDiagram();
  Simulator<double> first(*diagram);
  RandomGenerator generator(3);
  diagram->SetRandomContext(&first.get_mutable_context(), &generator);
  first.AdvanceTo(0.37);
  Simulator<double> second(*diagram, first.get_context().Clone());
  first.AdvanceTo(1.23);
  second.AdvanceTo(1.23);
  const auto& c1 = first.get_context();
  const auto& c2 = second.get_context();
  EXPECT_EQ(c1.get_time(), c2.get_time());
  EXPECT_EQ(std::bit_cast<std::uint64_t>(c1.get_continuous_state_vector()[0]),
            std::bit_cast<std::uint64_t>(c2.get_continuous_state_vector()[0]));
  const auto& source = diagram->get_subsystem(1);
  const auto& g1 =
      source.GetMyContextFromRoot(c1).get_abstract_state<RandomGenerator>(0);
  const auto& g2 =
      source.GetMyContextFromRoot(c2).get_abstract_state<RandomGenerator>(0);
  EXPECT_EQ(g1, g2);
  // And the noise was not constant: the generator advanced 13 times
  // (updates at 0, 0.1, ..., 1.2) beyond its seeded state.
  RandomGenerator expected(g1.seed());
  for (int k = 0; k < 1 + 13; ++k) expected.Gaussian();
  EXPECT_EQ(g1, expected);
}

// Redrawing samples copies the generator and writes the held vector in
// place: simulating through many updates does not allocate.
TEST(RandomSourceTest, UpdatesDoNotAllocate) {
  const auto diagram = NoiseDiagram();
  Simulator<double> simulator(*diagram);
  simulator.AdvanceTo(0.25);  // warm up: initialization, caches
  std::int64_t allocations = 0;
  {
    test::ScopedAllocationCounter counter;
    simulator.AdvanceTo(2.0);  // 18 updates of the source
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(RandomSourceTest, AddRandomInputsWiresUnconnectedRandomPorts) {
  DiagramBuilder<double> builder;
  auto* sink = builder.AddSystem<ManyInputs>();
  auto* manual = builder.AddSystem<RandomSource<double>>(
      RandomDistribution::kExponential, 1, 0.5);
  builder.Connect(manual->get_output_port(0), sink->get_input_port("d"));
  builder.ExportInput(sink->get_input_port("c"), "c");
  builder.ExportOutput(sink->get_output_port(0), "sum");
  EXPECT_EQ(AddRandomInputs(0.25, &builder), 2);
  EXPECT_EQ(AddRandomInputs(0.25, &builder), 0);  // all wired now
  const auto systems = builder.GetSystems();
  ASSERT_EQ(systems.size(), 4u);
  const auto* for_a = dynamic_cast<RandomSource<double>*>(systems[2]);
  const auto* for_b = dynamic_cast<RandomSource<double>*>(systems[3]);
  ASSERT_NE(for_a, nullptr);
  ASSERT_NE(for_b, nullptr);
  EXPECT_EQ(for_a->get_distribution(), RandomDistribution::kGaussian);
  EXPECT_EQ(for_a->size(), 2);
  EXPECT_EQ(for_a->sampling_interval(), 0.25);
  EXPECT_EQ(for_b->get_distribution(), RandomDistribution::kUniform);
  EXPECT_EQ(for_b->size(), 1);
  EXPECT_NE(for_a->get_name().find("a"), std::string::npos);

  const auto diagram = builder.Build();
  auto context = diagram->CreateDefaultContext();
  diagram->get_input_port(0).FixValue(context.get(), 0.0);
  const auto& a_ctx = for_a->GetMyContextFromRoot(*context);
  const auto& b_ctx = for_b->GetMyContextFromRoot(*context);
  const auto& d_ctx = manual->GetMyContextFromRoot(*context);
  EXPECT_EQ(diagram->get_output_port(0).Eval(*context)[0],
            for_a->get_output_port(0).Eval(a_ctx).sum() +
                for_b->get_output_port(0).Eval(b_ctx)[0] +
                manual->get_output_port(0).Eval(d_ctx)[0]);
}

// Random ports exported by a subdiagram stay random, and AddRandomInputs on
// the enclosing builder feeds them.
TEST(RandomSourceTest, AddRandomInputsFeedsSubdiagramPorts) {
  DiagramBuilder<double> inner;
  auto* integrator = inner.AddSystem<NoiseIntegrator>();
  inner.ExportInput(integrator->get_input_port(0), "w");
  inner.ExportOutput(integrator->get_output_port(0), "x");
  DiagramBuilder<double> outer;
  auto* sub = outer.AddSystem(inner.Build());
  EXPECT_TRUE(sub->get_input_port(0).is_random());
  EXPECT_EQ(AddRandomInputs(0.1, &outer), 1);
  const auto diagram = outer.Build();
  Simulator<double> simulator(*diagram);
  simulator.AdvanceTo(0.25);  // runs: the input is connected
  EXPECT_NE(integrator->get_output_port(0).Eval(
                integrator->GetMyContextFromRoot(simulator.get_context()))[0],
            0.0);
}

TEST(RandomSourceTest, AddRandomInputsRejectsBadArguments) {
  EXPECT_NE(ThrownMessage([] {
              AddRandomInputs<double>(0.1, nullptr);
            }).find("builder is null"),
            std::string::npos);
  DiagramBuilder<double> builder;
  EXPECT_NE(ThrownMessage([&] {
              AddRandomInputs(-0.1, &builder);
            }).find("sampling_interval must be positive and finite, got -0.1"),
            std::string::npos);
}

TEST(RandomSourceTest, AutoDiffSourceMatchesDouble) {
  RandomSource<double> d(RandomDistribution::kGaussian, 2, 0.1);
  RandomSource<AutoDiffXd> a(RandomDistribution::kGaussian, 2, 0.1);
  // Same seed, same numbers (every instance's default seed is its own).
  d.set_fixed_seed(31);
  a.set_fixed_seed(31);
  const auto cd = d.CreateDefaultContext();
  const auto ca = a.CreateDefaultContext();
  const auto yd = d.get_output_port(0).Eval(*cd);
  const auto ya = a.get_output_port(0).Eval(*ca);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(ya[i].value(), yd[i]);
}

}  // namespace
}  // namespace tern
