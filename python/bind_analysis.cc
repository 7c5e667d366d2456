// Simulator (integrators by name and their settings, monitors, statistics),
// Monte Carlo, LQR and Riccati equations.
//
// GIL: Simulator.advance_to holds it (Python systems and monitors are called
// back in the same thread). monte_carlo_simulation and random_simulation
// release it while C++ runs the samples, so with num_parallel_executions > 1
// samples of C++ diagrams run in parallel; each call into Python (the
// simulator factory, the output function, Python systems) takes the GIL, so
// Python code runs one thread at a time.
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "python/bind_common.h"
#include "python/bind_systems.h"
#include "python/fast_call.h"
#include "tern/common/random_generator.h"
#include "tern/common/thread_pool.h"
#include "tern/integrators/integrator_base.h"
#include "tern/integrators/integrator_settings.h"
#include "tern/systems/analysis/monte_carlo.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/controllers/linear_quadratic_regulator.h"
#include "tern/systems/controllers/riccati.h"

namespace tern::python {
namespace {

using Sim = Simulator<double>;

// Simulator.advance_to(t) for a float t (fast_call.h): the call a Python
// loop makes once per step.
PyObject* FastAdvanceTo(PyObject* self, PyObject* const* args,
                        Py_ssize_t nargs) {
  if (nargs != 1 || !PyFloat_CheckExact(args[0])) return kFallback;
  Sim* sim = Unwrap<Sim>(self);
  if (sim == nullptr) return kFallback;
  SimulatorStatus status = sim->AdvanceTo(PyFloat_AS_DOUBLE(args[0]));
  // The status object returned last is reused when nothing references it
  // any more (a loop that drops it), as ReusedVector does: no Python code
  // can reach it, so none sees the change.
  static PyObject* last = nullptr;  // owned; never released
  if (last != nullptr && Py_REFCNT(last) == 1) {
    auto* inst = reinterpret_cast<py::detail::instance*>(last);
    auto** weak = reinterpret_cast<PyObject**>(
        reinterpret_cast<char*>(last) + Py_TYPE(last)->tp_weaklistoffset);
    SimulatorStatus* kept = Unwrap<SimulatorStatus>(last);
    if (kept != nullptr && !inst->has_patients &&
        Py_TYPE(last)->tp_weaklistoffset > 0 && *weak == nullptr) {
      *kept = std::move(status);
      return Py_NewRef(last);
    }
  }
  py::object r = py::cast(std::move(status));
  Py_XDECREF(last);
  last = r.inc_ref().ptr();
  return r.release().ptr();
}

std::unique_ptr<Sim> TakeSimulator(py::handle simulator) {
  Sim* raw = py::cast<Sim*>(simulator);
  auto* inst = reinterpret_cast<py::detail::instance*>(simulator.ptr());
  py::detail::value_and_holder v_h = inst->get_value_and_holder();
  auto& holder = v_h.holder<std::unique_ptr<Sim>>();
  if (!v_h.holder_constructed() || holder == nullptr) {
    throw std::invalid_argument(
        "monte_carlo_simulation: make_simulator returned a Simulator that "
        "is already in use");
  }
  (void)holder.release();
  return std::unique_ptr<Sim>(raw);
}

// The C++ factory around a Python one. The Python Simulator objects (which
// keep their systems alive) are kept in `made` until the run is over.
struct PyFactory {
  std::shared_ptr<py::object> fn;
  std::shared_ptr<std::vector<py::object>> made;
  std::unique_ptr<Sim> operator()(RandomGenerator* generator) const {
    py::gil_scoped_acquire gil;
    py::object sim =
        (*fn)(py::cast(generator, py::return_value_policy::reference));
    std::unique_ptr<Sim> owned = TakeSimulator(sim);
    made->push_back(std::move(sim));
    return owned;
  }
};

struct PyOutput {
  std::shared_ptr<py::object> fn;
  double operator()(const System<double>& system,
                    const Context<double>& context) const {
    py::gil_scoped_acquire gil;
    return (*fn)(py::cast(&system, py::return_value_policy::reference),
                 py::cast(&context, py::return_value_policy::reference))
        .cast<double>();
  }
};

// One sample, as tern::RandomSimulation runs it (the same draws from the
// same generator), except that what make_simulator set survives: an element
// of the state or numeric parameters that the randomization leaves at its
// default (the system does not randomize it) keeps the value
// make_simulator gave it; an element the system randomizes takes the random
// value. Abstract state is the randomized one.
void KeepWhatMakeSimulatorSet(const System<double>& system,
                              const Context<double>& defaults,
                              const Context<double>& made,
                              Context<double>* context) {
  auto merge = [](const Eigen::VectorXd& d, const Eigen::VectorXd& m,
                  Eigen::VectorXd r) {
    for (Eigen::Index i = 0; i < r.size(); ++i) {
      if (r[i] == d[i]) r[i] = m[i];
    }
    return r;
  };
  for (int k = 0; k < static_cast<int>(system.leaves().size()); ++k) {
    const Context<double>& d = system.leaf_context(defaults, k);
    const Context<double>& m = system.leaf_context(made, k);
    Context<double>& c = system.mutable_leaf_context(context, k);
    if (c.num_continuous_states() > 0) {
      c.SetContinuousState(merge(d.get_continuous_state_vector(),
                                 m.get_continuous_state_vector(),
                                 c.get_continuous_state_vector()));
    }
    for (int g = 0; g < c.num_discrete_state_groups(); ++g) {
      c.SetDiscreteState(g,
                         merge(d.get_discrete_state(g), m.get_discrete_state(g),
                               c.get_discrete_state(g)));
    }
    for (int i = 0; i < c.num_numeric_parameter_groups(); ++i) {
      Eigen::VectorXd p =
          merge(d.get_numeric_parameter(i), m.get_numeric_parameter(i),
                c.get_numeric_parameter(i));
      c.get_mutable_numeric_parameter(i) = p;
    }
  }
}

// Runs one sample with the GIL released (Python callbacks take it).
double RunSample(const PyFactory& make_simulator, const PyOutput& output,
                 double final_time, RandomGenerator* generator,
                 bool* python_leaf = nullptr) {
  std::unique_ptr<Sim> simulator = make_simulator(generator);
  const System<double>& system = simulator->get_system();
  if (python_leaf != nullptr) *python_leaf = HasPythonLeaf(system);
  Context<double>& context = simulator->get_mutable_context();
  const std::unique_ptr<Context<double>> made = context.Clone();
  const std::unique_ptr<Context<double>> defaults =
      system.CreateDefaultContext();
  system.SetRandomContext(&context, generator);
  KeepWhatMakeSimulatorSet(system, *defaults, *made, &context);
  simulator->Initialize();
  simulator->AdvanceTo(final_time);
  return output(system, context);
}

RandomSimulationResult RunSampleCatching(const PyFactory& make_simulator,
                                         const PyOutput& output,
                                         double final_time, std::int64_t index,
                                         std::uint64_t seed,
                                         bool* python_leaf = nullptr) {
  RandomSimulationResult r;
  r.seed = seed;
  RandomGenerator generator(seed);
  try {
    r.output =
        RunSample(make_simulator, output, final_time, &generator, python_leaf);
  } catch (const std::exception& e) {
    r.output = std::numeric_limits<double>::quiet_NaN();
    r.error = fmt::format("sample {} (seed {}): {}", index, seed, e.what());
  }
  return r;
}

std::shared_ptr<py::object> Share(py::object f) {
  return std::shared_ptr<py::object>(new py::object(std::move(f)),
                                     [](py::object* o) {
                                       py::gil_scoped_acquire gil;
                                       delete o;
                                     });
}

std::vector<std::string> IntegratorNames() {
  std::vector<std::string> names;
  std::stringstream all(KnownIntegratorNames());
  std::string name;
  while (std::getline(all, name, ',')) {
    const auto b = name.find_first_not_of(' ');
    if (b != std::string::npos) names.push_back(name.substr(b));
  }
  return names;
}

}  // namespace

void BindAnalysis(py::module_& m) {
  py::enum_<JacobianScheme>(
      m, "JacobianScheme",
      "How an implicit rule obtains the Jacobian df/dx of the right-hand side.")
      .value("kAutomatic", JacobianScheme::kAutomatic)
      .value("kAutoDiff", JacobianScheme::kAutoDiff)
      .value("kCentralDifference", JacobianScheme::kCentralDifference)
      .value("kUserSupplied", JacobianScheme::kUserSupplied);

  py::class_<IntegratorSettings>(m, "IntegratorSettings",
                                 "Accuracy and step-size settings of a rule.")
      .def(py::init<>(),
           "The default settings: rtol = atol = 1e-6, fixed_step 1e-3 s.")
      .def_readwrite("fixed_step", &IntegratorSettings::fixed_step,
                     "Step of fixed-step rules (and a first guess for "
                     "error-controlled ones), s.")
      .def_readwrite(
          "initial_step", &IntegratorSettings::initial_step,
          "First step of error-controlled rules, s (0: chosen automatically).")
      .def_readwrite("max_step", &IntegratorSettings::max_step,
                     "Largest step of error-controlled rules, s.")
      .def_readwrite("min_step", &IntegratorSettings::min_step,
                     "Smallest step of error-controlled rules, s.")
      .def_readwrite("rtol", &IntegratorSettings::rtol,
                     "Relative tolerance of error-controlled rules (float).")
      .def_readwrite("atol", &IntegratorSettings::atol,
                     "Absolute tolerance of error-controlled rules, in the "
                     "state's units (float).")
      .def_readwrite("atol_per_component",
                     &IntegratorSettings::atol_per_component,
                     "Per-component absolute tolerance (n,); overrides atol "
                     "when non-empty.")
      .def_readwrite("jacobian_scheme", &IntegratorSettings::jacobian_scheme,
                     "How implicit rules obtain df/dx, a JacobianScheme.")
      .def_readwrite(
          "max_newton_iterations", &IntegratorSettings::max_newton_iterations,
          "Newton iteration limit per step of implicit rules (int, >= 1).")
      .def_readwrite("autonomous", &IntegratorSettings::autonomous,
                     "Whether f does not depend on t (bool); setting it for an "
                     "f that does gives wrong results.")
      .def_readwrite("dense_output", &IntegratorSettings::dense_output,
                     "Whether to prepare dense output at every step (bool).");

  py::class_<IntegratorStatistics>(m, "IntegratorStatistics",
                                   "Counts of an integrator's work since it "
                                   "was made or its statistics were reset.")
      .def_readonly("steps", &IntegratorStatistics::steps,
                    "Number of accepted steps (int).")
      .def_readonly("rejected_steps", &IntegratorStatistics::rejected_steps,
                    "Number of steps rejected by the error test or a Newton "
                    "failure (int).")
      .def_readonly("derivative_evaluations",
                    &IntegratorStatistics::derivative_evaluations,
                    "Calls of the derivative function f (int).")
      .def_readonly("jacobian_evaluations",
                    &IntegratorStatistics::jacobian_evaluations,
                    "Jacobian evaluations of implicit rules (int).")
      .def_readonly("newton_iterations",
                    &IntegratorStatistics::newton_iterations,
                    "Newton iterations of implicit rules (int).");

  m.def("known_integrator_names", &IntegratorNames,
        "The integration rule names accepted by Simulator.reset_integrator "
        "(list of str).");

  py::class_<SimulatorStatistics>(m, "SimulatorStatistics",
                                  "Counts of a Simulator's work: steps, events "
                                  "handled and derivative evaluations.")
      .def_readonly("steps", &SimulatorStatistics::steps,
                    "Number of simulator steps taken (int).")
      .def_readonly("publishes", &SimulatorStatistics::publishes,
                    "Number of publish events handled (int).")
      .def_readonly("discrete_updates", &SimulatorStatistics::discrete_updates,
                    "Number of discrete-update events handled (int).")
      .def_readonly("unrestricted_updates",
                    &SimulatorStatistics::unrestricted_updates,
                    "Number of unrestricted-update events handled (int).")
      .def_readonly(
          "derivative_evaluations",
          &SimulatorStatistics::derivative_evaluations,
          "Number of evaluations of the continuous-state derivatives (int).");

  py::class_<SimulatorStatus> status(
      m, "SimulatorStatus",
      "Why advance_to (or initialize) returned: the reason, the time reached "
      "and a message.");
  py::enum_<SimulatorStatus::Reason>(
      status, "Reason",
      "Why advance_to returned: it reached its boundary time or a termination "
      "condition.")
      .value("kReachedBoundaryTime", SimulatorStatus::kReachedBoundaryTime)
      .value("kReachedTerminationCondition",
             SimulatorStatus::kReachedTerminationCondition);
  status
      .def_readonly("reason", &SimulatorStatus::reason,
                    "Why advance_to returned (ReturnReason).")
      .def_readonly("return_time", &SimulatorStatus::return_time,
                    "The time advance_to reached, s.")
      .def_readonly("message", &SimulatorStatus::message,
                    "Who asked to stop, and why (str; empty if the boundary "
                    "time was reached).")
      .def("succeeded", &SimulatorStatus::succeeded,
           "Whether advance_to reached its end time rather than a termination "
           "condition (bool).");

  // No py::dynamic_attr(): tern.Simulator subclasses it in Python (see
  // System in bind_framework.cc).
  py::class_<Sim> simulator(
      m, "_Simulator",
      "The C++ Simulator, wrapped by tern.Simulator: use that class.");
  simulator
      .def(py::init([](py::object system, py::object context) {
             const auto& s = system.cast<const System<double>&>();
             if (context.is_none()) return std::make_unique<Sim>(s);
             return std::make_unique<Sim>(s, TakeContext(context, "Simulator"));
           }),
           py::arg("system"), py::arg("context") = py::none(),
           py::keep_alive<1, 2>(),
           "Simulates `system` from `context` (a default one if None); "
           "takes ownership of the context.")
      .def("initialize", &Sim::Initialize,
           "Runs initialization events and the publishes due at the start.")
      .def("advance_to", &Sim::AdvanceTo, py::arg("t"),
           "Advances to time t; raises on failure (the context keeps the "
           "last good state).")
      .def("advance_pending_events", &Sim::AdvancePendingEvents,
           "Runs the update events due at the current time, then per-step and "
           "forced publishes; returns a SimulatorStatus.")
      .def("get_system", &Sim::get_system, py::return_value_policy::reference,
           "The system (its Python object, which the simulator keeps alive).")
      .def("get_context", &Sim::get_mutable_context,
           py::return_value_policy::reference_internal,
           "The Context the simulator advances (owned by the simulator).")
      .def("get_mutable_context", &Sim::get_mutable_context,
           py::return_value_policy::reference_internal,
           "The Context the simulator advances, to change by hand (then call "
           "initialize again).")
      .def("set_target_realtime_rate", &Sim::set_target_realtime_rate,
           py::arg("rate"),
           "Paces simulated time to `rate` times wall-clock time; 0 (the "
           "default) runs as fast as possible.")
      .def("set_publish_every_time_step", &Sim::set_publish_every_time_step,
           py::arg("publish"),
           "Whether to run forced publish events after every step and at "
           "initialization.")
      .def(
          "set_monitor",
          [](Sim& s, py::object f) {
            auto fn = Share(std::move(f));
            s.set_monitor([fn](const Context<double>& c) {
              py::gil_scoped_acquire gil;
              py::object r =
                  (*fn)(py::cast(&c, py::return_value_policy::reference));
              return r.is_none() ? EventStatus::Succeeded()
                                 : r.cast<EventStatus>();
            });
          },
          py::arg("monitor"),
          "Sets monitor(context) -> EventStatus or None, called after every "
          "step; a failed or termination status stops the run.")
      .def("clear_monitor", &Sim::clear_monitor,
           "Removes the monitor set by set_monitor.")
      .def("set_witness_time_tolerance", &Sim::set_witness_time_tolerance,
           py::arg("tolerance"),
           "Sets the time within which witness crossings are localized, s "
           "(default 1e-12).")
      .def(
          "reset_integrator",
          [](Sim& s, const std::string& name,
             const std::optional<IntegratorSettings>& settings) {
            s.reset_integrator(name, settings.value_or(IntegratorSettings{}));
          },
          py::arg("name"), py::arg("settings") = py::none(),
          "Replaces the integration rule by name (one of "
          "known_integrator_names()), with `settings` or the defaults.")
      .def(
          "get_integrator_name",
          [](const Sim& s) { return s.get_integrator().name(); },
          "The name of the integration rule in use (str).")
      .def(
          "get_integrator_settings",
          [](const Sim& s) { return s.get_integrator().settings(); },
          "The integration rule's settings, an IntegratorSettings (a copy).")
      .def(
          "set_integrator_settings",
          [](Sim& s, const IntegratorSettings& settings) {
            ValidateSettings(settings, s.get_integrator().name().c_str());
            s.get_mutable_integrator().mutable_settings() = settings;
          },
          py::arg("settings"),
          "Changes the integration rule's settings to `settings` (an "
          "IntegratorSettings).")
      .def(
          "get_integrator_statistics",
          [](const Sim& s) { return s.get_integrator().statistics(); },
          "The integration rule's counts, an IntegratorStatistics (a copy).")
      .def("get_statistics", &Sim::get_statistics,
           "The simulator's counts, a SimulatorStatistics (a copy).")
      .def("reset_statistics", &Sim::ResetStatistics,
           "Zeroes the simulator's and the integration rule's counts.");
  FastPath<FastAdvanceTo>::InstallMethod(simulator, "advance_to");

  py::class_<RandomSimulationResult>(m, "RandomSimulationResult",
                                     "One Monte Carlo sample: its seed, its "
                                     "output and the error if it failed.")
      .def_readonly(
          "seed", &RandomSimulationResult::seed,
          "The sample seed: RandomGenerator(seed) replays the sample.")
      .def_readonly("output", &RandomSimulationResult::output,
                    "The sample's output, output(system, context) at "
                    "final_time (NaN if it failed).")
      .def_readonly(
          "error", &RandomSimulationResult::error,
          "Why the sample failed (the exception's message), or empty (str).")
      .def("ok", &RandomSimulationResult::ok,
           "Whether the sample ran without error (bool).");

  m.def(
      "random_simulation",
      [](py::object make_simulator, py::object output, double final_time,
         RandomGenerator* generator) {
        PyFactory f{Share(std::move(make_simulator)),
                    std::make_shared<std::vector<py::object>>()};
        PyOutput o{Share(std::move(output))};
        if (!(final_time >= 0) || generator == nullptr) {
          // The library's checks and messages.
          return RandomSimulation(f, o, final_time, generator);
        }
        py::gil_scoped_release release;
        return RunSample(f, o, final_time, generator);
      },
      py::arg("make_simulator"), py::arg("output"), py::arg("final_time"),
      py::arg("generator"),
      "One random simulation: calls make_simulator(generator) -> Simulator, "
      "randomizes its context, runs it to final_time and returns "
      "output(system, context).");
  m.def(
      "monte_carlo_simulation",
      [](py::object make_simulator, py::object output, double final_time,
         int num_samples, RandomGenerator* generator, int num_threads) {
        PyFactory f{Share(std::move(make_simulator)),
                    std::make_shared<std::vector<py::object>>()};
        PyOutput o{Share(std::move(output))};
        CheckMonteCarloArguments("monte_carlo_simulation", f, o, final_time,
                                 num_samples, generator, num_threads);
        std::vector<RandomSimulationResult> r(num_samples);
        for (RandomSimulationResult& x : r) x.seed = generator->NextSeed();
        if (num_samples == 0) return r;
        py::gil_scoped_release release;
        // Sample 0 on this thread tells whether the diagram has Python
        // systems: their samples run on this one thread (every call of a
        // Python system takes the GIL, so threads would only contend for
        // it); samples of C++ diagrams run on the threads asked for.
        bool python_leaf = false;
        r[0] = RunSampleCatching(f, o, final_time, 0, r[0].seed, &python_leaf);
        int threads = num_threads == kNumThreadsAutomatic
                          ? ThreadPool::HardwareConcurrency()
                          : num_threads;
        if (python_leaf) threads = 1;
        threads = std::min(threads, num_samples - 1);
        if (threads <= 1) {
          for (int i = 1; i < num_samples; ++i) {
            r[i] = RunSampleCatching(f, o, final_time, i, r[i].seed);
          }
        } else {
          ThreadPool pool(threads, /*caller_works=*/false);
          pool.ParallelFor(num_samples - 1, [&](std::int64_t i, int) {
            r[i + 1] =
                RunSampleCatching(f, o, final_time, i + 1, r[i + 1].seed);
          });
        }
        return r;
      },
      py::arg("make_simulator"), py::arg("output"), py::arg("final_time"),
      py::arg("num_samples"), py::arg("generator"),
      py::arg("num_parallel_executions") = 1,
      "Runs num_samples random simulations (a list of RandomSimulationResult): "
      "seeds drawn in order from generator, each sample's simulator made by "
      "make_simulator(sample_generator), its context randomized "
      "(set_random_context; what make_simulator set and the system does not "
      "randomize survives), run to final_time and measured by "
      "output(system, context). Results are identical for any number of "
      "threads. Samples of C++ diagrams run on num_parallel_executions "
      "threads with the GIL released; a diagram holding a Python LeafSystem "
      "runs all its samples on one thread (every call into Python takes the "
      "GIL, so more threads would only contend for it).");

  py::class_<LinearQuadraticRegulatorResult>(
      m, "LinearQuadraticRegulatorResult",
      "Result of an LQR design: the gain K of u = -K x and the cost-to-go "
      "matrix S of x'Sx.")
      .def_readonly("K", &LinearQuadraticRegulatorResult::K,
                    "The optimal gain K, (m, n): u = -K x.")
      .def_readonly("S", &LinearQuadraticRegulatorResult::S,
                    "The cost-to-go matrix S, (n, n): x' S x.");
  using Ref = const Eigen::Ref<const Eigen::MatrixXd>&;
  m.def(
      "linear_quadratic_regulator",
      [](Ref A, Ref B, Ref Q, Ref R, const Eigen::MatrixXd& N) {
        return LinearQuadraticRegulator(A, B, Q, R, N);
      },
      py::arg("A"), py::arg("B"), py::arg("Q"), py::arg("R"),
      py::arg("N") = Eigen::MatrixXd(),
      "Continuous-time LQR: minimizes int x'Qx + u'Ru + 2x'Nu dt s.t. xdot = A "
      "x + B u, for A (n, n), B (n, m), Q (n, n), R (m, m) and N (n, m) or "
      "empty for 0. Returns a LinearQuadraticRegulatorResult whose K (m, n) = "
      "R^-1 (B'S + N') and S (n, n) from "
      "continuous_algebraic_riccati. Raises ValueError on bad sizes, "
      "non-symmetric Q or R, or R not positive definite, and RuntimeError if "
      "no stabilizing solution exists.");
  m.def(
      "discrete_time_linear_quadratic_regulator",
      [](Ref A, Ref B, Ref Q, Ref R, const Eigen::MatrixXd& N) {
        return DiscreteTimeLinearQuadraticRegulator(A, B, Q, R, N);
      },
      py::arg("A"), py::arg("B"), py::arg("Q"), py::arg("R"),
      py::arg("N") = Eigen::MatrixXd(),
      "Discrete-time LQR: minimizes sum x'Qx + u'Ru + 2x'Nu s.t. x' = A x + B "
      "u, for A (n, n), B (n, m), Q (n, n), R (m, m) and N (n, m) or empty for "
      "0. Returns a LinearQuadraticRegulatorResult whose K (m, n) = (R + "
      "B'SB)^-1 (B'SA + N') and S (n, n) from "
      "discrete_algebraic_riccati. Raises ValueError on bad sizes, "
      "non-symmetric Q or R, or R not positive definite, and RuntimeError if "
      "no stabilizing solution exists.");
  m.def(
      "continuous_algebraic_riccati",
      [](Ref A, Ref B, Ref Q, Ref R, const Eigen::MatrixXd& N) {
        return ContinuousAlgebraicRiccati(A, B, Q, R, N);
      },
      py::arg("A"), py::arg("B"), py::arg("Q"), py::arg("R"),
      py::arg("N") = Eigen::MatrixXd(),
      "The stabilizing solution X = X' >= 0, (n, n), of the continuous "
      "algebraic Riccati equation A'X + XA - (XB + N) R^-1 (B'X + N') + Q = 0, "
      "for A (n, n), B (n, m), Q (n, n), R (m, m) and N (n, m) or empty for 0, "
      "by structure-preserving doubling. Raises ValueError on bad sizes, "
      "non-symmetric Q or R, or R not positive definite, and RuntimeError if "
      "no stabilizing solution exists.");
  m.def(
      "discrete_algebraic_riccati",
      [](Ref A, Ref B, Ref Q, Ref R, const Eigen::MatrixXd& N) {
        return DiscreteAlgebraicRiccati(A, B, Q, R, N);
      },
      py::arg("A"), py::arg("B"), py::arg("Q"), py::arg("R"),
      py::arg("N") = Eigen::MatrixXd(),
      "The stabilizing solution X = X' >= 0, (n, n), of the discrete algebraic "
      "Riccati equation X = A'XA - (A'XB + N) (R + B'XB)^-1 (B'XA + N') + Q, "
      "for A (n, n), B (n, m), Q (n, n), R (m, m) and N (n, m) or empty for 0, "
      "by structure-preserving doubling. Raises ValueError on bad sizes, "
      "non-symmetric Q or R, or R not positive definite, and RuntimeError if "
      "no stabilizing solution exists.");
}

}  // namespace tern::python
