// Accuracy of MassMatrix and ForwardDynamics on the shipped 7-DoF arm and
// floating humanoid against an independent reference in long double (64-bit
// mantissa): H = sum over bodies k of m_k J_k^T J_k + Jw_k^T I_k Jw_k, from
// each body's com velocity and angular velocity per dof (the kinetic
// energy, no spatial algebra, no recursion), and vdot = H^-1 (tau - C) by
// Cholesky in long double. DART, Simbody and KDL agree with one another to
// 2e-15 on these quantities (issue 12, item 13); working about the world
// origin cost Tern up to 1.4e-12 on the wrist entries. Also issue 12, item
// 12: the humanoid 10 km from the origin gets the same results as at it.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

using LD = long double;
using M3 = Eigen::Matrix<LD, 3, 3>;
using V3 = Eigen::Matrix<LD, 3, 1>;
using MX = Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>;
using VX = Eigen::Matrix<LD, Eigen::Dynamic, 1>;

M3 Ld(const Matrix3<double>& m) { return m.cast<LD>(); }
V3 Ld(const Vector3<double>& v) { return v.cast<LD>(); }

M3 Skew(const V3& a) {
  M3 S;
  S << 0, -a(2), a(1), a(2), 0, -a(0), -a(1), a(0), 0;
  return S;
}

// Rotation by `angle` about the unit `axis` (Rodrigues).
M3 AxisAngle(const V3& axis, LD angle) {
  const LD c = std::cos(angle), s = std::sin(angle);
  return c * M3::Identity() + s * Skew(axis) +
         (1 - c) * axis * axis.transpose();
}

M3 FromQuaternion(LD w, LD x, LD y, LD z) {
  const LD n = std::sqrt(w * w + x * x + y * y + z * z);
  w /= n, x /= n, y /= n, z /= n;
  M3 R;
  R << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
      2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
      2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return R;
}

// H(q) in long double from the kinetic energy of each body.
MX ReferenceMassMatrix(const RigidBodyTree<double>& tree,
                       const VectorX<double>& q) {
  const int nb = tree.num_bodies(), nv = tree.num_velocities();
  std::vector<M3> R(nb, M3::Identity());
  std::vector<V3> p(nb, V3::Zero());
  // Per dof: its body, angular velocity, a point on its axis, and the
  // linear velocity it gives that point (world).
  std::vector<int> dof_body(nv);
  std::vector<V3> w(nv, V3::Zero()), o(nv, V3::Zero()), lin(nv, V3::Zero());
  for (int i = 1; i < nb; ++i) {
    const RigidBody<double>& b = tree.body(i);
    const M3 R_J = R[b.parent] * Ld(b.joint.X_PJ.R);
    const V3 p_J = p[b.parent] + R[b.parent] * Ld(b.joint.X_PJ.p);
    const V3 axis = Ld(b.joint.axis);
    const int iq = b.position_start, iv = b.velocity_start;
    switch (b.joint.type) {
      case JointType::kFixed:
        R[i] = R_J, p[i] = p_J;
        break;
      case JointType::kRevolute:
        R[i] = R_J * AxisAngle(axis, q(iq)), p[i] = p_J;
        dof_body[iv] = i, w[iv] = R_J * axis, o[iv] = p_J;
        break;
      case JointType::kPrismatic:
        R[i] = R_J, p[i] = p_J + R_J * axis * LD(q(iq));
        dof_body[iv] = i, lin[iv] = R_J * axis;
        break;
      case JointType::kFloating:
        R[i] = R_J * FromQuaternion(q(iq + 3), q(iq + 4), q(iq + 5), q(iq + 6));
        p[i] = p_J + R_J * V3(q(iq), q(iq + 1), q(iq + 2));
        for (int k = 0; k < 3; ++k) {
          dof_body[iv + k] = dof_body[iv + 3 + k] = i;
          w[iv + k] = R[i].col(k), o[iv + k] = p[i];
          lin[iv + 3 + k] = R[i].col(k);
        }
        break;
      default:
        ADD_FAILURE() << "reference: joint type not covered";
    }
  }
  auto supports = [&](int dof, int body) {
    for (int k = body; k > 0; k = tree.body(k).parent) {
      if (k == dof_body[dof]) return true;
    }
    return false;
  };
  MX H = MX::Zero(nv, nv);
  for (int k = 1; k < nb; ++k) {
    const SpatialInertia<double>& M = tree.body(k).inertia;
    const LD m = M.m;
    if (m == 0 && M.I.isZero()) continue;
    V3 c_B = V3::Zero();
    M3 I_c = Ld(M.I);
    if (m != 0) {
      c_B = Ld(M.h) / m;
      I_c -= m * (c_B.squaredNorm() * M3::Identity() - c_B * c_B.transpose());
    }
    const V3 c = p[k] + R[k] * c_B;
    const M3 I_W = R[k] * I_c * R[k].transpose();
    for (int d = 0; d < nv; ++d) {
      if (!supports(d, k)) continue;
      const V3 vd = lin[d] + w[d].cross(c - o[d]);
      for (int e = 0; e <= d; ++e) {
        if (!supports(e, k)) continue;
        const V3 ve = lin[e] + w[e].cross(c - o[e]);
        const LD h = m * vd.dot(ve) + w[d].dot(I_W * w[e]);
        H(d, e) += h;
        if (e != d) H(e, d) += h;
      }
    }
  }
  for (int i = 1; i < nb; ++i) {
    const RigidBody<double>& b = tree.body(i);
    for (int k = 0; k < b.num_velocities; ++k) {
      H(b.velocity_start + k, b.velocity_start + k) += b.joint.armature;
    }
  }
  return H;
}

// max_ij |H_ij - Href_ij| / sqrt(Href_ii Href_jj): the error of each entry
// against the scale of its rows, so that the small wrist entries count.
double MassMatrixError(const MatrixX<double>& H, const MX& H_ref) {
  double worst = 0;
  for (int i = 0; i < H.rows(); ++i) {
    for (int j = 0; j < H.cols(); ++j) {
      const LD scale = std::sqrt(H_ref(i, i) * H_ref(j, j));
      worst = std::max(
          worst, static_cast<double>(std::abs(H(i, j) - H_ref(i, j)) / scale));
    }
  }
  return worst;
}

struct Errors {
  double H{0}, vdot{0};
};

// Worst errors over random states, with the floating base (if any) moved by
// `offset`.
Errors Measure(const RigidBodyTree<double>& tree, int trials,
               const Vector3<double>& offset = Vector3<double>::Zero()) {
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  const int nq = tree.num_positions(), nv = tree.num_velocities();
  Errors worst;
  for (int t = 0; t < trials; ++t) {
    VectorX<double> q(nq), v(nv), tau(nv);
    for (int i = 0; i < nq; ++i) q(i) = s(gen);
    for (int i = 0; i < nv; ++i) v(i) = s(gen), tau(i) = s(gen);
    NormalizeQuaternions(tree, &q);
    // The reference at the origin (H and C do not depend on where the
    // floating base is; the reference, too, would lose digits far away).
    const MX H_ref = ReferenceMassMatrix(tree, q);
    // vdot = H^-1 (tau - C), with C from InverseDynamics (body coordinates,
    // exact to rounding).
    const VectorX<double> C = BiasTerm(tree, &cache, q, v);
    const VX rhs = (tau - C).cast<LD>();
    const VX vdot_ref = Eigen::LLT<MX>(H_ref).solve(rhs);
    if (tree.body(1).joint.type == JointType::kFloating) {
      q.segment<3>(tree.body(1).position_start) += offset;
    }
    const MatrixX<double> H = MassMatrix(tree, &cache, q);
    worst.H = std::max(worst.H, MassMatrixError(H, H_ref));
    const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
    worst.vdot = std::max(
        worst.vdot, static_cast<double>((vdot.cast<LD>() - vdot_ref).norm() /
                                        vdot_ref.norm()));
  }
  return worst;
}

RigidBodyTree<double> Load(const char* file, bool floating) {
  UrdfParseOptions options;
  options.floating_base = floating;
  return ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/" + file, options).tree;
}

TEST(DynamicsPrecisionTest, ReferenceIsIndependentOfTheCheck) {
  // The reference agrees with Tern's own H = J^T M J on a model where both
  // are exact: a point-mass pendulum, H = m l^2.
  RigidBodyTree<double> tree("pendulum");
  Joint<double> j;
  j.name = "pivot";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitY();
  tree.AddBody("bob", 0, j,
               SpatialInertia<double>::FromCom(2.0, Vector3<double>(0, 0, -1.5),
                                               Matrix3<double>::Zero()));
  const MX H = ReferenceMassMatrix(tree, VectorX<double>::Constant(1, 0.7));
  EXPECT_NEAR(static_cast<double>(H(0, 0)), 2.0 * 1.5 * 1.5, 1e-15);
}

TEST(DynamicsPrecisionTest, Arm7MatchesLongDoubleReference) {
  const Errors e = Measure(Load("arm7.urdf", false), 20);
  std::printf("arm7: H %.2e (entry / sqrt(H_ii H_jj)), vdot %.2e\n", e.H,
              e.vdot);
  EXPECT_LT(e.H, 1e-14);
  EXPECT_LT(e.vdot, 1e-14);
}

TEST(DynamicsPrecisionTest, HumanoidMatchesLongDoubleReference) {
  const Errors e = Measure(Load("humanoid.urdf", true), 20);
  std::printf("humanoid: H %.2e (entry / sqrt(H_ii H_jj)), vdot %.2e\n", e.H,
              e.vdot);
  EXPECT_LT(e.H, 1e-14);
  EXPECT_LT(e.vdot, 1e-14);
}

TEST(DynamicsPrecisionTest, HumanoidTenKilometresAway) {
  const RigidBodyTree<double> tree = Load("humanoid.urdf", true);
  for (const Vector3<double>& offset :
       {Vector3<double>(1e4, 0, 0), Vector3<double>(-6e3, 7e3, 2e3)}) {
    const Errors e = Measure(tree, 10, offset);
    std::printf("humanoid at %.0f m: H %.2e, vdot %.2e\n", offset.norm(), e.H,
                e.vdot);
    EXPECT_LT(e.H, 1e-14);
    EXPECT_LT(e.vdot, 1e-14);
  }
}

}  // namespace
}  // namespace tern
