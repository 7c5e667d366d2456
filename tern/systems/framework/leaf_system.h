#pragma once
// LeafSystem: a block that computes. Subclasses declare state, parameters,
// ports and events in their constructor and override the Do* hooks they
// need. Handlers may be member functions of the subclass or lambdas.
//
//   class Counter final : public LeafSystem<double> {
//    public:
//     Counter() {
//       DeclareDiscreteState(1);
//       DeclarePeriodicDiscreteUpdateEvent(0.02, 0.0, &Counter::Update);
//       DeclareVectorOutputPort("y", 1, &Counter::CalcY, {ticket::kXd});
//     }
//    private:
//     EventStatus Update(const Context<double>& c,
//                        DiscreteValues<double>* xd) const {
//       xd->get_mutable_vector()[0] = c.get_discrete_state_vector()[0] + 1;
//       return EventStatus::Succeeded();
//     }
//     void CalcY(const Context<double>& c, VectorX<double>* y) const {
//       (*y)[0] = 10 * c.get_discrete_state_vector()[0];
//     }
//   };
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tern/systems/framework/system.h"
#include "tern/systems/framework/witness_function.h"

namespace tern {

template <typename T>
class LeafSystem : public System<T> {
 public:
  ~LeafSystem() override;

  bool HasDirectFeedthrough(int in, int out) const override;

  // ---- Declared defaults (read by context creation).
  const VectorX<double>& default_continuous_state() const { return xc0_; }
  const std::vector<VectorX<double>>& default_discrete_state() const {
    return xd0_;
  }
  const std::vector<std::unique_ptr<AbstractValue>>& default_abstract_state()
      const {
    return xa0_;
  }
  const std::vector<VectorX<double>>& default_numeric_parameters() const {
    return p0_;
  }
  const std::vector<std::unique_ptr<AbstractValue>>&
  default_abstract_parameters() const {
    return ap0_;
  }
  const std::vector<Event<T>>& events() const { return events_; }
  const std::vector<WitnessFunction<T>>& witness_functions() const {
    return witnesses_;
  }

  // ---- Hooks called by System's algorithms (public so that Diagram and
  // the Simulator can reach every leaf).
  // Writes xcdot for this leaf's [q; v; z].
  virtual void DoCalcTimeDerivatives(const Context<T>& context,
                                     Eigen::Ref<VectorX<T>> derivatives) const;
  // The kernel declared with DeclareTimeDerivativesKernel (or the vector
  // form of DeclareScalarTimeDerivativesKernel's), or null.
  OutputKernel<T> time_derivatives_kernel() const {
    return derivatives_kernel_;
  }
  // The kernel declared with DeclareScalarTimeDerivativesKernel, or null.
  ScalarKernel<T> scalar_time_derivatives_kernel() const {
    return scalar_derivatives_kernel_;
  }
  // qdot = N(q) v; the default requires nq == nv and copies.
  virtual void DoMapVelocityToQDot(const Context<T>& context,
                                   const Eigen::Ref<const VectorX<T>>& v,
                                   Eigen::Ref<VectorX<T>> qdot) const;
  // Sets state to its default (the declared values). Override to compute
  // defaults from parameters.
  virtual void SetDefaultState(const Context<T>& context,
                               State<T>* state) const;
  virtual void SetDefaultParameters(Context<T>* context) const;
  // Random initial conditions / parameters (seed 002). Default: defaults.
  virtual void SetRandomState(const Context<T>& context, State<T>* state,
                              RandomGenerator* generator) const;
  virtual void SetRandomParameters(Context<T>* context,
                                   RandomGenerator* generator) const;

 protected:
  explicit LeafSystem(std::string default_name = "");

  // ---- State and parameters. Each returns the index of what it declared.
  // Continuous state [q; v; z] with the given sizes, all zero.
  void DeclareContinuousState(int num_state_variables);
  void DeclareContinuousState(int num_q, int num_v, int num_z);
  void DeclareContinuousState(const VectorX<double>& initial, int num_q = 0,
                              int num_v = 0);
  int DeclareDiscreteState(int size);
  int DeclareDiscreteState(const VectorX<double>& initial);
  int DeclareAbstractState(const AbstractValue& initial);
  template <typename V>
  int DeclareAbstractState(const V& initial) {
    if constexpr (std::is_base_of_v<AbstractValue, V>) {
      return DeclareAbstractState(static_cast<const AbstractValue&>(initial));
    } else {
      return DeclareAbstractState(
          static_cast<const AbstractValue&>(Value<V>(initial)));
    }
  }
  int DeclareNumericParameter(const VectorX<double>& initial);
  int DeclareAbstractParameter(const AbstractValue& initial);

  // ---- Ports.
  const InputPort<T>& DeclareVectorInputPort(
      std::string name, int size,
      std::optional<RandomDistribution> random_type = std::nullopt);
  const InputPort<T>& DeclareAbstractInputPort(std::string name,
                                               const AbstractValue& model);

  // Output `y = calc(context)`. `prerequisites` (dependency_ticket.h) say
  // what it may depend on: outputs that exclude ticket::kInputs have no
  // direct feedthrough.
  const OutputPort<T>& DeclareVectorOutputPort(
      std::string name, int size,
      std::function<void(const Context<T>&, VectorX<T>*)> calc,
      Prerequisites prerequisites = ticket::kAllSources);
  template <class S>
  const OutputPort<T>& DeclareVectorOutputPort(
      std::string name, int size,
      void (S::*calc)(const Context<T>&, VectorX<T>*) const,
      Prerequisites prerequisites = ticket::kAllSources) {
    const S* self = Self<S>();
    return DeclareVectorOutputPort(
        std::move(name), size,
        [self, calc](const Context<T>& c, VectorX<T>* y) {
          (self->*calc)(c, y);
        },
        prerequisites);
  }
  // A vector output computed by a kernel, a static member function
  //   static void K(const S& self, const Context<T>& context,
  //                 const KernelInputs<T>& u, T* y);
  // where u[i] points to vector input port i's value and y has `size`
  // entries. It is an output port like any other; in addition the Simulator
  // calls the kernel straight from its evaluation plan while integrating,
  // with input pointers resolved once, which removes the per-evaluation
  // cache checks and look-ups. Declare with
  //   this->template DeclareVectorOutputKernel<&S::K>("y", size);
  template <auto kKernel>
  const OutputPort<T>& DeclareVectorOutputKernel(
      std::string name, int size,
      Prerequisites prerequisites = ticket::kAllSources) {
    using S =
        std::remove_cv_t<std::remove_pointer_t<decltype(KernelOwner(kKernel))>>;
    static_assert(std::is_base_of_v<LeafSystem<T>, S>);
    const OutputKernel<T> thunk = [](const System<T>& system,
                                     const Context<T>& context,
                                     const KernelInputs<T>& u, T* y) {
      kKernel(static_cast<const S&>(system), context, u, y);
    };
    return DeclareKernelPort(std::move(name), size, thunk, prerequisites);
  }
  // A size-1 output computed by a scalar kernel, a static member function
  //   static T K(const S& self, const Context<T>& context, T u0, T u1);
  // of the values of input ports 0 and 1 (zero where the system has no such
  // port, and both zero when `prerequisites` leave out ticket::kInputs). The
  // system may have at most two input ports, vector ports of size 1;
  // declaring more throws. Like a vector kernel it is a normal output port;
  // in the Simulator's plan (T = double) consecutive scalar kernels hand
  // their values over in registers rather than through memory, which is
  // what makes chains of scalar blocks (gains, sums, filters) cheap. Declare
  // with
  //   this->template DeclareScalarOutputKernel<&S::K>("y");
  template <auto kScalar>
  const OutputPort<T>& DeclareScalarOutputKernel(
      std::string name, Prerequisites prerequisites = ticket::kAllSources) {
    using S = std::remove_cv_t<
        std::remove_pointer_t<decltype(ScalarKernelOwner(kScalar))>>;
    static_assert(std::is_base_of_v<LeafSystem<T>, S>);
    CheckScalarKernelInputs(name);
    if (scalar_kernel_output_.empty()) scalar_kernel_output_ = name;
    const ScalarKernel<T> scalar = [](const System<T>& system,
                                      const Context<T>& context, T u0, T u1) {
      return kScalar(static_cast<const S&>(system), context, u0, u1);
    };
    // The vector form, for evaluation outside a plan and for AutoDiffXd.
    const OutputKernel<T> vector =
        (prerequisites & ticket::kInputs) != 0
            ? OutputKernel<T>([](const System<T>& system,
                                 const Context<T>& context,
                                 const KernelInputs<T>& u, T* y) {
                const int n = system.num_input_ports();
                y[0] = kScalar(static_cast<const S&>(system), context,
                               n > 0 ? u[0][0] : T(0), n > 1 ? u[1][0] : T(0));
              })
            : OutputKernel<T>([](const System<T>& system,
                                 const Context<T>& context,
                                 const KernelInputs<T>&, T* y) {
                y[0] =
                    kScalar(static_cast<const S&>(system), context, T(0), T(0));
              });
    const OutputPort<T>& port =
        DeclareKernelPort(std::move(name), 1, vector, prerequisites);
    const_cast<OutputPort<T>&>(port).scalar_kernel_ = scalar;
    return port;
  }
  // The time derivatives of this leaf's continuous state computed by a
  // kernel of the same form as an output kernel,
  //   static void K(const S& self, const Context<T>& context,
  //                 const KernelInputs<T>& u, T* xdot);
  // with xdot of the leaf's continuous-state size. It replaces
  // DoCalcTimeDerivatives (do not override both); the Simulator's plan calls
  // it with input pointers resolved once. Declare with
  //   this->template DeclareTimeDerivativesKernel<&S::K>();
  template <auto kKernel>
  void DeclareTimeDerivativesKernel() {
    using S =
        std::remove_cv_t<std::remove_pointer_t<decltype(KernelOwner(kKernel))>>;
    static_assert(std::is_base_of_v<LeafSystem<T>, S>);
    derivatives_kernel_ = [](const System<T>& system, const Context<T>& context,
                             const KernelInputs<T>& u, T* xdot) {
      kKernel(static_cast<const S&>(system), context, u, xdot);
    };
  }
  // The same for a leaf with one continuous state and at most two input
  // ports, vector ports of size 1, in the form of a scalar output kernel:
  //   static T K(const S& self, const Context<T>& context, T u0, T u1);
  // returning xdot. In the Simulator's plan it takes its inputs from
  // registers like a scalar output kernel. Declare the continuous state and
  // the inputs first.
  template <auto kScalar>
  void DeclareScalarTimeDerivativesKernel() {
    using S = std::remove_cv_t<
        std::remove_pointer_t<decltype(ScalarKernelOwner(kScalar))>>;
    static_assert(std::is_base_of_v<LeafSystem<T>, S>);
    CheckScalarKernelInputs("the time derivatives");
    CheckOneContinuousState();
    if (scalar_kernel_output_.empty()) {
      scalar_kernel_output_ = "the time derivatives";
    }
    scalar_derivatives_kernel_ = [](const System<T>& system,
                                    const Context<T>& context, T u0, T u1) {
      return kScalar(static_cast<const S&>(system), context, u0, u1);
    };
    derivatives_kernel_ = [](const System<T>& system, const Context<T>& context,
                             const KernelInputs<T>& u, T* xdot) {
      const int n = system.num_input_ports();
      xdot[0] = kScalar(static_cast<const S&>(system), context,
                        n > 0 ? u[0][0] : T(0), n > 1 ? u[1][0] : T(0));
    };
  }

  const OutputPort<T>& DeclareAbstractOutputPort(
      std::string name, const AbstractValue& model,
      std::function<void(const Context<T>&, AbstractValue*)> calc,
      Prerequisites prerequisites = ticket::kAllSources);
  template <class S, typename V>
  const OutputPort<T>& DeclareAbstractOutputPort(
      std::string name, void (S::*calc)(const Context<T>&, V*) const,
      Prerequisites prerequisites = ticket::kAllSources, const V& model = V{}) {
    const S* self = Self<S>();
    return DeclareAbstractOutputPort(
        std::move(name), Value<V>(model),
        [self, calc](const Context<T>& c, AbstractValue* out) {
          (self->*calc)(c, &out->get_mutable_value<V>());
        },
        prerequisites);
  }

  // ---- Events. Handlers return EventStatus (or void for "succeeded").
  template <typename H>
  void DeclarePeriodicPublishEvent(double period, double offset, H handler) {
    AddEvent<EventKind::kPublish>(TriggerType::kPeriodic, period, offset,
                                  std::move(handler));
  }
  template <typename H>
  void DeclarePeriodicDiscreteUpdateEvent(double period, double offset,
                                          H handler) {
    AddEvent<EventKind::kDiscreteUpdate>(TriggerType::kPeriodic, period, offset,
                                         std::move(handler));
  }
  template <typename H>
  void DeclarePeriodicUnrestrictedUpdateEvent(double period, double offset,
                                              H handler) {
    AddEvent<EventKind::kUnrestrictedUpdate>(TriggerType::kPeriodic, period,
                                             offset, std::move(handler));
  }
  template <typename H>
  void DeclarePerStepPublishEvent(H h) {
    AddEvent<EventKind::kPublish>(TriggerType::kPerStep, 0, 0, std::move(h));
  }
  template <typename H>
  void DeclarePerStepDiscreteUpdateEvent(H h) {
    AddEvent<EventKind::kDiscreteUpdate>(TriggerType::kPerStep, 0, 0,
                                         std::move(h));
  }
  template <typename H>
  void DeclarePerStepUnrestrictedUpdateEvent(H h) {
    AddEvent<EventKind::kUnrestrictedUpdate>(TriggerType::kPerStep, 0, 0,
                                             std::move(h));
  }
  template <typename H>
  void DeclareInitializationPublishEvent(H h) {
    AddEvent<EventKind::kPublish>(TriggerType::kInitialization, 0, 0,
                                  std::move(h));
  }
  template <typename H>
  void DeclareInitializationDiscreteUpdateEvent(H h) {
    AddEvent<EventKind::kDiscreteUpdate>(TriggerType::kInitialization, 0, 0,
                                         std::move(h));
  }
  template <typename H>
  void DeclareInitializationUnrestrictedUpdateEvent(H h) {
    AddEvent<EventKind::kUnrestrictedUpdate>(TriggerType::kInitialization, 0, 0,
                                             std::move(h));
  }
  template <typename H>
  void DeclareForcedPublishEvent(H h) {
    AddEvent<EventKind::kPublish>(TriggerType::kForced, 0, 0, std::move(h));
  }
  template <typename H>
  void DeclareForcedDiscreteUpdateEvent(H h) {
    AddEvent<EventKind::kDiscreteUpdate>(TriggerType::kForced, 0, 0,
                                         std::move(h));
  }
  template <typename H>
  void DeclareForcedUnrestrictedUpdateEvent(H h) {
    AddEvent<EventKind::kUnrestrictedUpdate>(TriggerType::kForced, 0, 0,
                                             std::move(h));
  }

  // ---- Witness functions (state events). `calc` returns w(context); the
  // handler's signature chooses the event kind: (context) -> publish,
  // (context, DiscreteValues*) -> discrete update, (context, State*) ->
  // unrestricted update. Handlers return EventStatus or void.
  template <typename H>
  void DeclareWitnessFunction(std::string name, WitnessDirection direction,
                              std::function<T(const Context<T>&)> calc,
                              H handler) {
    WitnessFunction<T> w;
    w.name = std::move(name);
    w.direction = direction;
    w.calc = std::move(calc);
    w.event.trigger = TriggerType::kWitness;
    if constexpr (IsHandlerFor<H>(0)) {
      w.event.kind = EventKind::kPublish;
      w.event.publish = WrapHandler(std::move(handler));
    } else if constexpr (IsHandlerFor<H, DiscreteValues<T>>(0)) {
      w.event.kind = EventKind::kDiscreteUpdate;
      w.event.discrete = WrapHandler<DiscreteValues<T>>(std::move(handler));
    } else {
      static_assert(IsHandlerFor<H, State<T>>(0),
                    "a witness handler takes (context), (context, "
                    "DiscreteValues*) or (context, State*)");
      w.event.kind = EventKind::kUnrestrictedUpdate;
      w.event.unrestricted = WrapHandler<State<T>>(std::move(handler));
    }
    AddWitnessChecked(std::move(w));
  }

 private:
  OutputKernel<T> derivatives_kernel_{nullptr};
  ScalarKernel<T> scalar_derivatives_kernel_{nullptr};
  // The first output declared with a scalar kernel (empty if none).
  std::string scalar_kernel_output_;
  // Throws if this system's inputs do not suit a scalar kernel.
  void CheckScalarKernelInputs(const std::string& output_name) const;
  // Throws unless exactly one continuous state has been declared.
  void CheckOneContinuousState() const;
  // An output port computed by `kernel`, which the plan may call directly.
  const OutputPort<T>& DeclareKernelPort(std::string name, int size,
                                         OutputKernel<T> kernel,
                                         Prerequisites prerequisites);
  template <class S>
  static const S* ScalarKernelOwner(T (*)(const S&, const Context<T>&, T, T));
  template <class S>
  static const S* KernelOwner(void (*)(const S&, const Context<T>&,
                                       const KernelInputs<T>&, T*));
  template <class S>
  const S* Self() const {
    static_assert(std::is_base_of_v<LeafSystem<T>, S>);
    return static_cast<const S*>(this);
  }
  void AddEventChecked(Event<T> event);
  void AddWitnessChecked(WitnessFunction<T> witness);

  // Whether H is a handler taking (context[, Out*]): a callable or a member
  // function pointer of a subclass.
  template <typename H, typename... Out>
  static constexpr bool IsHandlerFor(int) {
    if constexpr (std::is_member_function_pointer_v<H>) {
      return IsMemberHandler<Out...>(static_cast<H>(nullptr));
    } else {
      return std::is_invocable_v<H, const Context<T>&, Out*...>;
    }
  }
  template <typename... Out, typename R, class S, typename... A>
  static constexpr bool IsMemberHandler(R (S::*)(A...) const) {
    return std::is_invocable_v<R (S::*)(A...) const, const S*,
                               const Context<T>&, Out*...>;
  }

  // Wraps a handler (member function pointer or callable, returning
  // EventStatus or void) into the std::function of its kind.
  template <EventKind kKind, typename H>
  void AddEvent(TriggerType trigger, double period, double offset, H handler) {
    Event<T> e;
    e.kind = kKind;
    e.trigger = trigger;
    e.period = period;
    e.offset = offset;
    if constexpr (kKind == EventKind::kPublish) {
      e.publish = WrapHandler(std::move(handler));
    } else if constexpr (kKind == EventKind::kDiscreteUpdate) {
      e.discrete = WrapHandler<DiscreteValues<T>>(std::move(handler));
    } else {
      e.unrestricted = WrapHandler<State<T>>(std::move(handler));
    }
    AddEventChecked(std::move(e));
  }
  template <typename H>
  std::function<EventStatus(const Context<T>&)> WrapHandler(H h) {
    if constexpr (std::is_member_function_pointer_v<H>) {
      auto* self = this;
      return [self, h](const Context<T>& c) {
        return Call([&] { return (ClassOf(h, self)->*h)(c); });
      };
    } else {
      return [h](const Context<T>& c) { return Call([&] { return h(c); }); };
    }
  }
  template <typename Out, typename H>
  std::function<EventStatus(const Context<T>&, Out*)> WrapHandler(H h) {
    if constexpr (std::is_member_function_pointer_v<H>) {
      auto* self = this;
      return [self, h](const Context<T>& c, Out* out) {
        return Call([&] { return (ClassOf(h, self)->*h)(c, out); });
      };
    } else {
      return [h](const Context<T>& c, Out* out) {
        return Call([&] { return h(c, out); });
      };
    }
  }
  // The subclass pointer matching a member function pointer's class.
  template <typename R, class S, typename... A>
  static const S* ClassOf(R (S::*)(A...) const, const LeafSystem<T>* self) {
    return static_cast<const S*>(self);
  }
  template <typename F>
  static EventStatus Call(F&& f) {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      return EventStatus::Succeeded();
    } else {
      return f();
    }
  }

  VectorX<double> xc0_;
  std::vector<VectorX<double>> xd0_;
  std::vector<std::unique_ptr<AbstractValue>> xa0_;
  std::vector<VectorX<double>> p0_;
  std::vector<std::unique_ptr<AbstractValue>> ap0_;
  std::vector<Event<T>> events_;
  std::vector<WitnessFunction<T>> witnesses_;
};

}  // namespace tern
