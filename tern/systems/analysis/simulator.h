#pragma once
// Simulator: advances a System's Context through time with the hybrid
// semantics of docs/semantics.md (sample-and-hold of discrete state sampled
// at the start of a step): at each step, (1) unrestricted then discrete
// updates due now, (2) continuous integration to the next event time (or
// the end time), (3) publish events due at the new time. Integration uses
// any rule of tern/integrators through IntegratorBase; the default is
// kDefaultIntegrator (dopri5, rtol = atol = 1e-6).
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tern/integrators/integrator_base.h"
#include "tern/integrators/ode_function.h"
#include "tern/systems/framework/evaluation_plan.h"
#include "tern/systems/framework/system.h"
#include "tern/systems/framework/witness_function.h"

namespace tern {

struct SimulatorStatistics {
  std::int64_t steps{0};                 // simulator steps taken
  std::int64_t publishes{0};             // publish events handled
  std::int64_t discrete_updates{0};      // discrete-update events handled
  std::int64_t unrestricted_updates{0};  // unrestricted-update events handled
  std::int64_t derivative_evaluations{0};
};

// Why AdvanceTo returned.
struct SimulatorStatus {
  enum Reason { kReachedBoundaryTime, kReachedTerminationCondition };
  Reason reason{kReachedBoundaryTime};
  double return_time{0};  // s
  std::string message;    // who asked to stop, and why
  bool succeeded() const { return reason == kReachedBoundaryTime; }
};

template <typename T>
class Simulator {
 public:
  // Simulates `system` (which must outlive the Simulator) from `context`
  // (a default context if null).
  explicit Simulator(const System<T>& system,
                     std::unique_ptr<Context<T>> context = nullptr);
  // Same, owning the system.
  explicit Simulator(std::unique_ptr<const System<T>> system,
                     std::unique_ptr<Context<T>> context = nullptr);
  ~Simulator();

  // Runs initialization events and the publish events due at the start
  // time. Called by the first AdvanceTo if not called before; call it again
  // after changing the context by hand to restart event timing from it.
  SimulatorStatus Initialize();
  // Advances to time `t` (>= current time), stopping early if an event or
  // the monitor reports termination. Throws on failure, leaving the context
  // at the last good state.
  SimulatorStatus AdvanceTo(const T& t);
  // Runs the update events due at the current time (those AdvanceTo would
  // run at the start of its next step), then per-step and forced publishes.
  // Returns kReachedTerminationCondition (with who asked, and why) if one of
  // them requested termination.
  SimulatorStatus AdvancePendingEvents();

  const System<T>& get_system() const { return *system_; }
  const Context<T>& get_context() const { return *context_; }
  Context<T>& get_mutable_context() { return *context_; }
  // Replaces the context; the next AdvanceTo re-initializes.
  void reset_context(std::unique_ptr<Context<T>> context);

  // 0 (default) runs as fast as possible; r > 0 paces simulated time to r
  // times wall-clock time.
  void set_target_realtime_rate(double rate);
  double get_target_realtime_rate() const { return realtime_rate_; }
  // Runs forced publish events after every step (and at initialization).
  void set_publish_every_time_step(bool publish) {
    publish_every_step_ = publish;
  }
  // Called after initialization and after every step; kReachedTermination
  // stops AdvanceTo with its message, kFailed throws.
  void set_monitor(std::function<EventStatus(const Context<T>&)> monitor) {
    monitor_ = std::move(monitor);
  }
  void clear_monitor() { monitor_ = nullptr; }

  // Witness crossings are localized to within this time (s); default 1e-12.
  void set_witness_time_tolerance(double tolerance);
  double get_witness_time_tolerance() const { return witness_tolerance_; }

  IntegratorBase<T>& get_mutable_integrator() { return *integrator_; }
  const IntegratorBase<T>& get_integrator() const { return *integrator_; }
  // Replaces the integration rule: a fixed-step rule template with step h,
  // an integrator object, or a rule by name (MakeIntegrator's names).
  template <template <typename> class Rule>
  IntegratorBase<T>& reset_integrator(double h) {
    return reset_integrator(std::make_unique<FixedStepIntegrator<Rule, T>>(h));
  }
  IntegratorBase<T>& reset_integrator(
      std::unique_ptr<IntegratorBase<T>> integrator);
  IntegratorBase<T>& reset_integrator(const std::string& name,
                                      const IntegratorSettings& settings = {});

  const SimulatorStatistics& get_statistics() const;
  void ResetStatistics();

 private:
  struct ScheduledEvent {
    int leaf;
    const Event<T>* event;
    std::int64_t next_k;  // index of the next firing: offset + k * period
    double NextTime() const {
      return event->offset + static_cast<double>(next_k) * event->period;
    }
  };
  struct LeafEvent {
    int leaf;
    const Event<T>* event;
  };
  struct WitnessRef {
    int leaf;
    const WitnessFunction<T>* witness;
  };
  class OdeAdapter;
  class SecondOrderAdapter;
  class CheckedOde;
  class CheckedSecondOrder;
  // Sizes the integrator (and the second-order layout if it needs one).
  void PrepareIntegrator();
  // The continuous state in the integrator's layout (x = [q; v] for
  // second-order rules) to and from the context.
  void SetContextState(const T& t, const VectorX<T>& x);
  // Time derivatives of the context (whose time and continuous state were
  // just set) through the evaluation plan, recording it the first time.
  void EvalTimeDerivatives(VectorX<T>* xdot);
  void LoadState(VectorX<T>* x) const;
  bool UseIntegratorDenseOutput() const;
  // Records the first non-finite entry of a derivative evaluated during a
  // replay (offset: where `xdot` starts in the integrator's layout).
  void NoteNonFinite(const T& t, const Eigen::Ref<const VectorX<T>>& xdot,
                     Eigen::Index offset);
  // "continuous state entry 1 (v[0]) of system 'robot/plant'" for index i of
  // the diagram's continuous state vector.
  std::string DescribeContinuousStateEntry(Eigen::Index i) const;
  // Called from a catch block when the integrator failed advancing from the
  // last good state at t (in the context and x_) towards t_next: throws,
  // naming the leaf system and state entry whose derivative became
  // non-finite, if one did; else rethrows the exception being handled.
  [[noreturn]] void ThrowStepFailure(const std::exception& error, double t,
                                     double t_next);

  void BuildSchedule();
  bool IsDue(double event_time, double t) const;
  double NextEventTime() const;
  // Collect the periodic events of `kind` due at t, plus per-step ones.
  void CollectDue(EventKind kind, double t, bool include_per_step,
                  std::vector<LeafEvent>* due, bool advance_schedule);
  void CopyLeafStateToScratch(int leaf, bool continuous_and_abstract);
  void CopyScratchToLeafState(int leaf, bool continuous_and_abstract);
  void RunUpdates(const std::vector<LeafEvent>& events, bool unrestricted);
  void RunUnrestricted(const std::vector<LeafEvent>& events);
  void RunDiscrete(const std::vector<LeafEvent>& events);
  void RunPublish(const std::vector<LeafEvent>& events);
  // Handles an event's status; returns true if it asks to terminate.
  bool HandleStatus(const EventStatus& status, int leaf, const char* what);
  void DoUpdatesAt(double t);
  void DoPublishesAt(double t, bool include_per_step);
  bool CheckMonitor();
  void PaceRealtime();
  // Values of every witness function at the context's current state.
  void EvalWitnesses(std::vector<double>* values) const;
  // State x(tau) on the last step [t0, t1] by cubic Hermite interpolation of
  // (x0, f0) and (x1, f1), written into the context.
  void SetInterpolatedState(double tau);
  // After a step from (t0, x0_) to the context's time: if a witness
  // triggered, moves the context back to the earliest crossing, queues the
  // crossing events and returns true.
  bool LocalizeWitnesses(double t0);

  std::unique_ptr<const System<T>> owned_system_;
  const System<T>* system_;
  std::unique_ptr<Context<T>> context_;
  std::unique_ptr<IntegratorBase<T>> integrator_;
  std::unique_ptr<OdeAdapter> ode_;
  std::unique_ptr<SecondOrderAdapter> second_order_;
  OdeFunction<T>* active_ode_{nullptr};
  // The right-hand side's evaluation plan (recorded at the first evaluation
  // after Initialize; see evaluation_plan.h).
  internal::EvaluationPlan<T> plan_;
  std::vector<Eigen::Index> permutation_;  // integrator index -> xc index
  bool initialized_{false};
  bool publish_every_step_{false};
  double realtime_rate_{0};
  std::function<EventStatus(const Context<T>&)> monitor_;
  mutable SimulatorStatistics stats_;
  std::int64_t derivative_evaluations_base_{0};

  // Schedule (built by Initialize).
  std::vector<ScheduledEvent> periodic_;
  std::vector<LeafEvent> per_step_, initialization_, forced_;
  // Scratch, preallocated so that AdvanceTo does not allocate.
  std::vector<LeafEvent> due_;
  std::vector<char> touched_;  // per leaf: its state is in the scratch
  std::vector<int> touched_leaves_;
  std::vector<WitnessRef> witnesses_;
  std::vector<double> w0_, w1_, roots_;
  std::vector<LeafEvent> pending_witness_updates_, pending_witness_publishes_;
  VectorX<T> x0_, xdot0_, xdot1_, x1_;
  double step_t0_{0}, step_t1_{0};
  double witness_tolerance_{1e-12};
  // Zeno guard (LocalizeWitnesses): witness events since the first one at
  // zeno_t0_ that all fell within kZenoWindow of it.
  static constexpr int kZenoEvents = 1000;
  static constexpr double kZenoWindow = 1e-6;  // s
  double zeno_t0_{-1};
  int zeno_count_{0};
  VectorX<T> x_;  // continuous state being integrated
  VectorX<T> xc_scratch_;
  std::vector<VectorX<T>> xd_scratch_;
  std::vector<std::unique_ptr<AbstractValue>> xa_scratch_;
  // The first non-finite derivative entry seen in a failure's replay
  // (ThrowStepFailure; the normal path checks nothing).
  struct NonFinite {
    bool found{false};
    double t{0};
    Eigen::Index index{0};  // in the diagram's continuous state vector
    double value{0};
  } non_finite_;
  std::string termination_message_;
  bool terminate_{false};
  // Real-time pacing.
  std::chrono::steady_clock::time_point wall_start_;
  double sim_start_{0};
};

}  // namespace tern
