#include "tern/multibody/plant/actuator_system.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/multibody/plant/element_scratch.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

template <typename T>
ActuatorSystem<T>::ActuatorSystem(const RigidBodyTree<T>& tree,
                                  std::shared_ptr<const Actuator<T>> actuator)
    : LeafSystem<T>(actuator ? actuator->name() : "actuator"),
      tree_(tree),
      actuator_(std::move(actuator)) {
  if (!actuator_) {
    throw std::invalid_argument("ActuatorSystem: the actuator is null");
  }
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  internal::CheckElementSizes("Actuator", actuator_->name(),
                              actuator_->num_positions(),
                              actuator_->num_velocities(), nq, nv);
  if (actuator_->num_states() > 0) {
    this->DeclareContinuousState(actuator_->DefaultState(), 0, 0);
  }
  this->DeclareAbstractParameter(Value<internal::ForceElementSlot<T>>(
      internal::MakeElementSlot(tree_, *actuator_)));
  this->DeclareVectorInputPort("state", nq + nv);
  if (actuator_->num_inputs() > 0) {
    this->DeclareVectorInputPort("command", actuator_->num_inputs());
  }
  this->DeclareVectorOutputPort("generalized_force", nv,
                                &ActuatorSystem::CalcForce);
}

template <typename T>
ActuatorSystem<T>::~ActuatorSystem() = default;

template <typename T>
ForceElementInputs<T> ActuatorSystem<T>::PrepareInputs(
    const Context<T>& context) const {
  auto& s = internal::WrapperScratch(context);
  internal::ReadStateInput(*this, context, &s);
  if (actuator_->needs_kinematics()) {
    ForwardKinematics(tree_, &s.cache, s.q, s.v);
  }
  ForceElementInputs<T> in;
  in.tree = &tree_;
  in.cache = &s.cache;
  in.q = &s.q;
  in.v = &s.v;
  in.J = &s.J;
  in.scratch = s.element.get(0);
  in.u = actuator_->num_inputs() > 0
             ? this->get_input_port(1).Eval(context).data()
             : nullptr;
  in.z = actuator_->num_states() > 0
             ? context.get_continuous_state_vector().data()
             : nullptr;
  return in;
}

template <typename T>
void ActuatorSystem<T>::CalcForce(const Context<T>& context,
                                  VectorX<T>* tau) const {
  actuator_->CalcGeneralizedForce(PrepareInputs(context), tau);
}

template <typename T>
void ActuatorSystem<T>::DoCalcTimeDerivatives(
    const Context<T>& context, Eigen::Ref<VectorX<T>> derivatives) const {
  if (actuator_->num_states() == 0) return;
  actuator_->CalcStateDerivatives(PrepareInputs(context), derivatives.data());
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(ActuatorSystem)

}  // namespace tern
