#include "tern/multibody/plant/mjcf_elements.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/multibody/plant/joint_lookup.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

template <typename T>
JointSpring<T>::JointSpring(const RigidBodyTree<T>& tree,
                            const std::vector<std::string>& joints,
                            const std::vector<double>& stiffness,
                            const std::vector<double>& reference,
                            std::string name)
    : Actuator<T>(name, tree, 0, 0, false), k_(stiffness), ref_(reference) {
  const std::string who = "JointSpring '" + name + "'";
  if (stiffness.size() != joints.size() || reference.size() != joints.size()) {
    throw std::invalid_argument(
        fmt::format("{}: {} joints but {} stiffnesses and {} references", who,
                    joints.size(), stiffness.size(), reference.size()));
  }
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const std::string& joint = joints[i];
    const RigidBody<T>& b = internal::FindSingleDofJoint(
        tree, who, joint, "a spring needs a single-dof joint");
    if (!(stiffness[i] >= 0) || !std::isfinite(stiffness[i]) ||
        !std::isfinite(reference[i])) {
      throw std::invalid_argument(fmt::format(
          "{}: joint '{}' has stiffness {} and reference {} (need a finite "
          "stiffness >= 0 and a finite reference)",
          who, joint, stiffness[i], reference[i]));
    }
    dofs_.push_back(b.velocity_start);
    qs_.push_back(b.position_start);
  }
}

template <typename T>
void JointSpring<T>::CalcGeneralizedForce(const ForceElementInputs<T>& in,
                                          VectorX<T>* tau) const {
  tau->setZero();
  const VectorX<T>& q = *in.q;
  for (std::size_t i = 0; i < dofs_.size(); ++i) {
    (*tau)(dofs_[i]) = -k_[i] * (q(qs_[i]) - ref_[i]);
  }
}

std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeMjcfEqualityConstraints(const MjcfModel& model, BaumgarteGains gains) {
  std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>> out;
  const RigidBodyTree<double>& tree = model.tree;
  if (model.equalities.empty()) return out;
  // Poses in qpos0, where MuJoCo takes what the file leaves implicit.
  KinematicsCache<double> cache(tree);
  const VectorX<double> q0 = model.qpos0.size() == tree.num_positions()
                                 ? model.qpos0
                                 : tree.GetZeroConfiguration();
  ForwardKinematics(tree, &cache, q0);
  for (const MjcfEquality& e : model.equalities) {
    if (!e.active) continue;
    const int b1 = tree.FindBodyIndex(e.body1);
    const int b2 = tree.FindBodyIndex(e.body2);
    const RigidTransform<double>& X_W1 = cache.X_WB[b1];
    const RigidTransform<double>& X_W2 = cache.X_WB[b2];
    if (e.type == MjcfEquality::Type::kConnect) {
      const Vector3<double> p_W = X_W1 * e.anchor;
      const Vector3<double> p_2 = X_W2.inverse() * p_W;
      out.push_back(std::make_shared<PointToPointConstraint<double>>(
          tree, e.body1, e.anchor, e.body2, p_2, gains, e.name));
    } else {
      const RigidTransform<double> X_12 =
          e.has_relpose ? e.relpose : X_W1.inverse() * X_W2;
      // Frame G at the anchor in body 2, frame F the same frame in body 1.
      const RigidTransform<double> X_2G(Matrix3<double>::Identity(), e.anchor);
      out.push_back(std::make_shared<WeldConstraint<double>>(
          tree, e.body1, X_12 * X_2G, e.body2, X_2G, gains, e.name));
    }
  }
  return out;
}

std::shared_ptr<const Actuator<double>> MakeMjcfJointSprings(
    const MjcfModel& model) {
  if (model.springs.empty()) return nullptr;
  std::vector<std::string> joints;
  std::vector<double> k, ref;
  for (const MjcfJointSpring& s : model.springs) {
    joints.push_back(s.joint);
    k.push_back(s.stiffness);
    ref.push_back(s.springref);
  }
  return std::make_shared<JointSpring<double>>(model.tree, joints, k, ref);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(JointSpring)

}  // namespace tern
