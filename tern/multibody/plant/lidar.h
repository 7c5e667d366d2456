#pragma once
// Lidar: a planar scan of `num_rays` rays cast against the geometry from a
// sensor frame S fixed in a body at X_BS. Ray k leaves S's origin along
// (cos a_k, sin a_k, 0) in S, a_k spread evenly over [angle_min,
// angle_max] (rad, both ends included). Output (num_rays): the distance to
// the first hit, m, or max_range on a miss; the sensor's own body is
// ignored. Rays are cast with CastRays on a GeometryWorkspace kept per
// Context (MakeScratch). Double only: the geometry layer works in double.
#include <memory>
#include <string>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/plant/sensor.h"

namespace tern {

class Lidar final : public Sensor<double> {
 public:
  // Throws std::invalid_argument naming the sensor if the body is missing,
  // the model was built for another number of bodies, num_rays < 1,
  // angle_min > angle_max or max_range is not positive and finite.
  Lidar(const RigidBodyTree<double>& tree, GeometryModel model,
        const std::string& body, const RigidTransform<double>& X_BS,
        int num_rays, double angle_min, double angle_max, double max_range,
        std::string name = "lidar");
  void CalcOutput(const SensorInputs<double>& in, double* y) const override;
  std::unique_ptr<AbstractValue> MakeScratch() const override;

 private:
  struct Workspace {
    GeometryWorkspace geometry;
    Matrix3X<double> origins, dirs;  // (3 x 1), (3 x num_rays), world
    std::vector<RayHit> hits;        // (num_rays)
  };
  GeometryModel model_;
  int body_;
  RigidTransform<double> X_BS_;
  Matrix3X<double> dirs_S_;  // (3 x num_rays) unit directions in S
  double max_range_;
};

}  // namespace tern
