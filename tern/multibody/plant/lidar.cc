#include "tern/multibody/plant/lidar.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace tern {

Lidar::Lidar(const RigidBodyTree<double>& tree, GeometryModel model,
             const std::string& body, const RigidTransform<double>& X_BS,
             int num_rays, double angle_min, double angle_max, double max_range,
             std::string name)
    : Sensor<double>(name, tree, num_rays > 0 ? num_rays : 1, true, false, 0),
      model_(std::move(model)),
      X_BS_(X_BS),
      max_range_(max_range) {
  if (!tree.HasBody(body)) {
    throw std::invalid_argument(
        fmt::format("Lidar '{}': body '{}' does not exist in tree '{}'", name,
                    body, tree.name()));
  }
  if (model_.num_bodies() != tree.num_bodies()) {
    throw std::invalid_argument(fmt::format(
        "Lidar '{}': the geometry model has {} bodies but tree '{}' has {}",
        name, model_.num_bodies(), tree.name(), tree.num_bodies()));
  }
  if (num_rays < 1 || !(angle_min <= angle_max) || !(max_range > 0) ||
      !std::isfinite(max_range)) {
    throw std::invalid_argument(fmt::format(
        "Lidar '{}': needs num_rays >= 1, angle_min <= angle_max and a "
        "finite max_range > 0; got {} rays, [{}, {}] rad, {} m",
        name, num_rays, angle_min, angle_max, max_range));
  }
  body_ = tree.FindBodyIndex(body);
  dirs_S_.resize(3, num_rays);
  for (int k = 0; k < num_rays; ++k) {
    const double a = num_rays == 1 ? angle_min
                                   : angle_min + (angle_max - angle_min) * k /
                                                     (num_rays - 1);
    dirs_S_.col(k) = Vector3<double>(std::cos(a), std::sin(a), 0);
  }
}

std::unique_ptr<AbstractValue> Lidar::MakeScratch() const {
  Workspace ws{GeometryWorkspace(model_), Matrix3X<double>(3, 1),
               Matrix3X<double>(3, dirs_S_.cols()),
               std::vector<RayHit>(dirs_S_.cols())};
  return std::make_unique<Value<Workspace>>(std::move(ws));
}

void Lidar::CalcOutput(const SensorInputs<double>& in, double* y) const {
  auto& ws = in.scratch->get_mutable_value<Workspace>();
  const KinematicsCache<double>& cache = *in.cache;
  UpdateGeometryPoses(model_, cache.X_WB, &ws.geometry);
  const RigidTransform<double> X_WS = cache.X_WB[body_] * X_BS_;
  ws.origins.col(0) = X_WS.p;
  ws.dirs.noalias() = X_WS.R * dirs_S_;
  CastRays(model_, ws.geometry, ws.origins, ws.dirs, max_range_, &ws.hits,
           body_);
  for (int k = 0; k < dirs_S_.cols(); ++k) {
    y[k] = ws.hits[k].hit ? ws.hits[k].distance : max_range_;
  }
}

}  // namespace tern
