#pragma once
// Test problems of the integrators work-precision benchmark (HNW I/II; the
// IVP Test Set): size N, interval, y0, a right-hand side generic in the
// scalar and container (Eigen, std::array, raw pointers, uBLAS) and an
// analytic Jacobian. Plain C++17 with no Tern headers, so the C++17
// translation unit of the Boost rosenbrock4 peer shares the same code.
#include <array>
#include <cmath>

namespace tern_bench {

struct Arenstorf {
  static constexpr int N = 4;
  static constexpr const char* kName = "arenstorf";
  static constexpr bool kStiff = false;
  static constexpr bool kAutonomous = true;
  static constexpr double kT0 = 0, kTf = 17.0652165601579625588917206249;
  static constexpr double kMu = 0.012277471, kMu1 = 1 - kMu;
  static std::array<double, N> Y0() {
    return {0.994, 0, 0, -2.00158510637908252240537862224};
  }
  template <typename S, typename Y, typename D>
  static void Rhs(const S&, const Y& y, D& yd) {
    using std::sqrt;
    const auto a = (y[0] + kMu) * (y[0] + kMu) + y[1] * y[1];
    const auto b = (y[0] - kMu1) * (y[0] - kMu1) + y[1] * y[1];
    const auto d1 = a * sqrt(a), d2 = b * sqrt(b);
    yd[0] = y[2];
    yd[1] = y[3];
    yd[2] =
        y[0] + 2 * y[3] - kMu1 * (y[0] + kMu) / d1 - kMu * (y[0] - kMu1) / d2;
    yd[3] = y[1] - 2 * y[2] - kMu1 * y[1] / d1 - kMu * y[1] / d2;
  }
  template <typename Y, typename J>
  static void Jac(const Y& y, J& jac) {
    // Not needed for the non-stiff peers; present for completeness.
    const double h = 1e-7;
    std::array<double, N> yp, fp, fm;
    for (int j = 0; j < N; ++j) {
      for (int i = 0; i < N; ++i) yp[i] = y[i];
      yp[j] += h;
      Rhs(0.0, yp, fp);
      yp[j] -= 2 * h;
      Rhs(0.0, yp, fm);
      for (int i = 0; i < N; ++i) jac(i, j) = (fp[i] - fm[i]) / (2 * h);
    }
  }
};

struct VanDerPol {
  static constexpr int N = 2;
  static constexpr const char* kName = "vdpol";
  static constexpr bool kStiff = true;
  static constexpr bool kAutonomous = true;
  static constexpr double kT0 = 0, kTf = 2, kEps = 1e-6;
  static std::array<double, N> Y0() { return {2, 0}; }
  template <typename S, typename Y, typename D>
  static void Rhs(const S&, const Y& y, D& yd) {
    yd[0] = y[1];
    yd[1] = ((1 - y[0] * y[0]) * y[1] - y[0]) / kEps;
  }
  template <typename Y, typename J>
  static void Jac(const Y& y, J& jac) {
    jac(0, 0) = 0;
    jac(0, 1) = 1;
    jac(1, 0) = (-2 * y[0] * y[1] - 1) / kEps;
    jac(1, 1) = (1 - y[0] * y[0]) / kEps;
  }
};

struct Robertson {
  static constexpr int N = 3;
  static constexpr const char* kName = "robertson";
  static constexpr bool kStiff = true;
  static constexpr bool kAutonomous = true;
  static constexpr double kT0 = 0, kTf = 40;
  static std::array<double, N> Y0() { return {1, 0, 0}; }
  template <typename S, typename Y, typename D>
  static void Rhs(const S&, const Y& y, D& yd) {
    yd[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    yd[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
    yd[2] = 3e7 * y[1] * y[1];
  }
  template <typename Y, typename J>
  static void Jac(const Y& y, J& jac) {
    jac(0, 0) = -0.04;
    jac(0, 1) = 1e4 * y[2];
    jac(0, 2) = 1e4 * y[1];
    jac(1, 0) = 0.04;
    jac(1, 1) = -1e4 * y[2] - 6e7 * y[1];
    jac(1, 2) = -1e4 * y[1];
    jac(2, 0) = 0;
    jac(2, 1) = 6e7 * y[1];
    jac(2, 2) = 0;
  }
};

}  // namespace tern_bench
