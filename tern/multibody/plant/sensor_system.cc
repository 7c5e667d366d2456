#include "tern/multibody/plant/sensor_system.h"

#include "tern/multibody/plant/element_scratch.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {

template <typename T>
SensorSystem<T>::SensorSystem(const RigidBodyTree<T>& tree,
                              std::shared_ptr<const Sensor<T>> sensor)
    : LeafSystem<T>(sensor ? sensor->name() : "sensor"),
      tree_(tree),
      sensor_(std::move(sensor)) {
  if (!sensor_) {
    throw std::invalid_argument("SensorSystem: the sensor is null");
  }
  const int nq = tree_.num_positions();
  const int nv = tree_.num_velocities();
  internal::CheckElementSizes("Sensor", sensor_->name(),
                              sensor_->num_positions(),
                              sensor_->num_velocities(), nq, nv);
  this->DeclareAbstractParameter(Value<internal::ForceElementSlot<T>>(
      internal::MakeElementSlot(tree_, *sensor_)));
  this->DeclareVectorInputPort("state", nq + nv);
  if (sensor_->needs_acceleration()) {
    vdot_port_ = this->DeclareVectorInputPort("vdot", nv).get_index();
  }
  if (sensor_->num_noise_inputs() > 0) {
    noise_port_ =
        this->DeclareVectorInputPort("noise", sensor_->num_noise_inputs(),
                                     RandomDistribution::kGaussian)
            .get_index();
  }
  this->DeclareVectorOutputPort("y", sensor_->num_outputs(),
                                &SensorSystem::CalcReading);
}

template <typename T>
SensorSystem<T>::~SensorSystem() = default;

template <typename T>
void SensorSystem<T>::CalcReading(const Context<T>& context,
                                  VectorX<T>* y) const {
  auto& s = internal::WrapperScratch(context);
  internal::ReadStateInput(*this, context, &s);
  if (vdot_port_ >= 0) s.vdot = this->get_input_port(vdot_port_).Eval(context);
  internal::ReadSensor(
      tree_, *sensor_, s.q, s.v, vdot_port_ >= 0 ? &s.vdot : nullptr,
      noise_port_ >= 0 ? this->get_input_port(noise_port_).Eval(context).data()
                       : nullptr,
      &s.cache, &s.J, s.element.get(0), y->data());
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(SensorSystem)

}  // namespace tern
