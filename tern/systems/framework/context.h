#pragma once
// Context: everything a System's computations depend on (time, continuous,
// discrete and abstract state, numeric and abstract parameters, fixed input
// values) plus the cache of its output ports.
//
// A root Context owns one flat storage for the whole (flattened) diagram:
// continuous state is one contiguous vector, so integrators work on it
// directly. Every subsystem has a view Context into that storage, reached
// with System::GetMyContextFromRoot() or get_subcontext(). Accessors on a
// view see only that subsystem's part. Version counters (bumped by every
// mutable accessor) tell the cache when an output must be recomputed; do not
// hold a mutable reference across an Eval.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/common/value.h"
#include "tern/systems/framework/dependency_ticket.h"
#include "tern/systems/framework/state_views.h"

namespace tern {

template <typename T>
class System;
template <typename T>
class InputPort;
template <typename T>
class OutputPort;
template <typename T>
class Context;

namespace internal {

template <typename T>
class ContextBuilder;
template <typename T>
class EvaluationPlan;

// Storage shared by a root Context and all its views.
template <typename T>
struct ContextStorage {
  T time{0};
  VectorX<T> xc;                                   // all continuous state
  std::vector<VectorX<T>> xd;                      // all discrete groups
  std::vector<std::unique_ptr<AbstractValue>> xa;  // all abstract states
  std::vector<VectorX<T>> numeric_parameters;
  std::vector<std::unique_ptr<AbstractValue>> abstract_parameters;
  std::uint64_t versions[ticket::kNumVersions] = {1, 1, 1, 1, 1, 1};
  // Bumped with every version counter: a cache entry validated at the
  // current serial needs no per-counter check (the common case of an
  // output read several times between changes).
  std::uint64_t serial{1};
  std::vector<Context<T>*> leaf_contexts;  // in flattened leaf order
  // The leaf context whose output is being computed with prerequisites
  // that exclude inputs (evaluating one of its inputs then is an error).
  const Context<T>* computing_without_inputs{nullptr};
  const OutputPort<T>* computing_port{nullptr};
  // While an EvaluationPlan records: every output recomputed, in the order
  // the computations finished (each after the outputs it read).
  std::vector<std::pair<const OutputPort<T>*, const Context<T>*>>* trace{
      nullptr};

  void Bump(int which) {
    ++versions[which];
    ++serial;
  }
};

// A cached output value of a leaf system.
template <typename T>
struct CacheEntry {
  VectorX<T> vector;                        // vector ports
  std::unique_ptr<AbstractValue> abstract;  // abstract ports
  std::uint64_t versions[ticket::kNumVersions] = {0, 0, 0, 0, 0, 0};
  std::uint64_t serial{0};  // storage serial at which it was last known valid
  bool valid{false};
};

// A value set with InputPort::FixValue.
template <typename T>
struct FixedInput {
  bool has_value{false};
  VectorX<T> vector;
  std::unique_ptr<AbstractValue> abstract;
};

// Where an input port's value comes from, resolved once per root context:
// an upstream leaf output port, or a fixed-value slot of some context.
template <typename T>
struct InputSource {
  const Context<T>* context{nullptr};  // leaf (upstream) or slot owner
  int index{-1};                       // output port or fixed-input slot
  bool upstream{false};
  const OutputPort<T>* port{nullptr};  // the upstream leaf port
};

// A diagram output port resolved to the leaf output that computes it.
template <typename T>
struct OutputTarget {
  const Context<T>* context{nullptr};
  const OutputPort<T>* port{nullptr};
};

}  // namespace internal

template <typename T>
class Context {
 public:
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  // The system this context belongs to.
  const System<T>& get_system() const { return *system_; }
  bool is_root() const { return parent_ == nullptr; }
  // Deep copy (root contexts only): state, parameters, fixed inputs, time.
  std::unique_ptr<Context<T>> Clone() const;
  // Copies time, state, parameters and fixed inputs from a context of the
  // same system (root contexts only).
  void SetTimeStateAndParametersFrom(const Context<T>& source);

  // ---- Time.
  const T& get_time() const { return storage_->time; }
  void SetTime(const T& t);

  // ---- Continuous state: [q; v; z] per leaf, leaves concatenated.
  int num_continuous_states() const { return static_cast<int>(xc_size_); }
  Eigen::VectorBlock<const VectorX<T>> get_continuous_state_vector() const {
    return static_cast<const VectorX<T>&>(storage_->xc)
        .segment(xc_start_, xc_size_);
  }
  Eigen::VectorBlock<VectorX<T>> get_mutable_continuous_state_vector();
  void SetContinuousState(const Eigen::Ref<const VectorX<T>>& xc);
  // Both at once, as an integrator does for every evaluation (inline: it is
  // on the Simulator's hot path).
  // (A template rather than an Eigen::Ref, whose destructor frees its
  // unused copy buffer on every call.)
  template <class Derived>
  void SetTimeAndContinuousState(const T& t,
                                 const Eigen::MatrixBase<Derived>& xc) {
    if (xc.size() != xc_size_) ThrowContinuousStateSize(xc.size());
    T* dst = storage_->xc.data() + xc_start_;
    for (Eigen::Index i = 0; i < xc_size_; ++i) dst[i] = xc.coeff(i);
    storage_->time = t;
    ++storage_->versions[kTimeVersion];
    ++storage_->versions[kXcVersion];
    ++storage_->serial;
  }

  // ---- Discrete state groups.
  int num_discrete_state_groups() const { return num_groups_; }
  const VectorX<T>& get_discrete_state(int group) const;
  // The only group; throws if there is not exactly one.
  const VectorX<T>& get_discrete_state_vector() const;
  VectorX<T>& get_mutable_discrete_state(int group);
  void SetDiscreteState(int group, const Eigen::Ref<const VectorX<T>>& value);
  // A view of all groups (to write, e.g. as the target of an update).
  DiscreteValues<T> get_mutable_discrete_state();

  // ---- Abstract state.
  int num_abstract_states() const { return num_abstract_; }
  template <typename V>
  const V& get_abstract_state(int i) const {
    return storage_->xa[AbstractIndex(i)]->template get_value<V>();
  }
  template <typename V>
  V& get_mutable_abstract_state(int i) {
    const int k = AbstractIndex(i);
    storage_->Bump(kXaVersion);
    return storage_->xa[k]->template get_mutable_value<V>();
  }

  const AbstractValue& get_abstract_state_value(int i) const {
    return *storage_->xa[AbstractIndex(i)];
  }
  AbstractValue& get_mutable_abstract_state_value(int i) {
    const int k = AbstractIndex(i);
    storage_->Bump(kXaVersion);
    return *storage_->xa[k];
  }

  // ---- Whole state, as handed to unrestricted updates.
  State<T> get_mutable_state();

  // ---- Parameters.
  int num_numeric_parameter_groups() const { return num_numeric_params_; }
  const VectorX<T>& get_numeric_parameter(int i) const;
  VectorX<T>& get_mutable_numeric_parameter(int i);
  int num_abstract_parameters() const { return num_abstract_params_; }
  template <typename V>
  const V& get_abstract_parameter(int i) const {
    return storage_->abstract_parameters[AbstractParamIndex(i)]
        ->template get_value<V>();
  }
  AbstractValue& mutable_abstract_parameter_value(int i) {
    const int k = AbstractParamIndex(i);
    storage_->Bump(kParamsVersion);
    return *storage_->abstract_parameters[k];
  }
  template <typename V>
  V& get_mutable_abstract_parameter(int i) {
    const int k = AbstractParamIndex(i);
    storage_->Bump(kParamsVersion);
    return storage_->abstract_parameters[k]->template get_mutable_value<V>();
  }

  // ---- Subsystems (diagram contexts): one subcontext per child system.
  int num_subcontexts() const { return static_cast<int>(subcontexts_.size()); }
  const Context<T>& get_subcontext(int i) const;
  Context<T>& get_mutable_subcontext(int i);
  const Context<T>* get_parent() const { return parent_; }

  // Where this view's parts sit in the root's flat storage (for algorithms
  // that keep state buffers shaped like the root's, such as the Simulator).
  struct Layout {
    Eigen::Index xc_start, xc_size;
    int group_start, num_groups, abstract_start, num_abstract;
  };
  Layout layout() const {
    return {xc_start_,   xc_size_,        group_start_,
            num_groups_, abstract_start_, num_abstract_};
  }

  // Marks every cached output stale (e.g. after changing state through a
  // reference obtained earlier).
  void NoteAllChanged();

 private:
  friend class System<T>;
  friend class InputPort<T>;
  friend class OutputPort<T>;
  friend class internal::ContextBuilder<T>;
  friend class internal::EvaluationPlan<T>;

  static constexpr int kTimeVersion = 0, kXcVersion = 1, kXdVersion = 2,
                       kXaVersion = 3, kParamsVersion = 4, kFixedVersion = 5;

  Context() = default;
  int GroupIndex(int group) const;
  int AbstractIndex(int i) const;
  int AbstractParamIndex(int i) const;
  [[noreturn]] void ThrowIndex(const char* what, int i, int n) const;
  [[noreturn]] void ThrowContinuousStateSize(Eigen::Index size) const;

  const System<T>* system_{nullptr};
  const Context<T>* parent_{nullptr};
  internal::ContextStorage<T>* storage_{nullptr};
  std::unique_ptr<internal::ContextStorage<T>> owned_storage_;  // root only
  std::vector<std::unique_ptr<Context<T>>> subcontexts_;
  // This view's ranges in the storage.
  Eigen::Index xc_start_{0}, xc_size_{0};
  int nq_{0}, nv_{0}, nz_{0};  // leaf contexts only
  int group_start_{0}, num_groups_{0};
  int abstract_start_{0}, num_abstract_{0};
  int numeric_param_start_{0}, num_numeric_params_{0};
  int abstract_param_start_{0}, num_abstract_params_{0};
  int leaf_start_{0}, num_leaves_{0};
  // Per input port of this system: fixed value and resolved source.
  std::vector<internal::FixedInput<T>> fixed_inputs_;
  std::vector<internal::InputSource<T>> input_sources_;
  // Per output port: cache (leaf) or resolved leaf target (diagram).
  mutable std::vector<internal::CacheEntry<T>> cache_;
  std::vector<internal::OutputTarget<T>> output_targets_;
};

}  // namespace tern
