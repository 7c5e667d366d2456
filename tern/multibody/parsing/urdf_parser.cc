#include "tern/multibody/parsing/urdf_parser.h"

#include <fmt/format.h>
#include <tinyxml2.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tern/math/rotation.h"
#include "tern/multibody/parsing/mesh_reader.h"

namespace tern {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

const char* InertiaPolicyName(InertiaPolicy policy) {
  switch (policy) {
    case InertiaPolicy::kAccept:
      return "kAccept";
    case InertiaPolicy::kBalance:
      return "kBalance";
    case InertiaPolicy::kStrict:
      return "kStrict";
  }
  return "?";
}

const char* InertiaPolicyKey(InertiaPolicy policy) {
  switch (policy) {
    case InertiaPolicy::kAccept:
      return "accept";
    case InertiaPolicy::kBalance:
      return "balance";
    case InertiaPolicy::kStrict:
      return "strict";
  }
  return "?";
}

bool InertiaPolicyFromKey(const std::string& key, InertiaPolicy* policy) {
  for (InertiaPolicy p : {InertiaPolicy::kAccept, InertiaPolicy::kBalance,
                          InertiaPolicy::kStrict}) {
    if (key == InertiaPolicyKey(p)) {
      *policy = p;
      return true;
    }
  }
  return false;
}

namespace {

// Describes an element for messages: <joint name='elbow'>.
std::string Describe(const XMLElement* e) {
  const char* name = e->Attribute("name");
  if (name != nullptr) return fmt::format("<{} name='{}'>", e->Name(), name);
  return fmt::format("<{}>", e->Name());
}

class Parser {
 public:
  Parser(const UrdfParseOptions& options, std::string file, std::string dir)
      : options_(options),
        file_(std::move(file)),
        dir_(std::move(dir)),
        packages_(options.packages) {
    // The older options, folded in: explicit entries win over discovered
    // ones; a package_map folder that does not exist shows in messages.
    for (const auto& [name, folder] : options.package_map) {
      try {
        packages_.Add(name, folder);
      } catch (const PackageError&) {
        packages_.AddSearchPath(folder);
      }
    }
    for (const auto& sp : options.search_paths) packages_.AddSearchPath(sp);
  }

  UrdfModel Parse(const std::string& xml);

 private:
  [[noreturn]] void Fail(const XMLElement* e, const std::string& msg) const {
    throw UrdfError(file_, e->GetLineNum(), Describe(e), msg);
  }
  void Warn(const XMLElement* e, const std::string& msg) {
    warnings_.push_back(UrdfWarning{file_, e->GetLineNum(), Describe(e), msg});
  }
  void WarnUnsupportedChildren(const XMLElement* e,
                               std::initializer_list<const char*> known) {
    for (const XMLElement* c = e->FirstChildElement(); c != nullptr;
         c = c->NextSiblingElement()) {
      bool ok = false;
      for (const char* k : known) ok = ok || std::string(c->Name()) == k;
      if (!ok) {
        warnings_.push_back(UrdfWarning{
            file_, c->GetLineNum(), Describe(e) + "/" + Describe(c),
            fmt::format("unsupported element <{}> ignored", c->Name())});
      }
    }
  }

  const char* RequiredAttribute(const XMLElement* e, const char* name) const {
    const char* a = e->Attribute(name);
    if (a == nullptr) Fail(e, fmt::format("missing attribute '{}'", name));
    return a;
  }
  std::vector<double> Numbers(const XMLElement* e, const char* attr,
                              const char* text, int expected) const {
    std::vector<double> out;
    std::string bad;
    if (!ParseNumberList(text, &out, &bad)) {
      Fail(e, fmt::format("attribute '{}' has a bad number '{}'", attr, bad));
    }
    if (expected > 0 && static_cast<int>(out.size()) != expected) {
      Fail(e, fmt::format("attribute '{}' needs {} numbers, got '{}'", attr,
                          expected, text));
    }
    return out;
  }
  double Number(const XMLElement* e, const char* attr, double fallback,
                bool required = false) const {
    const char* a = e->Attribute(attr);
    if (a == nullptr) {
      if (required) Fail(e, fmt::format("missing attribute '{}'", attr));
      return fallback;
    }
    return Numbers(e, attr, a, 1)[0];
  }
  Vector3<double> Vec3(const XMLElement* e, const char* attr,
                       const Vector3<double>& fallback) const {
    const char* a = e->Attribute(attr);
    if (a == nullptr) return fallback;
    const auto v = Numbers(e, attr, a, 3);
    return Vector3<double>(v[0], v[1], v[2]);
  }
  RigidTransform<double> Origin(const XMLElement* parent) const {
    const XMLElement* o = parent->FirstChildElement("origin");
    if (o == nullptr) return RigidTransform<double>();
    return RigidTransform<double>(
        RollPitchYawToRotationMatrix(Vec3(o, "rpy", Vector3<double>::Zero())),
        Vec3(o, "xyz", Vector3<double>::Zero()));
  }

  Material ParseMaterial(const XMLElement* m) const;
  SpatialInertia<double> ParseInertial(const XMLElement* link);
  Matrix3<double> CheckInertia(const XMLElement* link, const XMLElement* e,
                               double m, const Matrix3<double>& I);
  BodyGeometry ParseGeometry(const XMLElement* g, bool visual);
  std::string ResolveMesh(const XMLElement* mesh, const std::string& uri);
  void ReadCollisionMesh(const XMLElement* mesh, BodyGeometry* g) const;
  void ParseContactCoefficients(const XMLElement* collision,
                                BodyGeometry* g) const;
  Joint<double> ParseJoint(const XMLElement* j);

  const UrdfParseOptions& options_;
  std::string file_;
  std::string dir_;
  std::vector<UrdfWarning> warnings_;
  std::map<std::string, Material> materials_;
  PackageMap packages_;
  bool discovered_{false};
};

Material Parser::ParseMaterial(const XMLElement* m) const {
  Material mat;
  if (const char* n = m->Attribute("name")) mat.name = n;
  if (const XMLElement* c = m->FirstChildElement("color")) {
    const auto v = Numbers(c, "rgba", RequiredAttribute(c, "rgba"), 4);
    mat.rgba = Vector4<double>(v[0], v[1], v[2], v[3]);
    mat.has_rgba = true;
  }
  if (const XMLElement* t = m->FirstChildElement("texture")) {
    if (const char* f = t->Attribute("filename")) mat.texture = f;
  }
  return mat;
}

SpatialInertia<double> Parser::ParseInertial(const XMLElement* link) {
  const XMLElement* in = link->FirstChildElement("inertial");
  if (in == nullptr) return SpatialInertia<double>();  // massless (spec)
  const XMLElement* mass = in->FirstChildElement("mass");
  if (mass == nullptr) Fail(in, "missing <mass>");
  const double m = Number(mass, "value", 0, true);
  if (m < 0) Fail(mass, fmt::format("negative mass {}", m));
  Matrix3<double> I = Matrix3<double>::Zero();
  if (const XMLElement* i = in->FirstChildElement("inertia")) {
    const double ixx = Number(i, "ixx", 0), iyy = Number(i, "iyy", 0),
                 izz = Number(i, "izz", 0), ixy = Number(i, "ixy", 0),
                 ixz = Number(i, "ixz", 0), iyz = Number(i, "iyz", 0);
    I << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
    I = CheckInertia(link, i, m, I);
  } else if (m > 0) {
    Fail(in, "missing <inertia>");
  }
  // The inertial frame: com at its origin, inertia in its axes.
  const RigidTransform<double> X_BI = Origin(in);
  const Matrix3<double> I_B = X_BI.R * I * X_BI.R.transpose();
  return SpatialInertia<double>::FromCom(m, X_BI.p, I_B);
}

// The inertia policy (InertiaPolicy in the header) on the principal moments
// A <= B <= C of the rotational inertia about the com.
Matrix3<double> Parser::CheckInertia(const XMLElement* link,
                                     const XMLElement* e, double m,
                                     const Matrix3<double>& I) {
  const std::string name = link->Attribute("name");
  const InertiaPolicy policy = options_.inertia;
  const Eigen::SelfAdjointEigenSolver<Matrix3<double>> eig(I);
  const Vector3<double> lambda = eig.eigenvalues();  // ascending
  const double C = lambda.cwiseAbs().maxCoeff();
  const std::string moments = fmt::format(
      "link '{}': principal moments of inertia {:.6g}, {:.6g}, {:.6g} kg·m^2",
      name, lambda(0), lambda(1), lambda(2));
  const std::string option =
      fmt::format("UrdfParseOptions::inertia = {}", InertiaPolicyName(policy));
  if (lambda(0) < -kInertiaRoundoff * C) {
    // No rigid body has a negative moment, and MuJoCo's balanceinertia
    // does not repair one either.
    Fail(e, fmt::format("{}: a negative moment is not a rigid body's "
                        "(beyond rounding, {}); fix the file",
                        moments, option));
  }
  if (m > 0 && !(lambda(0) > kInertiaRoundoff * C) &&
      policy == InertiaPolicy::kStrict) {
    Fail(e, fmt::format("{}: not positive definite for mass {} ({}; "
                        "kAccept takes moments within rounding of zero)",
                        moments, m, option));
  }
  if (!(C > 0)) return I;
  const Vector3<double> p = lambda.cwiseMax(0.0);  // rounding counts as zero
  const double excess = (p(2) - p(0) - p(1)) / C;
  if (!(excess > kInertiaRoundoff)) return I;
  const std::string broken =
      fmt::format("{} break the triangle inequality A + B >= C by {:.3g}% of C",
                  moments, 100 * excess);
  switch (policy) {
    case InertiaPolicy::kStrict:
      Fail(e, fmt::format("{} ({}; kAccept takes up to {}%, kBalance repairs)",
                          broken, option, 100 * kInertiaTriangleTolerance));
    case InertiaPolicy::kAccept:
      if (excess > kInertiaTriangleTolerance) {
        Fail(e, fmt::format("{}, more than the {}% that {} accepts; use "
                            "InertiaPolicy::kBalance to set them to their "
                            "mean, as MuJoCo's balanceinertia does (in a "
                            "scenario, the model's 'inertia: balance'; on "
                            "the command line, --inertia balance)",
                            broken, 100 * kInertiaTriangleTolerance, option));
      }
      Warn(e, fmt::format("{}: kept as written ({})", broken, option));
      return I;
    case InertiaPolicy::kBalance: {
      const double mean = lambda.sum() / 3;
      Warn(e, fmt::format("{}: all three set to their mean {:.6g} ({})", broken,
                          mean, option));
      return mean * Matrix3<double>::Identity();
    }
  }
  return I;
}

std::string Parser::ResolveMesh(const XMLElement* mesh,
                                const std::string& uri) {
  std::string msg;
  try {
    return packages_.Resolve(uri, dir_);
  } catch (const PackageError& e) {
    msg = e.what();
  }
  // A package not known yet: discovery is done once, on the first miss, so
  // a file whose packages are all given never crawls anything.
  if (options_.discover_packages && !discovered_) {
    discovered_ = true;
    packages_.PopulateUpstream(dir_);
    packages_.PopulateFromEnvironment("ROS_PACKAGE_PATH");
    try {
      return packages_.Resolve(uri, dir_);
    } catch (const PackageError& e) {
      msg = e.what();
    }
  }
  msg = "mesh " + msg;
  if (options_.require_meshes) Fail(mesh, msg);
  Warn(mesh, msg);
  return "";
}

// Collision meshes are read at parse time, so that an unreadable file is
// reported with the URDF line that names it.
void Parser::ReadCollisionMesh(const XMLElement* mesh, BodyGeometry* g) const {
  if (g->mesh_path.empty() || !options_.load_collision_meshes) return;
  try {
    g->mesh = ReadMeshFile(g->mesh_path, g->mesh_scale);
  } catch (const std::runtime_error& e) {
    Fail(mesh, e.what());
  }
}

// <contact_coefficients mu kp kd> (ROS URDF tutorial "Adding physical and
// collision properties"); each value must be finite and >= 0.
void Parser::ParseContactCoefficients(const XMLElement* collision,
                                      BodyGeometry* g) const {
  const XMLElement* c = collision->FirstChildElement("contact_coefficients");
  if (c == nullptr) return;
  ContactCoefficients& cc = g->contact;
  cc.has_mu = c->Attribute("mu") != nullptr;
  cc.has_kp = c->Attribute("kp") != nullptr;
  cc.has_kd = c->Attribute("kd") != nullptr;
  cc.mu = Number(c, "mu", 0);
  cc.kp = Number(c, "kp", 0);
  cc.kd = Number(c, "kd", 0);
  if (cc.mu < 0 || cc.kp < 0 || cc.kd < 0) {
    Fail(c, "mu, kp and kd must be >= 0");
  }
}

BodyGeometry Parser::ParseGeometry(const XMLElement* g, bool visual) {
  BodyGeometry out;
  if (const char* n = g->Attribute("name")) out.name = n;
  out.source_file = file_;
  out.source_line = g->GetLineNum();
  out.X_BG = Origin(g);
  const XMLElement* geom = g->FirstChildElement("geometry");
  if (geom == nullptr) Fail(g, "missing <geometry>");
  const XMLElement* s = geom->FirstChildElement();
  if (s == nullptr) Fail(geom, "empty <geometry>");
  const std::string kind = s->Name();
  if (kind == "box") {
    out.shape = BodyGeometry::Shape::kBox;
    const auto v = Numbers(s, "size", RequiredAttribute(s, "size"), 3);
    out.box_size = Vector3<double>(v[0], v[1], v[2]);
  } else if (kind == "sphere") {
    out.shape = BodyGeometry::Shape::kSphere;
    out.radius = Number(s, "radius", 0, true);
  } else if (kind == "cylinder" || kind == "capsule") {
    out.shape = kind == "cylinder" ? BodyGeometry::Shape::kCylinder
                                   : BodyGeometry::Shape::kCapsule;
    out.radius = Number(s, "radius", 0, true);
    out.length = Number(s, "length", 0, true);
  } else if (kind == "mesh") {
    out.shape = BodyGeometry::Shape::kMesh;
    out.mesh_uri = RequiredAttribute(s, "filename");
    out.mesh_scale = Vec3(s, "scale", Vector3<double>::Ones());
    out.mesh_path = ResolveMesh(s, out.mesh_uri);
    if (!visual) ReadCollisionMesh(s, &out);
  } else {
    Fail(s, fmt::format("unknown geometry <{}>", kind));
  }
  if (visual) {
    if (const XMLElement* m = g->FirstChildElement("material")) {
      Material mat = ParseMaterial(m);
      auto it = materials_.find(mat.name);
      if (!mat.has_rgba && mat.texture.empty()) {
        if (it == materials_.end()) {
          // As DART and RViz do: the default colour, with a warning.
          Warn(m, fmt::format("material '{}' is not defined; default colour "
                              "used",
                              mat.name));
        } else {
          mat = it->second;
        }
      } else if (!mat.name.empty() && it == materials_.end()) {
        materials_[mat.name] = mat;
      }
      out.material = mat;
    }
    WarnUnsupportedChildren(g, {"origin", "geometry", "material"});
  } else {
    ParseContactCoefficients(g, &out);
    WarnUnsupportedChildren(g, {"origin", "geometry", "contact_coefficients"});
  }
  return out;
}

Joint<double> Parser::ParseJoint(const XMLElement* e) {
  Joint<double> j;
  j.name = e->Attribute("name");
  const std::string type = e->Attribute("type");
  if (type == "revolute" || type == "continuous") {
    j.type = JointType::kRevolute;
  } else if (type == "prismatic") {
    j.type = JointType::kPrismatic;
  } else if (type == "fixed") {
    j.type = JointType::kFixed;
  } else if (type == "floating") {
    j.type = JointType::kFloating;
  } else if (type == "planar") {
    j.type = JointType::kPlanar;
  } else if (type == "ball") {
    j.type = JointType::kBall;
  } else {
    Fail(e, fmt::format("unknown joint type '{}'", type));
  }
  j.X_PJ = Origin(e);
  if (const XMLElement* a = e->FirstChildElement("axis")) {
    j.axis = Vec3(a, "xyz", Vector3<double>::UnitX());
    if (j.type != JointType::kFixed && j.type != JointType::kFloating &&
        j.type != JointType::kBall && !(j.axis.norm() > 1e-12)) {
      Fail(a, "zero joint axis");
    }
  } else {
    j.axis = Vector3<double>::UnitX();  // URDF default
  }
  if (const XMLElement* l = e->FirstChildElement("limit")) {
    j.effort_limit = Number(l, "effort", j.effort_limit);
    j.velocity_limit = Number(l, "velocity", j.velocity_limit);
    if (type != "continuous") {
      j.position_lower = Number(l, "lower", 0);
      j.position_upper = Number(l, "upper", 0);
      if (j.position_lower > j.position_upper) {
        Fail(l, fmt::format("lower limit {} exceeds upper limit {}",
                            j.position_lower, j.position_upper));
      }
    }
  } else if (type == "revolute" || type == "prismatic") {
    Warn(e, "no <limit> (required by the URDF spec); treated as unlimited");
  }
  if (const XMLElement* d = e->FirstChildElement("dynamics")) {
    j.damping = Number(d, "damping", 0);
    j.friction = Number(d, "friction", 0);
    j.armature = Number(d, "armature", 0);
    if (j.damping < 0 || j.friction < 0 || j.armature < 0) {
      Fail(d, "damping, friction and armature must be >= 0");
    }
  }
  WarnUnsupportedChildren(
      e, {"origin", "parent", "child", "axis", "limit", "dynamics", "mimic"});
  return j;
}

UrdfModel Parser::Parse(const std::string& xml) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    throw UrdfError(file_, doc.ErrorLineNum(), "XML",
                    fmt::format("malformed XML: {}", doc.ErrorStr()));
  }
  const XMLElement* robot = doc.RootElement();
  if (robot == nullptr || std::string(robot->Name()) != "robot") {
    throw UrdfError(file_, robot ? robot->GetLineNum() : 1,
                    robot ? Describe(robot) : "document",
                    "the root element must be <robot>");
  }
  const char* robot_name = robot->Attribute("name");
  UrdfModel model{RigidBodyTree<double>(robot_name ? robot_name : "robot"), {}};

  // Robot-level materials first: visuals may refer to them by name.
  std::unordered_map<std::string, const XMLElement*> links;
  std::vector<const XMLElement*> link_order, joints;
  for (const XMLElement* e = robot->FirstChildElement(); e != nullptr;
       e = e->NextSiblingElement()) {
    const std::string kind = e->Name();
    if (kind == "material") {
      Material m = ParseMaterial(e);
      if (m.name.empty()) Fail(e, "a robot-level material needs a name");
      materials_[m.name] = m;
    } else if (kind == "link") {
      const std::string name = RequiredAttribute(e, "name");
      if (links.count(name)) Fail(e, fmt::format("duplicate link '{}'", name));
      links[name] = e;
      link_order.push_back(e);
    } else if (kind == "joint") {
      RequiredAttribute(e, "name");
      RequiredAttribute(e, "type");
      joints.push_back(e);
    } else {
      warnings_.push_back(
          UrdfWarning{file_, e->GetLineNum(), Describe(e),
                      fmt::format("unsupported element <{}> ignored", kind)});
    }
  }
  if (links.empty()) Fail(robot, "no <link>");

  // Topology before contents, so structural errors are reported first.
  std::unordered_map<std::string, const XMLElement*> joint_of_child;
  std::unordered_map<std::string, std::vector<const XMLElement*>> children;
  std::set<std::string> joint_names;
  for (const XMLElement* j : joints) {
    const std::string name = j->Attribute("name");
    if (!joint_names.insert(name).second) {
      Fail(j, fmt::format("duplicate joint '{}'", name));
    }
    const XMLElement* pe = j->FirstChildElement("parent");
    const XMLElement* ce = j->FirstChildElement("child");
    if (pe == nullptr) Fail(j, "missing <parent>");
    if (ce == nullptr) Fail(j, "missing <child>");
    const std::string parent = RequiredAttribute(pe, "link");
    const std::string child = RequiredAttribute(ce, "link");
    if (!links.count(parent)) {
      Fail(j, fmt::format("joint '{}' names parent link '{}', which does not "
                          "exist",
                          name, parent));
    }
    if (!links.count(child)) {
      Fail(j, fmt::format("joint '{}' names child link '{}', which does not "
                          "exist",
                          name, child));
    }
    if (joint_of_child.count(child)) {
      Fail(j,
           fmt::format("link '{}' is the child of two joints, '{}' and "
                       "'{}'",
                       child, joint_of_child[child]->Attribute("name"), name));
    }
    joint_of_child[child] = j;
    children[parent].push_back(j);
  }
  std::vector<const XMLElement*> roots;
  for (const XMLElement* l : link_order) {
    if (!joint_of_child.count(l->Attribute("name"))) roots.push_back(l);
  }
  if (roots.empty()) {
    Fail(joints.front(), "the joints form a cycle: every link has a parent");
  }
  if (roots.size() > 1) {
    Fail(roots[1],
         fmt::format("two root links, '{}' and '{}': a URDF is one "
                     "tree",
                     roots[0]->Attribute("name"), roots[1]->Attribute("name")));
  }
  const XMLElement* root = roots.front();
  const std::string root_name = root->Attribute("name");

  RigidBodyTree<double>& tree = model.tree;
  std::unordered_map<std::string, int> body_of_link;
  auto add_link_contents = [&](const XMLElement* link, int body) {
    for (const XMLElement* v = link->FirstChildElement("visual"); v != nullptr;
         v = v->NextSiblingElement("visual")) {
      tree.AddVisual(body, ParseGeometry(v, true));
    }
    for (const XMLElement* c = link->FirstChildElement("collision");
         c != nullptr; c = c->NextSiblingElement("collision")) {
      tree.AddCollision(body, ParseGeometry(c, false));
    }
    WarnUnsupportedChildren(link, {"inertial", "visual", "collision"});
    if (const XMLElement* in = link->FirstChildElement("inertial")) {
      WarnUnsupportedChildren(in, {"origin", "mass", "inertia"});
    }
  };
  auto add_body = [&](const XMLElement* link, int parent,
                      const Joint<double>& joint) {
    const std::string name = link->Attribute("name");
    const SpatialInertia<double> M = ParseInertial(link);
    int body = 0;
    try {
      body = tree.AddBody(name, parent, joint, M);
    } catch (const std::invalid_argument& e) {
      Fail(link, e.what());
    }
    body_of_link[name] = body;
    add_link_contents(link, body);
  };
  if (root_name == "world") {
    body_of_link["world"] = 0;
    if (options_.floating_base) {
      Warn(root, "root link is 'world'; floating_base option ignored");
    }
    if (root->FirstChildElement("inertial") != nullptr) {
      Warn(root, "inertial of link 'world' ignored");
    }
    add_link_contents(root, 0);
  } else {
    Joint<double> j;
    j.type = options_.floating_base ? JointType::kFloating : JointType::kFixed;
    j.name = options_.floating_base ? options_.floating_joint_name
                                    : "world_to_" + root_name;
    // The automatic joint must not take a name the file uses (a joint name,
    // or a link name, which scenarios and frames address alike).
    const std::string wanted = j.name;
    for (int k = 1; joint_names.count(j.name) || links.count(j.name); ++k) {
      j.name = fmt::format("{}_{}", wanted, k);
    }
    if (j.name != wanted) {
      Warn(root, fmt::format("the file already uses the name '{}'; the joint "
                             "that attaches root link '{}' to the world is "
                             "named '{}'",
                             wanted, root_name, j.name));
    }
    add_body(root, 0, j);
  }
  // Depth-first from the root, children in document order, so every parent
  // precedes its children and each chain is contiguous. An explicit stack of
  // (link, next child joint) replaces recursion, so a chain of any length
  // loads on any thread stack.
  std::vector<std::pair<const XMLElement*, std::string>> mimics;
  std::vector<std::pair<std::string, std::size_t>> stack;
  stack.emplace_back(root_name, 0);
  while (!stack.empty()) {
    const std::string parent = stack.back().first;
    const std::size_t next = stack.back().second;
    auto it = children.find(parent);
    if (it == children.end() || next >= it->second.size()) {
      stack.pop_back();
      continue;
    }
    ++stack.back().second;
    const XMLElement* je = it->second[next];
    const std::string child = je->FirstChildElement("child")->Attribute("link");
    if (body_of_link.count(child)) {
      Fail(je, fmt::format("joint '{}' closes a cycle at link '{}'",
                           je->Attribute("name"), child));
    }
    const Joint<double> joint = ParseJoint(je);
    add_body(links[child], body_of_link.at(parent), joint);
    if (const XMLElement* m = je->FirstChildElement("mimic")) {
      mimics.emplace_back(m, joint.name);
    }
    stack.emplace_back(child, 0);
  }
  // Links not reached from the root hang on a cycle of joints.
  for (const XMLElement* l : link_order) {
    const std::string name = l->Attribute("name");
    if (!body_of_link.count(name)) {
      Fail(joint_of_child.at(name),
           fmt::format("joint '{}' is part of a cycle through link '{}'",
                       joint_of_child.at(name)->Attribute("name"), name));
    }
  }
  for (const auto& [m, follower] : mimics) {
    MimicConstraint mc;
    mc.joint = follower;
    mc.leader_joint = RequiredAttribute(m, "joint");
    // Harmless oddities of real files, which DART also skips: the constraint
    // is dropped, and the warning names it.
    if (!tree.HasJoint(mc.leader_joint)) {
      Warn(m, fmt::format("mimic joint '{}' follows '{}', which does not "
                          "exist; constraint ignored",
                          follower, mc.leader_joint));
      continue;
    }
    const int fb = tree.FindJointBodyIndex(follower);
    const int lb = tree.FindJointBodyIndex(mc.leader_joint);
    if (tree.body(fb).num_velocities != 1 ||
        tree.body(lb).num_velocities != 1) {
      const bool follower_bad = tree.body(fb).num_velocities != 1;
      Warn(m, fmt::format(
                  "mimic joint '{}' follows '{}', but {} joint '{}' has {} "
                  "degrees of freedom (a mimic needs 1 on both); constraint "
                  "ignored",
                  follower, mc.leader_joint,
                  JointTypeName(tree.body(follower_bad ? fb : lb).joint.type),
                  follower_bad ? follower : mc.leader_joint,
                  tree.body(follower_bad ? fb : lb).num_velocities));
      continue;
    }
    mc.body = tree.FindJointBodyIndex(follower);
    mc.leader_body = tree.FindJointBodyIndex(mc.leader_joint);
    mc.multiplier = Number(m, "multiplier", 1.0);
    mc.offset = Number(m, "offset", 0.0);
    tree.AddMimicConstraint(mc);
  }
  if (options_.check_mass_matrix) {
    std::string why;
    const int singular = FindSingularMassMatrixJoint(tree, &why);
    if (singular > 0) {
      const std::string& link = tree.body(singular).name;
      auto it = joint_of_child.find(link);
      Fail(it != joint_of_child.end() ? it->second : links.at(link), why);
    }
  }
  model.warnings = std::move(warnings_);
  return model;
}

}  // namespace

UrdfModel ParseUrdfFile(const std::string& path,
                        const UrdfParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UrdfError(path, 0, "file", "cannot open the file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string dir = fs::path(path).parent_path().string();
  Parser parser(options, path, dir.empty() ? "." : dir);
  return parser.Parse(ss.str());
}

UrdfModel ParseUrdfString(const std::string& xml,
                          const UrdfParseOptions& options,
                          const std::string& source_name,
                          const std::string& base_dir) {
  Parser parser(options, source_name, base_dir);
  return parser.Parse(xml);
}

}  // namespace tern
