#pragma once
// TrajectorySource: the desired state [q_d(t); v_d(t)] (2n) of a
// piecewise-linear trajectory through knots (t_k, q_k): q_d interpolates the
// knots linearly and v_d is the slope of the current segment; before the
// first knot and after the last, q_d holds the end knot and v_d is zero. A
// time-based source for a PidController's desired-state input (the
// scenario controllers' `trajectory`). Output "desired_state" depends only
// on time.
#include <vector>

#include "tern/systems/framework/leaf_system.h"

namespace tern {

class TrajectorySource final : public LeafSystem<double> {
 public:
  // `times` (K >= 1), strictly increasing and finite, s; `knots`: K vectors
  // of the same size n >= 1. Throws std::invalid_argument naming the knot
  // at fault.
  TrajectorySource(std::vector<double> times,
                   std::vector<std::vector<double>> knots);

  int num_coordinates() const { return n_; }

 private:
  void CalcDesiredState(const Context<double>& context,
                        VectorX<double>* y) const;

  std::vector<double> times_;               // (K) knot times, s
  std::vector<std::vector<double>> knots_;  // (K) x (n) knot positions
  int n_{0};
};

}  // namespace tern
