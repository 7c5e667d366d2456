#include "tern/multibody/parsing/sdf_parser.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numbers>
#include <set>
#include <sstream>
#include <string_view>

#include "tern/math/rotation.h"
#include "tern/multibody/parsing/mesh_reader.h"

#ifdef TERN_HAVE_SDFORMAT
#include <tinyxml2.h>

#include <sdf/Box.hh>
#include <sdf/Capsule.hh>
#include <sdf/Collision.hh>
#include <sdf/Cylinder.hh>
#include <sdf/Element.hh>
#include <sdf/Ellipsoid.hh>
#include <sdf/Error.hh>
#include <sdf/Geometry.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Light.hh>
#include <sdf/Link.hh>
#include <sdf/Material.hh>
#include <sdf/Mesh.hh>
#include <sdf/Model.hh>
#include <sdf/ParserConfig.hh>
#include <sdf/Plane.hh>
#include <sdf/Root.hh>
#include <sdf/Sphere.hh>
#include <sdf/Types.hh>
#include <sdf/Visual.hh>
#include <sdf/World.hh>
#endif

namespace tern {

namespace fs = std::filesystem;

std::string FindSdfStockModelsDir() {
  std::error_code ec;
  auto holds_stock = [&ec](const std::string& d) {
    return !d.empty() &&
           fs::is_regular_file(fs::path(d) / "sun" / "model.sdf", ec) &&
           fs::is_regular_file(fs::path(d) / "ground_plane" / "model.sdf", ec);
  };
  if (const char* env = std::getenv("TERN_SDF_STOCK_DIR")) {
    return holds_stock(env) ? fs::path(env).lexically_normal().string()
                            : std::string();
  }
#ifdef TERN_SDF_STOCK_SOURCE_DIR
  // A build tree uses the models of its own sources.
  if (holds_stock(TERN_SDF_STOCK_SOURCE_DIR)) return TERN_SDF_STOCK_SOURCE_DIR;
#endif
#ifdef TERN_SDF_STOCK_INSTALL_DIR
  if (holds_stock(TERN_SDF_STOCK_INSTALL_DIR))
    return TERN_SDF_STOCK_INSTALL_DIR;
#endif
  return std::string();
}

#ifndef TERN_HAVE_SDFORMAT

bool SdfSupported() { return false; }

SdfModel ParseSdfFile(const std::string& path, const SdfParseOptions&) {
  throw SdfError(path, 0, "file",
                 "this Tern was built without libsdformat (install "
                 "libsdformat-dev and reconfigure)");
}

SdfModel ParseSdfString(const std::string&, const SdfParseOptions&,
                        const std::string& source_name) {
  return ParseSdfFile(source_name);
}

#else

bool SdfSupported() { return true; }

namespace {

RigidTransform<double> ToTern(const ignition::math::Pose3d& X) {
  const auto& q = X.Rot();
  Vector4<double> quat(q.W(), q.X(), q.Y(), q.Z());
  quat.normalize();
  return RigidTransform<double>(
      QuaternionToRotationMatrix(quat),
      Vector3<double>(X.Pos().X(), X.Pos().Y(), X.Pos().Z()));
}

bool IsIdentity(const RigidTransform<double>& X) {
  return (X.R - Matrix3<double>::Identity()).cwiseAbs().maxCoeff() < 1e-15 &&
         X.p.cwiseAbs().maxCoeff() < 1e-15;
}

class Converter {
 public:
  Converter(const SdfParseOptions& options, std::string file)
      : options_(options),
        file_(std::move(file)),
        packages_(options.packages) {}

  SdfModel Convert(const sdf::Root& root);

 private:
  struct LinkInfo {
    const sdf::Link* link;
    std::string name;             // scoped, as the tree names the body
    RigidTransform<double> X_WL;  // at the written configuration
    bool is_static{false};
  };
  struct JointInfo {
    const sdf::Joint* joint;
    std::string name;
    std::string parent;  // scoped link name, or "world"
    std::string child;
    RigidTransform<double> X_WJ;
  };

  template <typename E>
  [[noreturn]] void Fail(const E& e, const std::string& what,
                         const std::string& msg) const {
    const sdf::ElementPtr el = e.Element();
    int line = 0;
    std::string file = file_;
    if (el) {
      line = el->LineNumber().value_or(0);
      if (!el->FilePath().empty()) file = el->FilePath();
    }
    throw SdfError(file, line, what, msg);
  }
  template <typename E>
  void Warn(const E& e, const std::string& what, const std::string& msg) {
    const sdf::ElementPtr el = e.Element();
    int line = 0;
    std::string file = file_;
    if (el) {
      line = el->LineNumber().value_or(0);
      if (!el->FilePath().empty()) file = el->FilePath();
    }
    warnings_.push_back(ModelWarning{file, line, what, msg});
  }
  // What Tern does not model: a warning, or an error in strict mode.
  void Unsupported(const ModelWarning& w) {
    if (options_.strict) {
      throw SdfError(w.file, w.line, w.element,
                     w.message + " (SdfParseOptions::strict)");
    }
    warnings_.push_back(w);
  }
  template <typename E>
  void Unsupported(const E& e, const std::string& what,
                   const std::string& msg) {
    const sdf::ElementPtr el = e.Element();
    ModelWarning w{file_, 0, what, msg};
    if (el) {
      w.line = el->LineNumber().value_or(0);
      if (!el->FilePath().empty()) w.file = el->FilePath();
    }
    Unsupported(w);
  }
  // Names in a warning (Unsupported) each element written in the file
  // below `e` that the mapping does not read and that carries a meaning (a
  // value off its default, or an element such as <plugin> that always
  // does). `joint_type` is the enclosing joint's type attribute.
  void ReportUnread(const sdf::ElementPtr& e, const std::string& what,
                    const std::string& joint_type);

  void Collect(const sdf::Model& model, const RigidTransform<double>& X_WM,
               const std::string& prefix, bool is_static);
  // Folds the warnings of one element kind in one file into the first (a world
  // of 100 boxes says "<bounce>" once).
  void FoldRepeatedWarnings();
  void Build(RigidBodyTree<double>* tree, std::vector<double>* q0);
  SpatialInertia<double> Inertia(const LinkInfo& l) const;
  void AddGeometry(const LinkInfo& l, int body, RigidBodyTree<double>* tree);
  bool ConvertGeometry(const sdf::Geometry& g, const std::string& what,
                       const sdf::Collision* c, const sdf::Visual* v,
                       bool collision, BodyGeometry* out);

  const SdfParseOptions& options_;
  std::string file_;
  PackageMap packages_;
  std::vector<ModelWarning> warnings_;
  std::vector<ModelWarning> unread_;  // ReportUnread's, before folding
  std::vector<JointSpringSpec> springs_;
  std::vector<LinkInfo> links_;
  std::map<std::string, int> link_index_;
  std::vector<JointInfo> joints_;
};

// The children the mapping reads, by parent element name; the walk
// (ReportUnread) descends only into these. An element read as a whole
// (heightmap, polyline: ConvertGeometry warns about them) is not listed.
const std::map<std::string_view, std::set<std::string_view> >& ReadChildren() {
  static const auto* read =
      new std::map<std::string_view, std::set<std::string_view> >{
          {"sdf", {"world", "model"}},
          // <light>s are named by Convert's own warning.
          {"world", {"model", "gravity", "frame", "light"}},
          {"model", {"static", "pose", "link", "joint", "model", "frame"}},
          {"frame", {"pose"}},
          {"link", {"pose", "inertial", "collision", "visual"}},
          {"inertial", {"pose", "mass", "inertia"}},
          {"inertia", {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}},
          {"collision", {"pose", "geometry", "surface"}},
          {"surface", {"friction"}},
          {"friction", {"ode"}},
          {"ode", {"mu"}},
          {"visual", {"pose", "geometry", "material"}},
          {"material", {"diffuse"}},
          {"geometry",
           {"box", "sphere", "cylinder", "capsule", "ellipsoid", "plane",
            "mesh", "heightmap", "polyline", "image", "empty"}},
          {"box", {"size"}},
          {"sphere", {"radius"}},
          {"cylinder", {"radius", "length"}},
          {"capsule", {"radius", "length"}},
          {"ellipsoid", {"radii"}},
          {"plane", {"normal", "size"}},
          {"mesh", {"uri", "scale"}},
          {"joint", {"parent", "child", "pose", "axis"}},
          {"axis", {"xyz", "limit", "dynamics", "use_parent_model_frame"}},
          {"limit", {"lower", "upper", "effort", "velocity"}},
          {"dynamics",
           {"damping", "friction", "spring_stiffness", "spring_reference"}},
      };
  return *read;
}

// Elements that matter whatever they hold.
bool AlwaysMeaningful(std::string_view tag) {
  static const std::set<std::string_view> kTags = {
      "plugin",       "actor",      "gripper",
      "sensor",       "projector",  "particle_emitter",
      "audio_source", "audio_sink", "battery",
      "population",   "road",       "light"};
  return kTags.count(tag) > 0;
}

// Elements that only change how a model looks: named in a warning, but not
// errors in strict mode (as MJCF's <visual>, <camera> and <light>).
bool RenderingOnly(std::string_view parent, std::string_view tag) {
  static const std::set<std::string_view> kWorld = {"scene", "gui", "light"};
  static const std::set<std::string_view> kVisual = {
      "cast_shadows", "transparency", "laser_retro", "meta",
      "visibility_flags"};
  return (parent == "world" && kWorld.count(tag)) ||
         (parent == "link" && tag == "light") ||
         (parent == "visual" && kVisual.count(tag)) || parent == "material";
}

// "<tag name='n'>", or "<tag>" when e has no name.
std::string Describe(const sdf::ElementPtr& e) {
  if (e->HasAttribute("name")) {
    const std::string name = e->GetAttribute("name")->GetAsString();
    if (!name.empty() && name != "__default__") {
      return fmt::format("<{} name='{}'>", e->GetName(), name);
    }
  }
  return fmt::format("<{}>", e->GetName());
}

// True when a value differs from its default. GetAsString gives the text
// as written, so values are compared as booleans or numbers ("0" equals
// "0.0", "1 0 0" equals "1.0 0 0").
bool NotDefault(const sdf::ParamPtr& p) {
  const sdf::ParamPtr def = p->Clone();
  def->Reset();
  if (p->GetTypeName() == "bool") {
    bool x = false, y = false;
    return p->Get(x) && def->Get(y) && x != y;
  }
  const std::string a = p->GetAsString(), b = def->GetAsString();
  std::vector<double> x, y;
  std::string bad;
  if (ParseNumberList(a.c_str(), &x, &bad) &&
      ParseNumberList(b.c_str(), &y, &bad) && !x.empty()) {
    return x != y;
  }
  return a != b;
}

// The values written in e and below it that differ from their defaults
// ("linear 0.1"), at most a few.
void NonDefaultValues(const sdf::ElementPtr& e, const std::string& path,
                      std::vector<std::string>* out) {
  if (!e->GetExplicitlySetInFile()) return;
  for (const sdf::ParamPtr& a : e->GetAttributes()) {
    if (a->GetKey() != "name" && a->GetSet() && NotDefault(a)) {
      out->push_back(fmt::format("{}{}='{}'", path.empty() ? "" : path + " ",
                                 a->GetKey(), a->GetAsString()));
    }
  }
  if (const sdf::ParamPtr v = e->GetValue(); v && NotDefault(v)) {
    out->push_back(
        fmt::format("{}{}", path.empty() ? "" : path + " ", v->GetAsString()));
  }
  for (sdf::ElementPtr c = e->GetFirstElement(); c; c = c->GetNextElement()) {
    NonDefaultValues(c, path.empty() ? c->GetName() : path + "/" + c->GetName(),
                     out);
  }
}

void Converter::ReportUnread(const sdf::ElementPtr& e, const std::string& what,
                             const std::string& joint_type) {
  const auto read = ReadChildren().find(e->GetName());
  if (read == ReadChildren().end()) return;
  for (sdf::ElementPtr c = e->GetFirstElement(); c; c = c->GetNextElement()) {
    if (!c->GetExplicitlySetInFile()) continue;  // a default libsdformat adds
    const std::string& tag = c->GetName();
    ModelWarning w;
    w.file = c->FilePath().empty() ? file_ : c->FilePath();
    w.line = c->LineNumber().value_or(e->LineNumber().value_or(0));
    w.element = what + "/" + Describe(c);
    if (!e->HasElementDescription(tag)) {
      // Not an SDFormat element: libsdformat reports those without a
      // namespace (Load routes its message); a custom element
      // (<ns:element>, SDFormat's extension mechanism) is named here.
      if (tag.find(':') != std::string::npos) {
        w.message = "custom element not read by Tern; ignored";
        Unsupported(w);
      }
      continue;
    }
    const bool axis_unread =
        tag == "axis" && e->GetName() == "joint" && joint_type != "revolute" &&
        joint_type != "continuous" && joint_type != "prismatic";
    if (read->second.count(tag) && !axis_unread) {
      std::string type = joint_type;
      if (tag == "joint" && c->HasAttribute("type")) {
        type = c->GetAttribute("type")->GetAsString();
      }
      const bool named = c->HasAttribute("name");
      ReportUnread(c, named ? Describe(c) : w.element, type);
      continue;
    }
    std::vector<std::string> values;
    NonDefaultValues(c, "", &values);
    if (values.empty() && !AlwaysMeaningful(tag)) continue;
    if (tag == "plugin") {
      w.message = "not run (Tern runs no Gazebo plugins)";
    } else if (tag == "sensor") {
      w.message = "not read (Tern's sensors are systems of their own)";
    } else if (axis_unread) {
      w.message = fmt::format("not read on a {} joint; ignored", joint_type);
    } else {
      w.message = "not modelled by Tern; ignored";
    }
    if (!values.empty() && tag != "plugin" && tag != "sensor") {
      constexpr std::size_t kShown = 4;
      const std::size_t n = std::min(values.size(), kShown);
      w.message +=
          fmt::format(" ({}{})",
                      fmt::join(values.begin(),
                                values.begin() + static_cast<long>(n), ", "),
                      values.size() > n ? ", ..." : "");
    }
    if (RenderingOnly(e->GetName(), tag)) {
      w.message += " (rendering only)";
    } else if (options_.strict) {
      Unsupported(w);  // throws
    }
    unread_.push_back(w);
  }
}

void Converter::FoldRepeatedWarnings() {
  // Key: the file and the element without its names ("<collision>/<surface>/
  // <bounce>").
  std::map<std::pair<std::string, std::string>, std::size_t> first;
  std::vector<std::vector<int> > more_lines(unread_.size());
  std::vector<ModelWarning> kept;
  std::vector<std::size_t> kept_of(unread_.size());
  for (std::size_t k = 0; k < unread_.size(); ++k) {
    const ModelWarning& w = unread_[k];
    std::string tag;
    for (std::size_t at = 0; at < w.element.size();) {
      const std::size_t name = w.element.find(" name='", at);
      if (name == std::string::npos) {
        tag += w.element.substr(at);
        break;
      }
      tag += w.element.substr(at, name - at);
      const std::size_t close = w.element.find('\'', name + 7);
      if (close == std::string::npos) break;
      at = close + 1;
    }
    auto [it, inserted] = first.emplace(std::make_pair(w.file, tag), k);
    if (inserted) {
      kept_of[k] = kept.size();
      kept.push_back(w);
    } else {
      more_lines[it->second].push_back(w.line);
    }
  }
  for (std::size_t k = 0; k < unread_.size(); ++k) {
    const std::vector<int>& lines = more_lines[k];
    if (lines.empty()) continue;
    constexpr std::size_t kShown = 5;
    const std::size_t n = std::min(lines.size(), kShown);
    kept[kept_of[k]].message += fmt::format(
        "; {} more in this file (lines {}{})", lines.size(),
        fmt::join(lines.begin(), lines.begin() + static_cast<long>(n), ", "),
        lines.size() > n ? ", ..." : "");
  }
  warnings_.insert(warnings_.end(), kept.begin(), kept.end());
  unread_.clear();
}

void Converter::Collect(const sdf::Model& model,
                        const RigidTransform<double>& X_WM,
                        const std::string& prefix, bool is_static) {
  is_static = is_static || model.Static();
  const std::string what_model = fmt::format("<model name='{}'>", model.Name());
  for (uint64_t i = 0; i < model.LinkCount(); ++i) {
    const sdf::Link* link = model.LinkByIndex(i);
    ignition::math::Pose3d X;
    const sdf::Errors errors = link->SemanticPose().Resolve(X, "__model__");
    if (!errors.empty()) {
      Fail(*link, fmt::format("<link name='{}'>", link->Name()),
           errors.front().Message());
    }
    LinkInfo info{link, prefix + link->Name(), X_WM * ToTern(X), is_static};
    link_index_[info.name] = static_cast<int>(links_.size());
    links_.push_back(info);
  }
  for (uint64_t i = 0; i < model.JointCount(); ++i) {
    const sdf::Joint* joint = model.JointByIndex(i);
    const std::string what = fmt::format("<joint name='{}'>", joint->Name());
    ignition::math::Pose3d X;
    const sdf::Errors errors = joint->SemanticPose().Resolve(X, "__model__");
    if (!errors.empty()) Fail(*joint, what, errors.front().Message());
    std::string parent, child;
    if (const sdf::Errors e = joint->ResolveParentLink(parent); !e.empty()) {
      Fail(*joint, what, e.front().Message());
    }
    if (const sdf::Errors e = joint->ResolveChildLink(child); !e.empty()) {
      Fail(*joint, what, e.front().Message());
    }
    joints_.push_back(JointInfo{joint, prefix + joint->Name(),
                                parent == "world" ? "world" : prefix + parent,
                                prefix + child, X_WM * ToTern(X)});
  }
  for (uint64_t i = 0; i < model.ModelCount(); ++i) {
    const sdf::Model* nested = model.ModelByIndex(i);
    ignition::math::Pose3d X;
    const sdf::Errors errors = nested->SemanticPose().Resolve(X, "__model__");
    if (!errors.empty()) Fail(*nested, what_model, errors.front().Message());
    Collect(*nested, X_WM * ToTern(X),
            prefix + nested->Name() + "::", is_static);
  }
}

SpatialInertia<double> Converter::Inertia(const LinkInfo& l) const {
  const ignition::math::Inertiald& in = l.link->Inertial();
  const double m = in.MassMatrix().Mass();
  const ignition::math::Matrix3d moi = in.Moi();  // about com, link axes
  Matrix3<double> I;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) I(r, c) = moi(r, c);
  }
  const auto& p = in.Pose().Pos();
  return SpatialInertia<double>::FromCom(
      m, Vector3<double>(p.X(), p.Y(), p.Z()), I);
}

bool Converter::ConvertGeometry(const sdf::Geometry& g, const std::string& what,
                                const sdf::Collision* c, const sdf::Visual* v,
                                bool collision, BodyGeometry* out) {
  auto warn = [&](const std::string& msg) {
    if (c) Warn(*c, what, msg);
    if (v) Warn(*v, what, msg);
  };
  auto unsupported = [&](const std::string& msg) {
    if (c) Unsupported(*c, what, msg);
    if (v) Unsupported(*v, what, msg);
  };
  switch (g.Type()) {
    case sdf::GeometryType::BOX: {
      const auto s = g.BoxShape()->Size();
      out->shape = BodyGeometry::Shape::kBox;
      out->box_size = Vector3<double>(s.X(), s.Y(), s.Z());
      return true;
    }
    case sdf::GeometryType::SPHERE:
      out->shape = BodyGeometry::Shape::kSphere;
      out->radius = g.SphereShape()->Radius();
      return true;
    case sdf::GeometryType::CYLINDER:
      out->shape = BodyGeometry::Shape::kCylinder;
      out->radius = g.CylinderShape()->Radius();
      out->length = g.CylinderShape()->Length();
      return true;
    case sdf::GeometryType::CAPSULE:
      out->shape = BodyGeometry::Shape::kCapsule;
      out->radius = g.CapsuleShape()->Radius();
      out->length = g.CapsuleShape()->Length();
      return true;
    case sdf::GeometryType::MESH: {
      const sdf::Mesh* mesh = g.MeshShape();
      out->shape = BodyGeometry::Shape::kMesh;
      out->mesh_uri = mesh->Uri();
      const auto s = mesh->Scale();
      out->mesh_scale = Vector3<double>(s.X(), s.Y(), s.Z());
      const std::string dir =
          fs::path(mesh->FilePath().empty() ? file_ : mesh->FilePath())
              .parent_path()
              .string();
      try {
        out->mesh_path =
            packages_.Resolve(out->mesh_uri, dir.empty() ? "." : dir);
      } catch (const PackageError& e) {
        const std::string msg = std::string("mesh ") + e.what();
        if (options_.require_meshes) {
          if (c) Fail(*c, what, msg);
          if (v) Fail(*v, what, msg);
        }
        warn(msg);
        return false;
      }
      if (collision && options_.load_collision_meshes) {
        try {
          out->mesh = ReadMeshFile(out->mesh_path, out->mesh_scale);
        } catch (const std::runtime_error& e) {
          Fail(*c, what, e.what());
        }
      }
      return true;
    }
    case sdf::GeometryType::ELLIPSOID: {
      const auto r = g.EllipsoidShape()->Radii();
      out->shape = BodyGeometry::Shape::kEllipsoid;
      out->radii = Vector3<double>(r.X(), r.Y(), r.Z());
      return true;
    }
    case sdf::GeometryType::PLANE: {
      // The half-space behind the plane: G's z along the normal (its size
      // only draws it). AddGeometry keeps it on static links only.
      const auto n = g.PlaneShape()->Normal();
      Vector3<double> z(n.X(), n.Y(), n.Z());
      if (!(z.norm() > 0)) {
        if (c) Fail(*c, what, "plane normal is zero");
        if (v) Fail(*v, what, "plane normal is zero");
      }
      z.normalize();
      // The rotation taking e_z to z (about e_z x z; a half turn about x
      // when z = -e_z).
      const Vector3<double> axis = Vector3<double>::UnitZ().cross(z);
      const double s = axis.norm(), cth = z.z();
      Matrix3<double> R = Matrix3<double>::Identity();
      if (s > 1e-12) {
        R = Eigen::AngleAxisd(std::atan2(s, cth), axis / s).toRotationMatrix();
      } else if (cth < 0) {
        R = Eigen::AngleAxisd(std::numbers::pi, Vector3<double>::UnitX())
                .toRotationMatrix();
      }
      out->shape = BodyGeometry::Shape::kPlane;
      out->X_BG.R = out->X_BG.R * R;
      return true;
    }
    default:
      unsupported(
          "geometry other than box, sphere, cylinder, capsule, ellipsoid, "
          "plane and mesh (heightmap, polyline) is not in Tern's geometry "
          "layer; left out");
      return false;
  }
}

void Converter::AddGeometry(const LinkInfo& l, int body,
                            RigidBodyTree<double>* tree) {
  const sdf::Link& link = *l.link;
  for (uint64_t i = 0; i < link.CollisionCount(); ++i) {
    const sdf::Collision* c = link.CollisionByIndex(i);
    const std::string what = fmt::format("<collision name='{}'>", c->Name());
    BodyGeometry g;
    g.name = c->Name();
    g.source_file = file_;
    g.source_line = c->Element() ? c->Element()->LineNumber().value_or(0) : 0;
    ignition::math::Pose3d X;
    if (const sdf::Errors e = c->SemanticPose().Resolve(X); !e.empty()) {
      Fail(*c, what, e.front().Message());
    }
    g.X_BG = ToTern(X);
    if (!ConvertGeometry(*c->Geom(), what, c, nullptr, true, &g)) continue;
    // <surface><friction><ode><mu>, as Gazebo reads it.
    if (sdf::ElementPtr e = c->Element(); e && e->HasElement("surface")) {
      sdf::ElementPtr s = e->GetElement("surface");
      if (s->HasElement("friction")) {
        sdf::ElementPtr f = s->GetElement("friction");
        if (f->HasElement("ode")) {
          sdf::ElementPtr o = f->GetElement("ode");
          if (o->HasElement("mu")) {
            g.contact.mu = o->Get<double>("mu");
            g.contact.has_mu = true;
          }
        }
      }
    }
    if (g.shape == BodyGeometry::Shape::kPlane) {
      // A plane is static scenery: on the world body, at the link's pose.
      if (!l.is_static) {
        Unsupported(
            *c, what,
            fmt::format("plane on link '{}', which can move, left out "
                        "(Tern's planes are static: put it in a <static> "
                        "model)",
                        l.name));
        continue;
      }
      g.X_BG = l.X_WL * g.X_BG;
      tree->AddCollision(0, g);
      continue;
    }
    tree->AddCollision(body, g);
  }
  for (uint64_t i = 0; i < link.VisualCount(); ++i) {
    const sdf::Visual* v = link.VisualByIndex(i);
    const std::string what = fmt::format("<visual name='{}'>", v->Name());
    BodyGeometry g;
    g.name = v->Name();
    g.source_file = file_;
    ignition::math::Pose3d X;
    if (const sdf::Errors e = v->SemanticPose().Resolve(X); !e.empty()) {
      Fail(*v, what, e.front().Message());
    }
    g.X_BG = ToTern(X);
    if (!ConvertGeometry(*v->Geom(), what, nullptr, v, false, &g)) continue;
    if (const sdf::Material* mat = v->Material();
        mat && mat->Element() && mat->Element()->HasElement("diffuse") &&
        mat->Element()->GetElement("diffuse")->GetExplicitlySetInFile()) {
      const ignition::math::Color d = mat->Diffuse();
      g.material.rgba = Vector4<double>(d.R(), d.G(), d.B(), d.A());
      g.material.has_rgba = true;
    }
    if (g.shape == BodyGeometry::Shape::kPlane) {
      Warn(*v, what, "plane visual not drawn (the report draws the ground)");
      continue;
    }
    tree->AddVisual(body, g);
  }
}

void Converter::Build(RigidBodyTree<double>* tree, std::vector<double>* q0) {
  std::map<std::string, std::vector<int> > children;  // parent -> joints
  std::set<std::string> moved;
  for (std::size_t k = 0; k < joints_.size(); ++k) {
    const JointInfo& j = joints_[k];
    const std::string what = fmt::format("<joint name='{}'>", j.joint->Name());
    if (j.parent != "world" && !link_index_.count(j.parent)) {
      Fail(*j.joint, what, fmt::format("parent '{}' is not a link", j.parent));
    }
    if (!link_index_.count(j.child)) {
      Fail(*j.joint, what, fmt::format("child '{}' is not a link", j.child));
    }
    if (!moved.insert(j.child).second) {
      Fail(*j.joint, what,
           fmt::format("link '{}' is the child of two joints (a loop; Tern's "
                       "tree cannot close it)",
                       j.child));
    }
    children[j.parent].push_back(static_cast<int>(k));
  }
  std::map<std::string, int> body_of;
  body_of["world"] = 0;
  auto add_body = [&](const LinkInfo& l, int parent, const Joint<double>& j,
                      const SpatialInertia<double>& M) {
    try {
      return tree->AddBody(l.name, parent, j, M);
    } catch (const std::invalid_argument& e) {
      Fail(*l.link, fmt::format("<link name='{}'>", l.link->Name()), e.what());
    }
  };
  std::vector<std::string> stack;
  // Roots: links no joint moves, floating (welded if static), then
  // children of the world.
  for (const LinkInfo& l : links_) {
    if (moved.count(l.name)) continue;
    Joint<double> j;
    j.name = l.name + ".root";
    if (l.is_static) {
      j.type = JointType::kFixed;
      j.X_PJ = l.X_WL;
    } else {
      j.type = JointType::kFloating;
      for (int k = 0; k < 3; ++k) q0->push_back(l.X_WL.p(k));
      const Vector4<double> quat = RotationMatrixToQuaternion(l.X_WL.R);
      for (int k = 0; k < 4; ++k) q0->push_back(quat(k));
    }
    const int b = add_body(l, 0, j, Inertia(l));
    body_of[l.name] = b;
    AddGeometry(l, b, tree);
    stack.push_back(l.name);
  }
  stack.push_back("world");
  // Depth-first, so a parent precedes its children.
  while (!stack.empty()) {
    const std::string parent = stack.back();
    stack.pop_back();
    auto it = children.find(parent);
    if (it == children.end()) continue;
    for (auto jt = it->second.rbegin(); jt != it->second.rend(); ++jt) {
      const JointInfo& ji = joints_[*jt];
      const sdf::Joint& sj = *ji.joint;
      const std::string what = fmt::format("<joint name='{}'>", sj.Name());
      const LinkInfo& child = links_[link_index_.at(ji.child)];
      const RigidTransform<double> X_WP =
          parent == "world" ? RigidTransform<double>()
                            : links_[link_index_.at(parent)].X_WL;
      Joint<double> j;
      j.name = ji.name;
      switch (sj.Type()) {
        case sdf::JointType::REVOLUTE:
        case sdf::JointType::CONTINUOUS:
          j.type = JointType::kRevolute;
          break;
        case sdf::JointType::PRISMATIC:
          j.type = JointType::kPrismatic;
          break;
        case sdf::JointType::BALL:
          j.type = JointType::kBall;
          break;
        case sdf::JointType::FIXED:
          j.type = JointType::kFixed;
          break;
        default:
          Fail(sj, what,
               "joint type (revolute2, universal, screw, gearbox) is not in "
               "Tern's tree; model it as two revolute joints");
      }
      j.X_PJ = X_WP.inverse() * ji.X_WJ;
      if (const sdf::JointAxis* axis = sj.Axis(0);
          axis &&
          (j.type == JointType::kRevolute || j.type == JointType::kPrismatic)) {
        ignition::math::Vector3d xyz;
        if (const sdf::Errors e = axis->ResolveXyz(xyz); !e.empty()) {
          Fail(sj, what, e.front().Message());
        }
        j.axis = Vector3<double>(xyz.X(), xyz.Y(), xyz.Z());
        if (!(j.axis.norm() > 1e-12)) Fail(sj, what, "zero joint axis");
        j.axis.normalize();
        j.damping = axis->Damping();
        j.friction = axis->Friction();
        if (sj.Type() != sdf::JointType::CONTINUOUS && axis->Lower() > -1e15) {
          j.position_lower = axis->Lower();
        }
        if (sj.Type() != sdf::JointType::CONTINUOUS && axis->Upper() < 1e15) {
          j.position_upper = axis->Upper();
        }
        if (axis->Effort() >= 0) j.effort_limit = axis->Effort();
        if (axis->MaxVelocity() >= 0) j.velocity_limit = axis->MaxVelocity();
        if (!(axis->SpringStiffness() >= 0) ||
            !std::isfinite(axis->SpringStiffness()) ||
            !std::isfinite(axis->SpringReference())) {
          Fail(sj, what,
               fmt::format("<spring_stiffness> {} and <spring_reference> {}: "
                           "need a finite stiffness >= 0",
                           axis->SpringStiffness(), axis->SpringReference()));
        }
        if (axis->SpringStiffness() != 0) {
          // A plant element, not tree: kept as MJCF's joint stiffness is
          // (mjcf_elements.h's MakeJointSprings applies both).
          springs_.push_back(JointSpringSpec{j.name, axis->SpringStiffness(),
                                             axis->SpringReference()});
        }
      }
      for (int k = 0; k < JointNumPositions(j.type); ++k) {
        q0->push_back(j.type == JointType::kBall && k == 0 ? 1.0 : 0.0);
      }
      const RigidTransform<double> X_JL = ji.X_WJ.inverse() * child.X_WL;
      int b = 0;
      if (IsIdentity(X_JL)) {
        b = add_body(child, body_of.at(parent), j, Inertia(child));
      } else {
        // The joint frame is off the link origin: a massless body at the
        // joint, the link welded to it.
        LinkInfo at_joint = child;
        at_joint.name = child.name + "." + sj.Name();
        const int jb =
            add_body(at_joint, body_of.at(parent), j, SpatialInertia<double>());
        Joint<double> weld;
        weld.name = child.name + ".weld";
        weld.type = JointType::kFixed;
        weld.X_PJ = X_JL;
        b = add_body(child, jb, weld, Inertia(child));
      }
      body_of[child.name] = b;
      AddGeometry(child, b, tree);
      stack.push_back(child.name);
    }
  }
}

SdfModel Converter::Convert(const sdf::Root& root) {
  SdfModel out;
  std::vector<double> q0;
  if (const sdf::Model* model = root.Model()) {
    out.tree = RigidBodyTree<double>(model->Name());
    Collect(*model, ToTern(model->RawPose()), "", false);
  } else if (root.WorldCount() > 0) {
    const sdf::World* world = root.WorldByIndex(0);
    out.tree = RigidBodyTree<double>(world->Name());
    const auto g = world->Gravity();
    out.tree.set_gravity(Vector3<double>(g.X(), g.Y(), g.Z()));
    const bool prefix = world->ModelCount() > 1;
    for (uint64_t i = 0; i < world->ModelCount(); ++i) {
      const sdf::Model* model = world->ModelByIndex(i);
      ignition::math::Pose3d X;
      if (const sdf::Errors e = model->SemanticPose().Resolve(X, "world");
          !e.empty()) {
        Fail(*model, fmt::format("<model name='{}'>", model->Name()),
             e.front().Message());
      }
      Collect(*model, ToTern(X), prefix ? model->Name() + "::" : "", false);
    }
    if (world->LightCount() > 0) {
      warnings_.push_back(ModelWarning{
          file_, 0, fmt::format("<world name='{}'>", world->Name()),
          fmt::format("{} <light>(s) not read (rendering only)",
                      world->LightCount())});
    }
    if (root.WorldCount() > 1) {
      Unsupported(
          ModelWarning{file_, 0, "<sdf>", "only the first <world> is read"});
    }
  } else {
    throw SdfError(file_, 0, "<sdf>", "no <model> and no <world>");
  }
  if (const sdf::ElementPtr e = root.Element()) {
    ReportUnread(e, "<sdf>", "");
    FoldRepeatedWarnings();
  }
  Build(&out.tree, &q0);
  if (options_.check_mass_matrix) {
    std::string why;
    const int singular = FindSingularMassMatrixJoint(out.tree, &why);
    if (singular > 0) throw SdfError(file_, 0, "<model>", why);
  }
  out.q0 = Eigen::Map<const VectorX<double> >(
      q0.data(), static_cast<Eigen::Index>(q0.size()));
  out.warnings = std::move(warnings_);
  out.springs = std::move(springs_);
  return out;
}

// The ':'-separated folders of environment variable `var`.
std::vector<std::string> EnvironmentPaths(const char* var) {
  std::vector<std::string> out;
  const char* value = std::getenv(var);
  if (!value) return out;
  const std::string s(value);
  std::size_t begin = 0;
  while (begin <= s.size()) {
    std::size_t end = s.find(':', begin);
    if (end == std::string::npos) end = s.size();
    if (end > begin) out.push_back(s.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// Resolves model://<name>/<rest> against `folders` (each holding model
// folders by name, as Gazebo's model paths do); "" if none has it.
std::string FindInModelPaths(const std::string& uri,
                             const std::vector<std::string>& folders) {
  static constexpr std::string_view kScheme = "model://";
  if (uri.rfind(kScheme, 0) != 0) return std::string();
  const std::string rel = uri.substr(kScheme.size());
  if (rel.empty()) return std::string();
  for (const std::string& folder : folders) {
    std::error_code ec;
    const fs::path p = fs::path(folder) / rel;
    if (fs::exists(p, ec)) return p.lexically_normal().string();
  }
  return std::string();
}

// The model a model:// uri names ("sun" for model://sun or
// model://sun/model.sdf), or "" for other uris.
std::string ModelName(const std::string& uri) {
  static constexpr std::string_view kScheme = "model://";
  if (uri.rfind(kScheme, 0) != 0) return std::string();
  const std::string rest = uri.substr(kScheme.size());
  return rest.substr(0, rest.find('/'));
}

// The stock model a uri names, or "" if it names none of kSdfStockModels.
std::string StockModelName(const std::string& uri) {
  const std::string name = ModelName(uri);
  for (const char* stock : kSdfStockModels) {
    if (name == stock) return name;
  }
  return std::string();
}

// The 1-based line of `text` where `needle` first occurs, or 0.
int LineOf(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

// `text` is the file's contents (for the lines of warnings).
SdfModel Load(
    const std::string& file, const std::string& text,
    const SdfParseOptions& options,
    const std::function<sdf::Errors(sdf::Root*, const sdf::ParserConfig&)>&
        load) {
  // libsdformat prints an XML error on stderr and returns "Unable to read
  // file" with no line: read the XML first for a message with the line.
  if (tinyxml2::XMLDocument doc;
      doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    throw SdfError(file, doc.ErrorLineNum(), "XML",
                   fmt::format("malformed XML: {}", doc.ErrorStr()));
  }
  sdf::ParserConfig config;
  // An element SDFormat does not define comes back in the errors (with its
  // file and line) instead of being copied silently; Load makes it a
  // warning, or an error in strict mode.
  config.SetUnrecognizedElementsPolicy(sdf::EnforcementPolicy::ERR);
  const std::string dir = fs::path(file).parent_path().string();
  const PackageMap packages = options.packages;
  // libsdformat itself tries SDF_PATH before this callback. Gazebo's model
  // paths come next, then Tern's stand-ins for Gazebo's stock models.
  std::vector<std::string> model_paths;
  for (const char* var : kSdfModelPathVariables) {
    for (std::string& p : EnvironmentPaths(var)) {
      model_paths.push_back(std::move(p));
    }
  }
  const std::string stock_dir =
      options.use_stock_models ? FindSdfStockModelsDir() : std::string();
  auto stock_used = std::make_shared<std::set<std::string> >();
  config.SetFindCallback([packages, dir, model_paths, stock_dir,
                          stock_used](const std::string& uri) {
    try {
      return packages.Resolve(uri, dir.empty() ? "." : dir);
    } catch (const PackageError&) {
    }
    // An <include> names a model's folder (model://<name>), which
    // PackageMap::Resolve, made for files, does not return.
    if (const std::string name = ModelName(uri);
        !name.empty() && packages.Contains(name)) {
      std::string rel =
          uri.substr(std::string_view("model://").size() + name.size());
      if (!rel.empty()) rel.erase(0, 1);  // the '/' after the name
      std::error_code ec;
      const fs::path p = fs::path(packages.GetPath(name)) / rel;
      if (fs::exists(p, ec)) return p.lexically_normal().string();
    }
    if (std::string found = FindInModelPaths(uri, model_paths);
        !found.empty()) {
      return found;
    }
    const std::string stock = StockModelName(uri);
    if (stock.empty() || stock_dir.empty()) return std::string();
    std::string found = FindInModelPaths(uri, {stock_dir});
    if (!found.empty()) stock_used->insert(stock);
    return found;
  });
  sdf::Root root;
  sdf::Errors errors = load(&root, config);
  std::vector<ModelWarning> unknown;
  for (auto it = errors.begin(); it != errors.end();) {
    if (it->Message().find("not defined in SDF") == std::string::npos) {
      ++it;
      continue;
    }
    // "XML Element[wibble], child of element[link], not defined in SDF.
    // Copying[wibble] as children of [link]."
    const std::string& m = it->Message();
    const std::size_t open = m.find('[');
    const std::string tag =
        open == std::string::npos
            ? std::string("element")
            : m.substr(open + 1, m.find(']', open) - open - 1);
    std::string at = it->FilePath().value_or(file);
    if (at == sdf::kSdfStringSource) at = file;  // ParseSdfString's text
    ModelWarning w{at, it->LineNumber().value_or(0), fmt::format("<{}>", tag),
                   fmt::format("not an SDFormat element ({}); ignored",
                               it->XmlPath().value_or(m))};
    if (options.strict) {
      throw SdfError(w.file, w.line, w.element,
                     w.message + " (SdfParseOptions::strict)");
    }
    unknown.push_back(std::move(w));
    it = errors.erase(it);
  }
  if (!errors.empty()) {
    const sdf::Error& e = errors.front();
    std::string hint;
    if (options.use_stock_models && stock_dir.empty()) {
      for (const char* stock : kSdfStockModels) {
        if (e.Message().find(fmt::format("[model://{}]", stock)) !=
            std::string::npos) {
          hint = fmt::format(
              "; Tern's stand-in for it was not found either (set "
              "TERN_SDF_STOCK_DIR to a folder holding {}/, as Tern's "
              "models/sdf_stock or an install's share/tern/sdf_stock)",
              stock);
        }
      }
    }
    throw SdfError(e.FilePath().value_or(file), e.LineNumber().value_or(0),
                   e.XmlPath().value_or("<sdf>"),
                   e.Message() + hint +
                       (errors.size() > 1 ? fmt::format(" (and {} more errors)",
                                                        errors.size() - 1)
                                          : std::string()));
  }
  Converter converter(options, file);
  SdfModel out = converter.Convert(root);
  std::vector<ModelWarning> notes;
  for (const std::string& stock : *stock_used) {
    notes.push_back(ModelWarning{
        file, LineOf(text, "model://" + stock),
        fmt::format("<include><uri>model://{}</uri>", stock),
        fmt::format("not found on the model paths (the package map, "
                    "SDF_PATH, {}): Tern's stand-in {}/{} used{}",
                    fmt::join(kSdfModelPathVariables, ", "), stock_dir, stock,
                    stock == "sun" ? " (a light: rendering only, not simulated)"
                                   : "")});
  }
  out.warnings.insert(out.warnings.begin(), notes.begin(), notes.end());
  out.warnings.insert(out.warnings.end(), unknown.begin(), unknown.end());
  return out;
}

}  // namespace

SdfModel ParseSdfFile(const std::string& path, const SdfParseOptions& options) {
  if (!fs::exists(path))
    throw SdfError(path, 0, "file", "cannot open the file");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return Load(path, text.str(), options,
              [&path](sdf::Root* root, const sdf::ParserConfig& config) {
                return root->Load(path, config);
              });
}

SdfModel ParseSdfString(const std::string& xml, const SdfParseOptions& options,
                        const std::string& source_name) {
  return Load(source_name, xml, options,
              [&xml](sdf::Root* root, const sdf::ParserConfig& config) {
                return root->LoadSdfString(xml, config);
              });
}

#endif  // TERN_HAVE_SDFORMAT

}  // namespace tern
