#include "tern/multibody/plant/time_stepping_rigid_body_system.h"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>

#include "tern/common/all_finite.h"
#include "tern/multibody/plant/element_scratch.h"
#include "tern/multibody/plant/time_stepping_internal.h"
#include "tern/multibody/plant/time_stepping_stepper.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/dynamics_derivatives.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/solvers/convex_contact_solver.h"
#include "tern/solvers/lemke.h"

namespace tern {

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
  check_option(
      options.convex_beta_min > 0 && std::isfinite(options.convex_beta_min),
      "convex_beta_min", options.convex_beta_min);
  check_option(options.convex_rest_depth >= 0 &&
                   std::isfinite(options.convex_rest_depth),
               "convex_rest_depth", options.convex_rest_depth);
  check_option(options.convex_sigma > 0 && std::isfinite(options.convex_sigma),
               "convex_sigma", options.convex_sigma);
  check_option(options.convex_creep_velocity >= 0 &&
                   std::isfinite(options.convex_creep_velocity),
               "convex_creep_velocity", options.convex_creep_velocity);
  check_option(
      options.convex_sigma_min > 0 && std::isfinite(options.convex_sigma_min),
      "convex_sigma_min", options.convex_sigma_min);
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

  // Constraints: contact, joint limits, joint friction, bilateral (given,
  // then mimic).
  constraints_.push_back(std::make_shared<TimeSteppingContact>(
      tree_, std::move(geometry), options.contact_margin, "contact",
      options.speculative_contacts));
  if (options.enforce_joint_limits) {
    auto limits = std::make_shared<TimeSteppingJointLimits>(
        tree_, options.joint_limit_margin);
    if (limits->num_limited_joints() > 0) constraints_.push_back(limits);
  }
  if (options.joint_friction) {
    auto friction = std::make_shared<TimeSteppingJointFriction>(tree_);
    if (friction->num_friction_dofs() > 0) constraints_.push_back(friction);
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
    for (auto& c : MimicConstraints(tree_)) bilateral.push_back(c);
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
      info.minv_diagonal = info.M.isDiagonal(0.0) && info.Minv.isDiagonal(0.0);
      info.com_at_origin = first.inertia_with_welded.h.isZero(0.0);
      info.m_positive_diagonal = solvers::PositiveDiagonal6(info.M);
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
    impl->actuators_need_kinematics |= a->needs_kinematics();
    const ImplicitJointGains* pd =
        options.implicit_pd ? a->ImplicitGains() : nullptr;
    impl->implicit_gains.push_back(pd);
    if (pd != nullptr) {
      impl->num_pd_joints += static_cast<int>(pd->velocity_indices.size());
    }
  }
  impl->needs_velocity_kinematics |=
      constraints_.size() > 1 || options.speculative_contacts;
  impl->cone = solvers::PolygonalFrictionCone(options.friction_directions);
  for (const SubtreeInfo& st : impl->subtrees) {
    impl->tree_dof_start.push_back(st.dof_start);
    impl->tree_num_dofs.push_back(st.n);
  }
  impl->local_parent.assign(impl->dofs.size(), -1);
  for (size_t i = 0; i < impl->dofs.size(); ++i) {
    const int dof = impl->dofs[i];
    const int p = tree_.velocity_parents()[dof];
    if (p < 0 || impl->tree_of_dof[p] != impl->tree_of_dof[dof]) continue;
    impl->local_parent[i] = impl->local_of_dof[p];
    // FactorMass eliminates children before their parents.
    if (impl->local_parent[i] >= impl->local_of_dof[dof]) {
      throw std::logic_error(fmt::format(
          "{}: dof {} comes before its parent dof {} in its subtree", who, dof,
          p));
    }
  }

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
    slot.s.mass.resize(impl->subtrees.size());
    slot.s.mass_rows.resize(impl->subtrees.size());
    for (size_t t = 0; t < impl->subtrees.size(); ++t) {
      const SubtreeInfo& st = impl->subtrees[t];
      if (st.free) continue;
      slot.s.mass[t] =
          PackedTreeFactor(impl->local_parent.data() + st.dof_start, st.n);
    }
    slot.s.rhs.assign(impl->max_subtree_dofs, 0.0);
    slot.s.rhs2.assign(impl->max_subtree_dofs, 0.0);
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

// A step that diverged (a non-finite velocity or position) throws naming
// the plant, the time and the coordinate; the context keeps its state.
void TimeSteppingStepper::CheckFinite(const Context<double>& context,
                                      const VectorX<double>& qn) const {
  const RigidBodyTree<double>& tree = sys.tree();
  auto fail = [&](const char* what, int i, const std::string& name) {
    throw std::runtime_error(fmt::format(
        "TimeSteppingRigidBodySystem '{}': the step at t = {} (h = {}) gave "
        "a non-finite {} {} ('{}'); the state is left at t",
        tree.name(), context.get_time(), h, what, i, name));
  };
  // The common case in one vectorized pass; the loops name the culprit.
  if (AllFinite(s.vn.data(), s.vn.size()) && AllFinite(qn.data(), qn.size())) {
    return;
  }
  for (int i = 0; i < s.vn.size(); ++i) {
    if (!std::isfinite(s.vn[i]))
      fail("velocity", i, tree.GetVelocityNames()[i]);
  }
  for (int i = 0; i < qn.size(); ++i) {
    if (!std::isfinite(qn[i])) fail("position", i, tree.GetPositionNames()[i]);
  }
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
  // MassMatrix writes every body's X_PB, S and X_WB at q and BiasTerm its
  // velocities V and vJ (the kinematics the rows read), so forward
  // kinematics runs without them, or for actuators, whose contract is the
  // full ForwardKinematics(q, v) (with the bias accelerations).
  if (!impl.has_articulated) {
    if (impl.needs_velocity_kinematics) {
      ForwardKinematics(tree, &s.cache, s.q, s.v);
    } else {
      ForwardKinematics(tree, &s.cache, s.q);
    }
  } else if (impl.actuators_need_kinematics) {
    ForwardKinematics(tree, &s.cache, s.q, s.v);
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
      if (impl.implicit_gains[k] != nullptr) continue;  // ServoTorques
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
  s.v_free = s.vn;
  if (!impl.floating_trees.empty()) MomentumAtStart();
  SolveConstraints(context, memory);
  if (MissedRows()) {
    // A row was missed (a joint jerked past its limit within the step):
    // solve again from the free velocity with rows swept by both.
    s.vn_first = s.vn;
    s.vn = s.v_free;
    v_next_ = &s.vn_first;
    SolveConstraints(context, memory);
    v_next_ = nullptr;
    ++s.stats.resolves;
  }
  const int nt = static_cast<int>(impl.subtrees.size());
  for (int t = 0; t < nt; ++t) {
    if (!s.tree_asleep[t]) continue;
    const int* dofs = Dofs(t);
    for (int k = 0; k < N(t); ++k) s.vn[dofs[k]] = 0;
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
  CheckFinite(context, qn);
  NormalizeQuaternions(tree, &qn);
  RotateFreeVelocities(qn);
  if (!impl.floating_trees.empty()) ConserveMomentum(qn);
  CheckFinite(context, qn);
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

void TimeSteppingStepper::SolveConstraints(const Context<double>& context,
                                           const TimeSteppingMemory& memory) {
  BuildRows(context);
  LocalBlocks();
  // The warm start first: a contact with a warm-start impulse is never left
  // out of the islands.
  WarmStart(memory);
  LeaveOutSeparated(memory);
  BuildIslands(memory);
  SolveIslands(memory);
}

void TimeSteppingStepper::SolveIslands(const TimeSteppingMemory& memory) {
  // The warm-start impulses, for an island solved again: they set its
  // problem's regularization (the contacts' loads), not only its start.
  auto& groups = s.rows.groups;
  if (!s.left_out.empty()) {
    s.p_warm.resize(6 * groups.size());
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      std::copy(groups[gi].p, groups[gi].p + 6, s.p_warm.data() + 6 * gi);
    }
  }
  const int num_islands = static_cast<int>(s.island_start.size()) - 1;
  for (int i = 0; i < num_islands; ++i) SolveIsland(i);
  // A contact left out of the islands that the answer does not separate
  // joins them; the island it then belongs to is solved again from the free
  // velocities (its other islands' answers, those of a part of the problem,
  // are its warm start). Islands it does not touch keep their answers: each
  // is the full problem's on its subtrees.
  for (;;) {
    bool joined = false;
    for (int gi : s.left_out) {
      RowGroup& g = groups[gi];
      if (g.joined || SeparatedAt(g, s.vn.data())) continue;
      g.joined = joined = true;
    }
    if (!joined) break;
    // The subtrees of the islands that a joined contact touches.
    s.rejoin_island.assign(s.island_start.size() - 1, 0);
    for (int gi : s.left_out) {
      const RowGroup& g = s.rows.groups[gi];
      if (!g.joined) continue;
      s.rejoin_island[s.island_of[g.tree[0]]] = 1;
      s.rejoin_island[s.island_of[g.tree[1]]] = 1;
    }
    const int nt = static_cast<int>(impl.subtrees.size());
    s.rejoin.assign(nt, 0);
    for (int t = 0; t < nt; ++t) s.rejoin[t] = s.rejoin_island[s.island_of[t]];
    BuildIslands(memory);
    auto& redo = s.rejoin_island;
    redo.assign(s.island_start.size() - 1, 0);
    for (int t = 0; t < nt; ++t) {
      if (!s.rejoin[t]) continue;
      redo[s.island_of[t]] = 1;
      const int* dofs = Dofs(t);
      for (int k = 0; k < N(t); ++k) s.vn[dofs[k]] = s.v_free[dofs[k]];
    }
    for (size_t i = 0; i < redo.size(); ++i) {
      if (!redo[i]) continue;
      for (int idx = s.island_start[i]; idx < s.island_start[i + 1]; ++idx) {
        const int gi = s.order[idx];
        std::copy_n(s.p_warm.data() + 6 * gi, 6, groups[gi].p);
      }
      ++s.stats.convex_resolves;
      SolveIsland(static_cast<int>(i));
    }
  }
  for (int gi : s.left_out) {
    s.stats.convex_rows_left_out += !s.rows.groups[gi].joined;
  }
}

void TimeSteppingStepper::SolveIsland(int i) {
  using Solver = TimeSteppingOptions::Solver;
  const int begin = s.island_start[i], end = s.island_start[i + 1];
  if (begin == end || !s.island_awake[i]) return;
  if (opt.solver == Solver::kConvex) {
    bool pile = true;
    for (int idx = begin; idx < end && pile; ++idx) {
      const RowGroup& g = s.rows.groups[s.order[idx]];
      pile &= g.kind == RowKind::kContact && g.fast;
    }
    if (pile && s.island_dofs[i] > opt.convex_max_free_body_dofs) {
      SolvePgs(i);
    } else {
      SolveConvex(i);
    }
    return;
  }
  bool lemke = opt.solver == Solver::kLemke;
  if (opt.solver == Solver::kAuto && end - begin > 1) {
    int unknowns = 0;
    bool robot = false;
    for (int idx = begin; idx < end; ++idx) {
      const RowGroup& g = s.rows.groups[s.order[idx]];
      unknowns += g.kind == RowKind::kContact   ? impl.cone.num_directions() + 2
                  : g.kind == RowKind::kLimit   ? 1
                  : g.kind == RowKind::kBounded ? 3
                                                : 0;
      robot |= g.kind != RowKind::kContact;
      for (int e = 0; e < 2; ++e) {
        robot |= g.tree[e] >= 0 && !impl.subtrees[g.tree[e]].free;
      }
    }
    lemke = robot && unknowns <= opt.lemke_max_unknowns;
  }
  lemke_failure_.clear();
  if (lemke && SolveLemke(i)) return;
  SolvePgs(i);
}

bool TimeSteppingStepper::MissedRows() {
  TimeSteppingConstraintInputs in;
  in.tree = &sys.tree();
  in.cache = &s.cache;
  in.q = &s.q;
  in.v = &s.v;
  in.h = h;
  const auto& constraints = sys.constraints();
  for (size_t c = 0; c < constraints.size(); ++c) {
    in.scratch = s.constraint_scratch.get(c);
    if (constraints[c]->MissedRows(in, s.vn)) return true;
  }
  return false;
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
