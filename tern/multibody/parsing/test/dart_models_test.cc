// Real robot descriptions shipped by the Debian package dart-doc: a Barrett
// WAM arm and an Atlas humanoid. One Atlas file names a link that does not
// exist (joint neck_ry's child "head"); it must be rejected by name.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <filesystem>
#include <random>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

const std::string kData = TERN_DART_DATA_DIR;

void CheckDynamics(const RigidBodyTree<double>& tree) {
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  VectorX<double> q(tree.num_positions()), v(tree.num_velocities()),
      tau(tree.num_velocities());
  for (int i = 0; i < q.size(); ++i) q(i) = s(gen);
  for (int i = 0; i < v.size(); ++i) v(i) = s(gen), tau(i) = s(gen);
  NormalizeQuaternions(tree, &q);
  const MatrixX<double> H = MassMatrix(tree, &cache, q);
  Eigen::LLT<MatrixX<double>> llt(H);
  ASSERT_EQ(llt.info(), Eigen::Success);
  const VectorX<double> C = BiasTerm(tree, &cache, q, v);
  const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
  const VectorX<double> expected = llt.solve(tau - C);
  EXPECT_LT((vdot - expected).norm(), 1e-8 * std::max(1.0, expected.norm()));
  EXPECT_LT((InverseDynamics(tree, &cache, q, v, vdot) - tau).norm(), 1e-8);
}

TEST(DartModelsTest, BarrettWam) {
  UrdfParseOptions options;
  options.package_map["herb_description"] = kData + "/urdf/wam";
  const UrdfModel model = ParseUrdfFile(kData + "/urdf/wam/wam.urdf", options);
  EXPECT_EQ(model.tree.num_velocities(), 7);
  const auto& b = model.tree.body(model.tree.FindBodyIndex("/wam1"));
  ASSERT_FALSE(b.visuals.empty());
  EXPECT_TRUE(std::filesystem::exists(b.visuals[0].mesh_path));
  CheckDynamics(model.tree);
}

TEST(DartModelsTest, AtlasWithoutHead) {
  UrdfParseOptions options;
  options.floating_base = true;
  const UrdfModel model =
      ParseUrdfFile(kData + "/sdf/atlas/atlas_v3_no_head.urdf", options);
  // 27 revolute joints plus the floating base.
  EXPECT_EQ(model.tree.num_velocities(), 6 + 27);
  EXPECT_GT(model.tree.total_mass(), 100.0);
  CheckDynamics(model.tree);
}

TEST(DartModelsTest, AtlasWithMissingHeadLinkIsRejected) {
  UrdfParseOptions options;
  options.floating_base = true;
  try {
    ParseUrdfFile(kData + "/sdf/atlas/atlas_v3.urdf", options);
    FAIL() << "atlas_v3.urdf names a missing link";
  } catch (const UrdfError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("atlas_v3.urdf:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("joint 'neck_ry'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("child link 'head'"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace tern
