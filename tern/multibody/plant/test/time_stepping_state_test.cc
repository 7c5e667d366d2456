// The time-stepping plant's state as plain numbers (SaveState, RestoreState)
// and its settable default state: a context restored from a saved state
// continues to the bit, the warm-start memory and the sleep counters are
// part of what must be saved, and a bad saved state is refused with the
// field named.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "tern/common/random_generator.h"
#include "tern/multibody/plant/test/time_stepping_test_scene.h"
#include "tern/systems/framework/context.h"

namespace tern::test {
namespace {

// A cube sliding on the ground (until it sticks) next to a sphere at rest on
// it, with sleeping on: the warm start and the sleep counters both carry
// information between steps.
struct Landing {
  Landing() {
    scene.AddCube(0.2);
    scene.AddSphere(0.1);
    TimeSteppingOptions options;
    options.sleeping = true;
    options.sleep_time = 0.05;
    plant = std::make_unique<TimeSteppingRigidBodySystem>(
        scene.tree, scene.Model(), 1e-3, std::vector<ActuatorPtr>{},
        std::vector<SensorPtr>{},
        std::vector<TimeSteppingRigidBodySystem::BilateralPtr>{}, options);
    q0 = scene.tree.GetZeroConfiguration();
    SetPose(&q0, 1, Vector3<double>(0, 0, 0.1), Matrix3<double>::Identity());
    SetPose(&q0, 2, Vector3<double>(1, 0, 0.1), Matrix3<double>::Identity());
    v0 = VectorX<double>::Zero(12);
    v0[Vel(1) + 3] = 0.5;  // the cube slides along x
  }
  using ActuatorPtr = TimeSteppingRigidBodySystem::ActuatorPtr;
  using SensorPtr = TimeSteppingRigidBodySystem::SensorPtr;
  void Step(Context<double>* context, int n) const {
    for (int i = 0; i < n; ++i) {
      State<double> state = context->get_mutable_state();
      plant->CalcNextState(*context, &state);
    }
  }
  Scene scene;
  std::unique_ptr<TimeSteppingRigidBodySystem> plant;
  VectorX<double> q0, v0;
};

bool BitIdentical(const VectorX<double>& a, const VectorX<double>& b) {
  if (a.size() != b.size()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return false;
  }
  return true;
}

TEST(TimeSteppingStateTest, RestoredContextContinuesBitIdentically) {
  Landing s;
  auto a = s.plant->CreateDefaultContext();
  s.plant->SetPositionsAndVelocities(a.get(), s.q0, s.v0);
  s.Step(a.get(), 40);  // the cube slides; the sphere counts still steps
  ASSERT_GT(s.plant->GetStepStats(*a).warm_started, 0);
  const TimeSteppingSavedState saved = s.plant->SaveState(*a);
  // Layout: version, 2 subtrees and their counters, then the entries.
  ASSERT_GE(saved.memory.size(), 4u);
  EXPECT_EQ(saved.memory[0], 1);
  EXPECT_EQ(saved.memory[1], 2);
  EXPECT_EQ(saved.memory[3], 40);  // the sphere has been still throughout
  EXPECT_GT(saved.memory[4], 0);   // warm-start entries
  EXPECT_EQ(saved.memory.size(), 5 + 15 * saved.memory[4]);

  auto b = s.plant->CreateDefaultContext();
  s.plant->RestoreState(saved, b.get());
  // Without the memory (discrete state only): the warm start and the sleep
  // counters start over.
  auto c = s.plant->CreateDefaultContext();
  TimeSteppingSavedState no_memory = s.plant->SaveState(*c);
  no_memory.discrete = saved.discrete;
  s.plant->RestoreState(no_memory, c.get());
  bool differed = false;
  for (int n : {1, 20, 100}) {
    s.Step(a.get(), n);
    s.Step(b.get(), n);
    s.Step(c.get(), n);
    EXPECT_TRUE(BitIdentical(s.plant->GetState(*a), s.plant->GetState(*b)))
        << "after " << n << " more steps";
    differed |= !BitIdentical(s.plant->GetState(*a), s.plant->GetState(*c));
    EXPECT_EQ(s.plant->GetStepStats(*a).num_sleeping_islands,
              s.plant->GetStepStats(*b).num_sleeping_islands);
  }
  // The control: dropping the memory changes the run (the first solve
  // starts cold, the sphere falls asleep later), until both sleep.
  EXPECT_TRUE(differed);
  EXPECT_EQ(s.plant->SaveState(*a).memory, s.plant->SaveState(*b).memory);
}

TEST(TimeSteppingStateTest, DefaultStateIsSettable) {
  Landing s;
  auto zero = s.plant->CreateDefaultContext();
  EXPECT_EQ(s.plant->GetState(*zero).head(14),
            s.scene.tree.GetZeroConfiguration());
  s.plant->SetDefaultPositionsAndVelocities(s.q0, s.v0);
  auto context = s.plant->CreateDefaultContext();
  EXPECT_EQ(s.plant->GetState(*context).head(14), s.q0);
  EXPECT_EQ(s.plant->GetState(*context).tail(12), s.v0);
  // SetRandomContext (Monte Carlo) and SetDefaultContext start there too,
  // with an empty warm-start memory.
  s.Step(context.get(), 30);
  RandomGenerator generator(3);
  s.plant->SetRandomContext(context.get(), &generator);
  EXPECT_EQ(s.plant->GetState(*context).head(14), s.q0);
  EXPECT_EQ(s.plant->SaveState(*context).memory,
            s.plant->SaveState(*zero).memory);

  VectorX<double> v = s.v0;
  v[4] = std::numeric_limits<double>::quiet_NaN();
  try {
    s.plant->SetDefaultPositionsAndVelocities(s.q0, v);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "TimeSteppingRigidBodySystem 'scene': "
              "SetDefaultPositionsAndVelocities: velocity '" +
                  s.scene.tree.GetVelocityNames()[4] + "' is nan");
  }
  EXPECT_THROW(s.plant->SetDefaultPositionsAndVelocities(s.q0.head(3), s.v0),
               std::invalid_argument);
}

std::string RestoreError(const Landing& s, const TimeSteppingSavedState& x,
                         Context<double>* context) {
  try {
    s.plant->RestoreState(x, context);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    const std::string prefix =
        "TimeSteppingRigidBodySystem 'scene': RestoreState: ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    return what.substr(prefix.size());
  }
  return "";
}

TEST(TimeSteppingStateTest, BadSavedStateIsRefusedNamingTheField) {
  Landing s;
  auto a = s.plant->CreateDefaultContext();
  s.plant->SetPositionsAndVelocities(a.get(), s.q0, s.v0);
  s.Step(a.get(), 40);
  const TimeSteppingSavedState good = s.plant->SaveState(*a);
  const std::size_t entry = 5;  // first number of entry 0
  auto b = s.plant->CreateDefaultContext();
  const VectorX<double> before = s.plant->GetState(*b);
  const double nan = std::numeric_limits<double>::quiet_NaN();

  TimeSteppingSavedState x = good;
  x.discrete.emplace_back(3);
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "discrete: 2 groups, this plant has 1");
  x = good;
  x.discrete[0].conservativeResize(5);
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "discrete[0]: size 5, this plant's group has 26");
  x = good;
  x.discrete[0][17] = nan;
  EXPECT_EQ(RestoreError(s, x, b.get()), "discrete[0][17]: nan is not finite");
  x = good;
  x.memory[0] = 2;
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[0] (layout version): 2, this plant reads layout 1");
  x = good;
  x.memory.clear();
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[0] (layout version): missing (the memory is empty)");
  x = good;
  x.memory[1] = 3;
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[1] (subtrees): 3, this plant has 2 subtrees");
  x = good;
  x.memory[2] = -1;
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[2] (still steps of subtree 0): -1 is not a count");
  // A huge entry count is refused before anything is allocated for it.
  x = good;
  x.memory[4] = 1e9;
  EXPECT_EQ(RestoreError(s, x, b.get()),
            fmt::format("memory[4] (warm-start entries): 1000000000 entries "
                        "need 15000000000 numbers, {} follow",
                        good.memory.size() - 5));
  x = good;
  x.memory[4] = 1e300;
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[4] (warm-start entries): 1e+300 is not a count");
  x = good;
  x.memory[entry] = 7;
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[5] (warm-start entry 0, constraint): 7, this plant has 1 "
            "constraints");
  x = good;
  x.memory[entry + 1] = 0.5;
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[6] (warm-start entry 0, key1): 0.5 is not an integer");
  x = good;
  x.memory[entry + 7] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(RestoreError(s, x, b.get()),
            "memory[12] (warm-start entry 0, impulse 1): -inf is not finite");
  x = good;
  x.memory.pop_back();
  EXPECT_EQ(
      RestoreError(s, x, b.get()).rfind("memory[4] (warm-start entries)", 0),
      0u);
  // Every refusal left the context as it was.
  EXPECT_TRUE(BitIdentical(s.plant->GetState(*b), before));
  EXPECT_EQ(s.plant->SaveState(*b).memory,
            std::vector<double>({1, 2, 0, 0, 0}));
}

}  // namespace
}  // namespace tern::test
