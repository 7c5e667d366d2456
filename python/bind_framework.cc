// Systems framework: System, Context, ports, state views, EventStatus,
// DiagramBuilder and Diagram.
//
// Ownership (docs/python.md "Lifetimes"): DiagramBuilder.add_system takes
// the C++ system from its Python object (which stays usable) and the
// builder, then the diagram, own it. The Python objects reference each other
// through their __dict__ (KeepAlive), so a system's Python object keeps its
// diagram alive and the reverse, and the cyclic garbage collector frees
// them together. A Context keeps its system alive.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "python/bind_common.h"
#include "python/bind_systems.h"
#include "python/fast_call.h"
#include "tern/common/random_generator.h"
#include "tern/systems/framework/diagram.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/event_status.h"
#include "tern/systems/framework/leaf_system.h"
#include "tern/systems/framework/system.h"

namespace tern::python {

std::unique_ptr<System<double>> TakeSystem(py::handle system, const char* who) {
  System<double>* raw = py::cast<System<double>*>(system);
  // Bound classes have single inheritance, the simple instance layout and
  // the default holder, a std::unique_ptr of their own type (the layout of
  // any std::unique_ptr); the pointer itself comes from the cast above.
  auto* inst = reinterpret_cast<py::detail::instance*>(system.ptr());
  py::detail::value_and_holder v_h = inst->get_value_and_holder();
  auto& holder = v_h.holder<std::unique_ptr<System<double>>>();
  if (!v_h.holder_constructed() || holder == nullptr) {
    throw std::invalid_argument(
        std::string(who) + ": system '" + raw->get_name() +
        "' is already owned by a DiagramBuilder, Diagram or Simulator");
  }
  (void)holder.release();
  return std::unique_ptr<System<double>>(raw);
}

std::unique_ptr<Context<double>> TakeContext(py::handle context,
                                             const char* who) {
  Context<double>* raw = py::cast<Context<double>*>(context);
  auto* inst = reinterpret_cast<py::detail::instance*>(context.ptr());
  py::detail::value_and_holder v_h = inst->get_value_and_holder();
  auto& holder = v_h.holder<std::unique_ptr<Context<double>>>();
  if (!v_h.holder_constructed() || holder == nullptr) {
    throw std::invalid_argument(
        std::string(who) +
        ": the context is already owned (by a Simulator) or is not a root "
        "context");
  }
  (void)holder.release();
  return std::unique_ptr<Context<double>>(raw);
}

namespace {

using Sys = System<double>;
using Ctx = Context<double>;

// An object reached from `owner` (a context's system, a port's system, a
// diagram's child), returned without copying. One that has a Python object
// already (the common case: systems are made in Python) comes back as is; a
// new wrapper keeps `owner` alive through its __dict__, which the garbage
// collector sees. (reference_internal would tie an existing object to the
// owner for good, forming cycles the collector cannot see: a Python system
// and its diagram would never be freed.)
template <class T>
py::object Reached(const T& ref, py::handle owner) {
  py::object r = py::cast(&ref, py::return_value_policy::reference);
  if (r.ref_count() == 1) KeepAlive(r, owner);
  return r;
}

// A live read-only view of a vector stored in a context.
py::array_t<double> ContextView(const VectorX<double>& v, py::handle context) {
  return VectorView(const_cast<double*>(v.data()), v.size(), context, true);
}

// The __dict__ entries holding a system's port objects (a list per kind,
// None where not made yet).
PyObject* PortsKey(bool input) {
  static PyObject* const in = PyUnicode_InternFromString("_tern_input_ports");
  static PyObject* const out = PyUnicode_InternFromString("_tern_output_ports");
  return input ? in : out;
}

// The cached object of port `index` (borrowed), or null.
PyObject* CachedPort(PyObject* system, bool input, Py_ssize_t index) {
  PyObject** dict = _PyObject_GetDictPtr(system);
  if (dict == nullptr || *dict == nullptr) return nullptr;
  PyObject* list = PyDict_GetItemWithError(*dict, PortsKey(input));
  if (list == nullptr || !PyList_CheckExact(list) ||
      index >= PyList_GET_SIZE(list)) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject* port = PyList_GET_ITEM(list, index);
  return port == Py_None ? nullptr : port;
}

template <class Port>
py::object MakePortObject(py::handle system, const Port& port, bool input,
                          int num_ports) {
  const int index = port.get_index();
  if (PyObject* cached = CachedPort(system.ptr(), input, index)) {
    return py::reinterpret_borrow<py::object>(cached);
  }
  py::object r = py::cast(&port, py::return_value_policy::reference);
  // An object Python holds already (made before this one was cached)
  // keeps its system alive by itself.
  if (r.ref_count() != 1) return r;
  KeepAlive(r, system);
  if (_PyObject_GetDictPtr(system.ptr()) != nullptr) {
    py::object list = py::getattr(system, PortsKey(input), py::none());
    if (!PyList_CheckExact(list.ptr())) {
      list = py::list();
      py::setattr(system, PortsKey(input), list);
    }
    while (PyList_GET_SIZE(list.ptr()) < num_ports) {
      if (PyList_Append(list.ptr(), Py_None) != 0) {
        throw py::error_already_set();
      }
    }
    // SetItem steals the reference it is given.
    PyList_SetItem(list.ptr(), index, r.inc_ref().ptr());
  }
  return r;
}

// System.get_input_port(i) / get_output_port(i) for an int i.
template <bool kInput>
PyObject* FastGetPort(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1 || !PyLong_CheckExact(args[0])) return kFallback;
  const long i = PyLong_AsLong(args[0]);
  if (i < 0 || i > std::numeric_limits<int>::max()) {
    PyErr_Clear();
    return kFallback;
  }
  if (PyObject* p = CachedPort(self, kInput, i)) return Py_NewRef(p);
  const Sys* s = Unwrap<Sys>(self);
  if (s == nullptr) return kFallback;
  py::object port = kInput ? InputPortObject(self, static_cast<int>(i))
                           : OutputPortObject(self, static_cast<int>(i));
  return port.release().ptr();
}

// InputPort.eval(context) / OutputPort.eval(context): a new array.
template <class Port>
PyObject* FastEval(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) return kFallback;
  const Port* port = Unwrap<Port>(self);
  const Ctx* context = Unwrap<Ctx>(args[0]);
  if (port == nullptr || context == nullptr) return kFallback;
  const VectorX<double>& value = port->Eval(*context);
  return ReusedVector(value.data(), value.size());
}

// Context.get_time().
PyObject* FastGetTime(PyObject* self, PyObject* const*, Py_ssize_t nargs) {
  const Ctx* context = nargs == 0 ? Unwrap<Ctx>(self) : nullptr;
  if (context == nullptr) return kFallback;
  return PyFloat_FromDouble(context->get_time());
}

// Context.get_continuous_state_vector(): the live read-only view, kept
// alive by the context object.
PyObject* FastContinuousState(PyObject* self, PyObject* const*,
                              Py_ssize_t nargs) {
  const Ctx* context = nargs == 0 ? Unwrap<Ctx>(self) : nullptr;
  if (context == nullptr) return kFallback;
  auto x = context->get_continuous_state_vector();
  if (x.size() == 0) return kFallback;
  return NewVectorView(const_cast<double*>(x.data()), x.size(), self, false);
}

}  // namespace

py::object InputPortObject(py::handle system, int index) {
  const Sys& s = system.cast<const Sys&>();
  return MakePortObject(system, s.get_input_port(index), true,
                        s.num_input_ports());
}

py::object OutputPortObject(py::handle system, int index) {
  const Sys& s = system.cast<const Sys&>();
  return MakePortObject(system, s.get_output_port(index), false,
                        s.num_output_ports());
}

py::object PortObject(py::handle system, const InputPort<double>& port) {
  return InputPortObject(system, port.get_index());
}

py::object PortObject(py::handle system, const OutputPort<double>& port) {
  return OutputPortObject(system, port.get_index());
}

void BindFramework(py::module_& m) {
  py::class_<EventStatus>(m, "EventStatus",
                          "What an event handler or monitor reports.")
      .def_static("did_nothing", &EventStatus::DidNothing,
                  "A status saying the handler did nothing (severity 0).")
      .def_static("succeeded", &EventStatus::Succeeded,
                  "A status saying the handler succeeded (severity 1).")
      .def_static("reached_termination", &EventStatus::ReachedTermination,
                  py::arg("message"),
                  "A status that stops the Simulator cleanly with the message "
                  "as reason (severity 2).")
      .def_static("failed", &EventStatus::Failed, py::arg("message"),
                  "A status that makes the Simulator raise, naming the system "
                  "(severity 3).")
      .def(
          "severity", [](const EventStatus& s) { return int(s.severity()); },
          "The severity as an int: 0 did nothing, 1 succeeded, 2 reached "
          "termination, 3 failed.")
      .def("message", &EventStatus::message,
           "The message given to reached_termination or failed (str; empty "
           "otherwise).")
      .def("is_success", &EventStatus::succeeded,
           "Severity <= succeeded (did nothing or succeeded).");

  py::enum_<RandomDistribution>(m, "RandomDistribution",
                                "Distribution of a random input port.")
      .value("kUniform", RandomDistribution::kUniform)
      .value("kGaussian", RandomDistribution::kGaussian)
      .value("kExponential", RandomDistribution::kExponential);

  py::class_<RandomGenerator>(
      m, "RandomGenerator",
      "Reproducible random numbers (xoshiro256**) seeded by a 64-bit seed.")
      .def(py::init<>(), "A generator seeded with the default seed.")
      .def(py::init<std::uint64_t>(), py::arg("seed"),
           "A generator seeded with `seed` (a 64-bit unsigned int).")
      .def("seed", py::overload_cast<std::uint64_t>(&RandomGenerator::Seed),
           py::arg("seed"), "Restarts the stream from `seed`.")
      .def("get_seed", &RandomGenerator::seed,
           "The seed given to the constructor or the last seed() call (int).")
      .def("next_seed", &RandomGenerator::NextSeed,
           "A seed for a child generator drawn from this stream (int): "
           "RandomGenerator(that seed) replays the child.")
      .def("uniform", &RandomGenerator::Uniform,
           "A draw uniform on [0, 1), in steps of 2^-53 (float).")
      .def("gaussian", &RandomGenerator::Gaussian,
           "A draw from the standard normal distribution, mean 0 and variance "
           "1 (float).")
      .def_static("derive_seed", &RandomGenerator::DeriveSeed,
                  py::arg("parent_seed"), py::arg("index"),
                  "The index-th child seed of `parent_seed`: a fixed hash of "
                  "both, distinct for distinct indices (int).");

  py::module_ ticket = m.def_submodule(
      "ticket", "Prerequisites of an output port, as bit masks to OR.");
  ticket.attr("kTime") = ticket::kTime;
  ticket.attr("kXc") = ticket::kXc;
  ticket.attr("kXd") = ticket::kXd;
  ticket.attr("kXa") = ticket::kXa;
  ticket.attr("kParams") = ticket::kParams;
  ticket.attr("kInputs") = ticket::kInputs;
  ticket.attr("kNothing") = ticket::kNothing;
  ticket.attr("kAllState") = ticket::kAllState;
  ticket.attr("kAllSources") = ticket::kAllSources;

  py::class_<DiscreteValues<double>>(
      m, "DiscreteValues",
      "View of a system's discrete state groups, handed to discrete-update "
      "handlers (valid during the call).")
      .def("num_groups", &DiscreteValues<double>::num_groups,
           "Number of discrete-state groups (int).")
      .def(
          "get_vector",
          [](DiscreteValues<double>& d, int g) {
            VectorX<double>& v = d.get_mutable_vector(g);
            return VectorView(v.data(), v.size(), py::handle(), true);
          },
          py::arg("group") = 0,
          "A read-only (n,) view of group `group`, n its size (valid during "
          "the call).")
      .def(
          "get_mutable_vector",
          [](DiscreteValues<double>& d, int g) {
            VectorX<double>& v = d.get_mutable_vector(g);
            return VectorView(v.data(), v.size(), py::handle());
          },
          py::arg("group") = 0,
          "A writable (n,) view of group `group`, n its fixed size: write its "
          "entries (valid during the call).")
      .def("set_value", &DiscreteValues<double>::set_value, py::arg("group"),
           py::arg("value"),
           "Sets group `group` to `value` (n,); raises ValueError if the size "
           "differs from the group's.");

  py::class_<State<double>>(
      m, "State",
      "View of a system's whole state, handed to unrestricted-update "
      "handlers (valid during the call).")
      .def(
          "get_mutable_continuous_state_vector",
          [](State<double>& s) {
            auto x = s.get_mutable_continuous_state_vector();
            return VectorView(x.data(), x.size(), py::handle());
          },
          "A writable view of the continuous state xc (n,), [q; v; z] (valid "
          "during the call).")
      .def("get_mutable_discrete_state",
           py::overload_cast<>(&State<double>::get_mutable_discrete_state),
           py::return_value_policy::reference_internal,
           "The discrete groups (DiscreteValues).")
      .def("num_abstract_states", &State<double>::num_abstract_states,
           "Number of abstract state values (int).");

  py::class_<Ctx> context(
      m, "Context", py::dynamic_attr(),
      "Time, state, parameters and fixed inputs of a system. Vector getters "
      "return live read-only views (valid while the context lives; they "
      "change as it is simulated); use the setters to write.");
  context
      .def(
          "get_system",
          [](py::object self) {
            return Reached(self.cast<const Ctx&>().get_system(), self);
          },
          "The System this context belongs to.")
      .def("is_root", &Ctx::is_root,
           "Whether this is a root context rather than a subsystem's view into "
           "one (bool).")
      .def(
          "clone",
          [](py::object self) {
            auto c = self.cast<const Ctx&>().Clone();
            py::object r = py::cast(std::move(c));
            KeepAlive(r, py::cast(&self.cast<const Ctx&>().get_system(),
                                  py::return_value_policy::reference));
            return r;
          },
          "A deep copy of a root context: time, state, parameters and fixed "
          "inputs.")
      .def("set_time_state_and_parameters_from",
           &Ctx::SetTimeStateAndParametersFrom, py::arg("source"),
           "Copies time, state, parameters and fixed inputs from a root "
           "context of the same system.")
      .def("get_time", &Ctx::get_time, "The context time t, s (float).")
      .def("set_time", &Ctx::SetTime, py::arg("t"),
           "Sets the context time t, s (float).")
      .def("num_continuous_states", &Ctx::num_continuous_states,
           "Size of the continuous state xc (int).")
      .def(
          "get_continuous_state_vector",
          [](py::object self) {
            auto x = self.cast<const Ctx&>().get_continuous_state_vector();
            return VectorView(const_cast<double*>(x.data()), x.size(), self,
                              true);
          },
          "A live read-only view of the continuous state xc (n,), [q; v; z] "
          "per leaf.")
      .def(
          "set_continuous_state",
          [](Ctx& c, const Eigen::VectorXd& x) { c.SetContinuousState(x); },
          py::arg("xc"),
          "Sets the continuous state to xc (n,), n = num_continuous_states(); "
          "raises ValueError naming the system on a wrong size.")
      .def("num_discrete_state_groups", &Ctx::num_discrete_state_groups,
           "Number of discrete state groups (int).")
      .def(
          "get_discrete_state",
          [](py::object self, int g) {
            return ContextView(self.cast<const Ctx&>().get_discrete_state(g),
                               self);
          },
          py::arg("group"),
          "A live read-only (n,) view of discrete state group `group`.")
      .def(
          "get_discrete_state_vector",
          [](py::object self) {
            return ContextView(
                self.cast<const Ctx&>().get_discrete_state_vector(), self);
          },
          "A live read-only (n,) view of the only discrete state group; raises "
          "if there is not exactly one.")
      .def(
          "set_discrete_state",
          [](Ctx& c, int g, const Eigen::VectorXd& x) {
            c.SetDiscreteState(g, x);
          },
          py::arg("group"), py::arg("value"),
          "Sets discrete state group `group` to `value` (n,), n the group's "
          "size.")
      .def("num_numeric_parameter_groups", &Ctx::num_numeric_parameter_groups,
           "Number of numeric parameter groups (int).")
      .def(
          "get_numeric_parameter",
          [](py::object self, int i) {
            return ContextView(self.cast<const Ctx&>().get_numeric_parameter(i),
                               self);
          },
          py::arg("index"),
          "A live read-only (n,) view of numeric parameter group `index`.")
      .def(
          "set_numeric_parameter",
          [](Ctx& c, int i, const Eigen::VectorXd& x) {
            VectorX<double>& p = c.get_mutable_numeric_parameter(i);
            if (x.size() != p.size()) {
              throw std::invalid_argument("set_numeric_parameter: group " +
                                          std::to_string(i) + " has size " +
                                          std::to_string(p.size()) + ", got " +
                                          std::to_string(x.size()));
            }
            p = x;
          },
          py::arg("index"), py::arg("value"),
          "Sets numeric parameter group `index` to `value` (n,); raises "
          "ValueError if the size differs from the group's.")
      .def("num_abstract_states", &Ctx::num_abstract_states,
           "Number of abstract state values (int).")
      .def("num_subcontexts", &Ctx::num_subcontexts,
           "Number of child contexts: a diagram's subsystems, 0 for a leaf "
           "(int).")
      .def("get_subcontext",
           py::overload_cast<int>(&Ctx::get_mutable_subcontext),
           py::arg("index"), py::return_value_policy::reference_internal,
           "The context of child `index`, a view into this one (a diagram's).")
      .def("note_all_changed", &Ctx::NoteAllChanged,
           "Marks every cached output stale.");

  // Ports have a __dict__: a port object keeps its system alive through it
  // (KeepAlive), and the system caches its port objects in its own.
  py::class_<InputPort<double>> input_port(
      m, "InputPort", py::dynamic_attr(),
      "An input port of a system: a vector of fixed size, connected, exported "
      "or fixed in a context.");
  input_port
      .def("get_name", &InputPort<double>::get_name,
           "The port's name within its system (str).")
      .def("get_index", &InputPort<double>::get_index,
           "The port index within its system (int).")
      .def("size", &InputPort<double>::size,
           "The size n of the port's vector value (int).")
      .def(
          "get_system",
          [](py::object self) {
            return Reached(self.cast<const InputPort<double>&>().get_system(),
                           self);
          },
          "The System that owns the port.")
      .def("is_random", &InputPort<double>::is_random,
           "Whether the port is a random input, drawn by set_random_context "
           "(bool).")
      .def(
          "eval",
          [](const InputPort<double>& p, const Ctx& c) {
            // Straight into a new array (one allocation: a step of a Python
            // leaf evaluates its inputs several times).
            const VectorX<double>& value = p.Eval(c);
            py::array_t<double> a(value.size());
            std::copy_n(value.data(), value.size(), a.mutable_data());
            return a;
          },
          py::arg("context"),
          "The input's value in `context`, a new (n,) array, n = size().")
      .def("has_value", &InputPort<double>::HasValue, py::arg("context"),
           "Whether the port has a value in `context`: connected or fixed "
           "(bool).")
      .def(
          "fix_value",
          [](const InputPort<double>& p, Ctx* c, const Eigen::VectorXd& v) {
            p.FixVectorValue(c, v);
          },
          py::arg("context"), py::arg("value"),
          "Fixes the port's value in `context` to `value` (n,), n = size().");

  py::class_<OutputPort<double>> output_port(
      m, "OutputPort", py::dynamic_attr(),
      "An output port of a system: a vector of fixed size computed from a "
      "context.");
  output_port
      .def("get_name", &OutputPort<double>::get_name,
           "The port's name within its system (str).")
      .def("get_index", &OutputPort<double>::get_index,
           "The port index within its system (int).")
      .def("size", &OutputPort<double>::size,
           "The size n of the port's vector value (int).")
      .def(
          "get_system",
          [](py::object self) {
            return Reached(self.cast<const OutputPort<double>&>().get_system(),
                           self);
          },
          "The System that owns the port.")
      .def(
          "eval",
          [](const OutputPort<double>& p, const Ctx& c) {
            // Straight into a new array (one allocation: a step of a Python
            // leaf evaluates its inputs several times).
            const VectorX<double>& value = p.Eval(c);
            py::array_t<double> a(value.size());
            std::copy_n(value.data(), value.size(), a.mutable_data());
            return a;
          },
          py::arg("context"),
          "The output's value in `context`, a new (n,) array, n = size().");

  // No py::dynamic_attr() on System and LeafSystem: a Python subclass then
  // gets CPython's own __dict__, visited once by the garbage collector (with
  // pybind11 2.10 on Python 3.11 a subclass of a dynamic_attr class has its
  // managed dict visited twice, which keeps every cycle through it alive).
  // The concrete C++ blocks, which Python does not subclass, have one each.
  py::class_<Sys> system(
      m, "System", "Base of every block: ports, state declarations, events.");
  system
      .def("get_name", &Sys::get_name,
           "The system's name (str), used in path names and messages.")
      .def("set_name", &Sys::set_name, py::arg("name"),
           "Renames the system (before it is added to a builder).")
      .def(
          "get_path_name", &Sys::GetPathName,
          "The system's names from the root diagram down, joined by '/' (str).")
      .def("num_input_ports", &Sys::num_input_ports,
           "Number of input ports of the system (int).")
      .def("num_output_ports", &Sys::num_output_ports,
           "Number of output ports of the system (int).")
      .def(
          "get_input_port",
          [](py::object self, int i) { return InputPortObject(self, i); },
          py::arg("index"),
          "The input port with index `index` (the same object on every call; "
          "it keeps the system alive).")
      .def(
          "get_input_port",
          [](py::object self, const std::string& name) {
            return PortObject(self,
                              self.cast<const Sys&>().get_input_port(name));
          },
          py::arg("name"),
          "The input port named `name`; raises ValueError if there is none.")
      .def(
          "get_input_port",
          [](py::object self) {
            return PortObject(self, self.cast<const Sys&>().get_input_port());
          },
          "The system's only input port; raises if it has not exactly one.")
      .def(
          "get_output_port",
          [](py::object self, int i) { return OutputPortObject(self, i); },
          py::arg("index"),
          "The output port with index `index` (the same object on every call; "
          "it keeps the system alive).")
      .def(
          "get_output_port",
          [](py::object self, const std::string& name) {
            return PortObject(self,
                              self.cast<const Sys&>().get_output_port(name));
          },
          py::arg("name"),
          "The output port named `name`; raises ValueError if there is none.")
      .def(
          "get_output_port",
          [](py::object self) {
            return PortObject(self, self.cast<const Sys&>().get_output_port());
          },
          "The system's only output port; raises if it has not exactly one.")
      .def("num_continuous_states", &Sys::num_continuous_states,
           "Size of the continuous state xc (int).")
      .def("num_positions", &Sys::num_positions,
           "Second-order position states nq (int).")
      .def("num_velocities", &Sys::num_velocities,
           "Second-order velocity states nv (int).")
      .def("num_discrete_state_groups", &Sys::num_discrete_state_groups,
           "Number of discrete state groups (int).")
      .def("num_abstract_states", &Sys::num_abstract_states,
           "Number of abstract state values (int).")
      .def(
          "create_default_context",
          [](py::object self) {
            py::object c =
                py::cast(self.cast<const Sys&>().CreateDefaultContext());
            KeepAlive(c, self);
            return c;
          },
          "A new Context with default values (keeps the system alive).")
      .def("set_default_context", &Sys::SetDefaultContext, py::arg("context"),
           "Resets state and parameters to defaults.")
      .def("set_random_context", &Sys::SetRandomContext, py::arg("context"),
           py::arg("generator"),
           "Draws random parameters and state (seeds RandomSources).")
      .def("get_my_context_from_root", &Sys::GetMyMutableContextFromRoot,
           py::arg("root"), py::return_value_policy::reference,
           py::keep_alive<0, 2>(), "This system's view in a root context.")
      .def(
          "calc_time_derivatives",
          [](const Sys& s, const Ctx& c) {
            VectorX<double> xdot(s.num_continuous_states());
            s.CalcTimeDerivatives(c, &xdot);
            return xdot;
          },
          py::arg("context"),
          "The time derivative xcdot (n,) of the continuous state in "
          "`context`, n = num_continuous_states(): a new array.")
      .def("publish", &Sys::Publish, py::arg("context"),
           "Runs the periodic and per-step publish events now.")
      .def("forced_publish", &Sys::ForcedPublish, py::arg("context"),
           "Runs the forced publish events.");

  py::class_<Diagram<double>, Sys>(m, "Diagram", py::dynamic_attr(),
                                   "Systems wired together; made by "
                                   "DiagramBuilder.build().")
      .def("num_subsystems", &Diagram<double>::num_subsystems,
           "Number of direct children (int).")
      .def(
          "get_subsystem",
          [](py::object self, int i) {
            return Reached(self.cast<const Diagram<double>&>().get_subsystem(i),
                           self);
          },
          py::arg("index"), "The direct child system with index `index`.")
      .def(
          "get_subsystem_by_name",
          [](py::object self, const std::string& name) {
            return Reached(
                self.cast<const Diagram<double>&>().GetSubsystemByName(name),
                self);
          },
          py::arg("name"), "The direct child system named `name`.");

  py::class_<DiagramBuilder<double>>(
      m, "DiagramBuilder", py::dynamic_attr(),
      "Collects systems and connections and builds a Diagram.")
      .def(py::init<>(), "A builder with no systems.")
      .def(
          "add_system",
          [](py::object self, py::object system) {
            auto& b = self.cast<DiagramBuilder<double>&>();
            b.AddSystem(TakeSystem(system, "DiagramBuilder.add_system"));
            KeepAlive(self, system);
            KeepAlive(system, self);
            return system;
          },
          py::arg("system"),
          "Adds (and takes ownership of) a system; returns it. The Python "
          "object stays usable and keeps the diagram alive.")
      .def(
          "add_named_system",
          [](py::object self, const std::string& name, py::object system) {
            system.cast<Sys&>().set_name(name);
            return self.attr("add_system")(system);
          },
          py::arg("name"), py::arg("system"),
          "Renames `system` to `name`, then adds it as add_system does; "
          "returns it.")
      .def("connect",
           py::overload_cast<const OutputPort<double>&,
                             const InputPort<double>&>(
               &DiagramBuilder<double>::Connect),
           py::arg("output"), py::arg("input"), "Wires an output to an input.")
      .def("connect",
           py::overload_cast<const Sys&, const Sys&>(
               &DiagramBuilder<double>::Connect),
           py::arg("source"), py::arg("dest"),
           "Wires the only output of source to the only input of dest.")
      .def("export_input", &DiagramBuilder<double>::ExportInput,
           py::arg("input"), py::arg("name") = "",
           "Makes `input` a diagram input; returns its index.")
      .def("export_output", &DiagramBuilder<double>::ExportOutput,
           py::arg("output"), py::arg("name") = "",
           "Makes `output` a diagram output; returns its index.")
      .def("is_connected_or_exported",
           &DiagramBuilder<double>::IsConnectedOrExported, py::arg("input"),
           "Whether `input` is connected or exported in this builder (bool).")
      .def(
          "build",
          [](py::object self) {
            py::object d =
                py::cast(self.cast<DiagramBuilder<double>&>().Build());
            // The builder holds the systems' Python objects: diagram ->
            // builder -> systems, systems -> builder -> diagram.
            KeepAlive(d, self);
            KeepAlive(self, d);
            return d;
          },
          "Checks everything and builds the Diagram (the builder is empty "
          "afterwards).");

  // The calls a Python leaf makes per derivative (fast_call.h).
  FastPath<FastGetPort<true>>::InstallMethod(system, "get_input_port");
  FastPath<FastGetPort<false>>::InstallMethod(system, "get_output_port");
  FastPath<FastEval<InputPort<double>>>::InstallMethod(input_port, "eval");
  FastPath<FastEval<OutputPort<double>>>::InstallMethod(output_port, "eval");
  FastPath<FastGetTime>::InstallMethod(context, "get_time");
  FastPath<FastContinuousState>::InstallMethod(context,
                                               "get_continuous_state_vector");
}

}  // namespace tern::python
