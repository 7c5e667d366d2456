// LcmPublisherSystem publishes its input at k * period with the time, bit
// for bit, seeing x⁻(t).
#include "tern/lcm/lcm_publisher_system.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/sine.h"

namespace tern {
namespace {

TEST(LcmPublisherSystem, PublishesTheInputAtEachPeriod) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  const std::string channel = UniqueChannelName("SINE");
  auto translator = std::make_shared<LcmVectorTranslator>("sensor", 2);
  DiagramBuilder<double> builder;
  auto* sine = builder.AddSystem<Sine<double>>(
      VectorX<double>::Constant(2, 1.5), VectorX<double>::Constant(2, 3.0),
      VectorX<double>::Zero(2));
  auto* pub =
      builder.AddSystem<LcmPublisherSystem>(channel, translator, &lcm, 0.1);
  builder.Connect(sine->get_output_port(0), pub->get_input_port(0));
  auto diagram = builder.Build();

  std::map<std::int64_t, VectorX<double>> got;
  lcm.Subscribe(channel, "test", [&](const std::uint8_t* d, int n) {
    std::int64_t utime = 0;
    VectorX<double> v;
    translator->Decode(d, n, channel, &utime, &v);
    got[utime] = v;
  });
  Simulator<double> sim(*diagram);
  sim.AdvanceTo(0.5);
  for (int i = 0; i < 200 && got.size() < 6; ++i) lcm.HandleSubscriptions(0.05);
  ASSERT_EQ(got.size(), 6u);  // t = 0, 0.1, ..., 0.5
  auto context = diagram->CreateDefaultContext();
  for (const auto& [utime, v] : got) {
    // The simulator's event time k * 0.1 (utime holds it to the us).
    context->SetTime(static_cast<double>(utime / 100000) * 0.1);
    ASSERT_EQ(utime % 100000, 0);
    const VectorX<double>& expected =
        sine->get_output_port(0).Eval(sine->GetMyContextFromRoot(*context));
    EXPECT_EQ(v, expected) << "at utime " << utime;
  }
}

TEST(LcmPublisherSystem, BadArgumentsAndClash) {
  LcmInterface lcm(LoopbackUrlForThisProcess());
  auto t = std::make_shared<LcmVectorTranslator>("sensor", 2);
  EXPECT_THROW(LcmPublisherSystem("X", nullptr, &lcm, 0.1),
               std::invalid_argument);
  EXPECT_THROW(LcmPublisherSystem("X", t, nullptr, 0.1), std::invalid_argument);
  EXPECT_THROW(LcmPublisherSystem("X", t, &lcm, -1), std::invalid_argument);
  LcmPublisherSystem first("X", t, &lcm, 0.1);
  try {
    LcmPublisherSystem second("X", t, &lcm, 0);
    FAIL() << "no clash";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("channel clash"), std::string::npos);
  }
}

}  // namespace
}  // namespace tern
