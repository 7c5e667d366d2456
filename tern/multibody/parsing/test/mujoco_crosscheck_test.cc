// Cross-check of the mass matrix, inverse dynamics and forward dynamics
// against MuJoCo (its URDF importer reads the same file), for the shipped
// 7-DoF arm and floating-base humanoid at random states. MuJoCo's URDF
// importer welds the root to the world, so the humanoid gets a "world" link
// and a floating joint, which both libraries read as a free joint.
// Coordinates differ for the free joint: MuJoCo has qpos = [p, qw qx qy qz]
// (as Tern) but qvel = [pdot_world, w_body] where Tern has v = [w_B, v_B];
// the map v_mj = T v_tern is built explicitly below.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `urdf` with a world link and a floating joint to `root` added.
std::string WriteFloatingVariant(const std::string& urdf_path,
                                 const std::string& root) {
  std::string xml = ReadFile(urdf_path);
  const auto pos = xml.find('>', xml.find("<robot"));
  xml.insert(pos + 1,
             "\n  <link name=\"world\"/>\n  <joint name=\"floating_base\" "
             "type=\"floating\"><parent link=\"world\"/><child link=\"" +
                 root + "\"/></joint>");
  const fs::path out = fs::temp_directory_path() /
                       ("tern_mj_" + fs::path(urdf_path).filename().string());
  std::ofstream(out) << xml;
  return out.string();
}

class MujocoCrossCheck {
 public:
  explicit MujocoCrossCheck(const std::string& path) {
    char err[1000] = "";
    m_ = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
    if (m_ == nullptr) throw std::runtime_error(std::string("MuJoCo: ") + err);
    m_->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_CONTACT;
    d_ = mj_makeData(m_);
    tern_ = std::make_unique<UrdfModel>(ParseUrdfFile(path));
  }
  ~MujocoCrossCheck() {
    mj_deleteData(d_);
    mj_deleteModel(m_);
  }

  void Run(int trials) {
    const RigidBodyTree<double>& tree = tern_->tree;
    ASSERT_EQ(tree.num_positions(), m_->nq);
    ASSERT_EQ(tree.num_velocities(), m_->nv);
    KinematicsCache<double> cache(tree);
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> s(-1.0, 1.0);
    const int nq = m_->nq, nv = m_->nv;
    for (int trial = 0; trial < trials; ++trial) {
      VectorX<double> q(nq), v(nv), vdot(nv), tau(nv);
      for (int i = 0; i < nq; ++i) q(i) = s(gen);
      for (int i = 0; i < nv; ++i)
        v(i) = s(gen), vdot(i) = s(gen), tau(i) = s(gen);
      NormalizeQuaternions(tree, &q);
      // Map the state: T with v_mj = T v_tern, and Tdot v_tern.
      MatrixX<double> T = MatrixX<double>::Zero(nv, nv);
      VectorX<double> Tdot_v = VectorX<double>::Zero(nv);
      VectorX<double> damping = VectorX<double>::Zero(nv);
      for (int j = 0; j < m_->njnt; ++j) {
        const int b = tree.FindJointBodyIndex(mj_id2name(m_, mjOBJ_JOINT, j));
        const RigidBody<double>& body = tree.body(b);
        const int qa = m_->jnt_qposadr[j], da = m_->jnt_dofadr[j];
        const int tq = body.position_start, tv = body.velocity_start;
        if (m_->jnt_type[j] == mjJNT_FREE) {
          for (int k = 0; k < 7; ++k) d_->qpos[qa + k] = q(tq + k);
          const Matrix3<double> R =
              QuaternionToRotationMatrix<double>(q.segment<4>(tq + 3));
          T.block<3, 3>(da, tv + 3) = R;                            // pdot
          T.block<3, 3>(da + 3, tv) = Matrix3<double>::Identity();  // w_B
          const Vector3<double> w = v.segment<3>(tv), vB = v.segment<3>(tv + 3);
          Tdot_v.segment<3>(da) = R * w.cross(vB);
        } else {
          ASSERT_EQ(m_->jnt_type[j], mjJNT_HINGE);
          d_->qpos[qa] = q(tq);
          T(da, tv) = 1;
          damping(tv) = body.joint.damping;
          ASSERT_DOUBLE_EQ(m_->dof_damping[da], body.joint.damping);
        }
      }
      const VectorX<double> v_mj = T * v;
      for (int i = 0; i < nv; ++i) d_->qvel[i] = v_mj(i);

      // Mass matrix: H_tern = T^T M_mj T.
      mj_forward(m_, d_);
      MatrixX<double> M_rowmajor(nv, nv);
      mj_fullM(m_, M_rowmajor.data(), d_->qM);  // symmetric: layout is moot
      const MatrixX<double> H_mj = T.transpose() * M_rowmajor * T;
      const MatrixX<double> H = MassMatrix(tree, &cache, q);
      const double err_H = (H - H_mj).norm() / H_mj.norm();
      EXPECT_LT(err_H, 1e-6) << "trial " << trial;
      max_err_[0] = std::max(max_err_[0], err_H);

      // Inverse dynamics: mj_rne gives M qacc + bias (no damping).
      const VectorX<double> qacc = T * vdot + Tdot_v;
      for (int i = 0; i < nv; ++i) d_->qacc[i] = qacc(i);
      VectorX<double> rne(nv);
      mj_rne(m_, d_, 1, rne.data());
      const VectorX<double> tau_mj =
          T.transpose() * rne + damping.cwiseProduct(v);
      const VectorX<double> tau_id = InverseDynamics(tree, &cache, q, v, vdot);
      const double err_id = (tau_id - tau_mj).norm() / tau_mj.norm();
      EXPECT_LT(err_id, 1e-6) << "trial " << trial;
      max_err_[1] = std::max(max_err_[1], err_id);

      // Forward dynamics: apply tau_mj = T^-T tau, read qacc back.
      const VectorX<double> f_mj = T.transpose().lu().solve(tau);
      for (int i = 0; i < nv; ++i) d_->qfrc_applied[i] = f_mj(i);
      mj_forward(m_, d_);
      VectorX<double> acc_mj(nv);
      for (int i = 0; i < nv; ++i) acc_mj(i) = d_->qacc[i];
      const VectorX<double> vdot_mj = T.lu().solve(acc_mj - Tdot_v);
      const VectorX<double> vdot_fd = ForwardDynamics(tree, &cache, q, v, tau);
      const double err_fd = (vdot_fd - vdot_mj).norm() / vdot_mj.norm();
      EXPECT_LT(err_fd, 1e-6) << "trial " << trial;
      max_err_[2] = std::max(max_err_[2], err_fd);
      for (int i = 0; i < nv; ++i) d_->qfrc_applied[i] = 0;
    }
    std::printf("max relative difference to MuJoCo: H %.2e, ID %.2e, FD %.2e\n",
                max_err_[0], max_err_[1], max_err_[2]);
  }

 private:
  mjModel* m_{nullptr};
  mjData* d_{nullptr};
  std::unique_ptr<UrdfModel> tern_;
  double max_err_[3] = {0, 0, 0};
};

TEST(MujocoCrossCheckTest, Arm7) {
  MujocoCrossCheck check(std::string(TERN_MODELS_DIR) + "/arm7.urdf");
  check.Run(10);
}

TEST(MujocoCrossCheckTest, FloatingHumanoid) {
  const std::string path = WriteFloatingVariant(
      std::string(TERN_MODELS_DIR) + "/humanoid.urdf", "pelvis");
  MujocoCrossCheck check(path);
  check.Run(10);
  fs::remove(path);
}

}  // namespace
}  // namespace tern
