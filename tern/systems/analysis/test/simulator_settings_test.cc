// The Simulator's numeric settings are checked at once, naming the setting
// and the value (issue 12, item 8).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/primitives/affine_system.h"

namespace tern {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

LinearSystem<double> Decay() {
  return LinearSystem<double>(
      -Eigen::MatrixXd::Identity(1, 1), Eigen::MatrixXd(1, 0),
      Eigen::MatrixXd::Identity(1, 1), Eigen::MatrixXd(1, 0));
}

template <class Call>
void ExpectThrowNaming(const Call& call, const std::string& part) {
  try {
    call();
    ADD_FAILURE() << "no throw, expected '" << part << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(SimulatorSettingsTest, WitnessToleranceMustBeFiniteAndPositive) {
  const auto system = Decay();
  Simulator<double> simulator(system);
  for (double bad : {0.0, -1e-9, kNaN, kInf}) {
    ExpectThrowNaming([&] { simulator.set_witness_time_tolerance(bad); },
                      "set_witness_time_tolerance");
  }
  EXPECT_EQ(simulator.get_witness_time_tolerance(), 1e-12);
}

TEST(SimulatorSettingsTest, RealtimeRateMustBeFiniteAndNonNegative) {
  const auto system = Decay();
  Simulator<double> simulator(system);
  for (double bad : {-1.0, kNaN, kInf}) {
    ExpectThrowNaming([&] { simulator.set_target_realtime_rate(bad); },
                      "set_target_realtime_rate");
  }
}

// The integrator's settings through the Simulator: a rule by name with bad
// settings fails at reset_integrator; a fixed step below the time
// resolution fails at the first step that would not advance (before: hung).
TEST(SimulatorSettingsTest, IntegratorSettingsAreCheckedAtOnce) {
  const auto system = Decay();
  Simulator<double> simulator(system);
  IntegratorSettings settings;
  settings.max_step = 0;
  ExpectThrowNaming([&] { simulator.reset_integrator("dopri5", settings); },
                    "settings.max_step = 0");
  ExpectThrowNaming([&] { simulator.reset_integrator<RK4>(kNaN); },
                    "settings.fixed_step = nan");
  simulator.reset_integrator<RK4>(1e-17);
  simulator.get_mutable_context().SetTime(1.0);
  ExpectThrowNaming([&] { simulator.AdvanceTo(2.0); },
                    "settings.fixed_step = 1e-17 is below the time "
                    "resolution at t = 1");
  EXPECT_EQ(simulator.get_context().get_time(), 1.0);
  simulator.reset_integrator("dopri5");
  simulator.get_mutable_integrator().mutable_settings().rtol = -1e-6;
  ExpectThrowNaming([&] { simulator.AdvanceTo(2.0); },
                    "settings.rtol = -1e-06");
}

}  // namespace
}  // namespace tern
