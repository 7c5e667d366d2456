#include "tern/multibody/plant/time_stepping_constraint_force.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/multibody/plant/time_stepping_internal.h"

namespace tern {

using internal::RowGroup;
using internal::RowKind;

void TimeSteppingConstraintRows::AddContact(const ContactFrame& f) {
  RowGroup& g = s_->groups.emplace_back();
  g.kind = RowKind::kContact;
  g.rows = 3;
  g.key1 = f.geometry_a;
  g.key2 = f.geometry_b;
  g.body_a = f.body_a;
  g.body_b = f.body_b;
  g.n = f.n;
  g.t1 = f.t1;
  g.t2 = f.t2;
  g.p_WA = f.p_WA;
  g.p_WB = f.p_WB;
  g.phi = f.phi;
  g.mu = f.mu;
}

void TimeSteppingConstraintRows::AddJointLimit(int dof, double sign, double phi,
                                               int constraint) {
  RowGroup& g = s_->groups.emplace_back();
  g.kind = RowKind::kLimit;
  g.rows = 1;
  g.constraint = constraint;
  g.key1 = dof;
  g.key2 = sign > 0 ? 0 : 1;
  g.dof = dof;
  g.sign = sign;
  g.phi = phi;
}

void TimeSteppingConstraintRows::AddJointFriction(int dof, double bound,
                                                  int constraint) {
  RowGroup& g = s_->groups.emplace_back();
  g.kind = RowKind::kBounded;
  g.rows = 1;
  g.constraint = constraint;
  g.key1 = dof;
  g.key2 = 0;
  g.dof = dof;
  g.bound = bound;
}

void TimeSteppingConstraintRows::AddBilateral(
    const Eigen::Ref<const MatrixX<double>>& J,
    const Eigen::Ref<const VectorX<double>>& b, int constraint) {
  const int m = static_cast<int>(J.rows());
  const int nv = s_->nv;
  if (m < 1 || m > 6 || J.cols() != nv || b.size() != m) {
    throw std::invalid_argument(fmt::format(
        "TimeSteppingConstraintRows::AddBilateral: constraint {} gave J of "
        "size {} x {} and b of size {}; expected m x {} and m, 1 <= m <= 6",
        constraint, J.rows(), J.cols(), b.size(), nv));
  }
  RowGroup& g = s_->groups.emplace_back();
  g.kind = RowKind::kBilateral;
  g.rows = m;
  g.constraint = constraint;
  g.bilateral = static_cast<int>(s_->bilateral_b.size());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nv; ++j) s_->bilateral_J.push_back(J(i, j));
    s_->bilateral_b.push_back(b[i]);
  }
}

TimeSteppingConstraintForce::~TimeSteppingConstraintForce() = default;

TimeSteppingContact::TimeSteppingContact(const RigidBodyTree<double>& tree,
                                         GeometryModel model, double margin,
                                         std::string name, bool swept)
    : TimeSteppingConstraintForce(std::move(name)),
      query_(tree, std::move(model),
             fmt::format("TimeSteppingContact '{}'", this->name())),
      margin_(margin),
      swept_(swept) {
  if (!(margin >= 0) || !std::isfinite(margin)) {
    throw std::invalid_argument(
        fmt::format("TimeSteppingContact '{}': margin must be finite and >= "
                    "0, got {}",
                    this->name(), margin));
  }
}

std::unique_ptr<AbstractValue> TimeSteppingContact::MakeScratch() const {
  return query_.MakeWorkspace();
}

void TimeSteppingContact::AppendRows(const TimeSteppingConstraintInputs& in,
                                     int,
                                     TimeSteppingConstraintRows* rows) const {
  auto& ws = in.scratch->get_mutable_value<GeometryWorkspace>();
  const std::vector<Contact>& contacts = query_.FindContacts(
      *in.cache, margin_, &ws, swept_ && in.h > 0 ? in.h : 0.0);
  for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
    rows->AddContact(query_.Frame(contacts, i));
  }
}

TimeSteppingJointLimits::TimeSteppingJointLimits(
    const RigidBodyTree<double>& tree, double margin, std::string name)
    : TimeSteppingConstraintForce(std::move(name)), margin_(margin) {
  if (!(margin >= 0) || !std::isfinite(margin)) {
    throw std::invalid_argument(fmt::format(
        "TimeSteppingJointLimits '{}': margin must be finite and >= 0, got {}",
        this->name(), margin));
  }
  limits_ =
      LimitedJoints(tree, "TimeSteppingJointLimits '" + this->name() + "'");
}

void TimeSteppingJointLimits::AppendRows(
    const TimeSteppingConstraintInputs& in, int index,
    TimeSteppingConstraintRows* rows) const {
  const VectorX<double>& q = *in.q;
  for (size_t i = 0; i < limits_.size(); ++i) {
    const LimitedJoint& l = limits_[i];
    const double x = q[l.q];
    // Swept, as the contacts' margin: the margin plus what the joint travels
    // in one step at its current speed. Without it a light joint jerked by
    // an impact (DRC-Hubo's fingers: 109 rad/s, 0.11 rad per 1 ms step) got
    // no row while still farther than the margin and ended 0.09 rad past
    // its limit. A row with phi > 0 is speculative (the joint may approach
    // by phi), so an early row costs a row, not accuracy.
    const double reach = Reach(in, static_cast<int>(i));
    if (x - l.lower <= reach) {
      rows->AddJointLimit(l.dof, 1.0, x - l.lower, index);
    }
    if (l.upper - x <= reach) {
      rows->AddJointLimit(l.dof, -1.0, l.upper - x, index);
    }
  }
}

double TimeSteppingJointLimits::Reach(const TimeSteppingConstraintInputs& in,
                                      int i) const {
  if (in.h <= 0) return margin_;
  const int dof = limits_[i].dof;
  double speed = in.v ? std::abs((*in.v)[dof]) : 0.0;
  if (in.v_next) speed = std::max(speed, std::abs((*in.v_next)[dof]));
  return margin_ + in.h * speed;
}

bool TimeSteppingJointLimits::MissedRows(const TimeSteppingConstraintInputs& in,
                                         const VectorX<double>& vn) const {
  const VectorX<double>& q = *in.q;
  for (size_t i = 0; i < limits_.size(); ++i) {
    const LimitedJoint& l = limits_[i];
    const double x = q[l.q];
    const double reach = Reach(in, static_cast<int>(i));
    const double xn = x + in.h * vn[l.dof];
    if ((x - l.lower > reach && xn < l.lower) ||
        (l.upper - x > reach && xn > l.upper)) {
      return true;
    }
  }
  return false;
}

TimeSteppingJointFriction::TimeSteppingJointFriction(
    const RigidBodyTree<double>& tree, std::string name)
    : TimeSteppingConstraintForce(std::move(name)) {
  dofs_ = JointFrictionDofs(tree,
                            "TimeSteppingJointFriction '" + this->name() + "'");
}

void TimeSteppingJointFriction::AppendRows(
    const TimeSteppingConstraintInputs& in, int index,
    TimeSteppingConstraintRows* rows) const {
  for (const FrictionDof& f : dofs_) {
    rows->AddJointFriction(f.dof, f.force * in.h, index);
  }
}

namespace {
struct BilateralScratch {
  VectorX<double> phi, Jdot_v, b;  // (m)
  MatrixX<double> J;               // (m x nv)
};
}  // namespace

TimeSteppingBilateralConstraint::TimeSteppingBilateralConstraint(
    std::shared_ptr<const ContinuousTimeConstraintForce<double>> constraint,
    double erp)
    : TimeSteppingConstraintForce(constraint ? constraint->name() : "null"),
      constraint_(std::move(constraint)),
      erp_(erp) {
  if (!constraint_) {
    throw std::invalid_argument(
        "TimeSteppingBilateralConstraint: the constraint is null");
  }
  if (constraint_->num_constraints() > 6) {
    throw std::invalid_argument(fmt::format(
        "TimeSteppingBilateralConstraint: constraint '{}' has {} rows; at "
        "most 6 are supported",
        name(), constraint_->num_constraints()));
  }
  if (!(erp >= 0 && erp <= 1)) {
    throw std::invalid_argument(
        fmt::format("TimeSteppingBilateralConstraint '{}': erp must be in "
                    "[0, 1], got {}",
                    name(), erp));
  }
}

std::unique_ptr<AbstractValue> TimeSteppingBilateralConstraint::MakeScratch()
    const {
  const int m = constraint_->num_constraints();
  BilateralScratch s{VectorX<double>(m), VectorX<double>(m), VectorX<double>(m),
                     MatrixX<double>(m, constraint_->num_velocities())};
  return std::make_unique<Value<BilateralScratch>>(std::move(s));
}

void TimeSteppingBilateralConstraint::AppendRows(
    const TimeSteppingConstraintInputs& in, int index,
    TimeSteppingConstraintRows* rows) const {
  auto& s = in.scratch->get_mutable_value<BilateralScratch>();
  ForceElementInputs<double> fin;
  fin.tree = in.tree;
  fin.cache = in.cache;
  fin.q = in.q;
  fin.v = in.v;
  fin.J = in.J;
  constraint_->CalcConstraint(fin, s.phi.data(), s.J, s.Jdot_v.data());
  // J vn + erp phi / h = 0: the error shrinks by the factor (1 - erp) per
  // step (to first order), a time constant of h / erp.
  s.b = (erp_ / in.h) * s.phi;
  rows->AddBilateral(s.J, s.b, index);
}

}  // namespace tern
