#pragma once
// VectorLogSink: records its vector input "u" with the time, on a periodic
// publish event (period > 0, offset 0: at 0, h, 2h, ...) or on a per-step
// publish event (period == 0: at initialization and at the end of every
// simulator step). It also records on ForcedPublish(). A publish sees the
// post-step time and state (DESIGN.md "Simulation semantics"), so the log
// holds what a publish at that time sees: continuous state after the step,
// discrete state x⁻ (updates due at t run at the start of the next step).
//
// Where the log lives. The log is per Context, never in the System: a System
// is an immutable model shared by threads and contexts. It is stored in the
// sink's abstract parameter 0 as a slot whose log is a `mutable` member, and
// the publish handler (which gets a const Context) appends to it. Why not
// the alternatives:
//  - a `mutable` log in the System would be shared by every Context (two
//    simulations of one diagram would interleave) and is not thread-safe;
//  - abstract state would have to be written by an update event, which runs
//    at the start of the next step: the sample at the final time tf would
//    only appear after the next AdvanceTo. It would also make the
//    Simulator's unrestricted updates copy the whole log every time (they
//    copy x⁻ of all abstract state), and a log is not state: nothing in the
//    dynamics depends on it;
//  - an abstract parameter is per Context, deep-copied by Context::Clone (a
//    clone carries a snapshot of the log, and the two then diverge), never
//    copied by the Simulator, and no output depends on it.
// Consequences: SetDefaultContext() (and SetRandomContext) reset the log to
// empty; mutating it does not bump the Context's parameter version, which is
// harmless because nothing computed depends on it. A framework-level
// per-Context scratch/cache entry would be the cleaner home (as in Drake).
//
// Recording never allocates while the log has capacity
// (VectorLog::DefaultCapacity samples per new Context;
// GetMutableLog(context).Reserve(n) for more). Publishing twice at one time
// (e.g. a per-step sink with Simulator::set_publish_every_time_step(true),
// which also runs forced publishes) records twice.
#include "tern/systems/framework/leaf_system.h"
#include "tern/systems/primitives/vector_log.h"

namespace tern {

template <typename T>
class VectorLogSink final : public LeafSystem<T> {
 public:
  // input_size >= 1; publish_period > 0 (periodic) or 0 (every step).
  explicit VectorLogSink(int input_size, double publish_period = 0.0);

  double publish_period() const { return publish_period_; }
  // The log in `context` (this sink's context or a root containing it).
  const VectorLog<T>& GetLog(const Context<T>& context) const;
  // The same, to Clear() or Reserve() it.
  VectorLog<T>& GetMutableLog(Context<T>* context) const;

 private:
  EventStatus Record(const Context<T>& context) const;
  double publish_period_;
};

}  // namespace tern
