#include "tern/systems/analysis/simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "tern/common/autodiff.h"
#include "tern/common/default_scalars.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/integrators/integrator_error.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {
// The right-hand side handed to the integrator: writes (t, x) into the
// context and evaluates the system's time derivatives.
template <typename T>
class Simulator<T>::OdeAdapter final : public OdeFunction<T> {
 public:
  explicit OdeAdapter(Simulator<T>* simulator) : sim_(simulator) {}
  void Eval(const T& t, const VectorX<T>& x, VectorX<T>* xdot) override {
    sim_->context_->SetTimeAndContinuousState(t, x);
    sim_->EvalTimeDerivatives(xdot);
  }

 private:
  Simulator<T>* sim_;
};

// The same right-hand side with its second-order structure x = [q; v] for
// rules that need it (semi-explicit Euler, velocity Verlet). The diagram
// stores [q; v; z] per leaf; here q gathers every leaf's q and v every
// leaf's v, in leaf order, which is the order of System::MapVelocityToQDot.
template <typename T>
class Simulator<T>::SecondOrderAdapter final
    : public SecondOrderOdeFunction<T> {
 public:
  using typename SecondOrderOdeFunction<T>::ConstRef;
  using typename SecondOrderOdeFunction<T>::Ref;
  SecondOrderAdapter(Simulator<T>* simulator, Eigen::Index nq, Eigen::Index nv)
      : SecondOrderOdeFunction<T>(nq, nv),
        sim_(simulator),
        x_(nq + nv),
        xdot_(nq + nv) {}
  void EvalQdot(const T& t, ConstRef q, ConstRef v, Ref qdot) override {
    Load(t, q, v);
    sim_->system_->MapVelocityToQDot(*sim_->context_, v, qdot);
  }
  void EvalVdot(const T& t, ConstRef q, ConstRef v, Ref vdot) override {
    Load(t, q, v);
    sim_->EvalTimeDerivatives(&xdot_);
    for (Eigen::Index i = 0; i < vdot.size(); ++i)
      vdot[i] = xdot_[sim_->permutation_[q.size() + i]];
  }

 private:
  void Load(const T& t, ConstRef q, ConstRef v) {
    x_.head(q.size()) = q;
    x_.tail(v.size()) = v;
    sim_->SetContextState(t, x_);
  }
  Simulator<T>* sim_;
  VectorX<T> x_, xdot_;
};

// The right-hand side of a failed advance, replayed by ThrowStepFailure
// with every evaluation checked for NaN and infinity. Wrappers, so that the
// adapters above (the normal path) carry no check at all.
template <typename T>
class Simulator<T>::CheckedOde final : public OdeFunction<T> {
 public:
  CheckedOde(Simulator<T>* simulator, OdeFunction<T>* inner)
      : sim_(simulator), inner_(inner) {}
  void Eval(const T& t, const VectorX<T>& x, VectorX<T>* xdot) override {
    inner_->Eval(t, x, xdot);
    sim_->NoteNonFinite(t, *xdot, 0);
  }
  bool EvalJacobian(const T& t, const VectorX<T>& x, MatrixX<T>* J) override {
    return inner_->EvalJacobian(t, x, J);
  }

 private:
  Simulator<T>* sim_;
  OdeFunction<T>* inner_;
};

template <typename T>
class Simulator<T>::CheckedSecondOrder final
    : public SecondOrderOdeFunction<T> {
 public:
  using typename SecondOrderOdeFunction<T>::ConstRef;
  using typename SecondOrderOdeFunction<T>::Ref;
  CheckedSecondOrder(Simulator<T>* simulator, SecondOrderOdeFunction<T>* inner)
      : SecondOrderOdeFunction<T>(inner->num_positions(),
                                  inner->num_velocities()),
        sim_(simulator),
        inner_(inner) {}
  void EvalQdot(const T& t, ConstRef q, ConstRef v, Ref qdot) override {
    inner_->EvalQdot(t, q, v, qdot);
    sim_->NoteNonFinite(t, qdot, 0);
  }
  void EvalVdot(const T& t, ConstRef q, ConstRef v, Ref vdot) override {
    inner_->EvalVdot(t, q, v, vdot);
    sim_->NoteNonFinite(t, vdot, q.size());
  }
  bool EvalVdotJacobianV(const T& t, ConstRef q, ConstRef v,
                         MatrixX<T>* J) override {
    return inner_->EvalVdotJacobianV(t, q, v, J);
  }
  bool EvalQdotJacobianQ(const T& t, ConstRef q, ConstRef v,
                         MatrixX<T>* J) override {
    return inner_->EvalQdotJacobianQ(t, q, v, J);
  }

 private:
  Simulator<T>* sim_;
  SecondOrderOdeFunction<T>* inner_;
};

template <typename T>
void Simulator<T>::NoteNonFinite(const T& t,
                                 const Eigen::Ref<const VectorX<T>>& xdot,
                                 Eigen::Index offset) {
  if (non_finite_.found) return;
  for (Eigen::Index i = 0; i < xdot.size(); ++i) {
    const double value = ExtractDoubleOrThrow(xdot[i]);
    if (std::isfinite(value)) continue;
    const Eigen::Index k = offset + i;
    non_finite_ = {true, ExtractDoubleOrThrow(t),
                   permutation_.empty() ? k : permutation_[k], value};
    return;
  }
}

template <typename T>
std::string Simulator<T>::DescribeContinuousStateEntry(Eigen::Index i) const {
  const auto& leaves = system_->leaves();
  for (int k = 0; k < static_cast<int>(leaves.size()); ++k) {
    const auto L = system_->leaf_context(*context_, k).layout();
    if (i < L.xc_start || i >= L.xc_start + L.xc_size) continue;
    const LeafSystem<T>& leaf = *leaves[k];
    const Eigen::Index local = i - L.xc_start;
    const Eigen::Index nq = leaf.num_positions(), nv = leaf.num_velocities();
    const std::string part = local < nq ? fmt::format("q[{}]", local)
                             : local < nq + nv
                                 ? fmt::format("v[{}]", local - nq)
                                 : fmt::format("z[{}]", local - nq - nv);
    return fmt::format("continuous state entry {} ({}) of system '{}'", local,
                       part, leaf.GetPathName());
  }
  return fmt::format("continuous state entry {}", i);
}

template <typename T>
void Simulator<T>::ThrowStepFailure(const std::exception& error, double t,
                                    double t_next) {
  // Find out whether a derivative became NaN or infinite: replay the failing
  // advance from the last good state (the context's) with every evaluation
  // checked, which costs nothing on the normal path. The replay starts with
  // a reset integrator, so its trial points need not be the failed run's;
  // it stops at the first non-finite derivative, or where the failure
  // recurs.
  non_finite_.found = false;
  std::unique_ptr<OdeFunction<T>> checked;
  if (second_order_) {
    checked = std::make_unique<CheckedSecondOrder>(this, second_order_.get());
  } else {
    checked = std::make_unique<CheckedOde>(this, active_ode_);
  }
  VectorX<T> x = x_;
  integrator_->Reset();
  try {
    T t_reached(t);
    while (!non_finite_.found && ExtractDoubleOrThrow(t_reached) < t_next) {
      const T t_start = t_reached;
      t_reached = integrator_->Step(*checked, t_start, T(t_next), &x);
    }
  } catch (const std::exception&) {
    // The same failure again: what the replay was for is in non_finite_.
  }
  integrator_->Reset();
  SetContextState(T(t), x_);
  if (!non_finite_.found) {
    // Say which leaf system and entry the integrator's component is.
    const auto* step_error = dynamic_cast<const IntegratorStepError*>(&error);
    if (step_error == nullptr) throw;  // not the integrator's: unchanged
    const std::int64_t k = step_error->component();
    if (k < 0 || k >= static_cast<std::int64_t>(x_.size())) throw;
    const Eigen::Index i =
        permutation_.empty() ? static_cast<Eigen::Index>(k) : permutation_[k];
    throw IntegratorStepError(
        fmt::format("{} [Simulator: state component {} is {}]", error.what(), k,
                    DescribeContinuousStateEntry(i)),
        k);
  }
  throw std::runtime_error(fmt::format(
      "Simulator: the time derivative of {} became {} at t = {} (integrator "
      "'{}'; it then reported: {})",
      DescribeContinuousStateEntry(non_finite_.index),
      std::isnan(non_finite_.value) ? "NaN"
                                    : fmt::format("{}", non_finite_.value),
      non_finite_.t, integrator_->name(), error.what()));
}

template <typename T>
void Simulator<T>::EvalTimeDerivatives(VectorX<T>* xdot) {
  if (plan_.recorded()) {
    plan_.Eval(xdot);
  } else {
    plan_.Record(*system_, *context_, xdot);
  }
}

template <typename T>
void Simulator<T>::SetContextState(const T& t, const VectorX<T>& x) {
  if (permutation_.empty()) {
    context_->SetTimeAndContinuousState(t, x);
    return;
  }
  auto xc = context_->get_mutable_continuous_state_vector();
  for (size_t i = 0; i < permutation_.size(); ++i) xc[permutation_[i]] = x[i];
  context_->SetTime(t);
}

template <typename T>
void Simulator<T>::LoadState(VectorX<T>* x) const {
  const auto xc = context_->get_continuous_state_vector();
  if (permutation_.empty()) {
    *x = xc;
    return;
  }
  for (size_t i = 0; i < permutation_.size(); ++i)
    (*x)[i] = xc[permutation_[i]];
}

template <typename T>
void Simulator<T>::PrepareIntegrator() {
  const Context<T>& root = *context_;
  const int nc = root.num_continuous_states();
  permutation_.clear();
  second_order_.reset();
  active_ode_ = ode_.get();
  if (!integrator_->requires_second_order()) {
    integrator_->Initialize(nc);
    return;
  }
  // [all q; all v] from each leaf's [q; v; z]; no z allowed.
  std::vector<Eigen::Index> q_index, v_index;
  for (int k = 0; k < static_cast<int>(system_->leaves().size()); ++k) {
    const LeafSystem<T>& leaf = *system_->leaves()[k];
    const auto L = system_->leaf_context(root, k).layout();
    if (leaf.num_misc_continuous_states() > 0) {
      throw std::invalid_argument(fmt::format(
          "Simulator: integrator '{}' needs second-order state [q; v] but "
          "system '{}' has {} other continuous states (z)",
          integrator_->name(), leaf.GetPathName(),
          leaf.num_misc_continuous_states()));
    }
    for (int i = 0; i < leaf.num_positions(); ++i)
      q_index.push_back(L.xc_start + i);
    for (int i = 0; i < leaf.num_velocities(); ++i)
      v_index.push_back(L.xc_start + leaf.num_positions() + i);
  }
  permutation_ = q_index;
  permutation_.insert(permutation_.end(), v_index.begin(), v_index.end());
  second_order_ = std::make_unique<SecondOrderAdapter>(
      this, static_cast<Eigen::Index>(q_index.size()),
      static_cast<Eigen::Index>(v_index.size()));
  active_ode_ = second_order_.get();
  integrator_->InitializeSecondOrder(static_cast<Eigen::Index>(q_index.size()),
                                     static_cast<Eigen::Index>(v_index.size()));
}

template <typename T>
Simulator<T>::Simulator(const System<T>& system,
                        std::unique_ptr<Context<T>> context)
    : system_(&system),
      context_(context ? std::move(context) : system.CreateDefaultContext()) {
  if (&context_->get_system() != system_ || !context_->is_root()) {
    throw std::invalid_argument(fmt::format(
        "Simulator: the context given is not a root context of system '{}'",
        system.GetPathName()));
  }
  ode_ = std::make_unique<OdeAdapter>(this);
  active_ode_ = ode_.get();
  integrator_ = MakeDefaultIntegrator<T>();
}

template <typename T>
Simulator<T>::Simulator(std::unique_ptr<const System<T>> system,
                        std::unique_ptr<Context<T>> context)
    : Simulator(*system, std::move(context)) {
  owned_system_ = std::move(system);
}

template <typename T>
Simulator<T>::~Simulator() = default;

template <typename T>
void Simulator<T>::reset_context(std::unique_ptr<Context<T>> context) {
  if (!context || &context->get_system() != system_ || !context->is_root()) {
    throw std::invalid_argument(fmt::format(
        "Simulator::reset_context: not a root context of system '{}'",
        system_->GetPathName()));
  }
  context_ = std::move(context);
  plan_.Clear();
  initialized_ = false;
}

template <typename T>
void Simulator<T>::set_target_realtime_rate(double rate) {
  if (!(rate >= 0) || !std::isfinite(rate)) {
    throw std::invalid_argument(fmt::format(
        "Simulator::set_target_realtime_rate: rate must be finite and >= 0, "
        "got {}",
        rate));
  }
  realtime_rate_ = rate;
  wall_start_ = std::chrono::steady_clock::now();
  sim_start_ = ExtractDoubleOrThrow(context_->get_time());
}

template <typename T>
IntegratorBase<T>& Simulator<T>::reset_integrator(
    std::unique_ptr<IntegratorBase<T>> integrator) {
  if (!integrator)
    throw std::invalid_argument("Simulator::reset_integrator: null");
  derivative_evaluations_base_ +=
      integrator_->statistics().derivative_evaluations;
  integrator_ = std::move(integrator);
  PrepareIntegrator();
  return *integrator_;
}

template <typename T>
IntegratorBase<T>& Simulator<T>::reset_integrator(
    const std::string& name, const IntegratorSettings& settings) {
  return reset_integrator(MakeIntegrator<T>(name, settings));
}

template <typename T>
const SimulatorStatistics& Simulator<T>::get_statistics() const {
  stats_.derivative_evaluations =
      derivative_evaluations_base_ +
      integrator_->statistics().derivative_evaluations;
  return stats_;
}

template <typename T>
void Simulator<T>::ResetStatistics() {
  stats_ = SimulatorStatistics{};
  derivative_evaluations_base_ = 0;
  integrator_->ResetStatistics();
}

template <typename T>
void Simulator<T>::BuildSchedule() {
  periodic_.clear();
  per_step_.clear();
  initialization_.clear();
  forced_.clear();
  const auto& leaves = system_->leaves();
  for (int k = 0; k < static_cast<int>(leaves.size()); ++k) {
    for (const Event<T>& e : leaves[k]->events()) {
      switch (e.trigger) {
        case TriggerType::kPeriodic:
          periodic_.push_back({k, &e, 0});
          break;
        case TriggerType::kPerStep:
          per_step_.push_back({k, &e});
          break;
        case TriggerType::kInitialization:
          initialization_.push_back({k, &e});
          break;
        case TriggerType::kForced:
          forced_.push_back({k, &e});
          break;
        case TriggerType::kWitness:
          break;
      }
    }
  }
  witnesses_.clear();
  for (int k = 0; k < static_cast<int>(leaves.size()); ++k)
    for (const auto& w : leaves[k]->witness_functions())
      witnesses_.push_back({k, &w});
  touched_.assign(leaves.size(), 0);
  touched_leaves_.clear();
  touched_leaves_.reserve(leaves.size());
  due_.reserve(periodic_.size() + per_step_.size() + initialization_.size() +
               forced_.size() + witnesses_.size());
  w0_.assign(witnesses_.size(), 0.0);
  w1_.assign(witnesses_.size(), 0.0);
  roots_.assign(witnesses_.size(), 0.0);
  pending_witness_updates_.clear();
  pending_witness_publishes_.clear();
  pending_witness_updates_.reserve(witnesses_.size());
  pending_witness_publishes_.reserve(witnesses_.size());
}

template <typename T>
bool Simulator<T>::IsDue(double event_time, double t) const {
  // Events scheduled at offset + k * period land exactly on the step end;
  // the tolerance only merges events of different rates whose times differ
  // by rounding (e.g. 3 * 0.02 and 2 * 0.03).
  return event_time <= t + 1e-14 * std::max(1.0, std::abs(t));
}

template <typename T>
double Simulator<T>::NextEventTime() const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& e : periodic_) next = std::min(next, e.NextTime());
  return next;
}

template <typename T>
void Simulator<T>::CollectDue(EventKind kind, double t, bool include_per_step,
                              std::vector<LeafEvent>* due,
                              bool advance_schedule) {
  // The order at a common time (docs/semantics.md): per-step events first,
  // then timed (periodic) ones; the callers append witness-triggered ones.
  due->clear();
  if (periodic_.empty() && per_step_.empty()) return;
  if (include_per_step) {
    for (const auto& e : per_step_)
      if (e.event->kind == kind) due->push_back(e);
  }
  for (auto& e : periodic_) {
    if (e.event->kind != kind || !IsDue(e.NextTime(), t)) continue;
    due->push_back({e.leaf, e.event});
    if (advance_schedule) {
      while (IsDue(e.NextTime(), t)) ++e.next_k;
    }
  }
}

template <typename T>
bool Simulator<T>::HandleStatus(const EventStatus& status, int leaf,
                                const char* what) {
  if (status.severity() == EventStatus::kFailed) {
    throw std::runtime_error(fmt::format(
        "Simulator: {} event of system '{}' failed at t = {}: {}", what,
        system_->leaves()[leaf]->GetPathName(),
        ExtractDoubleOrThrow(context_->get_time()), status.message()));
  }
  if (status.severity() == EventStatus::kReachedTermination && !terminate_) {
    terminate_ = true;
    termination_message_ = fmt::format(
        "system '{}' requested termination at t = {}: {}",
        system_->leaves()[leaf]->GetPathName(),
        ExtractDoubleOrThrow(context_->get_time()), status.message());
  }
  return terminate_;
}

template <typename T>
void Simulator<T>::CopyLeafStateToScratch(int leaf,
                                          bool continuous_and_abstract) {
  const Context<T>& root = *context_;
  const auto L = system_->leaf_context(root, leaf).layout();
  if (continuous_and_abstract) {
    xc_scratch_.segment(L.xc_start, L.xc_size) =
        root.get_continuous_state_vector().segment(L.xc_start, L.xc_size);
    for (int i = L.abstract_start; i < L.abstract_start + L.num_abstract; ++i)
      xa_scratch_[i]->SetFrom(root.get_abstract_state_value(i));
  }
  for (int i = L.group_start; i < L.group_start + L.num_groups; ++i)
    xd_scratch_[i] = root.get_discrete_state(i);
}

template <typename T>
void Simulator<T>::CopyScratchToLeafState(int leaf,
                                          bool continuous_and_abstract) {
  Context<T>& root = *context_;
  const auto L = system_->leaf_context(root, leaf).layout();
  if (continuous_and_abstract) {
    root.get_mutable_continuous_state_vector().segment(L.xc_start, L.xc_size) =
        xc_scratch_.segment(L.xc_start, L.xc_size);
    for (int i = L.abstract_start; i < L.abstract_start + L.num_abstract; ++i)
      root.get_mutable_abstract_state_value(i).SetFrom(*xa_scratch_[i]);
  }
  for (int i = L.group_start; i < L.group_start + L.num_groups; ++i) {
    VectorX<T>& group = root.get_mutable_discrete_state(i);
    if (xd_scratch_[i].size() != group.size()) {
      throw std::logic_error(fmt::format(
          "Simulator: an update of system '{}' resized its discrete group {} "
          "from {} to {}",
          system_->leaves()[leaf]->GetPathName(), i - L.group_start,
          group.size(), xd_scratch_[i].size()));
    }
    group.swap(xd_scratch_[i]);
  }
}

template <typename T>
void Simulator<T>::RunUpdates(const std::vector<LeafEvent>& events,
                              bool unrestricted) {
  if (events.empty()) return;
  // Every handler due now sees the same state and writes into a copy of its
  // leaf's part; only those parts are copied, and copied back afterwards.
  Context<T>& root = *context_;
  touched_leaves_.clear();
  for (const auto& e : events) {
    if (touched_[e.leaf]) continue;
    touched_[e.leaf] = 1;
    touched_leaves_.push_back(e.leaf);
    CopyLeafStateToScratch(e.leaf, unrestricted);
  }
  for (const auto& [leaf, event] : events) {
    const Context<T>& leaf_ctx = system_->leaf_context(root, leaf);
    const auto L = leaf_ctx.layout();
    if (unrestricted) {
      State<T> view(
          &xc_scratch_, L.xc_start, L.xc_size,
          DiscreteValues<T>(xd_scratch_.data() + L.group_start, L.num_groups),
          xa_scratch_.data() + L.abstract_start, L.num_abstract);
      HandleStatus(event->unrestricted(leaf_ctx, &view), leaf,
                   "unrestricted update");
    } else {
      DiscreteValues<T> view(xd_scratch_.data() + L.group_start, L.num_groups);
      HandleStatus(event->discrete(leaf_ctx, &view), leaf, "discrete update");
    }
  }
  for (int leaf : touched_leaves_) {
    touched_[leaf] = 0;
    CopyScratchToLeafState(leaf, unrestricted);
  }
  (unrestricted ? stats_.unrestricted_updates : stats_.discrete_updates) +=
      static_cast<std::int64_t>(events.size());
  // The state or the right-hand side jumped: no derivative, Jacobian or
  // step-size history from before carries over.
  integrator_->Reset();
}

template <typename T>
void Simulator<T>::RunUnrestricted(const std::vector<LeafEvent>& events) {
  RunUpdates(events, true);
}

template <typename T>
void Simulator<T>::RunDiscrete(const std::vector<LeafEvent>& events) {
  RunUpdates(events, false);
}

template <typename T>
void Simulator<T>::RunPublish(const std::vector<LeafEvent>& events) {
  for (const auto& [leaf, event] : events) {
    if (event->kind != EventKind::kPublish) continue;
    const Context<T>& leaf_ctx = system_->leaf_context(*context_, leaf);
    HandleStatus(event->publish(leaf_ctx), leaf, "publish");
    ++stats_.publishes;
  }
}

template <typename T>
void Simulator<T>::DoUpdatesAt(double t) {
  // Updates of witness events localized at t run with the timed ones.
  CollectDue(EventKind::kUnrestrictedUpdate, t, true, &due_, true);
  for (const auto& e : pending_witness_updates_)
    if (e.event->kind == EventKind::kUnrestrictedUpdate) due_.push_back(e);
  RunUnrestricted(due_);
  if (terminate_) return;
  CollectDue(EventKind::kDiscreteUpdate, t, true, &due_, true);
  for (const auto& e : pending_witness_updates_)
    if (e.event->kind == EventKind::kDiscreteUpdate) due_.push_back(e);
  pending_witness_updates_.clear();
  RunDiscrete(due_);
}

template <typename T>
void Simulator<T>::DoPublishesAt(double t, bool include_per_step) {
  CollectDue(EventKind::kPublish, t, include_per_step, &due_, true);
  for (const auto& e : pending_witness_publishes_) due_.push_back(e);
  pending_witness_publishes_.clear();
  RunPublish(due_);
  if (publish_every_step_) RunPublish(forced_);
}

template <typename T>
bool Simulator<T>::CheckMonitor() {
  if (!monitor_ || terminate_) return terminate_;
  const EventStatus status = monitor_(*context_);
  if (status.severity() == EventStatus::kFailed) {
    throw std::runtime_error(fmt::format(
        "Simulator: the monitor reported failure at t = {}: {}",
        ExtractDoubleOrThrow(context_->get_time()), status.message()));
  }
  if (status.severity() == EventStatus::kReachedTermination) {
    terminate_ = true;
    termination_message_ = fmt::format(
        "the monitor requested termination at t = {}: {}",
        ExtractDoubleOrThrow(context_->get_time()), status.message());
  }
  return terminate_;
}

template <typename T>
void Simulator<T>::PaceRealtime() {
  if (realtime_rate_ <= 0) return;
  const double sim_elapsed =
      ExtractDoubleOrThrow(context_->get_time()) - sim_start_;
  const auto target =
      wall_start_ +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(sim_elapsed / realtime_rate_));
  std::this_thread::sleep_until(target);
}

template <typename T>
void Simulator<T>::set_witness_time_tolerance(double tolerance) {
  if (!(tolerance > 0 && std::isfinite(tolerance))) {
    throw std::invalid_argument(fmt::format(
        "Simulator::set_witness_time_tolerance: must be finite and > 0, got {}",
        tolerance));
  }
  witness_tolerance_ = tolerance;
}

template <typename T>
void Simulator<T>::EvalWitnesses(std::vector<double>* values) const {
  for (size_t i = 0; i < witnesses_.size(); ++i) {
    const auto& [leaf, witness] = witnesses_[i];
    (*values)[i] = ExtractDoubleOrThrow(
        witness->calc(system_->leaf_context(*context_, leaf)));
  }
}

template <typename T>
bool Simulator<T>::UseIntegratorDenseOutput() const {
  return integrator_->dense_output_order() > 0 &&
         integrator_->settings().dense_output;
}

template <typename T>
void Simulator<T>::SetInterpolatedState(double tau) {
  if (x_.size() == 0) {
    context_->SetTime(T(tau));
    return;
  }
  if (UseIntegratorDenseOutput()) {
    integrator_->DenseOutput(T(tau), &x_);
    SetContextState(T(tau), x_);
    return;
  }
  // Cubic Hermite interpolation on [t0, t1] (Hairer, Norsett & Wanner I,
  // sec. II.6): third-order accurate, exact for cubic trajectories.
  const double h = step_t1_ - step_t0_;
  const double s = (tau - step_t0_) / h;
  const double s2 = s * s, s3 = s2 * s;
  const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s;
  const double h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
  x_ = h00 * x0_ + (h10 * h) * xdot0_ + h01 * x1_ + (h11 * h) * xdot1_;
  SetContextState(T(tau), x_);
}

template <typename T>
bool Simulator<T>::LocalizeWitnesses(double t0) {
  Context<T>& root = *context_;
  EvalWitnesses(&w1_);
  // A witness triggers if it crossed; one that started the step exactly at
  // zero is a candidate, decided below by its sign just after the start.
  bool any = false;
  for (size_t i = 0; i < witnesses_.size(); ++i) {
    const auto* w = witnesses_[i].witness;
    any |= w->Triggered(w0_[i], w1_[i]) ||
           (w0_[i] == 0 && w->OnCrossedSide(w1_[i]));
  }
  if (!any) return false;

  // Dense output of the step: the rule's own interpolant if it has one,
  // else cubic Hermite data at both ends.
  step_t0_ = t0;
  step_t1_ = ExtractDoubleOrThrow(root.get_time());
  x1_ = x_;
  const bool has_state = x_.size() > 0;
  if (has_state && !UseIntegratorDenseOutput()) {
    active_ode_->Eval(T(step_t1_), x1_, &xdot1_);
    active_ode_->Eval(T(step_t0_), x0_, &xdot0_);
  }

  // Each triggered witness: bracket its crossing with the Illinois variant
  // of regula falsi (Dowell & Jarratt 1971) on the interpolated trajectory,
  // down to the time tolerance. roots_[i] is the right end of the final
  // bracket, where the crossing has happened.
  double t_star = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < witnesses_.size(); ++i) {
    roots_[i] = std::numeric_limits<double>::infinity();
    const auto& [leaf, witness] = witnesses_[i];
    double a = step_t0_, b = step_t1_, fa = w0_[i], fb = w1_[i];
    if (fa == 0 && witness->OnCrossedSide(fb)) {
      // Started on the surface: a crossing only if w first leaves to the
      // other side (a bounce), not if it is moving away (already crossed).
      a = step_t0_ + 1e-6 * (step_t1_ - step_t0_);
      SetInterpolatedState(a);
      fa = ExtractDoubleOrThrow(
          witness->calc(system_->leaf_context(root, leaf)));
    }
    if (!witness->Triggered(fa, fb)) continue;
    int side = 0;
    for (int iter = 0; iter < 200 && b - a > witness_tolerance_; ++iter) {
      double c = b - fb * (b - a) / (fb - fa);
      // Keep the probe strictly inside; fall back to bisection near the ends.
      if (!(c > a + 0.25 * witness_tolerance_ &&
            c < b - 0.25 * witness_tolerance_))
        c = 0.5 * (a + b);
      SetInterpolatedState(c);
      const double fc = ExtractDoubleOrThrow(
          witness->calc(system_->leaf_context(root, leaf)));
      if (witness->Triggered(fa, fc)) {
        b = c;
        fb = fc;
        if (side == -1) fa *= 0.5;
        side = -1;
      } else {
        a = c;
        fa = fc;
        if (side == +1) fb *= 0.5;
        side = +1;
      }
    }
    roots_[i] = b;
    t_star = std::min(t_star, b);
  }
  if (t_star == std::numeric_limits<double>::infinity()) {
    // Only candidates that were moving away: no crossing; keep the step.
    x_ = x1_;
    if (has_state) {
      SetContextState(T(step_t1_), x_);
    } else {
      root.SetTime(T(step_t1_));
    }
    return false;
  }

  if (!has_state) {
    // Nothing was integrated: the crossing time is the whole answer.
  } else if (UseIntegratorDenseOutput()) {
    // The rule's interpolant is as accurate as its steps.
    integrator_->DenseOutput(T(t_star), &x_);
  } else {
    // Integrate again from the start of the step to the crossing with the
    // rule itself, so the state there has the rule's accuracy.
    x_ = x0_;
    SetContextState(T(step_t0_), x_);
    double t = step_t0_;
    while (t < t_star) {
      const T reached = integrator_->Step(*active_ode_, T(t), T(t_star), &x_);
      t = ExtractDoubleOrThrow(reached);
    }
  }
  if (has_state) {
    SetContextState(T(t_star), x_);
  } else {
    root.SetTime(T(t_star));
  }
  integrator_->Reset();

  // Events that do not let time advance: more than kZenoEvents crossings
  // within kZenoWindow s is not a physical event sequence a user wants
  // resolved one by one (Zeno behaviour, or a state that has diverged so
  // that an event's update no longer changes what triggers it: DRC-Hubo
  // with its fingers spinning at 2.6e5 rad/s stalled for minutes at t =
  // 0.684 s). It is an error naming the witness, with the context left at
  // the crossing.
  if (zeno_count_ > 0 && t_star - zeno_t0_ <= kZenoWindow) {
    if (++zeno_count_ > kZenoEvents) {
      std::string names;
      for (size_t i = 0; i < witnesses_.size(); ++i) {
        if (!(roots_[i] <= t_star + witness_tolerance_)) continue;
        names += fmt::format("{}'{}' of '{}'", names.empty() ? "" : ", ",
                             witnesses_[i].witness->name,
                             system_->leaves()[witnesses_[i].leaf]->get_name());
      }
      throw std::runtime_error(fmt::format(
          "Simulator: {} witness events within {} s from t = {} (now {}; "
          "last: {}): time does not advance (Zeno behaviour, or a state "
          "that has diverged: check the state, or use a smaller step or an "
          "error-controlled integrator); the context is left at t = {}",
          zeno_count_, kZenoWindow, zeno_t0_, t_star, names, t_star));
    }
  } else {
    zeno_t0_ = t_star;
    zeno_count_ = 1;
  }

  // Every witness crossing at t_star (within the tolerance) fires together.
  for (size_t i = 0; i < witnesses_.size(); ++i) {
    if (!(roots_[i] <= t_star + witness_tolerance_)) continue;
    const LeafEvent e{witnesses_[i].leaf, &witnesses_[i].witness->event};
    if (e.event->kind == EventKind::kPublish) {
      pending_witness_publishes_.push_back(e);
    } else {
      pending_witness_updates_.push_back(e);
    }
  }
  return true;
}

template <typename T>
SimulatorStatus Simulator<T>::Initialize() {
  // A start time from outside (a resumed checkpoint) that is not finite
  // would make every event time below meaningless: refused before anything
  // changes.
  const double t_start = ExtractDoubleOrThrow(context_->get_time());
  if (!std::isfinite(t_start)) {
    throw std::invalid_argument(fmt::format(
        "Simulator::Initialize: the start time {} is not finite", t_start));
  }
  plan_.Clear();
  BuildSchedule();
  terminate_ = false;
  zeno_count_ = 0;
  Context<T>& root = *context_;
  const int nc = root.num_continuous_states();
  x_.resize(nc);
  xc_scratch_.resize(nc);
  xd_scratch_.clear();
  for (int i = 0; i < root.num_discrete_state_groups(); ++i)
    xd_scratch_.push_back(root.get_discrete_state(i));
  xa_scratch_.clear();
  for (int i = 0; i < root.num_abstract_states(); ++i)
    xa_scratch_.push_back(root.get_abstract_state_value(i).Clone());
  PrepareIntegrator();
  integrator_->Reset();
  x0_.resize(nc);
  x1_.resize(nc);
  xdot0_.resize(nc);
  xdot1_.resize(nc);

  // Initialization events: unrestricted, then discrete, then publish.
  auto run_init = [&](EventKind kind) {
    due_.clear();
    for (const auto& e : initialization_)
      if (e.event->kind == kind) due_.push_back(e);
    if (kind == EventKind::kUnrestrictedUpdate) RunUnrestricted(due_);
    if (kind == EventKind::kDiscreteUpdate) RunDiscrete(due_);
    if (kind == EventKind::kPublish) RunPublish(due_);
  };
  run_init(EventKind::kUnrestrictedUpdate);
  if (!terminate_) run_init(EventKind::kDiscreteUpdate);
  if (!terminate_) run_init(EventKind::kPublish);

  // First firing of each periodic event: the first k with offset + k*period
  // at or after the start time.
  const double t0 = ExtractDoubleOrThrow(root.get_time());
  for (auto& e : periodic_) {
    const double h = e.event->period, o = e.event->offset;
    // Beyond 2^52 periods, o + k h no longer moves by whole periods as k
    // grows (and the cast below would overflow): such a start time cannot
    // be scheduled exactly.
    if (!((t0 - o) / h < 0x1p52)) {
      throw std::invalid_argument(fmt::format(
          "Simulator::Initialize: the start time {} is out of range for a "
          "periodic event of period {} s (more than 2^52 periods)",
          t0, h));
    }
    std::int64_t k = std::max<std::int64_t>(
        0, static_cast<std::int64_t>(std::ceil((t0 - o) / h)));
    while (k > 0 && !(e.event->offset + static_cast<double>(k - 1) * h < t0) &&
           IsDue(t0, o + static_cast<double>(k - 1) * h))
      --k;
    while (!IsDue(t0, o + static_cast<double>(k) * h)) ++k;
    e.next_k = k;
  }
  // Publish events due at the start time; updates due then stay pending
  // until the start of the first step.
  if (!terminate_) DoPublishesAt(t0, true);
  initialized_ = true;
  wall_start_ = std::chrono::steady_clock::now();
  sim_start_ = t0;
  CheckMonitor();
  if (terminate_) {
    return {SimulatorStatus::kReachedTerminationCondition, t0,
            termination_message_};
  }
  return {SimulatorStatus::kReachedBoundaryTime, t0, ""};
}

template <typename T>
SimulatorStatus Simulator<T>::AdvanceTo(const T& t_final) {
  if (!initialized_) {
    SimulatorStatus status = Initialize();
    if (!status.succeeded()) return status;
  }
  terminate_ = false;
  Context<T>& root = *context_;
  const double t_end = ExtractDoubleOrThrow(t_final);
  double t = ExtractDoubleOrThrow(root.get_time());
  if (!(t_end >= t)) {
    throw std::invalid_argument(
        fmt::format("Simulator::AdvanceTo: the target time {} is before the "
                    "current time {}",
                    t_end, t));
  }
  const int nc = root.num_continuous_states();
  const bool watch = !witnesses_.empty();
  while (t < t_end) {
    DoUpdatesAt(t);
    if (terminate_) break;
    const double t_next = std::min(NextEventTime(), t_end);
    if (watch) EvalWitnesses(&w0_);
    if (nc > 0) {
      LoadState(&x_);
      if (watch) x0_ = x_;
      // Updates may have changed what kernels in the plan read.
      plan_.Prepare();
      // With nothing to do between steps (no per-step event or publish, no
      // witness, monitor or pacing), steps before the next event follow
      // each other directly: no event is due at their ends, so the updates
      // and publishes of the loop below would find nothing to do.
      const bool quiet = !watch && per_step_.empty() && !publish_every_step_ &&
                         !monitor_ && !(realtime_rate_ > 0);
      T t_reached;
      try {
        // Pass a copy of the time: evaluations move the context's time.
        T t_start = root.get_time();
        t_reached = integrator_->Step(*active_ode_, t_start, T(t_next), &x_);
        while (quiet && ExtractDoubleOrThrow(t_reached) < t_next) {
          ++stats_.steps;
          t = ExtractDoubleOrThrow(t_reached);
          t_start = t_reached;
          t_reached = integrator_->Step(*active_ode_, t_start, T(t_next), &x_);
        }
      } catch (const std::exception& error) {
        // The integrator restored x_; put the context back at the last
        // good state before reporting.
        SetContextState(T(t), x_);
        ThrowStepFailure(error, t, t_next);
      }
      SetContextState(t_reached, x_);
    } else {
      // No continuous state: time alone moves (witnesses of time, and of
      // discrete or abstract state held over the step, are still watched).
      root.SetTime(T(t_next));
    }
    if (watch) LocalizeWitnesses(t);
    t = ExtractDoubleOrThrow(root.get_time());
    ++stats_.steps;
    DoPublishesAt(t, true);
    if (terminate_ || CheckMonitor()) break;
    PaceRealtime();
  }
  if (terminate_) {
    return {SimulatorStatus::kReachedTerminationCondition, t,
            termination_message_};
  }
  return {SimulatorStatus::kReachedBoundaryTime, t, ""};
}

template <typename T>
SimulatorStatus Simulator<T>::AdvancePendingEvents() {
  if (!initialized_) {
    SimulatorStatus status = Initialize();
    if (!status.succeeded()) return status;
  }
  terminate_ = false;
  const double t = ExtractDoubleOrThrow(context_->get_time());
  DoUpdatesAt(t);
  if (!terminate_) {
    due_.clear();
    for (const auto& e : per_step_)
      if (e.event->kind == EventKind::kPublish) due_.push_back(e);
    RunPublish(due_);
    if (publish_every_step_ && !terminate_) RunPublish(forced_);
  }
  if (terminate_) {
    return {SimulatorStatus::kReachedTerminationCondition, t,
            termination_message_};
  }
  return {SimulatorStatus::kReachedBoundaryTime, t, ""};
}

template class Simulator<double>;
template class Simulator<AutoDiffXd>;

}  // namespace tern
