// The shipped quadruped standing under joint PD control, the controller in
// a second process that this program starts (itself, with "controller").
//
//   lcm_quadruped [SECONDS]          lockstep, then free running
//
// 1. Lockstep: each 1 ms control period the plant sends its state on
//    QUADRUPED_STATE_<pid> and waits for the torques on
//    QUADRUPED_COMMAND_<pid> (LcmLockstepSystem <-> LcmSystemServer). The
//    trajectory is compared with the same diagram in one process: bit for
//    bit equal.
// 2. Free running at real time (hardware-in-the-loop style): the state is
//    published every period (LcmPublisherSystem) and the newest command
//    taken every period (LcmSubscriberSystem), the Simulator paced to wall
//    clock; prints the achieved real-time rate.
// Look at the traffic meanwhile with `lcm-spy` or `lcm-logger` (LCM's
// tools, package liblcm-bin / lcm-java) on the URL printed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "examples/lcm_quadruped/quadruped_lcm.h"
#include "tern/lcm/child_process.h"
#include "tern/lcm/lcm_publisher_system.h"
#include "tern/lcm/lcm_subscriber_system.h"
#include "tern/lcm/lcm_system_server.h"
#include "tern/systems/analysis/simulator.h"

using namespace tern;

namespace {

void SetStance(const QuadrupedStance& s, TimeSteppingRigidBodySystem* plant,
               Simulator<double>* sim) {
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim->get_mutable_context()), s.q0,
      VectorX<double>::Zero(s.tree.num_velocities()));
}

// The controller process: serves the PD until 5 s without a request.
int Controller(const std::string& url, const std::string& state,
               const std::string& command) {
  LcmInterface lcm(url);
  const QuadrupedStance s = MakeQuadrupedLcmStance(TERN_MODELS_DIR);
  auto pd = MakeQuadrupedPdController(s);
  LcmSystemServer server(*pd, &lcm, state, QuadrupedStateTranslator(s), command,
                         QuadrupedCommandTranslator(s));
  const long served = server.Serve(/*idle_timeout=*/5.0);
  std::printf("controller: answered %ld requests\n", served);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "controller") {
    return Controller(argv[2], argv[3], argv[4]);
  }
  const double duration = argc > 1 ? std::atof(argv[1]) : 2.0;
  const QuadrupedStance s = MakeQuadrupedLcmStance(TERN_MODELS_DIR);
  const std::string url = LoopbackUrlForThisProcess();
  const std::string state = UniqueChannelName("QUADRUPED_STATE");
  const std::string command = UniqueChannelName("QUADRUPED_COMMAND");
  std::printf("LCM URL %s, channels %s and %s\n", url.c_str(), state.c_str(),
              command.c_str());
  ChildProcess controller(
      {"/proc/self/exe", "controller", url, state, command});
  LcmInterface lcm(url);
  WaitForLcmPeer(&lcm, command, 30.0);

  // 1. Lockstep against one process.
  QuadrupedLcmDiagram one = MakeQuadrupedLcmDiagram(s, nullptr);
  QuadrupedLcmDiagram two = MakeQuadrupedLcmDiagram(s, &lcm, state, command);
  Simulator<double> sim_one(*one.diagram), sim_two(*two.diagram);
  SetStance(s, one.plant, &sim_one);
  SetStance(s, two.plant, &sim_two);
  const auto start = std::chrono::steady_clock::now();
  sim_two.AdvanceTo(duration);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  sim_one.AdvanceTo(duration);
  const VectorX<double>& x1 = one.plant->GetState(
      one.plant->GetMyContextFromRoot(sim_one.get_context()));
  const VectorX<double>& x2 = two.plant->GetState(
      two.plant->GetMyContextFromRoot(sim_two.get_context()));
  const bool same =
      std::memcmp(x1.data(), x2.data(), sizeof(double) * x1.size()) == 0;
  std::printf(
      "lockstep: %s; base height %.4f m after %.2f s, %.1f us per "
      "period\n",
      same ? "bit-identical to one process" : "DIFFERS from one process", x2[2],
      duration, 1e6 * wall / (duration / kQuadrupedLcmPeriod));

  // 2. Free running at real time, the same controller process. The
  // lockstep diagram goes first: its systems hold the two channels.
  two.diagram.reset();
  DiagramBuilder<double> builder;
  using ActuatorList = std::vector<std::shared_ptr<const Actuator<double>>>;
  TimeSteppingOptions plant_options;
  plant_options.state_output = true;
  auto* plant = builder.AddSystem<TimeSteppingRigidBodySystem>(
      s.tree, s.geometry, kQuadrupedLcmPeriod,
      ActuatorList{std::make_shared<TorqueSource<double>>(s.tree, s.joints, 0.0,
                                                          "motors")},
      std::vector<std::shared_ptr<const Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
      plant_options);
  auto* pub = builder.AddSystem<LcmPublisherSystem>(
      state, QuadrupedStateTranslator(s), &lcm, kQuadrupedLcmPeriod);
  auto* sub = builder.AddSystem<LcmSubscriberSystem>(
      command, QuadrupedCommandTranslator(s), &lcm, kQuadrupedLcmPeriod,
      VectorX<double>::Zero(static_cast<int>(s.joints.size())));
  builder.Connect(plant->get_output_port("state"), pub->get_input_port(0));
  builder.Connect(sub->get_output_port(0),
                  plant->get_actuator_input_port("motors"));
  auto diagram = builder.Build();
  Simulator<double> sim(*diagram);
  SetStance(s, plant, &sim);
  sim.set_target_realtime_rate(1.0);
  const auto free_start = std::chrono::steady_clock::now();
  sim.AdvanceTo(duration);
  const double free_wall = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - free_start)
                               .count();
  const LcmReceived& got =
      sub->GetReceived(sub->GetMyContextFromRoot(sim.get_context()));
  std::printf(
      "free running: achieved real-time rate %.3f (target 1), %lld "
      "commands taken, base height %.4f m\n",
      duration / free_wall, static_cast<long long>(got.count),
      plant->GetState(plant->GetMyContextFromRoot(sim.get_context()))[2]);
  return same ? 0 : 1;
}
