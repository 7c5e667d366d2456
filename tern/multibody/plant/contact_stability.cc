#include "tern/multibody/plant/contact_stability.h"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "tern/integrators/integrator_base.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

// m x'' + b x' + k x = 0 as x = [x; v], for first- and second-order rules.
class Oscillator final : public SecondOrderOdeFunction<double> {
 public:
  Oscillator(double m, double k, double b)
      : SecondOrderOdeFunction<double>(1, 1), k_(k / m), b_(b / m) {}
  void EvalQdot(const double&, ConstRef, ConstRef v, Ref qdot) override {
    qdot[0] = v[0];
  }
  void EvalVdot(const double&, ConstRef q, ConstRef v, Ref vdot) override {
    vdot[0] = -k_ * q[0] - b_ * v[0];
  }
  bool EvalVdotJacobianV(const double&, ConstRef, ConstRef,
                         MatrixX<double>* J) override {
    (*J)(0, 0) = -b_;
    return true;
  }
  bool EvalQdotJacobianQ(const double&, ConstRef, ConstRef,
                         MatrixX<double>* J) override {
    (*J)(0, 0) = 0;
    return true;
  }

 private:
  double k_, b_;
};

std::unique_ptr<IntegratorBase<double>> FixedStepRule(const std::string& name,
                                                      double h) {
  if (!(h > 0) || !std::isfinite(h)) {
    throw std::invalid_argument(fmt::format(
        "CheckContactStability: step {} of '{}' is not positive and finite", h,
        name));
  }
  IntegratorSettings settings;
  settings.fixed_step = h;
  return MakeIntegrator<double>(name, settings);
}

double Amplification(IntegratorBase<double>& rule, double h, double m, double k,
                     double b) {
  rule.mutable_settings().fixed_step = h;
  rule.InitializeSecondOrder(1, 1);
  Oscillator f(m, k, b);
  Eigen::Matrix2d map;
  for (int j = 0; j < 2; ++j) {
    VectorX<double> x = VectorX<double>::Unit(2, j);
    rule.Reset();
    rule.Step(f, 0.0, h, &x);
    if (!x.allFinite()) return INFINITY;
    map.col(j) = x;
  }
  return map.eigenvalues().cwiseAbs().maxCoeff();
}

}  // namespace

double OscillatorAmplification(const std::string& integrator, double h,
                               double m, double k, double b) {
  auto rule = FixedStepRule(integrator, h);
  return Amplification(*rule, h, m, k, b);
}

std::optional<ContactStabilityFinding> CheckContactStability(
    const RigidBodyTree<double>& tree, const GeometryModel& geometry,
    const VectorX<double>& q, const std::string& integrator, double h,
    bool hunt_crossley) {
  auto rule = FixedStepRule(integrator, h);
  if (q.size() != tree.num_positions()) {
    throw std::invalid_argument(
        fmt::format("CheckContactStability: q has {} entries; tree '{}' has "
                    "{} positions",
                    q.size(), tree.name(), tree.num_positions()));
  }
  if (rule->supports_error_control() || rule->is_implicit()) {
    return std::nullopt;
  }
  const int nv = tree.num_velocities();
  const int ng = geometry.num_geometries();
  if (nv == 0 || nv > kMaxCheckedVelocities || ng < 2 ||
      geometry.num_bodies() != tree.num_bodies()) {
    return std::nullopt;
  }
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, q);
  const Eigen::LLT<MatrixX<double>> llt(MassMatrix(tree, &cache, q));
  if (llt.info() != Eigen::Success) return std::nullopt;
  const MatrixX<double> Hinv = llt.solve(MatrixX<double>::Identity(nv, nv));
  GeometryWorkspace ws(geometry);
  UpdateGeometryPoses(geometry, cache.X_WB, &ws);

  std::optional<ContactStabilityFinding> worst;
  Matrix6X<double> J(6, nv);
  std::vector<int> path;  // the dofs a body's point Jacobian can have
  for (int g = 0; g < ng; ++g) {
    const Geometry& geom = geometry.geometry(g);
    const int b = geom.body;
    if (b == 0 || tree.body(b).num_velocities == 0) continue;
    // The stiffest partner (the ground, usually), in series.
    const ContactProperties& pa = geom.properties;
    double k = 0, d = 0;
    for (int o = 0; o < ng; ++o) {
      const int ob = geometry.geometry(o).body;
      if (ob == b || geometry.IsExcluded(b, ob)) continue;
      const ContactProperties& pb = geometry.geometry(o).properties;
      const double ko = pa.stiffness * pb.stiffness /
                        std::max(pa.stiffness + pb.stiffness, 1e-300);
      if (ko > k) {
        k = ko;
        d = pa.dissipation * pb.dissipation /
            std::max(pa.dissipation + pb.dissipation, 1e-300);
      }
    }
    if (!(k > 0)) continue;
    if (hunt_crossley) d = 0;
    const Vector3<double> lo = ws.aabb_lo[g], hi = ws.aabb_hi[g];
    if (!lo.allFinite() || !hi.allFinite()) continue;
    const int frame = tree.FindFrameIndex(tree.body(b).name);
    const RigidTransform<double>& X_WB = cache.X_WB[b];
    double m_eff = INFINITY;
    path.clear();
    for (int i = tree.body(b).velocity_start + tree.body(b).num_velocities - 1;
         i >= 0; i = tree.velocity_parents()[i]) {
      path.push_back(i);
    }
    const int n = static_cast<int>(path.size());
    MatrixX<double> Jp(3, n), Hp(n, n);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) Hp(r, c) = Hinv(path[r], path[c]);
    }
    for (int c = 0; c < 8; ++c) {
      const Vector3<double> p_W((c & 1) ? hi.x() : lo.x(),
                                (c & 2) ? hi.y() : lo.y(),
                                (c & 4) ? hi.z() : lo.z());
      WorldAlignedJacobian(tree, cache, frame, X_WB.inverse() * p_W, &J);
      for (int i = 0; i < n; ++i) Jp.col(i) = J.col(path[i]).tail<3>();
      const Eigen::Matrix3d S = Jp * Hp * Jp.transpose();
      const double lambda = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(
                                S, Eigen::EigenvaluesOnly)
                                .eigenvalues()
                                .maxCoeff();
      if (lambda > 0) m_eff = std::min(m_eff, 1 / lambda);
    }
    if (!std::isfinite(m_eff)) continue;
    const double rho = Amplification(*rule, h, m_eff, k, d);
    if (rho <= 1 + 1e-9) continue;
    // The largest stable step below h (bisection: stability is monotone in
    // h for these rules on this oscillator up to their first unstable band).
    double good = 0, bad = h;
    for (int i = 0; i < 40; ++i) {
      const double mid = 0.5 * (good + bad);
      (Amplification(*rule, mid, m_eff, k, d) <= 1 + 1e-9 ? good : bad) = mid;
    }
    if (worst && good >= worst->stable_step) continue;
    ContactStabilityFinding f;
    f.stable_step = good;
    f.body = tree.body(b).name;
    f.geometry = geom.name;
    f.effective_mass = m_eff;
    f.stiffness = k;
    f.dissipation = d;
    f.amplification = rho;
    worst = f;
  }
  return worst;
}

}  // namespace tern
