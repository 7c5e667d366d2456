// The `tern` program: simulates a scenario (.yaml) or a robot (.urdf, .sdf,
// MJCF .xml) and writes its log, the resolved scenario and an HTML report;
// checks a model; plots a log. docs/cli.md shows a session;
// docs/scenarios.md the format.
//
// Exit codes: 0 success; 1 a bad scenario, model or other file, or a
// simulation that failed (including running out of memory); 2 a
// command-line mistake (an unknown option or subcommand, a bad option value
// such as --plant, --integrator or --duration, a file of unknown type);
// 128 + signal when SIGINT or SIGTERM stopped a run (its partial
// log and report are written). Every error is one line on stderr starting
// "tern: error: ".
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "tern/integrators/integrator_base.h"
#include "tern/io/checkpoint.h"
#include "tern/io/plot.h"
#include "tern/io/progress.h"
#include "tern/io/report.h"
#include "tern/io/scenario.h"
#include "tern/io/simulation.h"
#include "tern/version.h"
#ifdef TERN_APP_WITH_LCM
#include "tern/lcm/lcm_echo.h"
#endif

namespace {

namespace fs = std::filesystem;
using namespace tern::io;
using tern::InertiaPolicy;
using tern::InertiaPolicyFromKey;

// A command-line mistake (exit code 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SimulateOptions {
  std::string file;
  double duration{0};
  bool has_duration{false};
  std::string plant;
  double dt{0};
  bool has_dt{false};
  std::string integrator;
  long long seed{0};
  bool has_seed{false};
  std::string output;
  double realtime{0};
  bool quiet{false};
  double checkpoint_every{0};
  bool has_checkpoint_every{false};
  std::string resume;
  std::vector<std::string> package_paths;
  std::string inertia;  // --inertia: every URDF model's InertiaPolicy
};

// Set by SIGINT and SIGTERM during a run; the run stops after its current
// step and the partial log and report are written.
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void OnSignal(int sig) {
  g_signal = sig;
  g_stop.store(true);
}

// Handles SIGINT and SIGTERM once (a second signal ends the program).
void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// The package paths of the command line and ROS_PACKAGE_PATH.
PackagesSpec CommandLinePackages(const std::vector<std::string>& args) {
  PackagesSpec p;
  for (const std::string& a : args) AddPackagePath(a, &p);
  AddRosPackagePath(&p);
  return p;
}

// --inertia's value as an InertiaPolicy (empty: none given).
std::optional<InertiaPolicy> CommandLineInertia(const std::string& key) {
  if (key.empty()) return std::nullopt;
  InertiaPolicy policy;
  if (!InertiaPolicyFromKey(key, &policy)) {
    throw UsageError(fmt::format(
        "--inertia: '{}'; accepted values: accept, balance, strict", key));
  }
  return policy;
}

// A scenario or a model file; the command line's package paths and
// inertia policy (which wins over the scenario's models' own).
Scenario LoadAny(const std::string& file,
                 const std::vector<std::string>& package_paths = {},
                 const std::string& inertia_key = "") {
  const std::string ext = fs::path(file).extension().string();
  const PackagesSpec packages = CommandLinePackages(package_paths);
  const std::optional<InertiaPolicy> inertia = CommandLineInertia(inertia_key);
  // A model file (URDF, MJCF or SDFormat; ParseModelFile picks the parser).
  if (ext == ".urdf" || ext == ".xml" || ext == ".mjcf" || ext == ".sdf" ||
      ext == ".world") {
    return ScenarioFromUrdf(file, packages,
                            inertia.value_or(InertiaPolicy::kAccept));
  }
  if (ext == ".yaml" || ext == ".yml") {
    Scenario s = LoadScenarioFile(file);
    if (inertia) {
      for (ModelSpec& m : s.models) m.inertia = *inertia;
    }
    // The command line's entries win over the scenario's; its search paths
    // come after the scenario's.
    for (const auto& [name, dir] : packages.packages) {
      s.packages.packages[name] = dir;
    }
    for (const std::string& dir : packages.search_paths) {
      if (std::find(s.packages.search_paths.begin(),
                    s.packages.search_paths.end(),
                    dir) == s.packages.search_paths.end()) {
        s.packages.search_paths.push_back(dir);
      }
    }
    return s;
  }
  if (!fs::exists(file)) {
    throw std::runtime_error(fmt::format("{}: no such file", file));
  }
  throw UsageError(fmt::format(
      "{}: unknown file type '{}' (give a scenario .yaml or a robot .urdf, "
      ".sdf, .world or MJCF .xml)",
      file, ext));
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    throw std::runtime_error(fmt::format("{}: cannot write", path.string()));
  }
}

int Simulate(const SimulateOptions& o) {
  // From the start, so a signal during set-up also ends the run cleanly.
  InstallSignalHandlers();
  Scenario s = LoadAny(o.file, o.package_paths, o.inertia);
  if (o.has_duration) {
    if (!(o.duration > 0)) {
      throw UsageError(
          fmt::format("--duration must be positive, not {}", o.duration));
    }
    s.duration = o.duration;
  }
  if (!o.plant.empty()) s.plant.kind = o.plant;
  if (o.has_dt) {
    if (!(o.dt > 0)) {
      throw UsageError(fmt::format("--dt must be positive, not {}", o.dt));
    }
    s.plant.dt = o.dt;
  }
  if (!o.integrator.empty()) s.integrator.name = o.integrator;
  if (o.has_seed) {
    if (o.seed < 0) {
      throw UsageError(fmt::format("--seed must be >= 0, not {}", o.seed));
    }
    s.seed = static_cast<std::uint64_t>(o.seed);
  }
  if (o.realtime < 0) {
    throw UsageError(
        fmt::format("--realtime must be >= 0, not {}", o.realtime));
  }
  if (o.has_checkpoint_every && !(o.checkpoint_every > 0)) {
    throw UsageError(fmt::format("--checkpoint-every must be positive, not {}",
                                 o.checkpoint_every));
  }
  // --plant and --integrator are command-line values: a bad one is a usage
  // error (exit code 2), named as the scenario's own would be.
  if (!o.plant.empty() && o.plant != "continuous" &&
      o.plant != "time-stepping") {
    throw UsageError(
        fmt::format("{}: plant kind '{}'; accepted: continuous, time-stepping",
                    o.file, o.plant));
  }
  if (!o.integrator.empty()) {
    try {
      tern::MakeIntegrator<double>(o.integrator);
    } catch (const std::invalid_argument&) {
      throw UsageError(fmt::format("{}: unknown integrator '{}'; known: {}",
                                   o.file, o.integrator,
                                   tern::KnownIntegratorNames()));
    }
  }
  const World world = BuildWorld(s);
  for (std::size_t i = 0; i < s.models.size(); ++i) {
    s.models[i].floating = world.model_floating[i];
  }
  ValidateScenario(s, world);
  // What the parsers left out and what the scenario does not apply of a
  // model (MJCF actuators, an overridden <option>, ...).
  if (!o.quiet) {
    for (const std::string& w : world.warnings) {
      fmt::print(stderr, "tern: warning: {}\n", w);
    }
    if (o.resume.empty()) {
      const std::string overlap = InitialOverlapWarning(s, world);
      if (!overlap.empty()) fmt::print(stderr, "tern: warning: {}\n", overlap);
    }
  }
  Checkpoint checkpoint;
  if (!o.resume.empty()) {
    checkpoint = ReadCheckpoint(o.resume, &s);
  }

  const fs::path dir =
      o.output.empty() ? fs::path("tern-out") / s.name : fs::path(o.output);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw std::runtime_error(
        fmt::format("{}: cannot create the output directory", dir.string()));
  }
  WriteText(dir / "scenario.yaml", ScenarioToYaml(s));

  Progress progress(
      o.quiet ? Progress::Mode::kQuiet : Progress::AutomaticMode(stderr),
      s.duration);
  RunOptions run;
  run.realtime_rate = o.realtime;
  run.checkpoint_every = o.checkpoint_every;
  run.checkpoint_dir = dir.string();
  if (!o.resume.empty()) run.resume = &checkpoint;
  run.progress = [&progress](double t) { progress.Update(t); };
  run.stop = &g_stop;
  RunStatistics stats;
  const RunLog log = RunScenario(s, world, run, &stats);
  progress.Finish();
  WriteText(dir / "log.csv", LogCsv(log));
  WriteReport((dir / "report.html").string(), s, world, log);
  const std::vector<std::string> notes = log.Notes();
  if (!notes.empty()) {
    // The resolved scenario records what happened, as comments.
    std::string text = ScenarioToYaml(s) + "# run:\n";
    for (const std::string& n : notes) text += "#   " + n + "\n";
    WriteText(dir / "scenario.yaml", text);
  }
  for (const std::string& n : notes) {
    if (!o.quiet || log.interrupted) {
      fmt::print(stderr, "tern: warning: {}\n", n);
    }
  }
  if (log.interrupted) {
    const int sig = g_signal;
    fmt::print(stderr,
               "tern: {} at t = {:.6g} s: wrote the partial log and report "
               "to {}\n",
               sig == SIGTERM ? "SIGTERM" : "SIGINT", log.end_time,
               dir.string());
    return 128 + (sig == 0 ? SIGINT : sig);
  }
  if (s.monte_carlo.samples > 0) {
    if (!o.quiet) {
      fmt::print(stderr, "tern: Monte Carlo, {} samples\n",
                 s.monte_carlo.samples);
    }
    const auto results = RunMonteCarlo(s);
    WriteText(dir / "monte_carlo.csv",
              MonteCarloCsv(s.monte_carlo.output, results));
    if (!o.quiet) {
      const MonteCarloSummary m = SummarizeMonteCarlo(results);
      fmt::print(
          "Monte Carlo: {} of {} samples ok; {} at t = {} s: mean {:.6g}, "
          "std {:.6g}\n",
          m.ok, m.samples, s.monte_carlo.output, s.duration, m.mean, m.std_dev);
    }
  }
  if (!o.quiet) {
    fmt::print("simulated {} s of '{}' in {:.2f} s ({} steps); wrote {}\n",
               s.duration, s.name, stats.wall_seconds, stats.steps,
               dir.string());
    fmt::print("report: {}\n", (dir / "report.html").string());
  }
  return 0;
}

int Check(const std::string& file,
          const std::vector<std::string>& package_paths,
          const std::string& inertia) {
  const Scenario s = LoadAny(file, package_paths, inertia);
  const World world = BuildWorld(s);
  ValidateScenario(s, world);
  fmt::print("{}", DescribeModel(s, world));
  fmt::print("{}", DescribeInitialContacts(s, world));
  fmt::print("ok: {}\n", file);
  return 0;
}

std::string OneLine(std::string s) {
  for (std::size_t k = s.find('\n'); k != std::string::npos; k = s.find('\n'))
    s.replace(k, 1, "; ");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tern: simulate robots and hybrid systems (scenario .yaml or robot "
      ".urdf), check models, plot logs."};
  app.set_version_flag("--version", fmt::format("tern {}", tern::kVersion));
  app.require_subcommand(1);

  SimulateOptions sim;
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Simulate a scenario (.yaml) or a robot (.urdf, .sdf, MJCF .xml); write "
      "log.csv, scenario.yaml and report.html");
  simulate
      ->add_option("FILE", sim.file,
                   "scenario .yaml or robot .urdf, .sdf, .world, MJCF .xml")
      ->required();
  CLI::Option* duration =
      simulate->add_option("--duration", sim.duration, "simulated time, s");
  simulate->add_option("--plant", sim.plant, "continuous | time-stepping");
  CLI::Option* dt =
      simulate->add_option("--dt", sim.dt, "time-stepping period, s");
  simulate->add_option("--integrator", sim.integrator,
                       "integration rule (e.g. rk4, dopri5, radau5)");
  CLI::Option* seed = simulate->add_option("--seed", sim.seed, "random seed");
  simulate->add_option("--output", sim.output,
                       "output directory (default ./tern-out/NAME)");
  simulate->add_option("--realtime", sim.realtime,
                       "pace at R times real time (0: as fast as possible)");
  simulate->add_flag("--quiet", sim.quiet, "print nothing but errors");
  CLI::Option* checkpoint_every = simulate->add_option(
      "--checkpoint-every", sim.checkpoint_every,
      "write a checkpoint every S seconds of simulated time");
  simulate->add_option("--resume", sim.resume,
                       "continue from a checkpoint of this scenario");
  const char* package_help =
      "where package://NAME/... resolves: NAME=DIR, or DIR (a package with "
      "a package.xml, or a folder of packages); repeatable; "
      "ROS_PACKAGE_PATH is read too";
  simulate->add_option("--package-path", sim.package_paths, package_help);
  const char* inertia_help =
      "a URDF inertia that no rigid body has (principal moments breaking "
      "A + B >= C): accept (default: kept, with a warning, up to a small "
      "margin), balance (set to their mean, as MuJoCo's balanceinertia) or "
      "strict (an error)";
  simulate->add_option("--inertia", sim.inertia, inertia_help);

  std::string check_file;
  CLI::App* check = app.add_subcommand(
      "check",
      "Load and validate a scenario or a model (URDF, SDFormat, MJCF) and "
      "print it");
  check
      ->add_option("FILE", check_file,
                   "scenario .yaml or robot .urdf, .sdf, .world, MJCF .xml")
      ->required();
  std::vector<std::string> check_packages;
  check->add_option("--package-path", check_packages, package_help);
  std::string check_inertia;
  check->add_option("--inertia", check_inertia, inertia_help);

  std::string plot_csv, plot_out, plot_signals;
  CLI::App* plot = app.add_subcommand(
      "plot", "Plot columns of a log.csv with gnuplot (.svg or .png)");
  plot->add_option("CSV", plot_csv, "a log.csv written by tern simulate")
      ->required();
  plot->add_option("--signals", plot_signals,
                   "comma-separated column names (default: the first 8)");
  plot->add_option("-o,--output", plot_out,
                   "plot.svg or plot.png (default: next to the CSV, .svg)");

#ifdef TERN_APP_WITH_LCM
  // Issue 26: the traffic of one LCM channel (docs/signals.md).
  std::string echo_channel, echo_url;
  long echo_count = 0;
  double echo_timeout = 10;
  CLI::App* lcm_echo = app.add_subcommand(
      "lcm-echo", "Print the messages on an LCM channel, decoded");
  lcm_echo->add_option("CHANNEL", echo_channel, "channel name")->required();
  lcm_echo->add_option("--url", echo_url,
                       "LCM URL (default: $LCM_DEFAULT_URL or LCM's)");
  lcm_echo->add_option("--count", echo_count,
                       "stop after N messages (default: never)");
  lcm_echo->add_option("--timeout", echo_timeout,
                       "stop after S seconds without a message (default 10)");
#endif
  CLI::App* help = app.add_subcommand("help", "Show this help");
  const std::string main_help = app.help();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "tern: error: {} (see 'tern help')\n",
               OneLine(e.what()));
    return 2;
  }
  try {
    if (*help) {
      std::cout << main_help;
      return 0;
    }
    if (*simulate) {
      sim.has_duration = duration->count() > 0;
      sim.has_dt = dt->count() > 0;
      sim.has_seed = seed->count() > 0;
      sim.has_checkpoint_every = checkpoint_every->count() > 0;
      return Simulate(sim);
    }
    if (*check) return Check(check_file, check_packages, check_inertia);
#ifdef TERN_APP_WITH_LCM
    if (*lcm_echo) {
      tern::LcmInterface lcm(echo_url);
      const long n = tern::EchoLcmChannel(&lcm, echo_channel, echo_count,
                                          echo_timeout, std::cout);
      return n > 0 ? 0 : 1;
    }
#endif
    if (*plot) {
      std::vector<std::string> signals;
      for (std::size_t a = 0, b;
           !plot_signals.empty() && a <= plot_signals.size(); a = b + 1) {
        b = plot_signals.find(',', a);
        if (b == std::string::npos) b = plot_signals.size();
        signals.push_back(plot_signals.substr(a, b - a));
      }
      if (plot_out.empty()) {
        plot_out = fs::path(plot_csv).replace_extension(".svg").string();
      }
      PlotCsv(plot_csv, signals, plot_out);
      fmt::print("plot: {}\n", plot_out);
      return 0;
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "tern: error: {}\n", OneLine(e.what()));
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tern: error: {}\n", OneLine(e.what()));
    return 1;
  }
  return 0;
}
