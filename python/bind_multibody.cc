// Rigid bodies: URDF loading, RigidBodyTree, KinematicsCache and the
// kinematics and dynamics algorithms, with NumPy arrays in and out.
//
// Copies (docs/python.md): arguments are copied into Eigen vectors (a few
// doubles) and checked (size, finite: ValueError naming the argument); every
// result is a new array the caller owns.
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "python/bind_common.h"
#include "python/fast_call.h"
#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/parsing/model_file.h"
#include "tern/multibody/parsing/package_map.h"
#include "tern/multibody/parsing/srdf_parser.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/mjcf_elements.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/dynamics_derivatives.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern::python {
namespace {

using Tree = RigidBodyTree<double>;
using Cache = KinematicsCache<double>;

// (num_bodies x 6) rows [torque; force] -> one spatial force per body.
std::optional<std::vector<SpatialForce<double>>> ExternalForces(
    const Tree& tree, const std::optional<Eigen::MatrixXd>& f_ext) {
  if (!f_ext) return std::nullopt;
  if (f_ext->rows() != tree.num_bodies() || f_ext->cols() != 6) {
    throw std::invalid_argument(fmt::format(
        "f_ext has shape ({}, {}) but tree '{}' needs ({}, 6): one spatial "
        "force [torque; force] per body, in the body frame",
        f_ext->rows(), f_ext->cols(), tree.name(), tree.num_bodies()));
  }
  std::vector<SpatialForce<double>> f(tree.num_bodies());
  for (int i = 0; i < tree.num_bodies(); ++i) f[i] = f_ext->row(i).transpose();
  return f;
}

const std::vector<SpatialForce<double>>* Ptr(
    const std::optional<std::vector<SpatialForce<double>>>& f) {
  return f ? &*f : nullptr;
}

// package_map= takes a dict {name: folder} (as before) or a PackageMap.
using Packages = std::variant<std::map<std::string, std::string>, PackageMap>;

UrdfParseOptions Options(bool floating_base, bool load_collision_meshes,
                         bool require_meshes, bool check_mass_matrix,
                         InertiaPolicy inertia, Packages packages,
                         std::vector<std::string> search_paths) {
  UrdfParseOptions o;
  o.floating_base = floating_base;
  o.load_collision_meshes = load_collision_meshes;
  o.require_meshes = require_meshes;
  o.check_mass_matrix = check_mass_matrix;
  o.inertia = inertia;
  if (auto* map = std::get_if<PackageMap>(&packages)) {
    o.packages = std::move(*map);
  } else {
    o.package_map = std::get<0>(std::move(packages));
  }
  o.search_paths = std::move(search_paths);
  return o;
}

// What a tree-sized argument needs ("nq = 7 of tree 'arm'"), formatted only
// when a check fails: on the hot path (forward_dynamics from Python) the
// three strings cost as much as the dynamics of a small arm.
struct Needs {
  Needs(const Tree& tree, const char* which_size)
      : t(&tree), which(which_size) {}
  std::string str() const {
    return fmt::format(
        "{} = {} of tree '{}'", which,
        which[1] == 'q' ? t->num_positions() : t->num_velocities(), t->name());
  }
  const Tree* t;
  const char* which;
};

// A new NumPy array holding a copy of x: one allocation, where returning an
// Eigen::VectorXd by value costs a heap vector, a capsule and the array.
py::array_t<double> NewArray(const Eigen::VectorXd& x) {
  py::array_t<double> a(x.size());
  std::copy_n(x.data(), x.size(), a.mutable_data());
  return a;
}

// A vector argument as NumPy hands it over: a float64 array passes as it is
// (a new reference, no copy) and anything else NumPy can convert (a list, an
// int array) is converted. pybind11's Eigen::VectorXd caster instead makes
// the vector, a second NumPy array viewing it and copies through NumPy's
// generic assignment: about 500 ns per argument, half of forward_dynamics
// on a 7-DoF arm.
using VectorArg = py::array_t<double, py::array::forcecast>;

// Copies a VectorArg into *x, a buffer reused across calls (no allocation
// once sized). Accepts a 1-D array and a single row or column, as the
// Eigen caster did; raises ValueError naming the argument otherwise.
const Eigen::VectorXd& Load(const char* fn, const char* argument,
                            const VectorArg& a, Eigen::VectorXd* x) {
  const py::ssize_t nd = a.ndim();
  if (nd < 1 || nd > 2 || (nd == 2 && a.shape(0) != 1 && a.shape(1) != 1)) {
    throw std::invalid_argument(
        fmt::format("{}: {} has {} dimensions ({} entries) but needs to be a "
                    "vector",
                    fn, argument, nd, a.size()));
  }
  const py::ssize_t n = a.size();
  // The stride of the one dimension that is not 1 (either for size 1).
  const py::ssize_t stride =
      (nd == 2 && a.shape(0) == 1) ? a.strides(1) : a.strides(0);
  x->resize(n);
  const char* p = reinterpret_cast<const char*>(a.data());
  if (stride == static_cast<py::ssize_t>(sizeof(double))) {
    std::memcpy(x->data(), p, sizeof(double) * n);
  } else {
    for (py::ssize_t i = 0; i < n; ++i) {
      std::memcpy(x->data() + i, p + i * stride, sizeof(double));
    }
  }
  return *x;
}

// Argument buffers of the calls that Load (one set per thread, reused).
struct Arguments {
  Eigen::VectorXd q, v, tau;  // (nq), (nv), (nv)
};
Arguments& Buffers() {
  thread_local Arguments a;
  return a;
}

// Load for a 1-D float64 NumPy array (fast_call.h); false for anything
// else, which goes through pybind11 and Load.
bool LoadFast(PyObject* o, Eigen::VectorXd* x) {
  const py::detail::PyArray_Proxy* a = AsFloat64Array(o);
  if (a == nullptr || a->nd != 1) return false;
  const py::ssize_t n = a->dimensions[0];
  const py::ssize_t stride = a->strides[0];
  x->resize(n);
  if (stride == static_cast<py::ssize_t>(sizeof(double))) {
    std::memcpy(x->data(), a->data, sizeof(double) * n);
  } else {
    for (py::ssize_t i = 0; i < n; ++i) {
      std::memcpy(x->data() + i, a->data + i * stride, sizeof(double));
    }
  }
  return true;
}

void CheckVector(const char* fn, const char* argument,
                 const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Index size,
                 const Needs& needs) {
  if (x.size() == size && x.allFinite()) return;
  python::CheckVector(fn, argument, x, size, needs.str());
}

void CheckQ(const char* fn, const Tree& t, const Eigen::VectorXd& q) {
  CheckVector(fn, "q", q, t.num_positions(), Needs(t, "nq"));
}

void CheckQV(const char* fn, const Tree& t, const Eigen::VectorXd& q,
             const Eigen::VectorXd& v) {
  CheckQ(fn, t, q);
  CheckVector(fn, "v", v, t.num_velocities(), Needs(t, "nv"));
}

using DerivCache = DynamicsDerivativesCache<double>;
struct InverseDynamicsDerivativesResult {
  Eigen::VectorXd tau;
  Eigen::MatrixXd dtau_dq, dtau_dv, M;
};
struct ForwardDynamicsDerivativesResult {
  Eigen::VectorXd vdot;
  Eigen::MatrixXd dvdot_dq, dvdot_dv, dvdot_dtau;
};

py::none None() { return py::none(); }

// forward_dynamics(tree, cache, q, v, tau[, None]) with float64 arrays
// (fast_call.h): the same checks and messages as the binding below.
PyObject* FastForwardDynamics(PyObject*, PyObject* const* args,
                              Py_ssize_t nargs) {
  if (nargs != 5 && !(nargs == 6 && args[5] == Py_None)) return kFallback;
  const Tree* t = Unwrap<Tree>(args[0]);
  Cache* c = Unwrap<Cache>(args[1]);
  Arguments& b = Buffers();
  if (t == nullptr || c == nullptr || !LoadFast(args[2], &b.q) ||
      !LoadFast(args[3], &b.v) || !LoadFast(args[4], &b.tau)) {
    return kFallback;
  }
  CheckQV("forward_dynamics", *t, b.q, b.v);
  CheckVector("forward_dynamics", "tau", b.tau, t->num_velocities(),
              Needs(*t, "nv"));
  const Eigen::VectorXd& vdot = ForwardDynamics(*t, c, b.q, b.v, b.tau);
  return NewVector(vdot.data(), vdot.size());
}

}  // namespace

void BindMultibody(py::module_& m) {
  // Base first: pybind11 tries the translators last registered first.
  auto& model_error = py::register_exception<ModelParseError>(
      m, "ModelParseError", PyExc_RuntimeError);
  model_error.doc() =
      "A bad model file (a RuntimeError), the base of UrdfError, MjcfError "
      "and SdfError: the message starts 'file:line:' and names the element.";
  py::register_exception<UrdfError>(m, "UrdfError", model_error.ptr()).doc() =
      "A bad URDF file (a ModelParseError): the message starts 'file:line:' "
      "and names the element.";
  py::register_exception<MjcfError>(m, "MjcfError", model_error.ptr()).doc() =
      "A bad MJCF file (a ModelParseError): the message starts 'file:line:' "
      "and names the element.";
  py::register_exception<SdfError>(m, "SdfError", model_error.ptr()).doc() =
      "A bad SDFormat file (a ModelParseError): the message names the file, "
      "the line where libsdformat gives one, and the element.";
  py::register_exception<PackageError>(m, "PackageError", PyExc_RuntimeError)
      .doc() =
      "An unresolved package:// or model:// URI (a RuntimeError) naming the "
      "URI, the package and the places searched.";

  py::class_<PackageMap>(
      m, "PackageMap",
      "Package name -> folder, for package://, model://, file:// and "
      "relative mesh file names (docs/multibody.md). Accepted as "
      "package_map= by parse_urdf_file and parse_urdf.")
      .def(py::init<>())
      .def("add", &PackageMap::Add, py::arg("name"), py::arg("dir"),
           "Maps a package to a folder; raises PackageError if it is not one.")
      .def("add_search_path", &PackageMap::AddSearchPath, py::arg("dir"),
           "Registers the package.xml packages below dir and dir's subfolders "
           "by folder name.")
      .def("populate_from_environment", &PackageMap::PopulateFromEnvironment,
           py::arg("var") = "ROS_PACKAGE_PATH",
           "Calls add_search_path for each ':'-separated folder in environment "
           "variable `var`.")
      .def("populate_upstream", &PackageMap::PopulateUpstream, py::arg("path"),
           "Registers package.xml files in path's folder and those above.")
      .def("contains", &PackageMap::Contains, py::arg("name"),
           "Whether package `name` is known.")
      .def("__contains__", &PackageMap::Contains, py::arg("name"))
      .def("get_path", &PackageMap::GetPath, py::arg("name"),
           "The package's folder; raises PackageError naming it.")
      .def("get_package_names", &PackageMap::GetPackageNames,
           "The known package names (list of str).")
      .def("__len__", &PackageMap::size)
      .def("resolve", &PackageMap::Resolve, py::arg("uri"),
           py::arg("base_dir") = ".",
           "Absolute path of an existing file; raises PackageError naming the "
           "uri, the package and every place searched.");

  py::enum_<JointType>(m, "JointType", "Type of a joint to the parent body.")
      .value("kFixed", JointType::kFixed)
      .value("kRevolute", JointType::kRevolute)
      .value("kPrismatic", JointType::kPrismatic)
      .value("kFloating", JointType::kFloating)
      .value("kBall", JointType::kBall)
      .value("kPlanar", JointType::kPlanar);

  py::class_<RigidTransform<double>>(
      m, "RigidTransform",
      "Pose of frame B in frame A: x_A = R x_B + p (R: 3x3 rotation, p: "
      "translation in m).")
      .def(py::init<>(), "The identity pose (R = I, p = 0).")
      .def(py::init([](const Eigen::Matrix3d& R, const Eigen::Vector3d& p) {
             RigidTransform<double> X;
             X.R = R;
             X.p = p;
             return X;
           }),
           py::arg("R"), py::arg("p"),
           "A pose from a rotation R (3, 3) and a translation p (3,), m.")
      .def_readwrite("R", &RigidTransform<double>::R,
                     "Rotation R_AB of B in A, a (3, 3) array.")
      .def_readwrite("p", &RigidTransform<double>::p,
                     "Translation p_AB of B's origin in A, (3,), m.")
      .def(
          "matrix",
          [](const RigidTransform<double>& X) {
            Eigen::Matrix4d M = Eigen::Matrix4d::Identity();
            M.topLeftCorner<3, 3>() = X.R;
            M.topRightCorner<3, 1>() = X.p;
            return M;
          },
          "The (4, 4) homogeneous matrix [R p; 0 1] (a copy).")
      .def("inverse", &RigidTransform<double>::inverse,
           "The inverse pose X_BA of X_AB (a new RigidTransform).")
      .def(
          "__mul__",
          [](const RigidTransform<double>& a, const RigidTransform<double>& b) {
            return a * b;
          },
          "Composition X_AB * X_BC = X_AC.")
      .def("__repr__", [](const RigidTransform<double>& X) {
        return fmt::format("RigidTransform(p=[{}, {}, {}])", X.p[0], X.p[1],
                           X.p[2]);
      });

  py::class_<Joint<double>>(m, "Joint",
                            "A joint of a body to its parent body (read-only): "
                            "type, frame, axis, limits and the dof parameters.")
      .def_readonly("name", &Joint<double>::name,
                    "Joint name (str), as in the URDF.")
      .def_readonly("type", &Joint<double>::type,
                    "The kind of joint, a JointType.")
      .def_readonly(
          "X_PJ", &Joint<double>::X_PJ,
          "Pose X_PJ of the joint frame J in the parent body (RigidTransform).")
      .def_readonly(
          "axis", &Joint<double>::axis,
          "Unit axis (3,) of a revolute, prismatic or planar joint, in J.")
      .def_readonly("position_lower", &Joint<double>::position_lower,
                    "Lower position limit of a revolute or prismatic joint, "
                    "rad or m (-inf when absent).")
      .def_readonly("position_upper", &Joint<double>::position_upper,
                    "Upper position limit of a revolute or prismatic joint, "
                    "rad or m (inf when absent).")
      .def_readonly("velocity_limit", &Joint<double>::velocity_limit,
                    "Velocity limit of a revolute or prismatic joint, rad/s or "
                    "m/s (inf when absent).")
      .def_readonly("effort_limit", &Joint<double>::effort_limit,
                    "Effort limit of a revolute or prismatic joint, N m or N "
                    "(inf when absent).")
      .def_readonly("damping", &Joint<double>::damping,
                    "Viscous damping b per dof, N m s/rad or N s/m: adds b v "
                    "to the bias term.")
      .def_readonly("friction", &Joint<double>::friction,
                    "Coulomb friction per dof, N m or N: used by the plant, "
                    "not the tree's algorithms.")
      .def_readonly("armature", &Joint<double>::armature,
                    "Rotor inertia per dof reflected through the gear, kg m^2 "
                    "or kg: added to the mass matrix diagonal.");

  py::class_<RigidBody<double>>(m, "RigidBody",
                                "A body of a RigidBodyTree (read-only).")
      .def_readonly("name", &RigidBody<double>::name,
                    "The body's (link's) name, as in the model file (str).")
      .def_readonly("parent", &RigidBody<double>::parent,
                    "Parent body index (-1 for the world).")
      .def_readonly("joint", &RigidBody<double>::joint,
                    "The body's joint to its parent body (a Joint).")
      .def_readonly("position_start", &RigidBody<double>::position_start,
                    "Index in q of the first position coordinate of the body's "
                    "joint (int).")
      .def_readonly("velocity_start", &RigidBody<double>::velocity_start,
                    "Index in v of the first velocity coordinate of the body's "
                    "joint (int).")
      .def_readonly("num_positions", &RigidBody<double>::num_positions,
                    "Number of position coordinates of its joint (int).")
      .def_readonly("num_velocities", &RigidBody<double>::num_velocities,
                    "Number of velocity coordinates of its joint (int).")
      .def_property_readonly(
          "mass", [](const RigidBody<double>& b) { return b.inertia.m; },
          "Mass of the body, kg (float); 0 for the world.")
      .def_property_readonly(
          "com",
          [](const RigidBody<double>& b) -> Eigen::Vector3d {
            return b.inertia.m > 0 ? Eigen::Vector3d(b.inertia.h / b.inertia.m)
                                   : Eigen::Vector3d::Zero();
          },
          "Center of mass (3,) in the body frame, m (zero for a massless "
          "body).")
      .def_property_readonly(
          "spatial_inertia",
          [](const RigidBody<double>& b) { return b.inertia.ToMatrix(); },
          "Spatial inertia (6, 6) about the body origin, in the body frame (a "
          "copy).");

  py::class_<Tree>(m, "RigidBodyTree",
                   "The immutable model of a tree of rigid bodies (body 0 is "
                   "the world). Load one with parse_urdf / parse_urdf_file.")
      .def_property_readonly(
          "name", &Tree::name,
          "The tree's (robot's) name, from the model file (str).")
      .def("num_bodies", &Tree::num_bodies,
           "Number of bodies, the world (body 0) included (int).")
      .def("num_positions", &Tree::num_positions,
           "Number of position coordinates nq: the size of q (int).")
      .def("num_velocities", &Tree::num_velocities,
           "Number of velocities nv: the size of v, vdot and tau (int).")
      .def("num_frames", &Tree::num_frames,
           "Number of named frames, one per body included (int).")
      .def("body", &Tree::body, py::arg("index"),
           py::return_value_policy::reference_internal,
           "The body with index `index` (0 is the world), a RigidBody.")
      .def(
          "frame_name", [](const Tree& t, int i) { return t.frame(i).name; },
          py::arg("index"), "The name of frame `index` (str).")
      .def(
          "frame_body", [](const Tree& t, int i) { return t.frame(i).body; },
          py::arg("index"), "Body that frame `index` is fixed in.")
      .def_property(
          "gravity", [](const Tree& t) { return Eigen::Vector3d(t.gravity()); },
          [](Tree& t, const Eigen::Vector3d& g) { t.set_gravity(g); },
          "Gravity in world, m/s^2 (a copy; assign to change).")
      .def("total_mass", &Tree::total_mass,
           "Total mass of the bodies, kg (float).")
      .def("find_body_index", &Tree::FindBodyIndex, py::arg("name"),
           "The index of the body with this name; raises ValueError naming it "
           "if missing.")
      .def("find_joint_body_index", &Tree::FindJointBodyIndex,
           py::arg("joint_name"),
           "The index of the body whose joint to its parent has this name; "
           "raises ValueError naming it if missing.")
      .def("find_frame_index", &Tree::FindFrameIndex, py::arg("name"),
           "The index of the frame with this name (every body has a frame of "
           "its own name); raises ValueError naming it if missing.")
      .def("has_body", &Tree::HasBody, py::arg("name"),
           "Whether the tree has a body of this name (bool).")
      .def("has_joint", &Tree::HasJoint, py::arg("name"),
           "Whether the tree has a joint of this name (bool).")
      .def("get_zero_configuration", &Tree::GetZeroConfiguration,
           "The zero configuration q (nq,): identity quaternions and every "
           "other coordinate 0 (a new array).")
      .def("get_position_names", &Tree::GetPositionNames,
           "Names of the nq position coordinates in q order, e.g. 'shoulder', "
           "'base_qw' (list of str).")
      .def("get_velocity_names", &Tree::GetVelocityNames,
           "Names of the nv velocities in v order, e.g. 'shoulder', 'base_wx' "
           "(list of str).");

  py::class_<Cache>(m, "KinematicsCache",
                    "Preallocated workspace of the rigid-body algorithms for "
                    "one tree (one per thread). Results are overwritten by "
                    "each algorithm call.")
      .def(py::init<const Tree&>(), py::arg("tree"),
           "A workspace sized for `tree`; use it only with that tree.")
      .def_readonly("num_bodies", &Cache::num_bodies,
                    "Bodies of the tree it was made for (int).")
      .def_readonly("num_positions", &Cache::num_positions,
                    "Number of positions nq of the tree it was made for (int).")
      .def_readonly(
          "num_velocities", &Cache::num_velocities,
          "Number of velocities nv of the tree it was made for (int).")
      .def(
          "X_WB", [](const Cache& c, int i) { return c.X_WB.at(i); },
          py::arg("body"),
          "Pose X_WB of body index `body` in world (a RigidTransform copy; "
          "needs forward_kinematics).")
      .def(
          "X_PB", [](const Cache& c, int i) { return c.X_PB.at(i); },
          py::arg("body"),
          "Pose X_PB of body index `body` in its parent (a RigidTransform "
          "copy; needs forward_kinematics).")
      .def(
          "V", [](const Cache& c, int i) { return Vector6<double>(c.V.at(i)); },
          py::arg("body"),
          "Spatial velocity [w; v] (6,) of body index `body` in its own frame "
          "(needs forward_kinematics with v).")
      .def(
          "A", [](const Cache& c, int i) { return Vector6<double>(c.A.at(i)); },
          py::arg("body"),
          "Spatial acceleration (6,) of body index `body` in its own frame, "
          "gravity not included (needs forward_kinematics with vdot).");

  py::class_<UrdfModel>(
      m, "UrdfModel",
      "A parsed URDF file: the RigidBodyTree and the parser's warnings.")
      .def_readonly("tree", &UrdfModel::tree,
                    "The RigidBodyTree parsed from the file.")
      .def_property_readonly(
          "warnings",
          [](const UrdfModel& u) {
            std::vector<std::string> w;
            for (const UrdfWarning& x : u.warnings) w.push_back(x.ToString());
            return w;
          },
          "Warnings about ignored elements, as 'file:line: element: msg'.");

  py::enum_<InertiaPolicy>(
      m, "InertiaPolicy",
      "What the URDF parser does with inertias that real files have "
      "(docs/multibody.md): accept within tolerance (default), balance as "
      "MuJoCo's balanceinertia, or strict.")
      .value("kAccept", InertiaPolicy::kAccept)
      .value("kBalance", InertiaPolicy::kBalance)
      .value("kStrict", InertiaPolicy::kStrict);
  m.def("parse_srdf_disabled_collisions", &ParseSrdfDisabledCollisions,
        py::arg("path"),
        "The (link1, link2) pairs of an SRDF file's <disable_collisions>, in "
        "document order: pass them to GeometryModel.exclude_body_pairs.");

  m.def(
      "parse_urdf_file",
      [](const std::string& path, bool floating_base,
         bool load_collision_meshes, bool require_meshes,
         bool check_mass_matrix, Packages packages,
         std::vector<std::string> search_paths, InertiaPolicy inertia) {
        return ParseUrdfFile(
            path, Options(floating_base, load_collision_meshes, require_meshes,
                          check_mass_matrix, inertia, std::move(packages),
                          std::move(search_paths)));
      },
      py::arg("path"), py::arg("floating_base") = false,
      py::arg("load_collision_meshes") = true, py::arg("require_meshes") = true,
      py::arg("check_mass_matrix") = true, py::arg("package_map") = Packages{},
      py::arg("search_paths") = std::vector<std::string>{},
      py::arg("inertia") = InertiaPolicy::kAccept,
      "Parses a URDF file into a UrdfModel. Raises tern.UrdfError (a "
      "RuntimeError) naming file, line and element on bad input.");
  m.def(
      "parse_urdf",
      [](const std::string& xml, bool floating_base, bool load_collision_meshes,
         bool require_meshes, bool check_mass_matrix, Packages packages,
         std::vector<std::string> search_paths, const std::string& source_name,
         const std::string& base_dir, InertiaPolicy inertia) {
        return ParseUrdfString(
            xml,
            Options(floating_base, load_collision_meshes, require_meshes,
                    check_mass_matrix, inertia, std::move(packages),
                    std::move(search_paths)),
            source_name, base_dir);
      },
      py::arg("xml"), py::arg("floating_base") = false,
      py::arg("load_collision_meshes") = true, py::arg("require_meshes") = true,
      py::arg("check_mass_matrix") = true, py::arg("package_map") = Packages{},
      py::arg("search_paths") = std::vector<std::string>{},
      py::arg("source_name") = "<string>", py::arg("base_dir") = ".",
      py::arg("inertia") = InertiaPolicy::kAccept,
      "Parses URDF text into a UrdfModel (see parse_urdf_file).");

  // ---- MJCF and any model file.
  auto warning_strings = [](const std::vector<ModelWarning>& ws) {
    std::vector<std::string> w;
    for (const ModelWarning& x : ws) w.push_back(x.ToString());
    return w;
  };
  // ---- Plant elements of model files (model_elements.h).
  py::class_<JointSpringSpec>(
      m, "JointSpringSpec",
      "A passive spring on a single-dof joint: tau = -stiffness (q - "
      "reference) (MJCF joint stiffness/springref, SDFormat "
      "<spring_stiffness>/<spring_reference>).")
      .def(py::init([](std::string joint, double stiffness, double reference) {
             return JointSpringSpec{std::move(joint), stiffness, reference};
           }),
           py::arg("joint"), py::arg("stiffness"), py::arg("reference") = 0.0)
      .def_readwrite("joint", &JointSpringSpec::joint,
                     "Name of the single-dof joint the spring acts on (str).")
      .def_readwrite("stiffness", &JointSpringSpec::stiffness,
                     "Spring stiffness, N m/rad or N/m.")
      .def_readwrite("reference", &JointSpringSpec::reference,
                     "Spring reference position, rad or m.")
      .def("__repr__", [](const JointSpringSpec& k) {
        return fmt::format("JointSpringSpec('{}', stiffness={}, reference={})",
                           k.joint, k.stiffness, k.reference);
      });
  py::class_<EqualityConstraintSpec>(
      m, "EqualityConstraintSpec",
      "A constraint between frame F on body1 and frame G on body2: 'point' "
      "keeps their origins together, 'weld' the frames (MJCF <equality> "
      "connect and weld, resolved in qpos0).")
      .def_readonly("name", &EqualityConstraintSpec::name,
                    "The constraint's name, as in the model file (str).")
      .def_property_readonly(
          "type",
          [](const EqualityConstraintSpec& e) {
            return e.type == EqualityConstraintSpec::Type::kPoint ? "point"
                                                                  : "weld";
          },
          "The constraint kind: 'point' (origins together) or 'weld' (frames "
          "together).")
      .def_readonly("body1", &EqualityConstraintSpec::body1,
                    "Name of the body that frame F is fixed in (str).")
      .def_readonly("X_1F", &EqualityConstraintSpec::X_1F,
                    "Pose of F in body1 (RigidTransform).")
      .def_readonly("body2", &EqualityConstraintSpec::body2,
                    "Body of G ('world' for the world).")
      .def_readonly("X_2G", &EqualityConstraintSpec::X_2G,
                    "Pose of G in body2 (RigidTransform).");
  m.def(
      "make_joint_springs",
      [](const Tree& tree, const std::vector<JointSpringSpec>& springs,
         const std::string& name) {
        return std::const_pointer_cast<Actuator<double>>(
            MakeJointSprings(tree, springs, name));
      },
      py::arg("tree"), py::arg("springs"), py::arg("name") = "joint_springs",
      "One Actuator (no input) applying the springs on `tree` (e.g. "
      "parse_mjcf(...).springs or parse_sdf_file(...).springs), for "
      "RigidBodySystem or TimeSteppingRigidBodySystem's actuators; None if "
      "`springs` is empty. Raises ValueError naming a missing joint.");

  py::class_<MjcfModel>(m, "MjcfModel",
                        "A parsed MJCF file: tree, warnings and what the tree "
                        "cannot hold (docs/multibody.md, MJCF).")
      .def_readonly("tree", &MjcfModel::tree,
                    "The RigidBodyTree parsed from the file.")
      .def_readonly("timestep", &MjcfModel::timestep,
                    "The file's <option timestep>: the time step, s.")
      .def_readonly(
          "gravity", &MjcfModel::gravity,
          "The file's <option gravity>: gravity (3,) in world, m/s^2.")
      .def_readonly(
          "qpos0", &MjcfModel::qpos0,
          "MuJoCo's qpos0 (nq,): the configuration the file is written in.")
      .def_property_readonly(
          "warnings",
          [warning_strings](const MjcfModel& x) {
            return warning_strings(x.warnings);
          },
          "Warnings, as 'file:line: element: msg'.")
      .def_property_readonly(
          "actuators",
          [](const MjcfModel& x) {
            py::list out;
            for (const MjcfActuator& a : x.actuators) {
              py::dict d;
              d["name"] = a.name;
              d["kind"] =
                  a.kind == MjcfActuator::Kind::kMotor ? "motor" : "position";
              d["joint"] = a.joint;
              d["gear"] = a.gear;
              d["kp"] = a.kp;
              out.append(d);
            }
            return out;
          },
          "Actuators as dicts (name, kind, joint, gear, kp; "
          "make_mjcf_actuators applies them).")
      .def_property_readonly(
          "sensors",
          [](const MjcfModel& x) {
            py::list out;
            for (const MjcfSensor& k : x.sensors) {
              py::dict d;
              d["name"] = k.name;
              d["type"] = k.type;
              d["target"] = k.target;
              out.append(d);
            }
            return out;
          },
          "Sensors as dicts (name, type: jointpos | accelerometer | gyro, "
          "target: joint or site; make_mjcf_sensors makes them).")
      .def_property_readonly(
          "num_equalities",
          [](const MjcfModel& x) { return x.equalities.size(); },
          "Number of <equality> connect/weld elements, inactive included.")
      .def_property_readonly(
          "equalities",
          [](const MjcfModel& x) { return ResolveMjcfEqualities(x); },
          "The active equalities as EqualityConstraintSpecs on the tree, "
          "resolved in qpos0 (a scenario's plants enforce them).")
      .def_readonly("springs", &MjcfModel::springs,
                    "Joint stiffness as JointSpringSpecs "
                    "(make_joint_springs applies them).");
  m.def(
      "make_mjcf_actuators",
      [](const MjcfModel& model, const std::string& name) {
        return std::const_pointer_cast<Actuator<double>>(
            std::static_pointer_cast<const Actuator<double>>(
                MakeMjcfActuators(model.tree, model.actuators, name)));
      },
      py::arg("model"), py::arg("name") = "mjcf_actuators",
      "One Actuator applying the model's <motor> and <position> actuators "
      "with MuJoCo 2.2.2's law (docs/multibody.md, MJCF), for "
      "RigidBodySystem or TimeSteppingRigidBodySystem's actuators: its input "
      "port `name` is ctrl, one entry per actuator in file order. None if "
      "the model has none.");
  m.def(
      "make_mjcf_sensors",
      [](const MjcfModel& model) {
        std::vector<std::shared_ptr<Sensor<double>>> out;
        for (auto& k : MakeMjcfSensors(model.tree, model.sensors)) {
          out.push_back(std::const_pointer_cast<Sensor<double>>(k));
        }
        return out;
      },
      py::arg("model"),
      "The model's <jointpos>, <accelerometer> and <gyro> sensors, one "
      "Sensor each named after it (outputs 1, 3 and 3), for a plant's "
      "sensors.");
  auto mjcf_options = [](bool strict, bool load_collision_meshes,
                         bool require_meshes, bool check_mass_matrix) {
    MjcfParseOptions o;
    o.strict = strict;
    o.load_collision_meshes = load_collision_meshes;
    o.require_meshes = require_meshes;
    o.check_mass_matrix = check_mass_matrix;
    return o;
  };
  m.def(
      "parse_mjcf_file",
      [mjcf_options](const std::string& path, bool strict,
                     bool load_collision_meshes, bool require_meshes,
                     bool check_mass_matrix) {
        return ParseMjcfFile(
            path, mjcf_options(strict, load_collision_meshes, require_meshes,
                               check_mass_matrix));
      },
      py::arg("path"), py::arg("strict") = false,
      py::arg("load_collision_meshes") = true, py::arg("require_meshes") = true,
      py::arg("check_mass_matrix") = true,
      "Parses an MJCF file into an MjcfModel. Raises tern.MjcfError naming "
      "file, line and element on bad input.");
  m.def(
      "parse_mjcf",
      [mjcf_options](const std::string& xml, bool strict,
                     const std::string& source_name,
                     const std::string& base_dir) {
        return ParseMjcfString(xml, mjcf_options(strict, true, true, true),
                               source_name, base_dir);
      },
      py::arg("xml"), py::arg("strict") = false,
      py::arg("source_name") = "<string>", py::arg("base_dir") = ".",
      "Parses MJCF text into an MjcfModel (see parse_mjcf_file).");
  py::class_<SdfModel>(m, "SdfModel",
                       "A parsed SDFormat file: tree, warnings and q0.")
      .def_readonly("tree", &SdfModel::tree,
                    "The RigidBodyTree parsed from the file.")
      .def_readonly("q0", &SdfModel::q0,
                    "The configuration q0 (nq,) the file is written in.")
      .def_readonly("springs", &SdfModel::springs,
                    "The file's <spring_stiffness> as JointSpringSpecs "
                    "(make_joint_springs applies them).")
      .def_property_readonly(
          "warnings",
          [warning_strings](const SdfModel& x) {
            return warning_strings(x.warnings);
          },
          "Warnings, as 'file:line: element: msg'.");
  m.def(
      "parse_sdf_file",
      [](const std::string& path, bool load_collision_meshes,
         bool require_meshes, bool check_mass_matrix, bool strict) {
        SdfParseOptions o;
        o.load_collision_meshes = load_collision_meshes;
        o.require_meshes = require_meshes;
        o.check_mass_matrix = check_mass_matrix;
        o.strict = strict;
        return ParseSdfFile(path, o);
      },
      py::arg("path"), py::arg("load_collision_meshes") = true,
      py::arg("require_meshes") = true, py::arg("check_mass_matrix") = true,
      py::arg("strict") = false,
      "Parses an SDFormat file (through libsdformat) into an SdfModel. "
      "Raises tern.SdfError naming file, line and element on bad input; "
      "with strict=True also for an element Tern does not model (its "
      "warning otherwise).");
  m.def(
      "parse_model_file",
      [warning_strings](const std::string& path) {
        ModelFile f = ParseModelFile(path);
        return py::make_tuple(f.tree, warning_strings(f.warnings),
                              ModelFormatName(f.format));
      },
      py::arg("path"),
      "Parses a URDF, MJCF or SDFormat file, picked by extension or root "
      "element; "
      "returns (tree, warnings, format name). Raises tern.ModelParseError.");

  // ---- Kinematics.
  m.def(
      "forward_kinematics",
      [](const Tree& tree, Cache* cache, const Eigen::VectorXd& q,
         const std::optional<Eigen::VectorXd>& v,
         const std::optional<Eigen::VectorXd>& vdot) {
        if (vdot && !v) {
          throw std::invalid_argument(
              "forward_kinematics: vdot given without v");
        }
        CheckQ("forward_kinematics", tree, q);
        if (v) {
          CheckVector("forward_kinematics", "v", *v, tree.num_velocities(),
                      Needs(tree, "nv"));
        }
        if (vdot) {
          CheckVector("forward_kinematics", "vdot", *vdot,
                      tree.num_velocities(), Needs(tree, "nv"));
        }
        if (vdot) {
          ForwardKinematics(tree, cache, q, *v, *vdot);
        } else if (v) {
          ForwardKinematics(tree, cache, q, *v);
        } else {
          ForwardKinematics(tree, cache, q);
        }
      },
      py::arg("tree"), py::arg("cache"), py::arg("q"),
      py::arg("v") = py::none(), py::arg("vdot") = py::none(),
      "Computes body poses into the cache for q (nq,); with v (nv,) also "
      "velocities, with vdot (nv,) also accelerations. Raises ValueError "
      "naming the argument if one has the wrong size or is not finite, or if "
      "vdot is given without v.");
  m.def("calc_frame_pose", &CalcFramePose<double>, py::arg("tree"),
        py::arg("cache"), py::arg("frame"),
        "Pose X_WF of frame index `frame` in world, a RigidTransform (needs "
        "forward_kinematics).");
  m.def(
      "calc_frame_spatial_velocity",
      [](const Tree& t, const Cache& c, int frame) {
        return Vector6<double>(CalcFrameSpatialVelocity(t, c, frame));
      },
      py::arg("tree"), py::arg("cache"), py::arg("frame"),
      "Spatial velocity [w; v] (6,) of frame F expressed in F, v the velocity "
      "of F's origin (needs forward_kinematics with v).");
  m.def(
      "frame_spatial_jacobian",
      [](const Tree& t, const Cache& c, int frame) {
        Matrix6X<double> J(6, t.num_velocities());
        FrameSpatialJacobian(t, c, frame, &J);
        return J;
      },
      py::arg("tree"), py::arg("cache"), py::arg("frame"),
      "Jacobian J (6, nv) mapping v to the spatial velocity of frame F "
      "expressed in F, a new array (needs forward_kinematics).");
  m.def(
      "world_aligned_jacobian",
      [](const Tree& t, const Cache& c, int frame, const Eigen::Vector3d& p) {
        Matrix6X<double> J(6, t.num_velocities());
        WorldAlignedJacobian(t, c, frame, p, &J);
        return J;
      },
      py::arg("tree"), py::arg("cache"), py::arg("frame"),
      py::arg("p_FP") = Eigen::Vector3d::Zero().eval(),
      "Jacobian J (6, nv) mapping v to [w_W; velocity of point P in world], P "
      "fixed in F at p_FP (3,), m; rows 3..5 are the point Jacobian. A new "
      "array (needs forward_kinematics).");
  m.def("frame_spatial_jacobian_dot_times_v",
        &FrameSpatialJacobianDotTimesV<double>, py::arg("tree"),
        py::arg("cache"), py::arg("frame"),
        "Jdot v (6,) of frame_spatial_jacobian: the acceleration of F when "
        "vdot = 0 (needs forward_kinematics with v).");
  m.def("world_aligned_jacobian_dot_times_v",
        &WorldAlignedJacobianDotTimesV<double>, py::arg("tree"),
        py::arg("cache"), py::arg("frame"),
        py::arg("p_FP") = Eigen::Vector3d::Zero().eval(),
        "Jdot v (6,) of world_aligned_jacobian: [angular; classical linear] "
        "acceleration of point P when vdot = 0 (needs forward_kinematics with "
        "v).");
  m.def("center_of_mass", &CenterOfMass<double>, py::arg("tree"),
        py::arg("cache"),
        "Center of mass (3,) of the whole tree in world, m (needs "
        "forward_kinematics).");
  m.def(
      "center_of_mass_jacobian",
      [](const Tree& t, Cache* c) {
        Matrix3X<double> J(3, t.num_velocities());
        CenterOfMassJacobian(t, c, &J);
        return J;
      },
      py::arg("tree"), py::arg("cache"),
      "Jacobian (3, nv) of the center of mass in world, a new array (needs "
      "forward_kinematics).");
  m.def("spatial_momentum_in_world", &SpatialMomentumInWorld<double>,
        py::arg("tree"), py::arg("cache"),
        "Spatial momentum (6,) in world, [angular about the world origin; "
        "linear] (needs forward_kinematics with v).");
  m.def("kinetic_energy", &KineticEnergy<double>, py::arg("tree"),
        py::arg("cache"),
        "Kinetic energy 1/2 v' H v, J, armature excluded (needs "
        "forward_kinematics with v).");
  m.def("potential_energy", &PotentialEnergy<double>, py::arg("tree"),
        py::arg("cache"),
        "Gravitational potential energy -sum m_i g . c_i, J (needs "
        "forward_kinematics).");
  m.def(
      "map_velocity_to_qdot",
      [](const Tree& t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
        CheckQV("map_velocity_to_qdot", t, q, v);
        Eigen::VectorXd qdot(t.num_positions());
        MapVelocityToQDot(t, q, v, &qdot);
        return qdot;
      },
      py::arg("tree"), py::arg("q"), py::arg("v"),
      "Maps v to qdot = N(q) v: q (nq,), v (nv,); returns qdot (nq,), a new "
      "array. Raises ValueError naming the argument if q or v has the wrong "
      "size or is not finite.");
  m.def(
      "map_qdot_to_velocity",
      [](const Tree& t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
        CheckQ("map_qdot_to_velocity", t, q);
        CheckVector("map_qdot_to_velocity", "qdot", qd, t.num_positions(),
                    Needs(t, "nq"));
        Eigen::VectorXd v(t.num_velocities());
        MapQDotToVelocity(t, q, qd, &v);
        return v;
      },
      py::arg("tree"), py::arg("q"), py::arg("qdot"),
      "Maps qdot to v = N+(q) qdot (N+ the pseudo-inverse, exact when qdot is "
      "tangent to the unit quaternions): q and qdot (nq,); returns v (nv,), a "
      "new array. Raises ValueError naming the argument on a wrong size or "
      "non-finite entry.");
  m.def(
      "normalize_quaternions",
      [](const Tree& t, Eigen::VectorXd q) {
        CheckQ("normalize_quaternions", t, q);
        NormalizeQuaternions(t, &q);
        return q;
      },
      py::arg("tree"), py::arg("q"),
      "A copy of q (nq,) with every quaternion rescaled to unit length. Raises "
      "ValueError if q has the wrong size or is not finite, or a quaternion is "
      "zero.");

  // ---- Dynamics: results are new arrays (owned by the caller).
  m.def(
      "mass_matrix",
      [](const Tree& t, Cache* c, const Eigen::VectorXd& q) {
        CheckQ("mass_matrix", t, q);
        return Eigen::MatrixXd(MassMatrix(t, c, q));
      },
      py::arg("tree"), py::arg("cache"), py::arg("q"),
      "H(q), (nv, nv), by CRBA (armature included), for q (nq,): a new "
      "array. Raises ValueError naming the argument if q has the wrong size "
      "or is not finite.");
  m.def(
      "inverse_dynamics",
      [](const Tree& t, Cache* c, const Eigen::VectorXd& q,
         const Eigen::VectorXd& v, const Eigen::VectorXd& vdot,
         const std::optional<Eigen::MatrixXd>& f_ext) {
        CheckQV("inverse_dynamics", t, q, v);
        CheckVector("inverse_dynamics", "vdot", vdot, t.num_velocities(),
                    Needs(t, "nv"));
        const auto f = ExternalForces(t, f_ext);
        return NewArray(InverseDynamics(t, c, q, v, vdot, Ptr(f)));
      },
      py::arg("tree"), py::arg("cache"), py::arg("q"), py::arg("v"),
      py::arg("vdot"), py::arg("f_ext") = py::none(),
      "Inverse dynamics tau (nv,) = H vdot + C - sum J' f_ext by RNEA, for q "
      "(nq,), v and vdot (nv,), f_ext (num_bodies, 6) body-frame wrenches "
      "[torque; force] or None: a new array. Raises ValueError naming a "
      "wrong-size or non-finite argument.");
  m.def(
      "bias_term",
      [](const Tree& t, Cache* c, const Eigen::VectorXd& q,
         const Eigen::VectorXd& v,
         const std::optional<Eigen::MatrixXd>& f_ext) {
        CheckQV("bias_term", t, q, v);
        const auto f = ExternalForces(t, f_ext);
        return NewArray(BiasTerm(t, c, q, v, Ptr(f)));
      },
      py::arg("tree"), py::arg("cache"), py::arg("q"), py::arg("v"),
      py::arg("f_ext") = py::none(),
      "Bias term C(q, v) - sum J' f_ext (nv,): gravity, Coriolis, centrifugal "
      "and damping terms, for q (nq,), v (nv,) and f_ext (num_bodies, 6) or "
      "None. A new array; raises ValueError naming a wrong-size or non-finite "
      "argument.");
  m.def(
      "forward_dynamics",
      [](const Tree& t, Cache* c, const VectorArg& q_arg,
         const VectorArg& v_arg, const VectorArg& tau_arg,
         const std::optional<Eigen::MatrixXd>& f_ext) {
        Arguments& b = Buffers();
        const auto& q = Load("forward_dynamics", "q", q_arg, &b.q);
        const auto& v = Load("forward_dynamics", "v", v_arg, &b.v);
        const auto& tau = Load("forward_dynamics", "tau", tau_arg, &b.tau);
        CheckQV("forward_dynamics", t, q, v);
        CheckVector("forward_dynamics", "tau", tau, t.num_velocities(),
                    Needs(t, "nv"));
        const auto f = ExternalForces(t, f_ext);
        return NewArray(ForwardDynamics(t, c, q, v, tau, Ptr(f)));
      },
      py::arg("tree"), py::arg("cache"), py::arg("q"), py::arg("v"),
      py::arg("tau"), py::arg("f_ext") = py::none(),
      "Forward dynamics vdot (nv,) = H^-1 (tau - C + sum J' f_ext) by the "
      "articulated-body algorithm, for q (nq,), v and tau (nv,), f_ext "
      "(num_bodies, 6) or None: a new array. Raises ValueError naming a "
      "wrong-size or non-finite argument.");
  FastPath<FastForwardDynamics>::InstallFunction(m, "forward_dynamics");

  // ---- Analytic derivatives (Carpentier and Mansard, RSS 2018;
  // dynamics_derivatives.h). d/dq is in the tangent space: nv columns.
  py::class_<DerivCache>(
      m, "DynamicsDerivativesCache",
      "Workspace of inverse_dynamics_derivatives and "
      "forward_dynamics_derivatives for one tree (one per thread).")
      .def(py::init<const Tree&>(), py::arg("tree"),
           "A workspace sized for `tree`; use it only with that tree.");
  py::class_<InverseDynamicsDerivativesResult>(
      m, "InverseDynamicsDerivatives",
      "Result of inverse_dynamics_derivatives: tau (nv,), dtau_dq, dtau_dv "
      "and M = dtau/dvdot (each nv x nv, new arrays; dq in the tangent "
      "space, docs/multibody.md).")
      .def_readonly("tau", &InverseDynamicsDerivativesResult::tau,
                    "The inverse dynamics tau (nv,) itself.")
      .def_readonly("dtau_dq", &InverseDynamicsDerivativesResult::dtau_dq,
                    "Derivative dtau/dq (nv, nv), dq in the tangent space.")
      .def_readonly("dtau_dv", &InverseDynamicsDerivativesResult::dtau_dv,
                    "Derivative dtau/dv (nv, nv) of the inverse dynamics.")
      .def_readonly("M", &InverseDynamicsDerivativesResult::M,
                    "Derivative dtau/dvdot (nv, nv): the mass matrix H(q).");
  py::class_<ForwardDynamicsDerivativesResult>(
      m, "ForwardDynamicsDerivatives",
      "Result of forward_dynamics_derivatives: vdot (nv,), dvdot_dq, "
      "dvdot_dv, dvdot_dtau = H^-1 (each nv x nv, new arrays; dq in the "
      "tangent space).")
      .def_readonly("vdot", &ForwardDynamicsDerivativesResult::vdot,
                    "The forward dynamics vdot (nv,) itself.")
      .def_readonly("dvdot_dq", &ForwardDynamicsDerivativesResult::dvdot_dq,
                    "Derivative dvdot/dq (nv, nv), dq in the tangent space.")
      .def_readonly("dvdot_dv", &ForwardDynamicsDerivativesResult::dvdot_dv,
                    "Derivative dvdot/dv (nv, nv) of the forward dynamics.")
      .def_readonly(
          "dvdot_dtau", &ForwardDynamicsDerivativesResult::dvdot_dtau,
          "Derivative dvdot/dtau (nv, nv): the inverse mass matrix H^-1.");
  m.def(
      "inverse_dynamics_derivatives",
      [](const Tree& t, Cache* c, DerivCache* d, const Eigen::VectorXd& q,
         const Eigen::VectorXd& v, const Eigen::VectorXd& vdot,
         const std::optional<Eigen::MatrixXd>& f_ext) {
        CheckQV("inverse_dynamics_derivatives", t, q, v);
        CheckVector("inverse_dynamics_derivatives", "vdot", vdot,
                    t.num_velocities(), Needs(t, "nv"));
        const auto f = ExternalForces(t, f_ext);
        InverseDynamicsDerivatives(t, c, d, q, v, vdot, Ptr(f));
        return InverseDynamicsDerivativesResult{d->tau, d->dtau_dq, d->dtau_dv,
                                                d->H};
      },
      py::arg("tree"), py::arg("cache"), py::arg("derivatives_cache"),
      py::arg("q"), py::arg("v"), py::arg("vdot"), py::arg("f_ext") = None(),
      "Analytic derivatives of tau = inverse_dynamics(q, v, vdot, f_ext) for "
      "q (nq,), v and vdot (nv,) "
      "(f_ext held fixed in the body frames): an InverseDynamicsDerivatives "
      "of new arrays.");
  m.def(
      "forward_dynamics_derivatives",
      [](const Tree& t, Cache* c, DerivCache* d, const Eigen::VectorXd& q,
         const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
         const std::optional<Eigen::MatrixXd>& f_ext) {
        CheckQV("forward_dynamics_derivatives", t, q, v);
        CheckVector("forward_dynamics_derivatives", "tau", tau,
                    t.num_velocities(), Needs(t, "nv"));
        const auto f = ExternalForces(t, f_ext);
        ForwardDynamicsDerivatives(t, c, d, q, v, tau, Ptr(f));
        return ForwardDynamicsDerivativesResult{d->vdot, d->dvdot_dq,
                                                d->dvdot_dv, d->dvdot_dtau};
      },
      py::arg("tree"), py::arg("cache"), py::arg("derivatives_cache"),
      py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("f_ext") = None(),
      "Analytic derivatives of vdot = forward_dynamics(q, v, tau, f_ext) for "
      "q (nq,), v and tau (nv,): a "
      "ForwardDynamicsDerivatives of new arrays.");
}

}  // namespace tern::python
