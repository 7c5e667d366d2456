// Analytic derivatives of the dynamics (dynamics_derivatives.h) against
// AutoDiffXd through the tree and central differences on the manifold, on
// every shipped model and on a random tree with every joint type; and
// AutoDiffXd through the tree itself on every shipped model.
#include "tern/multibody/tree/dynamics_derivatives.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tern/common/autodiff.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using test::MakeRandomTree;
using test::RandomConfiguration;
using test::RandomVector;

struct ModelCase {
  const char* file;
  bool floating;
};

const ModelCase kModels[] = {
    {"pendulum.urdf", false},  {"acrobot.urdf", false},
    {"cart_pole.urdf", false}, {"arm7.urdf", false},
    {"quadruped.urdf", true},  {"humanoid.urdf", true}};

RigidBodyTree<double> LoadModel(const ModelCase& c) {
  UrdfParseOptions options;
  options.floating_base = c.floating;
  return ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/" + c.file, options)
      .tree;
}

// Every shipped model and a random tree with every joint type.
std::vector<RigidBodyTree<double>> AllTrees() {
  std::vector<RigidBodyTree<double>> trees;
  for (const ModelCase& c : kModels) trees.push_back(LoadModel(c));
  trees.push_back(MakeRandomTree(13, 5, true, true));
  return trees;
}

double RelErr(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

// Issue 20 item 0: the fast paths of axis-aligned revolute joints wrote
// constants with empty derivative vectors next to seeded ones, and Eigen
// asserted on the size mismatch. AutoDiffXd through ForwardDynamics and
// InverseDynamics now equals the double values and gives finite derivatives
// on every model.
TEST(DynamicsAutoDiffTest, EveryModelAndJointType) {
  for (const auto& tree : AllTrees()) {
    SCOPED_TRACE(tree.name());
    const auto tree_ad = CastTree<AutoDiffXd>(tree);
    KinematicsCache<double> cache(tree);
    KinematicsCache<AutoDiffXd> cache_ad(tree_ad);
    std::mt19937 gen(3);
    const int nq = tree.num_positions(), nv = tree.num_velocities();
    const VectorX<double> q = RandomConfiguration(tree, &gen);
    const VectorX<double> v = RandomVector(nv, &gen);
    const VectorX<double> u = RandomVector(nv, &gen);
    const int nz = nq + 2 * nv;
    const VectorX<AutoDiffXd> q_ad = InitializeAutoDiff(q, nz, 0);
    const VectorX<AutoDiffXd> v_ad = InitializeAutoDiff(v, nz, nq);
    const VectorX<AutoDiffXd> u_ad = InitializeAutoDiff(u, nz, nq + nv);
    const VectorX<AutoDiffXd> vdot_ad =
        ForwardDynamics(tree_ad, &cache_ad, q_ad, v_ad, u_ad);
    EXPECT_LT(
        RelErr(ExtractValue(vdot_ad), ForwardDynamics(tree, &cache, q, v, u)),
        1e-12);
    EXPECT_TRUE(ExtractGradient(vdot_ad, nz).allFinite());
    const VectorX<AutoDiffXd> tau_ad =
        InverseDynamics(tree_ad, &cache_ad, q_ad, v_ad, u_ad);
    EXPECT_LT(
        RelErr(ExtractValue(tau_ad), InverseDynamics(tree, &cache, q, v, u)),
        1e-12);
    EXPECT_TRUE(ExtractGradient(tau_ad, nz).allFinite());
    const MatrixX<AutoDiffXd> H_ad = MassMatrix(tree_ad, &cache_ad, q_ad);
    EXPECT_LT(RelErr(ExtractValue(H_ad), MassMatrix(tree, &cache, q)), 1e-12);
  }
}

// q ⊕ delta (the header's tangent convention) with the quaternion part
// to first order, quat ⊗ [1, dw / 2], for autodiff seeded at delta = 0, or
// exactly, quat ⊗ exp(dw / 2), for central differences.
template <typename T>
VectorX<T> Retract(const RigidBodyTree<double>& tree, const VectorX<double>& q,
                   const VectorX<T>& delta, bool exact) {
  VectorX<T> out = q.cast<T>();
  for (const auto& b : tree.bodies()) {
    const int iq = b.position_start, iv = b.velocity_start;
    auto turn = [&](int iquat, int idw) {
      Vector3<T> dw = delta.template segment<3>(idw);
      Vector4<T> e;
      if (exact) {
        using std::cos;
        using std::sin;
        using std::sqrt;
        const T th = sqrt(dw.squaredNorm());
        e << cos(th / 2), (th > 0 ? T(sin(th / 2) / th) : T(0.5)) * dw;
      } else {
        // 1 with dw's (zero) derivatives: constants carry none.
        e << dw(0) * 0.0 + 1.0, dw / 2;
      }
      const Vector4<T> qu = q.segment<4>(iquat).cast<T>();
      out.template segment<4>(iquat) = QuaternionMultiply<T>(qu, e);
    };
    switch (b.joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
      case JointType::kPlanar:
        for (int k = 0; k < b.num_velocities; ++k)
          out(iq + k) = q(iq + k) + delta(iv + k);
        break;
      case JointType::kBall:
        turn(iq, iv);
        break;
      case JointType::kFloating: {
        const Matrix3<double> R =
            QuaternionToRotationMatrix<double>(q.segment<4>(iq + 3));
        out.template segment<3>(iq) =
            q.segment<3>(iq).cast<T>() +
            R.cast<T>() * Vector3<T>(delta.template segment<3>(iv + 3));
        turn(iq + 3, iv);
        break;
      }
    }
  }
  return out;
}

std::vector<SpatialForce<double>> RandomForces(int nb, std::mt19937* gen) {
  std::vector<SpatialForce<double>> f(nb);
  for (auto& fi : f) fi = RandomVector(6, gen);
  return f;
}

std::vector<SpatialForce<AutoDiffXd>> CastForces(
    const std::vector<SpatialForce<double>>& f) {
  std::vector<SpatialForce<AutoDiffXd>> out;
  for (const auto& fi : f) out.push_back(fi.cast<AutoDiffXd>());
  return out;
}

// Derivatives of InverseDynamics and ForwardDynamics by autodiff through the
// tree: [d/d delta, d/dv, d/d(vdot or tau)] at q ⊕ 0.
struct AutoDiffDerivatives {
  Eigen::MatrixXd dq, dv, du;
  Eigen::VectorXd value;
};

AutoDiffDerivatives AutoDiffThroughTree(
    const RigidBodyTree<double>& tree, const VectorX<double>& q,
    const VectorX<double>& v, const VectorX<double>& u, bool forward,
    const std::vector<SpatialForce<double>>& f_ext) {
  const auto tree_ad = CastTree<AutoDiffXd>(tree);
  KinematicsCache<AutoDiffXd> cache_ad(tree_ad);
  const int nv = tree.num_velocities();
  const VectorX<AutoDiffXd> delta =
      InitializeAutoDiff(Eigen::VectorXd::Zero(nv), 3 * nv, 0);
  const VectorX<AutoDiffXd> q_ad = Retract(tree, q, delta, false);
  const VectorX<AutoDiffXd> v_ad = InitializeAutoDiff(v, 3 * nv, nv);
  const VectorX<AutoDiffXd> u_ad = InitializeAutoDiff(u, 3 * nv, 2 * nv);
  const auto f_ad = CastForces(f_ext);
  const VectorX<AutoDiffXd> y =
      forward ? ForwardDynamics(tree_ad, &cache_ad, q_ad, v_ad, u_ad, &f_ad)
              : InverseDynamics(tree_ad, &cache_ad, q_ad, v_ad, u_ad, &f_ad);
  const Eigen::MatrixXd G = ExtractGradient(y, 3 * nv);
  return {G.leftCols(nv), G.middleCols(nv, nv), G.rightCols(nv),
          ExtractValue(y)};
}

// d/d delta of ForwardDynamics (forward) or InverseDynamics by fourth-order
// central differences along the exact retraction.
Eigen::MatrixXd CentralDifferenceDq(
    const RigidBodyTree<double>& tree, const VectorX<double>& q,
    const VectorX<double>& v, const VectorX<double>& u, bool forward,
    const std::vector<SpatialForce<double>>& f_ext) {
  KinematicsCache<double> cache(tree);
  const int nv = tree.num_velocities();
  Eigen::MatrixXd D(nv, nv);
  const double h = 2e-4;
  auto eval = [&](int k, double step) {
    VectorX<double> delta = VectorX<double>::Zero(nv);
    delta(k) = step;
    const VectorX<double> qk = Retract(tree, q, delta, true);
    return forward ? VectorX<double>(
                         ForwardDynamics(tree, &cache, qk, v, u, &f_ext))
                   : VectorX<double>(
                         InverseDynamics(tree, &cache, qk, v, u, &f_ext));
  };
  for (int k = 0; k < nv; ++k) {
    D.col(k) =
        (8 * (eval(k, h) - eval(k, -h)) - (eval(k, 2 * h) - eval(k, -2 * h))) /
        (12 * h);
  }
  return D;
}

// Inverse (forward = false) or forward dynamics derivatives at random states
// of every tree, against autodiff and central differences; for forward
// dynamics also d vdot / d f_ext of the last body.
void ExpectDerivativesMatch(bool forward) {
  for (const auto& tree : AllTrees()) {
    SCOPED_TRACE(tree.name());
    std::mt19937 gen(forward ? 8 : 7);
    KinematicsCache<double> cache(tree);
    DynamicsDerivativesCache<double> deriv(tree);
    const int nv = tree.num_velocities();
    for (int trial = 0; trial < 3; ++trial) {
      const VectorX<double> q = RandomConfiguration(tree, &gen);
      const VectorX<double> v = RandomVector(nv, &gen);
      const VectorX<double> u = RandomVector(nv, &gen);  // vdot or tau
      const auto f_ext = RandomForces(tree.num_bodies(), &gen);
      const auto ad = AutoDiffThroughTree(tree, q, v, u, forward, f_ext);
      const Eigen::MatrixXd cd =
          CentralDifferenceDq(tree, q, v, u, forward, f_ext);
      if (!forward) {
        InverseDynamicsDerivatives(tree, &cache, &deriv, q, v, u, &f_ext);
        EXPECT_LT(RelErr(deriv.tau, ad.value), 1e-12);
        EXPECT_LT(RelErr(deriv.dtau_dq, ad.dq), 1e-9);
        EXPECT_LT(RelErr(deriv.dtau_dv, ad.dv), 1e-9);
        EXPECT_LT(RelErr(deriv.H, ad.du), 1e-9);
        EXPECT_LT(RelErr(deriv.dtau_dq, cd), 1e-9);
        continue;
      }
      ForwardDynamicsDerivatives(tree, &cache, &deriv, q, v, u, &f_ext);
      EXPECT_LT(RelErr(deriv.vdot, ad.value), 1e-12);
      EXPECT_LT(RelErr(deriv.dvdot_dq, ad.dq), 1e-9);
      EXPECT_LT(RelErr(deriv.dvdot_dv, ad.dv), 1e-9);
      EXPECT_LT(RelErr(deriv.dvdot_dtau, ad.du), 1e-9);
      EXPECT_LT(RelErr(deriv.dvdot_dq, cd), 1e-9);
      const int body = tree.num_bodies() - 1;
      Eigen::Matrix<double, Eigen::Dynamic, 6> dfe(nv, 6);
      ExternalForceDerivative(tree, cache, deriv, body, &dfe);
      const auto tree_ad = CastTree<AutoDiffXd>(tree);
      KinematicsCache<AutoDiffXd> cache_ad(tree_ad);
      auto f_ad = CastForces(f_ext);
      f_ad[body] = InitializeAutoDiff(f_ext[body]);
      // q, v and tau held fixed, with zero derivatives of f's size.
      auto fixed = [](const VectorX<double>& x) {
        VectorX<AutoDiffXd> out(x.size());
        for (int i = 0; i < x.size(); ++i)
          out(i) = AutoDiffXd(x(i), Eigen::VectorXd::Zero(6));
        return out;
      };
      const VectorX<AutoDiffXd> vdot_ad = ForwardDynamics(
          tree_ad, &cache_ad, fixed(q), fixed(v), fixed(u), &f_ad);
      EXPECT_LT(RelErr(dfe, ExtractGradient(vdot_ad, 6)), 1e-9);
    }
  }
}

TEST(DynamicsDerivativesTest, InverseDynamicsMatchesAutoDiffAndDifferences) {
  ExpectDerivativesMatch(false);
}

TEST(DynamicsDerivativesTest, ForwardDynamicsMatchesAutoDiffAndDifferences) {
  ExpectDerivativesMatch(true);
}

// Frame pose, velocity, acceleration and J x derivatives against autodiff
// through ForwardKinematics at q ⊕ delta, for the last frame of every tree.
TEST(KinematicsDerivativesTest, MatchAutoDiff) {
  for (const auto& tree : AllTrees()) {
    SCOPED_TRACE(tree.name());
    std::mt19937 gen(9);
    const int nv = tree.num_velocities();
    KinematicsCache<double> cache(tree);
    DynamicsDerivativesCache<double> deriv(tree);
    const VectorX<double> q = RandomConfiguration(tree, &gen);
    const VectorX<double> v = RandomVector(nv, &gen);
    const VectorX<double> vdot = RandomVector(nv, &gen);
    const VectorX<double> x = RandomVector(nv, &gen);
    const int frame = tree.num_frames() - 1;
    FrameKinematicsDerivativesPass(tree, &cache, &deriv, q, v, vdot);
    FrameKinematicsDerivatives<double> out(nv);
    CalcFrameKinematicsDerivatives(tree, cache, deriv, frame, &out);
    Matrix6X<double> dJx(6, nv);
    FrameJacobianTimesVectorDerivative(tree, cache, &deriv, frame, x, &dJx);

    const auto tree_ad = CastTree<AutoDiffXd>(tree);
    KinematicsCache<AutoDiffXd> cache_ad(tree_ad);
    const int nz = 3 * nv;
    const VectorX<AutoDiffXd> delta =
        InitializeAutoDiff(Eigen::VectorXd::Zero(nv), nz, 0);
    const VectorX<AutoDiffXd> q_ad = Retract(tree, q, delta, false);
    const VectorX<AutoDiffXd> v_ad = InitializeAutoDiff(v, nz, nv);
    const VectorX<AutoDiffXd> vd_ad = InitializeAutoDiff(vdot, nz, 2 * nv);
    ForwardKinematics(tree_ad, &cache_ad, q_ad, v_ad, vd_ad);
    // The pose in F's tangent space: X_WF^T dX_WF = [[w] dp_F].
    const RigidTransform<AutoDiffXd> X =
        CalcFramePose(tree_ad, cache_ad, frame);
    const Matrix3<double> R = ExtractValue(X.R);
    Eigen::MatrixXd dX(6, nv);
    for (int k = 0; k < nv; ++k) {
      Matrix3<double> dR;
      Vector3<double> dp;
      for (int r = 0; r < 3; ++r) {
        dp(r) = X.p(r).derivatives()(k);
        for (int c = 0; c < 3; ++c) dR(r, c) = X.R(r, c).derivatives()(k);
      }
      const Matrix3<double> W = R.transpose() * dR;
      dX.col(k) << W(2, 1), W(0, 2), W(1, 0), R.transpose() * dp;
    }
    EXPECT_LT(RelErr(out.J, dX), 1e-9);
    const int body = tree.frames()[frame].body;
    const RigidTransform<AutoDiffXd>& X_BF = tree_ad.frames()[frame].X_BF;
    const Vector6<AutoDiffXd> V =
        CalcFrameSpatialVelocity(tree_ad, cache_ad, frame);
    const Vector6<AutoDiffXd> A =
        InverseTransformMotion(X_BF, cache_ad.A[body]);
    const Eigen::MatrixXd GV = ExtractGradient(V, nz);
    const Eigen::MatrixXd GA = ExtractGradient(A, nz);
    EXPECT_LT(RelErr(out.dV_dq, GV.leftCols(nv)), 1e-9);
    EXPECT_LT(RelErr(out.J, GV.middleCols(nv, nv)), 1e-9);
    EXPECT_LT(RelErr(out.dA_dq, GA.leftCols(nv)), 1e-9);
    EXPECT_LT(RelErr(out.dA_dv, GA.middleCols(nv, nv)), 1e-9);
    EXPECT_LT(RelErr(out.J, GA.rightCols(nv)), 1e-9);
    Matrix6X<AutoDiffXd> J_ad(6, nv);
    FrameSpatialJacobian(tree_ad, cache_ad, frame, &J_ad);
    const Vector6<AutoDiffXd> Jx = J_ad * x.cast<AutoDiffXd>();
    EXPECT_LT(RelErr(dJx, ExtractGradient(Jx, nz).leftCols(nv)), 1e-9);
  }
}

TEST(DynamicsDerivativesTest, DoesNotAllocateAndChecksSizes) {
  const auto tree = MakeRandomTree(12, 6, true, true);
  KinematicsCache<double> cache(tree);
  DynamicsDerivativesCache<double> deriv(tree);
  std::mt19937 gen(1);
  const int nv = tree.num_velocities();
  const VectorX<double> q = RandomConfiguration(tree, &gen);
  const VectorX<double> v = RandomVector(nv, &gen);
  const VectorX<double> tau = RandomVector(nv, &gen);
  const auto f_ext = RandomForces(tree.num_bodies(), &gen);
  Eigen::Matrix<double, Eigen::Dynamic, 6> dfe(nv, 6);
  FrameKinematicsDerivatives<double> fk(nv);
  Matrix6X<double> dJx(6, nv);
  {
    test::ScopedAllocationCounter counter;
    InverseDynamicsDerivatives(tree, &cache, &deriv, q, v, tau, &f_ext);
    ForwardDynamicsDerivatives(tree, &cache, &deriv, q, v, tau, &f_ext);
    ExternalForceDerivative(tree, cache, deriv, 3, &dfe);
    FrameKinematicsDerivativesPass(tree, &cache, &deriv, q, v, tau);
    CalcFrameKinematicsDerivatives(tree, cache, deriv, 5, &fk);
    FrameJacobianTimesVectorDerivative(tree, cache, &deriv, 5, v, &dJx);
    EXPECT_EQ(counter.count(), 0);
  }
  try {
    InverseDynamicsDerivatives(tree, &cache, &deriv, q, v,
                               VectorX<double>(VectorX<double>::Zero(2)));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vdot has size 2"), std::string::npos);
  }
  const auto other = MakeRandomTree(3, 6, true, true);
  DynamicsDerivativesCache<double> wrong(other);
  try {
    ForwardDynamicsDerivatives(tree, &cache, &wrong, q, v, tau);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("DynamicsDerivativesCache"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace tern
