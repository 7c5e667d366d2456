#include "tern/multibody/plant/rigid_contact.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <utility>

#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/plant/contact_common.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/tree_cholesky.h"

namespace tern {

namespace {
// Grows (never shrinks) a matrix to at least rows x cols; allocates only
// when it grows.
void Grow(Eigen::MatrixXd* A, Eigen::Index rows, Eigen::Index cols) {
  if (A->rows() < rows || A->cols() < cols) {
    A->resize(std::max(A->rows(), rows), std::max(A->cols(), cols));
  }
}
void Grow(Eigen::VectorXd* a, Eigen::Index n) {
  if (a->size() < n) a->resize(n);
}

// One side's surface at the contact (rigid_contact.h): a face whose normal
// is fixed in the body, or round about the body-fixed point c with radius r
// (r = 0: a vertex).
struct SurfaceFeature {
  bool face{false};
  Vector3<double> c{Vector3<double>::Zero()};  // world, m
  double r{0};                                 // m
};

// True if m (world, unit) is the outward normal of a face of box or convex
// shape s at X_WG, to ~4e-5 rad.
bool IsFaceNormal(const Shape& s, const RigidTransform<double>& X_WG,
                  const Vector3<double>& m) {
  constexpr double kCos = 1 - 1e-9;
  const Vector3<double> m_G = X_WG.R.transpose() * m;
  if (s.kind == ShapeKind::kBox) return m_G.cwiseAbs().maxCoeff() >= kCos;
  if (s.kind == ShapeKind::kConvex) {
    for (const Vector4<double>& plane : s.convex->planes) {
      if (plane.head<3>().dot(m_G) >= kCos) return true;
    }
  }
  return false;
}

bool IsFlat(ShapeKind k) {
  return k == ShapeKind::kHalfSpace || k == ShapeKind::kTriangleMesh;
}
bool IsRound(ShapeKind k) {
  return k == ShapeKind::kSphere || k == ShapeKind::kCapsule;
}

Vector3<double> AngularVelocityInWorld(const KinematicsCache<double>& cache,
                                       int body) {
  if (body == 0) return Vector3<double>::Zero();
  return cache.X_WB[body].R * cache.V[body].head<3>();
}
}  // namespace

ContactBias CalcContactBias(const RigidBodyTree<double>& tree,
                            const KinematicsCache<double>& cache,
                            const GeometryModel& model,
                            const GeometryWorkspace& ws, const Contact& c,
                            const std::vector<int>& body_frame) {
  ContactBias bias;
  const Vector3<double>& n = c.normal;
  // The material points' Jdot v (RBDA sec. 2.11), B's minus A's.
  for (int side = 0; side < 2; ++side) {
    const int body = side == 0 ? c.body_b : c.body_a;
    if (body == 0) continue;
    const RigidTransform<double>& X = cache.X_WB[body];
    const Vector3<double> p_B =
        X.R.transpose() * ((side == 0 ? c.p_WB : c.p_WA) - X.p);
    bias.Jdot_v +=
        (side == 0 ? 1.0 : -1.0) *
        WorldAlignedJacobianDotTimesV(tree, cache, body_frame[body], p_B)
            .tail<3>();
  }
  // The features of the two sides (rigid_contact.h), the half-space or mesh
  // first, then a sphere or capsule, then a box or convex face along n.
  const Shape& sa = model.geometry(c.geometry_a).shape;
  const Shape& sb = model.geometry(c.geometry_b).shape;
  SurfaceFeature fa, fb;
  fa.c = c.p_WA;
  fb.c = c.p_WB;
  if (IsRound(sa.kind)) {
    fa.r = sa.dims[0];
    fa.c = c.p_WA - fa.r * n;  // A's outward normal is n
  }
  if (IsRound(sb.kind)) {
    fb.r = sb.dims[0];
    fb.c = c.p_WB + fb.r * n;  // B's is -n
  }
  if (IsFlat(sa.kind)) {
    fa.face = true;
  } else if (IsFlat(sb.kind)) {
    fb.face = true;
  } else if (!IsRound(sa.kind) && IsFaceNormal(sa, ws.X_WG[c.geometry_a], n)) {
    fa.face = true;
  } else if (!IsRound(sb.kind) && IsFaceNormal(sb, ws.X_WG[c.geometry_b], -n)) {
    fb.face = true;
  }
  const Vector3<double> w_a = AngularVelocityInWorld(cache, c.body_a);
  const Vector3<double> w_b = AngularVelocityInWorld(cache, c.body_b);
  Vector3<double> ndot, u_a, u_b;
  if (fa.face || fb.face) {
    // n is fixed in the face's body F; the contact point slides over F at
    // the tangential velocity of the other feature's c in F's frame, and
    // rolls over the round feature V with u_V = r (m_V' - w_V x m_V).
    const bool a_is_face = fa.face;
    const SurfaceFeature& v = a_is_face ? fb : fa;
    const int body_f = a_is_face ? c.body_a : c.body_b;
    const int body_v = a_is_face ? c.body_b : c.body_a;
    ndot = (a_is_face ? w_a : w_b).cross(n);
    Vector3<double> slip = PointVelocityInWorld(cache, body_v, v.c) -
                           PointVelocityInWorld(cache, body_f, v.c);
    slip -= n.dot(slip) * n;
    // m_V = n on A, -n on B.
    const double sign_v = a_is_face ? -1.0 : 1.0;
    const Vector3<double> u_v =
        v.r * sign_v * (ndot - (a_is_face ? w_b : w_a).cross(n));
    u_a = a_is_face ? slip : u_v;
    u_b = a_is_face ? u_v : slip;
  } else {
    const Vector3<double> d = fb.c - fa.c;
    const double len = d.norm();
    if (fa.r + fb.r == 0 || !(len > 0) || n.dot(d) < (1 - 1e-6) * len) {
      // Two vertices or edges, or features whose normal is not the line of
      // their centres: the material points' terms alone.
      return bias;
    }
    const Vector3<double> w = PointVelocityInWorld(cache, c.body_b, fb.c) -
                              PointVelocityInWorld(cache, c.body_a, fa.c);
    ndot = (w - n.dot(w) * n) / len;
    u_a = fa.r * (ndot - w_a.cross(n));
    u_b = fb.r * (w_b.cross(n) - ndot);
  }
  bias.Jdot_v += w_b.cross(u_b) - w_a.cross(u_a);
  const Vector3<double> v_r = PointVelocityInWorld(cache, c.body_b, c.p_WB) -
                              PointVelocityInWorld(cache, c.body_a, c.p_WA);
  bias.ndot_v_r = ndot.dot(v_r);
  return bias;
}

RigidContact::RigidContact(const RigidBodyTree<double>& tree,
                           GeometryModel model,
                           RigidContactParameters parameters, std::string name)
    : name_(std::move(name)),
      query_(tree, std::move(model), fmt::format("RigidContact '{}'", name_)),
      parameters_(parameters),
      nq_(tree.num_positions()),
      nv_(tree.num_velocities()) {
  const RigidContactParameters& p = parameters;
  auto positive = [&](const char* what, double value) {
    if (!(value > 0) || !std::isfinite(value)) {
      throw std::invalid_argument(
          fmt::format("RigidContact '{}': {} must be finite and > 0, got {}",
                      name_, what, value));
    }
  };
  positive("contact_tolerance", p.contact_tolerance);
  positive("impact_velocity", p.impact_velocity);
  positive("stick_velocity", p.stick_velocity);
  positive("witness_margin", p.witness_margin);
  if (p.num_friction_directions < 3) {
    throw std::invalid_argument(fmt::format(
        "RigidContact '{}': num_friction_directions must be >= 3, got {}",
        name_, p.num_friction_directions));
  }
  if (!(p.gains.alpha >= 0) || !(p.gains.beta >= 0)) {
    throw std::invalid_argument(fmt::format(
        "RigidContact '{}': gains must be >= 0, got alpha {} beta {}", name_,
        p.gains.alpha, p.gains.beta));
  }
  const int k = p.num_friction_directions;
  D_.resize(2, k);
  for (int j = 0; j < k; ++j) {
    const double angle = 2 * std::numbers::pi * j / k;
    D_(0, j) = std::cos(angle);
    D_(1, j) = std::sin(angle);
  }
}

std::unique_ptr<AbstractValue> RigidContact::MakeScratch() const {
  return std::make_unique<Value<RigidContactScratch>>(
      RigidContactScratch(query_.model()));
}

std::string RigidContact::DescribeContact(const RigidContactPoint& p) const {
  return query_.DescribePair(p.geometry_a, p.geometry_b);
}

void RigidContact::FindContacts(const ForceElementInputs<double>& in,
                                double margin, bool impact,
                                RigidContactScratch* s) const {
  const KinematicsCache<double>& cache = *in.cache;
  const RigidContactParameters& par = parameters_;
  const std::vector<Contact>& contacts =
      query_.FindContacts(cache, margin, &s->ws);
  s->num_points = 0;
  s->impact_witness = par.witness_margin;
  for (size_t i = 0; i < contacts.size(); ++i) {
    const ContactFrame f = query_.Frame(contacts, static_cast<int>(i));
    const Vector3<double> v_r = ContactRelativeVelocity(cache, f);
    const double phidot = f.n.dot(v_r);
    if (phidot < -par.impact_velocity) {
      s->impact_witness = std::min(s->impact_witness, f.phi);
    }
    // Approaching faster than impact_velocity is an impact (the impact
    // witness and law), not a contact of the acceleration-level problem.
    if (f.phi > par.contact_tolerance || phidot > par.impact_velocity ||
        (!impact && phidot < -par.impact_velocity)) {
      continue;
    }
    if (s->num_points == static_cast<int>(s->points.size())) {
      s->points.emplace_back();
    }
    RigidContactPoint& p = s->points[s->num_points++];
    p = RigidContactPoint{};
    static_cast<ContactFrame&>(p) = f;
    p.phidot = phidot;
    p.v_t = v_r - phidot * f.n;
    p.sliding = p.v_t.norm() > par.stick_velocity;
  }
  // Relative point Jacobians J_B(p_WB) - J_A(p_WA) at the two witness
  // points, and the rows' bias terms at the geometric contact point
  // (CalcContactBias). A point whose normal row has no authority
  // (NormalRowHasAuthority: no motion moves it along its normal) is left
  // out, as the time-stepping plant does: its normal force would be
  // unbounded and, through the friction cone, lock the motion it has.
  const int np = s->num_points;
  Grow(&s->Jp, 3 * np, nv_);
  Grow(&s->Jdot_v, 3, np);
  const std::vector<int>& frames = query_.body_frames();
  int kept = 0;
  for (int k = 0; k < np; ++k) {
    if (kept != k) std::swap(s->points[kept], s->points[k]);
    RigidContactPoint& p = s->points[kept];
    auto Jk = s->Jp.block(3 * kept, 0, 3, nv_);
    RelativePointJacobian(*in.tree, cache, frames, p.body_a, p.p_WA, p.body_b,
                          p.p_WB, in.J, Jk);
    const double normal_sq = (p.n.transpose() * Jk).squaredNorm();
    const double tangent_sq = (p.t1.transpose() * Jk).squaredNorm() +
                              (p.t2.transpose() * Jk).squaredNorm();
    if (!NormalRowHasAuthority(normal_sq, tangent_sq)) continue;
    const ContactBias bias = CalcContactBias(
        *in.tree, cache, query_.model(), s->ws, contacts[p.contact], frames);
    s->Jdot_v.col(kept) = bias.Jdot_v;
    p.ndot_v_r = bias.ndot_v_r;
    ++kept;
  }
  s->num_points = kept;
}

void RigidContact::Solve(ContactLevel level,
                         const TreeCholesky<double>& factor_H,
                         const VectorX<double>& x_free,
                         const PlantConstraintRows& rows, double regularization,
                         const std::string& plant, double time,
                         RigidContactScratch* s, VectorX<double>* x) const {
  const bool acc = level == ContactLevel::kAcceleration;
  const int nv = nv_;
  const int kd = parameters_.num_friction_directions;
  const double alpha = parameters_.gains.alpha;
  const double beta = parameters_.gains.beta;
  const MatrixX<double>& J = *rows.J;
  const VectorX<double>& rhs = *rows.rhs;
  int mb = 0;
  for (int i = 0; i < rows.m; ++i) mb += (*rows.unilateral)[i] ? 0 : 1;
  const int ml = rows.m - mb;
  int nu = ml;
  for (int k = 0; k < s->num_points; ++k) {
    const bool friction_rows = !(acc && s->points[k].sliding);
    nu += 1 + (friction_rows ? kd + 1 : 0);
  }
  Grow(&s->JB, mb, nv);
  Grow(&s->YB, nv, mb);
  Grow(&s->ABB, mb, mb);
  Grow(&s->G, nv, nu);
  Grow(&s->R, nu, nv);
  Grow(&s->YG, nv, nu);
  Grow(&s->T1, mb, nu);
  Grow(&s->M, nu, nu);
  Grow(&s->x0, nv);
  Grow(&s->bB, mb);
  Grow(&s->fB, mb);
  Grow(&s->q, nu);
  Grow(&s->z, nu);
  Grow(&s->w, nu);
  if (static_cast<int>(s->unknown_row.size()) < nu) s->unknown_row.resize(nu);

  // The force columns G (tau = G z) and the measured rows R x + c of the
  // unilateral unknowns: the plant's unilateral rows, then per contact its
  // normal row and, unless sliding, its friction rows and lambda.
  auto G = s->G.topLeftCorner(nv, nu);
  auto R = s->R.topLeftCorner(nu, nv);
  auto c = s->q.head(nu);  // c, turned into q below
  G.setZero();
  R.setZero();
  c.setZero();
  int u = 0, b = 0;
  for (int i = 0; i < rows.m; ++i) {
    if ((*rows.unilateral)[i]) {
      R.row(u) = J.row(i);
      G.col(u) = J.row(i).transpose();
      c[u] = -rhs[i];
      s->unknown_row[u++] = i;
    } else {
      s->JB.row(b) = J.row(i);
      s->bB[b++] = rhs[i];
    }
  }
  for (int k = 0; k < s->num_points; ++k) {
    RigidContactPoint& p = s->points[k];
    const auto Jk = s->Jp.block(3 * k, 0, 3, nv);
    const Vector3<double> jd = s->Jdot_v.col(k);
    const int un = u++;
    s->unknown_row[un] = -1;
    R.row(un) = p.n.transpose() * Jk;
    if (acc) {
      c[un] =
          p.n.dot(jd) + p.ndot_v_r + 2 * alpha * p.phidot + beta * beta * p.phi;
    } else {
      c[un] = (s->restitution ? p.e : 0.0) * std::min(p.phidot, 0.0);
    }
    if (acc && p.sliding) {
      const Vector3<double> dir =
          p.n - p.mu * p.v_t / p.v_t.norm();  // n - mu t_hat
      G.col(un) = Jk.transpose() * dir;
      continue;
    }
    G.col(un) = R.row(un).transpose();
    for (int j = 0; j < kd; ++j) {
      const Vector3<double> d = D_(0, j) * p.t1 + D_(1, j) * p.t2;
      R.row(u) = d.transpose() * Jk;
      G.col(u) = R.row(u).transpose();
      c[u] = acc ? d.dot(jd + 2 * alpha * p.v_t) : 0.0;
      s->unknown_row[u++] = -1;
    }
    s->unknown_row[u++] = -1;  // lambda: no force, no measured row
  }

  // Bilateral rows eliminated by their Schur complement (RBDA sec. 8.3):
  // x = x0 + Yz z with Yz = H^-1 G - YB ABB^-1 JB H^-1 G, x0 = x_free +
  // YB ABB^-1 (bB - JB x_free), YB = H^-1 JB^T, ABB = JB YB + eps I.
  auto YG = s->YG.topLeftCorner(nv, nu);
  YG = G;
  factor_H.SolveInPlace(YG);
  auto x0 = s->x0.head(nv);
  x0 = x_free;
  if (mb > 0) {
    const auto JB = s->JB.topLeftCorner(mb, nv);
    auto YB = s->YB.topLeftCorner(nv, mb);
    auto ABB = s->ABB.topLeftCorner(mb, mb);
    YB = JB.transpose();
    factor_H.SolveInPlace(YB);
    ABB.noalias() = JB * YB;
    const double eps = regularization * (1 + ABB.diagonal().maxCoeff());
    ABB.diagonal().array() += eps;
    s->llt_ABB.compute(ABB);
    auto fB = s->fB.head(mb);
    fB = s->bB.head(mb);
    fB.noalias() -= JB * x_free;
    s->llt_ABB.solveInPlace(fB);
    x0.noalias() += YB * fB;
    auto T1 = s->T1.topLeftCorner(mb, nu);
    T1.noalias() = JB * YG;
    s->llt_ABB.solveInPlace(T1);
    YG.noalias() -= YB * T1;
  }
  auto M = s->M.topLeftCorner(nu, nu);
  M.noalias() = R * YG;
  auto q = s->q.head(nu);
  q.noalias() += R * x0;  // q = c + R x0
  double max_diag = 0;
  for (int i = 0; i < nu; ++i) max_diag = std::max(max_diag, std::abs(M(i, i)));
  const double eps = regularization * (1 + max_diag);
  // Coupling of the friction rows, and the regularization of the rows that
  // carry force.
  u = ml;
  for (int i = 0; i < ml; ++i) M(i, i) += eps;
  for (int k = 0; k < s->num_points; ++k) {
    RigidContactPoint& p = s->points[k];
    const int un = u++;
    p.normal_diagonal = M(un, un);
    p.m_eff = M(un, un) > 0 ? 1 / M(un, un) : 1.0;
    M(un, un) += eps;
    if (acc && p.sliding) continue;
    const int ul = un + kd + 1;
    for (int j = 0; j < kd; ++j) {
      M(u, u) += eps;
      M(u, ul) = 1;
      M(ul, u) = -1;
      ++u;
    }
    M(ul, un) = p.mu;
    ++u;
  }

  solvers::LemkeSettings settings;
  // Redundant rows (four corners of a face) leave round-off of ~1e-9.
  settings.tolerance = 1e-8;
  solvers::LcpResult result = solvers::SolveLcpLemke(
      M, q, settings, &s->lemke, s->z.head(nu), s->w.head(nu));
  if (result.status == solvers::LcpStatus::kInaccurate ||
      result.status == solvers::LcpStatus::kIterationLimit) {
    // Degenerate rows (redundant corners) can defeat the pivoting in
    // round-off; once more with the force rows regularized by
    // retry_regularization (relative), which makes their block positive
    // definite at a force error of that order.
    const double extra = parameters_.retry_regularization * (1 + max_diag);
    for (int i = 0; i < nu; ++i) {
      if (M(i, i) != 0) M(i, i) += extra;
    }
    result = solvers::SolveLcpLemke(M, q, settings, &s->lemke, s->z.head(nu),
                                    s->w.head(nu));
    // Accept round-off up to 1e-6 (1 + |q|), in m/s^2 or m/s.
    if (result.status == solvers::LcpStatus::kInaccurate &&
        result.residual <= 1e-6 * (1 + q.cwiseAbs().maxCoeff())) {
      result.status = solvers::LcpStatus::kSolved;
    }
  }
  if (!result.ok()) {
    // Name the sliding contacts whose normal row falls with its own force
    // (the Painlevé configurations), else all sliding ones, else all.
    std::string culprits;
    for (int pass = 0; pass < 3 && culprits.empty(); ++pass) {
      for (int k = 0; k < s->num_points; ++k) {
        const RigidContactPoint& p = s->points[k];
        const bool pick =
            pass == 2 ||
            (acc && p.sliding && (pass == 1 || !(p.normal_diagonal > 0)));
        if (!pick) continue;
        culprits += fmt::format("{}{} (mu = {}, tangential speed {:.3g} m/s)",
                                culprits.empty() ? "" : "; ",
                                DescribeContact(p), p.mu, p.v_t.norm());
      }
    }
    if (result.status == solvers::LcpStatus::kRayTermination) {
      throw std::runtime_error(fmt::format(
          "RigidBodySystem '{}': rigid contact '{}' has no consistent contact "
          "force at t = {} (Lemke: ray termination): a Painlevé-type "
          "inconsistency, sliding friction making the normal acceleration "
          "fall as the normal force grows, at the contact between {}",
          plant, name_, time, culprits));
    }
    throw std::runtime_error(fmt::format(
        "RigidBodySystem '{}': rigid contact '{}': the contact problem was "
        "not solved at t = {} (Lemke: {}, residual {:.3g}) at the contacts "
        "between {}",
        plant, name_, time, solvers::ToString(result.status), result.residual,
        culprits));
  }
  const auto z = s->z.head(nu);
  const auto w = s->w.head(nu);
  *x = x0;
  x->noalias() += YG * z;
  u = ml;
  for (int k = 0; k < s->num_points; ++k) {
    RigidContactPoint& p = s->points[k];
    const int un = u++;
    p.f_n = z[un];
    p.a_n = w[un];
    if (acc && p.sliding) {
      p.f_t = -p.mu * p.f_n * p.v_t / p.v_t.norm();
      p.lambda = 0;
      p.friction_margin = 0;
      continue;
    }
    p.f_t.setZero();
    for (int j = 0; j < kd; ++j) {
      p.f_t += z[u++] * (D_(0, j) * p.t1 + D_(1, j) * p.t2);
    }
    p.lambda = z[u];
    p.friction_margin = w[u];
    ++u;
  }
}

}  // namespace tern
