#pragma once
// ActuatorSystem: one Actuator (actuator.h) as a System of its own, for use
// by ports in a Diagram (the seed's "signal abstraction"): input "state"
// [q; v] (nq + nv), input "command" (the actuator's num_inputs, only if it
// has any), continuous state z (num_states, only if any), output
// "generalized_force" tau (nv). It calls the same CalcGeneralizedForce as a
// plant does, with a KinematicsCache of its own (per Context), so a plant
// driven through its "applied_generalized_force" input by ActuatorSystems
// (summed by an Adder in actuator order) computes the same numbers as the
// plant with the actuators inside.
#include <memory>

#include "tern/common/default_scalars.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class ActuatorSystem final : public LeafSystem<T> {
 public:
  // `tree` is copied; throws std::invalid_argument naming the actuator if it
  // is null or was built for a tree of other sizes.
  ActuatorSystem(const RigidBodyTree<T>& tree,
                 std::shared_ptr<const Actuator<T>> actuator);
  ~ActuatorSystem() override;
  const Actuator<T>& actuator() const { return *actuator_; }

 private:
  struct Impl;
  // The actuator's inputs from the wrapper's own cache, after forward
  // kinematics of the "state" input if the actuator needs it.
  ForceElementInputs<T> PrepareInputs(const Context<T>& context) const;
  void CalcForce(const Context<T>& context, VectorX<T>* tau) const;
  void DoCalcTimeDerivatives(const Context<T>& context,
                             Eigen::Ref<VectorX<T>> derivatives) const override;

  RigidBodyTree<T> tree_;
  std::shared_ptr<const Actuator<T>> actuator_;
};

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(ActuatorSystem)

}  // namespace tern
