#include "bench/rigid_body/pinocchio_side.h"

#include <benchmark/benchmark.h>

#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/multibody/data.hpp>
#include <pinocchio/multibody/model.hpp>
#include <random>
#include <vector>

namespace tern::bench {
namespace {

pinocchio::SE3 ToSE3(const RigidTransform<double>& X) {
  return pinocchio::SE3(X.R, X.p);
}

// The same bodies as `tree`: a joint per moving body, welded bodies folded
// into their carrier as Tern folds them (inertia_with_welded), joint
// placements composed through them.
pinocchio::Model BuildModel(const RigidBodyTree<double>& tree) {
  pinocchio::Model model;
  model.gravity.linear(tree.gravity());
  const int nb = tree.num_bodies();
  std::vector<pinocchio::JointIndex> joint(nb, 0);
  std::vector<pinocchio::SE3> X_JB(nb, pinocchio::SE3::Identity());
  for (int i = 1; i < nb; ++i) {
    const RigidBody<double>& b = tree.body(i);
    const pinocchio::SE3 placement = X_JB[b.parent] * ToSE3(b.joint.X_PJ);
    const pinocchio::JointIndex pj = joint[b.parent];
    pinocchio::JointIndex j = 0;
    const Vector3<double> a = b.joint.axis;
    switch (b.joint.type) {
      case JointType::kFixed:
        joint[i] = pj;
        X_JB[i] = placement;
        continue;
      case JointType::kRevolute:
        if (b.axis_index == 0 && b.axis_sign > 0) {
          j = model.addJoint(pj, pinocchio::JointModelRX(), placement,
                             b.joint.name);
        } else if (b.axis_index == 1 && b.axis_sign > 0) {
          j = model.addJoint(pj, pinocchio::JointModelRY(), placement,
                             b.joint.name);
        } else if (b.axis_index == 2 && b.axis_sign > 0) {
          j = model.addJoint(pj, pinocchio::JointModelRZ(), placement,
                             b.joint.name);
        } else {
          j = model.addJoint(pj, pinocchio::JointModelRevoluteUnaligned(a),
                             placement, b.joint.name);
        }
        break;
      case JointType::kPrismatic:
        j = model.addJoint(pj, pinocchio::JointModelPrismaticUnaligned(a),
                           placement, b.joint.name);
        break;
      case JointType::kFloating:
        j = model.addJoint(pj, pinocchio::JointModelFreeFlyer(), placement,
                           b.joint.name);
        break;
      case JointType::kBall:
        j = model.addJoint(pj, pinocchio::JointModelSpherical(), placement,
                           b.joint.name);
        break;
      case JointType::kPlanar:
        j = model.addJoint(pj, pinocchio::JointModelPlanar(), placement,
                           b.joint.name);
        break;
    }
    const SpatialInertia<double>& M = b.inertia_with_welded;
    const Vector3<double> c =
        M.m > 0 ? Vector3<double>(M.h / M.m) : Vector3<double>::Zero();
    const Matrix3<double> Ic =
        M.I - M.m * (c.squaredNorm() * Matrix3<double>::Identity() -
                     c * c.transpose());
    model.appendBodyToJoint(j, pinocchio::Inertia(M.m, c, Ic),
                            pinocchio::SE3::Identity());
    joint[i] = j;
  }
  return model;
}

}  // namespace

void RegisterPinocchio(const std::string& prefix,
                       const RigidBodyTree<double>& tree, int pool) {
  auto* model = new pinocchio::Model(BuildModel(tree));
  // Random states in Pinocchio's own coordinates (unit quaternions).
  auto* states = new std::vector<Eigen::VectorXd>();
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  for (int k = 0; k < pool; ++k) {
    Eigen::VectorXd q(model->nq), v(model->nv), a(model->nv);
    for (int i = 0; i < model->nq; ++i) q(i) = s(gen);
    for (int i = 0; i < model->nv; ++i) v(i) = s(gen), a(i) = s(gen);
    for (pinocchio::JointIndex j = 1; j < model->joints.size(); ++j) {
      const auto& jm = model->joints[j];
      if (jm.shortname() == "JointModelFreeFlyer") {
        q.segment<4>(jm.idx_q() + 3).normalize();
      } else if (jm.shortname() == "JointModelSpherical") {
        q.segment<4>(jm.idx_q()).normalize();
      } else if (jm.shortname() == "JointModelPlanar") {
        q.segment<2>(jm.idx_q() + 2).normalize();
      }
    }
    states->push_back(q);
    states->push_back(v);
    states->push_back(a);
  }
  auto loop = [model, states, pool](int what) {
    return [model, states, pool, what](benchmark::State& st) {
      pinocchio::Data data(*model);
      int k = 0;
      for (auto _ : st) {
        const auto& q = (*states)[3 * k];
        const auto& v = (*states)[3 * k + 1];
        const auto& a = (*states)[3 * k + 2];
        if (what == 2) {
          pinocchio::crba(*model, data, q);
          benchmark::DoNotOptimize(data.M.data());
        } else if (what == 1) {
          pinocchio::computeABADerivatives(*model, data, q, v, a);
          benchmark::DoNotOptimize(data.ddq_dq.data());
        } else {
          pinocchio::computeRNEADerivatives(*model, data, q, v, a);
          benchmark::DoNotOptimize(data.dtau_dq.data());
        }
        k = (k + 1) % pool;
      }
    };
  };
  benchmark::RegisterBenchmark((prefix + "rnea/pinocchio").c_str(), loop(0));
  benchmark::RegisterBenchmark((prefix + "aba/pinocchio").c_str(), loop(1));
  benchmark::RegisterBenchmark((prefix + "crba/pinocchio").c_str(), loop(2));
}

}  // namespace tern::bench
