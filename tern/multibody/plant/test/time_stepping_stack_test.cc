// TimeSteppingRigidBodySystem: a stack of five boxes stands for 10 s (a
// binary of its own: 10 s of simulated time).
#include <gtest/gtest.h>

#include "tern/multibody/plant/test/time_stepping_test_scene.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

using test::Pos;

// Issue 15: a stack of 5 boxes stays standing for 10 s (the default convex
// solver on one 30-dof island: about 4 Newton iterations a step; 80 s under
// ASan on a loaded 2-core machine, hence a binary of its own; PGS capped at
// 20 sweeps does not reach 1e-6 on this stack), each box turned a little about
// the vertical as a hand would stack them.
TEST(TimeStepping, StackOfFiveBoxesStands) {
  test::Scene scene;
  for (int i = 0; i < 5; ++i) scene.AddCube(0.1);
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  for (int i = 1; i <= 5; ++i) {
    test::SetPose(&q, i, Vector3<double>(0.002 * (i % 2), 0, 0.1 * i - 0.05),
                  Eigen::AngleAxisd(0.1 * (i - 3), Vector3<double>::UnitZ())
                      .toRotationMatrix());
  }
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(30));
  sim.AdvanceTo(10.0);
  const VectorX<double>& x = plant.GetState(sim.get_context());
  for (int i = 1; i <= 5; ++i) {
    EXPECT_LT((x.segment<3>(Pos(i)) - q.segment<3>(Pos(i))).norm(), 1e-3)
        << "box " << i;
  }
  EXPECT_LT(x.tail(30).cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_EQ(plant.GetStepStats(sim.get_context()).num_contacts, 20);
  EXPECT_TRUE(plant.GetStepStats(sim.get_context()).converged);
}

}  // namespace
}  // namespace tern
