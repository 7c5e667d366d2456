#pragma once
// Small standard models in the model.h form, used by tests, examples and
// benchmarks of discretization: a cart-pole and a quadrotor. Each gives its
// dynamics as a template over the scalar and its analytic Jacobian.
#include <cassert>
#include <cmath>

#include "tern/common/autodiff.h"
#include "tern/common/eigen_types.h"
#include "tern/math/sin_cos.h"

namespace tern::examples {

// Cart-pole: a cart on a rail pushed by a horizontal force, carrying a pole
// on a frictionless pin (Tedrake, Underactuated Robotics, ch. 3).
// x = [p, theta, pdot, thetadot] (m, rad, m/s, rad/s), theta = 0 hanging
// down, pi upright; u = [force] (N).
struct Cartpole {
  static constexpr int kNumStates = 4;
  static constexpr int kNumInputs = 1;
  double mc{1.0};  // kg, cart mass
  double mp{0.2};  // kg, pole mass (point mass at the tip)
  double l{0.5};   // m, pole length
  double g{9.81};  // m/s^2

  const char* name() const { return "Cartpole"; }

  template <class T>
  Vector<T, 4> Dynamics(const Vector<T, 4>& x, const Vector<T, 1>& u,
                        const T& /*t*/) const {
    T s, c;
    SinCos(x(1), &s, &c);
    const T w2 = x(3) * x(3);
    const T inv_d = 1.0 / (mc + mp * s * s);
    Vector<T, 4> xdot;
    xdot(0) = x(2);
    xdot(1) = x(3);
    xdot(2) = (u(0) + mp * s * (l * w2 + g * c)) * inv_d;
    // One division per call (1 / l does not depend on the state), and one
    // multiplication after it: theta's next stage waits on xdot(3).
    xdot(3) =
        ((-(mc + mp) * g * s - c * (u(0) + mp * l * s * w2)) * (1.0 / l)) *
        inv_d;
    return xdot;
  }

  // [df/dx df/du] (4 x 5).
  void Jacobian(const Vector<double, 4>& x, const Vector<double, 1>& u,
                double /*t*/, Eigen::Matrix<double, 4, 5>* J) const {
    double s, c;
    SinCos(x(1), &s, &c);
    const double w = x(3);
    const double w2 = w * w;
    const double d = mc + mp * s * s;
    const double dd = 2 * mp * s * c;  // d(d)/dtheta
    const double n1 = u(0) + mp * s * (l * w2 + g * c);
    const double n1_th = mp * (c * l * w2 + g * (c * c - s * s));
    const double n2 = -(mc + mp) * g * s - c * (u(0) + mp * l * s * w2);
    const double n2_th =
        -(mc + mp) * g * c + s * u(0) - mp * l * w2 * (c * c - s * s);
    J->setZero();
    (*J)(0, 2) = 1;
    (*J)(1, 3) = 1;
    (*J)(2, 1) = (n1_th * d - n1 * dd) / (d * d);
    (*J)(2, 3) = 2 * mp * s * l * w / d;
    (*J)(2, 4) = 1 / d;
    (*J)(3, 1) = (n2_th * d - n2 * dd) / (l * d * d);
    (*J)(3, 3) = -2 * mp * l * s * c * w / (l * d);
    (*J)(3, 4) = -c / (l * d);
  }
};

// Quadrotor with four rotors in a plus configuration (Mellinger & Kumar,
// ICRA 2011). x = [r (3, m, world), q (4, unit quaternion w, x, y, z, body
// to world), v (3, m/s, world), omega (3, rad/s, body)]; u = squared rotor
// speeds scaled so each rotor's thrust is kf u_i (N) and drag torque km u_i.
struct Quadrotor {
  static constexpr int kNumStates = 13;
  static constexpr int kNumInputs = 4;
  double mass{0.5};                                // kg
  Eigen::Vector3d inertia{0.0023, 0.0023, 0.004};  // kg m^2, principal
  double arm{0.175};                               // m
  double kf{1.0};                                  // N per unit input
  double km{0.0245};                               // N m per unit input
  double g{9.81};                                  // m/s^2

  const char* name() const { return "Quadrotor"; }

  template <class T>
  Vector<T, 13> Dynamics(const Vector<T, 13>& x, const Vector<T, 4>& u,
                         const T& /*t*/) const {
    // References, not copies: a dual number's copy moves its whole gradient.
    const T &qw = x(3), &qx = x(4), &qy = x(5), &qz = x(6);
    const T &wx = x(10), &wy = x(11), &wz = x(12);
    const T thrust = kf * (u(0) + u(1) + u(2) + u(3));
    Vector<T, 13> xdot;
    xdot.template head<3>() = x.template segment<3>(7);
    // qdot = q (x) [0; omega] / 2.
    xdot(3) = 0.5 * (-qx * wx - qy * wy - qz * wz);
    xdot(4) = 0.5 * (qw * wx + qy * wz - qz * wy);
    xdot(5) = 0.5 * (qw * wy + qz * wx - qx * wz);
    xdot(6) = 0.5 * (qw * wz + qx * wy - qy * wx);
    // vdot = R(q) e3 thrust / m - g e3.
    const T a = thrust / mass;
    xdot(7) = a * 2.0 * (qx * qz + qw * qy);
    xdot(8) = a * 2.0 * (qy * qz - qw * qx);
    xdot(9) = a * (qw * qw - qx * qx - qy * qy + qz * qz) - g;
    // omegadot = J^-1 (tau - omega x J omega).
    const T tx = arm * kf * (u(1) - u(3));
    const T ty = arm * kf * (u(2) - u(0));
    const T tz = km * (u(0) - u(1) + u(2) - u(3));
    const double jx = inertia(0), jy = inertia(1), jz = inertia(2);
    xdot(10) = (tx - (jz - jy) * wy * wz) / jx;
    xdot(11) = (ty - (jx - jz) * wz * wx) / jy;
    xdot(12) = (tz - (jy - jx) * wx * wy) / jz;
    return xdot;
  }

  // [df/dx df/du] (13 x 17).
  void Jacobian(const Vector<double, 13>& x, const Vector<double, 4>& u,
                double /*t*/, Eigen::Matrix<double, 13, 17>* J) const {
    const double qw = x(3), qx = x(4), qy = x(5), qz = x(6);
    const double wx = x(10), wy = x(11), wz = x(12);
    const double thrust = kf * (u(0) + u(1) + u(2) + u(3));
    const double a = thrust / mass;
    const double jx = inertia(0), jy = inertia(1), jz = inertia(2);
    J->setZero();
    J->block<3, 3>(0, 7).setIdentity();
    // d qdot / dq = [0 -w^T; w -[w]x] / 2.
    Eigen::Matrix4d dq;
    dq << 0, -wx, -wy, -wz,  //
        wx, 0, wz, -wy,      //
        wy, -wz, 0, wx,      //
        wz, wy, -wx, 0;
    J->block<4, 4>(3, 3) = 0.5 * dq;
    // d qdot / d omega = [-v^T; qw I + [v]x] / 2.
    Eigen::Matrix<double, 4, 3> dw;
    dw << -qx, -qy, -qz,  //
        qw, -qz, qy,      //
        qz, qw, -qx,      //
        -qy, qx, qw;
    J->block<4, 3>(3, 10) = 0.5 * dw;
    // d vdot / dq and d vdot / du.
    Eigen::Matrix<double, 3, 4> dr;
    dr << qy, qz, qw, qx,  //
        -qx, -qw, qz, qy,  //
        qw, -qx, -qy, qz;
    J->block<3, 4>(7, 3) = 2 * a * dr;
    const Eigen::Vector3d re3(2 * (qx * qz + qw * qy), 2 * (qy * qz - qw * qx),
                              qw * qw - qx * qx - qy * qy + qz * qz);
    for (int i = 0; i < 4; ++i) J->block<3, 1>(7, 13 + i) = re3 * kf / mass;
    // d omegadot / d omega.
    (*J)(10, 11) = -(jz - jy) * wz / jx;
    (*J)(10, 12) = -(jz - jy) * wy / jx;
    (*J)(11, 10) = -(jx - jz) * wz / jy;
    (*J)(11, 12) = -(jx - jz) * wx / jy;
    (*J)(12, 10) = -(jy - jx) * wy / jz;
    (*J)(12, 11) = -(jy - jx) * wx / jz;
    // d omegadot / du.
    const double lk = arm * kf;
    (*J)(10, 14) = lk / jx;
    (*J)(10, 16) = -lk / jx;
    (*J)(11, 13) = -lk / jy;
    (*J)(11, 15) = lk / jy;
    (*J)(12, 13) = km / jz;
    (*J)(12, 14) = -km / jz;
    (*J)(12, 15) = km / jz;
    (*J)(12, 16) = -km / jz;
  }
};

}  // namespace tern::examples
