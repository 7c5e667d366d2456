#include "tern/io/scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <set>
#include <sstream>

#include "tern/io/simulation.h"
#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/model_file.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern::io {
namespace {

namespace fs = std::filesystem;

// Reads YAML nodes into a Scenario, checking every key and value; each
// error names the file, line, column and the key's dotted path.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void Fail(const YAML::Node& node, const std::string& msg) const {
    const YAML::Mark m = node.Mark();
    if (m.is_null()) throw ScenarioError(fmt::format("{}: {}", file_, msg));
    throw ScenarioError(
        fmt::format("{}:{}:{}: {}", file_, m.line + 1, m.column + 1, msg));
  }

  // `node` must be a map whose keys are all in `accepted`.
  void CheckMap(const YAML::Node& node, const std::string& where,
                std::initializer_list<const char*> accepted) const {
    if (!node.IsMap()) {
      Fail(node, fmt::format("'{}' must be a map of keys ({})", where,
                             fmt::join(accepted, ", ")));
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = Key(it->first, where);
      bool ok = false;
      for (const char* a : accepted) ok = ok || key == a;
      if (!ok) {
        Fail(it->first,
             fmt::format("unknown key '{}' in '{}'; accepted keys: {}", key,
                         where, fmt::join(accepted, ", ")));
      }
    }
  }

  // A map key: a plain string (yaml-cpp would throw a bare "bad conversion"
  // for a sequence or map used as a key).
  std::string Key(const YAML::Node& key, const std::string& where) const {
    if (!key.IsScalar()) {
      Fail(key,
           fmt::format("a key in '{}' must be a plain string, not {}", where,
                       key.IsSequence() ? "a list"
                       : key.IsMap()    ? "a map"
                                        : "empty"));
    }
    return key.Scalar();
  }
  // A finite number: .nan and .inf are refused where they are read, since
  // the resolved scenario.yaml a run writes must read back to the same run.
  double Number(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) Fail(node, fmt::format("'{}' must be a number", key));
    double x = 0;
    try {
      x = node.as<double>();
    } catch (const YAML::Exception&) {
      Fail(node,
           fmt::format("'{}' must be a number, not '{}'", key, node.Scalar()));
    }
    if (!std::isfinite(x)) {
      Fail(node, fmt::format("'{}' must be a finite number, not '{}'", key,
                             node.Scalar()));
    }
    return x;
  }
  double Positive(const YAML::Node& node, const std::string& key) const {
    const double x = Number(node, key);
    if (!(x > 0) || !std::isfinite(x)) {
      Fail(node, fmt::format("'{}' must be positive, not {}", key, x));
    }
    return x;
  }
  double NonNegative(const YAML::Node& node, const std::string& key) const {
    const double x = Number(node, key);
    if (!(x >= 0) || !std::isfinite(x)) {
      Fail(node, fmt::format("'{}' must be >= 0, not {}", key, x));
    }
    return x;
  }
  // An integer in [lo, hi], parsed as 64 bits, so that a value beyond an
  // int is refused by name rather than cut.
  long long Integer(const YAML::Node& node, const std::string& key,
                    long long lo, long long hi) const {
    if (!node.IsScalar())
      Fail(node, fmt::format("'{}' must be an integer", key));
    long long x = 0;
    try {
      x = node.as<long long>();
    } catch (const YAML::Exception&) {
      Fail(node, fmt::format("'{}' must be an integer in [{}, {}], not '{}'",
                             key, lo, hi, node.Scalar()));
    }
    if (x < lo || x > hi) {
      Fail(node, fmt::format("'{}' must be an integer in [{}, {}], not {}", key,
                             lo, hi, x));
    }
    return x;
  }
  bool Bool(const YAML::Node& node, const std::string& key) const {
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
      Fail(node, fmt::format("'{}' must be true or false", key));
    }
  }
  std::string String(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) Fail(node, fmt::format("'{}' must be a string", key));
    return node.Scalar();
  }
  std::string OneOf(const YAML::Node& node, const std::string& key,
                    std::initializer_list<const char*> values) const {
    const std::string s = String(node, key);
    for (const char* v : values) {
      if (s == v) return s;
    }
    Fail(node, fmt::format("'{}' is '{}'; accepted values: {}", key, s,
                           fmt::join(values, ", ")));
  }
  std::vector<double> Numbers(const YAML::Node& node, const std::string& key,
                              int size = -1) const {
    if (node.IsScalar() && size < 0) return {Number(node, key)};
    if (!node.IsSequence()) {
      Fail(node, fmt::format("'{}' must be a list of numbers", key));
    }
    std::vector<double> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      out.push_back(Number(node[i], fmt::format("{}[{}]", key, i)));
    }
    if (size >= 0 && static_cast<int>(out.size()) != size) {
      Fail(node, fmt::format("'{}' must have {} numbers, not {}", key, size,
                             out.size()));
    }
    return out;
  }
  template <int N>
  Eigen::Matrix<double, N, 1> Vector(const YAML::Node& node,
                                     const std::string& key) const {
    const std::vector<double> v = Numbers(node, key, N);
    return Eigen::Map<const Eigen::Matrix<double, N, 1>>(v.data());
  }
  std::vector<std::string> Strings(const YAML::Node& node,
                                   const std::string& key) const {
    if (node.IsScalar()) return {node.Scalar()};
    if (!node.IsSequence())
      Fail(node, fmt::format("'{}' must be a list of names", key));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      out.push_back(String(node[i], fmt::format("{}[{}]", key, i)));
    }
    return out;
  }
  Distribution Dist(const YAML::Node& node, const std::string& key) const {
    Distribution d;
    if (node.IsScalar()) {
      d.a = Number(node, key);
      return d;
    }
    CheckMap(node, key, {"uniform", "gaussian"});
    if (node.size() != 1) {
      Fail(node,
           fmt::format("'{}' must have exactly one of uniform, gaussian", key));
    }
    const bool uniform = static_cast<bool>(node["uniform"]);
    const YAML::Node args = uniform ? node["uniform"] : node["gaussian"];
    const auto ab = Vector<2>(args, key + (uniform ? ".uniform" : ".gaussian"));
    d.kind =
        uniform ? Distribution::Kind::kUniform : Distribution::Kind::kGaussian;
    d.a = ab[0];
    d.b = ab[1];
    if (uniform && !(d.a <= d.b)) {
      Fail(args, fmt::format("'{}.uniform' needs lower <= upper, not [{}, {}]",
                             key, d.a, d.b));
    }
    if (!uniform && !(d.b >= 0)) {
      Fail(args,
           fmt::format("'{}.gaussian' needs a standard deviation >= 0", key));
    }
    return d;
  }

  void ReadScenario(const YAML::Node& root, Scenario* s) const;

  // root[key], if present, must be a list; read_one(node, "key[i]", i,
  // &spec) reads each entry.
  template <typename Spec, typename ReadOne>
  void ReadList(const YAML::Node& root, const char* key, std::vector<Spec>* out,
                const ReadOne& read_one) const {
    const YAML::Node n = root[key];
    if (!n) return;
    if (!n.IsSequence()) Fail(n, fmt::format("'{}' must be a list", key));
    for (std::size_t i = 0; i < n.size(); ++i) {
      Spec spec;
      read_one(n[i], fmt::format("{}[{}]", key, i), i, &spec);
      out->push_back(spec);
    }
  }

 private:
  void ReadPlant(const YAML::Node& n, PlantSpec* p) const;
  void ReadModel(const YAML::Node& n, const std::string& where,
                 const std::string& base_dir, ModelSpec* m) const;
  void ReadBox(const YAML::Node& n, const std::string& where, BoxSpec* b) const;
  void ReadPackages(const YAML::Node& n, const std::string& base_dir,
                    PackagesSpec* p) const;
  void ReadEffortLimits(const YAML::Node& n, EffortLimitsSpec* e) const;
  void ReadController(const YAML::Node& n, const std::string& where,
                      ControllerSpec* c) const;
  void ReadMjcfCtrl(const YAML::Node& n, const std::string& where,
                    ControllerSpec* c) const;
  void ReadSensor(const YAML::Node& n, const std::string& where,
                  SensorSpec* c) const;
  void ReadLcm(const YAML::Node& n, Scenario* s) const;
  std::string file_;
};

void Reader::ReadPlant(const YAML::Node& n, PlantSpec* p) const {
  CheckMap(n, "plant", {"kind", "dt", "gravity", "contact", "time_stepping"});
  if (n["kind"]) {
    p->kind = OneOf(n["kind"], "plant.kind", {"continuous", "time-stepping"});
  }
  if (n["dt"]) p->dt = Positive(n["dt"], "plant.dt");
  if (n["gravity"]) p->gravity = Vector<3>(n["gravity"], "plant.gravity");
  if (const YAML::Node c = n["contact"]) {
    CheckMap(c, "plant.contact",
             {"stiffness", "dissipation", "friction", "tangential_damping",
              "normal_law", "hunt_crossley_dissipation"});
    ContactSpec& k = p->contact;
    if (c["stiffness"])
      k.stiffness = Positive(c["stiffness"], "plant.contact.stiffness");
    if (c["dissipation"]) {
      k.dissipation =
          NonNegative(c["dissipation"], "plant.contact.dissipation");
    }
    if (c["friction"])
      k.friction = NonNegative(c["friction"], "plant.contact.friction");
    if (c["tangential_damping"]) {
      k.tangential_damping =
          Positive(c["tangential_damping"], "plant.contact.tangential_damping");
    }
    if (c["normal_law"]) {
      k.normal_law = OneOf(c["normal_law"], "plant.contact.normal_law",
                           {"linear", "hunt_crossley"});
    }
    if (c["hunt_crossley_dissipation"]) {
      k.hunt_crossley_dissipation =
          NonNegative(c["hunt_crossley_dissipation"],
                      "plant.contact.hunt_crossley_dissipation");
    }
  }
  if (const YAML::Node t = n["time_stepping"]) {
    const std::string w = "plant.time_stepping";
    CheckMap(t, w,
             {"solver", "tolerance", "max_iterations", "creep_velocity",
              "anchor_sticking", "on_nonconvergence"});
    TimeSteppingSpec& k = p->time_stepping;
    if (t["solver"]) {
      k.solver =
          OneOf(t["solver"], w + ".solver", {"convex", "lemke", "pgs", "auto"});
    }
    if (t["tolerance"])
      k.tolerance = Positive(t["tolerance"], w + ".tolerance");
    if (t["max_iterations"]) {
      k.max_iterations = static_cast<int>(
          Integer(t["max_iterations"], w + ".max_iterations", 1, 1000000));
    }
    if (t["creep_velocity"]) {
      k.creep_velocity =
          NonNegative(t["creep_velocity"], w + ".creep_velocity");
    }
    if (t["anchor_sticking"]) {
      k.anchor_sticking = Bool(t["anchor_sticking"], w + ".anchor_sticking");
    }
    if (t["on_nonconvergence"]) {
      k.on_nonconvergence = OneOf(t["on_nonconvergence"],
                                  w + ".on_nonconvergence", {"error", "warn"});
    }
  }
}

void Reader::ReadModel(const YAML::Node& n, const std::string& where,
                       const std::string& base_dir, ModelSpec* m) const {
  CheckMap(n, where,
           {"file", "floating", "position", "rpy", "prefix", "self_collision",
            "exclude_collisions", "srdf", "collision_groups", "inertia"});
  if (!n["file"]) Fail(n, fmt::format("'{}' needs a 'file'", where));
  m->file = String(n["file"], where + ".file");
  fs::path p(m->file);
  if (p.is_relative()) p = fs::path(base_dir) / p;
  m->path = p.lexically_normal().string();
  if (!fs::exists(m->path)) {
    Fail(n["file"],
         fmt::format("'{}.file': no such file '{}'", where, m->path));
  }
  try {
    CheckInputFile(m->path, kMaxModelBytes, "model");
  } catch (const ScenarioError& e) {
    Fail(n["file"], fmt::format("'{}.file': {}", where, e.what()));
  }
  if (n["floating"]) m->floating = Bool(n["floating"], where + ".floating");
  if (n["inertia"]) {
    InertiaPolicyFromKey(OneOf(n["inertia"], where + ".inertia",
                               {"accept", "balance", "strict"}),
                         &m->inertia);
  }
  if (n["position"])
    m->position = Vector<3>(n["position"], where + ".position");
  if (n["rpy"]) m->rpy = Vector<3>(n["rpy"], where + ".rpy");
  if (n["prefix"]) m->prefix = String(n["prefix"], where + ".prefix");
  if (n["self_collision"]) {
    m->self_collision = Bool(n["self_collision"], where + ".self_collision");
  }
  if (const YAML::Node x = n["exclude_collisions"]) {
    const std::string w = where + ".exclude_collisions";
    if (!x.IsSequence()) {
      Fail(x, fmt::format("'{}' must be a list of link pairs [a, b]", w));
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::vector<std::string> pair =
          Strings(x[i], fmt::format("{}[{}]", w, i));
      if (pair.size() != 2 || !x[i].IsSequence()) {
        Fail(x[i],
             fmt::format("'{}[{}]' must be a pair of link names [a, b]", w, i));
      }
      m->exclude_collisions.emplace_back(pair[0], pair[1]);
    }
  }
  if (n["srdf"]) {
    m->srdf = String(n["srdf"], where + ".srdf");
    fs::path srdf(m->srdf);
    if (srdf.is_relative()) srdf = fs::path(base_dir) / srdf;
    m->srdf_path = srdf.lexically_normal().string();
    if (!fs::exists(m->srdf_path)) {
      Fail(n["srdf"],
           fmt::format("'{}.srdf': no such file '{}'", where, m->srdf_path));
    }
    try {
      CheckInputFile(m->srdf_path, kMaxModelBytes, "SRDF");
    } catch (const ScenarioError& e) {
      Fail(n["srdf"], fmt::format("'{}.srdf': {}", where, e.what()));
    }
  }
  if (const YAML::Node g = n["collision_groups"]) {
    const std::string w = where + ".collision_groups";
    if (!g.IsSequence()) {
      Fail(g, fmt::format("'{}' must be a list of {{name, links, ignore}}", w));
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const std::string wi = fmt::format("{}[{}]", w, i);
      CheckMap(g[i], wi, {"name", "links", "ignore"});
      if (!g[i]["name"] || !g[i]["links"]) {
        Fail(g[i], fmt::format("'{}' needs 'name' and 'links'", wi));
      }
      CollisionGroupSpec spec;
      spec.name = String(g[i]["name"], wi + ".name");
      if (!names.insert(spec.name).second) {
        Fail(g[i]["name"], fmt::format("'{}.name': group '{}' is defined twice",
                                       wi, spec.name));
      }
      spec.links = Strings(g[i]["links"], wi + ".links");
      if (g[i]["ignore"]) spec.ignore = Strings(g[i]["ignore"], wi + ".ignore");
      m->collision_groups.push_back(spec);
    }
    for (std::size_t i = 0; i < g.size(); ++i) {
      for (const std::string& other : m->collision_groups[i].ignore) {
        if (!names.count(other)) {
          Fail(g[i]["ignore"],
               fmt::format("'{}[{}].ignore': no group '{}' in this model; "
                           "groups: {}",
                           w, i, other, fmt::join(names, ", ")));
        }
      }
    }
  }
}

void Reader::ReadPackages(const YAML::Node& n, const std::string& base_dir,
                          PackagesSpec* p) const {
  auto dir = [&](const YAML::Node& node, const std::string& key) {
    fs::path d(String(node, key));
    if (d.is_relative()) d = fs::path(base_dir) / d;
    const std::string out = fs::absolute(d).lexically_normal().string();
    if (!fs::is_directory(out)) {
      Fail(node, fmt::format("'{}': no such folder '{}'", key, out));
    }
    return out;
  };
  auto read_map = [&](const YAML::Node& m, const std::string& where) {
    for (auto it = m.begin(); it != m.end(); ++it) {
      const std::string name = Key(it->first, where);
      p->packages[name] = dir(it->second, where + "." + name);
    }
  };
  if (n.IsMap()) {
    read_map(n, "packages");
    return;
  }
  if (!n.IsSequence()) {
    Fail(n,
         "'packages' must map package names to folders, or list folders "
         "(and {name: folder} entries)");
  }
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string where = fmt::format("packages[{}]", i);
    if (n[i].IsMap()) {
      read_map(n[i], where);
    } else {
      AddPackagePath(dir(n[i], where), p);
    }
  }
}

void Reader::ReadEffortLimits(const YAML::Node& n, EffortLimitsSpec* e) const {
  auto is_none = [](const YAML::Node& x) {
    return x.IsNull() || (x.IsScalar() && x.Scalar() == "none");
  };
  if (is_none(n)) {
    e->disable_all = true;
    return;
  }
  if (!n.IsMap()) {
    Fail(n,
         "'effort_limits' must be 'none' (no URDF effort limits) or map "
         "joint names to a limit (N m or N) or 'none'");
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string joint = Key(it->first, "effort_limits");
    const std::string key = "effort_limits." + joint;
    if (joint == "default") {
      if (!is_none(it->second)) {
        Fail(it->second, "'effort_limits.default' can only be 'none'");
      }
      e->disable_all = true;
    } else if (is_none(it->second)) {
      e->joints[joint] = std::numeric_limits<double>::infinity();
    } else {
      e->joints[joint] = Positive(it->second, key);
    }
  }
}

void Reader::ReadBox(const YAML::Node& n, const std::string& where,
                     BoxSpec* b) const {
  CheckMap(n, where, {"name", "size", "position", "rpy", "color", "mass"});
  if (n["name"]) b->name = String(n["name"], where + ".name");
  if (n["size"]) {
    b->size = Vector<3>(n["size"], where + ".size");
    if (!(b->size.minCoeff() > 0)) {
      Fail(n["size"], fmt::format("'{}.size' must be positive", where));
    }
  }
  if (n["position"])
    b->position = Vector<3>(n["position"], where + ".position");
  if (n["rpy"]) b->rpy = Vector<3>(n["rpy"], where + ".rpy");
  if (n["color"]) b->color = Vector<4>(n["color"], where + ".color");
  if (n["mass"]) b->mass = NonNegative(n["mass"], where + ".mass");
}

void Reader::ReadController(const YAML::Node& n, const std::string& where,
                            ControllerSpec* c) const {
  CheckMap(n, where,
           {"name", "type", "joints", "kp", "kd", "target", "trajectory",
            "effort", "motor_time_constant", "actuators", "ctrl"});
  if (!n["type"]) Fail(n, fmt::format("'{}' needs a 'type'", where));
  c->type = OneOf(n["type"], where + ".type",
                  {"joint_pd", "constant_effort", "lcm", "mjcf_ctrl"});
  if (c->type == "mjcf_ctrl") {
    ReadMjcfCtrl(n, where, c);
    return;
  }
  for (const char* k : {"actuators", "ctrl"}) {
    if (n[k]) {
      Fail(n[k], fmt::format("'{}.{}' is for mjcf_ctrl controllers", where, k));
    }
  }
  if (!n["joints"]) Fail(n, fmt::format("'{}' needs 'joints'", where));
  c->joints = Strings(n["joints"], where + ".joints");
  const int nj = static_cast<int>(c->joints.size());
  c->name = n["name"] ? String(n["name"], where + ".name") : c->type;
  // A single number applies to every joint.
  auto per_joint = [&](const char* key) {
    const YAML::Node k = n[key];
    std::vector<double> v = Numbers(k, where + "." + key);
    if (v.size() == 1) v.assign(nj, v[0]);
    if (static_cast<int>(v.size()) != nj) {
      Fail(k, fmt::format("'{}.{}' has {} numbers for {} joints", where, key,
                          v.size(), nj));
    }
    return v;
  };
  if (n["motor_time_constant"]) {
    c->motor_time_constant =
        NonNegative(n["motor_time_constant"], where + ".motor_time_constant");
  }
  if (c->type == "lcm") {
    // Its command comes from another process (the scenario's lcm key).
    for (const char* k : {"kp", "kd", "target", "trajectory", "effort"}) {
      if (n[k]) {
        Fail(n[k], fmt::format("'{}.{}' is not for lcm controllers (their "
                               "command comes from another process)",
                               where, k));
      }
    }
    return;
  }
  if (c->type == "constant_effort") {
    for (const char* k : {"kp", "kd", "target", "trajectory"}) {
      if (n[k]) {
        Fail(n[k],
             fmt::format("'{}.{}' is for joint_pd controllers", where, k));
      }
    }
    if (!n["effort"]) Fail(n, fmt::format("'{}' needs 'effort'", where));
    c->effort = per_joint("effort");
    return;
  }
  if (n["effort"]) {
    Fail(n["effort"],
         fmt::format("'{}.effort' is for constant_effort controllers", where));
  }
  if (!n["kp"] || !n["kd"]) {
    Fail(n, fmt::format("'{}' needs 'kp' and 'kd'", where));
  }
  c->kp = per_joint("kp");
  c->kd = per_joint("kd");
  if (n["target"] && n["trajectory"]) {
    Fail(n["trajectory"],
         fmt::format("'{}' has both 'target' and 'trajectory'", where));
  }
  if (n["target"]) {
    c->target = per_joint("target");
  } else if (const YAML::Node tr = n["trajectory"]) {
    if (!tr.IsSequence() || tr.size() == 0) {
      Fail(tr,
           fmt::format("'{}.trajectory' must be a list of {{t, q}}", where));
    }
    for (std::size_t i = 0; i < tr.size(); ++i) {
      const std::string w = fmt::format("{}.trajectory[{}]", where, i);
      CheckMap(tr[i], w, {"t", "q"});
      if (!tr[i]["t"] || !tr[i]["q"]) {
        Fail(tr[i], fmt::format("'{}' needs 't' and 'q'", w));
      }
      const double t = Number(tr[i]["t"], w + ".t");
      if (!c->trajectory_times.empty() && !(t > c->trajectory_times.back())) {
        Fail(tr[i]["t"], fmt::format("'{}.t' must increase", w));
      }
      c->trajectory_times.push_back(t);
      c->trajectory.push_back(Numbers(tr[i]["q"], w + ".q", nj));
    }
  } else {
    Fail(n, fmt::format("'{}' needs a 'target' or a 'trajectory'", where));
  }
}

void Reader::ReadMjcfCtrl(const YAML::Node& n, const std::string& where,
                          ControllerSpec* c) const {
  for (const char* k :
       {"joints", "kp", "kd", "target", "effort", "motor_time_constant"}) {
    if (n[k]) {
      Fail(n[k], fmt::format("'{}.{}' is not for mjcf_ctrl controllers (they "
                             "name 'actuators' and give 'ctrl' or a "
                             "'trajectory')",
                             where, k));
    }
  }
  c->name = n["name"] ? String(n["name"], where + ".name") : c->type;
  if (!n["actuators"]) Fail(n, fmt::format("'{}' needs 'actuators'", where));
  c->actuators = Strings(n["actuators"], where + ".actuators");
  const int na = static_cast<int>(c->actuators.size());
  if (na == 0)
    Fail(n["actuators"], fmt::format("'{}.actuators' is empty", where));
  if (n["ctrl"] && n["trajectory"]) {
    Fail(n["trajectory"],
         fmt::format("'{}' has both 'ctrl' and 'trajectory'", where));
  }
  if (const YAML::Node k = n["ctrl"]) {
    c->ctrl = Numbers(k, where + ".ctrl");
    if (c->ctrl.size() == 1) c->ctrl.assign(na, c->ctrl[0]);
    if (static_cast<int>(c->ctrl.size()) != na) {
      Fail(k, fmt::format("'{}.ctrl' has {} numbers for {} actuators", where,
                          c->ctrl.size(), na));
    }
  } else if (const YAML::Node tr = n["trajectory"]) {
    if (!tr.IsSequence() || tr.size() == 0) {
      Fail(tr,
           fmt::format("'{}.trajectory' must be a list of {{t, ctrl}}", where));
    }
    for (std::size_t i = 0; i < tr.size(); ++i) {
      const std::string w = fmt::format("{}.trajectory[{}]", where, i);
      CheckMap(tr[i], w, {"t", "ctrl"});
      if (!tr[i]["t"] || !tr[i]["ctrl"]) {
        Fail(tr[i], fmt::format("'{}' needs 't' and 'ctrl'", w));
      }
      const double t = Number(tr[i]["t"], w + ".t");
      if (!c->trajectory_times.empty() && !(t > c->trajectory_times.back())) {
        Fail(tr[i]["t"], fmt::format("'{}.t' must increase", w));
      }
      c->trajectory_times.push_back(t);
      c->trajectory.push_back(Numbers(tr[i]["ctrl"], w + ".ctrl", na));
    }
  } else {
    Fail(n, fmt::format("'{}' needs a 'ctrl' or a 'trajectory'", where));
  }
}

void Reader::ReadSensor(const YAML::Node& n, const std::string& where,
                        SensorSpec* c) const {
  CheckMap(n, where,
           {"name", "type", "body", "joints", "joint", "ticks_per_revolution"});
  if (!n["type"]) Fail(n, fmt::format("'{}' needs a 'type'", where));
  c->type =
      OneOf(n["type"], where + ".type", {"imu", "encoder", "force_torque"});
  c->name = n["name"] ? String(n["name"], where + ".name") : c->type;
  if (c->type == "imu") {
    if (!n["body"]) Fail(n, fmt::format("'{}' (imu) needs 'body'", where));
    c->body = String(n["body"], where + ".body");
  } else if (c->type == "encoder") {
    if (!n["joints"])
      Fail(n, fmt::format("'{}' (encoder) needs 'joints'", where));
    c->joints = Strings(n["joints"], where + ".joints");
    if (n["ticks_per_revolution"]) {
      c->ticks_per_revolution = static_cast<int>(
          Integer(n["ticks_per_revolution"], where + ".ticks_per_revolution", 1,
                  std::numeric_limits<int>::max()));
    }
  } else {
    if (!n["joint"])
      Fail(n, fmt::format("'{}' (force_torque) needs 'joint'", where));
    c->joint = String(n["joint"], where + ".joint");
  }
}

void Reader::ReadScenario(const YAML::Node& root, Scenario* s) const {
  CheckMap(root, "scenario",
           {"name", "duration", "seed", "plant", "integrator", "packages",
            "models", "effort_limits", "ground", "boxes", "initial_state",
            "controllers", "sensors", "log", "monte_carlo", "lcm"});
  if (root["name"]) s->name = String(root["name"], "name");
  if (root["duration"]) s->duration = Positive(root["duration"], "duration");
  if (root["seed"]) {
    const long long seed =
        Integer(root["seed"], "seed", 0, std::numeric_limits<long long>::max());
    s->seed = static_cast<std::uint64_t>(seed);
  }
  if (root["plant"]) ReadPlant(root["plant"], &s->plant);
  if (const YAML::Node n = root["integrator"]) {
    if (n.IsScalar()) {
      s->integrator.name = n.Scalar();
    } else {
      CheckMap(n, "integrator", {"name", "step", "rtol", "atol"});
      if (n["name"]) s->integrator.name = String(n["name"], "integrator.name");
      if (n["step"])
        s->integrator.step = Positive(n["step"], "integrator.step");
      if (n["rtol"])
        s->integrator.rtol = Positive(n["rtol"], "integrator.rtol");
      if (n["atol"])
        s->integrator.atol = Positive(n["atol"], "integrator.atol");
    }
  }
  if (root["packages"])
    ReadPackages(root["packages"], s->base_dir, &s->packages);
  if (root["effort_limits"]) {
    ReadEffortLimits(root["effort_limits"], &s->effort_limits);
  }
  ReadList(root, "models", &s->models,
           [this, s](const YAML::Node& n, const std::string& where, std::size_t,
                     ModelSpec* m) { ReadModel(n, where, s->base_dir, m); });
  if (const YAML::Node n = root["ground"]) {
    if (n.IsScalar()) {
      s->ground.enabled = Bool(n, "ground");
    } else {
      CheckMap(n, "ground", {"enabled", "height", "color"});
      if (n["enabled"])
        s->ground.enabled = Bool(n["enabled"], "ground.enabled");
      if (n["height"]) s->ground.height = Number(n["height"], "ground.height");
      if (n["color"]) s->ground.color = Vector<4>(n["color"], "ground.color");
    }
  }
  if (const YAML::Node n = root["boxes"];
      n && n.IsSequence() && n.size() > static_cast<std::size_t>(kMaxBodies)) {
    Fail(n, fmt::format("'boxes' has {} entries; a scenario may have at most "
                        "{} bodies (boxes and model links)",
                        n.size(), kMaxBodies));
  }
  ReadList(root, "boxes", &s->boxes,
           [this](const YAML::Node& n, const std::string& where, std::size_t i,
                  BoxSpec* b) {
             b->name = fmt::format("box{}", i);
             ReadBox(n, where, b);
           });
  if (const YAML::Node n = root["initial_state"]) {
    CheckMap(n, "initial_state", {"positions", "velocities"});
    for (const char* which : {"positions", "velocities"}) {
      const YAML::Node m = n[which];
      if (!m) continue;
      const std::string where = std::string("initial_state.") + which;
      if (!m.IsMap())
        Fail(m, fmt::format("'{}' must map joint names to "
                            "numbers",
                            where));
      auto& out =
          which[0] == 'p' ? s->initial_positions : s->initial_velocities;
      for (auto it = m.begin(); it != m.end(); ++it) {
        const std::string joint = Key(it->first, where);
        out[joint] = Number(it->second, where + "." + joint);
      }
    }
  }
  ReadList(root, "controllers", &s->controllers,
           [this](const YAML::Node& n, const std::string& where, std::size_t,
                  ControllerSpec* c) { ReadController(n, where, c); });
  ReadList(root, "sensors", &s->sensors,
           [this](const YAML::Node& n, const std::string& where, std::size_t,
                  SensorSpec* c) { ReadSensor(n, where, c); });
  if (const YAML::Node n = root["log"]) {
    CheckMap(n, "log", {"rate", "signals", "model_sensors"});
    if (n["rate"]) s->log.rate = Positive(n["rate"], "log.rate");
    if (n["signals"]) s->log.signals = Strings(n["signals"], "log.signals");
    if (n["model_sensors"]) {
      s->log.model_sensors = Bool(n["model_sensors"], "log.model_sensors");
    }
  }
  if (const YAML::Node n = root["monte_carlo"]) {
    CheckMap(n, "monte_carlo", {"samples", "threads", "vary", "output"});
    MonteCarloSpec& mc = s->monte_carlo;
    if (!n["samples"]) Fail(n, "'monte_carlo' needs 'samples'");
    mc.samples = static_cast<int>(
        Integer(n["samples"], "monte_carlo.samples", 1, kMaxMonteCarloSamples));
    if (n["threads"]) {
      mc.threads = static_cast<int>(
          Integer(n["threads"], "monte_carlo.threads", 0, kMaxThreads));
    }
    if (!n["output"]) Fail(n, "'monte_carlo' needs 'output' (a log column)");
    mc.output = String(n["output"], "monte_carlo.output");
    if (const YAML::Node v = n["vary"]) {
      if (!v.IsMap())
        Fail(v,
             "'monte_carlo.vary' must map names to "
             "distributions");
      for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string key = Key(it->first, "monte_carlo.vary");
        const bool known =
            key.rfind("initial_state.positions.", 0) == 0 ||
            key.rfind("initial_state.velocities.", 0) == 0 ||
            key == "contact.stiffness" || key == "contact.dissipation" ||
            key == "contact.friction" || key.rfind("mass.", 0) == 0;
        if (!known) {
          Fail(it->first,
               fmt::format("unknown key '{}' in 'monte_carlo.vary'; accepted "
                           "keys: initial_state.positions.<joint>, "
                           "initial_state.velocities.<joint>, "
                           "contact.stiffness, contact.dissipation, "
                           "contact.friction, mass.<body>",
                           key));
        }
        mc.vary.emplace_back(key, Dist(it->second, "monte_carlo.vary." + key));
      }
    }
  }
  if (s->models.empty() && s->boxes.empty()) {
    Fail(root,
         "the scenario has no 'models' and no 'boxes': nothing to "
         "simulate");
  }
  if (const YAML::Node n = root["lcm"]) ReadLcm(n, s);
  for (const ControllerSpec& c : s->controllers) {
    const auto& sub = s->lcm.subscribe;
    if (c.type == "lcm" &&
        std::find(sub.begin(), sub.end(), c.name) == sub.end()) {
      Fail(root["controllers"],
           fmt::format("controller '{}' has type lcm but is not in "
                       "'lcm.subscribe'",
                       c.name));
    }
  }
}

void Reader::ReadLcm(const YAML::Node& n, Scenario* s) const {
  CheckMap(n, "lcm",
           {"url", "period", "publish", "subscribe", "lockstep", "timeout"});
  LcmSpec& l = s->lcm;
  if (n["url"]) l.url = String(n["url"], "lcm.url");
  if (n["period"]) l.period = Positive(n["period"], "lcm.period");
  if (n["publish"]) l.publish = Strings(n["publish"], "lcm.publish");
  if (n["subscribe"]) l.subscribe = Strings(n["subscribe"], "lcm.subscribe");
  if (n["lockstep"]) l.lockstep = Bool(n["lockstep"], "lcm.lockstep");
  if (n["timeout"]) l.timeout = Positive(n["timeout"], "lcm.timeout");
  for (const std::string& p : l.publish) {
    bool known = p == "state";
    for (const SensorSpec& k : s->sensors) known = known || k.name == p;
    if (!known) {
      Fail(n["publish"], fmt::format("'lcm.publish' names '{}', which is "
                                     "neither 'state' nor a sensor",
                                     p));
    }
  }
  for (const std::string& c : l.subscribe) {
    bool known = false;
    for (const ControllerSpec& k : s->controllers) {
      known = known || (k.name == c && k.type == "lcm");
    }
    if (!known) {
      Fail(n["subscribe"], fmt::format("'lcm.subscribe' names '{}', which is "
                                       "not a controller of type lcm",
                                       c));
    }
  }
  if (l.lockstep && (l.publish.size() != 1 || l.subscribe.size() != 1)) {
    Fail(n,
         "'lcm.lockstep' needs exactly one 'publish' and one 'subscribe' "
         "(the request and its reply)");
  }
  if (l.period == 0 && s->plant.kind != "time-stepping") {
    Fail(n, "'lcm' needs a 'period' (s) with a continuous plant");
  }
  if (l.enabled() && s->monte_carlo.samples > 0) {
    Fail(n,
         "'lcm' and 'monte_carlo' do not go together (the samples would "
         "share the channels)");
  }
}

std::string ReadFile(const std::string& path) {
  CheckInputFile(path, kMaxScenarioBytes, "scenario");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(fmt::format("{}: cannot read the file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Emits a double so that it reads back to the same bits.
std::string Num(double x) { return fmt::format("{}", x); }

void EmitVector(YAML::Emitter& e, const auto& v) {
  e << YAML::Flow << YAML::BeginSeq;
  for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(v.size()); ++i) {
    e << Num(v[i]);
  }
  e << YAML::EndSeq;
}

}  // namespace

void CheckInputFile(const std::string& path, std::uintmax_t max_bytes,
                    const char* what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw ScenarioError(fmt::format(
        "{}: not a regular file ({} files must be regular files)", path, what));
  }
  const std::uintmax_t bytes = fs::file_size(path, ec);
  if (ec) throw ScenarioError(fmt::format("{}: cannot read the file", path));
  if (bytes > max_bytes) {
    throw ScenarioError(
        fmt::format("{}: {} bytes, more than the {} bytes a {} file may have",
                    path, bytes, max_bytes, what));
  }
}

Scenario LoadScenarioString(const std::string& yaml,
                            const std::string& source_name,
                            const std::string& base_dir) {
  Scenario s;
  s.source_file = source_name;
  s.base_dir = base_dir;
  s.name = fs::path(source_name).stem().string();
  if (yaml.size() > kMaxScenarioBytes) {
    throw ScenarioError(
        fmt::format("{}: {} bytes, more than the {} bytes a scenario may have",
                    source_name, yaml.size(), kMaxScenarioBytes));
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::DeepRecursion& e) {
    throw ScenarioError(fmt::format(
        "{}:{}:{}: YAML nesting deeper than yaml-cpp's limit ({} levels)",
        source_name, e.mark.line + 1, e.mark.column + 1, e.depth()));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("{}:{}:{}: YAML syntax error: {}",
                                    source_name, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
  }
  Reader reader(source_name);
  if (!root || root.IsNull()) {
    throw ScenarioError(fmt::format("{}: the file is empty", source_name));
  }
  // Every yaml-cpp exception the checks above did not foresee still names
  // the file and where in it.
  try {
    reader.ReadScenario(root, &s);
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) {
      throw ScenarioError(fmt::format("{}: {}", source_name, e.msg));
    }
    throw ScenarioError(fmt::format("{}:{}:{}: {}", source_name,
                                    e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (s.log.signals.empty()) {
    s.log.signals.push_back("state");
    for (const SensorSpec& k : s.sensors) s.log.signals.push_back(k.name);
    for (const ControllerSpec& c : s.controllers)
      s.log.signals.push_back(c.name);
  }
  return s;
}

Scenario LoadScenarioFile(const std::string& path) {
  if (!fs::exists(path)) {
    throw ScenarioError(fmt::format("{}: no such file", path));
  }
  const std::string dir = fs::path(path).parent_path().string();
  return LoadScenarioString(ReadFile(path), path, dir.empty() ? "." : dir);
}

void AddPackagePath(const std::string& arg, PackagesSpec* packages) {
  const std::size_t eq = arg.find('=');
  const std::string name = eq == std::string::npos ? "" : arg.substr(0, eq);
  const std::string dir = eq == std::string::npos ? arg : arg.substr(eq + 1);
  if (dir.empty() || (eq != std::string::npos && name.empty())) {
    throw ScenarioError(
        fmt::format("package path '{}': give NAME=DIR or DIR", arg));
  }
  const std::string abs = fs::absolute(dir).lexically_normal().string();
  if (!fs::is_directory(abs)) {
    throw ScenarioError(
        fmt::format("package path '{}': no such folder '{}'", arg, abs));
  }
  if (!name.empty()) {
    packages->packages[name] = abs;
    return;
  }
  // A package itself (named after its folder), else a folder of packages.
  if (fs::exists(fs::path(abs) / "package.xml")) {
    const fs::path p(abs);
    const std::string base = p.has_filename()
                                 ? p.filename().string()
                                 : p.parent_path().filename().string();
    packages->packages.emplace(base, abs);
  } else if (std::find(packages->search_paths.begin(),
                       packages->search_paths.end(),
                       abs) == packages->search_paths.end()) {
    packages->search_paths.push_back(abs);
  }
}

void AddRosPackagePath(PackagesSpec* packages) {
  const char* env = std::getenv("ROS_PACKAGE_PATH");
  if (env == nullptr) return;
  const std::string paths = env;
  for (std::size_t a = 0, b; a <= paths.size(); a = b + 1) {
    b = paths.find(':', a);
    if (b == std::string::npos) b = paths.size();
    const std::string dir = paths.substr(a, b - a);
    if (!dir.empty() && fs::is_directory(dir)) AddPackagePath(dir, packages);
  }
}

void ApplyPackages(const PackagesSpec& packages, UrdfParseOptions* options) {
  // Explicit entries first: PackageMap::Add throws naming a folder that is
  // not there; search paths are scanned for package.xml files below them.
  for (const auto& [name, dir] : packages.packages) {
    options->packages.Add(name, dir);
  }
  for (const std::string& dir : packages.search_paths) {
    options->packages.AddSearchPath(dir);
  }
}

Scenario ScenarioFromUrdf(const std::string& urdf_path,
                          const PackagesSpec& packages, InertiaPolicy inertia) {
  if (!fs::exists(urdf_path)) {
    throw ScenarioError(fmt::format("{}: no such file", urdf_path));
  }
  CheckInputFile(urdf_path, kMaxModelBytes, "model");
  Scenario s;
  s.source_file = urdf_path;
  s.base_dir = ".";
  s.name = fs::path(urdf_path).stem().string();
  s.duration = 2.0;
  s.packages = packages;
  ModelSpec m;
  m.file = urdf_path;
  m.path = urdf_path;
  m.inertia = inertia;
  // The root's mass decides: a massless root is a mount, welded to the
  // world; anything else falls onto the ground from 0.5 m.
  // A root link named "world" is the world: welded whatever is asked.
  ModelFileOptions options;
  options.urdf.check_mass_matrix = false;
  options.urdf.floating_base = true;
  options.urdf.load_collision_meshes = false;
  options.urdf.require_meshes = false;
  options.urdf.inertia = inertia;
  options.mjcf.check_mass_matrix = options.sdf.check_mass_matrix = false;
  options.mjcf.load_collision_meshes = options.sdf.load_collision_meshes =
      false;
  options.mjcf.require_meshes = options.sdf.require_meshes = false;
  const ModelFile model = ParseModelFile(urdf_path, options);
  const RigidBodyTree<double>& tree = model.tree;
  const bool has_root = tree.num_bodies() > 1 && tree.body(1).parent == 0 &&
                        tree.body(1).joint.type == JointType::kFloating;
  m.floating = has_root && tree.body(1).inertia.m > 0;
  if (m.floating && model.format == ModelFormat::kUrdf) {
    m.position = Vector3<double>(0, 0, 0.5);
  }
  // MJCF and SDFormat place their free bodies themselves: the model frame
  // stays at the origin and BuildWorld starts every body where the file
  // does. Their gravity (and MJCF's timestep, for the time-stepping plant)
  // become the plant's.
  if (model.format != ModelFormat::kUrdf) s.plant.gravity = tree.gravity();
  if (model.format == ModelFormat::kMjcf) s.plant.dt = model.mjcf.timestep;
  // A file that brings its own ground (a plane on the world body: a Gazebo
  // world's ground_plane, an MJCF floor) gets no second one at z = 0.
  for (const BodyGeometry& g : tree.body(0).collisions) {
    if (g.shape == BodyGeometry::Shape::kPlane) s.ground.enabled = false;
  }
  s.models.push_back(m);
  s.log.signals = {"state"};
  // A floating model whose file puts part of it below the ground (a
  // humanoid's pelvis at the origin, or 0.5 m up for a URDF: its feet 0.4 m
  // deep) is lifted until its lowest collision geometry is 5 mm above it.
  if (m.floating && s.ground.enabled) {
    const World w = BuildWorld(s);
    KinematicsCache<double> cache(w.tree, /*with_mass_matrix=*/false);
    ForwardKinematics(w.tree, &cache, w.q0);
    GeometryWorkspace ws(w.geometry);
    UpdateGeometryPoses(w.geometry, cache.X_WB, &ws);
    double lowest = std::numeric_limits<double>::infinity();
    for (int g : ws.bounded) {
      if (w.geometry.geometry(g).body > 0) {
        lowest = std::min(lowest, ws.aabb_lo[g].z());
      }
    }
    constexpr double kGap = 0.005;  // m
    if (lowest < s.ground.height + kGap) {
      s.models[0].position.z() += s.ground.height + kGap - lowest;
    }
  }
  return s;
}

std::string ScenarioToYaml(const Scenario& s) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << s.name;
  e << YAML::Key << "duration" << YAML::Value << Num(s.duration);
  e << YAML::Key << "seed" << YAML::Value << s.seed;
  e << YAML::Key << "plant" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "kind" << YAML::Value << s.plant.kind;
  e << YAML::Key << "dt" << YAML::Value << Num(s.plant.dt);
  e << YAML::Key << "gravity" << YAML::Value;
  EmitVector(e, s.plant.gravity);
  const ContactSpec& c = s.plant.contact;
  e << YAML::Key << "contact" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "stiffness" << YAML::Value << Num(c.stiffness);
  e << YAML::Key << "dissipation" << YAML::Value << Num(c.dissipation);
  e << YAML::Key << "friction" << YAML::Value << Num(c.friction);
  e << YAML::Key << "tangential_damping" << YAML::Value
    << Num(c.tangential_damping);
  e << YAML::Key << "normal_law" << YAML::Value << c.normal_law;
  e << YAML::Key << "hunt_crossley_dissipation" << YAML::Value
    << Num(c.hunt_crossley_dissipation);
  e << YAML::EndMap;
  // Written only when set, so that the resolved scenarios (and their
  // hashes) of runs that do not set it stay as they were.
  const TimeSteppingSpec& t = s.plant.time_stepping;
  const TimeSteppingSpec t0;
  if (t.solver != t0.solver || t.tolerance != t0.tolerance ||
      t.max_iterations != t0.max_iterations ||
      t.creep_velocity != t0.creep_velocity ||
      t.anchor_sticking != t0.anchor_sticking ||
      t.on_nonconvergence != t0.on_nonconvergence) {
    e << YAML::Key << "time_stepping" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "solver" << YAML::Value << t.solver;
    e << YAML::Key << "tolerance" << YAML::Value << Num(t.tolerance);
    e << YAML::Key << "max_iterations" << YAML::Value << t.max_iterations;
    e << YAML::Key << "creep_velocity" << YAML::Value << Num(t.creep_velocity);
    e << YAML::Key << "anchor_sticking" << YAML::Value << t.anchor_sticking;
    e << YAML::Key << "on_nonconvergence" << YAML::Value << t.on_nonconvergence;
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  e << YAML::Key << "integrator" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << s.integrator.name;
  e << YAML::Key << "step" << YAML::Value << Num(s.integrator.step);
  e << YAML::Key << "rtol" << YAML::Value << Num(s.integrator.rtol);
  e << YAML::Key << "atol" << YAML::Value << Num(s.integrator.atol);
  e << YAML::EndMap;
  e << YAML::Key << "models" << YAML::Value << YAML::BeginSeq;
  for (const ModelSpec& m : s.models) {
    // The resolved file is absolute, so the written scenario works from
    // any folder.
    e << YAML::BeginMap;
    e << YAML::Key << "file" << YAML::Value
      << fs::absolute(m.path).lexically_normal().string();
    e << YAML::Key << "floating" << YAML::Value << m.floating;
    e << YAML::Key << "inertia" << YAML::Value << InertiaPolicyKey(m.inertia);
    e << YAML::Key << "position" << YAML::Value;
    EmitVector(e, m.position);
    e << YAML::Key << "rpy" << YAML::Value;
    EmitVector(e, m.rpy);
    e << YAML::Key << "prefix" << YAML::Value << m.prefix;
    e << YAML::Key << "self_collision" << YAML::Value << m.self_collision;
    e << YAML::Key << "exclude_collisions" << YAML::Value << YAML::BeginSeq;
    for (const auto& [a, b] : m.exclude_collisions) {
      e << YAML::Flow << YAML::BeginSeq << a << b << YAML::EndSeq;
    }
    e << YAML::EndSeq;
    if (!m.srdf_path.empty()) {
      e << YAML::Key << "srdf" << YAML::Value
        << fs::absolute(m.srdf_path).lexically_normal().string();
    }
    e << YAML::Key << "collision_groups" << YAML::Value << YAML::BeginSeq;
    for (const CollisionGroupSpec& g : m.collision_groups) {
      e << YAML::BeginMap;
      e << YAML::Key << "name" << YAML::Value << g.name;
      e << YAML::Key << "links" << YAML::Value << YAML::Flow << g.links;
      e << YAML::Key << "ignore" << YAML::Value << YAML::Flow << g.ignore;
      e << YAML::EndMap;
    }
    e << YAML::EndSeq;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  // Folders are absolute, so the written scenario works from any folder.
  e << YAML::Key << "packages" << YAML::Value << YAML::BeginSeq;
  for (const auto& [name, dir] : s.packages.packages) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << name << YAML::Value << dir
      << YAML::EndMap;
  }
  for (const std::string& dir : s.packages.search_paths) e << dir;
  e << YAML::EndSeq;
  const EffortLimitsSpec& el = s.effort_limits;
  if (el.disable_all && el.joints.empty()) {
    e << YAML::Key << "effort_limits" << YAML::Value << "none";
  } else {
    e << YAML::Key << "effort_limits" << YAML::Value << YAML::BeginMap;
    if (el.disable_all) e << YAML::Key << "default" << YAML::Value << "none";
    for (const auto& [joint, limit] : el.joints) {
      e << YAML::Key << joint << YAML::Value;
      if (std::isinf(limit)) {
        e << "none";
      } else {
        e << Num(limit);
      }
    }
    e << YAML::EndMap;
  }
  e << YAML::Key << "ground" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "enabled" << YAML::Value << s.ground.enabled;
  e << YAML::Key << "height" << YAML::Value << Num(s.ground.height);
  e << YAML::Key << "color" << YAML::Value;
  EmitVector(e, s.ground.color);
  e << YAML::EndMap;
  e << YAML::Key << "boxes" << YAML::Value << YAML::BeginSeq;
  for (const BoxSpec& b : s.boxes) {
    e << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << b.name;
    e << YAML::Key << "size" << YAML::Value;
    EmitVector(e, b.size);
    e << YAML::Key << "position" << YAML::Value;
    EmitVector(e, b.position);
    e << YAML::Key << "rpy" << YAML::Value;
    EmitVector(e, b.rpy);
    e << YAML::Key << "color" << YAML::Value;
    EmitVector(e, b.color);
    e << YAML::Key << "mass" << YAML::Value << Num(b.mass);
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::Key << "initial_state" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, values] :
       {std::pair{"positions", &s.initial_positions},
        std::pair{"velocities", &s.initial_velocities}}) {
    e << YAML::Key << key << YAML::Value << YAML::BeginMap;
    for (const auto& [joint, x] : *values) {
      e << YAML::Key << joint << YAML::Value << Num(x);
    }
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  e << YAML::Key << "controllers" << YAML::Value << YAML::BeginSeq;
  for (const ControllerSpec& k : s.controllers) {
    e << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << k.name;
    e << YAML::Key << "type" << YAML::Value << k.type;
    if (k.type == "mjcf_ctrl") {
      e << YAML::Key << "actuators" << YAML::Value << YAML::Flow << k.actuators;
      if (k.trajectory_times.empty()) {
        e << YAML::Key << "ctrl" << YAML::Value;
        EmitVector(e, k.ctrl);
      } else {
        e << YAML::Key << "trajectory" << YAML::Value << YAML::BeginSeq;
        for (std::size_t i = 0; i < k.trajectory_times.size(); ++i) {
          e << YAML::BeginMap << YAML::Key << "t" << YAML::Value
            << Num(k.trajectory_times[i]) << YAML::Key << "ctrl" << YAML::Value;
          EmitVector(e, k.trajectory[i]);
          e << YAML::EndMap;
        }
        e << YAML::EndSeq;
      }
      e << YAML::EndMap;
      continue;
    }
    e << YAML::Key << "joints" << YAML::Value << YAML::Flow << k.joints;
    e << YAML::Key << "motor_time_constant" << YAML::Value
      << Num(k.motor_time_constant);
    if (k.type == "constant_effort") {
      e << YAML::Key << "effort" << YAML::Value;
      EmitVector(e, k.effort);
    } else if (k.type == "lcm") {
      // The command comes from another process: nothing more.
    } else {
      e << YAML::Key << "kp" << YAML::Value;
      EmitVector(e, k.kp);
      e << YAML::Key << "kd" << YAML::Value;
      EmitVector(e, k.kd);
      if (k.trajectory_times.empty()) {
        e << YAML::Key << "target" << YAML::Value;
        EmitVector(e, k.target);
      } else {
        e << YAML::Key << "trajectory" << YAML::Value << YAML::BeginSeq;
        for (std::size_t i = 0; i < k.trajectory_times.size(); ++i) {
          e << YAML::BeginMap << YAML::Key << "t" << YAML::Value
            << Num(k.trajectory_times[i]) << YAML::Key << "q" << YAML::Value;
          EmitVector(e, k.trajectory[i]);
          e << YAML::EndMap;
        }
        e << YAML::EndSeq;
      }
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::Key << "sensors" << YAML::Value << YAML::BeginSeq;
  for (const SensorSpec& k : s.sensors) {
    e << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << k.name;
    e << YAML::Key << "type" << YAML::Value << k.type;
    if (k.type == "imu") e << YAML::Key << "body" << YAML::Value << k.body;
    if (k.type == "encoder") {
      e << YAML::Key << "joints" << YAML::Value << YAML::Flow << k.joints;
      e << YAML::Key << "ticks_per_revolution" << YAML::Value
        << k.ticks_per_revolution;
    }
    if (k.type == "force_torque")
      e << YAML::Key << "joint" << YAML::Value << k.joint;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::Key << "log" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "rate" << YAML::Value << Num(s.log.rate);
  e << YAML::Key << "signals" << YAML::Value << YAML::Flow << s.log.signals;
  e << YAML::Key << "model_sensors" << YAML::Value << s.log.model_sensors;
  e << YAML::EndMap;
  if (s.monte_carlo.samples > 0) {
    const MonteCarloSpec& mc = s.monte_carlo;
    e << YAML::Key << "monte_carlo" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "samples" << YAML::Value << mc.samples;
    e << YAML::Key << "threads" << YAML::Value << mc.threads;
    e << YAML::Key << "output" << YAML::Value << mc.output;
    e << YAML::Key << "vary" << YAML::Value << YAML::BeginMap;
    for (const auto& [key, d] : mc.vary) {
      e << YAML::Key << key << YAML::Value;
      if (d.kind == Distribution::Kind::kConstant) {
        e << Num(d.a);
      } else {
        e << YAML::Flow << YAML::BeginMap << YAML::Key
          << (d.kind == Distribution::Kind::kUniform ? "uniform" : "gaussian")
          << YAML::Value;
        EmitVector(e, Eigen::Vector2d(d.a, d.b));
        e << YAML::EndMap;
      }
    }
    e << YAML::EndMap << YAML::EndMap;
  }
  if (s.lcm.enabled()) {
    e << YAML::Key << "lcm" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "url" << YAML::Value << s.lcm.url;
    if (s.lcm.period > 0) {
      e << YAML::Key << "period" << YAML::Value << Num(s.lcm.period);
    }
    e << YAML::Key << "publish" << YAML::Value << YAML::Flow << s.lcm.publish;
    e << YAML::Key << "subscribe" << YAML::Value << YAML::Flow
      << s.lcm.subscribe;
    e << YAML::Key << "lockstep" << YAML::Value << s.lcm.lockstep;
    e << YAML::Key << "timeout" << YAML::Value << Num(s.lcm.timeout);
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace tern::io
