// LeafSystem subclassed in Python (the trampoline pattern of pybind11, as in
// pydrake): the subclass declares state, parameters, ports and events in
// its __init__ with Python callables as handlers, and may override
// do_calc_time_derivatives.
//
// Handlers get the Context and, for updates, a DiscreteValues or State view;
// output calcs get a writable NumPy view of the output vector. These are
// valid during the call only (a kept xdot or y view is detached into a
// read-only copy when the call returns, so it never dangles). Every call into
// Python takes the GIL, so a Python system may be simulated from any thread
// (one at a time: the GIL serializes them).
//
// A handler that is a bound method of the system itself is stored as its
// function and called with the system looked up at call time, so the C++
// system holds no reference to its own Python object (which would be a
// cycle the garbage collector cannot see).
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

#include "python/bind_common.h"
#include "python/bind_systems.h"
#include "python/fast_call.h"
#include "tern/common/random_generator.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern::python {
namespace {

using Ctx = Context<double>;

// A Python callable shared by copies of the C++ handler; released with the
// GIL held whatever thread drops the last copy.
struct PyCallable {
  std::shared_ptr<py::object> fn;
  bool is_own_method{false};  // fn is a function taking the system first
};

// One Python argument object reused across calls of a handler (the
// Context wrapper, the NumPy view of xdot or y): building them is most of a
// Python leaf's cost per call. An entry is reused only while it is
// "pristine": referenced by this cache alone, holding no keep-alive patients
// and no attribute dict, so the cache never holds a Python reference that
// could close a cycle the garbage collector cannot see, and a handler that
// keeps its argument gets a fresh one next time. Only valid with the GIL
// held; released with the GIL held by whatever thread destroys the system.
class ArgCache {
 public:
  ArgCache() = default;
  ArgCache(const ArgCache&) = delete;
  ArgCache& operator=(const ArgCache&) = delete;
  ~ArgCache() {
    if (obj_ == nullptr) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(obj_);
  }

  // The Python wrapper of `context` (a non-owning reference).
  py::object Context(const Ctx& context) {
    if (obj_ != nullptr && key_ == &context && type_ == &typeid(context)) {
      return py::reinterpret_borrow<py::object>(obj_);
    }
    py::object o = py::cast(&context, py::return_value_policy::reference);
    if (Store(o, &context, &typeid(context), 0)) Unregister(o);
    return o;
  }

  // A writable NumPy view of n doubles at `data`.
  py::object View(double* data, Eigen::Index n) {
    if (obj_ != nullptr && key_ == data && n_ == n) {
      auto* a = py::detail::array_proxy(obj_);
      // The handler cannot have reshaped or frozen a pristine view that
      // it did not keep, but check the cheap invariants anyway.
      if (a->nd == 1 && a->dimensions[0] == n &&
          (a->flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_) != 0) {
        return py::reinterpret_borrow<py::object>(obj_);
      }
    }
    py::object o = VectorView(data, n, py::handle());
    Store(o, data, nullptr, n);
    return o;
  }

  // Whether View(data, n) would reuse this entry.
  bool Holds(const double* data, Eigen::Index n) const {
    return obj_ != nullptr && type_ == nullptr && key_ == data && n_ == n;
  }

  // After the handler returned: drops the entry unless it is pristine. A
  // view the handler kept is detached from the C++ buffer first (which
  // the simulator reuses and may free): it becomes a read-only copy of its
  // values at the end of the call, so it never dangles.
  void Release() {
    if (obj_ == nullptr || Pristine(obj_)) return;
    if (type_ == nullptr) Detach();
    Py_DECREF(obj_);
    obj_ = nullptr;
  }

 private:
  bool Pristine(PyObject* o) const {
    if (Py_REFCNT(o) != 1) return false;
    // A NumPy view has neither keep-alive patients nor a __dict__.
    if (type_ == nullptr) return true;
    auto* inst = reinterpret_cast<py::detail::instance*>(o);
    if (inst->has_patients) return false;
    PyObject** dict = _PyObject_GetDictPtr(o);
    return dict == nullptr || *dict == nullptr || PyDict_GET_SIZE(*dict) == 0;
  }

  // Points the cached view at a new array holding a copy of its data.
  void Detach() {
    auto* a = py::detail::array_proxy(obj_);
    if (a->data != key_) return;  // not the view made here
    PyObject* copy = NewVector(static_cast<const double*>(key_), n_);
    if (copy == nullptr) {
      // Out of memory: the view is at least made unwritable.
      PyErr_Clear();
    } else {
      a->data = py::detail::array_proxy(copy)->data;
      PyObject* old_base = a->base;
      a->base = copy;
      Py_XDECREF(old_base);
    }
    a->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  }

  // Removes a wrapper made here from pybind11's registry of live C++
  // objects: a cached wrapper may outlive its Context, and a registered one
  // would then be handed out for whatever object is later made at that
  // address. Unregistered, it is found only by this cache, which checks the
  // address and type on each use. (pybind11 skips the deregistration when
  // the wrapper is freed, as for any instance not registered.)
  static void Unregister(const py::object& o) {
    auto* inst = reinterpret_cast<py::detail::instance*>(o.ptr());
    for (auto v_h : py::detail::values_and_holders(inst)) {
      if (v_h && v_h.instance_registered()) {
        py::detail::deregister_instance(inst, v_h.value_ptr(), v_h.type);
        v_h.set_instance_registered(false);
      }
    }
  }

  // Caches o if it was made for this call; returns whether it did.
  bool Store(const py::object& o, const void* key, const std::type_info* type,
             Eigen::Index n) {
    if (obj_ != nullptr) Py_DECREF(obj_);
    obj_ = nullptr;
    // Only a wrapper made here (not one Python already holds) is cached.
    if (Py_REFCNT(o.ptr()) != 1) return false;
    obj_ = o.ptr();
    Py_INCREF(obj_);
    key_ = key;
    type_ = type;
    n_ = n;
    return true;
  }

  PyObject* obj_{nullptr};  // owned reference, or null
  const void* key_{nullptr};
  const std::type_info* type_{nullptr};
  Eigen::Index n_{0};
};

// Calls f(args...) through CPython's vectorcall (no argument tuple; the
// arguments are borrowed from objects the caller holds).
py::object Vectorcall(PyObject* f, std::initializer_list<PyObject*> args) {
  PyObject* r = PyObject_Vectorcall(f, args.begin(), args.size(), nullptr);
  if (r == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

// Takes the GIL unless this thread holds it already (a Simulator driven
// from Python holds it through advance_to, so a Python leaf's calls do not
// hand it back and forth).
class Gil {
 public:
  Gil() {
    if (!PyGILState_Check()) acquire_.emplace();
  }

 private:
  std::optional<py::gil_scoped_acquire> acquire_;
};

// Views of the few vectors a handler is called with: an integrator
// alternates between its stage buffers (RK4 writes xdot into four), so one
// entry would be replaced on every call.
class ViewCache {
 public:
  py::object View(double* data, Eigen::Index n) {
    for (ArgCache& slot : slots_) {
      if (slot.Holds(data, n)) return slot.View(data, n);
    }
    ArgCache& slot = slots_[next_];
    next_ = (next_ + 1) % kSlots;
    return slot.View(data, n);
  }
  void Release() {
    for (ArgCache& slot : slots_) slot.Release();
  }

 private:
  static constexpr int kSlots = 4;
  ArgCache slots_[kSlots];
  int next_{0};
};

// The reusable arguments of one handler.
struct ArgCaches {
  ArgCache context;
  ViewCache vector;
  void Release() {
    context.Release();
    vector.Release();
  }
};

// Releases a handler's cached arguments when the call ends, by return or by
// exception (after the call's own references are gone).
class ReleaseAfterCall {
 public:
  explicit ReleaseAfterCall(ArgCaches* caches) : caches_(caches) {}
  ReleaseAfterCall(const ReleaseAfterCall&) = delete;
  ReleaseAfterCall& operator=(const ReleaseAfterCall&) = delete;
  ~ReleaseAfterCall() { caches_->Release(); }

 private:
  ArgCaches* caches_;
};

class PyLeafSystem : public LeafSystem<double> {
 public:
  PyLeafSystem() : LeafSystem<double>("") {}

  // The declarations, public for the bindings.
  using LeafSystem<double>::DeclareContinuousState;
  using LeafSystem<double>::DeclareDiscreteState;
  using LeafSystem<double>::DeclareNumericParameter;
  using LeafSystem<double>::DeclareVectorInputPort;

  PyCallable Wrap(py::object f) const {
    PyCallable c;
    if (py::hasattr(f, "__self__") && py::hasattr(f, "__func__") &&
        f.attr("__self__").ptr() == Self().ptr()) {
      f = f.attr("__func__");
      c.is_own_method = true;
    }
    c.fn = std::shared_ptr<py::object>(new py::object(std::move(f)),
                                       [](py::object* o) {
                                         py::gil_scoped_acquire gil;
                                         delete o;
                                       });
    return c;
  }

  // Calls a handler (GIL held by the caller).
  template <typename... Args>
  py::object Call(const PyCallable& c, const Args&... args) const {
    if (c.is_own_method) {
      py::handle self = Self();
      if (!self) {
        throw std::runtime_error("LeafSystem '" + this->get_name() +
                                 "': its Python object no longer exists");
      }
      return Vectorcall(c.fn->ptr(), {self.ptr(), args.ptr()...});
    }
    return Vectorcall(c.fn->ptr(), {args.ptr()...});
  }

  static EventStatus ToStatus(const py::object& r) {
    if (r.is_none()) return EventStatus::Succeeded();
    return r.cast<EventStatus>();
  }

  const OutputPort<double>& DeclareOutput(std::string name, int size,
                                          py::object calc,
                                          Prerequisites prerequisites) {
    PyCallable c = Wrap(std::move(calc));
    auto cache = std::make_shared<ArgCaches>();
    return DeclareVectorOutputPort(
        std::move(name), size,
        [this, c, cache](const Ctx& context, VectorX<double>* y) {
          Gil gil;
          ReleaseAfterCall release(cache.get());
          py::object r = Call(c, cache->context.Context(context),
                              cache->vector.View(y->data(), y->size()));
          if (!r.is_none()) *y = r.cast<Eigen::VectorXd>();
        },
        prerequisites);
  }

  // kind: 0 publish, 1 discrete update, 2 unrestricted update.
  void DeclareEvent(int kind, TriggerType trigger, double period, double offset,
                    py::object handler) {
    PyCallable c = Wrap(std::move(handler));
    auto cache = std::make_shared<ArgCaches>();
    auto publish = [this, c, cache](const Ctx& context) {
      Gil gil;
      ReleaseAfterCall release(cache.get());
      return ToStatus(Call(c, cache->context.Context(context)));
    };
    auto discrete = [this, c, cache](const Ctx& context,
                                     DiscreteValues<double>* xd) {
      Gil gil;
      ReleaseAfterCall release(cache.get());
      return ToStatus(Call(c, cache->context.Context(context),
                           py::cast(xd, py::return_value_policy::reference)));
    };
    auto unrestricted = [this, c, cache](const Ctx& context, State<double>* x) {
      Gil gil;
      ReleaseAfterCall release(cache.get());
      return ToStatus(Call(c, cache->context.Context(context),
                           py::cast(x, py::return_value_policy::reference)));
    };
    switch (trigger) {
      case TriggerType::kPeriodic:
        if (kind == 0) DeclarePeriodicPublishEvent(period, offset, publish);
        if (kind == 1) {
          DeclarePeriodicDiscreteUpdateEvent(period, offset, discrete);
        }
        if (kind == 2) {
          DeclarePeriodicUnrestrictedUpdateEvent(period, offset, unrestricted);
        }
        break;
      case TriggerType::kPerStep:
        if (kind == 0) DeclarePerStepPublishEvent(publish);
        if (kind == 1) DeclarePerStepDiscreteUpdateEvent(discrete);
        if (kind == 2) DeclarePerStepUnrestrictedUpdateEvent(unrestricted);
        break;
      case TriggerType::kInitialization:
        if (kind == 0) DeclareInitializationPublishEvent(publish);
        if (kind == 1) DeclareInitializationDiscreteUpdateEvent(discrete);
        if (kind == 2) {
          DeclareInitializationUnrestrictedUpdateEvent(unrestricted);
        }
        break;
      default:
        if (kind == 0) DeclareForcedPublishEvent(publish);
        if (kind == 1) DeclareForcedDiscreteUpdateEvent(discrete);
        if (kind == 2) DeclareForcedUnrestrictedUpdateEvent(unrestricted);
        break;
    }
  }

  void DeclareWitness(std::string name, WitnessDirection direction,
                      py::object calc, py::object handler) {
    PyCallable w = Wrap(std::move(calc));
    PyCallable h = Wrap(std::move(handler));
    auto cache = std::make_shared<ArgCaches>();
    DeclareWitnessFunction(
        std::move(name), direction,
        [this, w, cache](const Ctx& context) {
          Gil gil;
          ReleaseAfterCall release(cache.get());
          return Call(w, cache->context.Context(context)).cast<double>();
        },
        [this, h, cache](const Ctx& context) {
          Gil gil;
          ReleaseAfterCall release(cache.get());
          return ToStatus(Call(h, cache->context.Context(context)));
        });
  }

  void DoCalcTimeDerivatives(
      const Ctx& context,
      Eigen::Ref<VectorX<double>> derivatives) const override {
    Gil gil;
    // The subclass's function, looked up once: py::get_override inspects the
    // calling frame on every call (a third of a Python leaf's step).
    if (!derivatives_looked_up_) {
      derivatives_looked_up_ = true;
      py::handle self = Self();
      if (self) {
        py::object f = py::getattr(py::type::of(self),
                                   "do_calc_time_derivatives", py::none());
        if (PyFunction_Check(f.ptr())) {
          derivatives_fn_ = std::shared_ptr<py::object>(
              new py::object(std::move(f)), [](py::object* o) {
                py::gil_scoped_acquire gil;
                delete o;
              });
        }
      }
    }
    py::handle self = Self();
    if (!derivatives_fn_ || !self) {
      LeafSystem<double>::DoCalcTimeDerivatives(context, derivatives);
      return;
    }
    ReleaseAfterCall release(&derivatives_cache_);
    py::object r = Vectorcall(
        derivatives_fn_->ptr(),
        {self.ptr(), derivatives_cache_.context.Context(context).ptr(),
         derivatives_cache_.vector.View(derivatives.data(), derivatives.size())
             .ptr()});
    if (!r.is_none()) derivatives = r.cast<Eigen::VectorXd>();
  }

  // set_random_state(context, state, generator) and
  // set_random_parameters(context, generator) when the subclass defines
  // them (seed 002), else the defaults.
  void SetRandomState(const Ctx& context, State<double>* state,
                      RandomGenerator* generator) const override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(
        static_cast<const LeafSystem<double>*>(this), "set_random_state");
    if (!f) {
      LeafSystem<double>::SetRandomState(context, state, generator);
      return;
    }
    f(py::cast(&context, py::return_value_policy::reference),
      py::cast(state, py::return_value_policy::reference),
      py::cast(generator, py::return_value_policy::reference));
  }
  void SetRandomParameters(Ctx* context,
                           RandomGenerator* generator) const override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(
        static_cast<const LeafSystem<double>*>(this), "set_random_parameters");
    if (!f) {
      LeafSystem<double>::SetRandomParameters(context, generator);
      return;
    }
    f(py::cast(context, py::return_value_policy::reference),
      py::cast(generator, py::return_value_policy::reference));
  }

 private:
  // do_calc_time_derivatives of the Python subclass (an unbound function,
  // so no reference cycle through the bound method), found on first use;
  // released with the GIL held.
  mutable bool derivatives_looked_up_{false};
  mutable std::shared_ptr<py::object> derivatives_fn_;
  mutable ArgCaches derivatives_cache_;

  // This system's Python object (borrowed).
  py::handle Self() const {
    // Looked up once: get_type_info(typeid) hashes the type's name.
    static const py::detail::type_info* const type =
        py::detail::get_type_info(typeid(LeafSystem<double>));
    return py::detail::get_object_handle(
        static_cast<const LeafSystem<double>*>(this), type);
  }
};

PyLeafSystem& Py(LeafSystem<double>& s) {
  auto* p = dynamic_cast<PyLeafSystem*>(&s);
  if (p == nullptr) {
    throw std::invalid_argument(
        "LeafSystem declarations are for Python subclasses of "
        "tern.LeafSystem only");
  }
  return *p;
}

}  // namespace

bool HasPythonLeaf(const System<double>& system) {
  for (const LeafSystem<double>* leaf : system.leaves()) {
    if (dynamic_cast<const PyLeafSystem*>(leaf) != nullptr) return true;
  }
  return false;
}

void BindLeafSystem(py::module_& m) {
  py::enum_<WitnessDirection>(m, "WitnessDirection",
                              "Which zero crossings trigger a witness.")
      .value("kPositiveToNegative", WitnessDirection::kPositiveToNegative)
      .value("kNegativeToPositive", WitnessDirection::kNegativeToPositive)
      .value("kCrossesZero", WitnessDirection::kCrossesZero);

  using LS = LeafSystem<double>;
  py::class_<LS, PyLeafSystem, System<double>> ls(
      m, "LeafSystem",
      "A block that computes, subclassed in Python: call "
      "super().__init__() and then the declare_* methods in __init__; "
      "override do_calc_time_derivatives(context, xdot) for continuous "
      "state (write into the xdot view, or return an array). xdot, and y "
      "in an output calc, are writable views of the simulator's buffers, "
      "valid during the call; one kept past the call becomes a read-only "
      "copy of its values at the end of the call. The context is valid "
      "during the call only.");
  ls.def(py::init<>(),
         "A leaf system with no name, ports or state; a subclass's __init__ "
         "calls this first.");
  ls.def(
      "declare_continuous_state",
      [](LS& s, int num_q, int num_v, int num_z) {
        Py(s).DeclareContinuousState(num_q, num_v, num_z);
      },
      py::arg("num_q") = 0, py::arg("num_v") = 0, py::arg("num_z") = 0,
      "Declares continuous state [q; v; z] of sizes num_q, num_v and num_z, "
      "initially zero.");
  ls.def(
      "declare_continuous_state_vector",
      [](LS& s, const Eigen::VectorXd& x0, int num_q, int num_v) {
        Py(s).DeclareContinuousState(x0, num_q, num_v);
      },
      py::arg("initial"), py::arg("num_q") = 0, py::arg("num_v") = 0,
      "Declares continuous state with initial values (n,): the first num_q "
      "entries are q, the next num_v v, the rest z.");
  ls.def(
      "declare_discrete_state",
      [](LS& s, py::object arg) {
        if (py::isinstance<py::int_>(arg)) {
          return Py(s).DeclareDiscreteState(arg.cast<int>());
        }
        return Py(s).DeclareDiscreteState(arg.cast<Eigen::VectorXd>());
      },
      py::arg("size_or_initial"),
      "Declares a discrete state group of this size (zero) or with these "
      "initial values (n,); returns its index.");
  ls.def(
      "declare_numeric_parameter",
      [](LS& s, const Eigen::VectorXd& p) {
        return Py(s).DeclareNumericParameter(p);
      },
      py::arg("initial"),
      "Declares a numeric parameter group with initial values (n,); returns "
      "its index.");
  ls.def(
      "declare_vector_input_port",
      [](py::object self, std::string name, int size,
         std::optional<RandomDistribution> random_type) {
        return PortObject(self, Py(self.cast<LS&>())
                                    .DeclareVectorInputPort(std::move(name),
                                                            size, random_type));
      },
      py::arg("name"), py::arg("size"), py::arg("random_type") = py::none(),
      "Declares a vector input port of `size` entries (random if random_type "
      "is a RandomDistribution); returns it (the object get_input_port "
      "returns).");
  ls.def(
      "declare_vector_output_port",
      [](py::object self, std::string name, int size, py::object calc,
         Prerequisites prerequisites) {
        return PortObject(
            self, Py(self.cast<LS&>())
                      .DeclareOutput(std::move(name), size, std::move(calc),
                                     prerequisites));
      },
      py::arg("name"), py::arg("size"), py::arg("calc"),
      py::arg("prerequisites") = ticket::kAllSources,
      "Declares a vector output of `size` entries computed by calc(context, "
      "y): write into the (size,) view y (valid during the call) or return the "
      "value. Returns the port. prerequisites (tern.ticket bits) without "
      "kInputs mean no direct feedthrough.");
  struct EventDecl {
    const char* name;
    int kind;
    TriggerType trigger;
    const char* doc;
  };
  const EventDecl periodic[] = {
      {"declare_periodic_publish_event", 0, TriggerType::kPeriodic,
       "Declares a publish event calling handler(context) at t = offset + k "
       "period, s."},
      {"declare_periodic_discrete_update_event", 1, TriggerType::kPeriodic,
       "Declares a discrete update calling handler(context, xd: "
       "DiscreteValues) at t = offset + k period, s."},
      {"declare_periodic_unrestricted_update_event", 2, TriggerType::kPeriodic,
       "Declares an unrestricted update calling handler(context, state: State) "
       "at t = offset + k period, s."}};
  for (const EventDecl& e : periodic) {
    const int kind = e.kind;
    ls.def(
        e.name,
        [kind](LS& s, double period, double offset, py::object handler) {
          Py(s).DeclareEvent(kind, TriggerType::kPeriodic, period, offset,
                             std::move(handler));
        },
        py::arg("period"), py::arg("offset"), py::arg("handler"), e.doc);
  }
  const EventDecl others[] = {
      {"declare_per_step_publish_event", 0, TriggerType::kPerStep,
       "Declares a publish event calling handler(context) after every "
       "simulator step."},
      {"declare_per_step_discrete_update_event", 1, TriggerType::kPerStep,
       "Declares a discrete update calling handler(context, xd) at the start "
       "of every step."},
      {"declare_per_step_unrestricted_update_event", 2, TriggerType::kPerStep,
       "Declares an unrestricted update calling handler(context, state) at the "
       "start of every step."},
      {"declare_initialization_publish_event", 0, TriggerType::kInitialization,
       "Declares a publish event calling handler(context) at the simulator's "
       "initialization."},
      {"declare_initialization_discrete_update_event", 1,
       TriggerType::kInitialization,
       "Declares a discrete update calling handler(context, xd) at the "
       "simulator's initialization."},
      {"declare_initialization_unrestricted_update_event", 2,
       TriggerType::kInitialization,
       "Declares an unrestricted update calling handler(context, state) at the "
       "simulator's initialization."},
      {"declare_forced_publish_event", 0, TriggerType::kForced,
       "Declares a publish event calling handler(context) when forced_publish "
       "runs."},
      {"declare_forced_discrete_update_event", 1, TriggerType::kForced,
       "Declares a discrete update calling handler(context, xd) when discrete "
       "updates are forced."},
      {"declare_forced_unrestricted_update_event", 2, TriggerType::kForced,
       "Declares an unrestricted update calling handler(context, state) when "
       "unrestricted updates are forced."}};
  for (const EventDecl& e : others) {
    const int kind = e.kind;
    const TriggerType trigger = e.trigger;
    ls.def(
        e.name,
        [kind, trigger](LS& s, py::object handler) {
          Py(s).DeclareEvent(kind, trigger, 0, 0, std::move(handler));
        },
        py::arg("handler"), e.doc);
  }
  ls.def(
      "declare_witness_function",
      [](LS& s, std::string name, WitnessDirection direction, py::object calc,
         py::object handler) {
        Py(s).DeclareWitness(std::move(name), direction, std::move(calc),
                             std::move(handler));
      },
      py::arg("name"), py::arg("direction"), py::arg("calc"),
      py::arg("handler"),
      "Declares a state event: calc(context) -> float is watched for zero "
      "crossings in `direction`; handler(context) publishes at the localized "
      "crossing.");
}

}  // namespace tern::python
