#include "tern/multibody/parsing/mjcf_parser.h"

#include <fmt/format.h>
#include <tinyxml2.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tern/math/rotation.h"
#include "tern/multibody/parsing/mesh_reader.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

namespace fs = std::filesystem;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

namespace {

constexpr double kPi = std::numbers::pi;

std::string Describe(const XMLElement* e) {
  const char* name = e->Attribute("name");
  if (name != nullptr) return fmt::format("<{} name='{}'>", e->Name(), name);
  return fmt::format("<{}>", e->Name());
}

bool Is(const XMLElement* e, const char* tag) {
  return std::string_view(e->Name()) == tag;
}

// One <default> class: per element kind ("joint", "geom", "site",
// "actuator", "mesh", ...), the attributes it sets, with those of the
// classes it nests in already merged in.
struct DefaultClass {
  std::unordered_map<std::string, std::unordered_map<std::string, std::string>>
      tags;
};

// Mass, center of mass and rotational inertia about it, in a body frame.
struct MassProperties {
  double m{0};
  Vector3<double> com{Vector3<double>::Zero()};
  Matrix3<double> I{Matrix3<double>::Zero()};  // about com
};

// Adds b to a (both about their own com, same frame).
void Accumulate(MassProperties* a, const MassProperties& b) {
  const double m = a->m + b.m;
  if (!(m > 0)) return;
  const Vector3<double> com = (a->m * a->com + b.m * b.com) / m;
  auto shift = [](double mass, const Vector3<double>& d) {
    return Matrix3<double>(
        mass *
        (d.squaredNorm() * Matrix3<double>::Identity() - d * d.transpose()));
  };
  a->I = a->I + shift(a->m, a->com - com) + b.I + shift(b.m, b.com - com);
  a->m = m;
  a->com = com;
}

// Volume, centroid and inertia per unit density about the centroid of a
// closed triangle surface, by signed tetrahedra from the origin (the
// divergence theorem). The sign is flipped for an inward-facing surface.
void MeshVolumeProperties(const MeshData& mesh, double* volume,
                          Vector3<double>* centroid, Matrix3<double>* I) {
  double V = 0;
  Vector3<double> first = Vector3<double>::Zero();
  Matrix3<double> C = Matrix3<double>::Zero();  // ∫ x xᵀ dV
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Vector3<double>& a = mesh.vertices[t(0)];
    const Vector3<double>& b = mesh.vertices[t(1)];
    const Vector3<double>& c = mesh.vertices[t(2)];
    const double v = a.dot(b.cross(c)) / 6;
    const Vector3<double> s = a + b + c;
    V += v;
    first += v * s / 4;
    C += v / 20 *
         (a * a.transpose() + b * b.transpose() + c * c.transpose() +
          s * s.transpose());
  }
  if (V < 0) {
    V = -V;
    first = -first;
    C = -C;
  }
  *volume = V;
  *centroid = V > 0 ? Vector3<double>(first / V) : Vector3<double>::Zero();
  const Matrix3<double> Cc =
      C - V * (*centroid) * centroid->transpose();  // about the centroid
  *I = Cc.trace() * Matrix3<double>::Identity() - Cc;
}

// MuJoCo's minimal rotation taking +z to `vec` (a unit quaternion).
Vector4<double> ZToQuaternion(const Vector3<double>& vec) {
  Vector3<double> axis = Vector3<double>::UnitZ().cross(vec);
  const double s = axis.norm();
  if (s < 1e-10) {
    axis = Vector3<double>::UnitX();
  } else {
    axis /= s;
  }
  const double angle = std::atan2(s, vec(2));
  return Vector4<double>(std::cos(angle / 2), std::sin(angle / 2) * axis(0),
                         std::sin(angle / 2) * axis(1),
                         std::sin(angle / 2) * axis(2));
}

class Parser {
 public:
  Parser(const MjcfParseOptions& options, std::string file, std::string dir)
      : options_(options),
        file_(std::move(file)),
        dir_(std::move(dir)),
        packages_(options.packages) {}

  MjcfModel Parse(const std::string& xml);

 private:
  const std::string& FileOf(const XMLElement* e) const {
    auto it = doc_file_.find(e->GetDocument());
    return it == doc_file_.end() ? file_ : it->second;
  }
  [[noreturn]] void Fail(const XMLElement* e, const std::string& msg) const {
    throw MjcfError(FileOf(e), e->GetLineNum(), Describe(e), msg);
  }
  void Warn(const XMLElement* e, const std::string& msg) {
    warnings_.push_back(
        ModelWarning{FileOf(e), e->GetLineNum(), Describe(e), msg});
  }
  // What Tern does not model: a warning, or an error in strict mode.
  void Unsupported(const XMLElement* e, const std::string& msg) {
    if (options_.strict) Fail(e, msg + " (MjcfParseOptions::strict)");
    Warn(e, msg);
  }

  // The child elements of e, with <include file> replaced by the children
  // of the included file's root element.
  std::vector<const XMLElement*> Children(const XMLElement* e, int depth = 0);
  const XMLDocument* LoadDocument(const std::string& path,
                                  const XMLElement* from);

  // An attribute of e, else from its default class for element kind `tag`.
  const char* Get(const XMLElement* e, const DefaultClass* cls, const char* tag,
                  const char* name) const {
    if (const char* a = e->Attribute(name)) return a;
    if (cls == nullptr) return nullptr;
    auto t = cls->tags.find(tag);
    if (t == cls->tags.end()) return nullptr;
    auto a = t->second.find(name);
    return a == t->second.end() ? nullptr : a->second.c_str();
  }
  const DefaultClass* ClassOf(const XMLElement* e,
                              const DefaultClass* inherited) const {
    const char* c = e->Attribute("class");
    if (c == nullptr) return inherited;
    auto it = classes_.find(c);
    if (it == classes_.end()) {
      Fail(e, fmt::format("unknown default class '{}'", c));
    }
    return &it->second;
  }
  std::vector<double> Numbers(const XMLElement* e, const char* attr,
                              const char* text, int min_count,
                              int max_count) const {
    std::vector<double> out;
    std::string bad;
    if (!ParseNumberList(text, &out, &bad)) {
      Fail(e, fmt::format("attribute '{}' has a bad number '{}'", attr, bad));
    }
    const int n = static_cast<int>(out.size());
    if (n < min_count || n > max_count) {
      Fail(e, min_count == max_count
                  ? fmt::format("attribute '{}' needs {} numbers, got '{}'",
                                attr, min_count, text)
                  : fmt::format("attribute '{}' needs {} to {} numbers, got "
                                "'{}'",
                                attr, min_count, max_count, text));
    }
    return out;
  }
  // Numbers of an attribute (own or default), or empty if absent.
  std::vector<double> GetNumbers(const XMLElement* e, const DefaultClass* cls,
                                 const char* tag, const char* attr,
                                 int min_count, int max_count) const {
    const char* a = Get(e, cls, tag, attr);
    if (a == nullptr) return {};
    return Numbers(e, attr, a, min_count, max_count);
  }
  double GetNumber(const XMLElement* e, const DefaultClass* cls,
                   const char* tag, const char* attr, double fallback) const {
    const char* a = Get(e, cls, tag, attr);
    if (a == nullptr) return fallback;
    return Numbers(e, attr, a, 1, 1)[0];
  }
  // An integer attribute (a bitmask, a group): x must be a whole number in
  // int's range (MuJoCo reads these as int; a cast of 1e90 to int is
  // undefined behaviour).
  int Integer(const XMLElement* e, const char* attr, double x) const {
    if (!(x == std::floor(x)) || x < std::numeric_limits<int>::min() ||
        x > std::numeric_limits<int>::max()) {
      Fail(e, fmt::format("attribute '{}' must be an integer in [{}, {}], "
                          "got {}",
                          attr, std::numeric_limits<int>::min(),
                          std::numeric_limits<int>::max(), x));
    }
    return static_cast<int>(x);
  }
  int GetInteger(const XMLElement* e, const DefaultClass* cls, const char* tag,
                 const char* attr, int fallback) const {
    const char* a = Get(e, cls, tag, attr);
    if (a == nullptr) return fallback;
    return Integer(e, attr, Numbers(e, attr, a, 1, 1)[0]);
  }
  bool GetBool(const XMLElement* e, const DefaultClass* cls, const char* tag,
               const char* attr, bool fallback) const {
    const char* a = Get(e, cls, tag, attr);
    if (a == nullptr) return fallback;
    const std::string s = a;
    if (s == "true") return true;
    if (s == "false") return false;
    Fail(e, fmt::format("attribute '{}' must be 'true' or 'false', got '{}'",
                        attr, s));
  }
  // MuJoCo's limited="auto" (the default): limited iff a range is given and
  // the compiler's autolimits is on.
  bool Limited(const XMLElement* e, const DefaultClass* cls, const char* tag,
               const char* attr, bool has_range) const {
    const char* a = Get(e, cls, tag, attr);
    if (a == nullptr || std::string(a) == "auto") {
      return has_range && autolimits_;
    }
    return GetBool(e, cls, tag, attr, false);
  }
  double Angle(double x) const { return degree_ ? x * kPi / 180 : x; }

  Vector4<double> Orientation(const XMLElement* e, const DefaultClass* cls,
                              const char* tag) const;
  RigidTransform<double> Frame(const XMLElement* e, const DefaultClass* cls,
                               const char* tag) const;

  void ParseCompiler(const XMLElement* e);
  void ParseOption(const XMLElement* e, MjcfModel* model);
  void ParseDefault(const XMLElement* e, const DefaultClass& parent, bool top);
  void ParseAsset(const XMLElement* e);
  std::shared_ptr<const MeshData> Mesh(const XMLElement* geom,
                                       const std::string& name,
                                       std::string* path, std::string* uri,
                                       Vector3<double>* scale);

  struct GeomResult {
    MassProperties mass;
    bool counts_mass{false};
    bool has_shape{false};
    bool collides{false};
    BodyGeometry geometry;
  };
  GeomResult ParseGeom(const XMLElement* g, const DefaultClass* cls);
  void ParseBody(const XMLElement* e, int parent, const DefaultClass* cls,
                 bool parent_is_world, RigidBodyTree<double>* tree);
  void AddSite(const XMLElement* s, const DefaultClass* cls, int body,
               const std::string& body_name, RigidBodyTree<double>* tree);
  void ParseActuators(const XMLElement* e, MjcfModel* model);
  void ParseSensors(const XMLElement* e, MjcfModel* model);
  void ParseContact(const XMLElement* e, MjcfModel* model);
  void ParseEquality(const XMLElement* e, MjcfModel* model);

  const MjcfParseOptions& options_;
  std::string file_;
  std::string dir_;
  PackageMap packages_;
  std::vector<ModelWarning> warnings_;
  std::vector<std::unique_ptr<XMLDocument>> docs_;
  std::unordered_map<const XMLDocument*, std::string> doc_file_;

  // <compiler>.
  bool degree_{true};
  std::string eulerseq_{"xyz"};
  std::string meshdir_;
  bool autolimits_{true};
  // coordinate="global": frames, joint anchors and axes are written in the
  // world frame (at the configuration q = ref); X_WB_ is the world pose of
  // the body being read, used to make them local.
  bool global_{false};
  RigidTransform<double> X_WB_;
  bool exactmeshinertia_{false};
  std::string inertiafromgeom_{"auto"};
  int inertia_group_lo_{0};
  int inertia_group_hi_{5};
  double boundmass_{0};
  double boundinertia_{0};

 public:
  // <compiler settotalmass>: every mass and inertia is scaled so the total
  // is this (MuJoCo's rule); the scale needs the total, so Parse runs
  // twice.
  double settotalmass_{0};
  double mass_scale_{1};

 private:
  std::unordered_map<std::string, DefaultClass> classes_;
  struct MeshAsset {
    const XMLElement* e{nullptr};
    std::string file;
    Vector3<double> scale{Vector3<double>::Ones()};
    std::string path;  // resolved, empty until first use
    std::shared_ptr<const MeshData> data;
  };
  std::unordered_map<std::string, MeshAsset> meshes_;
  std::unordered_map<std::string, Vector4<double>> materials_;
  std::vector<MjcfJointSpring> springs_;
  // MuJoCo's weld bodies, by Tern body index of each MJCF body: its weld
  // body (the nearest MJCF ancestor-or-self with a joint; 0, the world, if
  // none) and the weld body of that one's parent. MuJoCo never lets two
  // geoms of one weld body touch, nor (filterparent, on by default) those
  // of a weld body and its parent's, unless one is the world
  // (mj_collision's body-pair filter).
  std::unordered_map<int, int> weld_of_{{0, 0}}, weld_parent_of_{{0, 0}};
  void AddImplicitExcludes(MjcfModel* model) const;
  std::vector<double> qpos0_;
  int body_count_{0};  // MuJoCo body ids, for unnamed bodies
  int site_count_{0};
};

const XMLDocument* Parser::LoadDocument(const std::string& path,
                                        const XMLElement* from) {
  std::string xml, error;
  if (!ReadModelFileText(path, &xml, &error)) {
    Fail(from, fmt::format("included file '{}': {}", path, error));
  }
  auto doc = std::make_unique<XMLDocument>();
  if (doc->Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    throw MjcfError(path, doc->ErrorLineNum(), "XML",
                    fmt::format("malformed XML: {}", doc->ErrorStr()));
  }
  doc_file_[doc.get()] = path;
  docs_.push_back(std::move(doc));
  return docs_.back().get();
}

std::vector<const XMLElement*> Parser::Children(const XMLElement* e,
                                                int depth) {
  std::vector<const XMLElement*> out;
  for (const XMLElement* c = e->FirstChildElement(); c != nullptr;
       c = c->NextSiblingElement()) {
    if (!Is(c, "include")) {
      out.push_back(c);
      continue;
    }
    if (depth > 16) Fail(c, "includes nested more than 16 deep (a cycle?)");
    const char* f = c->Attribute("file");
    if (f == nullptr) Fail(c, "missing attribute 'file'");
    fs::path p(f);
    if (p.is_relative()) p = fs::path(dir_) / p;
    const XMLDocument* doc = LoadDocument(p.string(), c);
    const XMLElement* root = doc->RootElement();
    if (root == nullptr) continue;
    for (const XMLElement* k : Children(root, depth + 1)) out.push_back(k);
  }
  return out;
}

// Orientation of a frame (MJCF "frame orientations"): quat, axisangle,
// xyaxes, zaxis or euler, as MuJoCo's mjCAlternative::Set composes them.
Vector4<double> Parser::Orientation(const XMLElement* e,
                                    const DefaultClass* cls,
                                    const char* tag) const {
  Vector4<double> q(1, 0, 0, 0);
  int given = 0;
  if (auto v = GetNumbers(e, cls, tag, "quat", 4, 4); !v.empty()) {
    q = Vector4<double>(v[0], v[1], v[2], v[3]);
    if (!(q.norm() > 1e-14)) Fail(e, "zero quaternion 'quat'");
    q.normalize();
    ++given;
  }
  if (auto v = GetNumbers(e, cls, tag, "axisangle", 4, 4); !v.empty()) {
    Vector3<double> axis(v[0], v[1], v[2]);
    if (!(axis.norm() > 1e-14)) Fail(e, "zero axis in 'axisangle'");
    axis.normalize();
    const double half = Angle(v[3]) / 2;
    q = Vector4<double>(std::cos(half), std::sin(half) * axis(0),
                        std::sin(half) * axis(1), std::sin(half) * axis(2));
    ++given;
  }
  if (auto v = GetNumbers(e, cls, tag, "xyaxes", 6, 6); !v.empty()) {
    Vector3<double> x(v[0], v[1], v[2]), y(v[3], v[4], v[5]);
    if (!(x.norm() > 1e-14)) Fail(e, "zero x axis in 'xyaxes'");
    x.normalize();
    y -= x * x.dot(y);
    if (!(y.norm() > 1e-14)) Fail(e, "y axis parallel to x in 'xyaxes'");
    y.normalize();
    Matrix3<double> R;
    R.col(0) = x;
    R.col(1) = y;
    R.col(2) = x.cross(y).normalized();
    q = RotationMatrixToQuaternion(R);
    ++given;
  }
  if (auto v = GetNumbers(e, cls, tag, "zaxis", 3, 3); !v.empty()) {
    Vector3<double> z(v[0], v[1], v[2]);
    if (!(z.norm() > 1e-14)) Fail(e, "zero 'zaxis'");
    q = ZToQuaternion(z.normalized());
    ++given;
  }
  if (auto v = GetNumbers(e, cls, tag, "euler", 3, 3); !v.empty()) {
    // Lower-case axes rotate with the frame (post-multiply), upper-case
    // axes are fixed (pre-multiply).
    q = Vector4<double>(1, 0, 0, 0);
    for (int i = 0; i < 3; ++i) {
      const char s = eulerseq_[i];
      const double half = Angle(v[i]) / 2;
      Vector4<double> r(std::cos(half), 0, 0, 0);
      r(1 + (std::tolower(s) - 'x')) = std::sin(half);
      q = std::islower(s) ? QuaternionMultiply(q, r) : QuaternionMultiply(r, q);
    }
    q.normalize();
    ++given;
  }
  if (given > 1 && (e->Attribute("quat") || e->Attribute("axisangle") ||
                    e->Attribute("xyaxes") || e->Attribute("zaxis") ||
                    e->Attribute("euler"))) {
    int own = 0;
    for (const char* a : {"quat", "axisangle", "xyaxes", "zaxis", "euler"}) {
      own += e->Attribute(a) != nullptr;
    }
    if (own > 1) Fail(e, "more than one orientation attribute");
  }
  return q;
}

RigidTransform<double> Parser::Frame(const XMLElement* e,
                                     const DefaultClass* cls,
                                     const char* tag) const {
  RigidTransform<double> X;
  if (auto v = GetNumbers(e, cls, tag, "pos", 3, 3); !v.empty()) {
    X.p = Vector3<double>(v[0], v[1], v[2]);
  }
  X.R = QuaternionToRotationMatrix(Orientation(e, cls, tag));
  // In global coordinates every frame but a body's is made local to the
  // body being read; bodies are handled in ParseBody.
  if (global_ && std::string_view(tag) != "body") return X_WB_.inverse() * X;
  return X;
}

void Parser::ParseCompiler(const XMLElement* e) {
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a != nullptr;
       a = a->Next()) {
    const std::string n = a->Name(), v = a->Value();
    if (n == "angle") {
      if (v != "degree" && v != "radian") {
        Fail(e, fmt::format("angle must be 'degree' or 'radian', got '{}'", v));
      }
      degree_ = v == "degree";
    } else if (n == "eulerseq") {
      bool ok = v.size() == 3;
      for (char c : v)
        ok = ok && std::string("xyzXYZ").find(c) != std::string::npos;
      if (!ok) Fail(e, fmt::format("bad eulerseq '{}'", v));
      eulerseq_ = v;
    } else if (n == "meshdir") {
      meshdir_ = v;
    } else if (n == "autolimits") {
      autolimits_ = GetBool(e, nullptr, "", "autolimits", true);
    } else if (n == "inertiafromgeom") {
      if (v != "true" && v != "false" && v != "auto") {
        Fail(e, fmt::format("inertiafromgeom must be true, false or auto, got "
                            "'{}'",
                            v));
      }
      inertiafromgeom_ = v;
    } else if (n == "inertiagrouprange") {
      const auto r = Numbers(e, "inertiagrouprange", a->Value(), 2, 2);
      inertia_group_lo_ = Integer(e, "inertiagrouprange", r[0]);
      inertia_group_hi_ = Integer(e, "inertiagrouprange", r[1]);
    } else if (n == "coordinate") {
      if (v != "local" && v != "global") {
        Fail(e, fmt::format("coordinate must be 'local' or 'global', got "
                            "'{}'",
                            v));
      }
      global_ = v == "global";
    } else if (n == "settotalmass") {
      settotalmass_ = Numbers(e, "settotalmass", a->Value(), 1, 1)[0];
    } else if (n == "boundmass") {
      boundmass_ = Numbers(e, "boundmass", a->Value(), 1, 1)[0];
    } else if (n == "boundinertia") {
      boundinertia_ = Numbers(e, "boundinertia", a->Value(), 1, 1)[0];
    } else if (n == "texturedir" || n == "strippath" || n == "discardvisual" ||
               n == "convexhull" || n == "usethread") {
    } else if (n == "exactmeshinertia") {
      exactmeshinertia_ = GetBool(e, nullptr, "", "exactmeshinertia", false);
      // Rendering and compilation details with no effect on the tree.
    } else {
      Unsupported(e, fmt::format("compiler attribute '{}' is not supported; "
                                 "ignored",
                                 n));
    }
  }
}

void Parser::ParseOption(const XMLElement* e, MjcfModel* model) {
  if (e->Attribute("timestep") != nullptr) model->has_timestep = true;
  model->timestep = GetNumber(e, nullptr, "", "timestep", model->timestep);
  if (!(model->timestep > 0)) Fail(e, "timestep must be positive");
  if (auto g = GetNumbers(e, nullptr, "", "gravity", 3, 3); !g.empty()) {
    model->gravity = Vector3<double>(g[0], g[1], g[2]);
  }
  // Physics Tern does not model, with MuJoCo 2.2.2's defaults: a value off
  // its default is named. (Solver numerics, as iterations, tolerance and
  // solver, are the engine's own and Tern's solvers have theirs.)
  static const std::pair<const char*, const char*> kPhysics[] = {
      {"density", "0"},       {"viscosity", "0"},
      {"wind", "0 0 0"},      {"magnetic", "0 -0.5 0"},
      {"impratio", "1"},      {"o_margin", "0"},
      {"o_solref", "0.02 1"}, {"o_solimp", "0.9 0.95 0.001 0.5 2"}};
  for (const auto& [attr, def] : kPhysics) {
    const char* a = e->Attribute(attr);
    if (a == nullptr) continue;
    std::vector<double> d;
    std::string bad;
    ParseNumberList(def, &d, &bad);
    if (Numbers(e, attr, a, 1, 5) != d) {
      Unsupported(e, fmt::format("option {}=\"{}\" is not modelled by Tern "
                                 "(MuJoCo's default {}); ignored",
                                 attr, a, def));
    }
  }
  static const std::pair<const char*, const char*> kChoices[] = {
      {"integrator", "Euler"}, {"cone", "pyramidal"}, {"collision", "all"}};
  for (const auto& [attr, def] : kChoices) {
    const char* a = e->Attribute(attr);
    if (a != nullptr && std::string(a) != def) {
      Unsupported(e, fmt::format("option {}=\"{}\" is not Tern's choice (the "
                                 "plant's integrator and contact model "
                                 "apply); ignored",
                                 attr, a));
    }
  }
  for (const XMLElement* f : Children(e)) {
    if (!Is(f, "flag")) {
      Unsupported(f, fmt::format("<{}> in <option> is not supported; ignored",
                                 f->Name()));
      continue;
    }
    // MuJoCo 2.2.2's flags, on by default except the last five.
    static const std::set<std::string> kOn = {
        "constraint", "equality",     "frictionloss", "limit",
        "contact",    "passive",      "gravity",      "clampctrl",
        "warmstart",  "filterparent", "actuation",    "refsafe"};
    static const std::set<std::string> kOff = {"override", "energy", "fwdinv",
                                               "sensornoise", "multiccd"};
    for (const tinyxml2::XMLAttribute* a = f->FirstAttribute(); a;
         a = a->Next()) {
      const std::string n = a->Name(), v = a->Value();
      if (v != "enable" && v != "disable") {
        Fail(f, fmt::format("flag '{}' must be 'enable' or 'disable', got "
                            "'{}'",
                            n, v));
      }
      if (n == "gravity") {
        // Honoured: MuJoCo then runs with zero gravity.
        if (v == "disable") model->gravity.setZero();
        continue;
      }
      if (!kOn.count(n) && !kOff.count(n)) {
        Unsupported(f, fmt::format("unknown flag '{}'; ignored", n));
      } else if ((v == "disable") == static_cast<bool>(kOn.count(n))) {
        Unsupported(f, fmt::format("flag {}=\"{}\" is not modelled by Tern; "
                                   "ignored",
                                   n, v));
      }
    }
  }
}

void Parser::ParseDefault(const XMLElement* e, const DefaultClass& parent,
                          bool top) {
  const char* c = e->Attribute("class");
  std::string name = c ? c : (top ? "main" : "");
  if (name.empty()) Fail(e, "a nested <default> needs a class");
  if (classes_.count(name) && !(top && name == "main")) {
    Fail(e, fmt::format("default class '{}' defined twice", name));
  }
  DefaultClass cls = parent;
  std::vector<const XMLElement*> nested;
  for (const XMLElement* k : Children(e)) {
    if (Is(k, "default")) {
      nested.push_back(k);
      continue;
    }
    std::string tag = k->Name();
    // MuJoCo keeps one actuator default that all shortcuts write.
    if (tag == "motor" || tag == "position" || tag == "velocity" ||
        tag == "general") {
      tag = "actuator";
    }
    auto& attrs = cls.tags[tag];
    for (const tinyxml2::XMLAttribute* a = k->FirstAttribute(); a != nullptr;
         a = a->Next()) {
      attrs[a->Name()] = a->Value();
    }
  }
  classes_[name] = cls;
  for (const XMLElement* k : nested) ParseDefault(k, classes_[name], false);
}

void Parser::ParseAsset(const XMLElement* e) {
  const DefaultClass* main = &classes_["main"];
  for (const XMLElement* a : Children(e)) {
    if (Is(a, "mesh")) {
      const DefaultClass* cls = ClassOf(a, main);
      MeshAsset m;
      m.e = a;
      const char* f = a->Attribute("file");
      if (f == nullptr) {
        Unsupported(a,
                    "a mesh without 'file' (vertex data inline) is not "
                    "supported");
        continue;
      }
      m.file = f;
      if (auto s = GetNumbers(a, cls, "mesh", "scale", 3, 3); !s.empty()) {
        m.scale = Vector3<double>(s[0], s[1], s[2]);
      }
      if (a->Attribute("refpos") || a->Attribute("refquat")) {
        Unsupported(a, "mesh refpos/refquat are not supported; ignored");
      }
      const char* n = a->Attribute("name");
      const std::string name = n ? n : fs::path(m.file).stem().string();
      if (meshes_.count(name)) {
        Fail(a, fmt::format("mesh '{}' defined twice", name));
      }
      meshes_[name] = m;
    } else if (Is(a, "material")) {
      const char* n = a->Attribute("name");
      if (n == nullptr) continue;
      Vector4<double> rgba(1, 1, 1, 1);
      if (auto v = GetNumbers(a, ClassOf(a, main), "material", "rgba", 4, 4);
          !v.empty()) {
        rgba = Vector4<double>(v[0], v[1], v[2], v[3]);
      }
      materials_[n] = rgba;
    } else if (Is(a, "texture")) {
      // Rendering only.
    } else {
      Unsupported(
          a, fmt::format("asset <{}> is not supported; ignored", a->Name()));
    }
  }
}

std::shared_ptr<const MeshData> Parser::Mesh(const XMLElement* geom,
                                             const std::string& name,
                                             std::string* path,
                                             std::string* uri,
                                             Vector3<double>* scale) {
  auto it = meshes_.find(name);
  if (it == meshes_.end()) {
    Fail(geom, fmt::format("mesh '{}' is not defined in <asset>", name));
  }
  MeshAsset& m = it->second;
  *uri = m.file;
  *scale = m.scale;
  if (m.path.empty()) {
    const fs::path base = fs::path(dir_) / meshdir_;
    try {
      m.path = packages_.Resolve(m.file, base.string());
    } catch (const PackageError& err) {
      const std::string msg = fmt::format("mesh '{}': {}", name, err.what());
      if (options_.require_meshes) Fail(m.e, msg);
      Warn(m.e, msg);
      return nullptr;
    }
  }
  *path = m.path;
  if (m.data == nullptr) {
    try {
      m.data = ReadMeshFile(m.path, m.scale);
    } catch (const std::runtime_error& err) {
      Fail(m.e, err.what());
    }
  }
  return m.data;
}

Parser::GeomResult Parser::ParseGeom(const XMLElement* g,
                                     const DefaultClass* cls) {
  GeomResult r;
  BodyGeometry& out = r.geometry;
  if (const char* n = g->Attribute("name")) out.name = n;
  out.source_file = FileOf(g);
  out.source_line = g->GetLineNum();
  const char* type_attr = Get(g, cls, "geom", "type");
  const std::string type = type_attr ? type_attr : "sphere";
  std::vector<double> size = GetNumbers(g, cls, "geom", "size", 1, 3);
  size.resize(3, 0.0);
  RigidTransform<double> X = Frame(g, cls, "geom");
  // fromto: the segment's midpoint and direction give the frame, half its
  // length the geom's half-length (MuJoCo, "geom/fromto").
  if (auto ft = GetNumbers(g, cls, "geom", "fromto", 6, 6); !ft.empty()) {
    if (type != "capsule" && type != "cylinder" && type != "box" &&
        type != "ellipsoid") {
      Fail(g, fmt::format("fromto is not allowed for type '{}'", type));
    }
    Vector3<double> a(ft[0], ft[1], ft[2]), b(ft[3], ft[4], ft[5]);
    if (global_) {
      a = X_WB_.inverse() * a;
      b = X_WB_.inverse() * b;
    }
    const Vector3<double> d = b - a;
    if (!(d.norm() > 1e-14)) Fail(g, "fromto has zero length");
    X.p = (a + b) / 2;
    X.R = QuaternionToRotationMatrix(ZToQuaternion(d.normalized()));
    if (type == "box" || type == "ellipsoid") {
      size[1] = size[0];
      size[2] = d.norm() / 2;
    } else {
      size[1] = d.norm() / 2;
    }
  }
  out.X_BG = X;
  const double density = GetNumber(g, cls, "geom", "density", 1000.0);
  const char* mass_attr = Get(g, cls, "geom", "mass");
  const int group = GetInteger(g, cls, "geom", "group", 0);
  const int contype = GetInteger(g, cls, "geom", "contype", 1);
  const int conaffinity = GetInteger(g, cls, "geom", "conaffinity", 1);
  r.collides = contype != 0 || conaffinity != 0;
  out.contype = static_cast<std::uint32_t>(contype);
  out.conaffinity = static_cast<std::uint32_t>(conaffinity);
  if (auto c = GetNumbers(g, cls, "geom", "rgba", 4, 4); !c.empty()) {
    out.material.rgba = Vector4<double>(c[0], c[1], c[2], c[3]);
    out.material.has_rgba = true;
  } else if (const char* m = Get(g, cls, "geom", "material")) {
    out.material.name = m;
    auto it = materials_.find(m);
    if (it != materials_.end()) {
      out.material.rgba = it->second;
      out.material.has_rgba = true;
    }
  }
  if (auto f = GetNumbers(g, cls, "geom", "friction", 1, 3); !f.empty()) {
    out.contact.mu = f[0];
    out.contact.has_mu = true;
  }

  // Volume V and rotational inertia per unit mass in the geom frame, I1.
  double V = 0;
  Vector3<double> I1 = Vector3<double>::Zero();
  Vector3<double> c_G = Vector3<double>::Zero();  // centroid in G
  Matrix3<double> I_mesh = Matrix3<double>::Zero();
  bool mesh_inertia = false;
  auto positive = [&](int n) {
    for (int i = 0; i < n; ++i) {
      if (!(size[i] > 0)) {
        Fail(g, fmt::format("{} needs {} positive size values, got {} {} {}",
                            type, n, size[0], size[1], size[2]));
      }
    }
  };
  const double r0 = size[0];
  if (type == "sphere") {
    positive(1);
    V = 4.0 / 3 * kPi * r0 * r0 * r0;
    I1.setConstant(0.4 * r0 * r0);
    out.shape = BodyGeometry::Shape::kSphere;
    out.radius = r0;
    r.has_shape = true;
  } else if (type == "capsule") {
    positive(2);
    const double h = 2 * size[1];
    const double vs = 4.0 / 3 * kPi * r0 * r0 * r0, vc = kPi * r0 * r0 * h;
    V = vs + vc;
    // A cylinder and two hemispheres, each about the capsule's center.
    const double ms = vs / V, mc = vc / V;
    I1(0) = mc * (3 * r0 * r0 + h * h) / 12 + 0.4 * ms * r0 * r0 +
            ms * h * (3 * r0 + 2 * h) / 8;
    I1(1) = I1(0);
    I1(2) = mc * r0 * r0 / 2 + 0.4 * ms * r0 * r0;
    out.shape = BodyGeometry::Shape::kCapsule;
    out.radius = r0;
    out.length = h;
    r.has_shape = true;
  } else if (type == "cylinder") {
    positive(2);
    const double h = 2 * size[1];
    V = kPi * r0 * r0 * h;
    I1(0) = I1(1) = (3 * r0 * r0 + h * h) / 12;
    I1(2) = r0 * r0 / 2;
    out.shape = BodyGeometry::Shape::kCylinder;
    out.radius = r0;
    out.length = h;
    r.has_shape = true;
  } else if (type == "box") {
    positive(3);
    const double a = size[0], b = size[1], c = size[2];
    V = 8 * a * b * c;
    I1 = Vector3<double>(b * b + c * c, a * a + c * c, a * a + b * b) / 3;
    out.shape = BodyGeometry::Shape::kBox;
    out.box_size = 2 * Vector3<double>(a, b, c);
    r.has_shape = true;
  } else if (type == "ellipsoid") {
    positive(3);
    const double a = size[0], b = size[1], c = size[2];
    V = 4.0 / 3 * kPi * a * b * c;
    I1 = Vector3<double>(b * b + c * c, a * a + c * c, a * a + b * b) / 5;
    out.shape = BodyGeometry::Shape::kEllipsoid;
    out.radii = Vector3<double>(a, b, c);
    r.has_shape = true;
  } else if (type == "plane") {
    // MuJoCo's plane is infinite for collision (size only draws it): the
    // half-space below z = 0 of the geom frame. Static: ParseBody leaves
    // one on a body other than the world out, with a warning.
    out.shape = BodyGeometry::Shape::kPlane;
    r.has_shape = true;
    return r;  // no mass
  } else if (type == "mesh") {
    const char* mesh = Get(g, cls, "geom", "mesh");
    if (mesh == nullptr) Fail(g, "mesh geom without 'mesh'");
    std::string path, uri;
    Vector3<double> scale;
    auto data = Mesh(g, mesh, &path, &uri, &scale);
    if (data == nullptr) return r;
    out.shape = BodyGeometry::Shape::kMesh;
    out.mesh_uri = uri;
    out.mesh_path = path;
    out.mesh_scale = scale;
    if (options_.load_collision_meshes && r.collides) out.mesh = data;
    r.has_shape = true;
    Matrix3<double> I;
    MeshVolumeProperties(*data, &V, &c_G, &I);
    if (!(V > 0)) Fail(g, fmt::format("mesh '{}' encloses no volume", mesh));
    I_mesh = I / V;
    mesh_inertia = true;
    if (!exactmeshinertia_ && mass_attr == nullptr) {
      Warn(g, fmt::format("mesh '{}': mass and inertia integrated exactly over "
                          "the closed surface; MuJoCo 2.2.2's default "
                          "(exactmeshinertia=false) differs for non-convex "
                          "meshes",
                          mesh));
    }
  } else if (type == "hfield") {
    Unsupported(g, "height fields are not supported; geom left out");
    return r;
  } else {
    Fail(g, fmt::format("unknown geom type '{}'", type));
  }
  double m = density * V;
  if (mass_attr != nullptr) {
    m = Numbers(g, "mass", mass_attr, 1, 1)[0];
  }
  if (m < 0) Fail(g, fmt::format("negative mass {}", m));
  r.counts_mass = group >= inertia_group_lo_ && group <= inertia_group_hi_;
  r.mass.m = m;
  r.mass.com = X * c_G;
  const Matrix3<double> I_G = mesh_inertia
                                  ? Matrix3<double>(m * I_mesh)
                                  : Matrix3<double>((m * I1).asDiagonal());
  r.mass.I = X.R * I_G * X.R.transpose();
  return r;
}

void Parser::AddSite(const XMLElement* s, const DefaultClass* cls, int body,
                     const std::string& body_name,
                     RigidBodyTree<double>* tree) {
  ++site_count_;
  const char* n = s->Attribute("name");
  const std::string name =
      n ? n : fmt::format("{}.site{}", body_name, site_count_ - 1);
  try {
    tree->AddFrame(name, body, Frame(s, cls, "site"));
  } catch (const std::invalid_argument& err) {
    Fail(s, err.what());
  }
}

void Parser::ParseBody(const XMLElement* e, int parent, const DefaultClass* cls,
                       bool parent_is_world, RigidBodyTree<double>* tree) {
  const int id = ++body_count_;
  const char* n = e->Attribute("name");
  const std::string name = n ? n : fmt::format("body{}", id);
  if (const char* cc = e->Attribute("childclass")) {
    auto it = classes_.find(cc);
    if (it == classes_.end()) {
      Fail(e, fmt::format("unknown childclass '{}'", cc));
    }
    cls = &it->second;
  }
  if (GetBool(e, nullptr, "", "mocap", false)) {
    Unsupported(e, "mocap bodies are not supported: welded to the parent");
  }
  // X_PB0: the body frame in its parent's (at q = ref in the joints).
  const RigidTransform<double> X_WP = X_WB_;
  RigidTransform<double> X_PB0 = Frame(e, nullptr, "body");
  if (global_) {
    // An omitted orientation is the world's, not the parent's.
    X_WB_ = X_PB0;
    X_PB0 = X_WP.inverse() * X_PB0;
  } else {
    X_WB_ = X_WP * X_PB0;
  }
  const std::vector<const XMLElement*> children = Children(e);

  // Joints, in order.
  struct JointSpec {
    const XMLElement* e;
    Joint<double> joint;
    Vector3<double> anchor{Vector3<double>::Zero()};
    double ref{0};  // rad or m
  };
  std::vector<JointSpec> joints;
  for (const XMLElement* c : children) {
    const bool free = Is(c, "freejoint");
    if (!free && !Is(c, "joint")) continue;
    // <freejoint> takes no defaults (MuJoCo's xml reader creates it
    // without a class).
    const DefaultClass* jc = free ? nullptr : ClassOf(c, cls);
    JointSpec s{c, {}, Vector3<double>::Zero(), 0.0};
    Joint<double>& j = s.joint;
    const char* jn = c->Attribute("name");
    j.name = jn ? jn : fmt::format("{}.joint{}", name, joints.size());
    const char* ta = free ? "free" : Get(c, jc, "joint", "type");
    const std::string type = ta ? ta : "hinge";
    if (type == "hinge") {
      j.type = JointType::kRevolute;
    } else if (type == "slide") {
      j.type = JointType::kPrismatic;
    } else if (type == "ball") {
      j.type = JointType::kBall;
    } else if (type == "free") {
      j.type = JointType::kFloating;
    } else {
      Fail(c, fmt::format("unknown joint type '{}'", type));
    }
    if (auto p = GetNumbers(c, jc, "joint", "pos", 3, 3); !p.empty()) {
      s.anchor = Vector3<double>(p[0], p[1], p[2]);
      if (global_) s.anchor = X_WB_.inverse() * s.anchor;
    }
    if (auto a = GetNumbers(c, jc, "joint", "axis", 3, 3); !a.empty()) {
      j.axis = Vector3<double>(a[0], a[1], a[2]);
      if ((j.type == JointType::kRevolute || j.type == JointType::kPrismatic) &&
          !(j.axis.norm() > 1e-14)) {
        Fail(c, "zero joint axis");
      }
      if (j.axis.norm() > 0) j.axis.normalize();
      if (global_) j.axis = X_WB_.R.transpose() * j.axis;
    }
    j.damping = GetNumber(c, jc, "joint", "damping", 0);
    j.armature = GetNumber(c, jc, "joint", "armature", 0);
    j.friction = GetNumber(c, jc, "joint", "frictionloss", 0);
    if (j.damping < 0 || j.armature < 0 || j.friction < 0) {
      Fail(c, "damping, armature and frictionloss must be >= 0");
    }
    const bool angular = j.type == JointType::kRevolute;
    const auto range = GetNumbers(c, jc, "joint", "range", 2, 2);
    if (Limited(c, jc, "joint", "limited", !range.empty())) {
      if (range.empty()) Fail(c, "limited joint without 'range'");
      if (range[0] > range[1]) {
        Fail(c, fmt::format("range lower {} exceeds upper {}", range[0],
                            range[1]));
      }
      if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
        j.position_lower = angular ? Angle(range[0]) : range[0];
        j.position_upper = angular ? Angle(range[1]) : range[1];
      } else {
        Unsupported(c, "the range of a ball joint (a cone) is not enforced");
      }
    }
    const double stiffness = GetNumber(c, jc, "joint", "stiffness", 0);
    if (stiffness != 0) {
      double springref = GetNumber(c, jc, "joint", "springref", 0);
      if (angular) springref = Angle(springref);
      if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
        springs_.push_back(JointSpringSpec{j.name, stiffness, springref});
      } else {
        Unsupported(c, fmt::format("joint stiffness {} on a {} joint is not "
                                   "applied (hinge and slide only)",
                                   stiffness, type));
      }
    }
    // MuJoCo moves a hinge or slide joint by q - ref; the constant part
    // goes into the joint frame, so Tern's q equals MuJoCo's qpos.
    s.ref = GetNumber(c, jc, "joint", "ref", 0);
    if (angular) s.ref = Angle(s.ref);
    if (s.ref != 0 && j.type != JointType::kRevolute &&
        j.type != JointType::kPrismatic) {
      Unsupported(c, "'ref' of a ball or free joint is ignored");
      s.ref = 0;
    }
    if (j.type == JointType::kFloating) {
      // MuJoCo's rule: a free joint is the only joint of a child of the
      // world body, and sets the body's pose in the world directly.
      if (!parent_is_world) {
        Fail(c, "a free joint is allowed only in a child of <worldbody>");
      }
    }
    if (j.type == JointType::kPrismatic && !joints.empty()) {
      // The anchor of a slide joint does not move anything: keep the
      // previous one so the chain needs no extra offset.
      s.anchor = joints.back().anchor;
    } else if (j.type == JointType::kPrismatic) {
      s.anchor.setZero();
    }
    joints.push_back(s);
  }
  for (const JointSpec& s : joints) {
    if (s.joint.type == JointType::kFloating && joints.size() > 1) {
      Fail(s.e, "a free joint must be the only joint of its body");
    }
  }

  // Mass properties: <inertial>, or the geoms' (inertiafromgeom).
  const XMLElement* inertial = nullptr;
  std::vector<const XMLElement*> geoms;
  for (const XMLElement* c : children) {
    if (Is(c, "inertial")) {
      if (inertial != nullptr) Fail(c, "a second <inertial>");
      inertial = c;
    } else if (Is(c, "geom")) {
      geoms.push_back(c);
    }
  }
  std::vector<GeomResult> geom_results;
  geom_results.reserve(geoms.size());
  for (const XMLElement* g : geoms) {
    geom_results.push_back(ParseGeom(g, ClassOf(g, cls)));
  }
  MassProperties mp;
  const bool from_geoms = inertiafromgeom_ == "true" ||
                          (inertiafromgeom_ == "auto" && inertial == nullptr);
  if (from_geoms) {
    for (const GeomResult& g : geom_results) {
      if (g.counts_mass) Accumulate(&mp, g.mass);
    }
  } else if (inertial != nullptr) {
    const DefaultClass* ic = ClassOf(inertial, cls);
    const RigidTransform<double> X = Frame(inertial, ic, "inertial");
    const char* ma = inertial->Attribute("mass");
    if (ma == nullptr) Fail(inertial, "missing attribute 'mass'");
    mp.m = Numbers(inertial, "mass", ma, 1, 1)[0];
    if (mp.m < 0) Fail(inertial, fmt::format("negative mass {}", mp.m));
    mp.com = X.p;
    if (auto d = GetNumbers(inertial, nullptr, "inertial", "diaginertia", 3, 3);
        !d.empty()) {
      mp.I = X.R * Vector3<double>(d[0], d[1], d[2]).asDiagonal() *
             X.R.transpose();
    } else if (auto f = GetNumbers(inertial, nullptr, "inertial", "fullinertia",
                                   6, 6);
               !f.empty()) {
      Matrix3<double> I;
      I << f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2];
      mp.I = X.R * I * X.R.transpose();
    } else {
      Fail(inertial, "needs 'diaginertia' or 'fullinertia'");
    }
  }
  if (boundmass_ > 0 && mp.m < boundmass_) mp.m = boundmass_;
  if (boundinertia_ > 0) {
    Eigen::SelfAdjointEigenSolver<Matrix3<double>> eig(mp.I);
    Vector3<double> l = eig.eigenvalues().cwiseMax(boundinertia_);
    mp.I = eig.eigenvectors() * l.asDiagonal() * eig.eigenvectors().transpose();
  }
  mp.m *= mass_scale_;
  mp.I *= mass_scale_;
  const SpatialInertia<double> M =
      SpatialInertia<double>::FromCom(mp.m, mp.com, mp.I);

  // The chain of Tern bodies (see the header).
  int body = -1;
  auto add = [&](const XMLElement* at, const std::string& body_name, int p,
                 const Joint<double>& j, const SpatialInertia<double>& Mb) {
    try {
      return tree->AddBody(body_name, p, j, Mb);
    } catch (const std::invalid_argument& err) {
      Fail(at, err.what());
    }
  };
  // qpos0 (MjcfModel): free joints at the written pose, others at ref.
  for (const JointSpec& s : joints) {
    if (s.joint.type == JointType::kFloating) {
      qpos0_.push_back(X_WB_.p(0));
      qpos0_.push_back(X_WB_.p(1));
      qpos0_.push_back(X_WB_.p(2));
      const Vector4<double> quat = RotationMatrixToQuaternion(X_WB_.R);
      for (int k = 0; k < 4; ++k) qpos0_.push_back(quat(k));
    } else if (s.joint.type == JointType::kBall) {
      qpos0_.insert(qpos0_.end(), {1.0, 0.0, 0.0, 0.0});
    } else {
      qpos0_.push_back(s.ref);
    }
  }
  if (joints.empty()) {
    Joint<double> weld;
    weld.name = name + ".weld";
    weld.type = JointType::kFixed;
    weld.X_PJ = X_PB0;
    body = add(e, name, parent, weld, M);
  } else if (joints.front().joint.type == JointType::kFloating) {
    Joint<double> j = joints.front().joint;
    j.X_PJ = RigidTransform<double>();
    body = add(joints.front().e, name, parent, j, M);
  } else {
    int p = parent;
    Vector3<double> prev = Vector3<double>::Zero();
    const std::size_t n_j = joints.size();
    const bool last_at_origin = joints.back().anchor.isZero(0.0);
    for (std::size_t k = 0; k < n_j; ++k) {
      Joint<double> j = joints[k].joint;
      const Vector3<double>& a = joints[k].anchor;
      j.X_PJ =
          k == 0
              ? X_PB0 * RigidTransform<double>(Matrix3<double>::Identity(), a)
              : RigidTransform<double>(Matrix3<double>::Identity(), a - prev);
      prev = a;
      if (joints[k].ref != 0) {
        const double ref = joints[k].ref;
        j.X_PJ =
            j.X_PJ * (j.type == JointType::kRevolute
                          ? RigidTransform<double>(
                                AxisAngleToRotationMatrix(j.axis, -ref),
                                Vector3<double>::Zero())
                          : RigidTransform<double>(Matrix3<double>::Identity(),
                                                   -ref * j.axis));
      }
      const bool is_body = k + 1 == n_j && last_at_origin;
      p = add(joints[k].e, is_body ? name : name + "." + j.name, p, j,
              is_body ? M : SpatialInertia<double>());
    }
    if (last_at_origin) {
      body = p;
    } else {
      Joint<double> weld;
      weld.name = name + ".anchor";
      weld.type = JointType::kFixed;
      weld.X_PJ = RigidTransform<double>(Matrix3<double>::Identity(), -prev);
      body = add(e, name, p, weld, M);
    }
  }

  if (joints.empty()) {
    weld_of_[body] = weld_of_.at(parent);
    weld_parent_of_[body] = weld_parent_of_.at(parent);
  } else {
    weld_of_[body] = body;
    weld_parent_of_[body] = weld_of_.at(parent);
  }
  for (std::size_t k = 0; k < geoms.size(); ++k) {
    const GeomResult& g = geom_results[k];
    if (!g.has_shape) continue;
    if (g.geometry.shape == BodyGeometry::Shape::kPlane) {
      Warn(geoms[k],
           fmt::format("plane geom on body '{}' left out: Tern's planes "
                       "(half-spaces) are static, in <worldbody> only",
                       name));
      continue;
    }
    tree->AddVisual(body, g.geometry);
    if (g.collides) tree->AddCollision(body, g.geometry);
  }
  const RigidTransform<double> X_WB = X_WB_;
  for (const XMLElement* c : children) {
    X_WB_ = X_WB;
    if (Is(c, "body")) {
      ParseBody(c, body, cls, false, tree);
    } else if (Is(c, "site")) {
      AddSite(c, ClassOf(c, cls), body, name, tree);
    } else if (Is(c, "joint") || Is(c, "freejoint") || Is(c, "geom") ||
               Is(c, "inertial") || Is(c, "camera") || Is(c, "light")) {
      // Handled above, or rendering only.
    } else if (Is(c, "composite") || Is(c, "flexcomp")) {
      Unsupported(
          c, fmt::format("<{}> is not modelled by Tern; left out", c->Name()));
    } else {
      Unsupported(
          c, fmt::format("unknown element <{}> in a body; ignored", c->Name()));
    }
  }
  X_WB_ = X_WP;
}

void Parser::ParseActuators(const XMLElement* e, MjcfModel* model) {
  const DefaultClass* main = &classes_["main"];
  for (const XMLElement* a : Children(e)) {
    const bool motor = Is(a, "motor"), position = Is(a, "position");
    if (!motor && !position) {
      Unsupported(a, fmt::format("actuator <{}> is not supported; left out",
                                 a->Name()));
      continue;
    }
    const DefaultClass* cls = ClassOf(a, main);
    const char* joint = Get(a, cls, "actuator", "joint");
    if (joint == nullptr) {
      Unsupported(a,
                  "only joint transmissions are supported (not tendon, "
                  "site, ...); actuator left out");
      continue;
    }
    if (!model->tree.HasJoint(joint)) {
      Fail(a, fmt::format("joint '{}' does not exist", joint));
    }
    MjcfActuator act;
    act.line = a->GetLineNum();
    const char* n = a->Attribute("name");
    act.name = n ? n : fmt::format("actuator{}", model->actuators.size());
    act.kind =
        motor ? MjcfActuator::Kind::kMotor : MjcfActuator::Kind::kPosition;
    act.joint = joint;
    if (auto g = GetNumbers(a, cls, "actuator", "gear", 1, 6); !g.empty()) {
      act.gear = g[0];
    }
    const auto cr = GetNumbers(a, cls, "actuator", "ctrlrange", 2, 2);
    act.ctrl_limited = Limited(a, cls, "actuator", "ctrllimited", !cr.empty());
    if (act.ctrl_limited) {
      if (cr.empty()) Fail(a, "ctrllimited without 'ctrlrange'");
      act.ctrl_lower = cr[0];
      act.ctrl_upper = cr[1];
    }
    const auto fr = GetNumbers(a, cls, "actuator", "forcerange", 2, 2);
    act.force_limited =
        Limited(a, cls, "actuator", "forcelimited", !fr.empty());
    if (act.force_limited) {
      if (fr.empty()) Fail(a, "forcelimited without 'forcerange'");
      act.force_lower = fr[0];
      act.force_upper = fr[1];
    }
    if (position) act.kp = GetNumber(a, cls, "actuator", "kp", 1);
    model->actuators.push_back(act);
  }
}

void Parser::ParseSensors(const XMLElement* e, MjcfModel* model) {
  for (const XMLElement* s : Children(e)) {
    MjcfSensor sensor;
    sensor.type = s->Name();
    sensor.line = s->GetLineNum();
    const char* attr = nullptr;
    if (sensor.type == "jointpos") {
      attr = "joint";
    } else if (sensor.type == "accelerometer" || sensor.type == "gyro") {
      attr = "site";
    } else {
      Unsupported(s, fmt::format("sensor <{}> is not supported; left out",
                                 sensor.type));
      continue;
    }
    const char* target = s->Attribute(attr);
    if (target == nullptr) Fail(s, fmt::format("missing attribute '{}'", attr));
    sensor.target = target;
    if (attr == std::string("joint") && !model->tree.HasJoint(target)) {
      Fail(s, fmt::format("joint '{}' does not exist", target));
    }
    if (attr == std::string("site")) {
      try {
        model->tree.FindFrameIndex(target);
      } catch (const std::invalid_argument&) {
        Fail(s, fmt::format("site '{}' does not exist", target));
      }
    }
    const char* n = s->Attribute("name");
    sensor.name = n ? n : fmt::format("sensor{}", model->sensors.size());
    sensor.noise = GetNumber(s, nullptr, "", "noise", 0);
    model->sensors.push_back(sensor);
  }
}

void Parser::ParseContact(const XMLElement* e, MjcfModel* model) {
  for (const XMLElement* c : Children(e)) {
    if (!Is(c, "exclude")) {
      Unsupported(c, fmt::format("<contact><{}> is not supported; left out",
                                 c->Name()));
      continue;
    }
    MjcfContactExclude x;
    for (const char* attr : {"body1", "body2"}) {
      const char* b = c->Attribute(attr);
      if (b == nullptr) Fail(c, fmt::format("missing attribute '{}'", attr));
      if (!model->tree.HasBody(b)) {
        Fail(c, fmt::format("body '{}' does not exist", b));
      }
      (attr[4] == '1' ? x.body1 : x.body2) = b;
    }
    model->contact_excludes.push_back(x);
  }
}

void Parser::ParseEquality(const XMLElement* e, MjcfModel* model) {
  const DefaultClass* main = &classes_["main"];
  for (const XMLElement* c : Children(e)) {
    const bool connect = Is(c, "connect"), weld = Is(c, "weld");
    if (!connect && !weld) {
      Unsupported(c, fmt::format("equality <{}> is not supported; left out",
                                 c->Name()));
      continue;
    }
    const DefaultClass* cls = ClassOf(c, main);
    MjcfEquality q;
    q.type = connect ? MjcfEquality::Type::kConnect : MjcfEquality::Type::kWeld;
    q.line = c->GetLineNum();
    const char* n = c->Attribute("name");
    q.name = n ? n : fmt::format("equality{}", model->equalities.size());
    const char* b1 = c->Attribute("body1");
    if (b1 == nullptr) Fail(c, "missing attribute 'body1'");
    const char* b2 = c->Attribute("body2");
    q.body1 = b1;
    q.body2 = b2 ? b2 : "world";
    for (const std::string& b : {q.body1, q.body2}) {
      if (!model->tree.HasBody(b)) {
        Fail(c, fmt::format("body '{}' does not exist", b));
      }
    }
    if (q.body1 == q.body2) {
      Fail(c, fmt::format("body1 and body2 are the same body '{}'", q.body1));
    }
    const auto a = GetNumbers(c, cls, "equality", "anchor", 3, 3);
    if (connect && a.empty()) Fail(c, "missing attribute 'anchor'");
    if (!a.empty()) q.anchor = Vector3<double>(a[0], a[1], a[2]);
    if (weld) {
      // MuJoCo 2.2.2: relpose = [pos; quat] of body2 in body1, ignored when
      // its quaternion is zero (the default "0 1 0 0 0 0 0").
      const auto r = GetNumbers(c, cls, "equality", "relpose", 7, 7);
      if (!r.empty()) {
        Vector4<double> quat(r[3], r[4], r[5], r[6]);
        if (quat.norm() > 0) {
          q.has_relpose = true;
          q.relpose.p = Vector3<double>(r[0], r[1], r[2]);
          q.relpose.R = QuaternionToRotationMatrix(quat.normalized());
        }
      }
    }
    q.active = GetBool(c, cls, "equality", "active", true);
    model->equalities.push_back(q);
  }
}

// The pairs MuJoCo filters without an <exclude> (see weld_of_), as body
// pairs of the tree: Tern splits an MJCF body with several joints into a
// chain of bodies, so its own parent-child rule (GeometryModel::FromTree)
// would let a thigh touch the pelvis it hangs from through a three-hinge
// hip. Only bodies with collision geometry are listed.
void Parser::AddImplicitExcludes(MjcfModel* model) const {
  const RigidBodyTree<double>& tree = model->tree;
  std::map<int, std::vector<int>> by_weld;  // ordered: a stable list
  for (const auto& [body, weld] : weld_of_) {
    if (body != 0 && !tree.body(body).collisions.empty()) {
      by_weld[weld].push_back(body);
    }
  }
  for (auto& [weld, bodies] : by_weld) std::sort(bodies.begin(), bodies.end());
  std::set<std::pair<std::string, std::string>> listed;
  for (const MjcfContactExclude& x : model->contact_excludes) {
    listed.insert(std::minmax(x.body1, x.body2));
  }
  auto exclude = [&](int a, int b) {
    const std::string &na = tree.body(a).name, &nb = tree.body(b).name;
    if (listed.insert(std::minmax(na, nb)).second) {
      model->contact_excludes.push_back({na, nb});
    }
  };
  for (const auto& [weld, bodies] : by_weld) {
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      for (std::size_t j = i + 1; j < bodies.size(); ++j) {
        exclude(bodies[i], bodies[j]);
      }
    }
    const int parent = weld_parent_of_.at(weld);
    const auto it = by_weld.find(parent);
    if (weld == 0 || parent == 0 || it == by_weld.end()) continue;
    for (int a : bodies) {
      for (int b : it->second) exclude(b, a);
    }
  }
}

MjcfModel Parser::Parse(const std::string& xml) {
  auto doc = std::make_unique<XMLDocument>();
  if (doc->Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    throw MjcfError(file_, doc->ErrorLineNum(), "XML",
                    fmt::format("malformed XML: {}", doc->ErrorStr()));
  }
  doc_file_[doc.get()] = file_;
  docs_.push_back(std::move(doc));
  const XMLElement* root = docs_.back()->RootElement();
  if (root == nullptr || !Is(root, "mujoco")) {
    throw MjcfError(file_, root ? root->GetLineNum() : 1,
                    root ? Describe(root) : "document",
                    "the root element must be <mujoco>");
  }
  const char* model_name = root->Attribute("model");
  MjcfModel model;
  model.tree = RigidBodyTree<double>(model_name ? model_name : "mjcf");
  const std::vector<const XMLElement*> sections = Children(root);
  // Compiler settings and defaults first: they apply to what comes before
  // them in the file too.
  for (const XMLElement* s : sections) {
    if (Is(s, "compiler")) ParseCompiler(s);
  }
  classes_["main"];
  for (const XMLElement* s : sections) {
    if (Is(s, "default")) ParseDefault(s, classes_["main"], true);
  }
  for (const XMLElement* s : sections) {
    if (Is(s, "option")) ParseOption(s, &model);
    if (Is(s, "asset")) ParseAsset(s);
  }
  const DefaultClass* main = &classes_["main"];
  for (const XMLElement* s : sections) {
    if (!Is(s, "worldbody")) continue;
    for (const XMLElement* c : Children(s)) {
      if (Is(c, "body")) {
        ParseBody(c, 0, main, true, &model.tree);
      } else if (Is(c, "geom")) {
        GeomResult g = ParseGeom(c, ClassOf(c, main));
        if (g.has_shape) {
          model.tree.AddVisual(0, g.geometry);
          if (g.collides) model.tree.AddCollision(0, g.geometry);
        }
      } else if (Is(c, "site")) {
        AddSite(c, ClassOf(c, main), 0, "world", &model.tree);
      } else if (Is(c, "camera") || Is(c, "light")) {
        // Rendering only.
      } else {
        Unsupported(c, fmt::format("<{}> in <worldbody> is not supported; "
                                   "left out",
                                   c->Name()));
      }
    }
  }
  for (const XMLElement* s : sections) {
    const std::string k = s->Name();
    if (k == "actuator") {
      ParseActuators(s, &model);
    } else if (k == "sensor") {
      ParseSensors(s, &model);
    } else if (k == "contact") {
      ParseContact(s, &model);
    } else if (k == "equality") {
      ParseEquality(s, &model);
    } else if (k == "compiler" || k == "default" || k == "option" ||
               k == "asset" || k == "worldbody" || k == "visual" ||
               k == "statistic" || k == "size") {
      // Handled above, or rendering and memory settings.
    } else if (k == "tendon" || k == "keyframe" || k == "custom" ||
               k == "extension" || k == "deformable") {
      Unsupported(s, fmt::format("<{}> is not modelled by Tern; left out", k));
    } else {
      Unsupported(s, fmt::format("unknown element <{}>; ignored", k));
    }
  }
  model.tree.set_gravity(model.gravity);
  AddImplicitExcludes(&model);
  model.springs = std::move(springs_);
  model.qpos0 = Eigen::Map<const VectorX<double>>(
      qpos0_.data(), static_cast<Eigen::Index>(qpos0_.size()));
  if (options_.check_mass_matrix) {
    std::string why;
    const int singular = FindSingularMassMatrixJoint(model.tree, &why);
    if (singular > 0) {
      throw MjcfError(file_, root->GetLineNum(), Describe(root), why);
    }
  }
  model.warnings = std::move(warnings_);
  return model;
}

}  // namespace

MjcfModel ParseMjcfFile(const std::string& path,
                        const MjcfParseOptions& options) {
  std::string xml, error;
  if (!ReadModelFileText(path, &xml, &error)) {
    throw MjcfError(path, 0, "file", error);
  }
  const std::string dir = fs::path(path).parent_path().string();
  Parser parser(options, path, dir.empty() ? "." : dir);
  MjcfModel model = parser.Parse(xml);
  if (parser.settotalmass_ > 0 && model.tree.total_mass() > 0) {
    Parser again(options, path, dir.empty() ? "." : dir);
    again.mass_scale_ = parser.settotalmass_ / model.tree.total_mass();
    return again.Parse(xml);
  }
  return model;
}

MjcfModel ParseMjcfString(const std::string& xml,
                          const MjcfParseOptions& options,
                          const std::string& source_name,
                          const std::string& base_dir) {
  Parser parser(options, source_name, base_dir);
  MjcfModel model = parser.Parse(xml);
  if (parser.settotalmass_ > 0 && model.tree.total_mass() > 0) {
    Parser again(options, source_name, base_dir);
    again.mass_scale_ = parser.settotalmass_ / model.tree.total_mass();
    return again.Parse(xml);
  }
  return model;
}

std::vector<EqualityConstraintSpec> ResolveMjcfEqualities(
    const RigidBodyTree<double>& tree,
    const std::vector<MjcfEquality>& equalities, const VectorX<double>& qpos0,
    const std::string& source_name) {
  std::vector<EqualityConstraintSpec> out;
  if (equalities.empty()) return out;
  // Poses in qpos0, where MuJoCo takes what the file leaves implicit.
  KinematicsCache<double> cache(tree, /*with_mass_matrix=*/false);
  ForwardKinematics(tree, &cache,
                    qpos0.size() == tree.num_positions()
                        ? qpos0
                        : tree.GetZeroConfiguration());
  for (const MjcfEquality& e : equalities) {
    if (!e.active) continue;
    for (const std::string& b : {e.body1, e.body2}) {
      if (!tree.HasBody(b)) {
        throw MjcfError(source_name, e.line, "equality '" + e.name + "'",
                        fmt::format("body '{}' does not exist", b));
      }
    }
    const RigidTransform<double>& X_W1 =
        cache.X_WB[tree.FindBodyIndex(e.body1)];
    const RigidTransform<double>& X_W2 =
        cache.X_WB[tree.FindBodyIndex(e.body2)];
    EqualityConstraintSpec c;
    c.name = e.name;
    c.body1 = e.body1;
    c.body2 = e.body2;
    if (e.type == MjcfEquality::Type::kConnect) {
      c.type = EqualityConstraintSpec::Type::kPoint;
      c.X_1F.p = e.anchor;
      c.X_2G.p = X_W2.inverse() * (X_W1 * e.anchor);
    } else {
      c.type = EqualityConstraintSpec::Type::kWeld;
      const RigidTransform<double> X_12 =
          e.has_relpose ? e.relpose : X_W1.inverse() * X_W2;
      // G at the anchor in body 2, F the same frame in body 1.
      c.X_2G.p = e.anchor;
      c.X_1F = X_12 * c.X_2G;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<EqualityConstraintSpec> ResolveMjcfEqualities(
    const MjcfModel& model) {
  return ResolveMjcfEqualities(model.tree, model.equalities, model.qpos0);
}

}  // namespace tern
