#pragma once
// Small models for the discretization tests.
#include <cmath>

#include "tern/common/eigen_types.h"

namespace tern::test {

// xdot = A x + B u: a damped oscillator with a force input. LinearModel.
struct Oscillator {
  static constexpr int kNumStates = 2;
  static constexpr int kNumInputs = 1;
  double k{4.0};  // stiffness / mass, 1/s^2
  double c{0.3};  // damping / mass, 1/s

  Eigen::Matrix2d A() const {
    Eigen::Matrix2d a;
    a << 0, 1, -k, -c;
    return a;
  }
  Eigen::Vector2d B() const { return Eigen::Vector2d(0, 1); }

  template <class T>
  Vector<T, 2> Dynamics(const Vector<T, 2>& x, const Vector<T, 1>& u,
                        const T& /*t*/) const {
    Vector<T, 2> xdot;
    xdot(0) = x(1);
    xdot(1) = -k * x(0) - c * x(1) + u(0);
    return xdot;
  }

  void Jacobian(const Vector<double, 2>& /*x*/, const Vector<double, 1>& /*u*/,
                double /*t*/, Eigen::Matrix<double, 2, 3>* J) const {
    J->leftCols<2>() = A();
    J->col(2) = B();
  }
};

// Double integrator qddot = u: the LinearModel with the closed forms
// Ad = [1 dt; 0 1], Bd = [dt^2/2; dt].
struct DoubleIntegrator {
  static constexpr int kNumStates = 2;
  static constexpr int kNumInputs = 1;
  Eigen::Matrix2d A() const {
    return (Eigen::Matrix2d() << 0, 1, 0, 0).finished();
  }
  Eigen::Vector2d B() const { return Eigen::Vector2d(0, 1); }
  template <class T>
  Vector<T, 2> Dynamics(const Vector<T, 2>& x, const Vector<T, 1>& u,
                        const T& /*t*/) const {
    return Vector<T, 2>(x(1), u(0));
  }
};

// A chain of n pendulum-like states with run-time sizes and the in-place
// form: xdot_i = -sin(x_i) + x_{i+1} (x_n := u_0) + t u_1.
struct PendulumChain {
  Eigen::Index n{3};
  Eigen::Index num_states() const { return n; }
  Eigen::Index num_inputs() const { return 2; }
  std::string name() const { return "PendulumChain"; }

  template <class T>
  void Dynamics(const VectorX<T>& x, const VectorX<T>& u, const T& t,
                VectorX<T>* xdot) const {
    using std::sin;
    for (Eigen::Index i = 0; i < n; ++i) {
      const T next = i + 1 < n ? x(i + 1) : u(0);
      (*xdot)(i) = -sin(x(i)) + next + t * u(1);
    }
  }
};

// A model given directly in discrete time (for PassThrough):
// x' = x + dt (u - x^3).
struct CubicMap {
  static constexpr int kNumStates = 1;
  static constexpr int kNumInputs = 1;
  template <class T>
  Vector<T, 1> Dynamics(const Vector<T, 1>& x, const Vector<T, 1>& u,
                        const T& /*t*/) const {
    return Vector<T, 1>(u(0) - x(0) * x(0) * x(0));
  }
  template <class T>
  Vector<T, 1> DiscreteDynamics(const Vector<T, 1>& x, const Vector<T, 1>& u,
                                const T& /*t*/, const T& dt) const {
    return Vector<T, 1>(x(0) + dt * (u(0) - x(0) * x(0) * x(0)));
  }
};

}  // namespace tern::test
