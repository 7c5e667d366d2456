#include "tern/multibody/tree/dynamics.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <numbers>

#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using test::MakeRandomTree;
using test::RandomConfiguration;
using test::RandomVector;

double RelErr(const VectorX<double>& a, const VectorX<double>& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

TEST(DynamicsTest, ForwardAndInverseDynamicsAgreeWithMassMatrix) {
  for (unsigned seed : {1u, 2u, 3u}) {
    for (bool all_types : {true, false}) {
      const auto tree = MakeRandomTree(14, seed, all_types, true);
      KinematicsCache<double> cache(tree);
      std::mt19937 gen(seed + 10);
      for (int trial = 0; trial < 3; ++trial) {
        const VectorX<double> q = RandomConfiguration(tree, &gen);
        const VectorX<double> v = RandomVector(tree.num_velocities(), &gen);
        const VectorX<double> tau = RandomVector(tree.num_velocities(), &gen);
        const MatrixX<double> H = MassMatrix(tree, &cache, q);
        EXPECT_TRUE(H.isApprox(H.transpose(), 1e-14));
        Eigen::LLT<MatrixX<double>> llt(H);
        ASSERT_EQ(llt.info(), Eigen::Success);
        const VectorX<double> C = BiasTerm(tree, &cache, q, v);
        const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
        EXPECT_LT(RelErr(vdot, llt.solve(tau - C)), 1e-10);
        const VectorX<double> tau2 = InverseDynamics(tree, &cache, q, v, vdot);
        EXPECT_LT(RelErr(tau2, tau), 1e-10);
        EXPECT_LT(RelErr(H * vdot + C, tau), 1e-10);
      }
    }
  }
}

// MassMatrix writes the position kinematics (X_PB, S, X_WB of every body)
// that ForwardKinematics(q) would, and BiasTerm keeps them and adds the
// body velocities (V, vJ): the time-stepping plant relies on it to skip
// forward kinematics per step.
TEST(DynamicsTest, MassMatrixAndBiasTermLeaveTheKinematics) {
  for (unsigned seed : {4u, 5u}) {
    for (bool all_types : {true, false}) {
      const auto tree = MakeRandomTree(14, seed, all_types, true);
      KinematicsCache<double> fk(tree), mm(tree);
      std::mt19937 gen(seed + 20);
      const VectorX<double> q = RandomConfiguration(tree, &gen);
      const VectorX<double> v = RandomVector(tree.num_velocities(), &gen);
      ForwardKinematics(tree, &fk, q, v);
      MassMatrix(tree, &mm, q);
      BiasTerm(tree, &mm, q, v);
      for (int i = 1; i < tree.num_bodies(); ++i) {
        SCOPED_TRACE(fmt::format("seed {}, body {}", seed, i));
        EXPECT_LT((mm.X_WB[i].R - fk.X_WB[i].R).norm(), 1e-14);
        EXPECT_LT((mm.X_WB[i].p - fk.X_WB[i].p).norm(), 1e-14);
        EXPECT_LT((mm.X_PB[i].R - fk.X_PB[i].R).norm(), 1e-14);
        EXPECT_LT((mm.X_PB[i].p - fk.X_PB[i].p).norm(), 1e-14);
        const int nvi = tree.bodies()[i].num_velocities;
        EXPECT_EQ(mm.S[i].leftCols(nvi), fk.S[i].leftCols(nvi));
        EXPECT_LT((mm.V[i] - fk.V[i]).norm(), 1e-13 * (1 + fk.V[i].norm()));
        EXPECT_LT((mm.vJ[i] - fk.vJ[i]).norm(), 1e-14 * (1 + fk.vJ[i].norm()));
      }
    }
  }
}

// Revolute joints about +-e_k in unrotated joint frames take the
// algorithms' simple_revolute fast paths. The same chain with each joint
// frame turned by exactly 90 degrees about its axis (an integer rotation
// matrix) takes the general paths, and equals the first at angles shifted
// by axis_sign * pi/2. Inertias alternate between principal axes along the
// body's (the diagonal fast path of CentralInertia) and rotated ones.
TEST(DynamicsTest, SimpleRevoluteJointsMatchRotatedJointFrames) {
  std::mt19937 gen(7);
  RigidBodyTree<double> simple("simple"), rotated("rotated");
  const int n = 7;
  std::vector<double> signs;
  for (int i = 1; i <= n; ++i) {
    const int k = (i * 2) % 3;
    const double sign = i % 3 == 1 ? -1.0 : 1.0;
    signs.push_back(sign);
    Joint<double> j;
    j.name = fmt::format("j{}", i);
    j.type = JointType::kRevolute;
    j.axis = sign * Vector3<double>::Unit(k);
    j.X_PJ.p = Vector3<double>(0.1 * i, -0.2, 0.3);
    j.damping = 0.1 * i;
    j.armature = 0.05;
    SpatialInertia<double> M = test::RandomInertia(&gen);
    if (i % 2 == 0) {
      Matrix3<double> I_c = Matrix3<double>::Zero();
      I_c.diagonal() << 0.02 + 0.002 * i, 0.03, 0.025;
      M = SpatialInertia<double>::FromCom(
          1.0 + i, Vector3<double>(0.1, 0.2, -0.1 * i), I_c);
    }
    simple.AddBody(fmt::format("b{}", i), i - 1, j, M);
    Matrix3<double> R90 = Matrix3<double>::Zero();  // R_k(pi/2), exact
    const int i1 = (k + 1) % 3, i2 = (k + 2) % 3;
    R90(k, k) = 1;
    R90(i2, i1) = 1;
    R90(i1, i2) = -1;
    j.X_PJ.R = R90;
    rotated.AddBody(fmt::format("b{}", i), i - 1, j, M);
  }
  for (int i = 1; i <= n; ++i) {
    ASSERT_TRUE(simple.body(i).simple_revolute);
    ASSERT_FALSE(rotated.body(i).simple_revolute);
    ASSERT_EQ(simple.body(i).central_inertia_with_welded.diagonal, i % 2 == 0);
  }
  KinematicsCache<double> cs(simple), cr(rotated);
  for (int trial = 0; trial < 3; ++trial) {
    const VectorX<double> q = RandomVector(n, &gen);
    const VectorX<double> v = RandomVector(n, &gen);
    const VectorX<double> vdot = RandomVector(n, &gen);
    VectorX<double> q_simple = q;
    for (int i = 0; i < n; ++i) q_simple(i) += signs[i] * std::numbers::pi / 2;
    const MatrixX<double> Hs = MassMatrix(simple, &cs, q_simple);
    const MatrixX<double> Hr = MassMatrix(rotated, &cr, q);
    EXPECT_TRUE(Hs.isApprox(Hr, 1e-12));
    for (int i = 1; i <= n; ++i) {
      EXPECT_TRUE(cs.X_WB[i].R.isApprox(cr.X_WB[i].R, 1e-12));
      EXPECT_TRUE(cs.X_WB[i].p.isApprox(cr.X_WB[i].p, 1e-12));
    }
    const VectorX<double> tau_s =
        InverseDynamics(simple, &cs, q_simple, v, vdot);
    const VectorX<double> tau_r = InverseDynamics(rotated, &cr, q, v, vdot);
    EXPECT_LT(RelErr(tau_s, tau_r), 1e-12);
    for (int i = 1; i <= n; ++i) {
      EXPECT_TRUE(cs.X_PB[i].R.isApprox(cr.X_PB[i].R, 1e-12));
    }
    const VectorX<double> a_s =
        ForwardDynamics(simple, &cs, q_simple, v, tau_r);
    const VectorX<double> a_r = ForwardDynamics(rotated, &cr, q, v, tau_r);
    EXPECT_LT(RelErr(a_s, a_r), 1e-10);
    EXPECT_LT(RelErr(a_s, vdot), 1e-10);
  }
}

TEST(DynamicsTest, ExternalForcesEnterThroughBodyJacobians) {
  const auto tree = MakeRandomTree(8, 4, true, true);
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(5);
  const VectorX<double> q = RandomConfiguration(tree, &gen);
  const VectorX<double> v = RandomVector(tree.num_velocities(), &gen);
  const VectorX<double> vdot = RandomVector(tree.num_velocities(), &gen);
  std::vector<SpatialForce<double>> f_ext(tree.num_bodies());
  for (auto& f : f_ext) f = RandomVector(6, &gen);
  const VectorX<double> tau0 = InverseDynamics(tree, &cache, q, v, vdot);
  const VectorX<double> tau1 =
      InverseDynamics(tree, &cache, q, v, vdot, &f_ext);
  // The spatial Jacobian of a body's own frame maps v to V_B, so its
  // transpose maps a body-frame spatial force to generalized forces.
  ForwardKinematics(tree, &cache, q);
  VectorX<double> Jtf = VectorX<double>::Zero(tree.num_velocities());
  Matrix6X<double> J(6, tree.num_velocities());
  for (int i = 1; i < tree.num_bodies(); ++i) {
    FrameSpatialJacobian(tree, cache, tree.FindFrameIndex(tree.body(i).name),
                         &J);
    Jtf += J.transpose() * f_ext[i];
  }
  EXPECT_LT(RelErr(tau1, tau0 - Jtf), 1e-12);
  const VectorX<double> vdot2 =
      ForwardDynamics(tree, &cache, q, v, tau1, &f_ext);
  EXPECT_LT(RelErr(vdot2, vdot), 1e-10);
  f_ext.pop_back();
  try {
    InverseDynamics(tree, &cache, q, v, vdot, &f_ext);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("f_ext has 8 entries"),
              std::string::npos);
  }
}

// Bodies welded by fixed joints are counted in their carrier's inertia. The
// same tree with each fixed joint replaced by a prismatic joint held at
// q = v = vdot = 0 must give the same H, the same inverse dynamics (with
// external forces on the welded bodies too) and forward dynamics.
TEST(DynamicsTest, WeldedBodiesMatchJointsHeldAtZero) {
  std::mt19937 gen(21);
  auto make = [&](bool welded) {
    std::mt19937 g(7);
    RigidBodyTree<double> tree(welded ? "welded" : "held");
    // body: parent, joint type (kFixed is welded, or prismatic when held).
    const std::pair<int, JointType> spec[] = {
        {0, JointType::kRevolute},  {1, JointType::kFixed},
        {2, JointType::kFixed},     {3, JointType::kRevolute},
        {1, JointType::kPrismatic}, {4, JointType::kFixed},
        {0, JointType::kFixed},     {7, JointType::kRevolute}};
    for (int k = 0; k < 8; ++k) {
      Joint<double> j;
      // fmt rather than "j" + std::to_string: GCC 12 at -O3 warns
      // (-Wrestrict, a known false positive) on the string concatenation.
      j.name = fmt::format("j{}", k + 1);
      j.type = spec[k].second;
      if (j.type == JointType::kFixed && !welded)
        j.type = JointType::kPrismatic;
      j.X_PJ = test::RandomTransform(&g);
      j.axis = Vector3<double>(0.3, -0.5, 0.8);
      tree.AddBody(fmt::format("b{}", k + 1), spec[k].first, j,
                   test::RandomInertia(&g));
    }
    return tree;
  };
  const auto A = make(true), B = make(false);
  // B's velocity indices of A's dofs (all joints here have nq = nv).
  std::vector<int> keep;
  for (int i = 1; i < A.num_bodies(); ++i) {
    if (A.body(i).num_velocities > 0) keep.push_back(B.body(i).velocity_start);
  }
  ASSERT_EQ(static_cast<int>(keep.size()), A.num_velocities());
  auto expand = [&](const VectorX<double>& x) {
    VectorX<double> y = VectorX<double>::Zero(B.num_velocities());
    for (int k = 0; k < x.size(); ++k) y(keep[k]) = x(k);
    return y;
  };
  auto shrink = [&](const VectorX<double>& y) {
    VectorX<double> x(keep.size());
    for (size_t k = 0; k < keep.size(); ++k) x(k) = y(keep[k]);
    return x;
  };
  KinematicsCache<double> ca(A), cb(B);
  const VectorX<double> q = RandomVector(A.num_positions(), &gen);
  const VectorX<double> v = RandomVector(A.num_velocities(), &gen);
  const VectorX<double> vdot = RandomVector(A.num_velocities(), &gen);
  std::vector<SpatialForce<double>> f_ext(A.num_bodies());
  for (auto& f : f_ext) f = RandomVector(6, &gen);
  const MatrixX<double> HA = MassMatrix(A, &ca, q);
  const MatrixX<double> HB = MassMatrix(B, &cb, expand(q));
  for (size_t r = 0; r < keep.size(); ++r) {
    for (size_t s = 0; s < keep.size(); ++s) {
      EXPECT_NEAR(HA(r, s), HB(keep[r], keep[s]), 1e-12);
    }
  }
  const VectorX<double> tauA = InverseDynamics(A, &ca, q, v, vdot, &f_ext);
  const VectorX<double> tauB =
      InverseDynamics(B, &cb, expand(q), expand(v), expand(vdot), &f_ext);
  EXPECT_LT(RelErr(tauA, shrink(tauB)), 1e-12);
  const VectorX<double> vdotA = ForwardDynamics(A, &ca, q, v, tauA, &f_ext);
  EXPECT_LT(RelErr(vdotA, vdot), 1e-10);
}

TEST(DynamicsTest, PendulumClosedForm) {
  const double m = 1.3, l = 0.7, g = 9.81;
  const auto tree = test::MakePendulum(m, l);
  KinematicsCache<double> cache(tree);
  VectorX<double> q(1), v(1), tau(1);
  q << 0.4;
  v << -2.0;
  tau << 0.3;
  EXPECT_NEAR(MassMatrix(tree, &cache, q)(0, 0), m * l * l, 1e-14);
  EXPECT_NEAR(BiasTerm(tree, &cache, q, v)(0), m * g * l * std::sin(0.4),
              1e-13);
  EXPECT_NEAR(ForwardDynamics(tree, &cache, q, v, tau)(0),
              (0.3 - m * g * l * std::sin(0.4)) / (m * l * l), 1e-13);
}

TEST(DynamicsTest, DoublePendulumClosedForm) {
  const double m1 = 1.0, l1 = 1.1, m2 = 0.8, l2 = 0.9, g = 9.81;
  const auto tree = test::MakeDoublePendulum(m1, l1, m2, l2);
  KinematicsCache<double> cache(tree);
  VectorX<double> q(2), v(2);
  q << 0.5, -1.2;
  v << 0.7, 1.9;
  // Spong's acrobot with uniform rods: lc = l/2, I about the com m l^2/12.
  const double lc1 = l1 / 2, lc2 = l2 / 2;
  const double I1 = m1 * l1 * l1 / 12 + m1 * lc1 * lc1;
  const double I2 = m2 * l2 * l2 / 12 + m2 * lc2 * lc2;
  const double c2 = std::cos(q(1)), s2 = std::sin(q(1));
  MatrixX<double> H(2, 2);
  H << I1 + I2 + m2 * l1 * l1 + 2 * m2 * l1 * lc2 * c2, I2 + m2 * l1 * lc2 * c2,
      I2 + m2 * l1 * lc2 * c2, I2;
  const double s1 = std::sin(q(0)), s12 = std::sin(q(0) + q(1));
  VectorX<double> C(2);
  C << -m2 * l1 * lc2 * s2 * (2 * v(0) * v(1) + v(1) * v(1)) +
           (m1 * lc1 + m2 * l1) * g * s1 + m2 * g * lc2 * s12,
      m2 * l1 * lc2 * s2 * v(0) * v(0) + m2 * g * lc2 * s12;
  EXPECT_TRUE(MassMatrix(tree, &cache, q).isApprox(H, 1e-14));
  EXPECT_TRUE(BiasTerm(tree, &cache, q, v).isApprox(C, 1e-13));
}

TEST(DynamicsTest, DampingAndArmatureEnterHAndC) {
  auto tree = test::MakeRandomTree(5, 9, false, false);
  auto passive = tree;  // same geometry, now with damping and armature
  RigidBodyTree<double> damped("damped");
  std::vector<double> b(tree.num_bodies()), r(tree.num_bodies());
  for (int i = 1; i < tree.num_bodies(); ++i) {
    Joint<double> j = tree.body(i).joint;
    j.damping = 0.1 * i;
    j.armature = 0.05 * i;
    damped.AddBody(tree.body(i).name, tree.body(i).parent, j,
                   tree.body(i).inertia);
  }
  KinematicsCache<double> c0(tree), c1(damped);
  std::mt19937 gen(1);
  const VectorX<double> q = RandomConfiguration(tree, &gen);
  const VectorX<double> v = RandomVector(tree.num_velocities(), &gen);
  const MatrixX<double> H0 = MassMatrix(tree, &c0, q);
  const MatrixX<double> H1 = MassMatrix(damped, &c1, q);
  const VectorX<double> C0 = BiasTerm(tree, &c0, q, v);
  const VectorX<double> C1 = BiasTerm(damped, &c1, q, v);
  for (int i = 1; i < tree.num_bodies(); ++i) {
    const auto& body = damped.body(i);
    for (int k = 0; k < body.num_velocities; ++k) {
      const int iv = body.velocity_start + k;
      EXPECT_NEAR(H1(iv, iv) - H0(iv, iv), body.joint.armature, 1e-13);
      EXPECT_NEAR(C1(iv) - C0(iv), body.joint.damping * v(iv), 1e-12);
    }
  }
}

// With nq = nv and qdot = v, build the Coriolis matrix from Christoffel
// symbols of autodiff(H) and check C v equals the velocity-product part of
// the bias term and Hdot - 2C is skew-symmetric.
TEST(DynamicsTest, HdotMinusTwoCIsSkewSymmetric) {
  auto tree = MakeRandomTree(6, 11, false, false);
  tree.set_gravity(Vector3<double>::Zero());
  const auto tree_ad = CastTree<AutoDiffXd>(tree);
  KinematicsCache<AutoDiffXd> cache_ad(tree_ad);
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(2);
  const int n = tree.num_velocities();
  ASSERT_EQ(n, tree.num_positions());
  const VectorX<double> q = RandomConfiguration(tree, &gen);
  const VectorX<double> v = RandomVector(n, &gen);
  const MatrixX<AutoDiffXd> H_ad =
      MassMatrix(tree_ad, &cache_ad, InitializeAutoDiff(q));
  // dH[k](i, j) = dH_ij / dq_k.
  std::vector<MatrixX<double>> dH(n, MatrixX<double>(n, n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        // Constant entries carry an empty derivative vector.
        const auto& d = H_ad(i, j).derivatives();
        dH[k](i, j) = d.size() == n ? d(k) : 0.0;
      }
  MatrixX<double> Hdot = MatrixX<double>::Zero(n, n);
  MatrixX<double> C = MatrixX<double>::Zero(n, n);
  for (int k = 0; k < n; ++k) Hdot += dH[k] * v(k);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k)
        C(i, j) += 0.5 * (dH[k](i, j) + dH[j](i, k) - dH[i](j, k)) * v(k);
  EXPECT_LT(RelErr(C * v, BiasTerm(tree, &cache, q, v)), 1e-10);
  const MatrixX<double> N = Hdot - 2 * C;
  EXPECT_LT((N + N.transpose()).norm(), 1e-10 * std::max(1.0, N.norm()));
}

TEST(DynamicsTest, AutoDiffMatchesFiniteDifferences) {
  const auto tree = MakeRandomTree(7, 12, true, true);
  const auto tree_ad = CastTree<AutoDiffXd>(tree);
  KinematicsCache<AutoDiffXd> cache_ad(tree_ad);
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(4);
  const VectorX<double> q = RandomConfiguration(tree, &gen);
  const VectorX<double> v = RandomVector(tree.num_velocities(), &gen);
  const VectorX<double> tau = RandomVector(tree.num_velocities(), &gen);
  // Derivative of vdot with respect to v and tau (both unconstrained).
  const int nv = tree.num_velocities();
  VectorX<double> x(2 * nv);
  x << v, tau;
  const VectorX<AutoDiffXd> x_ad = InitializeAutoDiff(x);
  VectorX<AutoDiffXd> q_ad = q.cast<AutoDiffXd>();
  for (int i = 0; i < q_ad.size(); ++i)
    q_ad(i).derivatives() = Eigen::VectorXd::Zero(2 * nv);
  const VectorX<AutoDiffXd> vdot_ad = ForwardDynamics(
      tree_ad, &cache_ad, q_ad, VectorX<AutoDiffXd>(x_ad.head(nv)),
      VectorX<AutoDiffXd>(x_ad.tail(nv)));
  const Eigen::MatrixXd G = ExtractGradient(vdot_ad);
  const double h = 1e-6;
  for (int k = 0; k < 2 * nv; ++k) {
    VectorX<double> xp = x, xm = x;
    xp(k) += h;
    xm(k) -= h;
    const VectorX<double> fp =
        ForwardDynamics(tree, &cache, q, VectorX<double>(xp.head(nv)),
                        VectorX<double>(xp.tail(nv)));
    const VectorX<double> fm =
        ForwardDynamics(tree, &cache, q, VectorX<double>(xm.head(nv)),
                        VectorX<double>(xm.tail(nv)));
    EXPECT_LT(RelErr(G.col(k), (fp - fm) / (2 * h)), 1e-6) << k;
  }
  EXPECT_LT(
      RelErr(ExtractValue(vdot_ad), ForwardDynamics(tree, &cache, q, v, tau)),
      1e-12);
}

// A free-floating tree without gravity or damping conserves spatial momentum
// and energy; integrate with RK4 and check both.
TEST(DynamicsTest, FreeFloatingTreeConservesMomentumAndEnergy) {
  auto tree = MakeRandomTree(6, 5, true, false);
  tree.set_gravity(Vector3<double>::Zero());
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(8);
  const int nq = tree.num_positions(), nv = tree.num_velocities();
  VectorX<double> x(nq + nv);
  x << RandomConfiguration(tree, &gen), RandomVector(nv, &gen);
  const VectorX<double> tau = VectorX<double>::Zero(nv);
  auto f = [&](const VectorX<double>& s) {
    VectorX<double> q = s.head(nq);
    const VectorX<double> v = s.tail(nv);
    VectorX<double> out(nq + nv);
    VectorX<double> qdot(nq);
    MapVelocityToQDot(tree, q, v, &qdot);
    out << qdot, ForwardDynamics(tree, &cache, q, v, tau);
    return out;
  };
  auto invariants = [&](const VectorX<double>& s) {
    ForwardKinematics(tree, &cache, VectorX<double>(s.head(nq)),
                      VectorX<double>(s.tail(nv)));
    Eigen::Matrix<double, 7, 1> out;
    out << SpatialMomentumInWorld(tree, cache), KineticEnergy(tree, cache);
    return out;
  };
  const auto I0 = invariants(x);
  const double h = 1e-3;
  for (int step = 0; step < 500; ++step) {
    const VectorX<double> k1 = f(x);
    const VectorX<double> k2 = f(x + h / 2 * k1);
    const VectorX<double> k3 = f(x + h / 2 * k2);
    const VectorX<double> k4 = f(x + h * k3);
    x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    VectorX<double> q = x.head(nq);
    NormalizeQuaternions(tree, &q);
    x.head(nq) = q;
  }
  const auto I1 = invariants(x);
  EXPECT_LT((I1 - I0).norm(), 1e-8 * std::max(1.0, I0.norm()));
}

TEST(DynamicsTest, DoesNotAllocateAndChecksSizes) {
  const auto tree = MakeRandomTree(12, 6, true, true);
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(1);
  const VectorX<double> q = RandomConfiguration(tree, &gen);
  const VectorX<double> v = RandomVector(tree.num_velocities(), &gen);
  const VectorX<double> tau = RandomVector(tree.num_velocities(), &gen);
  std::vector<SpatialForce<double>> f_ext(tree.num_bodies(),
                                          SpatialForce<double>::Ones());
  {
    test::ScopedAllocationCounter counter;
    MassMatrix(tree, &cache, q);
    InverseDynamics(tree, &cache, q, v, tau, &f_ext);
    BiasTerm(tree, &cache, q, v);
    ForwardDynamics(tree, &cache, q, v, tau, &f_ext);
    EXPECT_EQ(counter.count(), 0);
  }
  try {
    ForwardDynamics(tree, &cache, q, v,
                    VectorX<double>(VectorX<double>::Zero(2)));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tau has size 2"), std::string::npos);
  }
}

// Issue 12, item 12: a floating robot far from the world origin gets the
// same mass matrix and accelerations as at the origin (they do not depend on
// where the robot is). Working about the world origin lost digits as the
// square of the distance (3e-5 relative at 12.6 km).
TEST(DynamicsTest, FarFromTheOriginMatchesTheOrigin) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const auto tree = MakeRandomTree(14, seed, /*all_types=*/true, true);
    ASSERT_EQ(tree.body(1).joint.type, JointType::kFloating);
    KinematicsCache<double> cache(tree);
    std::mt19937 gen(seed + 30);
    std::vector<SpatialForce<double>> f_ext(tree.num_bodies());
    for (auto& f : f_ext) f = RandomVector(6, &gen);
    for (const Vector3<double>& offset :
         {Vector3<double>(1e4, -7e3, 3e3), Vector3<double>(0, 0, 1.26e3)}) {
      const VectorX<double> q0 = RandomConfiguration(tree, &gen);
      const VectorX<double> v = RandomVector(tree.num_velocities(), &gen);
      const VectorX<double> tau = RandomVector(tree.num_velocities(), &gen);
      VectorX<double> q_far = q0;
      q_far.segment<3>(tree.body(1).position_start) += offset;
      const MatrixX<double> H0 = MassMatrix(tree, &cache, q0);
      const MatrixX<double> H_far = MassMatrix(tree, &cache, q_far);
      const double h_err =
          (H_far - H0).cwiseAbs().maxCoeff() / H0.cwiseAbs().maxCoeff();
      EXPECT_LT(h_err, 1e-11) << "offset " << offset.transpose();
      for (const auto* fe :
           {static_cast<std::vector<SpatialForce<double>>*>(nullptr), &f_ext}) {
        const VectorX<double> a0 =
            ForwardDynamics(tree, &cache, q0, v, tau, fe);
        const VectorX<double> a_far =
            ForwardDynamics(tree, &cache, q_far, v, tau, fe);
        EXPECT_LT((a_far - a0).norm() / a0.norm(), 1e-11)
            << "offset " << offset.transpose() << (fe ? " with f_ext" : "");
      }
    }
  }
}

// Issue 12, item 11: a singular articulated inertia (here a massless leaf
// body on a revolute joint, in a tree built in code without the build-time
// check) makes ForwardDynamics throw naming the joint, never return NaN.
TEST(DynamicsTest, SingularArticulatedInertiaThrowsNamingTheJoint) {
  RigidBodyTree<double> tree("massless_leaf");
  Joint<double> j;
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitY();
  j.name = "shoulder";
  const int arm = tree.AddBody(
      "arm", 0, j,
      SpatialInertia<double>::FromCom(1.0, Vector3<double>(0, 0, -0.5),
                                      Matrix3<double>::Identity() * 0.01));
  j.name = "wrist";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitX();
  j.X_PJ.p = Vector3<double>(0, 0, -1);
  tree.AddBody("tool", arm, j, SpatialInertia<double>());
  KinematicsCache<double> cache(tree);
  const VectorX<double> q = VectorX<double>::Constant(2, 0.3);
  const VectorX<double> v = VectorX<double>::Constant(2, 0.2);
  const VectorX<double> tau = VectorX<double>::Constant(2, 0.1);
  try {
    const VectorX<double> a = ForwardDynamics(tree, &cache, q, v, tau);
    FAIL() << "returned " << a.transpose();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("joint 'wrist'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("body 'tool'"), std::string::npos)
        << e.what();
  }
  // A massless floating base whose only child slides freely along x: the
  // 6x6 articulated inertia of the base is singular.
  RigidBodyTree<double> cart("cart");
  Joint<double> fj;
  fj.type = JointType::kFloating;
  fj.name = "floating_base";
  const int rail = cart.AddBody("rail", 0, fj, SpatialInertia<double>());
  Joint<double> pj;
  pj.type = JointType::kPrismatic;
  pj.name = "slider";
  pj.axis = Vector3<double>::UnitX();
  cart.AddBody(
      "cart", rail, pj,
      SpatialInertia<double>::FromCom(1.0, Vector3<double>::Zero(),
                                      Matrix3<double>::Identity() * 0.01));
  KinematicsCache<double> cc(cart);
  const VectorX<double> qc = cart.GetZeroConfiguration();
  const VectorX<double> vc = VectorX<double>::Zero(7);
  try {
    const VectorX<double> a = ForwardDynamics(cart, &cc, qc, vc, vc);
    FAIL() << "returned " << a.transpose();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("joint 'floating_base'"),
              std::string::npos)
        << e.what();
  }
  // With armature on the leaf joint, H is positive definite again.
  RigidBodyTree<double> ok("armature");
  j.name = "shoulder";
  j.type = JointType::kRevolute;
  j.X_PJ = RigidTransform<double>();
  j.axis = Vector3<double>::UnitY();
  const int a1 = ok.AddBody("arm", 0, j, tree.body(arm).inertia);
  j.name = "wrist";
  j.armature = 0.01;
  j.X_PJ.p = Vector3<double>(0, 0, -1);
  ok.AddBody("tool", a1, j, SpatialInertia<double>());
  KinematicsCache<double> co(ok);
  EXPECT_TRUE(ForwardDynamics(ok, &co, q, v, tau).allFinite());
}

}  // namespace
}  // namespace tern
