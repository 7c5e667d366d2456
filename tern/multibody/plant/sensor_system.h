#pragma once
// SensorSystem: one Sensor (sensor.h) as a System of its own: input "state"
// [q; v] (nq + nv), input "vdot" (nv) if the sensor needs accelerations
// (wire it to RigidBodySystem's "generalized_acceleration" output), a random
// Gaussian input "noise" if the sensor is noisy, and output "y". It calls
// the same CalcOutput as a plant does, with a KinematicsCache of its own,
// so its reading equals the in-plant sensor's bit for bit.
#include <memory>

#include "tern/common/default_scalars.h"
#include "tern/multibody/plant/sensor.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class SensorSystem final : public LeafSystem<T> {
 public:
  // `tree` is copied; throws std::invalid_argument naming the sensor if it
  // is null or was built for a tree of other sizes.
  SensorSystem(const RigidBodyTree<T>& tree,
               std::shared_ptr<const Sensor<T>> sensor);
  ~SensorSystem() override;
  const Sensor<T>& sensor() const { return *sensor_; }

 private:
  struct Impl;
  void CalcReading(const Context<T>& context, VectorX<T>* y) const;

  RigidBodyTree<T> tree_;
  std::shared_ptr<const Sensor<T>> sensor_;
  int vdot_port_{-1};
  int noise_port_{-1};
};

TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(SensorSystem)

}  // namespace tern
