#pragma once
// KnotPoint: one sample of a trajectory as trajectory optimizers store it,
// the state and input in one contiguous vector z = [x; u] (n + m) plus the
// time t and the step dt to the next knot point. Fixed-size when Nx and Nu
// are; no heap allocation then.
#include <fmt/format.h>

#include <stdexcept>

#include "tern/common/eigen_types.h"
#include "tern/systems/analysis/model.h"

namespace tern {

template <int Nx, int Nu, typename T = double>
class KnotPoint {
 public:
  static constexpr int kNumZ =
      (Nx == Eigen::Dynamic || Nu == Eigen::Dynamic) ? Eigen::Dynamic : Nx + Nu;
  using ZVector = Vector<T, kNumZ>;

  // Zero knot point (run-time sizes n, m; ignored when fixed).
  explicit KnotPoint(Eigen::Index n = Nx > 0 ? Nx : 0,
                     Eigen::Index m = Nu > 0 ? Nu : 0)
      : z_(ZVector::Zero(n + m)), num_states_(n) {}

  // From state x (n), input u (m), time t and step dt.
  template <class XD, class UD>
  KnotPoint(const Eigen::MatrixBase<XD>& x, const Eigen::MatrixBase<UD>& u,
            const T& t, const T& dt)
      : z_(CheckedZ(x.size(), u.size())),
        num_states_(x.size()),
        t_(t),
        dt_(dt) {
    z_.head(x.size()) = x;
    z_.tail(u.size()) = u;
  }

  Eigen::Index num_states() const { return num_states_; }
  Eigen::Index num_inputs() const { return z_.size() - num_states_; }

  // z = [x; u] (n + m).
  const ZVector& z() const { return z_; }
  ZVector& mutable_z() { return z_; }

  // State x (n) and input u (m), views into z.
  auto x() const {
    if constexpr (Nx != Eigen::Dynamic && kNumZ != Eigen::Dynamic) {
      return z_.template head<Nx>();
    } else {
      return z_.head(num_states_);
    }
  }
  auto x() {
    if constexpr (Nx != Eigen::Dynamic && kNumZ != Eigen::Dynamic) {
      return z_.template head<Nx>();
    } else {
      return z_.head(num_states_);
    }
  }
  auto u() const {
    if constexpr (Nu != Eigen::Dynamic && kNumZ != Eigen::Dynamic) {
      return z_.template tail<Nu>();
    } else {
      return z_.tail(num_inputs());
    }
  }
  auto u() {
    if constexpr (Nu != Eigen::Dynamic && kNumZ != Eigen::Dynamic) {
      return z_.template tail<Nu>();
    } else {
      return z_.tail(num_inputs());
    }
  }

  const T& t() const { return t_; }
  const T& dt() const { return dt_; }
  void set_t(const T& t) { t_ = t; }
  void set_dt(const T& dt) { dt_ = dt; }

 private:
  static ZVector CheckedZ(Eigen::Index n, Eigen::Index m) {
    if ((Nx != Eigen::Dynamic && n != Nx) ||
        (Nu != Eigen::Dynamic && m != Nu)) {
      throw std::invalid_argument(fmt::format(
          "KnotPoint: x has size {} and u has size {} but the knot point is "
          "fixed at {} and {}",
          n, m, Nx, Nu));
    }
    return ZVector::Zero(n + m);
  }

  ZVector z_;                // (n + m) [x; u]
  Eigen::Index num_states_;  // n
  T t_{0};                   // s, time of the knot point
  T dt_{0};                  // s, step to the next knot point
};

// The knot point type of model M.
template <class M, typename T = double>
using KnotPointOf = KnotPoint<kNumStatesOf<M>, kNumInputsOf<M>, T>;

}  // namespace tern
