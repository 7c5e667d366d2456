#pragma once
// System: the base of every block. A System is an immutable description:
// ports, state and parameter declarations, events. Its values live in a
// Context made by CreateDefaultContext(). A LeafSystem computes; a Diagram
// wires systems together and is flattened into its leaves when built.
//
// The Calc* and Publish methods are exposed for algorithms (Simulator,
// linearization, discretization) to call directly.
#include <memory>
#include <string>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/systems/framework/context.h"
#include "tern/systems/framework/event.h"
#include "tern/systems/framework/ports.h"

namespace tern {

class RandomGenerator;
template <typename T>
class LeafSystem;
template <typename T>
class Diagram;

template <typename T>
class System {
 public:
  System(const System&) = delete;
  System& operator=(const System&) = delete;
  virtual ~System();

  const std::string& get_name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Names from the root diagram down, joined by '/'.
  std::string GetPathName() const;
  const Diagram<T>* get_parent() const { return parent_; }

  // ---- Ports.
  int num_input_ports() const { return static_cast<int>(inputs_.size()); }
  int num_output_ports() const { return static_cast<int>(outputs_.size()); }
  const InputPort<T>& get_input_port(int i) const {
    if (i < 0 || i >= num_input_ports()) ThrowPortIndex(true, i);
    return *inputs_[i];
  }
  const InputPort<T>& get_input_port(const std::string& name) const;
  // The only input port; throws if there is not exactly one.
  const InputPort<T>& get_input_port() const;
  const OutputPort<T>& get_output_port(int i) const {
    if (i < 0 || i >= num_output_ports()) ThrowPortIndex(false, i);
    return *outputs_[i];
  }
  const OutputPort<T>& get_output_port(const std::string& name) const;
  const OutputPort<T>& get_output_port() const;
  // True if output `out` may depend on input `in` without delay.
  virtual bool HasDirectFeedthrough(int in, int out) const = 0;
  bool HasAnyDirectFeedthrough() const;

  // ---- Sizes (sums over leaves for diagrams).
  int num_continuous_states() const { return nq_ + nv_ + nz_; }
  int num_positions() const { return nq_; }
  int num_velocities() const { return nv_; }
  int num_misc_continuous_states() const { return nz_; }
  int num_discrete_state_groups() const { return num_groups_; }
  int num_abstract_states() const { return num_abstract_; }

  // ---- Contexts.
  std::unique_ptr<Context<T>> CreateDefaultContext() const;
  // Resets state and parameters of `context` to their defaults.
  void SetDefaultContext(Context<T>* context) const;
  // Draws parameters, then state, of every leaf in a fixed order from
  // `generator` (see SetRandomState / SetRandomParameters on LeafSystem).
  void SetRandomContext(Context<T>* context, RandomGenerator* generator) const;
  // This system's context inside a root context of an enclosing diagram.
  const Context<T>& GetMyContextFromRoot(const Context<T>& root) const;
  Context<T>& GetMyMutableContextFromRoot(Context<T>* root) const;

  // ---- Dynamics, for algorithms.
  // xcdot = f(t, x, u); `derivatives` has num_continuous_states() entries.
  void CalcTimeDerivatives(const Context<T>& context,
                           VectorX<T>* derivatives) const;
  // qdot = N(q) v for every leaf (sizes num_velocities -> num_positions).
  void MapVelocityToQDot(const Context<T>& context,
                         const Eigen::Ref<const VectorX<T>>& v,
                         Eigen::Ref<VectorX<T>> qdot) const;
  // Runs every discrete-update event of the given trigger (periodic and
  // per-step by default) as if all were due now. `next` must be a view of
  // discrete state holding x⁻ (e.g. of a clone); handlers see `context`.
  void CalcDiscreteVariableUpdate(const Context<T>& context,
                                  DiscreteValues<T>* next) const;
  void CalcUnrestrictedUpdate(const Context<T>& context, State<T>* next) const;
  // Runs every periodic and per-step publish event.
  void Publish(const Context<T>& context) const;
  // Runs the forced events (DeclareForced*Event).
  void ForcedPublish(const Context<T>& context) const;
  void CalcForcedDiscreteUpdate(const Context<T>& context,
                                DiscreteValues<T>* next) const;
  void CalcForcedUnrestrictedUpdate(const Context<T>& context,
                                    State<T>* next) const;

  // ---- Flattened structure, for algorithms such as the Simulator.
  // The leaves in flattened order (a LeafSystem lists itself).
  const std::vector<const LeafSystem<T>*>& leaves() const { return leaves_; }
  // The context of leaf k within a context of this system.
  const Context<T>& leaf_context(const Context<T>& context, int k) const;
  Context<T>& mutable_leaf_context(Context<T>* context, int k) const;

 protected:
  System() = default;
  InputPort<T>& AddInputPort(std::unique_ptr<InputPort<T>> port);
  OutputPort<T>& AddOutputPort(std::unique_ptr<OutputPort<T>> port);
  void CheckPortNameIsNew(const std::string& name, bool input) const;

  // Sizes and leaves are set by LeafSystem declarations or Diagram's build.
  int nq_{0}, nv_{0}, nz_{0}, num_groups_{0}, num_abstract_{0};
  std::vector<const LeafSystem<T>*> leaves_;

 private:
  friend class Diagram<T>;
  friend class internal::ContextBuilder<T>;
  void CheckContext(const Context<T>& context, const char* func) const;
  [[noreturn]] void ThrowPortIndex(bool input, int i) const;
  void DispatchDiscrete(const Context<T>& context, DiscreteValues<T>* next,
                        bool forced) const;
  void DispatchUnrestricted(const Context<T>& context, State<T>* next,
                            bool forced) const;
  void DispatchPublish(const Context<T>& context, bool forced) const;

  std::string name_;
  const Diagram<T>* parent_{nullptr};
  int index_in_parent_{-1};
  std::vector<std::unique_ptr<InputPort<T>>> inputs_;
  std::vector<std::unique_ptr<OutputPort<T>>> outputs_;
};

}  // namespace tern
