#include "tern/multibody/plant/mjcf_elements.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/multibody/plant/joint_lookup.h"

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
MakeEqualityConstraints(const RigidBodyTree<double>& tree,
                        const std::vector<EqualityConstraintSpec>& specs,
                        BaumgarteGains gains) {
  std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>> out;
  for (const EqualityConstraintSpec& c : specs) {
    for (const std::string& b : {c.body1, c.body2}) {
      if (!tree.HasBody(b)) {
        throw std::invalid_argument(
            fmt::format("constraint '{}': no body '{}' in tree '{}'", c.name, b,
                        tree.name()));
      }
    }
    if (c.type == EqualityConstraintSpec::Type::kPoint) {
      out.push_back(std::make_shared<PointToPointConstraint<double>>(
          tree, c.body1, c.X_1F.p, c.body2, c.X_2G.p, gains, c.name));
    } else {
      out.push_back(std::make_shared<WeldConstraint<double>>(
          tree, c.body1, c.X_1F, c.body2, c.X_2G, gains, c.name));
    }
  }
  return out;
}

std::shared_ptr<const Actuator<double>> MakeJointSprings(
    const RigidBodyTree<double>& tree,
    const std::vector<JointSpringSpec>& specs, const std::string& name) {
  if (specs.empty()) return nullptr;
  std::vector<std::string> joints;
  std::vector<double> k, ref;
  for (const JointSpringSpec& s : specs) {
    joints.push_back(s.joint);
    k.push_back(s.stiffness);
    ref.push_back(s.reference);
  }
  return std::make_shared<JointSpring<double>>(tree, joints, k, ref, name);
}

std::vector<std::shared_ptr<const ContinuousTimeConstraintForce<double>>>
MakeMjcfEqualityConstraints(const MjcfModel& model, BaumgarteGains gains) {
  return MakeEqualityConstraints(model.tree, ResolveMjcfEqualities(model),
                                 gains);
}

std::shared_ptr<const Actuator<double>> MakeMjcfJointSprings(
    const MjcfModel& model) {
  return MakeJointSprings(model.tree, model.springs);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(JointSpring)

}  // namespace tern
