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
  py::class_<Shape>(m, "Shape", "A collision shape (make with the statics).")
      .def_readonly("kind", &Shape::kind, "The shape kind: a ShapeKind.")
      .def_readonly("dims", &Shape::dims, "Dimensions (see shape.h), m.")
      .def_static("sphere", &Shape::Sphere, py::arg("radius"), "Sphere.")
      .def_static("box", &Shape::Box, py::arg("size_x"), py::arg("size_y"),
                  py::arg("size_z"), "Box by full side lengths.")
      .def_static("capsule", &Shape::Capsule, py::arg("radius"),
                  py::arg("length"), "Capsule along z.")
      .def_static("cylinder", &Shape::Cylinder, py::arg("radius"),
                  py::arg("length"), "Cylinder along z.")
      .def_static("ellipsoid", &Shape::Ellipsoid, py::arg("a"), py::arg("b"),
                  py::arg("c"), "Ellipsoid by semi-axes.")
      .def_static("half_space", &Shape::HalfSpace, "z <= 0 of its frame.")
      .def_static("convex_hull", &Shape::ConvexHull, py::arg("points"),
                  "Convex hull of >= 4 points (list of 3-vectors).");
  py::class_<ContactProperties>(m, "ContactProperties",
                                "Contact material of a geometry.")
      .def(py::init<>(), "Defaults.")
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
      .def_readwrite("name", &Geometry::name, "Geometry name (str).")
      .def_readwrite("body", &Geometry::body, "Body index (0: world).")
      .def_readwrite("X_BG", &Geometry::X_BG, "Pose in the body.")
      .def_readwrite("shape", &Geometry::shape,
                     "Its Shape (kind and dimensions).")
      .def_readwrite("properties", &Geometry::properties,
                     "Its ContactProperties (the material).")
      .def_readwrite("group", &Geometry::group, "Filter group bits.")
      .def_readwrite("mask", &Geometry::mask, "Filter mask bits.")
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
          "The tree's <collision> geometry.")
      .def("add_geometry", &GeometryModel::AddGeometry, py::arg("geometry"),
           "Adds a geometry; returns its index.")
      .def("exclude_body_pair",
           py::overload_cast<int, int>(&GeometryModel::ExcludeBodyPair),
           py::arg("body_a"), py::arg("body_b"), "Never test these bodies.")
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
           "Number of geometries (int).")
      .def("num_bodies", &GeometryModel::num_bodies,
           "Number of bodies of the tree (int).")
      .def("geometry", &GeometryModel::geometry, py::arg("index"),
           py::return_value_policy::reference_internal, "Geometry by index.");
  py::class_<GeometryWorkspace>(
      m, "GeometryWorkspace",
      "Workspace of the queries for one model (one per thread).")
      .def(py::init<const GeometryModel&>(), py::arg("model"), "Sized.")
      .def(
          "X_WG",
          [](const GeometryWorkspace& w, int g) { return w.X_WG.at(g); },
          py::arg("geometry"), "Pose of a geometry in world (a copy).");
  py::class_<Contact>(m, "Contact", "A contact point between two geometries.")
      .def_readonly("geometry_a", &Contact::geometry_a,
                    "Index of geometry A (int).")
      .def_readonly("geometry_b", &Contact::geometry_b,
                    "Index of geometry B (int).")
      .def_readonly("body_a", &Contact::body_a,
                    "Body index of geometry A (int).")
      .def_readonly("body_b", &Contact::body_b,
                    "Body index of geometry B (int).")
      .def_readonly("normal", &Contact::normal, "Unit normal A to B, world.")
      .def_readonly("signed_distance", &Contact::signed_distance,
                    "Signed distance phi, m (< 0: penetration).")
      .def_readonly("p_WA", &Contact::p_WA, "Point on A, world.")
      .def_readonly("p_WB", &Contact::p_WB, "Point on B, world.");
  py::class_<RayHit>(m, "RayHit", "Result of a ray cast.")
      .def_readonly("hit", &RayHit::hit, "Whether it hit.")
      .def_readonly("distance", &RayHit::distance, "m along the ray.")
      .def_readonly("geometry", &RayHit::geometry, "Geometry hit.")
      .def_readonly("body", &RayHit::body,
                    "Body index of the geometry hit (int).")
      .def_readonly("point", &RayHit::point, "World point.")
      .def_readonly("normal", &RayHit::normal, "World unit normal.");
  m.def(
      "update_geometry_poses",
      [](const GeometryModel& model, const KinematicsCache<double>& cache,
         GeometryWorkspace* ws) { UpdateGeometryPoses(model, cache.X_WB, ws); },
      py::arg("model"), py::arg("cache"), py::arg("workspace"),
      "Geometry poses from the body poses of forward_kinematics.");
  m.def(
      "update_geometry_poses_from",
      [](const GeometryModel& model,
         const std::vector<RigidTransform<double>>& X_WB,
         GeometryWorkspace* ws) { UpdateGeometryPoses(model, X_WB, ws); },
      py::arg("model"), py::arg("X_WB"), py::arg("workspace"),
      "Geometry poses from a list of body poses (one per body).");
  m.def("compute_candidate_pairs", &ComputeCandidatePairs, py::arg("model"),
        py::arg("workspace"), py::arg("margin") = 0.0,
        "Broad phase: pairs (a, b) whose boxes overlap (a copy).");
  m.def("compute_contacts", &ComputeContacts, py::arg("model"),
        py::arg("workspace"), py::arg("margin") = 0.0,
        "Contacts with phi <= margin (a copy).");
  m.def("cast_ray", &CastRay, py::arg("model"), py::arg("workspace"),
        py::arg("origin"), py::arg("dir"), py::arg("max_distance"),
        py::arg("ignore_body") = -1, "The first geometry the ray hits.");
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
      "A batch of rays (3 x k arrays); a list of RayHit.");

  // ---- Actuators (shared: a plant and a standalone block may share one).
  py::class_<Act, std::shared_ptr<Act>>(
      m, "Actuator", "A force element of the plant (tree, cache, inputs).")
      .def("name", &Act::name, "The actuator name (str).")
      .def("num_inputs", &Act::num_inputs, "Command size.")
      .def("num_states", &Act::num_states, "Own state size.");
  py::class_<TorqueSource<double>, Act, std::shared_ptr<TorqueSource<double>>>(
      m, "TorqueSource", "Joint torques commanded per joint.")
      .def(py::init<const Tree&, const std::vector<std::string>&, double,
                    std::string, const std::vector<double>&>(),
           py::arg("tree"), py::arg("joints"),
           py::arg("motor_time_constant") = 0.0,
           py::arg("name") = "torque_source",
           py::arg("effort_limits") = std::vector<double>{},
           "On these joints; effort_limits (one per joint, inf: none) "
           "replace the URDF's.")
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
          "(limited, clamped): the command after the effort limits (the "
          "applied effort without motor lag) and 1 where a limit clamped it.");
  py::class_<GeneralizedForce<double>, Act,
             std::shared_ptr<GeneralizedForce<double>>>(
      m, "GeneralizedForce", "tau (nv) as the command.")
      .def(py::init<const Tree&, std::string>(), py::arg("tree"),
           py::arg("name") = "generalized_force", "For the tree.");
  py::class_<SpatialForceActuator<double>, Act,
             std::shared_ptr<SpatialForceActuator<double>>>(
      m, "SpatialForceActuator", "A commanded wrench at a body point.")
      .def(py::init<const Tree&, const std::string&, const V3&, std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("p_BP"),
           py::arg("name") = "spatial_force", "At p_BP in body.");
  py::class_<LinearSpringDamper<double>, Act,
             std::shared_ptr<LinearSpringDamper<double>>>(
      m, "LinearSpringDamper", "A spring-damper between two body points.")
      .def(py::init<const Tree&, const std::string&, const V3&,
                    const std::string&, const V3&, double, double, double,
                    std::string>(),
           py::arg("tree"), py::arg("body_a"), py::arg("p_AP"),
           py::arg("body_b"), py::arg("p_BQ"), py::arg("stiffness"),
           py::arg("damping"), py::arg("rest_length"),
           py::arg("name") = "spring_damper", "Between P on A and Q on B.");
  py::class_<AerodynamicDrag<double>, Act,
             std::shared_ptr<AerodynamicDrag<double>>>(
      m, "AerodynamicDrag", "Quadratic drag at a body point.")
      .def(py::init<const Tree&, const std::string&, const V3&, double,
                    std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("p_BP"),
           py::arg("drag_coefficient"), py::arg("name") = "aerodynamic_drag",
           "At p_BP in body.");
  py::class_<Propeller<double>, Act, std::shared_ptr<Propeller<double>>>(
      m, "Propeller", "Thrust and drag torque along an axis.")
      .def(py::init<const Tree&, const std::string&, const V3&, const V3&,
                    double, double, int, std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("p_BP"), py::arg("axis_B"),
           py::arg("thrust_coefficient"), py::arg("moment_coefficient"),
           py::arg("spin"), py::arg("name") = "propeller",
           "Command: squared speed.");
  py::class_<CompliantContactParameters> ccp(
      m, "CompliantContactParameters", "Compliant contact law parameters.");
  py::enum_<CompliantContactParameters::NormalLaw>(ccp, "NormalLaw",
                                                   "Normal force law.")
      .value("kLinear", CompliantContactParameters::NormalLaw::kLinear)
      .value("kHuntCrossley",
             CompliantContactParameters::NormalLaw::kHuntCrossley);
  ccp.def(py::init<>(), "Defaults.")
      .def_readwrite("tangential_damping",
                     &CompliantContactParameters::tangential_damping,
                     "Tangential damping, N s/m.")
      .def_readwrite("margin", &CompliantContactParameters::margin,
                     "Contacts are taken up to this distance, m.")
      .def_readwrite("normal_law", &CompliantContactParameters::normal_law,
                     "The normal force law: a NormalLaw.")
      .def_readwrite("hunt_crossley_dissipation",
                     &CompliantContactParameters::hunt_crossley_dissipation,
                     "Hunt-Crossley dissipation, s/m.");
  py::class_<CompliantContact, Act, std::shared_ptr<CompliantContact>>(
      m, "CompliantContact", "Penalty contact forces from a GeometryModel.")
      .def(py::init<const Tree&, GeometryModel, CompliantContactParameters,
                    std::string>(),
           py::arg("tree"), py::arg("model"),
           py::arg("parameters") = CompliantContactParameters{},
           py::arg("name") = "compliant_contact", "Copies the model.");

  // ---- Sensors.
  py::class_<Sen, std::shared_ptr<Sen>>(m, "Sensor",
                                        "A measurement of the plant.")
      .def("name", &Sen::name, "The sensor name (str).")
      .def("num_outputs", &Sen::num_outputs, "Reading size.");
  py::class_<FullStateSensor<double>, Sen,
             std::shared_ptr<FullStateSensor<double>>>(
      m, "FullStateSensor",
      "A sensor reading the full state y = [q; v] (nq + nv,).")
      .def(py::init<const Tree&, std::string>(), py::arg("tree"),
           py::arg("name") = "full_state", "For the tree.");
  py::class_<Encoder<double>, Sen, std::shared_ptr<Encoder<double>>>(
      m, "Encoder", "Quantized joint angles.")
      .def(py::init<const Tree&, const std::vector<std::string>&, int,
                    std::string>(),
           py::arg("tree"), py::arg("joints"), py::arg("ticks_per_revolution"),
           py::arg("name") = "encoder", "On these joints.");
  py::class_<Imu<double>, Sen, std::shared_ptr<Imu<double>>>(
      m, "Imu", "Accelerometer and gyroscope at a body frame.")
      .def(py::init<const Tree&, const std::string&,
                    const RigidTransform<double>&, double, double,
                    std::string>(),
           py::arg("tree"), py::arg("body"), py::arg("X_BS"),
           py::arg("accel_noise_stddev") = 0.0,
           py::arg("gyro_noise_stddev") = 0.0, py::arg("name") = "imu",
           "At X_BS in body.");
  py::class_<ForceTorqueSensor<double>, Sen,
             std::shared_ptr<ForceTorqueSensor<double>>>(
      m, "ForceTorqueSensor", "Wrench transmitted by a joint.")
      .def(py::init<const Tree&, const std::string&, std::string>(),
           py::arg("tree"), py::arg("joint"), py::arg("name") = "force_torque",
           "At this joint.");
  py::class_<Lidar, Sen, std::shared_ptr<Lidar>>(m, "Lidar",
                                                 "A planar scan of ray casts.")
      .def(py::init<const Tree&, GeometryModel, const std::string&,
                    const RigidTransform<double>&, int, double, double, double,
                    std::string>(),
           py::arg("tree"), py::arg("model"), py::arg("body"), py::arg("X_BS"),
           py::arg("num_rays"), py::arg("angle_min"), py::arg("angle_max"),
           py::arg("max_range"), py::arg("name") = "lidar",
           "Rays in the sensor's x-y plane.");

  // ---- Rigid contact (the continuous plant's frictional contact).
  py::class_<BaumgarteGains>(m, "BaumgarteGains",
                             "Constraint stabilization: the rows are "
                             "J vdot + Jdot v + 2 alpha J v + beta^2 phi.")
      .def(py::init<>(), "alpha = beta = 20 1/s.")
      .def(py::init([](double alpha, double beta) {
             return BaumgarteGains{alpha, beta};
           }),
           py::arg("alpha"), py::arg("beta"), "Given gains, 1/s.")
      .def_readwrite("alpha", &BaumgarteGains::alpha,
                     "Velocity-error gain, 1/s.")
      .def_readwrite("beta", &BaumgarteGains::beta,
                     "Position-error gain, 1/s.");
  using RCP = RigidContactParameters;
  py::class_<RCP>(m, "RigidContactParameters",
                  "Parameters of RigidContact (rigid_contact.h).")
      .def(py::init<>(), "Defaults.")
      .def_readwrite("contact_tolerance", &RCP::contact_tolerance,
                     "m: a contact with phi <= this is touching (> 0).")
      .def_readwrite("impact_velocity", &RCP::impact_velocity,
                     "m/s: approaching faster than this is an impact.")
      .def_readwrite("stick_velocity", &RCP::stick_velocity,
                     "m/s: a touching contact slower than this sticks.")
      .def_readwrite("num_friction_directions", &RCP::num_friction_directions,
                     "Edges of the polyhedral friction cone of sticking "
                     "contacts (>= 3).")
      .def_readwrite("gains", &RCP::gains,
                     "BaumgarteGains of the normal and sticking rows.")
      .def_readwrite("witness_margin", &RCP::witness_margin,
                     "m: the impact witness looks at contacts this near.")
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
           py::arg("name") = "rigid_contact", "Copies the geometry model.")
      .def("name", &RigidContact::name, "The force element name (str).")
      .def("parameters", &RigidContact::parameters,
           "Its RigidContactParameters (a copy).")
      .def("num_positions", &RigidContact::num_positions, "nq of its tree.")
      .def("num_velocities", &RigidContact::num_velocities, "nv of its tree.");

  // ---- Systems.
  py::class_<RigidBodySystemOptions>(m, "RigidBodySystemOptions",
                                     "Options of RigidBodySystem.")
      .def(py::init<>(), "Defaults.")
      .def_readwrite("state_output", &RigidBodySystemOptions::state_output,
                     "Output 'state' [q; v].")
      .def_readwrite("acceleration_output",
                     &RigidBodySystemOptions::acceleration_output,
                     "Output 'generalized_acceleration'.")
      .def_readwrite("applied_generalized_force_input",
                     &RigidBodySystemOptions::applied_generalized_force_input,
                     "Input 'applied_generalized_force'.")
      .def_readwrite("coulomb_regularization_velocity",
                     &RigidBodySystemOptions::coulomb_regularization_velocity,
                     "rad/s or m/s.")
      .def_readwrite("enforce_mimic_joints",
                     &RigidBodySystemOptions::enforce_mimic_joints,
                     "Mimic joints as constraint rows (bool).")
      .def_readwrite("enforce_joint_limits",
                     &RigidBodySystemOptions::enforce_joint_limits,
                     "Joint limits as constraint rows (bool).")
      .def_readwrite("joint_limit_impacts",
                     &RigidBodySystemOptions::joint_limit_impacts,
                     "Plastic impact at joint limits.")
      .def_readwrite("joint_limit_impact_velocity",
                     &RigidBodySystemOptions::joint_limit_impact_velocity,
                     "rad/s or m/s.")
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
           py::arg("options") = RigidBodySystemOptions{}, "Copies the tree.")
      .def("tree", &RBS::tree, py::return_value_policy::reference_internal,
           "The plant's own copy of the tree (valid while the plant lives).")
      .def(
          "get_actuator_input_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const RBS&>().get_actuator_input_port(name));
          },
          py::arg("name"), "Input of actuator `name`.")
      .def(
          "get_sensor_output_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const RBS&>().get_sensor_output_port(name));
          },
          py::arg("name"), "Output of sensor `name`.")
      .def(
          "set_positions_and_velocities",
          [](const RBS& s, Context<double>* c, const Eigen::VectorXd& q,
             const Eigen::VectorXd& v) {
            s.SetPositionsAndVelocities(c, q, v);
          },
          py::arg("context"), py::arg("q"), py::arg("v"),
          "Writes q and v into the plant's context.");
  py::class_<TimeSteppingOptions> tso(m, "TimeSteppingOptions",
                                      "Options of TimeSteppingRigidBodySystem "
                                      "(a selection; docs/plant.md).");
  py::enum_<TimeSteppingOptions::Solver>(tso, "Solver")
      .value("kAuto", TimeSteppingOptions::Solver::kAuto)
      .value("kLemke", TimeSteppingOptions::Solver::kLemke)
      .value("kPgs", TimeSteppingOptions::Solver::kPgs)
      .value("kConvex", TimeSteppingOptions::Solver::kConvex);
  tso.def(py::init<>(), "Defaults (docs/plant.md).")
      .def_readwrite("solver", &TimeSteppingOptions::solver,
                     "Island solver (Solver; kConvex by default).")
      .def_readwrite("convex_max_iterations",
                     &TimeSteppingOptions::convex_max_iterations,
                     "Convex solver: Newton iterations cap.")
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
                     "OnNonConvergence: kThrow (default) or kWarnAndCount.")
      .def_readwrite(
          "lemke_max_unknowns", &TimeSteppingOptions::lemke_max_unknowns,
          "kAuto: Lemke for robot islands up to this many LCP unknowns.")
      .def_readwrite("friction_directions",
                     &TimeSteppingOptions::friction_directions,
                     "Polyhedral cone directions (Lemke, PGS; >= 3).")
      .def_readwrite("contact_margin", &TimeSteppingOptions::contact_margin,
                     "m: contacts are taken up to this signed distance.")
      .def_readwrite(
          "speculative_contacts", &TimeSteppingOptions::speculative_contacts,
          "Speculative contacts from the swept motion (no tunnelling).")
      .def_readwrite("contact_erp", &TimeSteppingOptions::contact_erp,
                     "Fraction of the penetration beyond penetration_slop "
                     "removed per step.")
      .def_readwrite("penetration_slop", &TimeSteppingOptions::penetration_slop,
                     "m (rad for joint limits): penetration left alone.")
      .def_readwrite("bilateral_erp", &TimeSteppingOptions::bilateral_erp,
                     "Bilateral rows: J vn = -bilateral_erp phi / h.")
      .def_readwrite(
          "joint_limit_margin", &TimeSteppingOptions::joint_limit_margin,
          "rad or m: joint-limit rows are taken this near the limit.")
      .def_readwrite("pgs_max_iterations",
                     &TimeSteppingOptions::pgs_max_iterations,
                     "PGS sweeps cap.")
      .def_readwrite(
          "pgs_tolerance", &TimeSteppingOptions::pgs_tolerance,
          "PGS tolerance on the largest row-velocity change of a sweep, m/s.")
      .def_readwrite("warm_start", &TimeSteppingOptions::warm_start,
                     "Warm start from the previous step's impulses.")
      .def_readwrite("warm_start_radius",
                     &TimeSteppingOptions::warm_start_radius,
                     "m: a contact takes the impulse of the nearest previous "
                     "one within this.")
      .def_readwrite("sleeping", &TimeSteppingOptions::sleeping,
                     "Freeze islands at rest (off by default).")
      .def_readwrite(
          "sleep_velocity", &TimeSteppingOptions::sleep_velocity,
          "m/s or rad/s: an island slower than this for sleep_time sleeps.")
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
      .def_readwrite("enforce_joint_limits",
                     &TimeSteppingOptions::enforce_joint_limits,
                     "Joint-limit rows.")
      .def_readwrite("joint_friction", &TimeSteppingOptions::joint_friction,
                     "Joint Coulomb friction as bounded rows (|f| <= F h).")
      .def_readwrite("enforce_mimic_joints",
                     &TimeSteppingOptions::enforce_mimic_joints,
                     "Mimic-joint rows.")
      .def_readwrite("state_output", &TimeSteppingOptions::state_output,
                     "Output 'state' [q; v].")
      .def_readwrite("applied_generalized_force_input",
                     &TimeSteppingOptions::applied_generalized_force_input,
                     "Input 'applied_generalized_force' (nv).");
  py::enum_<TimeSteppingOptions::OnNonConvergence>(tso, "OnNonConvergence")
      .value("kThrow", TimeSteppingOptions::OnNonConvergence::kThrow)
      .value("kWarnAndCount",
             TimeSteppingOptions::OnNonConvergence::kWarnAndCount);
  using Stats = TimeSteppingStepStats;
  py::class_<Stats>(m, "TimeSteppingStepStats",
                    "What the last step computed with a Context did "
                    "(TimeSteppingRigidBodySystem.get_step_stats).")
      .def_readonly("num_contacts", &Stats::num_contacts, "Contact points.")
      .def_readonly("num_rows", &Stats::num_rows, "Constraint rows in all.")
      .def_readonly("num_islands", &Stats::num_islands,
                    "Islands with at least one row.")
      .def_readonly("num_sleeping_islands", &Stats::num_sleeping_islands,
                    "Frozen islands.")
      .def_readonly("pgs_sweeps", &Stats::pgs_sweeps,
                    "Summed over PGS islands (partial sweeps, which skip "
                    "settled contacts, counted too).")
      .def_readonly("pgs_group_steps", &Stats::pgs_group_steps,
                    "Contact, limit and bilateral group steps the PGS "
                    "sweeps made, summed over PGS islands.")
      .def_readonly("lemke_pivots", &Stats::lemke_pivots,
                    "Summed over Lemke islands.")
      .def_readonly("warm_started", &Stats::warm_started,
                    "Contacts matched to the previous step.")
      .def_readonly("convex_iterations", &Stats::convex_iterations,
                    "Newton iterations, summed over islands.")
      .def_readonly("pgs_fallbacks", &Stats::pgs_fallbacks,
                    "kConvex: pile islands PGS did not converge on.")
      .def_readonly("max_island_iterations", &Stats::max_island_iterations,
                    "Largest iterations (or sweeps) of one island.")
      .def_readonly("resolves", &Stats::resolves,
                    "1 if the step was solved again because it carried a "
                    "joint past a limit that had no row, else 0.")
      .def_readonly("max_residual", &Stats::max_residual,
                    "Largest relative residual of an island.")
      .def_readonly("unconverged_islands", &Stats::unconverged_islands,
                    "This step (kWarnAndCount).")
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
           "Copies the tree and the geometry.")
      .def("tree", &TS::tree, py::return_value_policy::reference_internal,
           "The plant's own copy of the tree (valid while the plant lives).")
      .def("period", &TS::period, "The step h, s.")
      .def(
          "get_actuator_input_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const TS&>().get_actuator_input_port(name));
          },
          py::arg("name"), "Input of actuator `name`.")
      .def(
          "get_sensor_output_port",
          [](py::object self, const std::string& name) {
            return PortObject(
                self, self.cast<const TS&>().get_sensor_output_port(name));
          },
          py::arg("name"), "Output of sensor `name`.")
      .def(
          "set_positions_and_velocities",
          [](const TS& s, Context<double>* c, const Eigen::VectorXd& q,
             const Eigen::VectorXd& v) {
            s.SetPositionsAndVelocities(c, q, v);
          },
          py::arg("context"), py::arg("q"), py::arg("v"),
          "Writes q and v into the plant's context.")
      .def(
          "get_state",
          [](const TS& s, const Context<double>& c) {
            return Eigen::VectorXd(s.GetState(c));
          },
          py::arg("context"),
          "[q; v] (nq + nv,) in the plant's context (a "
          "copy).")
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
           py::arg("tree"), py::arg("actuator"), "Copies the tree.");
  py::class_<SensorSystem<double>, LS>(m, "SensorSystem", py::dynamic_attr(),
                                       "A sensor as a standalone block.")
      .def(py::init([](const Tree& tree, std::shared_ptr<Sen> s) {
             return std::make_unique<SensorSystem<double>>(tree, std::move(s));
           }),
           py::arg("tree"), py::arg("sensor"), "Copies the tree.");
}

}  // namespace tern::python
