#include "tern/multibody/tree/kinematics.h"

#include <gtest/gtest.h>

#include "tern/multibody/tree/test/test_trees.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using test::MakeRandomTree;
using test::RandomConfiguration;
using test::RandomVector;

// A curve through q with tangent N(q) v that stays on the unit quaternions.
VectorX<double> Advance(const RigidBodyTree<double>& tree,
                        const VectorX<double>& q, const VectorX<double>& v,
                        double t) {
  VectorX<double> qdot(tree.num_positions());
  MapVelocityToQDot(tree, q, v, &qdot);
  VectorX<double> out = q + t * qdot;
  NormalizeQuaternions(tree, &out);
  return out;
}

Vector3<double> Vee(const Matrix3<double>& W) {
  return Vector3<double>(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0),
                         W(1, 0) - W(0, 1)) /
         2;
}

class KinematicsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = MakeRandomTree(12, 7, true, true);
    std::mt19937 gen(3);
    tree_.AddFrame("tool", 9, test::RandomTransform(&gen));
    q_ = RandomConfiguration(tree_, &gen);
    v_ = RandomVector(tree_.num_velocities(), &gen);
    vdot_ = RandomVector(tree_.num_velocities(), &gen);
  }
  RigidBodyTree<double> tree_;
  VectorX<double> q_, v_, vdot_;
};

TEST_F(KinematicsTest, PendulumPoseIsClosedForm) {
  const auto tree = test::MakePendulum(2.0, 0.5);
  KinematicsCache<double> cache(tree);
  VectorX<double> q(1), v(1);
  q << 0.3;
  v << 1.5;
  ForwardKinematics(tree, &cache, q, v);
  EXPECT_NEAR(CenterOfMass(tree, cache).x(), -0.5 * std::sin(0.3), 1e-15);
  EXPECT_NEAR(CenterOfMass(tree, cache).z(), -0.5 * std::cos(0.3), 1e-15);
  EXPECT_NEAR(KineticEnergy(tree, cache), 0.5 * 2.0 * 0.25 * 1.5 * 1.5, 1e-14);
  EXPECT_NEAR(PotentialEnergy(tree, cache), -2.0 * 9.81 * 0.5 * std::cos(0.3),
              1e-14);
}

TEST_F(KinematicsTest, VelocitiesAndJacobiansMatchFiniteDifferences) {
  KinematicsCache<double> cache(tree_);
  const int frame = tree_.FindFrameIndex("tool");
  const Vector3<double> p_FP(0.1, -0.2, 0.3);
  const double h = 1e-6;
  ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, h));
  const RigidTransform<double> Xp = CalcFramePose(tree_, cache, frame);
  ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, -h));
  const RigidTransform<double> Xm = CalcFramePose(tree_, cache, frame);
  ForwardKinematics(tree_, &cache, q_, v_);
  const RigidTransform<double> X = CalcFramePose(tree_, cache, frame);
  const Matrix3<double> Rdot = (Xp.R - Xm.R) / (2 * h);
  const Vector3<double> pdot = (Xp.p - Xm.p) / (2 * h);
  const Vector3<double> w_F = Vee(X.R.transpose() * Rdot);
  Vector6<double> V_F;
  V_F << w_F, X.R.transpose() * pdot;
  EXPECT_TRUE(
      CalcFrameSpatialVelocity(tree_, cache, frame).isApprox(V_F, 1e-7));

  Matrix6X<double> J(6, tree_.num_velocities());
  FrameSpatialJacobian(tree_, cache, frame, &J);
  EXPECT_TRUE((J * v_).isApprox(V_F, 1e-7));

  WorldAlignedJacobian(tree_, cache, frame, p_FP, &J);
  Vector6<double> V_P;
  V_P << X.R * w_F, (Xp * p_FP - Xm * p_FP) / (2 * h);
  EXPECT_TRUE((J * v_).isApprox(V_P, 1e-7));
}

TEST_F(KinematicsTest, JdotVMatchesFiniteDifferences) {
  KinematicsCache<double> cache(tree_);
  const int frame = tree_.FindFrameIndex("tool");
  const Vector3<double> p_FP(0.1, -0.2, 0.3);
  const double h = 1e-5;
  Matrix6X<double> J(6, tree_.num_velocities());
  auto spatial = [&](double t) {
    ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, t));
    FrameSpatialJacobian(tree_, cache, frame, &J);
    return Vector6<double>(J * v_);
  };
  auto aligned = [&](double t) {
    ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, t));
    WorldAlignedJacobian(tree_, cache, frame, p_FP, &J);
    return Vector6<double>(J * v_);
  };
  const Vector6<double> fd_spatial = (spatial(h) - spatial(-h)) / (2 * h);
  const Vector6<double> fd_aligned = (aligned(h) - aligned(-h)) / (2 * h);
  ForwardKinematics(tree_, &cache, q_, v_);
  EXPECT_TRUE(FrameSpatialJacobianDotTimesV(tree_, cache, frame)
                  .isApprox(fd_spatial, 1e-7));
  EXPECT_TRUE(WorldAlignedJacobianDotTimesV(tree_, cache, frame, p_FP)
                  .isApprox(fd_aligned, 1e-7));
}

TEST_F(KinematicsTest, AccelerationsMatchFiniteDifferences) {
  KinematicsCache<double> cache(tree_);
  const double h = 1e-5;
  std::vector<SpatialMotion<double>> Vp, Vm;
  ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, h),
                    VectorX<double>(v_ + h * vdot_));
  Vp = cache.V;
  ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, -h),
                    VectorX<double>(v_ - h * vdot_));
  Vm = cache.V;
  ForwardKinematics(tree_, &cache, q_, v_, vdot_);
  for (int i = 1; i < tree_.num_bodies(); ++i) {
    const Vector6<double> fd = (Vp[i] - Vm[i]) / (2 * h);
    EXPECT_TRUE(cache.A[i].isApprox(fd, 1e-7)) << "body " << i;
  }
}

TEST_F(KinematicsTest, CenterOfMassJacobianAndMomentum) {
  KinematicsCache<double> cache(tree_);
  const double h = 1e-6;
  ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, h));
  const Vector3<double> cp = CenterOfMass(tree_, cache);
  ForwardKinematics(tree_, &cache, Advance(tree_, q_, v_, -h));
  const Vector3<double> cm = CenterOfMass(tree_, cache);
  ForwardKinematics(tree_, &cache, q_, v_);
  Matrix3X<double> Jc(3, tree_.num_velocities());
  CenterOfMassJacobian(tree_, &cache, &Jc);
  const Vector3<double> com_dot = (cp - cm) / (2 * h);
  EXPECT_TRUE((Jc * v_).isApprox(com_dot, 1e-7));
  // Linear momentum is total mass times com velocity.
  const Vector6<double> L = SpatialMomentumInWorld(tree_, cache);
  EXPECT_TRUE(L.tail<3>().isApprox(tree_.total_mass() * com_dot, 1e-7));
  // Angular momentum about the origin: sum of body contributions computed
  // from the world-aligned Jacobian of each body's com.
  Vector3<double> ang = Vector3<double>::Zero();
  Matrix6X<double> J(6, tree_.num_velocities());
  for (int i = 1; i < tree_.num_bodies(); ++i) {
    const auto& M = tree_.body(i).inertia;
    if (M.m == 0) continue;
    const Vector3<double> c = M.h / M.m;
    WorldAlignedJacobian(tree_, cache, tree_.FindFrameIndex(tree_.body(i).name),
                         c, &J);
    const Vector6<double> Vc = J * v_;
    const Matrix3<double>& R = cache.X_WB[i].R;
    const Matrix3<double> I_c =
        M.I - M.m * (c.squaredNorm() * Matrix3<double>::Identity() -
                     c * c.transpose());
    const Vector3<double> p_Wc = cache.X_WB[i] * c;
    ang +=
        R * I_c * R.transpose() * Vc.head<3>() + p_Wc.cross(M.m * Vc.tail<3>());
  }
  EXPECT_TRUE(L.head<3>().isApprox(ang, 1e-10));
}

TEST_F(KinematicsTest, VelocityMapsAreInverse) {
  VectorX<double> qdot(tree_.num_positions()), v(tree_.num_velocities());
  MapVelocityToQDot(tree_, q_, v_, &qdot);
  MapQDotToVelocity(tree_, q_, qdot, &v);
  EXPECT_TRUE(v.isApprox(v_, 1e-13));
  // Quaternion rates are tangent: d/dt |quat|^2 = 0.
  const auto& base = tree_.body(1);
  EXPECT_NEAR(q_.segment<4>(base.position_start + 3)
                  .dot(qdot.segment<4>(base.position_start + 3)),
              0.0, 1e-14);
}

TEST_F(KinematicsTest, NormalizeQuaternionsAndErrors) {
  VectorX<double> q = q_;
  q.segment<4>(3) *= 3.0;
  NormalizeQuaternions(tree_, &q);
  EXPECT_TRUE(q.isApprox(q_, 1e-14));
  q.segment<4>(3).setZero();
  try {
    NormalizeQuaternions(tree_, &q);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("joint1"), std::string::npos);
  }
  KinematicsCache<double> cache(tree_);
  try {
    ForwardKinematics(tree_, &cache, VectorX<double>(VectorX<double>::Zero(3)));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("q has size 3"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("random"), std::string::npos);
  }
  Matrix6X<double> J(6, 2);
  EXPECT_THROW(FrameSpatialJacobian(tree_, cache, 1, &J),
               std::invalid_argument);
  EXPECT_THROW(CalcFramePose(tree_, cache, 1000), std::invalid_argument);
  const auto other = test::MakePendulum(1, 1);
  EXPECT_THROW(ForwardKinematics(other, &cache,
                                 VectorX<double>(VectorX<double>::Zero(1))),
               std::invalid_argument);
}

TEST_F(KinematicsTest, DoesNotAllocate) {
  KinematicsCache<double> cache(tree_);
  Matrix6X<double> J(6, tree_.num_velocities());
  Matrix3X<double> Jc(3, tree_.num_velocities());
  VectorX<double> qdot(tree_.num_positions());
  const int frame = tree_.FindFrameIndex("tool");
  test::ScopedAllocationCounter counter;
  ForwardKinematics(tree_, &cache, q_, v_, vdot_);
  FrameSpatialJacobian(tree_, cache, frame, &J);
  WorldAlignedJacobian(tree_, cache, frame, Vector3<double>(1, 2, 3), &J);
  FrameSpatialJacobianDotTimesV(tree_, cache, frame);
  WorldAlignedJacobianDotTimesV(tree_, cache, frame, Vector3<double>(1, 2, 3));
  CenterOfMassJacobian(tree_, &cache, &Jc);
  CenterOfMass(tree_, cache);
  SpatialMomentumInWorld(tree_, cache);
  KineticEnergy(tree_, cache);
  PotentialEnergy(tree_, cache);
  MapVelocityToQDot(tree_, q_, v_, &qdot);
  EXPECT_EQ(counter.count(), 0);
}

}  // namespace
}  // namespace tern
