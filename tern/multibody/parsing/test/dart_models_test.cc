// Real robot descriptions shipped by the Debian package dart-doc: a Barrett
// WAM arm, a KUKA KR5 sixx, DRC-Hubo and an Atlas humanoid. One Atlas file
// names a link that does not exist (joint neck_ry's child "head"); it must be
// rejected by name. Where DART's URDF loader is installed
// (libdart-utils-urdf-dev), the mass matrix and bias term of each robot are
// compared with DART's on the same file.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <filesystem>
#include <random>

#include "tern/multibody/parsing/urdf_parser.h"
#ifdef TERN_HAVE_DART_URDF
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/DegreeOfFreedom.hpp>
#include <dart/dynamics/Joint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#endif
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

TEST(DartModelsTest, BarrettWamMissingPackageIsNamedWithTheUrdfLine) {
  UrdfParseOptions options;
  options.discover_packages = false;
  try {
    ParseUrdfFile(kData + "/urdf/wam/wam.urdf", options);
    FAIL() << "herb_description is not mapped";
  } catch (const UrdfError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("wam.urdf:17: <mesh>: mesh "
                       "'package://herb_description/meshes/wam/wam_base.dae'"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("package 'herb_description' not found"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("packages given explicitly: none"), std::string::npos)
        << msg;
  }
  // With discovery, $ROS_PACKAGE_PATH is read: a search path holding a
  // herb_description folder is enough (a symlink to urdf/wam, as a ROS
  // workspace would have the package).
  const std::filesystem::path ws =
      std::filesystem::path(::testing::TempDir()) / "tern_ros_ws";
  std::filesystem::remove_all(ws);
  std::filesystem::create_directories(ws);
  std::filesystem::create_directory_symlink(kData + "/urdf/wam",
                                            ws / "herb_description");
  const char* old = std::getenv("ROS_PACKAGE_PATH");
  const std::string saved = old ? old : "";
  ::setenv("ROS_PACKAGE_PATH", ws.c_str(), 1);
  EXPECT_NO_THROW(ParseUrdfFile(kData + "/urdf/wam/wam.urdf"));
  if (old) {
    ::setenv("ROS_PACKAGE_PATH", saved.c_str(), 1);
  } else {
    ::unsetenv("ROS_PACKAGE_PATH");
  }
  std::filesystem::remove_all(ws);
}

#ifdef TERN_HAVE_DART_URDF
// Tern against DART 6.12 on the same URDF: the mass matrix and the bias term
// (Coriolis + gravity) at random joint positions and velocities, joints
// matched by name. Floating robots are compared on the joint block with the
// base at the identity and at rest, which neither base parametrization
// (Tern: position + quaternion, body twist; DART: FreeJoint) affects.
void CompareWithDart(const std::string& urdf, bool floating) {
  UrdfParseOptions options;
  options.floating_base = floating;
  options.packages.Add("herb_description", kData + "/urdf/wam");
  const RigidBodyTree<double> tree = ParseUrdfFile(urdf, options).tree;

  dart::utils::DartLoader::Options dart_options;
  dart_options.mDefaultRootJointType =
      floating ? dart::utils::DartLoader::RootJointType::FLOATING
               : dart::utils::DartLoader::RootJointType::FIXED;
  dart::utils::DartLoader loader(dart_options);
  loader.addPackageDirectory("herb_description", kData + "/urdf/wam");
  loader.addPackageDirectory("drchubo", kData + "/urdf/drchubo");
  const auto skel =
      loader.parseSkeleton(dart::common::Uri::createFromPath(urdf));
  ASSERT_TRUE(skel) << urdf;
  skel->setGravity(Eigen::Vector3d(0, 0, -9.81));
  // A link without <inertial> is massless in the URDF spec and in Tern;
  // DART gives it a default inertia, so set those to zero for the comparison.
  for (std::size_t i = 0; i < skel->getNumBodyNodes(); ++i) {
    auto* bn = skel->getBodyNode(i);
    const int b = tree.FindBodyIndex(bn->getName());
    if (tree.body(b).inertia.m == 0) {
      bn->setInertia(dart::dynamics::Inertia(0, Eigen::Vector3d::Zero(),
                                             Eigen::Matrix3d::Zero()));
    }
  }
  // Tern velocity index -> DART dof index, for the 1-dof joints.
  std::vector<std::pair<int, int>> map;
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const auto& body = tree.body(b);
    if (body.num_velocities != 1) continue;
    auto* joint = skel->getJoint(body.joint.name);
    ASSERT_NE(joint, nullptr) << body.joint.name;
    ASSERT_EQ(joint->getNumDofs(), 1u);
    map.emplace_back(body.velocity_start,
                     static_cast<int>(joint->getDof(0)->getIndexInSkeleton()));
  }
  ASSERT_EQ(static_cast<int>(map.size()) + (floating ? 6 : 0),
            tree.num_velocities());
  KinematicsCache<double> cache(tree);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 3; ++trial) {
    VectorX<double> q = tree.GetZeroConfiguration();
    VectorX<double> v = VectorX<double>::Zero(tree.num_velocities());
    Eigen::VectorXd qd = Eigen::VectorXd::Zero(skel->getNumDofs());
    Eigen::VectorXd vd = qd;
    for (const auto& [t, d] : map) {
      const int qi = tree.body(tree.FindJointBodyIndex(
                                   skel->getDof(d)->getJoint()->getName()))
                         .position_start;
      q(qi) = qd(d) = u(gen);
      v(t) = vd(d) = u(gen);
    }
    skel->setPositions(qd);
    skel->setVelocities(vd);
    const MatrixX<double> H = MassMatrix(tree, &cache, q);
    const VectorX<double> C = BiasTerm(tree, &cache, q, v);
    const Eigen::MatrixXd& Hd = skel->getMassMatrix();
    const Eigen::VectorXd& Cd = skel->getCoriolisAndGravityForces();
    double h_err = 0, c_err = 0;
    for (const auto& [ti, di] : map) {
      for (const auto& [tj, dj] : map) {
        h_err = std::max(h_err, std::abs(H(ti, tj) - Hd(di, dj)));
      }
      // Tern's bias term holds the joint damping (InverseDynamics does);
      // DART's Coriolis-and-gravity forces do not.
      const double damping =
          tree.body(tree.FindJointBodyIndex(
                        skel->getDof(di)->getJoint()->getName()))
              .joint.damping;
      c_err = std::max(c_err, std::abs(C(ti) - damping * v(ti) - Cd(di)));
    }
    // The agreement reached, in the test's XML output (--gtest_output=xml).
    std::string key = std::filesystem::path(urdf).stem().string();
    std::replace(key.begin(), key.end(), ' ', '_');
    ::testing::Test::RecordProperty(
        key + "_" + std::to_string(trial),
        fmt::format("H {:.2g} of {:.3g}, C {:.2g} of {:.3g}", h_err,
                    Hd.cwiseAbs().maxCoeff(), c_err, Cd.cwiseAbs().maxCoeff()));
    EXPECT_LT(h_err, 1e-10 * std::max(1.0, Hd.cwiseAbs().maxCoeff())) << urdf;
    EXPECT_LT(c_err, 1e-10 * std::max(1.0, Cd.cwiseAbs().maxCoeff())) << urdf;
  }
}

TEST(DartModelsTest, DynamicsAgreeWithDart) {
  CompareWithDart(kData + "/urdf/wam/wam.urdf", false);
  CompareWithDart(kData + "/urdf/KR5/KR5 sixx R650.urdf", false);
  CompareWithDart(kData + "/urdf/drchubo/drchubo.urdf", true);
  CompareWithDart(kData + "/sdf/atlas/atlas_v3_no_head.urdf", true);
}
#endif

}  // namespace
}  // namespace tern
