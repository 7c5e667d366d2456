#include "tern/multibody/plant/continuous_time_constraint_force.h"

#include <gtest/gtest.h>

#include <random>

#include "tern/multibody/plant/test/plant_test_models.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/test/test_trees.h"

namespace tern {
namespace {

struct Rows {
  VectorX<double> phi, Jdot_v;
  MatrixX<double> J;
};

Rows Calc(const RigidBodyTree<double>& tree,
          const ContinuousTimeConstraintForce<double>& c,
          const VectorX<double>& q, const VectorX<double>& v) {
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, q, v);
  Matrix6X<double> Js(6, tree.num_velocities());
  ForceElementInputs<double> in;
  in.tree = &tree;
  in.cache = &cache;
  in.q = &q;
  in.v = &v;
  in.J = &Js;
  Rows r;
  const int m = c.num_constraints();
  r.phi.resize(m);
  r.Jdot_v.resize(m);
  r.J.resize(m, tree.num_velocities());
  c.CalcConstraint(in, r.phi.data(), r.J, r.Jdot_v.data());
  return r;
}

// J is d phi / dq (qdot = v here) and Jdot v is d(J v)/dt along v: both
// against central differences.
TEST(PointToPointConstraint, JacobianAndBiasMatchDifferences) {
  test::FourBar fb;
  PointToPointConstraint<double> c(fb.tree, "coupler",
                                   Vector3<double>(fb.b, 0, 0), "rocker",
                                   Vector3<double>(fb.c, 0, 0));
  const VectorX<double> q = Eigen::Vector3d(0.3, 1.1, -0.4);
  const VectorX<double> v = Eigen::Vector3d(0.7, -0.2, 1.3);
  const Rows r = Calc(fb.tree, c, q, v);
  const double h = 1e-6;
  for (int i = 0; i < 3; ++i) {
    VectorX<double> qp = q, qm = q;
    qp[i] += h;
    qm[i] -= h;
    const VectorX<double> dphi =
        (Calc(fb.tree, c, qp, v).phi - Calc(fb.tree, c, qm, v).phi) / (2 * h);
    EXPECT_LT((r.J.col(i) - dphi).norm(), 1e-8) << "column " << i;
  }
  const VectorX<double> Jv_p = Calc(fb.tree, c, q + h * v, v).J * v;
  const VectorX<double> Jv_m = Calc(fb.tree, c, q - h * v, v).J * v;
  EXPECT_LT((r.Jdot_v - (Jv_p - Jv_m) / (2 * h)).norm(), 1e-7);
  // Closed configuration: phi = 0.
  EXPECT_LT(Calc(fb.tree, c, fb.ClosedConfiguration(0.9), v).phi.norm(), 1e-14);
}

TEST(JointCouplingConstraint, Rows) {
  const RigidBodyTree<double> tree = test::MakeDoublePendulum(1, 1, 1, 1);
  JointCouplingConstraint<double> c(tree, "elbow", "shoulder", 2.0, 0.5);
  const Rows r =
      Calc(tree, c, Eigen::Vector2d(0.25, 1.5), Eigen::Vector2d(0.0, 0.0));
  EXPECT_DOUBLE_EQ(r.phi[0], 1.5 - 2.0 * 0.25 - 0.5);
  EXPECT_EQ(r.J(0, 0), -2.0);
  EXPECT_EQ(r.J(0, 1), 1.0);
  EXPECT_EQ(r.Jdot_v[0], 0.0);
  EXPECT_THROW(JointCouplingConstraint<double>(tree, "elbow", "elbow", 1, 0),
               std::invalid_argument);
  EXPECT_THROW(JointCouplingConstraint<double>(tree, "elbow", "knee", 1, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// Rotation rows: rate w_F - w_G, so J matches the difference quotient of
// phi at a welded (phi = 0) pose; position rows everywhere.
TEST(WeldConstraint, JacobianMatchesDifferencesAtTheWeld) {
  const RigidBodyTree<double> tree = test::MakeRandomTree(4, 9, false, false);
  std::mt19937 gen(3);
  const VectorX<double> q = test::RandomConfiguration(tree, &gen);
  const VectorX<double> v = test::RandomVector(tree.num_velocities(), &gen);
  // G placed where F is at q, so phi(q) = 0.
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, q);
  const RigidTransform<double> X_AF(Matrix3<double>::Identity(),
                                    Vector3<double>(0.1, 0.2, 0.3));
  const RigidTransform<double> X_WF = cache.X_WB[3] * X_AF;
  const RigidTransform<double> X_BG = cache.X_WB[1].inverse() * X_WF;
  WeldConstraint<double> c(tree, "body3", X_AF, "body1", X_BG);
  const Rows r = Calc(tree, c, q, v);
  EXPECT_LT(r.phi.norm(), 1e-14);
  const double h = 1e-6;
  for (int i = 0; i < q.size(); ++i) {
    VectorX<double> qp = q, qm = q;
    qp[i] += h;
    qm[i] -= h;
    const VectorX<double> dphi =
        (Calc(tree, c, qp, v).phi - Calc(tree, c, qm, v).phi) / (2 * h);
    EXPECT_LT((r.J.col(i) - dphi).norm(), 1e-8) << "column " << i;
  }
  EXPECT_THROW(WeldConstraint<double>(tree, "body1", X_AF, "body1", X_BG),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern
