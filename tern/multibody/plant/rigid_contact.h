#pragma once
// RigidContact (seed 004's stick-slip frictional contact as a
// ContinuousTimeConstraintForce): non-penetrating, frictional contact
// between the geometries of a GeometryModel, solved at the acceleration
// level together with the plant's bilateral and joint-limit rows, plus an
// impact law. Handed to RigidBodySystem<double> through
// RigidBodySystemOptions::rigid_contact; double only, like the geometry
// layer (CompliantContact is the same).
//
// Contacts. ComputeContacts reports points with signed distance phi (m,
// normal n from geometry A to B) and the relative velocity v_r of B's point
// with respect to A's. A contact is touching when phi <= contact_tolerance
// and |phidot| <= impact_velocity, phidot = n . v_r (neither separating
// nor impacting); only touching contacts take part in the acceleration-level
// solve. An impact (phidot < -impact_velocity at phi = 0) is localized by a
// witness function and resolved by the impact law below, which acts on
// every contact with phi <= contact_tolerance that is not separating. Its force
// on B (A gets the opposite) is f_n n + f_t at the contact point; J (3 x nv) is
// the relative point Jacobian J_B(p_WB) - J_A(p_WA) and tau_contact = J^T (f_n
// n + f_t).
//
// Acceleration level (Trinkle, Pang, Sudarsky and Lo, "On dynamic
// multi-rigid-body contact problems with Coulomb friction", ZAMM 77(4),
// 1997; Pfeiffer and Glocker, "Multibody Dynamics with Unilateral
// Contacts", Wiley 1996), with a = J vdot + Jdot v:
//   normal:   n.a + 2 alpha phidot + beta^2 phi >= 0  _|_  f_n >= 0
//   sliding contact (|v_t| > stick_velocity): f_t = -mu f_n v_t / |v_t|,
//     Coulomb's law exactly (Baraff, "Fast contact force computation for
//     nonpenetrating rigid bodies", SIGGRAPH 1994, sec. 5);
//   sticking contact: f_t = D beta, D (3 x k) the unit directions d_j =
//     cos(2 pi j / k) t1 + sin(2 pi j / k) t2 of a polyhedral friction cone
//     (k = num_friction_directions, the cone inscribed in Coulomb's), and
//       d_j.(a + 2 alpha v_t) + lambda >= 0  _|_  beta_j >= 0
//       mu f_n - sum_j beta_j           >= 0  _|_  lambda >= 0
//     (lambda is the magnitude of the tangential acceleration when the
//     contact starts to slip; the 2 alpha v_t term removes residual slip
//     below stick_velocity).
// The unknowns of the unilateral rows (joint limits and contacts) form one
// LCP in constraint space after the bilateral rows are eliminated through
// their Schur complement, with H factored once (RBDA sec. 8.3). Sliding
// friction makes it unsymmetric, so it is solved by Lemke's method
// (solvers/lemke.h). If Lemke ends on a secondary ray the contact problem
// has no solution: a Painlevé-type inconsistency (Painlevé 1895; e.g. a
// rod sliding with high friction), and the plant throws naming the
// contacts.
//
// Impact law (Newton): at an impact the touching contacts get impulses P =
// (P_n, beta, lambda) from the velocity-level problem with v+ = v- +
// H^-1 (J^T (n P_n + D beta) + J_B^T P_B):
//   n.(J v+) + e min(n.(J v-), 0) >= 0  _|_  P_n >= 0
//   d_j.(J v+) + lambda >= 0            _|_  beta_j >= 0
//   mu P_n - sum_j beta_j >= 0          _|_  lambda >= 0
// and J_B v+ = 0 on the bilateral rows (Glocker and Pfeiffer's Newton law
// with a polyhedral friction cone, as in Pfeiffer and Glocker). e is the
// larger of the two geometries' restitution. For one frictionless contact
// this is n.v+ = -e n.v-. Energy cannot grow: if friction and restitution
// together would raise the kinetic energy (Kane's example), the impact is
// redone with e = 0 (dissipative, Stewart and Trinkle 1996).
//
// Second derivatives at the geometric contact point. The rows' velocity
// part is the relative velocity of the two material points at the contact
// (J v), but the contact point itself moves over both surfaces as the
// bodies roll, so the acceleration-level rows are not J vdot + Jdot v of
// those material points. With u_X the velocity of the contact point over
// body X's surface (its rate in X's frame, in world) and w_X X's angular
// velocity, the relative velocity v_r(t) = v_B(p_B(t)) - v_A(p_A(t)) of
// the material points at the moving contact points has the rate
//   dv_r/dt = J vdot + Jdot v + w_B x u_B - w_A x u_A,
// and phi'' = n . dv_r/dt + ndot . v_r (Montana, "The kinematics of
// contact and grasp", IJRR 7(3), 1988, whose curvature forms give u and
// ndot; Featherstone, RBDA sec. 2.11 for the material acceleration). The
// sticking rows use d . dv_r/dt, the normal row phi''. CalcContactBias gives
// the two extra terms per pair kind: a half-space, a mesh triangle or a
// box or convex face whose normal is n is a face (n fixed in that body,
// ndot = w_F x n, u_F the other feature's slip over it); a sphere or
// capsule is round about its centre of curvature c (a body-fixed point of
// the core) with radius r, and a box or convex vertex or edge point is
// round with r = 0, so u = r (m' - w x m) for its outward normal m. Two
// round features have n = (c_B - c_A) / |c_B - c_A| and ndot = (I - n n^T)
// (v_B(c_B) - v_A(c_A)) / |c_B - c_A|. For a sphere on a plane this is the
// centre's acceleration along n: the material point's r |w_t|^2 toward the
// centre is removed. Exact for sphere/sphere, sphere, capsule end or
// vertex against a face (half-space, box or convex face), and to first
// order elsewhere; two vertices or edges (r = 0 on both sides, |c_B - c_A|
// = |phi|), a cylinder rim or an ellipsoid fall back to the material-point
// terms (u = 0, ndot = 0), as before.
//
// Combination of the two geometries' ContactProperties: mu = 2 mu_A mu_B /
// (mu_A + mu_B) as in CompliantContact, e = max(e_A, e_B).
#include <Eigen/Cholesky>
#include <memory>
#include <string>
#include <vector>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/contact_rows.h"
#include "tern/multibody/plant/continuous_time_constraint_force.h"
#include "tern/solvers/lemke.h"

namespace tern {

template <typename T>
class TreeCholesky;  // tern/multibody/tree/tree_cholesky.h

struct RigidContactParameters {
  // m: a contact with phi <= contact_tolerance is touching (> 0).
  double contact_tolerance{1e-5};
  // m/s: approaching faster than this is an impact; separating faster than
  // this leaves the touching set (> 0).
  double impact_velocity{1e-3};
  // m/s: a touching contact slower than this sticks (> 0).
  double stick_velocity{1e-4};
  // Edges of the polyhedral friction cone for sticking contacts (>= 3; 4:
  // a pyramid, Coulomb's cone to within 1 - cos(pi / 4) = 29%; 8: 8%).
  int num_friction_directions{4};
  // Stabilization of the normal (and sticking tangential) rows, 1/s.
  BaumgarteGains gains{50, 50};
  // m: the impact witness looks at contacts up to this far (> 0).
  double witness_margin{0.05};
  // Relative regularization of the force rows for a second Lemke attempt
  // when the first ends inaccurate (degenerate redundant contacts).
  double retry_regularization{1e-7};
};

// One touching contact after a solve: the query's ContactFrame (which
// pair, where, n, t1, t2, phi, mu, e; `contact` indexes the workspace's
// contacts) with the acceleration-level state and its force on B.
struct RigidContactPoint : ContactFrame {
  Vector3<double> v_t{Vector3<double>::Zero()};  // tangential velocity, m/s
  double phidot{0};                              // m/s
  // ndot . v_r (m/s^2): the normal's rotation in phi'' (CalcContactBias).
  double ndot_v_r{0};
  bool sliding{false};
  // After a solve: normal force (N, or impulse N s at the impulse level),
  // friction on B in world, the normal row's slack (m/s^2, or m/s) and
  // lambda, the normal row's diagonal in the LCP (1/kg; <= 0 for a
  // Painlevé configuration) and 1 / that diagonal (1 if it is <= 0), kg.
  double f_n{0};
  Vector3<double> f_t{Vector3<double>::Zero()};
  double a_n{0}, lambda{0}, friction_margin{0};
  double normal_diagonal{0}, m_eff{1};
};

// Per-Context workspace (RigidContact::MakeScratch): the geometry queries'
// workspace, the touching contacts and the contact LCP. Grows to its
// largest size in the first evaluations and is reused after that.
struct RigidContactScratch {
  explicit RigidContactScratch(const GeometryModel& model) : ws(model) {}
  GeometryWorkspace ws;
  std::vector<RigidContactPoint> points;  // capacity; num_points used
  int num_points{0};
  Eigen::MatrixXd Jp;        // (3 num_points x nv) relative point Jacobians
  Eigen::MatrixXd Jdot_v;    // (3 x num_points)
  Eigen::MatrixXd JB, YB;    // (mb x nv), (nv x mb): bilateral rows
  Eigen::MatrixXd ABB;       // (mb x mb)
  Eigen::MatrixXd G, R, YG;  // (nv x nu), (nu x nv), (nv x nu)
  Eigen::MatrixXd T1, M;     // (mb x nu), (nu x nu)
  Eigen::VectorXd x0, bB, fB, q, z, w;
  Eigen::LLT<Eigen::MatrixXd> llt_ABB;
  std::vector<int> unknown_row;  // (nu) plant row of a limit unknown or -1
  solvers::LemkeWorkspace lemke;
  bool restitution{true};  // false: impacts with e = 0
  // FindContacts: the smallest phi (m) of the contacts approaching faster
  // than impact_velocity, capped at the margin (the impact witness).
  double impact_witness{0};
  RigidContactScratch(const RigidContactScratch& other) : ws(other.ws) {}
  RigidContactScratch& operator=(const RigidContactScratch&) { return *this; }
};

// The plant's constraint rows handed to RigidContact::Solve: m rows J (m x
// nv) with rhs, bilateral (J x = rhs) or unilateral (J x >= rhs _|_ f >= 0).
struct PlantConstraintRows {
  int m{0};
  const MatrixX<double>* J{nullptr};
  const VectorX<double>* rhs{nullptr};
  const std::vector<char>* unilateral{nullptr};
};

enum class ContactLevel { kAcceleration, kImpulse };

// The bias terms of a contact's rows at vdot = 0 (see the class comment):
// Jdot_v = the rate of the relative material-point velocity at the moving
// contact points (3, m/s^2, world), and ndot_v_r = ndot . v_r (m/s^2), so
// that phi'' = n . (J vdot + Jdot_v) + ndot_v_r. c is a contact from
// ComputeContacts(model, ws, ...) at the cache's FK(q, v), ws the
// workspace it used; body_frame: the frame index of each body. No heap
// allocation.
struct ContactBias {
  Vector3<double> Jdot_v{Vector3<double>::Zero()};
  double ndot_v_r{0};
};
ContactBias CalcContactBias(const RigidBodyTree<double>& tree,
                            const KinematicsCache<double>& cache,
                            const GeometryModel& model,
                            const GeometryWorkspace& ws, const Contact& c,
                            const std::vector<int>& body_frame);

class RigidContact {
 public:
  // Throws std::invalid_argument naming the element if the model was built
  // for another number of bodies or naming a parameter out of range.
  RigidContact(const RigidBodyTree<double>& tree, GeometryModel model,
               RigidContactParameters parameters = {},
               std::string name = "rigid_contact");
  RigidContact(const RigidContact&) = delete;
  RigidContact& operator=(const RigidContact&) = delete;

  const std::string& name() const { return name_; }
  const GeometryModel& geometry_model() const { return query_.model(); }
  const ContactQuery& contact_query() const { return query_; }
  const RigidContactParameters& parameters() const { return parameters_; }
  int num_positions() const { return nq_; }
  int num_velocities() const { return nv_; }
  std::unique_ptr<AbstractValue> MakeScratch() const;

  // Contacts with phi <= margin at the cache's FK(q, v) into s->ws.contacts,
  // and the touching ones (see the class comment; with `impact`, also the
  // approaching ones), with their Jacobians, into s->points.
  void FindContacts(const ForceElementInputs<double>& in, double margin,
                    bool impact, RigidContactScratch* s) const;

  // With s->points from FindContacts: solves for x (nv), the acceleration
  // vdot (x_free = H^-1 (tau - C)) or the velocity after an impact (x_free =
  // v-), and the contacts' forces (in s->points). factor_H: H factored. Throws
  // std::runtime_error naming the contacts if the problem has no solution
  // (Painlevé) or Lemke fails.
  void Solve(ContactLevel level, const TreeCholesky<double>& factor_H,
             const VectorX<double>& x_free, const PlantConstraintRows& rows,
             double regularization, const std::string& plant, double time,
             RigidContactScratch* s, VectorX<double>* x) const;

  // "geometry 'a' (body 'A') and geometry 'b' (body 'B')".
  std::string DescribeContact(const RigidContactPoint& p) const;

 private:
  std::string name_;
  ContactQuery query_;
  RigidContactParameters parameters_;
  int nq_, nv_;
  Eigen::MatrixXd D_;  // (2 x k) cone directions in the (t1, t2) plane
};

}  // namespace tern
