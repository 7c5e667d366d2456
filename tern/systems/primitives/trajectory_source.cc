#include "tern/systems/primitives/trajectory_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tern {

TrajectorySource::TrajectorySource(std::vector<double> times,
                                   std::vector<std::vector<double>> knots)
    : LeafSystem<double>("trajectory_source"),
      times_(std::move(times)),
      knots_(std::move(knots)) {
  if (times_.empty() || times_.size() != knots_.size()) {
    throw std::invalid_argument(fmt::format(
        "TrajectorySource: {} times and {} knots; needs one time per knot "
        "and at least one knot",
        times_.size(), knots_.size()));
  }
  n_ = static_cast<int>(knots_.front().size());
  if (n_ == 0) {
    throw std::invalid_argument("TrajectorySource: knot 0 is empty");
  }
  for (std::size_t k = 0; k < times_.size(); ++k) {
    if (static_cast<int>(knots_[k].size()) != n_) {
      throw std::invalid_argument(
          fmt::format("TrajectorySource: knot {} has {} entries but knot 0 "
                      "has {}",
                      k, knots_[k].size(), n_));
    }
    if (!std::isfinite(times_[k]) || (k > 0 && !(times_[k] > times_[k - 1]))) {
      throw std::invalid_argument(fmt::format(
          "TrajectorySource: knot {} at t = {} s; times must be finite and "
          "strictly increasing",
          k, times_[k]));
    }
  }
  this->DeclareVectorOutputPort(
      "desired_state", 2 * n_,
      [this](const Context<double>& c, VectorX<double>* y) {
        CalcDesiredState(c, y);
      },
      ticket::kTime);
}

void TrajectorySource::CalcDesiredState(const Context<double>& context,
                                        VectorX<double>* y) const {
  const double t = context.get_time();
  const auto k =
      std::upper_bound(times_.begin(), times_.end(), t) - times_.begin();
  y->setZero();
  if (k == 0 || k == static_cast<long>(times_.size())) {
    const std::vector<double>& q = k == 0 ? knots_.front() : knots_.back();
    for (int i = 0; i < n_; ++i) (*y)[i] = q[i];
    return;
  }
  const double t0 = times_[k - 1], t1 = times_[k];
  const double s = (t - t0) / (t1 - t0);
  for (int i = 0; i < n_; ++i) {
    const double q0 = knots_[k - 1][i], q1 = knots_[k][i];
    (*y)[i] = q0 + s * (q1 - q0);
    (*y)[n_ + i] = (q1 - q0) / (t1 - t0);
  }
}

}  // namespace tern
