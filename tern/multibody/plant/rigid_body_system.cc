#include "tern/multibody/plant/rigid_body_system.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <type_traits>

#include "tern/common/autodiff.h"
#include "tern/multibody/plant/contact_common.h"
#include "tern/multibody/plant/element_scratch.h"
#include "tern/multibody/plant/rigid_contact.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/tree_cholesky.h"
#include "tern/solvers/principal_pivoting.h"

namespace tern {

namespace internal {

// The plant's per-Context workspace, kept in abstract parameter 0 with
// `mutable` members (the pattern and its reasons: vector_log_sink.h): a
// System is immutable and shared, the workspace belongs to one Context.
template <typename T>
struct RigidBodySystemScratch {
  // m: the most constraint rows (bilateral + limited joints);
  // with_mass_matrix: whether the constraint solve (H and its factor, nv x
  // nv each) can run at all (m > 0 or rigid contact): without it the plant
  // uses the articulated-body algorithm only, linear in the bodies.
  explicit RigidBodySystemScratch(const RigidBodyTree<T>& tree, int m,
                                  int num_actuators, bool with_mass_matrix)
      : cache(tree, with_mass_matrix),
        q(tree.num_positions()),
        v(tree.num_velocities()),
        qdot(tree.num_positions()),
        vdot(tree.num_velocities()),
        tau(tree.num_velocities()),
        tau_k(tree.num_velocities()),
        J(6, tree.num_velocities()),
        actuator_u(num_actuators, nullptr),
        Jc(m, tree.num_velocities()),
        phi(m),
        Jdot_v(m),
        rhs(m),
        vdot_free(tree.num_velocities()),
        Y(tree.num_velocities(), m),
        A(m, m),
        f(m),
        unilateral(m, 0),
        pivoting(m),
        factor_H(with_mass_matrix ? TreeCholesky<T>(tree) : TreeCholesky<T>()),
        island_rows(m),
        row_root(m),
        row_key(tree.num_velocities()),
        row_lo(m),
        row_hi(m),
        b_island(m),
        f_island(m),
        unilateral_island(m, 0) {
    island_start.reserve(m + 1);
    island_lo.reserve(m);
    island_hi.reserve(m);
    uf.reserve(tree.num_velocities());
  }
  KinematicsCache<T> cache;
  VectorX<T> q, v, qdot, vdot;       // (nq), (nv), (nq), (nv)
  VectorX<T> tau, tau_k;             // (nv) total and one actuator's
  Matrix6X<T> J;                     // (6 x nv) Jacobian scratch
  std::vector<const T*> actuator_u;  // per actuator: its command
  // Constraint solve (m rows in all).
  MatrixX<T> Jc;                 // (m x nv)
  VectorX<T> phi, Jdot_v, rhs;   // (m)
  VectorX<T> vdot_free;          // (nv)
  MatrixX<T> Y;                  // (nv x m) H^-1 J^T
  MatrixX<T> A;                  // (m x m) J H^-1 J^T (+ eps I)
  VectorX<T> f;                  // (m) forces
  std::vector<char> unilateral;  // (m) per row: 1 for a joint limit
  solvers::PrincipalPivotingWorkspace<T> pivoting;  // for m rows
  // H = L^T L along the tree (none without the mass matrix).
  TreeCholesky<T> factor_H;
  // Row islands (RowIslands) and one island's problem.
  std::vector<int> island_rows, island_start, uf, row_root, row_key, row_lo,
      row_hi, island_lo, island_hi;     // row_key: (nv) bucket counts
  VectorX<T> b_island, f_island;        // (m)
  std::vector<char> unilateral_island;  // (m)
  ElementScratchList actuator_scratch;  // per actuator (MakeScratch)
  ElementScratchList sensor_scratch;    // per sensor
  ElementScratchList contact_scratch;   // the rigid contact's, if any
  RigidContactScratch* rigid() const {
    return &contact_scratch.get(0)
                ->template get_mutable_value<RigidContactScratch>();
  }
};

template <typename T>
struct RigidBodySystemSlot {
  mutable RigidBodySystemScratch<T> s;
};

}  // namespace internal

template <typename T>
struct RigidBodySystem<T>::Impl {
  static internal::RigidBodySystemScratch<T>& Scratch(
      const Context<T>& context) {
    return context
        .template get_abstract_parameter<internal::RigidBodySystemSlot<T>>(0)
        .s;
  }
  // Inputs for the plant's elements over the scratch's tree, cache, q, v.
  static ForceElementInputs<T> Inputs(const RigidBodySystem& self,
                                      internal::RigidBodySystemScratch<T>* s) {
    ForceElementInputs<T> in;
    in.tree = &self.tree_;
    in.cache = &s->cache;
    in.q = &s->q;
    in.v = &s->v;
    in.J = &s->J;
    return in;
  }
  // q and v from the context's state, forward kinematics, and Inputs.
  static ForceElementInputs<T> StateKinematics(const RigidBodySystem& self,
                                               const Context<T>& context) {
    auto& s = Scratch(context);
    const int nq = self.tree_.num_positions();
    const int nv = self.tree_.num_velocities();
    const auto xc = context.get_continuous_state_vector();
    s.q = xc.head(nq);
    s.v = xc.segment(nq, nv);
    ForwardKinematics(self.tree_, &s.cache, s.q, s.v);
    return Inputs(self, &s);
  }
};

template <typename T>
RigidBodySystem<T>::RigidBodySystem(RigidBodyTree<T> tree,
                                    std::vector<ActuatorPtr> actuators,
                                    std::vector<SensorPtr> sensors,
                                    std::vector<ConstraintPtr> constraints,
                                    RigidBodySystemOptions options)
    : LeafSystem<T>("rigid_body_system"),
      tree_(std::move(tree)),
      actuators_(std::move(actuators)),
      sensors_(std::move(sensors)),
      constraints_(std::move(constraints)),
      options_(options) {
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  const std::string who = fmt::format("RigidBodySystem '{}'", tree_.name());
  if (!(options.coulomb_regularization_velocity > 0) ||
      !std::isfinite(options.coulomb_regularization_velocity)) {
    throw std::invalid_argument(fmt::format(
        "{}: coulomb_regularization_velocity must be finite and > 0, got {}",
        who, options.coulomb_regularization_velocity));
  }
  if (!(options.constraint_regularization >= 0)) {
    throw std::invalid_argument(
        fmt::format("{}: constraint_regularization must be >= 0, got {}", who,
                    options.constraint_regularization));
  }
  auto check_sizes = [&](const char* kind, const std::string& name, int enq,
                         int env) {
    internal::CheckElementSizes(who, kind, name, enq, env, nq, nv);
  };
  internal::CheckElements(who, "actuator", actuators_, nq, nv);
  internal::CheckElements(who, "sensor", sensors_, nq, nv);
  for (const ActuatorPtr& a : actuators_) {
    actuators_need_kinematics_ |= a->needs_kinematics();
  }
  if (options.enforce_mimic_joints) {
    for (auto& c : MimicConstraints(tree_)) constraints_.push_back(c);
  }
  if (options.enforce_joint_limits) limits_ = LimitedJoints(tree_, who);
  for (size_t k = 0; k < constraints_.size(); ++k) {
    if (!constraints_[k]) {
      throw std::invalid_argument(
          fmt::format("{}: constraint {} is null", who, k));
    }
    const auto& c = *constraints_[k];
    check_sizes("constraint", c.name(), c.num_positions(), c.num_velocities());
    num_constraint_rows_ += c.num_constraints();
  }
  for (const auto& [what, value] :
       {std::pair<const char*, double>{"joint_limit_impact_velocity",
                                       options.joint_limit_impact_velocity},
        {"joint_limit_tolerance", options.joint_limit_tolerance}}) {
    if (!(value > 0) || !std::isfinite(value)) {
      throw std::invalid_argument(fmt::format(
          "{}: {} must be finite and > 0, got {}", who, what, value));
    }
  }
  if (options.contact_force_output_capacity < 0) {
    throw std::invalid_argument(
        fmt::format("{}: contact_force_output_capacity must be >= 0, got {}",
                    who, options.contact_force_output_capacity));
  }
  if constexpr (std::is_same_v<T, double>) {
    if (options.rigid_contact) {
      const RigidContact& rc = *options.rigid_contact;
      check_sizes("rigid contact", rc.name(), rc.num_positions(),
                  rc.num_velocities());
      if (rc.geometry_model().num_bodies() != tree_.num_bodies()) {
        throw std::invalid_argument(fmt::format(
            "{}: rigid contact '{}' has a geometry model of {} bodies but the "
            "tree has {}",
            who, rc.name(), rc.geometry_model().num_bodies(),
            tree_.num_bodies()));
      }
    }
  } else {
    if (options.rigid_contact || options.contact_force_output_capacity > 0) {
      throw std::invalid_argument(fmt::format(
          "{}: rigid contact and the contact-force output need T = double "
          "(the geometry layer works in double)",
          who));
    }
  }

  // Continuous state [q; v; z].
  for (const ActuatorPtr& a : actuators_) {
    state_start_.push_back(num_z_);
    num_z_ += a->num_states();
  }
  VectorX<double> x0(nq + nv + num_z_);
  x0.head(nq) = ExtractValue(tree_.GetZeroConfiguration());
  x0.segment(nq, nv).setZero();
  // The default state from the options, where given.
  auto set_default = [&](const VectorX<double>& value, const char* what,
                         int start, int size, const char* kind) {
    if (value.size() == 0) return;
    if (value.size() != size) {
      throw std::invalid_argument(
          fmt::format("{}: {} has size {} but the tree has {} {}", who, what,
                      value.size(), size, kind));
    }
    x0.segment(start, size) = value;
  };
  set_default(options_.default_positions, "default_positions", 0, nq,
              "positions");
  set_default(options_.default_velocities, "default_velocities", nq, nv,
              "velocities");
  for (size_t k = 0; k < actuators_.size(); ++k) {
    x0.segment(nq + nv + state_start_[k], actuators_[k]->num_states()) =
        actuators_[k]->DefaultState();
  }
  this->DeclareContinuousState(x0, nq, nv);

  // Joint Coulomb friction, per dof.
  friction_ = JointFrictionDofs(tree_, who);

  {
    const int m = num_constraint_rows_ + static_cast<int>(limits_.size());
    bool rigid_contact = false;
    if constexpr (std::is_same_v<T, double>) {
      rigid_contact = static_cast<bool>(options.rigid_contact);
    }
    internal::RigidBodySystemSlot<T> slot{internal::RigidBodySystemScratch<T>(
        tree_, m, static_cast<int>(actuators_.size()), m > 0 || rigid_contact)};
    for (const ActuatorPtr& a : actuators_) {
      slot.s.actuator_scratch.items.push_back(a->MakeScratch());
    }
    for (const SensorPtr& sp : sensors_) {
      slot.s.sensor_scratch.items.push_back(sp->MakeScratch());
    }
    if constexpr (std::is_same_v<T, double>) {
      if (options.rigid_contact) {
        slot.s.contact_scratch.items.push_back(
            options.rigid_contact->MakeScratch());
      }
    }
    this->DeclareAbstractParameter(
        Value<internal::RigidBodySystemSlot<T>>(std::move(slot)));
  }

  // Inputs.
  for (const ActuatorPtr& a : actuators_) {
    if (a->num_inputs() > 0) {
      actuator_port_.push_back(
          this->DeclareVectorInputPort(a->name(), a->num_inputs()).get_index());
    } else {
      actuator_port_.push_back(-1);
    }
  }
  if (options.applied_generalized_force_input) {
    applied_port_ =
        this->DeclareVectorInputPort("applied_generalized_force", nv)
            .get_index();
  }
  for (const SensorPtr& s : sensors_) {
    if (s->num_noise_inputs() > 0) {
      noise_port_.push_back(this->DeclareVectorInputPort(
                                    s->name() + "_noise", s->num_noise_inputs(),
                                    RandomDistribution::kGaussian)
                                .get_index());
    } else {
      noise_port_.push_back(-1);
    }
  }

  // Outputs.
  for (size_t k = 0; k < sensors_.size(); ++k) {
    const Sensor<T>& s = *sensors_[k];
    const Prerequisites prereq =
        (s.needs_acceleration() || s.num_noise_inputs() > 0)
            ? ticket::kAllSources
            : Prerequisites(ticket::kXc | ticket::kParams);
    const int index = static_cast<int>(k);
    sensor_port_.push_back(
        this->DeclareVectorOutputPort(
                s.name(), s.num_outputs(),
                [this, index](const Context<T>& c, VectorX<T>* y) {
                  CalcSensorOutput(c, index, y);
                },
                prereq)
            .get_index());
  }
  if (options.state_output) {
    this->DeclareVectorOutputPort(
        "state", nq + nv,
        [nq, nv](const Context<T>& c, VectorX<T>* y) {
          *y = c.get_continuous_state_vector().head(nq + nv);
        },
        ticket::kXc);
  }
  if (options.acceleration_output) {
    this->DeclareVectorOutputPort("generalized_acceleration", nv,
                                  [this](const Context<T>& c, VectorX<T>* y) {
                                    EvalAccelerations(c);
                                    *y = Impl::Scratch(c).vdot;
                                  });
  }
  if (options.contact_force_output_capacity > 0) {
    this->DeclareVectorOutputPort(
        "contact_forces",
        1 + kContactRecordSize * options.contact_force_output_capacity,
        [this](const Context<T>& c, VectorX<T>* y) {
          CalcContactForces(c, y);
        });
  }
  DeclareContactEvents();
  DeclareJointLimitEvents();
  this->template DeclareTimeDerivativesKernel<
      &RigidBodySystem::DerivativesKernel>();
}

template <typename T>
RigidBodySystem<T>::~RigidBodySystem() = default;

template <typename T>
const InputPort<T>& RigidBodySystem<T>::get_actuator_input_port(
    const std::string& name) const {
  for (size_t k = 0; k < actuators_.size(); ++k) {
    if (actuators_[k]->name() == name) {
      if (actuator_port_[k] < 0) {
        throw std::invalid_argument(
            fmt::format("RigidBodySystem '{}': actuator '{}' takes no command",
                        tree_.name(), name));
      }
      return this->get_input_port(actuator_port_[k]);
    }
  }
  throw std::invalid_argument(fmt::format(
      "RigidBodySystem '{}': no actuator named '{}'", tree_.name(), name));
}

template <typename T>
const OutputPort<T>& RigidBodySystem<T>::get_sensor_output_port(
    const std::string& name) const {
  for (size_t k = 0; k < sensors_.size(); ++k) {
    if (sensors_[k]->name() == name) {
      return this->get_output_port(sensor_port_[k]);
    }
  }
  throw std::invalid_argument(fmt::format(
      "RigidBodySystem '{}': no sensor named '{}'", tree_.name(), name));
}

template <typename T>
void RigidBodySystem<T>::SetPositionsAndVelocities(
    Context<T>* context, const Eigen::Ref<const VectorX<T>>& q,
    const Eigen::Ref<const VectorX<T>>& v) const {
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  if (q.size() != nq || v.size() != nv) {
    throw std::invalid_argument(fmt::format(
        "RigidBodySystem '{}': SetPositionsAndVelocities got q of size {} and "
        "v of size {}, expected {} and {}",
        tree_.name(), q.size(), v.size(), nq, nv));
  }
  auto x = context->get_mutable_continuous_state_vector();
  x.head(nq) = q;
  x.segment(nq, nv) = v;
}

template <typename T>
void RigidBodySystem<T>::DoMapVelocityToQDot(
    const Context<T>& context, const Eigen::Ref<const VectorX<T>>& v,
    Eigen::Ref<VectorX<T>> qdot) const {
  auto& s = Impl::Scratch(context);
  const int nq = tree_.num_positions();
  s.q = context.get_continuous_state_vector().head(nq);
  s.v = v;
  MapVelocityToQDot(tree_, s.q, s.v, &s.qdot);
  qdot = s.qdot;
}

template <typename T>
void RigidBodySystem<T>::CalcAccelerations(const Context<T>& context,
                                           const T* const* actuator_u,
                                           const T* applied, T* zdot) const {
  using std::sqrt;
  auto& s = Impl::Scratch(context);
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  const auto xc = context.get_continuous_state_vector();
  s.q = xc.head(nq);
  s.v = xc.segment(nq, nv);
  const T* z = xc.data() + nq + nv;
  const bool rigid_contact = options_.rigid_contact != nullptr;
  const bool constrained =
      num_constraint_rows_ > 0 || !limits_.empty() || rigid_contact;
  if (actuators_need_kinematics_ || num_constraint_rows_ > 0 || rigid_contact) {
    ForwardKinematics(tree_, &s.cache, s.q, s.v);
  }
  ForceElementInputs<T> in = Impl::Inputs(*this, &s);

  // tau = applied + tau_1 + tau_2 + ..., summed in this order so that
  // standalone actuators added by an Adder give the same numbers.
  bool first = true;
  if (applied != nullptr) {
    for (int i = 0; i < nv; ++i) s.tau[i] = applied[i];
    first = false;
  }
  for (size_t k = 0; k < actuators_.size(); ++k) {
    const Actuator<T>& a = *actuators_[k];
    in.u = actuator_u[k];
    in.z = a.num_states() > 0 ? z + state_start_[k] : nullptr;
    in.scratch = s.actuator_scratch.get(k);
    if (first) {
      a.CalcGeneralizedForce(in, &s.tau);
      first = false;
    } else {
      a.CalcGeneralizedForce(in, &s.tau_k);
      s.tau += s.tau_k;
    }
    if (zdot != nullptr && a.num_states() > 0) {
      a.CalcStateDerivatives(in, zdot + state_start_[k]);
    }
  }
  if (first) s.tau.setZero();
  const double vs = options_.coulomb_regularization_velocity;
  for (const FrictionDof& f : friction_) {
    const T& vi = s.v[f.dof];
    s.tau[f.dof] -= f.force * vi / sqrt(vi * vi + vs * vs);
  }

  if (!constrained || !SolveConstrained(context, in, Level::kAcceleration)) {
    s.vdot = ForwardDynamics(tree_, &s.cache, s.q, s.v, s.tau);
  }
}

namespace {

// The islands of the constraint rows 0..m-1 of s->Jc: rows are joined when
// they touch (a nonzero J entry) a dof of the same tree from the world
// (TreeCholesky::dof_roots). Fills s->island_rows (the rows, island by
// island, ascending within one) and s->island_start (num islands + 1);
// returns the number of islands. One island for T != double.
template <typename T>
int RowIslands(int m, internal::RigidBodySystemScratch<T>* s) {
  s->island_start.assign(1, 0);
  if constexpr (!std::is_same_v<T, double>) {
    for (int i = 0; i < m; ++i) s->island_rows[i] = i;
    s->island_start.push_back(m);
    s->island_lo.assign(1, 0);
    s->island_hi.assign(1, static_cast<int>(s->v.size()) - 1);
    return 1;
  } else {
    const std::vector<int>& root = s->factor_H.dof_roots();
    const int nv = static_cast<int>(root.size());
    // Union-find over the roots (a root is named by its dof).
    std::vector<int>& uf = s->uf;
    uf.resize(nv);
    for (int d = 0; d < nv; ++d) uf[d] = d;
    auto find = [&](int x) {
      while (uf[x] != x) x = uf[x] = uf[uf[x]];
      return x;
    };
    const std::vector<int>& tree_end = s->factor_H.tree_ends();
    for (int i = 0; i < m; ++i) {
      int first = -1, lo = nv, hi = -1;
      for (int d = 0; d < nv; ++d) {
        if (s->Jc(i, d) == 0) continue;
        lo = std::min(lo, root[d]);
        hi = std::max(hi, tree_end[root[d]]);
        const int r = find(root[d]);
        if (first < 0) {
          first = r;
        } else if (r != first) {
          uf[r] = first;
        }
      }
      s->row_root[i] = first;
      s->row_lo[i] = lo;
      s->row_hi[i] = hi;
    }
    // Rows bucketed by the final representative of their root, ascending,
    // rows in order within a bucket (a counting sort: no allocation); a row
    // that touches nothing is an island of its own, after the others.
    std::vector<int>& count = s->row_key;  // (nv): rows per representative
    count.assign(nv, 0);
    for (int i = 0; i < m; ++i) {
      if (s->row_root[i] >= 0) {
        s->row_root[i] = find(s->row_root[i]);
        ++count[s->row_root[i]];
      }
    }
    int next = 0;
    for (int d = 0; d < nv; ++d) {
      if (count[d] == 0) continue;
      const int c = count[d];
      count[d] = next;  // first slot of the bucket
      next += c;
      s->island_start.push_back(next);
    }
    for (int i = 0; i < m; ++i) {
      if (s->row_root[i] >= 0) {
        s->island_rows[count[s->row_root[i]]++] = i;
      } else {
        s->island_rows[next++] = i;
        s->island_start.push_back(next);
      }
    }
    // Each island's dofs lie in [lo, hi] (its rows' trees).
    const int ni = static_cast<int>(s->island_start.size()) - 1;
    s->island_lo.resize(ni);
    s->island_hi.resize(ni);
    for (int k = 0; k < ni; ++k) {
      int lo = nv, hi = -1;
      for (int r = s->island_start[k]; r < s->island_start[k + 1]; ++r) {
        lo = std::min(lo, s->row_lo[s->island_rows[r]]);
        hi = std::max(hi, s->row_hi[s->island_rows[r]]);
      }
      s->island_lo[k] = hi < 0 ? 0 : lo;
      s->island_hi[k] = hi;
    }
    return static_cast<int>(s->island_start.size()) - 1;
  }
}

}  // namespace

template <typename T>
bool RigidBodySystem<T>::SolveConstrained(const Context<T>& context,
                                          const ForceElementInputs<T>& in_kin,
                                          Level level) const {
  const bool impulse = level == Level::kImpulse;
  auto& s = Impl::Scratch(context);
  ForceElementInputs<T> in = in_kin;
  in.u = nullptr;
  in.z = nullptr;
  in.scratch = nullptr;
  // Bilateral rows at the current (q, v); the cache holds FK(q, v).
  int m = 0;
  for (const ConstraintPtr& cp : constraints_) {
    const ContinuousTimeConstraintForce<T>& c = *cp;
    const int mc = c.num_constraints();
    c.CalcConstraint(in, s.phi.data() + m, s.Jc.middleRows(m, mc),
                     s.Jdot_v.data() + m);
    const double alpha = c.gains().alpha;
    const double beta = c.gains().beta;
    for (int i = m; i < m + mc; ++i) {
      const T Jv = s.Jc.row(i).dot(s.v);
      // At an impact the rows hold at the velocity level: J v+ = 0.
      s.rhs[i] =
          impulse ? T(0)
                  : T(-(s.Jdot_v[i] + 2 * alpha * Jv + beta * beta * s.phi[i]));
      s.unilateral[i] = 0;
    }
    m += mc;
  }
  // Joint limits at or beyond their bounds: one unilateral row each, J =
  // +e (lower) or -e (upper), so that f >= 0 pushes back into the range.
  // With the impact law, a row is active within joint_limit_tolerance of
  // its limit, except (acceleration level) a joint still approaching faster
  // than the impact velocity before the limit: that is the impact's.
  const double alpha = options_.joint_limit_gains.alpha;
  const double beta = options_.joint_limit_gains.beta;
  const bool impacts = options_.joint_limit_impacts;
  const double tol = impacts ? options_.joint_limit_tolerance : 0.0;
  for (const LimitedJoint& limit : limits_) {
    const T& qi = s.q[limit.q];
    const T phi_lower = qi - limit.lower;
    const T phi_upper = limit.upper - qi;
    double sign = 0;
    T phi(0);
    if (phi_lower <= tol) {
      sign = 1;
      phi = phi_lower;
    } else if (phi_upper <= tol) {
      sign = -1;
      phi = phi_upper;
    } else {
      continue;
    }
    const T Jv = sign * s.v[limit.dof];
    if (impacts && !impulse && phi > 0 &&
        Jv < -options_.joint_limit_impact_velocity) {
      continue;
    }
    s.Jc.row(m).setZero();
    s.Jc(m, limit.dof) = T(sign);
    s.phi[m] = phi;
    s.rhs[m] = impulse ? T(0) : T(-(2 * alpha * Jv + beta * beta * phi));
    s.unilateral[m] = 1;
    ++m;
  }
  int num_contacts = 0;
  if constexpr (std::is_same_v<T, double>) {
    if (options_.rigid_contact) {
      const RigidContact& rc = *options_.rigid_contact;
      rc.FindContacts(in, rc.parameters().contact_tolerance, impulse,
                      s.rigid());
      num_contacts = s.rigid()->num_points;
    }
  }
  if (m == 0 && num_contacts == 0) return false;

  // RBDA sec. 8.3: H vdot = tau - C + J^T f, with H factored once and the
  // forces from the m x m system in constraint space.
  const MatrixX<T>& H = MassMatrix(tree_, &s.cache, s.q);
  const int bad_dof = s.factor_H.Compute(H);
  if (bad_dof >= 0) {
    throw std::runtime_error(fmt::format(
        "RigidBodySystem '{}': the mass matrix is not positive definite at "
        "t = {} (velocity '{}'): a body without mass or inertia on a moving "
        "joint",
        tree_.name(), ExtractDoubleOrThrow(context.get_time()),
        tree_.GetVelocityNames()[bad_dof]));
  }
  if (impulse) {
    s.vdot_free = s.v;
  } else {
    const VectorX<T>& C = BiasTerm(tree_, &s.cache, s.q, s.v);
    s.vdot_free = s.tau - C;
    s.factor_H.SolveInPlace(&s.vdot_free);
  }
  if constexpr (std::is_same_v<T, double>) {
    if (num_contacts > 0) {
      // Unilateral contact rows: Lemke on the whole LCP (rigid_contact.h).
      PlantConstraintRows rows;
      rows.m = m;
      rows.J = &s.Jc;
      rows.rhs = &s.rhs;
      rows.unilateral = &s.unilateral;
      options_.rigid_contact->Solve(
          impulse ? ContactLevel::kImpulse : ContactLevel::kAcceleration,
          s.factor_H, s.vdot_free, rows, options_.constraint_regularization,
          tree_.name(), context.get_time(), s.rigid(), &s.vdot);
      return true;
    }
  }
  auto J = s.Jc.topRows(m);
  auto Y = s.Y.leftCols(m);
  Y = J.transpose();
  s.factor_H.SolveInPlace(Y);
  // A f = b on the active rows, b = rhs - J vdot_free.
  auto b = s.rhs.head(m);
  b.noalias() -= J * s.vdot_free;

  // Islands: A = J H^-1 J^T couples two rows only if they touch one tree
  // from the world (H is block diagonal over those trees), so each island
  // of rows is its own problem (22 humanoids with their joint limits: 22
  // small problems instead of one of all their rows). For AutoDiff one
  // island: a J entry zero in value may not be in its derivatives.
  const int num_islands = RowIslands(m, &s);
  for (int island = 0; island < num_islands; ++island) {
    const int r0 = s.island_start[island];
    const int k = s.island_start[island + 1] - r0;
    const int* rows = s.island_rows.data() + r0;
    auto A = s.A.topLeftCorner(k, k);
    auto bi = s.b_island.head(k);
    // The island's rows and their H^-1 J^T columns are zero outside its
    // dofs' range.
    const int lo = s.island_lo[island];
    const int len = s.island_hi[island] - lo + 1;
    for (int a = 0; a < k; ++a) {
      for (int c = 0; c <= a; ++c) {
        A(a, c) = A(c, a) = J.row(rows[a]).segment(lo, len).dot(
            Y.col(rows[c]).segment(lo, len));
      }
      bi[a] = b[rows[a]];
      s.unilateral_island[a] = s.unilateral[rows[a]];
    }
    T max_diag(0);
    for (int i = 0; i < k; ++i) {
      if (A(i, i) > max_diag) max_diag = A(i, i);
    }
    const T eps = options_.constraint_regularization * (1 + max_diag);
    for (int i = 0; i < k; ++i) A(i, i) += eps;

    // Bilateral rows always active, joint limits complementary: Murty's
    // principal pivoting (solvers/principal_pivoting.h).
    solvers::PivotingResult solved;
    auto fi = s.f_island.head(k);
    try {
      solved = solvers::SolveMixedLcpPrincipalPivoting<T>(
          A, bi, std::span<const char>(s.unilateral_island.data(), k), {},
          &s.pivoting, fi);
    } catch (const std::invalid_argument& e) {
      // A NaN or infinite row from the state or the constraints.
      throw std::runtime_error(fmt::format(
          "RigidBodySystem '{}': the constraint problem at t = {} "
          "is not finite ({})",
          tree_.name(), ExtractDoubleOrThrow(context.get_time()), e.what()));
    }
    if (solved.status == solvers::PivotingStatus::kIterationLimit) {
      throw std::runtime_error(fmt::format(
          "RigidBodySystem '{}': the joint-limit problem did not converge in "
          "{} pivots at t = {}",
          tree_.name(), solved.pivots,
          ExtractDoubleOrThrow(context.get_time())));
    }
    if (solved.status == solvers::PivotingStatus::kNotPositiveDefinite) {
      throw std::runtime_error(fmt::format(
          "RigidBodySystem '{}': the constraint rows are singular (a "
          "constraint repeated or redundant beyond regularization; "
          "constraint_regularization is {})",
          tree_.name(), options_.constraint_regularization));
    }
    for (int a = 0; a < k; ++a) s.f[rows[a]] = fi[a];
  }
  s.vdot = s.vdot_free;
  s.vdot.noalias() += Y * s.f.head(m);
  return true;
}

template <typename T>
void RigidBodySystem<T>::DerivativesKernel(const RigidBodySystem& self,
                                           const Context<T>& context,
                                           const KernelInputs<T>& u, T* xdot) {
  auto& s = Impl::Scratch(context);
  for (size_t k = 0; k < self.actuators_.size(); ++k) {
    s.actuator_u[k] =
        self.actuator_port_[k] >= 0 ? u[self.actuator_port_[k]] : nullptr;
  }
  const T* applied = self.applied_port_ >= 0 ? u[self.applied_port_] : nullptr;
  const int nq = self.tree_.num_positions();
  const int nv = self.tree_.num_velocities();
  self.CalcAccelerations(context, s.actuator_u.data(), applied, xdot + nq + nv);
  MapVelocityToQDot(self.tree_, s.q, s.v, &s.qdot);
  for (int i = 0; i < nq; ++i) xdot[i] = s.qdot[i];
  for (int i = 0; i < nv; ++i) xdot[nq + i] = s.vdot[i];
}

template <typename T>
void RigidBodySystem<T>::EvalAccelerations(const Context<T>& context) const {
  auto& s = Impl::Scratch(context);
  for (size_t a = 0; a < actuators_.size(); ++a) {
    s.actuator_u[a] =
        actuator_port_[a] >= 0
            ? this->get_input_port(actuator_port_[a]).Eval(context).data()
            : nullptr;
  }
  const T* applied =
      applied_port_ >= 0
          ? this->get_input_port(applied_port_).Eval(context).data()
          : nullptr;
  CalcAccelerations(context, s.actuator_u.data(), applied, nullptr);
}

template <typename T>
void RigidBodySystem<T>::DeclareContactEvents() {
  if constexpr (std::is_same_v<T, double>) {
    if (!options_.rigid_contact) return;
    const RigidContact& rc = *options_.rigid_contact;
    // Positions and velocities into the scratch, forward kinematics, and the
    // contacts up to `margin`.
    auto find = [this](const Context<T>& c, double margin) {
      const ForceElementInputs<T> in = Impl::StateKinematics(*this, c);
      RigidContactScratch* r = Impl::Scratch(c).rigid();
      options_.rigid_contact->FindContacts(in, margin, false, r);
      return r;
    };
    // A mode change only truncates the step there (and restarts the
    // integration rule): the plant re-reads the contact modes from the
    // state at every evaluation.
    auto mode_change = [](const Context<T>&, State<T>*) {};
    // After a solve at the context: the smallest value(p) + 1e-8 N over the
    // touching contacts (the sticking ones if `sticking`), 1 if none.
    auto solved_min = [this](const Context<T>& c, bool sticking, auto value) {
      EvalAccelerations(c);
      const RigidContactScratch& r = *Impl::Scratch(c).rigid();
      double w = 1;
      for (int k = 0; k < r.num_points; ++k) {
        const RigidContactPoint& p = r.points[k];
        if (!(sticking && p.sliding)) w = std::min(w, value(p) + 1e-8);
      }
      return w;
    };
    this->DeclareWitnessFunction(
        "rigid_contact_impact", WitnessDirection::kPositiveToNegative,
        [find, margin = rc.parameters().witness_margin](const Context<T>& c) {
          return find(c, margin)->impact_witness;
        },
        [this](const Context<T>& c, State<T>* next) { ApplyImpact(c, next); });
    // min over touching contacts of f_n - m_eff a_n: > 0 while pressing, < 0
    // once separating (one of the pair is zero by complementarity). The
    // offset 1e-8 N keeps contacts that touch with zero force (the
    // LCP's round-off, or one corner of four carrying none) from flickering
    // around 0 and truncating every step.
    this->DeclareWitnessFunction(
        "rigid_contact_liftoff", WitnessDirection::kPositiveToNegative,
        [solved_min](const Context<T>& c) {
          return solved_min(c, false, [](const RigidContactPoint& p) {
            return p.f_n - p.m_eff * p.a_n;
          });
        },
        mode_change);
    // A sliding body coming to rest: the sum over sliding contacts of v_t .
    // (t1 + phi t2), phi = 0.618... (irrational, so that the sum of a body
    // sliding to rest on a straight line changes sign as v_t passes 0:
    // |v_t| does not, and a step may take it past 0 unseen). Sticking
    // contacts add 0, so the sum jumps to 0 (a crossing, localized there)
    // when the contacts enter the sticking set, and stays 0 while they
    // stick.
    this->DeclareWitnessFunction(
        "rigid_contact_stick", WitnessDirection::kCrossesZero,
        [find, tol = rc.parameters().contact_tolerance](const Context<T>& c) {
          const RigidContactScratch& r = *find(c, tol);
          double w = 0;
          for (int k = 0; k < r.num_points; ++k) {
            const RigidContactPoint& p = r.points[k];
            if (p.sliding) w += p.v_t.dot(p.t1 + 0.6180339887498949 * p.t2);
          }
          return w;
        },
        mode_change);
    // min over sticking contacts of (mu f_n - sum beta) - m_eff lambda: > 0
    // inside the friction cone, < 0 once the contact starts to slip.
    this->DeclareWitnessFunction(
        "rigid_contact_slip", WitnessDirection::kPositiveToNegative,
        [solved_min](const Context<T>& c) {
          return solved_min(c, true, [](const RigidContactPoint& p) {
            return p.friction_margin - p.m_eff * p.lambda;
          });
        },
        mode_change);
  }
}

template <typename T>
void RigidBodySystem<T>::DeclareJointLimitEvents() {
  if (!options_.joint_limit_impacts) return;
  const int nq = tree_.num_positions();
  const double vi = options_.joint_limit_impact_velocity;
  for (const LimitedJoint& limit : limits_) {
    const int iq = limit.q;
    const int iv = nq + limit.dof;
    const double lower = limit.lower;
    const double upper = limit.upper;
    // phi of the limit approached faster than the impact velocity, else 1
    // (a crossing of 0 is an arrival at the limit; rigid_body_system.h).
    this->DeclareWitnessFunction(
        "joint_limit_" + limit.name, WitnessDirection::kPositiveToNegative,
        [iq, iv, lower, upper, vi](const Context<T>& c) {
          const auto x = c.get_continuous_state_vector();
          T w(1);
          if (x[iv] < -vi && x[iq] - lower < w) w = x[iq] - lower;
          if (x[iv] > vi && upper - x[iq] < w) w = upper - x[iq];
          return w;
        },
        [this](const Context<T>& c, State<T>* next) { ApplyImpact(c, next); });
  }
}

template <typename T>
void RigidBodySystem<T>::ApplyImpact(const Context<T>& context,
                                     State<T>* next) const {
  auto& s = Impl::Scratch(context);
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  const ForceElementInputs<T> in = Impl::StateKinematics(*this, context);
  RigidContactScratch* r = nullptr;
  if constexpr (std::is_same_v<T, double>) {
    if (options_.rigid_contact) {
      r = s.rigid();
      r->restitution = true;
    }
  }
  // One impulse problem over the touching contacts, the limit rows within
  // tolerance and the bilateral rows (rigid_contact.h, rigid_body_system.h).
  if (!SolveConstrained(context, in, Level::kImpulse)) return;
  const MatrixX<T>& H = MassMatrix(tree_, &s.cache, s.q);
  const T before = 0.5 * s.v.dot(H * s.v);
  T after = 0.5 * s.vdot.dot(H * s.vdot);
  // Energy must not grow: if friction and restitution together would
  // raise it, redo the impact with e = 0 (rigid_contact.h).
  if (r != nullptr && after > before * (1 + 1e-12) + 1e-15) {
    r->restitution = false;
    SolveConstrained(context, in, Level::kImpulse);
    r->restitution = true;
    after = 0.5 * s.vdot.dot(H * s.vdot);
  }
  // A plastic impact cannot add energy; more than round-off is a defect of
  // the solve, not physics.
  if (after > before * (1 + 1e-9) + 1e-12) {
    throw std::runtime_error(fmt::format(
        "RigidBodySystem '{}': the impact at t = {} raised the kinetic "
        "energy from {} J to {} J",
        tree_.name(), ExtractDoubleOrThrow(context.get_time()),
        ExtractDoubleOrThrow(before), ExtractDoubleOrThrow(after)));
  }
  next->get_mutable_continuous_state_vector().segment(nq, nv) = s.vdot;
}

template <typename T>
void RigidBodySystem<T>::CalcContactForces(const Context<T>& context,
                                           VectorX<T>* y) const {
  if constexpr (std::is_same_v<T, double>) {
    EvalAccelerations(context);
    auto& s = Impl::Scratch(context);
    y->setZero();
    const int capacity = options_.contact_force_output_capacity;
    int count = 0;
    ForceElementInputs<T> in = Impl::Inputs(*this, &s);
    for (size_t k = 0; k < actuators_.size(); ++k) {
      in.scratch = s.actuator_scratch.get(static_cast<int>(k));
      count += actuators_[k]->WriteContactRecords(
          in, y->data() + 1 + kContactRecordSize * std::min(count, capacity),
          std::max(capacity - count, 0));
    }
    if (options_.rigid_contact) {
      const RigidContactScratch& r = *s.rigid();
      for (int k = 0; k < r.num_points; ++k) {
        const RigidContactPoint& p = r.points[k];
        const Vector3<double> f = p.f_n * p.n + p.f_t;
        if (f.isZero(0)) continue;
        if (count < capacity) {
          WriteContactRecord(y->data() + 1 + kContactRecordSize * count, p.p_WB,
                             p.n, f, p.geometry_a, p.geometry_b, p.phi);
        }
        ++count;
      }
    }
    (*y)[0] = count;
  } else {
    (void)context;
    (void)y;
  }
}

template <typename T>
void RigidBodySystem<T>::CalcSensorOutput(const Context<T>& context, int k,
                                          VectorX<T>* y) const {
  auto& s = Impl::Scratch(context);
  const Sensor<T>& sensor = *sensors_[k];
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  if (sensor.needs_acceleration()) {
    EvalAccelerations(context);
  } else {
    const auto xc = context.get_continuous_state_vector();
    s.q = xc.head(nq);
    s.v = xc.segment(nq, nv);
  }
  internal::ReadSensor(
      tree_, sensor, s.q, s.v, sensor.needs_acceleration() ? &s.vdot : nullptr,
      noise_port_[k] >= 0
          ? this->get_input_port(noise_port_[k]).Eval(context).data()
          : nullptr,
      &s.cache, &s.J, s.sensor_scratch.get(k), y->data());
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(RigidBodySystem)

}  // namespace tern
