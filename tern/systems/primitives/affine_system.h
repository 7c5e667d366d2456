#pragma once
// AffineSystem: a linear time-invariant system with constant offsets.
//   continuous (time_period == 0):  xdot = A x + B u + f0,       y = C x + D u
//   + y0 discrete   (time_period  > 0):  x[n+1] = A x[n] + B u[n] + f0, y = C
//   x[n] + D u + y0
// The discrete form is a periodic discrete update of period time_period and
// offset 0: with the sample-and-hold semantics of DESIGN.md, x[n] is held on
// (n h, (n+1) h] after being computed from u(n h) at t = n h.
// Sizes: x (n), u (m), y (p); A (n x n), B (n x m), C (p x n), D (p x m).
// Input "u" exists only if m > 0 and output "y" only if p > 0. The output
// has direct feedthrough only if D has a nonzero entry; otherwise it depends
// on state alone, so feedback through it is not an algebraic loop.
// LinearSystem is the special case f0 = 0, y0 = 0.
#include <string>

#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class AffineSystem : public LeafSystem<T> {
 public:
  // Throws std::invalid_argument naming the matrix whose shape disagrees, or
  // if time_period is negative or not finite.
  AffineSystem(const MatrixX<double>& A, const MatrixX<double>& B,
               const VectorX<double>& f0, const MatrixX<double>& C,
               const MatrixX<double>& D, const VectorX<double>& y0,
               double time_period = 0.0);

  const MatrixX<double>& A() const { return A_; }
  const MatrixX<double>& B() const { return B_; }
  const VectorX<double>& f0() const { return f0_; }
  const MatrixX<double>& C() const { return C_; }
  const MatrixX<double>& D() const { return D_; }
  const VectorX<double>& y0() const { return y0_; }
  double time_period() const { return time_period_; }
  bool is_discrete() const { return time_period_ > 0; }
  int num_states() const { return static_cast<int>(A_.rows()); }
  int num_inputs() const { return static_cast<int>(B_.cols()); }
  int num_outputs() const { return static_cast<int>(C_.rows()); }

  // The state x in `context` (this system's context or a root containing
  // it), continuous or discrete as the system is.
  VectorX<T> get_state(const Context<T>& context) const;
  void set_state(Context<T>* context,
                 const Eigen::Ref<const VectorX<T>>& x) const;

  void DoCalcTimeDerivatives(const Context<T>& context,
                             Eigen::Ref<VectorX<T>> derivatives) const override;

 protected:
  AffineSystem(std::string name, const MatrixX<double>& A,
               const MatrixX<double>& B, const VectorX<double>& f0,
               const MatrixX<double>& C, const MatrixX<double>& D,
               const VectorX<double>& y0, double time_period);

 private:
  // State as a vector view, whether continuous or discrete.
  Eigen::Ref<const VectorX<T>> StateOf(const Context<T>& context) const;
  EventStatus Update(const Context<T>& context, DiscreteValues<T>* next) const;
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;

  MatrixX<double> A_, B_, C_, D_;
  VectorX<double> f0_, y0_;
  // The same as T, converted once so that no call converts.
  MatrixX<T> At_, Bt_, Ct_, Dt_;
  VectorX<T> f0t_, y0t_;
  double time_period_;
  bool has_feedthrough_;
};

// LinearSystem: AffineSystem with f0 = 0 and y0 = 0.
template <typename T>
class LinearSystem final : public AffineSystem<T> {
 public:
  LinearSystem(const MatrixX<double>& A, const MatrixX<double>& B,
               const MatrixX<double>& C, const MatrixX<double>& D,
               double time_period = 0.0);
};

}  // namespace tern
