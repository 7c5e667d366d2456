// The robot plant (RigidBodySystem), its actuators and sensors (also as
// standalone ActuatorSystem / SensorSystem blocks), collision geometry,
// contact queries and ray casts.
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "python/bind_common.h"
#include "python/bind_systems.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/geometry/shape.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/actuator_system.h"
#include "tern/multibody/plant/compliant_contact.h"
#include "tern/multibody/plant/lidar.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/rigid_contact.h"
#include "tern/multibody/plant/sensor.h"
#include "tern/multibody/plant/sensor_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics_cache.h"

namespace tern::python {
namespace {

using Tree = RigidBodyTree<double>;
using Act = Actuator<double>;
using Sen = Sensor<double>;
using V3 = Vector3<double>;

template <class P>
std::vector<std::shared_ptr<const P>> Const(
    const std::vector<std::shared_ptr<P>>& v) {
  return {v.begin(), v.end()};
}

}  // namespace

void BindPlant(py::module_& m) {
  // ---- Geometry.
  py::enum_<ShapeKind>(m, "ShapeKind", "Kind of a collision shape.")
      .value("kSphere", ShapeKind::kSphere)
      .value("kCapsule", ShapeKind::kCapsule)
      .value("kBox", ShapeKind::kBox)
      .value("kCylinder", ShapeKind::kCylinder)
      .value("kEllipsoid", ShapeKind::kEllipsoid)
      .value("kHalfSpace", ShapeKind::kHalfSpace)
      .value("kConvex", ShapeKind::kConvex)
      .value("kTriangleMesh", ShapeKind::kTriangleMesh);
  py::class_<Shape>(m, "Shape",
                    "A collision shape in its own frame G: a kind and up to "
                    "three sizes (make one with the static methods).")
      .def_readonly("kind", &Shape::kind, "The kind of shape, a ShapeKind.")
      .def_readonly(
          "dims", &Shape::dims,
          "Sizes (3,), m: sphere (r, -, -); capsule and cylinder (r, h, -), h "
          "half the length; box half extents; ellipsoid semi-axes.")
      .def_static("sphere", &Shape::Sphere, py::arg("radius"),
                  "A sphere of `radius` about G's origin, m; raises ValueError "
                  "naming a bad value.")
      .def_static("box", &Shape::Box, py::arg("size_x"), py::arg("size_y"),
                  py::arg("size_z"),
                  "A box centered at G's origin from its full side lengths, m "
                  "(as URDF <box size>).")
      .def_static("capsule", &Shape::Capsule, py::arg("radius"),
                  py::arg("length"),
                  "A capsule of `radius` around the segment along z of full "
                  "`length`, m.")
      .def_static("cylinder", &Shape::Cylinder, py::arg("radius"),
                  py::arg("length"),
                  "A cylinder of `radius` along z of full `length`, m.")
      .def_static("ellipsoid", &Shape::Ellipsoid, py::arg("a"), py::arg("b"),
                  py::arg("c"),
                  "An ellipsoid with semi-axes a, b and c along x, y and z, m.")
      .def_static("half_space", &Shape::HalfSpace,
                  "The half-space z <= 0 of its frame (boundary plane z = 0, "
                  "outward normal +z).")
      .def_static(
          "convex_hull", &Shape::ConvexHull, py::arg("points"),
          "The convex hull of >= 4 points (a list of (3,) points in G, m); "
          "raises ValueError if they are too few, not finite or flat.");
  py::class_<ContactProperties>(
      m, "ContactProperties",
      "Contact material of a geometry: friction, restitution and compliant "
      "stiffness and damping.")
      .def(py::init<>(),
           "Default material: mu = 1, e = 0, stiffness 1e6 N/m, dissipation "
           "100 N s/m.")
      .def_readwrite("friction", &ContactProperties::friction,
                     "Coulomb friction coefficient mu (>= 0).")
      .def_readwrite("restitution", &ContactProperties::restitution,
                     "Coefficient of restitution e in [0, 1].")
      .def_readwrite("stiffness", &ContactProperties::stiffness,
                     "Compliant contact stiffness, N/m.")
      .def_readwrite("dissipation", &ContactProperties::dissipation,
                     "Compliant contact damping, N s/m.");
  py::class_<Geometry>(m, "Geometry", "A collision geometry on a body.")
      .def(py::init([](std::string name, int body,
                       const RigidTransform<double>& X_BG, const Shape& shape,
                       const ContactProperties& properties) {
             Geometry g;
             g.name = std::move(name);
             g.body = body;
             g.X_BG = X_BG;
             g.shape = shape;
             g.properties = properties;
             return g;
           }),
           py::arg("name"), py::arg("body"), py::arg("X_BG"), py::arg("shape"),
           py::arg("properties") = ContactProperties{},
           "Geometry `shape` fixed in body at X_BG.")
      .def_readwrite("name", &Geometry::name,
                     "The geometry's name, as in the model file (str).")
      .def_readwrite(
          "body", &Geometry::body,
          "Index of the body the geometry is fixed in (0: the world).")
      .def_readwrite(
          "X_BG", &Geometry::X_BG,
          "Pose X_BG of the geometry frame in the body frame (RigidTransform).")
      .def_readwrite("shape", &Geometry::shape,
                     "Its Shape (kind and dimensions).")
      .def_readwrite("properties", &Geometry::properties,
                     "Its ContactProperties (the material).")
      .def_readwrite("group", &Geometry::group,
                     "Filter group bits: g and h collide only if (g.group & "
                     "h.mask) and (h.group & g.mask) are nonzero.")
      .def_readwrite("mask", &Geometry::mask,
                     "Filter mask bits of the geometry (see group).")
      .def_readwrite("contype", &Geometry::contype,
                     "MJCF filter bits: collides if (contype & other "
                     "conaffinity) or (other contype & conaffinity) is "
                     "nonzero.")
      .def_readwrite("conaffinity", &Geometry::conaffinity,
                     "MJCF filter bits (see contype).");
  py::class_<GeometryModel>(m, "GeometryModel",
                            "The collision geometry of a scene.")
      .def(py::init([](int num_bodies, bool exclude_parent_child) {
             GeometryModelOptions o;
             o.exclude_parent_child = exclude_parent_child;
             return GeometryModel(num_bodies, o);
           }),
           py::arg("num_bodies") = 1, py::arg("exclude_parent_child") = true,
           "An empty model for num_bodies bodies (body 0 the world).")
      .def_static(
          "from_tree",
          [](const Tree& tree, bool exclude_parent_child) {
            GeometryModelOptions o;
            o.exclude_parent_child = exclude_parent_child;
            return GeometryModel::FromTree(tree, o);
          },
          py::arg("tree"), py::arg("exclude_parent_child") = true,
          "A model holding the tree's <collision> geometry, with parent-child "
          "pairs excluded if exclude_parent_child.")
      .def("add_geometry", &GeometryModel::AddGeometry, py::arg("geometry"),
           "Adds a geometry; returns its index.")
      .def("exclude_body_pair",
           py::overload_cast<int, int>(&GeometryModel::ExcludeBodyPair),
           py::arg("body_a"), py::arg("body_b"),
           "Never test geometries of bodies body_a and body_b (indices) "
           "against each other.")
      .def("exclude_body_pair",
           py::overload_cast<const std::string&, const std::string&>(
               &GeometryModel::ExcludeBodyPair),
           py::arg("body_a"), py::arg("body_b"),
           "Never test these bodies, by link name (an unknown name raises).")
      .def("exclude_body_pairs", &GeometryModel::ExcludeBodyPairs,
           py::arg("pairs"),
           "Every (link, link) pair, e.g. an SRDF's <disable_collisions>.")
      .def("exclude_group_pair", &GeometryModel::ExcludeGroupPair,
           py::arg("group_a"), py::arg("group_b"),
           "Every body of group_a stops colliding with every body of "
           "group_b (body indices).")
      .def("exclude_within", &GeometryModel::ExcludeWithin, py::arg("bodies"),
           "No pair among these bodies collides (self-collision off).")
      .def("find_body", &GeometryModel::FindBody, py::arg("name"),
           py::arg("where") = "", "A body's index by name (raises if unknown).")
      .def("is_excluded", &GeometryModel::IsExcluded, py::arg("body_a"),
           py::arg("body_b"), "Whether the pair of bodies is filtered out.")
      .def("can_collide", &GeometryModel::CanCollide, py::arg("geometry_a"),
           py::arg("geometry_b"), "Whether the pair of geometries is tested.")
      .def("num_geometries", &GeometryModel::num_geometries,
           "Number of geometries in the model (int).")
      .def("num_bodies", &GeometryModel::num_bodies,
           "Number of bodies of the tree (int).")
      .def("geometry", &GeometryModel::geometry, py::arg("index"),
           py::return_value_policy::reference_internal,
           "The geometry with index `index` (a Geometry).");
  py::class_<GeometryWorkspace>(
      m, "GeometryWorkspace",
      "Workspace of the queries for one model (one per thread).")
      .def(py::init<const GeometryModel&>(), py::arg("model"),
           "A workspace sized for `model`; use it only with that model.")
      .def(
          "X_WG",
          [](const GeometryWorkspace& w, int g) { return w.X_WG.at(g); },
          py::arg("geometry"),
          "Pose X_WG of geometry index `geometry` in world (a RigidTransform "
          "copy; needs update_geometry_poses).");
  py::class_<Contact>(m, "Contact", "A contact point between two geometries.")
      .def_readonly("geometry_a", &Contact::geometry_a,
                    "Index of the contact's geometry A (int).")
      .def_readonly("geometry_b", &Contact::geometry_b,
                    "Index of the contact's geometry B (int).")
      .def_readonly("body_a", &Contact::body_a,
                    "Body index of geometry A (int).")
      .def_readonly("body_b", &Contact::body_b,
                    "Body index of geometry B (int).")
      .def_readonly("normal", &Contact::normal,
                    "Unit contact normal (3,) from A to B, in world.")
      .def_readonly("signed_distance", &Contact::signed_distance,
                    "Signed distance phi, m (< 0: penetration).")
      .def_readonly("p_WA", &Contact::p_WA,
                    "Witness point (3,) on A, in world, m.")
      .def_readonly("p_WB", &Contact::p_WB,
                    "Witness point (3,) on B, in world, m.");
  py::class_<RayHit>(
      m, "RayHit",
      "Result of a ray cast: whether and where the ray hit, and what.")
      .def_readonly(
          "hit", &RayHit::hit,
          "Whether the ray hit a geometry within max_distance (bool).")
      .def_readonly("distance", &RayHit::distance,
                    "Distance to the hit along the ray, m.")
      .def_readonly("geometry", &RayHit::geometry,
                    "Index of the geometry hit (int; -1 on a miss).")
      .def_readonly("body", &RayHit::body,
                    "Body index of the geometry hit (int).")
      .def_readonly("point", &RayHit::point, "The hit point (3,) in world, m.")
      .def_readonly("normal", &RayHit::normal,
                    "The unit surface normal (3,) at the hit, in world.");
  m.def(
      "update_geometry_poses",
      [](const GeometryModel& model, const KinematicsCache<double>& cache,
         GeometryWorkspace* ws) { UpdateGeometryPoses(model, cache.X_WB, ws); },
      py::arg("model"), py::arg("cache"), py::arg("workspace"),
      "Computes the geometry poses in `workspace` from the body poses of "
      "forward_kinematics in `cache`.");
  m.def(
      "update_geometry_poses_from",
      [](const GeometryModel& model,
         const std::vector<RigidTransform<double>>& X_WB,
         GeometryWorkspace* ws) { UpdateGeometryPoses(model, X_WB, ws); },
      py::arg("model"), py::arg("X_WB"), py::arg("workspace"),
      "Computes the geometry poses in `workspace` from X_WB, a list of body "
      "poses in world (one RigidTransform per body).");
  m.def("compute_candidate_pairs", &ComputeCandidatePairs, py::arg("model"),
        py::arg("workspace"), py::arg("margin") = 0.0,
        "Broad phase: the pairs (a, b), a < b, whose boxes grown by margin (m) "
        "overlap and that pass the filter, sorted (a copy).");
  m.def("compute_contacts", &ComputeContacts, py::arg("model"),
        py::arg("workspace"), py::arg("margin") = 0.0,
        "The contacts with signed distance phi <= margin, m, a list of Contact "
        "(a copy; needs update_geometry_poses).");
  m.def("cast_ray", &CastRay, py::arg("model"), py::arg("workspace"),
        py::arg("origin"), py::arg("dir"), py::arg("max_distance"),
        py::arg("ignore_body") = -1,
        "The first geometry hit by the ray origin + t dir, 0 <= t <= "
        "max_distance, with origin and dir (3,) in world (dir normalized), "
        "ignoring body ignore_body: a RayHit. Raises ValueError for a zero or "
        "non-finite dir or a non-finite origin.");
  m.def(
      "cast_rays",
      [](const GeometryModel& model, const GeometryWorkspace& ws,
         const Matrix3X<double>& origins, const Matrix3X<double>& dirs,
         double max_distance, int ignore_body) {
        std::vector<RayHit> hits(dirs.cols());
        CastRays(model, ws, origins, dirs, max_distance, &hits, ignore_body);
        return hits;
      },
      py::arg("model"), py::arg("workspace"), py::arg("origins"),
      py::arg("dirs"), py::arg("max_distance"), py::arg("ignore_body") = -1,
      "A batch of k rays: ray j starts at origins[:, j] (or origins[:, 0] if "
      "origins is (3, 1)) along dirs[:, j], with origins and dirs (3, k) in "
      "world; returns a list of k RayHit.");

  // ---- Actuators (shared: a plant and a standalone block may share one).
  py::class_<Act, std::shared_ptr<Act>>(
      m, "Actuator",
      "A force element of the plant: generalized forces from (tree, kinematics "
      "cache, command input, own state).")
      .def("name", &Act::name,
           "The actuator's name, also its input port's (str).")
      .def("num_inputs", &Act::num_inputs,
           "Size of its command input port; 0 for no port (int).")
      .def("num_states", &Act::num_states,
           "Size of its own continuous state z; 0 for most actuators (int).");
  py::class_<TorqueSource<double>, Act, std::shared_ptr<TorqueSource<double>>>(
      m, "TorqueSource",
      "TorqueSource: a commanded torque or force per single-dof joint, clamped "
      "to the effort limits, optionally through a first-order motor lag.")
      .def(
          py::init<const Tree&, const std::vector<std::string>&, double,
                   std::string, const std::vector<double>&>(),
          py::arg("tree"), py::arg("joints"),
          py::arg("motor_time_constant") = 0.0,
          py::arg("name") = "torque_source",
          py::arg("effort_limits") = std::vector<double>{},
          "A torque source on these single-dof joints (by name); effort_limits "
          "(one per joint, N m or N, inf: none) replace the URDF's. Raises "
          "naming a missing joint, a bad motor_time_constant or limit.")
      .def("effort_limits", &TorqueSource<double>::effort_limits,
           "Effort limit per joint, N m or N (inf: none).")
      .def(
          "limit_command",
          [](const TorqueSource<double>& a, const Eigen::VectorXd& u) {
            if (u.size() != a.num_inputs()) {
              throw std::invalid_argument(fmt::format(
                  "TorqueSource '{}': command has size {} but the actuator "
                  "drives {} joints",
                  a.name(), u.size(), a.num_inputs()));
            }
            Eigen::VectorXd limited(u.size()), clamped(u.size());
            a.LimitCommand(u.data(), limited.data(), clamped.data());
            return py::make_tuple(limited, clamped);
          },
          py::arg("u"),
          "Applies the effort limits to a command (k,) for k joints: returns "
          "(limited, clamped), the applied effort without motor lag (k,) and 1 "
          "where a limit clamped it (k,). Raises ValueError if the command has "
          "the wrong size.");
  py::class_<GeneralizedForce<double>, Act,
             std::shared_ptr<GeneralizedForce<double>>>(
      m, "GeneralizedForce",
      "GeneralizedForce: a commanded generalized force tau (nv,) on every dof, "
      "applied as is.")
      .def(py::init<const Tree&, std::string>(), py::arg("tree"),
           py::arg("name") = "generalized_force",
           "A generalized-force actuator for `tree` (input nv).");
  py::class_<SpatialForceActuator<double>, Act,
             std::shared_ptr<SpatialForceActuator<double>>>(
      m, "SpatialForceActuator",
      "SpatialForceActuator: a commanded wrench (6,) [torque; force], N m and "
      "N, on a body at point p_BP, expressed in the body frame.")
      .def(py::init<const Tree&, const std::string&, const V3&, std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("p_BP"),
           py::arg("name") = "spatial_force",
           "An actuator on body index `body` at p_BP (3,) in the body frame, m "
           "(input 6).");
  py::class_<LinearSpringDamper<double>, Act,
             std::shared_ptr<LinearSpringDamper<double>>>(
      m, "LinearSpringDamper",
      "LinearSpringDamper: tension k (l - l0) + b ldot along the line from "
      "point P on body A to point Q on body B; no input.")
      .def(py::init<const Tree&, const std::string&, const V3&,
                    const std::string&, const V3&, double, double, double,
                    std::string>(),
           py::arg("tree"), py::arg("body_a"), py::arg("p_AP"),
           py::arg("body_b"), py::arg("p_BQ"), py::arg("stiffness"),
           py::arg("damping"), py::arg("rest_length"),
           py::arg("name") = "spring_damper",
           "A spring-damper between P at p_AP (3,) on body_a and Q at p_BQ "
           "(3,) on body_b, m; raises ValueError if the bodies are equal or "
           "missing, k or b is negative, or l0 < 0.");
  py::class_<AerodynamicDrag<double>, Act,
             std::shared_ptr<AerodynamicDrag<double>>>(
      m, "AerodynamicDrag",
      "AerodynamicDrag: quadratic drag F = -c |v_P| v_P at a body point P in "
      "still air; no input.")
      .def(py::init<const Tree&, const std::string&, const V3&, double,
                    std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("p_BP"),
           py::arg("drag_coefficient"), py::arg("name") = "aerodynamic_drag",
           "Drag on body index `body` at its center of pressure p_BP (3,), m, "
           "with c = drag_coefficient in N s^2/m^2.");
  py::class_<Propeller<double>, Act, std::shared_ptr<Propeller<double>>>(
      m, "Propeller",
      "Propeller: thrust kf w^2 along a body axis and a reaction torque -spin "
      "km w^2 about it, at the commanded speed w (input 1, rad/s).")
      .def(py::init<const Tree&, const std::string&, const V3&, const V3&,
                    double, double, int, std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("p_BP"), py::arg("axis_B"),
           py::arg("thrust_coefficient"), py::arg("moment_coefficient"),
           py::arg("spin"), py::arg("name") = "propeller",
           "A propeller on body index `body` at p_BP (3,), m, spinning about "
           "the unit axis_B (3,); spin is +1 (counter-clockwise about axis_B) "
           "or -1.");
  py::class_<CompliantContactParameters> ccp(
      m, "CompliantContactParameters",
      "Parameters of CompliantContact's penalty law: tangential damping, "
      "margin and the normal force law.");
  py::enum_<CompliantContactParameters::NormalLaw>(
      ccp, "NormalLaw",
      "The normal force law of compliant contact: linear or Hunt-Crossley.")
      .value("kLinear", CompliantContactParameters::NormalLaw::kLinear)
      .value("kHuntCrossley",
             CompliantContactParameters::NormalLaw::kHuntCrossley);
  ccp.def(py::init<>(), "The default compliant contact parameters.")
      .def_readwrite("tangential_damping",
                     &CompliantContactParameters::tangential_damping,
                     "Damping of the tangential (friction) force, N s/m.")
      .def_readwrite("margin", &CompliantContactParameters::margin,
                     "Contacts are taken up to this distance, m.")
      .def_readwrite("normal_law", &CompliantContactParameters::normal_law,
                     "The normal force law: a NormalLaw.")
      .def_readwrite("hunt_crossley_dissipation",
                     &CompliantContactParameters::hunt_crossley_dissipation,
                     "Dissipation of the Hunt-Crossley normal law, s/m.");
  py::class_<CompliantContact, Act, std::shared_ptr<CompliantContact>>(
      m, "CompliantContact",
      "CompliantContact: penalty contact forces between the geometries of a "
      "GeometryModel, as an Actuator without input.")
      .def(py::init<const Tree&, GeometryModel, CompliantContactParameters,
                    std::string>(),
           py::arg("tree"), py::arg("model"),
           py::arg("parameters") = CompliantContactParameters{},
           py::arg("name") = "compliant_contact",
           "Compliant contact on `tree` with a copy of the geometry model "
           "`model`.");

  // ---- Sensors.
  py::class_<Sen, std::shared_ptr<Sen>>(
      m, "Sensor",
      "A sensor: a measurement of the plant computed from the tree and its "
      "kinematics, one output port.")
      .def("name", &Sen::name,
           "The sensor's name, also its output port's (str).")
      .def("num_outputs", &Sen::num_outputs,
           "Size of the sensor's reading, its output port (int).");
  py::class_<FullStateSensor<double>, Sen,
             std::shared_ptr<FullStateSensor<double>>>(
      m, "FullStateSensor",
      "A sensor reading the full state y = [q; v] (nq + nv,).")
      .def(py::init<const Tree&, std::string>(), py::arg("tree"),
           py::arg("name") = "full_state",
           "A full-state sensor for `tree` (output nq + nv).");
  py::class_<Encoder<double>, Sen, std::shared_ptr<Encoder<double>>>(
      m, "Encoder",
      "Encoder: incremental encoder counts y_i = floor(q_i N / (2 pi)) of "
      "single-dof joints, N ticks per revolution.")
      .def(py::init<const Tree&, const std::vector<std::string>&, int,
                    std::string>(),
           py::arg("tree"), py::arg("joints"), py::arg("ticks_per_revolution"),
           py::arg("name") = "encoder",
           "Encoders on these single-dof joints (by name) with "
           "ticks_per_revolution N > 0; raises naming a missing or multi-dof "
           "joint.");
  py::class_<Imu<double>, Sen, std::shared_ptr<Imu<double>>>(
      m, "Imu",
      "Imu: an accelerometer and gyroscope at a body frame S, output (6,) "
      "[specific force, m/s^2; angular velocity, rad/s] in S.")
      .def(py::init<const Tree&, const std::string&,
                    const RigidTransform<double>&, double, double,
                    std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("X_BS"),
           py::arg("accel_noise_stddev") = 0.0,
           py::arg("gyro_noise_stddev") = 0.0, py::arg("name") = "imu",
           "An IMU on body index `body` at pose X_BS; noise standard "
           "deviations > 0 (m/s^2, rad/s) add a 6-entry Gaussian noise input.");
  py::class_<ForceTorqueSensor<double>, Sen,
             std::shared_ptr<ForceTorqueSensor<double>>>(
      m, "ForceTorqueSensor",
      "ForceTorqueSensor: the wrench (6,) a joint transmits to its child body, "
      "in the child body frame.")
      .def(py::init<const Tree&, const std::string&, std::string>(),
           py::arg("tree"), py::arg("joint"), py::arg("name") = "force_torque",
           "A force-torque sensor at the joint named `joint`; raises naming "
           "the sensor if the joint is missing.");
  py::class_<Lidar, Sen, std::shared_ptr<Lidar>>(
      m, "Lidar",
      "Lidar: a planar scan of num_rays ray casts in the sensor's x-y plane, "
      "output (num_rays,) distances, m (max_range on a miss).")
      .def(py::init<const Tree&, GeometryModel, const std::string&,
                    const RigidTransform<double>&, int, double, double, double,
                    std::string>(),
           py::arg("tree"), py::arg("model"), py::arg("body"), py::arg("X_BS"),
           py::arg("num_rays"), py::arg("angle_min"), py::arg("angle_max"),
           py::arg("max_range"), py::arg("name") = "lidar",
           "A lidar on body index `body` at pose X_BS casting num_rays rays "
           "spread evenly over [angle_min, angle_max], rad, against `model`, "
           "up to max_range, m.");

  // ---- Rigid contact (the continuous plant's frictional contact).
  py::class_<BaumgarteGains>(m, "BaumgarteGains",
                             "Constraint stabilization: the rows are "
                             "J vdot + Jdot v + 2 alpha J v + beta^2 phi.")
      .def(py::init<>(), "The default gains alpha = beta = 20 1/s.")
      .def(py::init([](double alpha, double beta) {
             return BaumgarteGains{alpha, beta};
           }),
           py::arg("alpha"), py::arg("beta"), "Gains alpha and beta, 1/s.")
      .def_readwrite("alpha", &BaumgarteGains::alpha,
                     "Velocity-error gain alpha of the 2 alpha J v term, 1/s.")
      .def_readwrite("beta", &BaumgarteGains::beta,
                     "Position-error gain beta of the beta^2 phi term, 1/s.");
  using RCP = RigidContactParameters;
  py::class_<RCP>(m, "RigidContactParameters",
                  "Parameters of RigidContact (rigid_contact.h).")
      .def(py::init<>(), "The default rigid contact parameters.")
      .def_readwrite(
          "contact_tolerance", &RCP::contact_tolerance,
          "Distance below which a contact is touching: phi <= this, m (> 0).")
      .def_readwrite("impact_velocity", &RCP::impact_velocity,
                     "Approach speed above which a contact is an impact, m/s.")
      .def_readwrite("stick_velocity", &RCP::stick_velocity,
                     "Slip speed below which a touching contact sticks, m/s.")
      .def_readwrite("num_friction_directions", &RCP::num_friction_directions,
                     "Edges of the polyhedral friction cone of sticking "
                     "contacts (>= 3).")
      .def_readwrite("gains", &RCP::gains,
                     "BaumgarteGains of the normal and sticking rows.")
      .def_readwrite(
          "witness_margin", &RCP::witness_margin,
          "Distance within which the impact witness looks at contacts, m.")
      .def_readwrite("retry_regularization", &RCP::retry_regularization,
                     "Relative regularization of a second Lemke attempt.");
  py::class_<RigidContact, std::shared_ptr<RigidContact>>(
      m, "RigidContact",
      "Non-penetrating frictional contact (Coulomb, stick-slip) between the "
      "geometries of a GeometryModel for the continuous RigidBodySystem, "
      "solved at the acceleration level with the joint-limit and bilateral "
      "rows (Lemke), with a Newton impact law at impacts. Pass it as "
      "RigidBodySystemOptions.rigid_contact.")
      .def(py::init<const Tree&, GeometryModel, RCP, std::string>(),
           py::arg("tree"), py::arg("model"), py::arg("parameters") = RCP{},
           py::arg("name") = "rigid_contact",
           "Rigid contact on `tree` with a copy of the geometry model `model`.")
      .def("name", &RigidContact::name, "The force element's name (str).")
      .def("parameters", &RigidContact::parameters,
           "Its RigidContactParameters (a copy).")
      .def("num_positions", &RigidContact::num_positions,
           "Number of positions nq of its tree (int).")
      .def("num_velocities", &RigidContact::num_velocities,
           "Number of velocities nv of its tree (int).");

  // ---- Systems.
  py::class_<RigidBodySystemOptions>(
      m, "RigidBodySystemOptions",
      "Options of RigidBodySystem: optional ports, joint friction "
      "regularization, joint limits and rigid contact.")
      .def(py::init<>(), "The default options.")
      .def_readwrite(
          "state_output", &RigidBodySystemOptions::state_output,
          "Whether the plant has an output 'state', [q; v] (nq + nv,).")
      .def_readwrite("acceleration_output",
                     &RigidBodySystemOptions::acceleration_output,
                     "Whether the plant has an output "
                     "'generalized_acceleration', vdot (nv,).")
      .def_readwrite("applied_generalized_force_input",
                     &RigidBodySystemOptions::applied_generalized_force_input,
                     "Whether the plant has an input "
                     "'applied_generalized_force', tau (nv,).")
      .def_readwrite("coulomb_regularization_velocity",
                     &RigidBodySystemOptions::coulomb_regularization_velocity,
                     "Velocity v_s regularizing joint Coulomb friction as -F v "
                     "/ sqrt(v^2 + v_s^2), rad/s or m/s (> 0).")
      .def_readwrite("enforce_mimic_joints",
                     &RigidBodySystemOptions::enforce_mimic_joints,
                     "Mimic joints as constraint rows (bool).")
      .def_readwrite("enforce_joint_limits",
                     &RigidBodySystemOptions::enforce_joint_limits,
                     "Joint limits as constraint rows (bool).")
      .def_readwrite("joint_limit_impacts",
                     &RigidBodySystemOptions::joint_limit_impacts,
                     "Whether a joint reaching a limit fast has a plastic "
                     "impact (bool, default True).")
      .def_readwrite("joint_limit_impact_velocity",
                     &RigidBodySystemOptions::joint_limit_impact_velocity,
                     "Speed above which reaching a joint limit is a plastic "
                     "impact, rad/s or m/s (> 0).")
      .def_readwrite("joint_limit_tolerance",
                     &RigidBodySystemOptions::joint_limit_tolerance,
                     "A joint within this of its limit is at it, rad or m.")
      .def_property(
          "rigid_contact",
          [](const RigidBodySystemOptions& o) {
            return std::const_pointer_cast<RigidContact>(o.rigid_contact);
          },
          [](RigidBodySystemOptions& o, std::shared_ptr<RigidContact> c) {
            o.rigid_contact = std::move(c);
          },
          "A RigidContact (or None): frictional rigid contact solved with "
          "the constraint rows.");
  using LS = LeafSystem<double>;
  using RBS = RigidBodySystem<double>;
  py::class_<RBS, LS>(m, "RigidBodySystem", py::dynamic_attr(),
                      "The continuous-time robot plant: state [q; v; z], an "
                      "input per commanded actuator, an output per sensor.")
      .def(py::init([](const Tree& tree,
                       const std::vector<std::shared_ptr<Act>>& actuators,
                       const std::vector<std::shared_ptr<Sen>>& sensors,
                       const RigidBodySystemOptions& options) {
             return std::make_unique<RBS>(
                 tree, Const(actuators), Const(sensors),
                 std::vector<RBS::ConstraintPtr>{}, options);
           }),
           py::arg("tree"), py::arg("actuators") = std::vector<int>{},
           py::arg("sensors") = std::vector<int>{},
           py::arg("options") = RigidBodySystemOptions{},
           "A plant of a copy of `tree` with these actuators, sensors and "
           "options.")
      .def("tree", &RBS::tree, py::return_value_policy::reference_internal,
           "The plant's own copy of the tree (valid while the plant lives).")
      .def(
          "get_actuator_input_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const RBS&>().get_actuator_input_port(name));
          },
          py::arg("name"), "The input port of the actuator named `name`.")
      .def(
          "get_sensor_output_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const RBS&>().get_sensor_output_port(name));
          },
          py::arg("name"), "The output port of the sensor named `name`.")
      .def(
          "set_positions_and_velocities",
          [](const RBS& s, Context<double>* c, const Eigen::VectorXd& q,
             const Eigen::VectorXd& v) {
            s.SetPositionsAndVelocities(c, q, v);
          },
          py::arg("context"), py::arg("q"), py::arg("v"),
          "Writes q (nq,) and v (nv,) into the plant's context.");
  py::class_<TimeSteppingOptions> tso(m, "TimeSteppingOptions",
                                      "Options of TimeSteppingRigidBodySystem "
                                      "(a selection; docs/plant.md).");
  py::enum_<TimeSteppingOptions::Solver>(
      tso, "Solver",
      "How each island's contact problem is solved: kConvex (default, the "
      "convex formulation with the round cone), kLemke, kPgs or kAuto (Lemke "
      "for small robot islands, PGS for the others).")
      .value("kAuto", TimeSteppingOptions::Solver::kAuto)
      .value("kLemke", TimeSteppingOptions::Solver::kLemke)
      .value("kPgs", TimeSteppingOptions::Solver::kPgs)
      .value("kConvex", TimeSteppingOptions::Solver::kConvex);
  tso.def(py::init<>(), "The default options (docs/plant.md).")
      .def_readwrite("solver", &TimeSteppingOptions::solver,
                     "Island solver (Solver; kConvex by default).")
      .def_readwrite(
          "convex_max_iterations", &TimeSteppingOptions::convex_max_iterations,
          "Convex solver: the cap on Newton iterations per island (int).")
      .def_readwrite(
          "convex_tolerance", &TimeSteppingOptions::convex_tolerance,
          "Convex solver: relative tolerance on its optimality residual.")
      .def_readwrite(
          "convex_beta", &TimeSteppingOptions::convex_beta,
          "Convex solver: near-rigid regularization of the normal rows.")
      .def_readwrite("convex_sigma", &TimeSteppingOptions::convex_sigma,
                     "Convex solver: regularization of the tangential rows (a "
                     "sticking contact creeps at most sigma times the velocity "
                     "change of its friction impulse).")
      .def_readwrite(
          "convex_creep_velocity", &TimeSteppingOptions::convex_creep_velocity,
          "Convex solver: a sticking contact under a friction load creeps at "
          "most this (m/s; its R_t stiffened down to convex_sigma_min); 0: "
          "convex_sigma everywhere.")
      .def_readwrite("convex_sigma_min", &TimeSteppingOptions::convex_sigma_min,
                     "Convex solver: the stiffest tangential regularization "
                     "of convex_creep_velocity's rule.")
      .def_readwrite(
          "convex_anchor_sticking",
          &TimeSteppingOptions::convex_anchor_sticking,
          "Convex solver: each contact's (and joint dry friction's) "
          "regularization is centred on its last impulse, so a steady grip "
          "does not creep (default True; False: the published formulation, "
          "whose sticking contacts creep at convex_sigma's rate).")
      .def_readwrite(
          "convex_max_free_body_dofs",
          &TimeSteppingOptions::convex_max_free_body_dofs,
          "Islands of free bodies with more dofs than this go to PGS first.")
      .def_readwrite(
          "convex_leave_out_separating",
          &TimeSteppingOptions::convex_leave_out_separating,
          "Robot islands: speculative contacts that the free motion and the "
          "last velocities separate are left out of the solve (solved again "
          "with every row if the answer does not separate them); False: every "
          "row in every solve.")
      .def_readwrite("on_nonconvergence",
                     &TimeSteppingOptions::on_nonconvergence,
                     "What an island that does not converge does, an "
                     "OnNonConvergence: kThrow (default) or kWarnAndCount.")
      .def_readwrite("lemke_max_unknowns",
                     &TimeSteppingOptions::lemke_max_unknowns,
                     "Under kAuto, the largest robot island (in LCP unknowns) "
                     "solved by Lemke (int).")
      .def_readwrite("friction_directions",
                     &TimeSteppingOptions::friction_directions,
                     "Directions of the polyhedral friction cone of Lemke and "
                     "PGS (int, >= 3).")
      .def_readwrite("contact_margin", &TimeSteppingOptions::contact_margin,
                     "Signed distance up to which contacts are taken, m.")
      .def_readwrite(
          "speculative_contacts", &TimeSteppingOptions::speculative_contacts,
          "Speculative contacts from the swept motion (no tunnelling).")
      .def_readwrite("contact_erp", &TimeSteppingOptions::contact_erp,
                     "Fraction of the penetration beyond penetration_slop "
                     "removed per step.")
      .def_readwrite("penetration_slop", &TimeSteppingOptions::penetration_slop,
                     "Penetration left alone, m (rad for joint limits).")
      .def_readwrite("bilateral_erp", &TimeSteppingOptions::bilateral_erp,
                     "Bilateral rows: J vn = -bilateral_erp phi / h.")
      .def_readwrite("joint_limit_margin",
                     &TimeSteppingOptions::joint_limit_margin,
                     "Distance to a limit within which joint-limit rows are "
                     "taken, rad or m.")
      .def_readwrite("pgs_max_iterations",
                     &TimeSteppingOptions::pgs_max_iterations,
                     "PGS: the cap on sweeps per island (int).")
      .def_readwrite(
          "pgs_tolerance", &TimeSteppingOptions::pgs_tolerance,
          "PGS tolerance on the largest row-velocity change of a sweep, m/s.")
      .def_readwrite("warm_start", &TimeSteppingOptions::warm_start,
                     "Warm start from the previous step's impulses.")
      .def_readwrite("warm_start_radius",
                     &TimeSteppingOptions::warm_start_radius,
                     "Radius within which a contact takes the impulse of the "
                     "nearest previous one as warm start, m.")
      .def_readwrite("sleeping", &TimeSteppingOptions::sleeping,
                     "Freeze islands at rest (off by default).")
      .def_readwrite(
          "sleep_velocity", &TimeSteppingOptions::sleep_velocity,
          "Speed below which an island sleeps after sleep_time, m/s or rad/s.")
      .def_readwrite("sleep_time", &TimeSteppingOptions::sleep_time,
                     "Seconds below sleep_velocity before an island sleeps.")
      .def_readwrite("contact_regularization",
                     &TimeSteppingOptions::contact_regularization,
                     "Relative compliance of the contact and joint-limit rows.")
      .def_readwrite("constraint_regularization",
                     &TimeSteppingOptions::constraint_regularization,
                     "Relative regularization of bilateral blocks.")
      .def_readwrite(
          "implicit_pd", &TimeSteppingOptions::implicit_pd,
          "Joint PD servos evaluated at the step's end state (implicit).")
      .def_readwrite(
          "implicit_velocity_products",
          &TimeSteppingOptions::implicit_velocity_products,
          "Velocity-product terms at the velocity level (dC/dv, LU).")
      .def_readwrite("conserve_momentum",
                     &TimeSteppingOptions::conserve_momentum,
                     "Keep floating robots' spatial momentum exactly.")
      .def_readwrite(
          "enforce_joint_limits", &TimeSteppingOptions::enforce_joint_limits,
          "Whether joint limits are enforced by constraint rows (bool).")
      .def_readwrite("joint_friction", &TimeSteppingOptions::joint_friction,
                     "Joint Coulomb friction as bounded rows (|f| <= F h).")
      .def_readwrite(
          "enforce_mimic_joints", &TimeSteppingOptions::enforce_mimic_joints,
          "Whether mimic joints are enforced by bilateral rows (bool).")
      .def_readwrite(
          "state_output", &TimeSteppingOptions::state_output,
          "Whether the plant has an output 'state', [q; v] (nq + nv,).")
      .def_readwrite("applied_generalized_force_input",
                     &TimeSteppingOptions::applied_generalized_force_input,
                     "Whether the plant has an input "
                     "'applied_generalized_force', tau (nv,).");
  py::enum_<TimeSteppingOptions::OnNonConvergence>(
      tso, "OnNonConvergence",
      "What an island that does not converge does: kThrow raises RuntimeError "
      "naming the time and island, kWarnAndCount keeps the last iterate and "
      "counts it.")
      .value("kThrow", TimeSteppingOptions::OnNonConvergence::kThrow)
      .value("kWarnAndCount",
             TimeSteppingOptions::OnNonConvergence::kWarnAndCount);
  using Stats = TimeSteppingStepStats;
  py::class_<Stats>(m, "TimeSteppingStepStats",
                    "What the last step computed with a Context did "
                    "(TimeSteppingRigidBodySystem.get_step_stats).")
      .def_readonly("num_contacts", &Stats::num_contacts,
                    "Number of contact points in the step (int).")
      .def_readonly("num_rows", &Stats::num_rows,
                    "Number of constraint rows in all (int).")
      .def_readonly("num_islands", &Stats::num_islands,
                    "Islands with at least one row.")
      .def_readonly("num_sleeping_islands", &Stats::num_sleeping_islands,
                    "Number of islands frozen by the sleeping option (int).")
      .def_readonly("pgs_sweeps", &Stats::pgs_sweeps,
                    "Summed over PGS islands (partial sweeps, which skip "
                    "settled contacts, counted too).")
      .def_readonly("pgs_group_steps", &Stats::pgs_group_steps,
                    "Contact, limit and bilateral group steps the PGS "
                    "sweeps made, summed over PGS islands.")
      .def_readonly("lemke_pivots", &Stats::lemke_pivots,
                    "Lemke pivots, summed over Lemke islands (int).")
      .def_readonly("warm_started", &Stats::warm_started,
                    "Contacts matched to the previous step.")
      .def_readonly("convex_iterations", &Stats::convex_iterations,
                    "Newton iterations, summed over islands.")
      .def_readonly("pgs_fallbacks", &Stats::pgs_fallbacks,
                    "Under kConvex, pile islands PGS did not converge on, "
                    "solved again by the convex solver (int).")
      .def_readonly("max_island_iterations", &Stats::max_island_iterations,
                    "Largest iterations (or sweeps) of one island.")
      .def_readonly(
          "resolves", &Stats::resolves,
          "Whether the step was solved again because it carried a joint past a "
          "limit that had no row: 1 if so, else 0 (int).")
      .def_readonly("max_residual", &Stats::max_residual,
                    "Largest relative residual of an island.")
      .def_readonly("unconverged_islands", &Stats::unconverged_islands,
                    "Islands that did not converge in this step, under "
                    "kWarnAndCount (int).")
      .def_readonly("converged", &Stats::converged,
                    "Every island of this step converged.")
      .def_readonly("warnings", &Stats::warnings,
                    "Unconverged islands since the first step.");
  using TS = TimeSteppingRigidBodySystem;
  py::class_<TS, LS>(m, "TimeSteppingRigidBodySystem", py::dynamic_attr(),
                     "The discrete-time robot plant (period h): state [q; v], "
                     "contact and joint limits by a solver per island.")
      .def(py::init([](const Tree& tree, const GeometryModel& geometry,
                       double period,
                       const std::vector<std::shared_ptr<Act>>& actuators,
                       const std::vector<std::shared_ptr<Sen>>& sensors,
                       const TimeSteppingOptions& options) {
             return std::make_unique<TS>(
                 tree, geometry, period, Const(actuators), Const(sensors),
                 std::vector<TS::BilateralPtr>{}, options);
           }),
           py::arg("tree"), py::arg("geometry"), py::arg("period"),
           py::arg("actuators") = std::vector<int>{},
           py::arg("sensors") = std::vector<int>{},
           py::arg("options") = TimeSteppingOptions{},
           "A plant of copies of `tree` and `geometry` stepping every `period` "
           "s, with these actuators, sensors and options.")
      .def("tree", &TS::tree, py::return_value_policy::reference_internal,
           "The plant's own copy of the tree (valid while the plant lives).")
      .def("period", &TS::period, "The plant's time step h, s (float).")
      .def(
          "get_actuator_input_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const TS&>().get_actuator_input_port(name));
          },
          py::arg("name"), "The input port of the actuator named `name`.")
      .def(
          "get_sensor_output_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const TS&>().get_sensor_output_port(name));
          },
          py::arg("name"), "The output port of the sensor named `name`.")
      .def(
          "set_positions_and_velocities",
          [](const TS& s, Context<double>* c, const Eigen::VectorXd& q,
             const Eigen::VectorXd& v) {
            s.SetPositionsAndVelocities(c, q, v);
          },
          py::arg("context"), py::arg("q"), py::arg("v"),
          "Writes q (nq,) and v (nv,) into the plant's context.")
      .def(
          "get_state",
          [](const TS& s, const Context<double>& c) {
            return Eigen::VectorXd(s.GetState(c));
          },
          py::arg("context"),
          "The state [q; v] (nq + nv,) in the plant's context (a copy).")
      .def("get_step_stats", &TS::GetStepStats, py::arg("context"),
           "TimeSteppingStepStats of the last step computed with the plant's "
           "context (a copy).")
      .def(
          "get_actuator_forces",
          [](const TS& s, const Context<double>& c) {
            return Eigen::VectorXd(s.GetActuatorForces(c));
          },
          py::arg("context"),
          "Generalized force (nv,) the actuators applied in the last step "
          "(a copy).");
  py::class_<ActuatorSystem<double>, LS>(m, "ActuatorSystem",
                                         py::dynamic_attr(),
                                         "An actuator as a standalone block.")
      .def(py::init([](const Tree& tree, std::shared_ptr<Act> a) {
             return std::make_unique<ActuatorSystem<double>>(tree,
                                                             std::move(a));
           }),
           py::arg("tree"), py::arg("actuator"),
           "A block running `actuator` on a copy of `tree`.");
  py::class_<SensorSystem<double>, LS>(m, "SensorSystem", py::dynamic_attr(),
                                       "A sensor as a standalone block.")
      .def(py::init([](const Tree& tree, std::shared_ptr<Sen> s) {
             return std::make_unique<SensorSystem<double>>(tree, std::move(s));
           }),
           py::arg("tree"), py::arg("sensor"),
           "A block running `sensor` on a copy of `tree`.");
}

}  // namespace tern::python
