#include "tern/multibody/plant/time_stepping_rigid_body_system.h"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>

#include "tern/multibody/plant/element_scratch.h"
#include "tern/multibody/plant/time_stepping_internal.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/dynamics_derivatives.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/solvers/convex_contact_solver.h"
#include "tern/solvers/lemke.h"

namespace tern {

namespace internal {

// A subtree: the bodies that hang from the world (or from bodies welded to
// it) through one mobile joint, and their velocity indices. Subtrees are
// independent in H (block diagonal), so a row acting on two subtrees
// couples only them.
struct SubtreeInfo {
  bool free{false};           // one body on a floating joint to the world
  bool com_at_origin{false};  // free: its center of mass at B's origin
  bool floating{false};       // on a floating joint to the world (or free)
  int body{0};                // free: the body
  int qstart{0};              // free: first position index
  int dof_start{0};           // offset of this subtree's dofs in the dof list
  int n{0};                   // number of dofs
  int h_offset{0};       // articulated: offset of its n x n factor in the pool
  Matrix6<double> M;     // free: spatial inertia about B's origin, in B
  Matrix6<double> Minv;  // free: its inverse
};

// What a step carries to the next (abstract state 0): the contact impulses
// for warm start, sorted by key, and per subtree the number of steps it
// has been still (sleeping option).
struct WarmStartEntry {
  int c{0}, k1{0}, k2{0};
  Vector3<double> point{Vector3<double>::Zero()};  // contact: midpoint, m
  Vector3<double> P{Vector3<double>::Zero()};      // contact: impulse, world
  double p[6]{};                                   // other rows: impulses
};
struct TimeSteppingMemory {
  std::vector<WarmStartEntry> entries;
  std::vector<int> still_steps;  // (num subtrees)
};

struct TimeSteppingScratch {
  // with_mass_matrix: whether any subtree is articulated (free bodies use
  // their 6 x 6 inertia, so a scene of them never needs the nv x nv H).
  TimeSteppingScratch(const RigidBodyTree<double>& tree, int num_actuators,
                      bool with_mass_matrix)
      : cache(tree, with_mass_matrix),
        q(tree.num_positions()),
        v(tree.num_velocities()),
        vn(tree.num_velocities()),
        qdot(tree.num_positions()),
        vp(tree.num_velocities()),
        tau(tree.num_velocities()),
        tau_k(tree.num_velocities()),
        C(tree.num_velocities()),
        vdot(tree.num_velocities()),
        J(6, tree.num_velocities()),
        actuator_u(num_actuators, nullptr) {}
  KinematicsCache<double> cache;
  VectorX<double> q, v, vn, qdot;  // (nq), (nv), (nv), (nq)
  VectorX<double> vp;              // (nv) pseudo-velocities
  VectorX<double> tau, tau_k, C;   // (nv)
  VectorX<double> vdot;            // (nv) for sensors
  Matrix6X<double> J;              // (6 x nv)
  std::vector<const double*> actuator_u;
  ElementScratchList actuator_scratch, sensor_scratch, constraint_scratch;
  TimeSteppingRowStorage rows;
  std::vector<double> jac;  // Jacobian pool (see RowGroup::jac)
  // Per group: W = J M^-1 J^T (r x r, row major) at 72 gi, its (regularized)
  // inverse at 72 gi + 36.
  std::vector<double> wpool;
  std::vector<double> H;       // articulated subtrees' Cholesky factors
  std::vector<double> rhs;     // (max subtree dofs) scratch
  std::vector<int> uf;         // (subtrees) union-find parents
  std::vector<int> island_of;  // (subtrees) island of each subtree root
  std::vector<int> island_start, island_fill, order;
  std::vector<char> island_awake;
  std::vector<char> tree_asleep;  // (subtrees)
  std::vector<int> deep;          // groups to correct (CorrectPositions)
  // conserve_momentum: the free-motion velocities (nv) and, per subtree,
  // the spatial momentum [angular about the world origin; linear] in world
  // that the step must end with (floating robots only).
  VectorX<double> v_free;
  std::vector<Vector6<double>> momentum_target;
  std::vector<char> island_grounded;  // (islands) a contact with the ground
  // implicit_pd: per servoed joint its state this step, per dof the
  // implicit gain h (kd + h kp) added to the free-motion matrix, and the
  // actuators' generalized force as applied (GetActuatorForces).
  struct PdJoint {
    int dof{0};
    double u{0};        // torque at vn = v: kp (q_d - q - h v) + kd (v_d - v)
    double gain{0};     // kd + h kp, N m s / rad
    double limit{0};    // effort limit
    double applied{0};  // not implicit: the limit it applies, signed
    bool implicit{false};
  };
  std::vector<PdJoint> pd;
  VectorX<double> pd_gain, actuator_force;  // (nv)
  // implicit_velocity_products: d tau / dv at vdot = 0 (its dtau_dv), and
  // per subtree the free-motion matrix with it and its LU factors.
  std::optional<DynamicsDerivativesCache<double>> deriv;
  VectorX<double> zero_nv;  // (nv)
  std::vector<MatrixX<double>> ivp_A;
  std::vector<Eigen::PartialPivLU<MatrixX<double>>> ivp_lu;
  // Lemke islands: Delassus D (R x R), LCP M, q, z, w, and maps.
  MatrixX<double> D, A, Mlcp, E;
  VectorX<double> vfree, qlcp, z, w, pb, pu;
  std::vector<int> row_of_group, var_of_group;
  solvers::LemkeWorkspace lemke;
  // Convex islands: local offset of each subtree's dofs (-1 outside the
  // island), the island's subtrees, dense A, J, v*, b, v, gamma.
  std::vector<int> tree_off, isl_trees, island_dofs;
  MatrixX<double> cA, cJ;
  VectorX<double> cvstar, cb, cv, cgamma;
  std::vector<solvers::ConvexConstraint> ccons;
  solvers::ConvexSolverWorkspace convex;
  TimeSteppingStepStats stats;
};

struct TimeSteppingSlot {
  mutable TimeSteppingScratch s;
};

}  // namespace internal

using internal::RowGroup;
using internal::RowKind;
using internal::SubtreeInfo;
using internal::TimeSteppingMemory;
using internal::TimeSteppingScratch;
using internal::WarmStartEntry;

struct TimeSteppingRigidBodySystem::Impl {
  std::vector<SubtreeInfo> subtrees;
  std::vector<int> dofs;          // subtree dofs, concatenated
  std::vector<int> tree_of_body;  // (num bodies) subtree or -1 (anchored)
  std::vector<int> tree_of_dof;   // (nv)
  std::vector<int> local_of_dof;  // (nv) index within its subtree
  std::vector<double> damping;    // (nv) joint damping, treated implicitly
  std::vector<std::vector<int>> bodies_of_tree;  // (subtrees) their bodies
  std::vector<int> body_frame;  // (num bodies) frame index of each body
  // Articulated subtrees whose root body hangs from the world (or a body
  // welded to it) by a floating joint, and free bodies whose center of
  // mass is off their origin: their momentum is conserved
  // (TimeSteppingOptions::conserve_momentum).
  std::vector<int> floating_trees;
  std::vector<double> tree_mass;  // (subtrees) kg
  // implicit_pd: per actuator, the servo it is (null: any other actuator).
  std::vector<const JointPdActuator<double>*> pd_actuator;
  int num_pd_joints{0};
  bool has_articulated{false};
  bool needs_velocity_kinematics{false};
  int max_subtree_dofs{0};
  int h_pool_size{0};
  std::vector<int> actuator_port, noise_port, sensor_port;
  int applied_port{-1};
  int accel_group{-1};
  // Polyhedral cone: directions d_j (in t1, t2) and the edge normals.
  int k{4};
  std::vector<double> dir_c, dir_s;    // (k) cos, sin of d_j
  std::vector<double> edge_c, edge_s;  // (k) outward edge normals
  double edge_d{0};                    // cos(pi / k)
  double edge_h{0};                    // sin(pi / k)

  static TimeSteppingScratch& Scratch(const Context<double>& context) {
    return context.get_abstract_parameter<internal::TimeSteppingSlot>(0).s;
  }
};

namespace {

// [w; v] of a free body: C = v x* (M v) - gravity wrench, in B.
Vector6<double> FreeBodyBias(const Matrix6<double>& M,
                             const SpatialInertia<double>& I,
                             const Matrix3<double>& R_WB,
                             const Vector3<double>& g_W,
                             const Vector6<double>& V) {
  const Vector6<double> h = M * V;
  const Vector3<double> w = V.head<3>(), vo = V.tail<3>();
  Vector6<double> C;
  C.head<3>() = w.cross(h.head<3>()) + vo.cross(h.tail<3>());
  C.tail<3>() = w.cross(h.tail<3>());
  const Vector3<double> g_B = R_WB.transpose() * g_W;
  C.head<3>() -= I.h.cross(g_B);
  C.tail<3>() -= I.m * g_B;
  return C;
}

}  // namespace

TimeSteppingRigidBodySystem::TimeSteppingRigidBodySystem(
    RigidBodyTree<double> tree, GeometryModel geometry, double period,
    std::vector<ActuatorPtr> actuators, std::vector<SensorPtr> sensors,
    std::vector<BilateralPtr> bilateral, TimeSteppingOptions options)
    : LeafSystem<double>("time_stepping_rigid_body_system"),
      tree_(std::move(tree)),
      period_(period),
      actuators_(std::move(actuators)),
      sensors_(std::move(sensors)),
      options_(options) {
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  const std::string who =
      fmt::format("TimeSteppingRigidBodySystem '{}'", tree_.name());
  if (!(period > 0) || !std::isfinite(period)) {
    throw std::invalid_argument(fmt::format(
        "{}: the period must be finite and > 0, got {}", who, period));
  }
  auto check_option = [&](bool ok, const char* name, double value) {
    if (!ok) {
      throw std::invalid_argument(
          fmt::format("{}: option {} is out of range: {}", who, name, value));
    }
  };
  check_option(options.friction_directions >= 3, "friction_directions",
               options.friction_directions);
  check_option(options.lemke_max_unknowns >= 0, "lemke_max_unknowns",
               options.lemke_max_unknowns);
  check_option(
      options.contact_margin >= 0 && std::isfinite(options.contact_margin),
      "contact_margin", options.contact_margin);
  check_option(options.contact_erp >= 0 && options.contact_erp <= 1,
               "contact_erp", options.contact_erp);
  check_option(options.penetration_slop >= 0, "penetration_slop",
               options.penetration_slop);
  check_option(options.contact_regularization >= 0, "contact_regularization",
               options.contact_regularization);
  check_option(options.bilateral_erp >= 0 && options.bilateral_erp <= 1,
               "bilateral_erp", options.bilateral_erp);
  check_option(options.joint_limit_margin >= 0 &&
                   std::isfinite(options.joint_limit_margin),
               "joint_limit_margin", options.joint_limit_margin);
  check_option(options.pgs_max_iterations >= 1, "pgs_max_iterations",
               options.pgs_max_iterations);
  check_option(options.pgs_tolerance > 0, "pgs_tolerance",
               options.pgs_tolerance);
  check_option(options.warm_start_radius >= 0, "warm_start_radius",
               options.warm_start_radius);
  check_option(options.sleep_velocity >= 0, "sleep_velocity",
               options.sleep_velocity);
  check_option(options.sleep_time >= 0, "sleep_time", options.sleep_time);
  check_option(options.convex_max_iterations >= 1, "convex_max_iterations",
               options.convex_max_iterations);
  check_option(options.convex_tolerance > 0, "convex_tolerance",
               options.convex_tolerance);
  check_option(options.convex_beta > 0 && std::isfinite(options.convex_beta),
               "convex_beta", options.convex_beta);
  check_option(options.convex_sigma > 0 && std::isfinite(options.convex_sigma),
               "convex_sigma", options.convex_sigma);
  check_option(options.convex_max_free_body_dofs >= 0,
               "convex_max_free_body_dofs", options.convex_max_free_body_dofs);
  check_option(options.constraint_regularization >= 0,
               "constraint_regularization", options.constraint_regularization);

  internal::CheckElements(who, "actuator", actuators_, nq, nv);
  internal::CheckElements(who, "sensor", sensors_, nq, nv);
  for (const auto& a : actuators_) {
    if (a->num_states() > 0) {
      throw std::invalid_argument(fmt::format(
          "{}: actuator '{}' has {} continuous state(s) (e.g. a motor lag); "
          "a discrete-time plant takes only actuators without continuous "
          "dynamics (seed 004): use RigidBodySystem, or build it with "
          "motor_time_constant = 0",
          who, a->name(), a->num_states()));
    }
  }
  if (geometry.num_bodies() != tree_.num_bodies()) {
    throw std::invalid_argument(
        fmt::format("{}: the geometry model has {} bodies but the tree has {}",
                    who, geometry.num_bodies(), tree_.num_bodies()));
  }

  // Constraints: contact, joint limits, bilateral (given, then mimic).
  constraints_.push_back(std::make_shared<TimeSteppingContact>(
      tree_, std::move(geometry), options.contact_margin, "contact",
      options.speculative_contacts));
  if (options.enforce_joint_limits) {
    auto limits = std::make_shared<TimeSteppingJointLimits>(
        tree_, options.joint_limit_margin);
    if (limits->num_limited_joints() > 0) constraints_.push_back(limits);
  }
  for (size_t k = 0; k < bilateral.size(); ++k) {
    if (!bilateral[k]) {
      throw std::invalid_argument(
          fmt::format("{}: bilateral constraint {} is null", who, k));
    }
    internal::CheckElementSizes(who, "constraint", bilateral[k]->name(),
                                bilateral[k]->num_positions(),
                                bilateral[k]->num_velocities(), nq, nv);
  }
  if (options.enforce_mimic_joints) {
    for (const MimicConstraint& m : tree_.mimic_constraints()) {
      bilateral.push_back(std::make_shared<JointCouplingConstraint<double>>(
          tree_, m.joint, m.leader_joint, m.multiplier, m.offset,
          BaumgarteGains{}, "mimic_" + m.joint));
    }
  }
  for (const BilateralPtr& b : bilateral) {
    constraints_.push_back(std::make_shared<TimeSteppingBilateralConstraint>(
        b, options.bilateral_erp));
  }

  // Subtrees.
  auto impl = std::make_unique<Impl>();
  const int nb = tree_.num_bodies();
  impl->tree_of_body.assign(nb, -1);
  impl->tree_of_dof.assign(nv, -1);
  impl->local_of_dof.assign(nv, -1);
  std::vector<char> anchored(nb, 0);
  anchored[0] = 1;
  std::vector<std::vector<int>> bodies_of;
  for (int b = 1; b < nb; ++b) {
    const RigidBody<double>& body = tree_.body(b);
    anchored[b] = anchored[body.parent] && body.num_velocities == 0;
    if (anchored[b]) continue;
    if (anchored[body.parent]) {
      impl->tree_of_body[b] = static_cast<int>(bodies_of.size());
      bodies_of.emplace_back();
    } else {
      impl->tree_of_body[b] = impl->tree_of_body[body.parent];
    }
    bodies_of[impl->tree_of_body[b]].push_back(b);
  }
  impl->damping.assign(nv, 0.0);
  for (int b = 1; b < nb; ++b) {
    const RigidBody<double>& body = tree_.body(b);
    for (int i = 0; i < body.num_velocities; ++i) {
      impl->damping[body.velocity_start + i] = body.joint.damping;
    }
  }
  impl->bodies_of_tree = bodies_of;
  for (size_t t = 0; t < bodies_of.size(); ++t) {
    SubtreeInfo info;
    info.dof_start = static_cast<int>(impl->dofs.size());
    for (int b : bodies_of[t]) {
      const RigidBody<double>& body = tree_.body(b);
      for (int i = 0; i < body.num_velocities; ++i) {
        const int dof = body.velocity_start + i;
        impl->tree_of_dof[dof] = static_cast<int>(t);
        impl->local_of_dof[dof] = info.n++;
        impl->dofs.push_back(dof);
      }
    }
    const RigidBody<double>& first = tree_.body(bodies_of[t][0]);
    info.free = bodies_of[t].size() == 1 && first.parent == 0 &&
                first.joint.type == JointType::kFloating &&
                first.joint.damping == 0 && first.joint.armature == 0;
    if (info.free) {
      info.body = bodies_of[t][0];
      info.qstart = first.position_start;
      first.inertia_with_welded.WriteMatrix(&info.M);
      info.Minv = info.M.inverse();
      info.com_at_origin = first.inertia_with_welded.h.isZero(0.0);
      if (!info.Minv.allFinite()) {
        throw std::invalid_argument(fmt::format(
            "{}: free body '{}' has a singular mass matrix (zero mass or "
            "inertia)",
            who, first.name));
      }
      // The dofs of a floating joint are consecutive.
      assert(impl->dofs[info.dof_start + 5] == first.velocity_start + 5);
    } else {
      impl->has_articulated = true;
      info.h_offset = impl->h_pool_size;
      impl->h_pool_size += info.n * info.n;
    }
    impl->max_subtree_dofs = std::max(impl->max_subtree_dofs, info.n);
    double mass = 0;
    for (int b : bodies_of[t]) mass += tree_.body(b).inertia.m;
    impl->tree_mass.push_back(mass);
    const bool floating_robot = !info.free &&
                                first.joint.type == JointType::kFloating &&
                                anchored[first.parent];
    info.floating = info.free || floating_robot;
    if ((floating_robot || (info.free && !info.com_at_origin)) &&
        options.conserve_momentum && mass > 0) {
      impl->floating_trees.push_back(static_cast<int>(t));
    }
    impl->subtrees.push_back(info);
  }
  for (int b = 0; b < nb; ++b) {
    impl->body_frame.push_back(tree_.FindFrameIndex(tree_.body(b).name));
  }
  for (const ActuatorPtr& a : actuators_) {
    impl->needs_velocity_kinematics |= a->needs_kinematics();
    const auto* pd = options.implicit_pd
                         ? dynamic_cast<const JointPdActuator<double>*>(a.get())
                         : nullptr;
    impl->pd_actuator.push_back(pd);
    if (pd != nullptr) {
      impl->num_pd_joints += static_cast<int>(pd->velocity_indices().size());
    }
  }
  impl->needs_velocity_kinematics |=
      constraints_.size() > 1 || options.speculative_contacts;
  impl->k = options.friction_directions;
  const double pi = std::numbers::pi;
  for (int j = 0; j < impl->k; ++j) {
    const double a = 2 * pi * j / impl->k;
    const double e = a + pi / impl->k;
    impl->dir_c.push_back(std::cos(a));
    impl->dir_s.push_back(std::sin(a));
    impl->edge_c.push_back(std::cos(e));
    impl->edge_s.push_back(std::sin(e));
  }
  impl->edge_d = std::cos(pi / impl->k);
  impl->edge_h = std::sin(pi / impl->k);

  // State: [q; v], the last accelerations if a sensor reads them, and the
  // warm-start memory.
  VectorX<double> x0(nq + nv);
  x0.head(nq) = tree_.GetZeroConfiguration();
  x0.tail(nv).setZero();
  this->DeclareDiscreteState(x0);
  bool needs_accel = false;
  for (const SensorPtr& s : sensors_) needs_accel |= s->needs_acceleration();
  if (needs_accel) {
    impl->accel_group = this->DeclareDiscreteState(VectorX<double>::Zero(nv));
  }
  {
    TimeSteppingMemory memory;
    memory.still_steps.assign(impl->subtrees.size(), 0);
    this->DeclareAbstractState(Value<TimeSteppingMemory>(std::move(memory)));
  }
  {
    internal::TimeSteppingSlot slot{TimeSteppingScratch(
        tree_, static_cast<int>(actuators_.size()), impl->has_articulated)};
    for (const ActuatorPtr& a : actuators_) {
      slot.s.actuator_scratch.items.push_back(a->MakeScratch());
    }
    for (const SensorPtr& sp : sensors_) {
      slot.s.sensor_scratch.items.push_back(sp->MakeScratch());
    }
    for (const auto& c : constraints_) {
      slot.s.constraint_scratch.items.push_back(c->MakeScratch());
    }
    slot.s.H.assign(impl->h_pool_size, 0.0);
    slot.s.rhs.assign(impl->max_subtree_dofs, 0.0);
    slot.s.rows.nv = nv;
    slot.s.v_free.setZero(nv);
    slot.s.pd.resize(impl->num_pd_joints);
    if (options.implicit_velocity_products && impl->has_articulated) {
      slot.s.deriv.emplace(tree_);
      slot.s.zero_nv.setZero(nv);
      for (const SubtreeInfo& st : impl->subtrees) {
        const int n = st.free ? 0 : st.n;
        slot.s.ivp_A.emplace_back(n, n);
        slot.s.ivp_lu.emplace_back(n);
      }
    }
    slot.s.pd_gain.setZero(nv);
    slot.s.actuator_force.setZero(nv);
    slot.s.momentum_target.assign(impl->subtrees.size(),
                                  Vector6<double>::Zero());
    this->DeclareAbstractParameter(
        Value<internal::TimeSteppingSlot>(std::move(slot)));
  }

  // Ports.
  for (const ActuatorPtr& a : actuators_) {
    impl->actuator_port.push_back(
        a->num_inputs() > 0
            ? this->DeclareVectorInputPort(a->name(), a->num_inputs())
                  .get_index()
            : -1);
  }
  if (options.applied_generalized_force_input) {
    impl->applied_port =
        this->DeclareVectorInputPort("applied_generalized_force", nv)
            .get_index();
  }
  for (const SensorPtr& s : sensors_) {
    impl->noise_port.push_back(
        s->num_noise_inputs() > 0
            ? this->DeclareVectorInputPort(s->name() + "_noise",
                                           s->num_noise_inputs(),
                                           RandomDistribution::kGaussian)
                  .get_index()
            : -1);
  }
  for (size_t k = 0; k < sensors_.size(); ++k) {
    const Sensor<double>& s = *sensors_[k];
    const Prerequisites prereq =
        s.num_noise_inputs() > 0 ? ticket::kAllSources
                                 : Prerequisites(ticket::kXd | ticket::kParams);
    const int index = static_cast<int>(k);
    const Impl* raw = impl.get();
    impl->sensor_port.push_back(
        this->DeclareVectorOutputPort(
                s.name(), s.num_outputs(),
                [this, raw, index](const Context<double>& c,
                                   VectorX<double>* y) {
                  auto& sc = Impl::Scratch(c);
                  const Sensor<double>& sensor = *sensors_[index];
                  const int nq = tree_.num_positions();
                  const int nv = tree_.num_velocities();
                  const VectorX<double>& x = c.get_discrete_state(0);
                  sc.q = x.head(nq);
                  sc.v = x.segment(nq, nv);
                  if (sensor.needs_acceleration()) {
                    sc.vdot = c.get_discrete_state(raw->accel_group);
                  }
                  internal::ReadSensor(
                      tree_, sensor, sc.q, sc.v,
                      sensor.needs_acceleration() ? &sc.vdot : nullptr,
                      raw->noise_port[index] >= 0
                          ? this->get_input_port(raw->noise_port[index])
                                .Eval(c)
                                .data()
                          : nullptr,
                      &sc.cache, &sc.J, sc.sensor_scratch.get(index),
                      y->data());
                },
                prereq)
            .get_index());
  }
  if (options.state_output) {
    this->DeclareVectorOutputPort(
        "state", nq + nv,
        [](const Context<double>& c, VectorX<double>* y) {
          *y = c.get_discrete_state(0);
        },
        ticket::kXd);
  }
  this->DeclarePeriodicUnrestrictedUpdateEvent(
      period, 0.0, [this](const Context<double>& c, State<double>* next) {
        CalcNextState(c, next);
      });
  impl_ = std::move(impl);
}

TimeSteppingRigidBodySystem::~TimeSteppingRigidBodySystem() = default;

const InputPort<double>& TimeSteppingRigidBodySystem::get_actuator_input_port(
    const std::string& name) const {
  for (size_t k = 0; k < actuators_.size(); ++k) {
    if (actuators_[k]->name() == name) {
      if (impl_->actuator_port[k] < 0) {
        throw std::invalid_argument(fmt::format(
            "TimeSteppingRigidBodySystem '{}': actuator '{}' takes no command",
            tree_.name(), name));
      }
      return this->get_input_port(impl_->actuator_port[k]);
    }
  }
  throw std::invalid_argument(
      fmt::format("TimeSteppingRigidBodySystem '{}': no actuator named '{}'",
                  tree_.name(), name));
}

const OutputPort<double>& TimeSteppingRigidBodySystem::get_sensor_output_port(
    const std::string& name) const {
  for (size_t k = 0; k < sensors_.size(); ++k) {
    if (sensors_[k]->name() == name) {
      return this->get_output_port(impl_->sensor_port[k]);
    }
  }
  throw std::invalid_argument(
      fmt::format("TimeSteppingRigidBodySystem '{}': no sensor named '{}'",
                  tree_.name(), name));
}

void TimeSteppingRigidBodySystem::SetPositionsAndVelocities(
    Context<double>* context, const Eigen::Ref<const VectorX<double>>& q,
    const Eigen::Ref<const VectorX<double>>& v) const {
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  if (q.size() != nq || v.size() != nv) {
    throw std::invalid_argument(fmt::format(
        "TimeSteppingRigidBodySystem '{}': SetPositionsAndVelocities got q of "
        "size {} and v of size {}, expected {} and {}",
        tree_.name(), q.size(), v.size(), nq, nv));
  }
  VectorX<double>& x = context->get_mutable_discrete_state(0);
  x.head(nq) = q;
  x.tail(nv) = v;
}

const VectorX<double>& TimeSteppingRigidBodySystem::GetState(
    const Context<double>& context) const {
  return context.get_discrete_state(0);
}

const VectorX<double>& TimeSteppingRigidBodySystem::GetActuatorForces(
    const Context<double>& context) const {
  return Impl::Scratch(context).actuator_force;
}

const TimeSteppingStepStats& TimeSteppingRigidBodySystem::GetStepStats(
    const Context<double>& context) const {
  return Impl::Scratch(context).stats;
}

namespace {

// Union-find with path halving.
int Find(std::vector<int>& uf, int i) {
  while (uf[i] != i) {
    uf[i] = uf[uf[i]];
    i = uf[i];
  }
  return i;
}

// Dot product of a row of a subtree Jacobian with vn at the subtree's dofs.
inline double RowDot(const double* row, const int* dofs, int n,
                     const double* vn) {
  double s = 0;
  for (int k = 0; k < n; ++k) s += row[k] * vn[dofs[k]];
  return s;
}

}  // namespace

// The solver, per step; see the header for the scheme.
struct TimeSteppingStepper {
  const TimeSteppingRigidBodySystem& sys;
  const TimeSteppingRigidBodySystem::Impl& impl;
  TimeSteppingScratch& s;
  const TimeSteppingOptions& opt;
  double h;
  bool any_penetration_{false};

  const int* Dofs(int t) const {
    return impl.dofs.data() + impl.subtrees[t].dof_start;
  }
  int N(int t) const { return impl.subtrees[t].n; }

  // Reserves `size` doubles in the Jacobian pool; returns the offset.
  int Alloc(int size, int* used) {
    const int offset = *used;
    *used += size;
    if (static_cast<int>(s.jac.size()) < *used) s.jac.resize(2 * *used);
    return offset;
  }

  // Adds sign * d^T (velocity Jacobian of the point p_W of `body`) to `row`
  // (the subtree's n dofs), for the rows' directions d (r of them, world).
  void AddPointRows(int body, const Vector3<double>& p_W, double sign,
                    const Vector3<double>* d, int r, double* J, int n) {
    const int t = impl.tree_of_body[body];
    const SubtreeInfo& st = impl.subtrees[t];
    const RigidTransform<double>& X = s.cache.X_WB[body];
    const Vector3<double> p_B = X.R.transpose() * (p_W - X.p);
    if (st.free) {
      // v_P = R (v_o + w x p_B): d . v_P = (p_B x d_B) . w + d_B . v_o.
      for (int i = 0; i < r; ++i) {
        const Vector3<double> d_B = X.R.transpose() * d[i];
        const Vector3<double> c = p_B.cross(d_B);
        double* row = J + i * n;
        for (int a = 0; a < 3; ++a) {
          row[a] += sign * c[a];
          row[3 + a] += sign * d_B[a];
        }
      }
      return;
    }
    WorldAlignedJacobian(sys.tree(), s.cache, impl.body_frame[body], p_B, &s.J);
    const int* dofs = Dofs(t);
    for (int i = 0; i < r; ++i) {
      double* row = J + i * n;
      for (int k = 0; k < n; ++k) {
        row[k] += sign * d[i].dot(s.J.col(dofs[k]).tail<3>());
      }
    }
  }

  // Y = (M_t^-1 J^T)^T for the r rows J (r x n, row major) of subtree t.
  void InverseMassTimes(int t, const double* J, int r, double* Y) {
    const SubtreeInfo& st = impl.subtrees[t];
    if (st.free) {
      for (int i = 0; i < r; ++i) {
        Eigen::Map<Vector6<double>>(Y + 6 * i).noalias() =
            st.Minv * Eigen::Map<const Vector6<double>>(J + 6 * i);
      }
      return;
    }
    const int n = st.n;
    Eigen::Map<const MatrixX<double>> L(s.H.data() + st.h_offset, n, n);
    for (int i = 0; i < r; ++i) {
      Eigen::Map<VectorX<double>> y(Y + n * i, n);
      y = Eigen::Map<const VectorX<double>>(J + n * i, n);
      L.triangularView<Eigen::Lower>().solveInPlace(y);
      L.triangularView<Eigen::Lower>().adjoint().solveInPlace(y);
    }
  }

  void Run(const Context<double>& context, State<double>* next);
  void FreeVelocities();
  void RotateFreeVelocities(const VectorX<double>& qn);
  void MomentumAtStart();
  void ServoTorques();
  bool SaturateServos();
  void AddConstraintImpulses();
  void ConserveMomentum(const VectorX<double>& qn);
  void BuildRows(const Context<double>& context);
  void BuildIslands(const TimeSteppingMemory& memory);
  void WarmStart(const TimeSteppingMemory& memory);
  void SolvePgs(int island);
  bool SolveLemke(int island);
  void SolveConvex(int island);
  void IslandFailed(int island, const char* solver, int iterations,
                    double residual, double tolerance);
  double time_{0};
  double SolveGroupPgs(int gi);
  double SolveContactFast(int gi);
  void CorrectPositions();
  void LocalBlocks();
  void LocalBlock(int gi);
  void FormInverseMassRows(int gi);
  void ContactLocal(const RowGroup& g, const double* W, const double* Winv,
                    const double* u0, double* p);
  bool InPolygon(double x1, double x2, double R) const;
  void ProjectPolygon(double R, double* x1, double* x2) const;
  void ApplyImpulse(const RowGroup& g, const double* dp);
};

// A free body whose center of mass is its origin keeps its momentum and
// angular momentum in world coordinates over the step (no forces but those
// applied): its body-frame velocities are those of the step turned into
// the body's new orientation, R_n^T R_{n+1}, taken from the quaternions
// the step actually wrote (so pseudo-velocities of the position
// correction and the quaternion update's own angle are accounted for).
// This replaces the explicit velocity-product terms w x m v and w x I w,
// whose forward-Euler treatment scales |v| by sqrt(1 + (h |w|)^2) per
// step: a ball rolling at 50 rad/s would gain speed.
void TimeSteppingStepper::RotateFreeVelocities(const VectorX<double>& qn) {
  const RigidBodyTree<double>& tree = sys.tree();
  for (size_t t = 0; t < impl.subtrees.size(); ++t) {
    const SubtreeInfo& st = impl.subtrees[t];
    if (!st.free || !st.com_at_origin || s.tree_asleep[t]) continue;
    const int v0 = Dofs(static_cast<int>(t))[0];
    const int q0 = st.qstart + 3;
    if (qn.segment<4>(q0) == s.q.segment<4>(q0)) continue;
    const Eigen::Quaterniond a(s.q[q0], s.q[q0 + 1], s.q[q0 + 2], s.q[q0 + 3]);
    const Eigen::Quaterniond b(qn[q0], qn[q0 + 1], qn[q0 + 2], qn[q0 + 3]);
    // dR = R_n^T R_{n+1}; the joint frame's fixed rotation cancels.
    const Matrix3<double> dR =
        (a.normalized().conjugate() * b).toRotationMatrix();
    const Matrix3<double>& I = tree.body(st.body).inertia_with_welded.I;
    const Vector3<double> w = s.vn.segment<3>(v0);
    const Vector3<double> L = dR.transpose() * (I * w);
    s.vn.segment<3>(v0) = I.ldlt().solve(L);
    s.vn.segment<3>(v0 + 3) = dR.transpose() * s.vn.segment<3>(v0 + 3);
  }
}

void TimeSteppingStepper::FreeVelocities() {
  const RigidBodyTree<double>& tree = sys.tree();
  const Vector3<double>& g_W = tree.gravity();
  for (size_t t = 0; t < impl.subtrees.size(); ++t) {
    const SubtreeInfo& st = impl.subtrees[t];
    const int* dofs = Dofs(static_cast<int>(t));
    if (st.free) {
      const int v0 = dofs[0];
      const Vector6<double> V = s.v.segment<6>(v0);
      Vector6<double> C =
          FreeBodyBias(st.M, tree.body(st.body).inertia_with_welded,
                       s.cache.X_WB[st.body].R, g_W, V);
      if (st.com_at_origin) {
        // The velocity-product terms are left to RotateFreeVelocities.
        C -= FreeBodyBias(st.M, tree.body(st.body).inertia_with_welded,
                          s.cache.X_WB[st.body].R, Vector3<double>::Zero(), V);
      }
      s.vn.segment<6>(v0) = V + h * (st.Minv * (s.tau.segment<6>(v0) - C));
      continue;
    }
    const int n = st.n;
    Eigen::Map<MatrixX<double>> H(s.H.data() + st.h_offset, n, n);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) H(i, j) = s.cache.H(dofs[i], dofs[j]);
    }
    // Joint damping at the velocity level (implicit): (H + h D)(vn - v) =
    // h (tau - C) with C holding D v, stable for any h b / I (the explicit
    // update diverges once h b / I > 2). Implicit servos add h (kd + h kp)
    // (their torque at vn = v is in tau).
    for (int i = 0; i < n; ++i) {
      H(i, i) += h * impl.damping[dofs[i]] + s.pd_gain[dofs[i]];
    }
    Eigen::LLT<Eigen::Ref<MatrixX<double>>> llt(H);
    if (llt.info() != Eigen::Success) {
      throw std::runtime_error(fmt::format(
          "TimeSteppingRigidBodySystem '{}': the mass matrix of the subtree "
          "of body '{}' is not positive definite",
          tree.name(), tree.body(tree.bodies().size() > 1 ? 1 : 0).name));
    }
    Eigen::Map<VectorX<double>> y(s.rhs.data(), n);
    for (int i = 0; i < n; ++i) y[i] = s.tau[dofs[i]] - s.C[dofs[i]];
    if (s.deriv) {
      // The velocity products implicit too: (A + h dC/dv)(vn - v) =
      // h (tau - C) with A + h dC/dv = H + h dtau_dv (at vdot = 0, the
      // damping included) + the servo gains, by LU; the Cholesky factor of
      // A above serves the constraint impulses.
      MatrixX<double>& B = s.ivp_A[t];
      const MatrixX<double>& dv = s.deriv->dtau_dv;
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          B(i, j) = s.cache.H(dofs[i], dofs[j]) + h * dv(dofs[i], dofs[j]);
        }
        B(j, j) += s.pd_gain[dofs[j]];
      }
      s.ivp_lu[t].compute(B);
      Eigen::Map<VectorX<double>> x(s.tau_k.data(), n);  // tau_k: free now
      x = s.ivp_lu[t].solve(y);
      y = x;
    } else {
      H.triangularView<Eigen::Lower>().solveInPlace(y);
      H.triangularView<Eigen::Lower>().adjoint().solveInPlace(y);
    }
    for (int i = 0; i < n; ++i) s.vn[dofs[i]] = s.v[dofs[i]] + h * y[i];
  }
}

// Implicit servos (TimeSteppingOptions::implicit_pd): each joint's torque
// at vn = v, u = kp (q_d - q - h v) + kd (v_d - v), goes into tau; within
// the effort limit the joint is implicit (gain h (kd + h kp) on the
// free-motion matrix's diagonal), beyond it it applies the limit.
void TimeSteppingStepper::ServoTorques() {
  s.pd_gain.setZero();
  int j = 0;
  const auto& actuators = sys.actuators();
  for (size_t k = 0; k < actuators.size(); ++k) {
    const JointPdActuator<double>* pd = impl.pd_actuator[k];
    if (pd == nullptr) continue;
    const int n = static_cast<int>(pd->velocity_indices().size());
    const double* u = s.actuator_u[k];
    for (int i = 0; i < n; ++i, ++j) {
      auto& p = s.pd[j];
      p.dof = pd->velocity_indices()[i];
      const double kp = pd->kp()[i], kd = pd->kd()[i];
      const double v = s.v[p.dof];
      p.u = kp * (u[i] - s.q[pd->position_indices()[i]] - h * v) +
            kd * (u[n + i] - v);
      p.gain = kd + h * kp;
      p.limit = pd->effort_limits()[i];
      p.implicit = std::abs(p.u) <= p.limit;
      if (p.implicit) {
        s.pd_gain[p.dof] += h * p.gain;
        s.tau[p.dof] += p.u;
      } else {
        p.applied = std::copysign(p.limit, p.u);
        s.tau[p.dof] += p.applied;
      }
    }
  }
}

// After the free motion: a servo whose implicit torque u - (kd + h kp)
// (vn - v) exceeds its limit applies the limit instead; returns whether
// any joint switched (then the free motion is solved again).
bool TimeSteppingStepper::SaturateServos() {
  bool changed = false;
  for (auto& p : s.pd) {
    if (!p.implicit) continue;
    const double tau = p.u - p.gain * (s.vn[p.dof] - s.v[p.dof]);
    if (std::abs(tau) <= p.limit) continue;
    p.implicit = false;
    p.applied = std::copysign(p.limit, tau);
    s.pd_gain[p.dof] -= h * p.gain;
    s.tau[p.dof] += p.applied - p.u;
    changed = true;
  }
  return changed;
}

// Momentum of floating robots (TimeSteppingOptions::conserve_momentum).
// The base rows of H(q) v are the subtree's spatial momentum in the base
// frame B about B's origin (the floating joint's motion subspace is the
// identity in B), and the base rows of a generalized force are the
// resultant wrench on the subtree: so joint torques, joint damping and
// internal constraints drop out and only external forces change the target.
void TimeSteppingStepper::MomentumAtStart() {
  const RigidBodyTree<double>& tree = sys.tree();
  for (int t : impl.floating_trees) {
    const int* dofs = Dofs(t);
    const int n = N(t);
    const int root = impl.bodies_of_tree[t][0];
    const RigidTransform<double>& X_WB = s.cache.X_WB[root];
    // A free body's mass matrix is its constant spatial inertia st.M; a
    // robot's base rows are in the tree's H.
    const SubtreeInfo& st = impl.subtrees[t];
    auto H = [&](int i, int j) {
      return st.free ? st.M(i, j) : s.cache.H(dofs[i], dofs[j]);
    };
    SpatialForce<double> h_B = SpatialForce<double>::Zero();
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < 6; ++i) h_B[i] += H(i, j) * s.v[dofs[j]];
    }
    // External wrenches over the step: the actuators' (base rows of tau)
    // and gravity, m g at the center of mass c = (m c)_B / m, read from
    // the composite inertia H_bb = [[I, [m c]x], [.., m 1]].
    for (int i = 0; i < 6; ++i) h_B[i] += h * s.tau[dofs[i]];
    const double m = impl.tree_mass[t];
    const Vector3<double> mc_B(H(2, 4), H(0, 5), H(1, 3));
    const Vector3<double> c_W = X_WB * (mc_B / m);
    SpatialForce<double> target = TransformForce(X_WB, h_B);
    const Vector3<double> f = h * m * tree.gravity();
    target.head<3>() += c_W.cross(f);
    target.tail<3>() += f;
    s.momentum_target[t] = target;
  }
}

// Adds to the targets the base rows of the constraint impulses the solver
// applied, A (vn - v_free) with A the subtree's free-motion matrix (its
// Cholesky factor L L^T is in s.H), taken at the step's start pose.
void TimeSteppingStepper::AddConstraintImpulses() {
  // Islands in contact with the world, an anchored body or a robot with a
  // fixed base (not a floating robot nor a free body) take momentum from the
  // ground: their floating robots are not corrected (a rigid twist change would
  // undo the contact solve).
  s.island_grounded.assign(s.island_start.size(), 0);
  for (const RowGroup& g : s.rows.groups) {
    if (g.kind != RowKind::kContact) continue;
    for (const int body : {g.body_a, g.body_b}) {
      const int t = impl.tree_of_body[body];
      if (t < 0 || !impl.subtrees[t].floating) {
        s.island_grounded[g.island] = 1;
      }
    }
  }
  for (int t : impl.floating_trees) {
    if (s.tree_asleep[t] || s.island_grounded[s.island_of[t]]) continue;
    const int* dofs = Dofs(t);
    const int n = N(t);
    Eigen::Map<VectorX<double>> y(s.rhs.data(), n);
    for (int i = 0; i < n; ++i) y[i] = s.vn[dofs[i]] - s.v_free[dofs[i]];
    if (y.isZero(0.0)) continue;
    const SubtreeInfo& st = impl.subtrees[t];
    if (st.free) {
      y.head<6>() = st.M * y.head<6>().eval();
    } else {
      Eigen::Map<const MatrixX<double>> L(s.H.data() + st.h_offset, n, n);
      y = L.triangularView<Eigen::Lower>().adjoint() * y;
      y = L.triangularView<Eigen::Lower>() * y;
    }
    const int root = impl.bodies_of_tree[t][0];
    s.momentum_target[t] +=
        TransformForce(s.cache.X_WB[root], SpatialForce<double>(y.head<6>()));
  }
}

// Corrects the base twist of each floating robot so that its momentum at
// (qn, vn) equals the target: with the composite inertia I_c and the
// momentum h at qn, both world-aligned at the new base origin, the twist
// change dV = I_c^-1 (target - h) moves the whole subtree rigidly.
// Overwrites s.cache with the kinematics at (qn, vn).
void TimeSteppingStepper::ConserveMomentum(const VectorX<double>& qn) {
  const RigidBodyTree<double>& tree = sys.tree();
  ForwardKinematics(tree, &s.cache, qn, s.vn);
  for (int t : impl.floating_trees) {
    if (s.tree_asleep[t] || s.island_grounded[s.island_of[t]]) continue;
    const int root = impl.bodies_of_tree[t][0];
    const RigidTransform<double>& X_WB = s.cache.X_WB[root];
    SpatialInertia<double> Ic;
    SpatialForce<double> h_A = SpatialForce<double>::Zero();
    for (int b : impl.bodies_of_tree[t]) {
      const RigidTransform<double> X_Ab(s.cache.X_WB[b].R,
                                        s.cache.X_WB[b].p - X_WB.p);
      const SpatialInertia<double>& I_b = tree.body(b).inertia;
      Ic += I_b.Transformed(X_Ab);
      h_A += TransformForce(X_Ab, I_b * s.cache.V[b]);
    }
    const RigidTransform<double> X_WA(Matrix3<double>::Identity(), X_WB.p);
    const SpatialForce<double> target_A =
        InverseTransformForce(X_WA, SpatialForce<double>(s.momentum_target[t]));
    Matrix6<double> M;
    Ic.WriteMatrix(&M);
    const Vector6<double> dV_A = M.llt().solve(target_A - h_A);
    const int v0 = Dofs(t)[0];
    s.vn.segment<3>(v0) += X_WB.R.transpose() * dV_A.head<3>();
    s.vn.segment<3>(v0 + 3) += X_WB.R.transpose() * dV_A.tail<3>();
  }
}

void TimeSteppingStepper::BuildRows(const Context<double>&) {
  auto& rows = s.rows;
  rows.Clear();
  TimeSteppingConstraintInputs in;
  in.tree = &sys.tree();
  in.cache = &s.cache;
  in.q = &s.q;
  in.v = &s.v;
  in.h = h;
  in.J = &s.J;
  TimeSteppingConstraintRows writer(&rows);
  const auto& constraints = sys.constraints();
  for (size_t c = 0; c < constraints.size(); ++c) {
    const size_t first = rows.groups.size();
    in.scratch = s.constraint_scratch.get(c);
    constraints[c]->AppendRows(in, static_cast<int>(c), &writer);
    for (size_t i = first; i < rows.groups.size(); ++i) {
      rows.groups[i].constraint = static_cast<int>(c);
    }
  }

  // Jacobians per subtree, M^-1 J^T, local Delassus blocks.
  int used = 0;
  any_penetration_ = false;
  s.stats.num_contacts = 0;
  s.stats.num_rows = 0;
  size_t out = 0;
  for (size_t gi = 0; gi < rows.groups.size(); ++gi) {
    RowGroup& g = rows.groups[gi];
    const int r = g.rows;
    int trees[2] = {-1, -1};
    auto add_tree = [&](int t) {
      if (t < 0 || t == trees[0] || t == trees[1]) return;
      if (trees[0] < 0) {
        trees[0] = t;
      } else if (trees[1] < 0) {
        trees[1] = t;
      } else {
        throw std::runtime_error(fmt::format(
            "TimeSteppingRigidBodySystem '{}': constraint '{}' acts on more "
            "than two independent subtrees; split it",
            sys.tree().name(), constraints[g.constraint]->name()));
      }
    };
    const double* Jb = nullptr;
    if (g.kind == RowKind::kContact) {
      add_tree(impl.tree_of_body[g.body_a]);
      add_tree(impl.tree_of_body[g.body_b]);
    } else if (g.kind == RowKind::kLimit) {
      add_tree(impl.tree_of_dof[g.dof]);
    } else {
      Jb = rows.bilateral_J.data() + static_cast<size_t>(g.bilateral) * rows.nv;
      for (int i = 0; i < r; ++i) {
        for (int j = 0; j < rows.nv; ++j) {
          if (Jb[i * rows.nv + j] != 0) add_tree(impl.tree_of_dof[j]);
        }
      }
    }
    if (trees[0] < 0) continue;  // between anchored bodies: nothing moves
    g.fast = true;
    g.deferred = false;
    for (int e = 0; e < 2; ++e) {
      g.tree[e] = trees[e];
      g.d0[e] = -1;
      if (trees[e] < 0) continue;
      const int t = trees[e];
      if (impl.subtrees[t].free) {
        g.d0[e] = Dofs(t)[0];
      } else {
        g.fast = false;
      }
      const int n = N(t);
      g.jac[e] = Alloc(2 * r * n, &used);
      double* J = s.jac.data() + g.jac[e];
      std::fill(J, J + r * n, 0.0);
      if (g.kind == RowKind::kContact) {
        // One contact point for both bodies, the midpoint of the witness
        // points (as MuJoCo and Drake do): the impulses on A and B are
        // then equal and opposite about the same point, so the pair keeps
        // its angular momentum (with each body at its own witness point a
        // friction impulse f adds the torque (p_WA - p_WB) x f).
        const Vector3<double> d[3] = {g.n, g.t1, g.t2};
        const Vector3<double> p_W = 0.5 * (g.p_WA + g.p_WB);
        if (impl.tree_of_body[g.body_a] == t) {
          AddPointRows(g.body_a, p_W, -1.0, d, 3, J, n);
        }
        if (impl.tree_of_body[g.body_b] == t) {
          AddPointRows(g.body_b, p_W, 1.0, d, 3, J, n);
        }
      } else if (g.kind == RowKind::kLimit) {
        J[impl.local_of_dof[g.dof]] = g.sign;
      } else {
        const int* dofs = Dofs(t);
        for (int i = 0; i < r; ++i) {
          for (int k = 0; k < n; ++k) J[i * n + k] = Jb[i * rows.nv + dofs[k]];
        }
      }
      if (opt.solver == TimeSteppingOptions::Solver::kConvex &&
          !impl.subtrees[t].free) {
        g.deferred = true;  // formed by FormInverseMassRows if needed
      } else {
        InverseMassTimes(t, J, r, J + r * n);
      }
    }
    // Bias.
    if (g.kind == RowKind::kBilateral) {
      const double* b = rows.bilateral_b.data() + g.bilateral;
      for (int i = 0; i < r; ++i) g.b[i] = b[i];
    } else {
      // Speculative contact: approach by phi at most. Penetration is
      // removed by CorrectPositions, not by the velocities.
      g.b[0] = g.phi > 0 ? g.phi / h : 0.0;
      if (g.phi < 0) any_penetration_ = true;
      for (int i = 1; i < r; ++i) g.b[i] = 0;
    }
    for (int i = 0; i < r; ++i) g.p[i] = 0;
    if (g.kind == RowKind::kContact) ++s.stats.num_contacts;
    s.stats.num_rows += r;
    if (out != gi) rows.groups[out] = g;
    ++out;
  }
  rows.groups.resize(out);
}

void TimeSteppingStepper::BuildIslands(const TimeSteppingMemory& memory) {
  const int nt = static_cast<int>(impl.subtrees.size());
  s.uf.resize(nt);
  for (int t = 0; t < nt; ++t) s.uf[t] = t;
  for (const RowGroup& g : s.rows.groups) {
    if (g.tree[1] >= 0) {
      const int a = Find(s.uf, g.tree[0]), b = Find(s.uf, g.tree[1]);
      if (a != b) s.uf[std::max(a, b)] = std::min(a, b);
    }
  }
  // Island ids for roots, in subtree order.
  s.island_of.assign(nt, -1);
  int num = 0;
  for (int t = 0; t < nt; ++t) {
    const int root = Find(s.uf, t);
    if (s.island_of[root] < 0) s.island_of[root] = num++;
    s.island_of[t] = s.island_of[root];
  }
  // Sleeping: an island is awake if one of its subtrees is.
  s.island_awake.assign(num, opt.sleeping ? 0 : 1);
  s.tree_asleep.assign(nt, 0);
  if (opt.sleeping) {
    const int still = static_cast<int>(std::ceil(opt.sleep_time / h));
    for (int t = 0; t < nt; ++t) {
      if (memory.still_steps[t] < still) s.island_awake[s.island_of[t]] = 1;
    }
    int sleeping = 0;
    for (int i = 0; i < num; ++i) sleeping += !s.island_awake[i];
    s.stats.num_sleeping_islands = sleeping;
    for (int t = 0; t < nt; ++t) {
      s.tree_asleep[t] = !s.island_awake[s.island_of[t]];
    }
  }
  // Groups by island (counting sort).
  s.island_start.assign(num + 1, 0);
  for (RowGroup& g : s.rows.groups) {
    g.island = s.island_of[g.tree[0]];
    ++s.island_start[g.island + 1];
  }
  int with_rows = 0;
  for (int i = 0; i < num; ++i) {
    with_rows += s.island_start[i + 1] > 0;
    s.island_start[i + 1] += s.island_start[i];
  }
  s.stats.num_islands = with_rows;
  s.island_fill.assign(s.island_start.begin(), s.island_start.end() - 1);
  s.order.resize(s.rows.groups.size());
  for (size_t gi = 0; gi < s.rows.groups.size(); ++gi) {
    s.order[s.island_fill[s.rows.groups[gi].island]++] = static_cast<int>(gi);
  }
}

void TimeSteppingStepper::WarmStart(const TimeSteppingMemory& memory) {
  s.stats.warm_started = 0;
  if (!opt.warm_start || memory.entries.empty()) return;
  const auto& prev = memory.entries;
  const double r2 = opt.warm_start_radius * opt.warm_start_radius;
  auto less = [](const WarmStartEntry& e, const RowGroup& g) {
    if (e.c != g.constraint) return e.c < g.constraint;
    if (e.k1 != g.key1) return e.k1 < g.key1;
    return e.k2 < g.key2;
  };
  // Both lists are in key order (the constraints append their rows
  // sorted), so a cursor walks `prev` once; a key out of order falls back
  // to a binary search.
  auto cursor = prev.begin();
  for (RowGroup& g : s.rows.groups) {
    while (cursor != prev.end() && less(*cursor, g)) ++cursor;
    auto it = cursor;
    if (it != prev.begin() && !less(*(it - 1), g)) {
      it = std::lower_bound(prev.begin(), prev.end(), g, less);
    }
    if (g.kind == RowKind::kContact) {
      const Vector3<double> mid = 0.5 * (g.p_WA + g.p_WB);
      const WarmStartEntry* best = nullptr;
      double best_d2 = r2;
      for (; it != prev.end() && it->c == g.constraint && it->k1 == g.key1 &&
             it->k2 == g.key2;
           ++it) {
        const double d2 = (it->point - mid).squaredNorm();
        if (d2 <= best_d2) {
          best_d2 = d2;
          best = &*it;
        }
      }
      if (best == nullptr) continue;
      g.p[0] = std::max(0.0, best->P.dot(g.n));
      g.p[1] = best->P.dot(g.t1);
      g.p[2] = best->P.dot(g.t2);
      ++s.stats.warm_started;
    } else if (it != prev.end() && it->c == g.constraint && it->k1 == g.key1 &&
               it->k2 == g.key2) {
      for (int i = 0; i < g.rows; ++i) g.p[i] = it->p[i];
      if (g.kind == RowKind::kLimit) g.p[0] = std::max(0.0, g.p[0]);
      ++s.stats.warm_started;
    }
  }
}

void TimeSteppingStepper::ApplyImpulse(const RowGroup& g, const double* dp) {
  const int r = g.rows;
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int n = N(t);
    const int* dofs = Dofs(t);
    const double* Y = s.jac.data() + g.jac[e] + r * n;
    double* vn = s.vn.data();
    for (int i = 0; i < r; ++i) {
      if (dp[i] == 0) continue;
      const double* y = Y + i * n;
      for (int k = 0; k < n; ++k) vn[dofs[k]] += y[k] * dp[i];
    }
  }
}

// One contact's Gauss-Seidel step, u = W p + u0 (rows: normal, t1, t2)
// with the other contacts held fixed. If the contact can stick (u = 0 with
// p_n > 0 and p_t in the polygon), that is the exact answer of its LCP.
// Otherwise a projected step: the normal impulse by its own row, then the
// friction impulse p_t - u_t / w_t projected onto the polygon of radius
// mu p_n (w_t the larger eigenvalue of the tangent block). The fixed point
// of this step is the polyhedral-cone LCP's answer: projecting a gradient
// step onto the polygon is the maximal-dissipation principle (the LCP's
// beta and lambda rows are its optimality conditions).
void TimeSteppingStepper::ContactLocal(const RowGroup& g, const double* W,
                                       const double* Winv, const double* u0,
                                       double* p) {
  const double p_old[3] = {p[0], p[1], p[2]};
  p[0] = p[1] = p[2] = 0;
  if (u0[0] >= 0) return;  // separating: no impulse
  double x[3];
  for (int i = 0; i < 3; ++i) {
    x[i] = -(Winv[3 * i] * u0[0] + Winv[3 * i + 1] * u0[1] +
             Winv[3 * i + 2] * u0[2]);
  }
  if (x[0] > 0 && InPolygon(x[1], x[2], g.mu * x[0])) {
    p[0] = x[0], p[1] = x[1], p[2] = x[2];
    return;
  }
  // Normal row with the old friction impulse.
  const double un = u0[0] + W[1] * p_old[1] + W[2] * p_old[2];
  p[0] = std::max(0.0, -un / W[0]);
  const double R = g.mu * p[0];
  if (R <= 0) return;
  // Tangent rows with the new normal impulse.
  const double ut1 = u0[1] + W[3] * p[0] + W[4] * p_old[1] + W[5] * p_old[2];
  const double ut2 = u0[2] + W[6] * p[0] + W[7] * p_old[1] + W[8] * p_old[2];
  const double a = W[4], b = 0.5 * (W[5] + W[7]), c = W[8];
  const double wt = 0.5 * (a + c) + std::sqrt(0.25 * (a - c) * (a - c) + b * b);
  double y1 = p_old[1] - ut1 / wt, y2 = p_old[2] - ut2 / wt;
  ProjectPolygon(R, &y1, &y2);
  p[1] = y1, p[2] = y2;
}

// True if (x1, x2) is in the polygon with vertices R d_j.
bool TimeSteppingStepper::InPolygon(double x1, double x2, double R) const {
  const double bound = R * impl.edge_d;
  for (int j = 0; j < impl.k; ++j) {
    if (impl.edge_c[j] * x1 + impl.edge_s[j] * x2 > bound) return false;
  }
  return true;
}

// Euclidean projection onto the polygon with vertices R d_j: onto the edge
// whose outward normal e_j is most aligned with the point (the edge of the
// point's angular sector), clamped to its end vertices.
void TimeSteppingStepper::ProjectPolygon(double R, double* x1,
                                         double* x2) const {
  int best = 0;
  double best_dot = -1e300;
  for (int j = 0; j < impl.k; ++j) {
    const double d = impl.edge_c[j] * *x1 + impl.edge_s[j] * *x2;
    if (d > best_dot) best_dot = d, best = j;
  }
  const double dist = R * impl.edge_d;
  if (best_dot <= dist) return;
  const double ec = impl.edge_c[best], es = impl.edge_s[best];
  // Coordinates along the edge (tangent (-es, ec)), clamped to its half
  // length R sin(pi / k).
  const double half = R * impl.edge_h;
  const double t = std::clamp(-es * *x1 + ec * *x2, -half, half);
  *x1 = dist * ec - t * es;
  *x2 = dist * es + t * ec;
}

// SolveGroupPgs for a contact between free bodies (or a free body and the
// world): the same step with the 3 x 6 blocks read in place.
double TimeSteppingStepper::SolveContactFast(int gi) {
  RowGroup& g = s.rows.groups[gi];
  double* vn = s.vn.data();
  double u[3] = {g.b[0] + g.cfm * g.p[0], g.b[1] + g.cfm * g.p[1],
                 g.b[2] + g.cfm * g.p[2]};
  for (int e = 0; e < 2; ++e) {
    if (g.tree[e] < 0) continue;
    const double* J = s.jac.data() + g.jac[e];
    const double* v = vn + g.d0[e];
    for (int i = 0; i < 3; ++i) {
      const double* row = J + 6 * i;
      u[i] += row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3] +
              row[4] * v[4] + row[5] * v[5];
    }
  }
  const double* W = s.wpool.data() + 72 * gi;
  const double* Winv = W + 36;
  double u0[3], p[3];
  for (int i = 0; i < 3; ++i) {
    u0[i] = u[i] -
            (W[3 * i] * g.p[0] + W[3 * i + 1] * g.p[1] + W[3 * i + 2] * g.p[2]);
    p[i] = g.p[i];
  }
  ContactLocal(g, W, Winv, u0, p);
  const double dp[3] = {p[0] - g.p[0], p[1] - g.p[1], p[2] - g.p[2]};
  if (dp[0] == 0 && dp[1] == 0 && dp[2] == 0) return 0;
  double change = 0;
  for (int i = 0; i < 3; ++i) {
    g.p[i] = p[i];
    change = std::max(change, std::abs(W[3 * i] * dp[0] + W[3 * i + 1] * dp[1] +
                                       W[3 * i + 2] * dp[2]));
  }
  for (int e = 0; e < 2; ++e) {
    if (g.tree[e] < 0) continue;
    const double* Y = s.jac.data() + g.jac[e] + 18;
    double* v = vn + g.d0[e];
    for (int k = 0; k < 6; ++k) {
      v[k] += Y[k] * dp[0] + Y[6 + k] * dp[1] + Y[12 + k] * dp[2];
    }
  }
  return change;
}

// One Gauss-Seidel step on group g; returns the largest change of its row
// velocities.
double TimeSteppingStepper::SolveGroupPgs(int gi) {
  RowGroup& g = s.rows.groups[gi];
  if (g.fast && g.kind == RowKind::kContact) return SolveContactFast(gi);
  const int r = g.rows;
  double u[6];
  for (int i = 0; i < r; ++i) u[i] = g.b[i] + g.cfm * g.p[i];
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    const int n = N(t);
    const int* dofs = Dofs(t);
    const double* J = s.jac.data() + g.jac[e];
    for (int i = 0; i < r; ++i) {
      u[i] += RowDot(J + i * n, dofs, n, s.vn.data());
    }
  }
  const double* W = s.wpool.data() + 72 * gi;
  const double* Winv = W + 36;
  double dp[6] = {};
  if (g.kind == RowKind::kContact) {
    double u0[3], p[3];
    for (int i = 0; i < 3; ++i) {
      u0[i] = u[i] - (W[3 * i] * g.p[0] + W[3 * i + 1] * g.p[1] +
                      W[3 * i + 2] * g.p[2]);
    }
    p[0] = g.p[0], p[1] = g.p[1], p[2] = g.p[2];
    ContactLocal(g, W, Winv, u0, p);
    for (int i = 0; i < 3; ++i) dp[i] = p[i] - g.p[i];
  } else if (g.kind == RowKind::kLimit) {
    const double pn = std::max(0.0, g.p[0] - u[0] * Winv[0]);
    dp[0] = pn - g.p[0];
  } else {
    for (int i = 0; i < r; ++i) {
      double acc = 0;
      for (int j = 0; j < r; ++j) acc -= Winv[r * i + j] * u[j];
      dp[i] = acc;
    }
  }
  double change = 0;
  for (int i = 0; i < r; ++i) {
    g.p[i] += dp[i];
    double du = 0;
    for (int j = 0; j < r; ++j) du += W[r * i + j] * dp[j];
    change = std::max(change, std::abs(du));
  }
  ApplyImpulse(g, dp);
  return change;
}

void TimeSteppingStepper::LocalBlocks() {
  const auto& groups = s.rows.groups;
  if (s.wpool.size() < 72 * groups.size()) s.wpool.resize(144 * groups.size());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    if (!groups[gi].deferred) LocalBlock(static_cast<int>(gi));
  }
}

void TimeSteppingStepper::FormInverseMassRows(int gi) {
  RowGroup& g = s.rows.groups[gi];
  if (!g.deferred) return;
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0 || impl.subtrees[t].free) continue;
    const int n = N(t);
    double* J = s.jac.data() + g.jac[e];
    InverseMassTimes(t, J, g.rows, J + g.rows * n);
  }
  g.deferred = false;
  LocalBlock(gi);
}

void TimeSteppingStepper::LocalBlock(int gi) {
  RowGroup& g = s.rows.groups[gi];
  const int r = g.rows;
  double* W = s.wpool.data() + 72 * gi;
  double* Winv = W + 36;
  std::fill(W, W + r * r, 0.0);
  for (int e = 0; e < 2; ++e) {
    const int t = g.tree[e];
    if (t < 0) continue;
    if (g.fast && r == 3) {
      const double* J = s.jac.data() + g.jac[e];
      const double* Y = J + 18;
      for (int i = 0; i < 3; ++i) {
        for (int j = i; j < 3; ++j) {
          const double* a = J + 6 * i;
          const double* b = Y + 6 * j;
          const double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] +
                           a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
          W[3 * i + j] += w;
          if (j != i) W[3 * j + i] += w;
        }
      }
      continue;
    }
    const int n = N(t);
    const double* J = s.jac.data() + g.jac[e];
    const double* Y = J + r * n;
    for (int i = 0; i < r; ++i) {
      for (int j = 0; j < r; ++j) {
        double acc = 0;
        for (int k = 0; k < n; ++k) acc += J[i * n + k] * Y[j * n + k];
        W[r * i + j] += acc;
      }
    }
  }
  if (g.kind != RowKind::kBilateral) {
    // Contacts and limits: W + cfm I is the matrix of their (softened)
    // LCP, used as is by both solvers.
    g.cfm = opt.contact_regularization * W[0];
    for (int i = 0; i < r; ++i) W[r * i + i] += g.cfm;
    if (r == 1) {
      Winv[0] = 1 / std::max(W[0], 1e-300);
      return;
    }
    // 3 x 3 inverse by cofactors (W is symmetric).
    const double c00 = W[4] * W[8] - W[5] * W[7];
    const double c01 = W[5] * W[6] - W[3] * W[8];
    const double c02 = W[3] * W[7] - W[4] * W[6];
    const double det = W[0] * c00 + W[1] * c01 + W[2] * c02;
    if (std::abs(det) > 1e-14 * W[0] * W[4] * W[8]) {
      const double id = 1 / det;
      Winv[0] = c00 * id;
      Winv[1] = (W[2] * W[7] - W[1] * W[8]) * id;
      Winv[2] = (W[1] * W[5] - W[2] * W[4]) * id;
      Winv[3] = c01 * id;
      Winv[4] = (W[0] * W[8] - W[2] * W[6]) * id;
      Winv[5] = (W[2] * W[3] - W[0] * W[5]) * id;
      Winv[6] = c02 * id;
      Winv[7] = (W[1] * W[6] - W[0] * W[7]) * id;
      Winv[8] = (W[0] * W[4] - W[1] * W[3]) * id;
      return;
    }
  }
  // A small relative regularization keeps the inverse finite for rows
  // that are redundant (two loops closing one chain, or a contact on a
  // body that cannot move along a tangent).
  double diag = 0;
  for (int i = 0; i < r; ++i) diag = std::max(diag, W[r * i + i]);
  const double eps =
      std::max(opt.constraint_regularization, 1e-12) * (1 + diag);
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                           Eigen::RowMajor, 6, 6>>
      Wm(W, r, r);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, 6, 6>
      Wr = Wm;
  Wr.diagonal().array() += eps;
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                           Eigen::RowMajor, 6, 6>>(Winv, r, r) =
      Wr.ldlt().solve(Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0,
                                    6, 6>::Identity(r, r));
}

// Split-impulse position correction (Catto's pseudo-velocities, as in
// Bullet's split impulse): normal rows of penetrating contacts and violated
// limits, J vp >= -erp phi / h with pseudo-impulses >= 0, solved by
// Gauss-Seidel from zero. vp moves the positions this step and is then
// dropped, so the correction adds no kinetic energy.
void TimeSteppingStepper::CorrectPositions() {
  s.vp.setZero();
  if (!any_penetration_ || opt.contact_erp == 0) return;
  auto& groups = s.rows.groups;
  // Rows deeper than the slop, awake.
  s.deep.clear();
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    RowGroup& g = groups[gi];
    if (g.kind == RowKind::kBilateral || g.phi >= -opt.penetration_slop ||
        s.tree_asleep[g.tree[0]]) {
      continue;
    }
    FormInverseMassRows(static_cast<int>(gi));
    g.pp = 0;
    s.deep.push_back(static_cast<int>(gi));
  }
  const int sweeps = std::min(opt.pgs_max_iterations, 20);
  for (int k = 0; k < sweeps && !s.deep.empty(); ++k) {
    double change = 0;
    for (int gi : s.deep) {
      RowGroup& g = groups[gi];
      double u = opt.contact_erp * (g.phi + opt.penetration_slop) / h;
      for (int e = 0; e < 2; ++e) {
        if (g.tree[e] < 0) continue;
        const int n = N(g.tree[e]);
        u += RowDot(s.jac.data() + g.jac[e], Dofs(g.tree[e]), n, s.vp.data());
      }
      const double Wnn = s.wpool[72 * gi];
      const double pp = std::max(0.0, g.pp - u / Wnn);
      const double dpp = pp - g.pp;
      if (dpp == 0) continue;
      g.pp = pp;
      change = std::max(change, std::abs(Wnn * dpp));
      for (int e = 0; e < 2; ++e) {
        if (g.tree[e] < 0) continue;
        const int n = N(g.tree[e]);
        const int* dofs = Dofs(g.tree[e]);
        const double* y = s.jac.data() + g.jac[e] + g.rows * n;
        for (int c = 0; c < n; ++c) s.vp[dofs[c]] += y[c] * dpp;
      }
    }
    if (change <= opt.pgs_tolerance) break;
  }
}

void TimeSteppingStepper::SolvePgs(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = s.rows.groups[s.order[idx]];
    ApplyImpulse(g, g.p);
  }
  // Sweep from the bottom up (contact points by height against gravity):
  // the weight of a stack then passes down in one sweep.
  if (end - begin > 2) {
    const Vector3<double>& gdir = sys.tree().gravity();
    auto height = [&](int gi) {
      const RowGroup& g = s.rows.groups[gi];
      return g.kind == RowKind::kContact ? -gdir.dot(g.p_WA + g.p_WB) : -1e300;
    };
    std::sort(s.order.begin() + begin, s.order.begin() + end,
              [&](int a, int b) { return height(a) < height(b); });
  }
  // (A sticking contact alone is solved exactly by its first step; the
  // second sweep then changes nothing and ends the loop.)
  // Under kConvex a pile gets up to kPileSweeps sweeps before its island
  // falls back to the dense convex solve (whose Cholesky of a pile's
  // hundreds of dofs costs far more than sweeps linear in the contacts).
  constexpr int kPileSweeps = 1000;
  const int sweeps = opt.solver == TimeSteppingOptions::Solver::kConvex
                         ? std::max(opt.pgs_max_iterations, kPileSweeps)
                         : opt.pgs_max_iterations;
  int k = 0;
  double change = 0;
  while (k < sweeps) {
    ++k;
    change = 0;
    for (int idx = begin; idx < end; ++idx) {
      change = std::max(change, SolveGroupPgs(s.order[idx]));
    }
    if (change <= opt.pgs_tolerance) break;
  }
  s.stats.pgs_sweeps += k;
  s.stats.max_island_iterations = std::max(s.stats.max_island_iterations, k);
  s.stats.max_residual = std::max(s.stats.max_residual, change);
  if (change > opt.pgs_tolerance) {
    if (opt.solver == TimeSteppingOptions::Solver::kConvex) {
      // The pile's fast path did not converge: undo its impulses and solve
      // the island by the convex solver, warm started from them.
      for (int idx = begin; idx < end; ++idx) {
        const RowGroup& g = s.rows.groups[s.order[idx]];
        double minus[6];
        for (int i = 0; i < g.rows; ++i) minus[i] = -g.p[i];
        ApplyImpulse(g, minus);
      }
      ++s.stats.pgs_fallbacks;
      SolveConvex(island);
      return;
    }
    IslandFailed(island, "projected Gauss-Seidel", k, change,
                 opt.pgs_tolerance);
  }
}

// The island's dense LCP: bilateral rows eliminated by their Schur
// complement, then Lemke on (c_n, beta, lambda) per contact and f per
// joint limit. False if Lemke fails (the caller then runs PGS).
bool TimeSteppingStepper::SolveLemke(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  const int k = impl.k;
  auto& groups = s.rows.groups;
  // Row layout: bilateral rows first (B), then the others (U).
  s.row_of_group.resize(groups.size());
  s.var_of_group.resize(groups.size());
  int nb = 0, nu = 0, nl = 0;
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    if (g.kind == RowKind::kBilateral) nb += g.rows;
  }
  for (int idx = begin; idx < end; ++idx) {
    const int gi = s.order[idx];
    const RowGroup& g = groups[gi];
    if (g.kind == RowKind::kBilateral) {
      s.row_of_group[gi] = nu;  // provisional, fixed below
      continue;
    }
    s.row_of_group[gi] = nb + nu;
    s.var_of_group[gi] = nl;
    nu += g.rows;
    nl += g.kind == RowKind::kContact ? k + 2 : 1;
  }
  {
    int b = 0;
    for (int idx = begin; idx < end; ++idx) {
      const int gi = s.order[idx];
      if (groups[gi].kind == RowKind::kBilateral) {
        s.row_of_group[gi] = b;
        b += groups[gi].rows;
      }
    }
  }
  const int R = nb + nu;
  if (s.D.rows() < R) s.D.resize(R, R);
  if (s.vfree.size() < R) {
    s.vfree.resize(R);
    s.pb.resize(R);
    s.pu.resize(R);
  }
  auto D = s.D.topLeftCorner(R, R);
  D.setZero();
  auto vfree = s.vfree.head(R);
  for (int ia = begin; ia < end; ++ia) {
    const int ga = s.order[ia];
    const RowGroup& a = groups[ga];
    const int ra = a.rows, oa = s.row_of_group[ga];
    for (int i = 0; i < ra; ++i) vfree[oa + i] = a.b[i];
    for (int e = 0; e < 2; ++e) {
      if (a.tree[e] < 0) continue;
      const int n = N(a.tree[e]);
      const double* J = s.jac.data() + a.jac[e];
      for (int i = 0; i < ra; ++i) {
        vfree[oa + i] += RowDot(J + i * n, Dofs(a.tree[e]), n, s.vn.data());
      }
    }
    for (int ib = begin; ib < end; ++ib) {
      const int gb = s.order[ib];
      const RowGroup& b = groups[gb];
      const int rb = b.rows, ob = s.row_of_group[gb];
      for (int ea = 0; ea < 2; ++ea) {
        const int t = a.tree[ea];
        if (t < 0) continue;
        for (int eb = 0; eb < 2; ++eb) {
          if (b.tree[eb] != t) continue;
          const int n = N(t);
          const double* J = s.jac.data() + a.jac[ea];
          const double* Y = s.jac.data() + b.jac[eb] + rb * n;
          for (int i = 0; i < ra; ++i) {
            for (int j = 0; j < rb; ++j) {
              double acc = 0;
              for (int c = 0; c < n; ++c) acc += J[i * n + c] * Y[j * n + c];
              D(oa + i, ob + j) += acc;
            }
          }
        }
      }
    }
  }
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    for (int i = 0; i < g.rows; ++i) {
      D(s.row_of_group[s.order[idx]] + i, s.row_of_group[s.order[idx]] + i) +=
          g.cfm;
    }
  }
  // Schur complement of the bilateral block.
  if (s.A.rows() < R) s.A.resize(R, R);
  auto Abb = s.A.topLeftCorner(nb, nb);
  if (nb > 0) {
    Abb = D.topLeftCorner(nb, nb);
    const double eps = std::max(opt.constraint_regularization, 1e-12) *
                       (1 + Abb.diagonal().maxCoeff());
    Abb.diagonal().array() += eps;
    Eigen::LLT<Eigen::Ref<MatrixX<double>>> llt(Abb);
    if (llt.info() != Eigen::Success) return false;
  }
  auto Lbb = Abb.triangularView<Eigen::Lower>();
  // X = A^-1 [D_BU, vfree_B] in the columns of E's scratch.
  if (s.E.rows() < R || s.E.cols() < R + 1) s.E.resize(R, R + 1);
  auto X = s.E.topLeftCorner(nb, nu + 1);
  if (nb > 0) {
    X.leftCols(nu) = D.topRightCorner(nb, nu);
    X.col(nu) = vfree.head(nb);
    Lbb.solveInPlace(X);
    Lbb.adjoint().solveInPlace(X);
  }
  if (nl > 0) {
    // S = D_UU - D_UB X_U, c = vfree_U - D_UB X_v, kept in D's U block.
    auto S = D.bottomRightCorner(nu, nu);
    auto c = vfree.tail(nu);
    if (nb > 0) {
      S.noalias() -= D.bottomLeftCorner(nu, nb) * X.leftCols(nu);
      c.noalias() -= D.bottomLeftCorner(nu, nb) * X.col(nu);
    }
    if (s.Mlcp.rows() < nl) {
      s.Mlcp.resize(nl, nl);
      s.qlcp.resize(nl);
      s.z.resize(nl);
      s.w.resize(nl);
    }
    auto M = s.Mlcp.topLeftCorner(nl, nl);
    auto q = s.qlcp.head(nl);
    M.setZero();
    q.setZero();
    // M = E^T S E + L with E mapping LCP unknowns to row impulses. E is
    // sparse (a contact's n row takes c_n, its t rows take D beta), so the
    // product is assembled per pair of groups.
    auto e_cols = [&](const RowGroup& g, int row, int* cols, double* vals) {
      // Unknowns feeding row `row` of group g, with their coefficients.
      if (g.kind == RowKind::kLimit) {
        cols[0] = 0, vals[0] = 1;
        return 1;
      }
      if (row == 0) {
        cols[0] = 0, vals[0] = 1;
        return 1;
      }
      for (int j = 0; j < k; ++j) {
        cols[j] = 1 + j;
        vals[j] = row == 1 ? impl.dir_c[j] : impl.dir_s[j];
      }
      return k;
    };
    std::array<int, 64> ca{}, cb{};
    std::array<double, 64> va{}, vb{};
    if (k > 60) return false;
    for (int ia = begin; ia < end; ++ia) {
      const int ga = s.order[ia];
      const RowGroup& a = groups[ga];
      if (a.kind == RowKind::kBilateral) continue;
      const int ua = s.row_of_group[ga] - nb, za = s.var_of_group[ga];
      for (int i = 0; i < a.rows; ++i) {
        const int na = e_cols(a, i, ca.data(), va.data());
        for (int x = 0; x < na; ++x) q[za + ca[x]] += va[x] * c[ua + i];
        for (int ib = begin; ib < end; ++ib) {
          const int gb = s.order[ib];
          const RowGroup& b = groups[gb];
          if (b.kind == RowKind::kBilateral) continue;
          const int ub = s.row_of_group[gb] - nb, zb = s.var_of_group[gb];
          for (int j = 0; j < b.rows; ++j) {
            const double Sij = S(ua + i, ub + j);
            if (Sij == 0) continue;
            const int nbv = e_cols(b, j, cb.data(), vb.data());
            for (int x = 0; x < na; ++x) {
              for (int y = 0; y < nbv; ++y) {
                M(za + ca[x], zb + cb[y]) += va[x] * Sij * vb[y];
              }
            }
          }
        }
      }
      if (a.kind == RowKind::kContact) {
        for (int j = 0; j < k; ++j) {
          M(za + 1 + j, za + k + 1) = 1;
          M(za + k + 1, za + 1 + j) = -1;
        }
        M(za + k + 1, za) = a.mu;
      }
    }
    solvers::LemkeSettings settings;
    const solvers::LcpResult result = solvers::SolveLcpLemke(
        M, q, settings, &s.lemke, s.z.head(nl), s.w.head(nl));
    s.stats.lemke_pivots += result.iterations;
    if (!result.ok()) return false;
  }
  // Impulses: p_U = E z, p_B = -(X_v + X_U p_U).
  auto pu = s.pu.head(nu);
  for (int idx = begin; idx < end; ++idx) {
    const int gi = s.order[idx];
    RowGroup& g = groups[gi];
    if (g.kind == RowKind::kBilateral) continue;
    const int u = s.row_of_group[gi] - nb, z0 = s.var_of_group[gi];
    if (g.kind == RowKind::kLimit) {
      g.p[0] = std::max(0.0, s.z[z0]);
    } else {
      g.p[0] = std::max(0.0, s.z[z0]);
      g.p[1] = g.p[2] = 0;
      for (int j = 0; j < k; ++j) {
        const double beta = std::max(0.0, s.z[z0 + 1 + j]);
        g.p[1] += beta * impl.dir_c[j];
        g.p[2] += beta * impl.dir_s[j];
      }
    }
    for (int i = 0; i < g.rows; ++i) pu[u + i] = g.p[i];
  }
  if (nb > 0) {
    auto pb = s.pb.head(nb);
    pb = -X.col(nu);
    if (nu > 0) pb.noalias() -= X.leftCols(nu) * pu;
    for (int idx = begin; idx < end; ++idx) {
      const int gi = s.order[idx];
      RowGroup& g = groups[gi];
      if (g.kind != RowKind::kBilateral) continue;
      for (int i = 0; i < g.rows; ++i) g.p[i] = pb[s.row_of_group[gi] + i];
    }
  }
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    ApplyImpulse(g, g.p);
  }
  return true;
}

// The island as one convex problem (solvers/convex_contact_solver.h): its
// subtrees' dofs side by side, A = their mass matrices (+ h D, implicit
// joint damping) block diagonal, J the rows on those dofs, v* the free
// velocities, gamma0 the warm-start impulses.
void TimeSteppingStepper::SolveConvex(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  auto& groups = s.rows.groups;
  const int nt = static_cast<int>(impl.subtrees.size());
  if (static_cast<int>(s.tree_off.size()) != nt) s.tree_off.assign(nt, -1);
  s.isl_trees.clear();
  s.ccons.clear();
  int n = 0, m = 0;
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    for (int e = 0; e < 2; ++e) {
      const int t = g.tree[e];
      if (t < 0 || s.tree_off[t] >= 0) continue;
      s.tree_off[t] = n;
      n += N(t);
      s.isl_trees.push_back(t);
    }
    m += g.rows;
  }
  if (s.cA.rows() < n) s.cA.resize(n, n);
  if (s.cJ.rows() < m || s.cJ.cols() < n) {
    s.cJ.resize(std::max<Eigen::Index>(m, s.cJ.rows()),
                std::max<Eigen::Index>(n, s.cJ.cols()));
  }
  if (s.cvstar.size() < n) {
    s.cvstar.resize(n);
    s.cv.resize(n);
  }
  if (s.cb.size() < m) {
    s.cb.resize(m);
    s.cgamma.resize(m);
  }
  auto A = s.cA.topLeftCorner(n, n);
  auto J = s.cJ.topLeftCorner(m, n);
  auto vstar = s.cvstar.head(n);
  auto v = s.cv.head(n);
  auto b = s.cb.head(m);
  auto gamma = s.cgamma.head(m);
  A.setZero();
  J.setZero();
  for (int t : s.isl_trees) {
    const SubtreeInfo& st = impl.subtrees[t];
    const int o = s.tree_off[t], nn = st.n;
    const int* dofs = Dofs(t);
    if (st.free) {
      A.block<6, 6>(o, o) = st.M;
    } else {
      for (int j = 0; j < nn; ++j) {
        for (int i = 0; i < nn; ++i) {
          A(o + i, o + j) = s.cache.H(dofs[i], dofs[j]);
        }
        A(o + j, o + j) += h * impl.damping[dofs[j]];
      }
    }
    for (int k = 0; k < nn; ++k) {
      vstar[o + k] = s.vn[dofs[k]];
      v[o + k] = s.v[dofs[k]];  // the last step's answer: a second guess
    }
  }
  int row = 0;
  using Kind = solvers::ConvexConstraintKind;
  const double tau_h = h * (1 + opt.convex_beta / std::numbers::pi);
  for (int idx = begin; idx < end; ++idx) {
    const RowGroup& g = groups[s.order[idx]];
    const int r = g.rows;
    for (int e = 0; e < 2; ++e) {
      const int t = g.tree[e];
      if (t < 0) continue;
      const int nn = N(t), o = s.tree_off[t];
      const double* Jt = s.jac.data() + g.jac[e];
      for (int i = 0; i < r; ++i) {
        for (int k = 0; k < nn; ++k) J(row + i, o + k) += Jt[i * nn + k];
      }
    }
    for (int i = 0; i < r; ++i) {
      b[row + i] = g.b[i];
      gamma[row + i] = g.p[i];
    }
    // Penetration (contacts, limits) up to the slop enters the compliant
    // model at the position level, as in Castro et al. (sec. V, near-rigid
    // regime: b = phi / (h + tau), tau = beta h / pi), so a body resting
    // on another sinks no deeper than R gamma (h + tau); depth beyond the
    // slop is left to the split-impulse correction (no energy added).
    if (g.kind != RowKind::kBilateral && g.phi < 0) {
      b[row] = std::max(g.phi, -opt.penetration_slop) / tau_h;
    }
    if (g.kind == RowKind::kContact) {
      s.ccons.push_back({Kind::kContact, g.mu, 0.0});
    } else if (g.kind == RowKind::kLimit) {
      s.ccons.push_back({Kind::kUnilateral, 0.0, 0.0});
    } else {
      for (int i = 0; i < r; ++i) s.ccons.push_back({Kind::kBilateral, 0, 0});
    }
    row += r;
  }
  solvers::ConvexSolverSettings settings;
  settings.max_iterations = opt.convex_max_iterations;
  settings.rel_tolerance = opt.convex_tolerance;
  settings.beta = opt.convex_beta;
  settings.sigma = opt.convex_sigma;
  settings.warm_start_impulses = true;
  settings.warm_start_best = true;
  const solvers::ConvexSolverResult result = solvers::SolveConvexContact(
      A, vstar, J, b, s.ccons, settings, &s.convex, v, gamma);
  for (int t : s.isl_trees) {
    const int o = s.tree_off[t];
    const int* dofs = Dofs(t);
    for (int k = 0; k < N(t); ++k) s.vn[dofs[k]] = v[o + k];
    s.tree_off[t] = -1;
  }
  row = 0;
  for (int idx = begin; idx < end; ++idx) {
    RowGroup& g = groups[s.order[idx]];
    for (int i = 0; i < g.rows; ++i) g.p[i] = gamma[row + i];
    row += g.rows;
  }
  s.stats.convex_iterations += result.iterations;
  s.stats.max_island_iterations =
      std::max(s.stats.max_island_iterations, result.iterations);
  s.stats.max_residual = std::max(s.stats.max_residual, result.residual);
  if (!result.converged) {
    IslandFailed(island, "convex (SAP) solver", result.iterations,
                 result.residual, opt.convex_tolerance);
  }
}

void TimeSteppingStepper::IslandFailed(int island, const char* solver,
                                       int iterations, double residual,
                                       double tolerance) {
  s.stats.converged = false;
  ++s.stats.unconverged_islands;
  ++s.stats.warnings;
  if (opt.on_nonconvergence ==
      TimeSteppingOptions::OnNonConvergence::kWarnAndCount) {
    return;
  }
  std::string bodies;
  int listed = 0;
  for (size_t t = 0; t < impl.subtrees.size(); ++t) {
    if (s.island_of[t] != island) continue;
    for (int b : impl.bodies_of_tree[t]) {
      if (listed == 8) bodies += ", ...";
      if (listed++ >= 8) continue;
      bodies += (bodies.empty() ? "'" : ", '") + sys.tree().body(b).name + "'";
    }
  }
  throw std::runtime_error(fmt::format(
      "TimeSteppingRigidBodySystem '{}': the step at t = {} (h = {}) did not "
      "converge: island {} (bodies {}) stopped after {} iterations of the {} "
      "with residual {:.3g} > tolerance {:.3g}; raise the solver's iteration "
      "cap or tolerance, or set on_nonconvergence = kWarnAndCount to keep "
      "going and count it; the state is left at t",
      sys.tree().name(), time_, h, island, bodies, iterations, solver, residual,
      tolerance));
}

void TimeSteppingStepper::Run(const Context<double>& context,
                              State<double>* next) {
  const RigidBodyTree<double>& tree = sys.tree();
  const int nq = tree.num_positions();
  const int nv = tree.num_velocities();
  {
    const long long warnings = s.stats.warnings;
    s.stats = TimeSteppingStepStats{};
    s.stats.warnings = warnings;
  }
  time_ = context.get_time();
  // Inputs first: evaluating them may evaluate this plant's sensor outputs,
  // which use the same scratch.
  const auto& actuators = sys.actuators();
  for (size_t k = 0; k < actuators.size(); ++k) {
    s.actuator_u[k] =
        impl.actuator_port[k] >= 0
            ? sys.get_input_port(impl.actuator_port[k]).Eval(context).data()
            : nullptr;
  }
  const double* applied =
      impl.applied_port >= 0
          ? sys.get_input_port(impl.applied_port).Eval(context).data()
          : nullptr;
  const VectorX<double>& x = context.get_discrete_state(0);
  s.q = x.head(nq);
  s.v = x.tail(nv);
  const TimeSteppingMemory& memory =
      context.get_abstract_state<TimeSteppingMemory>(0);

  if (impl.has_articulated) {
    MassMatrix(tree, &s.cache, s.q);
    s.C = BiasTerm(tree, &s.cache, s.q, s.v);
  }
  if (impl.needs_velocity_kinematics) {
    ForwardKinematics(tree, &s.cache, s.q, s.v);
  } else {
    ForwardKinematics(tree, &s.cache, s.q);
  }
  if (applied != nullptr) {
    s.tau = Eigen::Map<const VectorX<double>>(applied, nv);
  } else {
    s.tau.setZero();
  }
  if (!actuators.empty()) {
    ForceElementInputs<double> in;
    in.tree = &tree;
    in.cache = &s.cache;
    in.q = &s.q;
    in.v = &s.v;
    in.J = &s.J;
    for (size_t k = 0; k < actuators.size(); ++k) {
      if (impl.pd_actuator[k] != nullptr) continue;  // ServoTorques
      in.u = s.actuator_u[k];
      in.scratch = s.actuator_scratch.get(k);
      actuators[k]->CalcGeneralizedForce(in, &s.tau_k);
      s.tau += s.tau_k;
    }
  }
  // The actuators' force without the input port's: tau - applied.
  if (applied != nullptr) {
    s.actuator_force = s.tau - Eigen::Map<const VectorX<double>>(applied, nv);
  } else {
    s.actuator_force = s.tau;
  }
  if (!s.pd.empty()) ServoTorques();
  if (s.deriv) {
    // d tau / dv of the Coriolis, centrifugal and damping terms (poses
    // recomputed at the same q; cache.H is kept).
    InverseDynamicsDerivatives(tree, &s.cache, &*s.deriv, s.q, s.v, s.zero_nv);
  }
  FreeVelocities();
  while (!s.pd.empty() && SaturateServos()) FreeVelocities();
  if (!impl.floating_trees.empty()) {
    s.v_free = s.vn;
    MomentumAtStart();
  }
  BuildRows(context);
  LocalBlocks();
  BuildIslands(memory);
  WarmStart(memory);

  const int num_islands = static_cast<int>(s.island_start.size()) - 1;
  using Solver = TimeSteppingOptions::Solver;
  if (opt.solver == Solver::kConvex) {
    s.island_dofs.assign(num_islands, 0);
    for (int t = 0; t < static_cast<int>(impl.subtrees.size()); ++t) {
      s.island_dofs[s.island_of[t]] += N(t);
    }
  }
  for (int i = 0; i < num_islands; ++i) {
    const int begin = s.island_start[i], end = s.island_start[i + 1];
    if (begin == end || !s.island_awake[i]) continue;
    if (opt.solver == Solver::kConvex) {
      bool pile = true;
      int dofs = 0;
      for (int idx = begin; idx < end && pile; ++idx) {
        const RowGroup& g = s.rows.groups[s.order[idx]];
        pile &= g.kind == RowKind::kContact && g.fast;
      }
      if (pile) dofs = s.island_dofs[i];
      if (pile && dofs > opt.convex_max_free_body_dofs) {
        SolvePgs(i);
      } else {
        SolveConvex(i);
      }
      continue;
    }
    bool lemke = opt.solver == Solver::kLemke;
    if (opt.solver == Solver::kAuto && end - begin > 1) {
      int unknowns = 0;
      bool robot = false;
      for (int idx = begin; idx < end; ++idx) {
        const RowGroup& g = s.rows.groups[s.order[idx]];
        unknowns += g.kind == RowKind::kContact ? impl.k + 2
                    : g.kind == RowKind::kLimit ? 1
                                                : 0;
        robot |= g.kind != RowKind::kContact;
        for (int e = 0; e < 2; ++e) {
          robot |= g.tree[e] >= 0 && !impl.subtrees[g.tree[e]].free;
        }
      }
      lemke = robot && unknowns <= opt.lemke_max_unknowns;
    }
    if (lemke && SolveLemke(i)) continue;
    SolvePgs(i);
  }
  const int nt = static_cast<int>(impl.subtrees.size());
  for (int t = 0; t < nt; ++t) {
    if (!s.tree_asleep[t]) continue;
    const int* dofs = Dofs(t);
    for (int k = 0; k < N(t); ++k) s.vn[dofs[k]] = 0;
  }
  for (int i = 0; i < nv; ++i) {
    if (!std::isfinite(s.vn[i])) {
      throw std::runtime_error(fmt::format(
          "TimeSteppingRigidBodySystem '{}': the step at t = {} (h = {}) gave "
          "a non-finite velocity {} ('{}'); the state is left at t",
          tree.name(), context.get_time(), h, i, tree.GetVelocityNames()[i]));
    }
  }

  // qn = q + h N(q) (vn + vp), quaternions re-normalized.
  CorrectPositions();
  s.vp += s.vn;
  MapVelocityToQDot(tree, s.q, s.vp, &s.qdot);
  for (const auto& p : s.pd) {
    s.actuator_force[p.dof] +=
        p.implicit ? p.u - p.gain * (s.vn[p.dof] - s.v[p.dof]) : p.applied;
  }
  if (!impl.floating_trees.empty()) AddConstraintImpulses();
  VectorX<double>& qn = s.qdot;  // reuse: qn = q + h qdot, normalized
  qn *= h;
  qn += s.q;
  NormalizeQuaternions(tree, &qn);
  RotateFreeVelocities(qn);
  if (!impl.floating_trees.empty()) ConserveMomentum(qn);
  VectorX<double>& xn =
      next->get_mutable_discrete_state().get_mutable_vector(0);
  xn.head(nq) = qn;
  if (impl.accel_group >= 0) {
    next->get_mutable_discrete_state().get_mutable_vector(impl.accel_group) =
        (s.vn - s.v) / h;
  }
  xn.tail(nv) = s.vn;

  // Memory for the next step (written last: `next` may be this context's
  // own state).
  TimeSteppingMemory& out =
      next->get_mutable_abstract_state<TimeSteppingMemory>(0);
  if (opt.sleeping) {
    for (int t = 0; t < nt; ++t) {
      if (s.tree_asleep[t]) continue;
      const int* dofs = Dofs(t);
      double vmax = 0;
      for (int k = 0; k < N(t); ++k) {
        vmax = std::max(vmax, std::abs(s.vn[dofs[k]]));
      }
      out.still_steps[t] =
          vmax <= opt.sleep_velocity ? memory.still_steps[t] + 1 : 0;
    }
  }
  out.entries.clear();
  if (opt.warm_start) {
    for (const RowGroup& g : s.rows.groups) {
      WarmStartEntry& e = out.entries.emplace_back();
      e.c = g.constraint;
      e.k1 = g.key1;
      e.k2 = g.key2;
      if (g.kind == RowKind::kContact) {
        e.point = 0.5 * (g.p_WA + g.p_WB);
        e.P = g.p[0] * g.n + g.p[1] * g.t1 + g.p[2] * g.t2;
      } else {
        for (int i = 0; i < g.rows; ++i) e.p[i] = g.p[i];
      }
    }
  }
}

void TimeSteppingRigidBodySystem::CalcNextState(const Context<double>& context,
                                                State<double>* next) const {
  TimeSteppingStepper stepper{*this, *impl_, Impl::Scratch(context), options_,
                              period_};
  stepper.Run(context, next);
}

// ---- Default state and checkpoints.

namespace {

// TimeSteppingSavedState::memory: its layout version and the numbers per
// warm-start entry.
constexpr double kMemoryLayout = 1;
constexpr std::size_t kEntryNumbers = 15;
// A field added to the memory must be saved and restored too (SaveState,
// RestoreState and TimeSteppingSavedState's comment), or a resumed run
// silently differs: these sizes are those of the fields saved (the three
// ints of an entry take four with the padding before the vectors).
static_assert(sizeof(WarmStartEntry) == 4 * sizeof(int) +
                                            2 * sizeof(Vector3<double>) +
                                            6 * sizeof(double),
              "WarmStartEntry changed: update SaveState and RestoreState");
static_assert(sizeof(TimeSteppingMemory) ==
                  sizeof(std::vector<WarmStartEntry>) +
                      sizeof(std::vector<int>),
              "TimeSteppingMemory changed: update SaveState and RestoreState");

bool IsInt(double x) {
  return std::isfinite(x) && x == std::floor(x) &&
         std::abs(x) <= std::numeric_limits<int>::max();
}

}  // namespace

void TimeSteppingRigidBodySystem::SetDefaultPositionsAndVelocities(
    const Eigen::Ref<const VectorX<double>>& q,
    const Eigen::Ref<const VectorX<double>>& v) {
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  if (q.size() != nq || v.size() != nv) {
    throw std::invalid_argument(fmt::format(
        "TimeSteppingRigidBodySystem '{}': SetDefaultPositionsAndVelocities "
        "got q of size {} and v of size {}, expected {} and {}",
        tree_.name(), q.size(), v.size(), nq, nv));
  }
  for (int i = 0; i < nq + nv; ++i) {
    const double x = i < nq ? q[i] : v[i - nq];
    if (!std::isfinite(x)) {
      throw std::invalid_argument(fmt::format(
          "TimeSteppingRigidBodySystem '{}': SetDefaultPositionsAndVelocities: "
          "{} '{}' is {}",
          tree_.name(), i < nq ? "position" : "velocity",
          i < nq ? tree_.GetPositionNames()[i]
                 : tree_.GetVelocityNames()[i - nq],
          x));
    }
  }
  default_state_.resize(nq + nv);
  default_state_.head(nq) = q;
  default_state_.tail(nv) = v;
}

void TimeSteppingRigidBodySystem::SetDefaultState(
    const Context<double>& context, State<double>* state) const {
  LeafSystem<double>::SetDefaultState(context, state);
  if (default_state_.size() > 0) {
    state->get_mutable_discrete_state().get_mutable_vector(0) = default_state_;
  }
}

TimeSteppingSavedState TimeSteppingRigidBodySystem::SaveState(
    const Context<double>& context) const {
  TimeSteppingSavedState out;
  for (int g = 0; g < context.num_discrete_state_groups(); ++g) {
    out.discrete.push_back(context.get_discrete_state(g));
  }
  const TimeSteppingMemory& memory =
      context.get_abstract_state<TimeSteppingMemory>(0);
  std::vector<double>& m = out.memory;
  m.reserve(3 + memory.still_steps.size() +
            kEntryNumbers * memory.entries.size());
  m.push_back(kMemoryLayout);
  m.push_back(static_cast<double>(memory.still_steps.size()));
  for (int n : memory.still_steps) m.push_back(n);
  m.push_back(static_cast<double>(memory.entries.size()));
  for (const WarmStartEntry& e : memory.entries) {
    m.insert(m.end(), {static_cast<double>(e.c), static_cast<double>(e.k1),
                       static_cast<double>(e.k2)});
    m.insert(m.end(), e.point.data(), e.point.data() + 3);
    m.insert(m.end(), e.P.data(), e.P.data() + 3);
    m.insert(m.end(), e.p, e.p + 6);
  }
  return out;
}

void TimeSteppingRigidBodySystem::RestoreState(
    const TimeSteppingSavedState& state, Context<double>* context) const {
  auto fail = [this](const std::string& field, const std::string& what) {
    throw std::invalid_argument(
        fmt::format("TimeSteppingRigidBodySystem '{}': RestoreState: {}: {}",
                    tree_.name(), field, what));
  };
  // Everything is checked before anything is written.
  const int groups = context->num_discrete_state_groups();
  if (static_cast<int>(state.discrete.size()) != groups) {
    fail("discrete", fmt::format("{} groups, this plant has {}",
                                 state.discrete.size(), groups));
  }
  for (int g = 0; g < groups; ++g) {
    const VectorX<double>& x = state.discrete[g];
    const Eigen::Index n = context->get_discrete_state(g).size();
    if (x.size() != n) {
      fail(fmt::format("discrete[{}]", g),
           fmt::format("size {}, this plant's group has {}", x.size(), n));
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!std::isfinite(x[i])) {
        fail(fmt::format("discrete[{}][{}]", g, i),
             fmt::format("{} is not finite", x[i]));
      }
    }
  }
  const std::vector<double>& m = state.memory;
  std::size_t at = 0;
  // The next number, an integer (a count if `count`), named `what`.
  auto next_int = [&](const std::string& what, bool count) {
    const std::string field = fmt::format("memory[{}] ({})", at, what);
    if (at >= m.size()) fail(field, "missing (the memory ends)");
    const double x = m[at++];
    if (!IsInt(x) || (count && x < 0)) {
      fail(field,
           fmt::format("{} is not {}", x, count ? "a count" : "an integer"));
    }
    return static_cast<int>(x);
  };
  if (m.empty() || m[0] != kMemoryLayout) {
    fail("memory[0] (layout version)",
         m.empty() ? std::string("missing (the memory is empty)")
                   : fmt::format("{}, this plant reads layout {}", m[0],
                                 kMemoryLayout));
  }
  ++at;
  TimeSteppingMemory memory;
  const int num_subtrees = static_cast<int>(impl_->subtrees.size());
  const int s = next_int("subtrees", true);
  if (s != num_subtrees) {
    fail("memory[1] (subtrees)",
         fmt::format("{}, this plant has {} subtrees", s, num_subtrees));
  }
  memory.still_steps.resize(num_subtrees);
  for (int t = 0; t < num_subtrees; ++t) {
    memory.still_steps[t] =
        next_int(fmt::format("still steps of subtree {}", t), true);
  }
  const std::size_t count_at = at;
  const int num_entries = next_int("warm-start entries", true);
  // The count must match the numbers that follow before anything is
  // allocated for it.
  if (static_cast<std::size_t>(num_entries) * kEntryNumbers != m.size() - at) {
    fail(fmt::format("memory[{}] (warm-start entries)", count_at),
         fmt::format("{} entries need {} numbers, {} follow", num_entries,
                     static_cast<std::size_t>(num_entries) * kEntryNumbers,
                     m.size() - at));
  }
  memory.entries.resize(num_entries);
  const int num_constraints = static_cast<int>(constraints_.size());
  for (int k = 0; k < num_entries; ++k) {
    WarmStartEntry& e = memory.entries[k];
    const auto name = [k](const char* field) {
      return fmt::format("warm-start entry {}, {}", k, field);
    };
    const std::size_t c_at = at;
    e.c = next_int(name("constraint"), true);
    if (e.c >= num_constraints) {
      fail(fmt::format("memory[{}] ({})", c_at, name("constraint")),
           fmt::format("{}, this plant has {} constraints", e.c,
                       num_constraints));
    }
    e.k1 = next_int(name("key1"), false);
    e.k2 = next_int(name("key2"), false);
    double* values[3] = {e.point.data(), e.P.data(), e.p};
    const int sizes[3] = {3, 3, 6};
    const char* names[3] = {"point", "impulse", "row impulses"};
    for (int v = 0; v < 3; ++v) {
      for (int i = 0; i < sizes[v]; ++i, ++at) {
        if (!std::isfinite(m[at])) {
          fail(fmt::format("memory[{}] ({} {})", at, name(names[v]), i),
               fmt::format("{} is not finite", m[at]));
        }
        values[v][i] = m[at];
      }
    }
  }
  for (int g = 0; g < groups; ++g) {
    context->SetDiscreteState(g, state.discrete[g]);
  }
  context->get_mutable_abstract_state<TimeSteppingMemory>(0) =
      std::move(memory);
}

}  // namespace tern
