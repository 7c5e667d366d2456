// Scenarios from Python (issue 25): tern.load_scenario / scenario_from_urdf,
// Scenario.run() returning a ScenarioRun whose log is NumPy arrays with
// column names (the numbers of the CLI's log.csv, bit for bit), and
// tern.write_report. The pipeline is tern_io's (tern/io), the same code the
// `tern` program runs.
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "python/bind_common.h"
#include "tern/io/report.h"
#include "tern/io/scenario.h"
#include "tern/io/simulation.h"

namespace tern::python {
namespace {

using io::RunLog;
using io::Scenario;
using io::World;

// One finished run: the scenario as run (defaults resolved), its world and
// its log, kept together so that a report can be written from them.
struct ScenarioRun {
  Scenario scenario;
  std::shared_ptr<const World> world;
  RunLog log;
  io::RunStatistics statistics;
};

// The CLI's `simulate` minus the files: world, validation, run.
ScenarioRun Run(Scenario s, double realtime_rate) {
  ScenarioRun r;
  auto world = std::make_shared<World>(io::BuildWorld(s));
  for (std::size_t i = 0; i < s.models.size(); ++i) {
    s.models[i].floating = world->model_floating[i];
  }
  io::ValidateScenario(s, *world);
  io::RunOptions options;
  options.realtime_rate = realtime_rate;
  r.log = io::RunScenario(s, *world, options, &r.statistics);
  r.scenario = std::move(s);
  r.world = std::move(world);
  return r;
}

Eigen::MatrixXd LogData(const RunLog& log) {
  Eigen::MatrixXd d(static_cast<Eigen::Index>(log.rows.size()),
                    static_cast<Eigen::Index>(log.columns.size()));
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    for (std::size_t j = 0; j < log.columns.size(); ++j) {
      d(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          log.rows[i][j];
    }
  }
  return d;
}

}  // namespace

void BindIo(py::module_& m) {
  py::register_exception<io::ScenarioError>(m, "ScenarioError",
                                            PyExc_RuntimeError)
      .doc() =
      "A bad scenario file (a RuntimeError): the message names the file, "
      "line, column and key.";

  py::class_<Scenario>(
      m, "Scenario",
      "A scenario (docs/scenarios.md): models, ground, boxes, controllers, "
      "sensors, log, Monte Carlo. Load one with load_scenario(path) or "
      "scenario_from_urdf(path); run it with run().")
      .def_readwrite("name", &Scenario::name,
                     "The scenario's name, also its output folder's (str).")
      .def_readonly(
          "source_file", &Scenario::source_file,
          "The file the scenario was read from (str; empty if read from text).")
      .def_readwrite("duration", &Scenario::duration,
                     "Simulated duration of a run, s (float).")
      .def_readwrite(
          "seed", &Scenario::seed,
          "The random seed of the run's generator (a 64-bit unsigned int).")
      .def_property(
          "plant", [](const Scenario& s) { return s.plant.kind; },
          [](Scenario& s, const std::string& k) { s.plant.kind = k; },
          "Plant kind: 'continuous' or 'time-stepping' (the CLI's --plant; "
          "run() raises naming any other).")
      .def_property(
          "dt", [](const Scenario& s) { return s.plant.dt; },
          [](Scenario& s, double dt) {
            if (!(dt > 0)) {
              throw std::invalid_argument(
                  fmt::format("dt must be positive, not {}", dt));
            }
            s.plant.dt = dt;
          },
          "Time-stepping period, s (the CLI's --dt).")
      .def_property(
          "integrator", [](const Scenario& s) { return s.integrator.name; },
          [](Scenario& s, const std::string& n) { s.integrator.name = n; },
          "Integrator of the continuous plant (the CLI's --integrator).")
      .def("to_yaml", &io::ScenarioToYaml,
           "The scenario with every default filled in, as YAML text that "
           "load_scenario reads back to the same scenario.")
      .def(
          "available_signals",
          [](const Scenario& s) { return io::AvailableSignals(s); },
          "The signal names accepted in log.signals for this scenario (list of "
          "str).")
      .def(
          "run",
          [](const Scenario& s, double realtime_rate) {
            py::gil_scoped_release release;
            return Run(s, realtime_rate);
          },
          py::arg("realtime_rate") = 0.0,
          "Builds the world, checks the scenario against it and simulates "
          "it, as `tern simulate` does (without writing files); returns a "
          "ScenarioRun. The GIL is released while it runs. Raises "
          "ScenarioError or RuntimeError naming the culprit.")
      .def("__repr__", [](const Scenario& s) {
        return fmt::format("Scenario('{}', duration={}, plant='{}')", s.name,
                           s.duration, s.plant.kind);
      });

  py::class_<ScenarioRun>(
      m, "ScenarioRun",
      "A finished run of a Scenario: the log as NumPy arrays (times: (N,), "
      "data: (N, len(columns))) and the scenario as run.")
      .def_property_readonly(
          "columns", [](const ScenarioRun& r) { return r.log.columns; },
          "Column names of data (as in log.csv, without 'time').")
      .def_property_readonly(
          "times",
          [](const ScenarioRun& r) {
            return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(
                r.log.times.data(),
                static_cast<Eigen::Index>(r.log.times.size())));
          },
          "Sample times, s: a new (N,) array.")
      .def_property_readonly(
          "data", [](const ScenarioRun& r) { return LogData(r.log); },
          "Logged values: a new (N, len(columns)) array; the same doubles "
          "as log.csv of `tern simulate`.")
      .def(
          "column",
          [](const ScenarioRun& r, const std::string& name) {
            for (std::size_t j = 0; j < r.log.columns.size(); ++j) {
              if (r.log.columns[j] != name) continue;
              Eigen::VectorXd c(static_cast<Eigen::Index>(r.log.rows.size()));
              for (std::size_t i = 0; i < r.log.rows.size(); ++i) {
                c[static_cast<Eigen::Index>(i)] = r.log.rows[i][j];
              }
              return c;
            }
            throw std::invalid_argument(
                fmt::format("no log column '{}' (columns: {})", name,
                            fmt::join(r.log.columns, ", ")));
          },
          py::arg("name"), "One column by name: a new (N,) array.")
      .def_property_readonly(
          "notes", [](const ScenarioRun& r) { return r.log.Notes(); },
          "Warnings about the run (effort clamping...), as the CLI prints.")
      .def_property_readonly(
          "warnings", [](const ScenarioRun& r) { return r.world->warnings; },
          "Warnings about the world: what the model parsers left out and "
          "what the scenario does not apply of a model (MJCF actuators, an "
          "overridden <option>, ...), as `tern simulate` prints them.")
      .def_property_readonly(
          "steps", [](const ScenarioRun& r) { return r.log.steps; },
          "Number of simulator steps the run took (int).")
      .def_property_readonly(
          "unconverged_islands",
          [](const ScenarioRun& r) { return r.log.unconverged_islands; },
          "Time-stepping plant with plant.time_stepping.on_nonconvergence: "
          "warn: the islands whose solve did not converge and were kept (0 "
          "otherwise: an unconverged island stops the run).")
      .def_property_readonly(
          "wall_seconds",
          [](const ScenarioRun& r) { return r.statistics.wall_seconds; },
          "Wall-clock time of the run, s.")
      .def_property_readonly(
          "scenario", [](const ScenarioRun& r) { return r.scenario; },
          "The scenario as run, defaults filled in (a Scenario copy).")
      .def(
          "to_csv",
          [](const ScenarioRun& r) {
            std::string text = "time";
            for (const std::string& c : r.log.columns) text += "," + c;
            text += "\n";
            for (std::size_t i = 0; i < r.log.times.size(); ++i) {
              text += fmt::format("{}", r.log.times[i]);
              for (double x : r.log.rows[i]) text += fmt::format(",{}", x);
              text += "\n";
            }
            return text;
          },
          "The log as the CLI's log.csv text (shortest round-trip decimals).");

  m.def("load_scenario", &io::LoadScenarioFile, py::arg("path"),
        "Reads and checks a scenario file (.yaml; docs/scenarios.md). Raises "
        "ScenarioError naming file, line, column and key on bad input.");
  m.def(
      "load_scenario_string",
      [](const std::string& yaml, const std::string& source_name,
         const std::string& base_dir) {
        return io::LoadScenarioString(yaml, source_name, base_dir);
      },
      py::arg("yaml"), py::arg("source_name") = "<string>",
      py::arg("base_dir") = ".",
      "Reads and checks a scenario from YAML text as load_scenario does; "
      "relative model paths resolve against base_dir.");
  m.def(
      "scenario_from_urdf",
      [](const std::string& path) { return io::ScenarioFromUrdf(path); },
      py::arg("path"),
      "A URDF robot with the CLI's defaults (`tern simulate robot.urdf`): a "
      "ground plane, the root floating 0.5 m above it (welded when massless), "
      "2 s.");
  m.def(
      "write_report",
      [](const std::string& path, const ScenarioRun& r) {
        py::gil_scoped_release release;
        io::WriteReport(path, r.scenario, *r.world, r.log);
      },
      py::arg("path"), py::arg("run"),
      "Writes the self-contained report.html of a ScenarioRun (3-D replay and "
      "plots, as `tern simulate` does).");
}

}  // namespace tern::python
