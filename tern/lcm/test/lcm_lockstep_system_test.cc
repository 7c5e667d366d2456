// Two processes in lockstep: the quadruped plant here, its joint PD in
// lcm_test_peer (started by the test, killed if the test fails), give the
// one-process diagram's trajectory bit for bit. A peer that stops
// answering, or answers garbage, is an error naming the channel and the
// time, and the Context keeps its last good state.
#include "tern/lcm/lcm_lockstep_system.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "examples/lcm_quadruped/quadruped_lcm.h"
#include "tern/lcm/child_process.h"
#include "tern/lcm/lcm_system_server.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

class LcmLockstepTest : public ::testing::Test {
 protected:
  // Starts the peer in `mode`, answering `n` requests, and waits until it
  // has subscribed.
  ChildProcess StartPeer(const std::string& mode, long n) {
    return ChildProcess(
        {TERN_LCM_TEST_PEER, url_, state_, command_, mode, std::to_string(n)});
  }
  const VectorX<double>& PlantState(const QuadrupedLcmDiagram& d,
                                    const Simulator<double>& sim) {
    return d.plant->GetState(d.plant->GetMyContextFromRoot(sim.get_context()));
  }
  void SetStance(const QuadrupedLcmDiagram& d, Simulator<double>* sim) {
    d.plant->SetPositionsAndVelocities(
        &d.plant->GetMyMutableContextFromRoot(&sim->get_mutable_context()),
        s_.q0, VectorX<double>::Zero(s_.tree.num_velocities()));
  }

  QuadrupedStance s_ = MakeQuadrupedLcmStance(TERN_MODELS_DIR);
  std::string url_ = LoopbackUrlForThisProcess();
  std::string state_ = UniqueChannelName("QUADRUPED_STATE");
  std::string command_ = UniqueChannelName("QUADRUPED_COMMAND");
};

TEST_F(LcmLockstepTest, QuadrupedPdInAnotherProcessIsBitIdentical) {
  const double tf = 0.3;
  const long steps = std::lround(tf / kQuadrupedLcmPeriod);
  // One process.
  QuadrupedLcmDiagram one = MakeQuadrupedLcmDiagram(s_, nullptr);
  Simulator<double> sim_one(*one.diagram);
  SetStance(one, &sim_one);
  // Two processes: requests at initialization and at t = 0, h, ..., tf - h
  // (the update at tf belongs to the next step).
  ChildProcess peer = StartPeer("pd", steps + 1);
  LcmInterface lcm(url_);
  WaitForLcmPeer(&lcm, command_, 60.0);
  QuadrupedLcmDiagram two = MakeQuadrupedLcmDiagram(s_, &lcm, state_, command_);
  Simulator<double> sim_two(*two.diagram);
  SetStance(two, &sim_two);

  for (int k = 1; k <= 3; ++k) {
    sim_one.AdvanceTo(k / 10.0);
    sim_two.AdvanceTo(k / 10.0);
    const VectorX<double>& x1 = PlantState(one, sim_one);
    const VectorX<double>& x2 = PlantState(two, sim_two);
    ASSERT_EQ(x1.size(), x2.size());
    EXPECT_EQ(std::memcmp(x1.data(), x2.data(), sizeof(double) * x1.size()), 0)
        << "at t = " << 0.1 * k
        << ": max |x1 - x2| = " << (x1 - x2).cwiseAbs().maxCoeff();
  }
  // The robot did move (the test compares a trajectory, not a rest).
  EXPECT_GT((PlantState(one, sim_one).head(7) - s_.q0.head(7)).norm(), 1e-4);
  EXPECT_EQ(peer.Wait(30.0), 0);  // it answered exactly steps + 1 requests
}

TEST_F(LcmLockstepTest, PeerThatStopsAnsweringTimesOutNamingChannelAndTime) {
  ChildProcess peer = StartPeer("pd", 51);  // init + t = 0, ..., 0.049
  LcmInterface lcm(url_);
  WaitForLcmPeer(&lcm, command_, 60.0);
  LcmLockstepOptions options;
  options.timeout = 0.3;
  QuadrupedLcmDiagram two =
      MakeQuadrupedLcmDiagram(s_, &lcm, state_, command_, options);
  Simulator<double> sim(*two.diagram);
  SetStance(two, &sim);
  try {
    sim.AdvanceTo(0.2);
    FAIL() << "no timeout";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no reply on channel '" + command_ + "'"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("t = 0.05"), std::string::npos) << m;
  }
  EXPECT_DOUBLE_EQ(sim.get_context().get_time(), 0.05);
  // The last good state: the one-process diagram's after its updates at
  // 0.05 (the plant's step ran; the command held is that of t = 0.049).
  QuadrupedLcmDiagram one = MakeQuadrupedLcmDiagram(s_, nullptr);
  Simulator<double> sim_one(*one.diagram);
  SetStance(one, &sim_one);
  sim_one.AdvanceTo(0.05);
  sim_one.AdvancePendingEvents();
  EXPECT_EQ(PlantState(two, sim), PlantState(one, sim_one));
  EXPECT_EQ(peer.Wait(30.0), 0);
}

TEST_F(LcmLockstepTest, MalformedReplyNamesTheChannel) {
  ChildProcess peer = StartPeer("garbage", 1);
  LcmInterface lcm(url_);
  WaitForLcmPeer(&lcm, command_, 60.0);
  QuadrupedLcmDiagram two = MakeQuadrupedLcmDiagram(s_, &lcm, state_, command_);
  Simulator<double> sim(*two.diagram);
  SetStance(two, &sim);
  try {
    sim.Initialize();
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'" + command_ + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("not a valid tern_lcmt::vector_t"), std::string::npos)
        << m;
  }
  EXPECT_EQ(peer.Wait(30.0), 0);
}

TEST_F(LcmLockstepTest, NoPeerTimesOutAtInitialization) {
  LcmInterface lcm(url_);
  LcmLockstepOptions options;
  options.timeout = 0.1;
  QuadrupedLcmDiagram two =
      MakeQuadrupedLcmDiagram(s_, &lcm, state_, command_, options);
  Simulator<double> sim(*two.diagram);
  EXPECT_THROW(sim.Initialize(), std::runtime_error);
  EXPECT_THROW(WaitForLcmPeer(&lcm, command_, 0.1), std::runtime_error);
}

}  // namespace
}  // namespace tern
