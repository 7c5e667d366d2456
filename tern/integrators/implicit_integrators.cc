// Run-time registry of the implicit rules (theta methods and the
// exponential rule here; Rosenbrock rules in rosenbrock_integrators.cc,
// Radau IIA in radau_integrators.cc), and the Radau IIA coefficients.
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "tern/common/autodiff.h"
#include "tern/integrators/exponential.h"
#include "tern/integrators/implicit_integrator_adapter.h"
#include "tern/integrators/implicit_rules.h"
#include "tern/integrators/integrator_factories.h"

namespace tern {

const RadauIIA5Coefficients& RadauIIA5Coefficients::Get() {
  static const RadauIIA5Coefficients k = [] {
    RadauIIA5Coefficients r;
    const double s6 = std::sqrt(6.0);
    r.c[0] = (4 - s6) / 10;
    r.c[1] = (4 + s6) / 10;
    r.c[2] = 1;
    // HW II, table IV.5.6.
    r.A << (88 - 7 * s6) / 360, (296 - 169 * s6) / 1800, (-2 + 3 * s6) / 225,
        (296 + 169 * s6) / 1800, (88 + 7 * s6) / 360, (-2 - 3 * s6) / 225,
        (16 - s6) / 36, (16 + s6) / 36, 1.0 / 9;
    r.Ainv = r.A.inverse();
    // A^-1 = T diag(gamma, [[alpha, beta], [-beta, alpha]]) T^-1, with T's
    // columns the real eigenvector and the real and imaginary parts of a
    // complex one.
    Eigen::EigenSolver<Eigen::Matrix3d> es(r.Ainv);
    int ir = 0, ic = -1;
    for (int i = 0; i < 3; ++i) {
      if (std::abs(es.eigenvalues()(i).imag()) < 1e-12) {
        ir = i;
      } else if (ic < 0 && es.eigenvalues()(i).imag() > 0) {
        ic = i;
      }
    }
    r.T.col(0) = es.eigenvectors().col(ir).real();
    r.T.col(1) = es.eigenvectors().col(ic).real();
    r.T.col(2) = es.eigenvectors().col(ic).imag();
    r.Tinv = r.T.inverse();
    const Eigen::Matrix3d L = r.Tinv * r.Ainv * r.T;
    r.gamma = L(0, 0);
    r.alpha = L(1, 1);
    r.beta = L(1, 2);
    // Embedded 3rd-order solution with b^_0 = 1/gamma (HW II, eq. IV.8.16):
    // solve sum b^_i c_i^(k-1) = 1/k - [k = 1] / gamma, k = 1..3, then
    // err = gamma0 h f0 + sum_j e_j z_j with e = A^-T (b^ - b).
    Eigen::Matrix3d V;
    Eigen::Vector3d rhs;
    for (int k = 0; k < 3; ++k) {
      for (int i = 0; i < 3; ++i) V(k, i) = std::pow(r.c[i], k);
      rhs(k) = 1.0 / (k + 1);
    }
    rhs(0) -= 1 / r.gamma;
    const Eigen::Vector3d bhat = V.partialPivLu().solve(rhs);
    const Eigen::Vector3d b = r.A.row(2).transpose();
    const Eigen::Vector3d e = r.Ainv.transpose() * (bhat - b);
    for (int i = 0; i < 3; ++i) r.e[i] = e(i);
    return r;
  }();
  return k;
}

namespace internal {

template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeImplicitIntegrator(
    const std::string& name) {
  const auto names = ImplicitIntegratorNames();
  const bool ours = std::find(names.begin(), names.end(), name) != names.end();
  if (!ours) return nullptr;
  if constexpr (!std::is_same_v<T, double>) {
    throw std::invalid_argument(
        fmt::format("MakeIntegrator: '{}' is available for double only", name));
  } else {
    if (name == "implicit_euler") {
      return std::make_unique<ImplicitIntegrator<ImplicitEuler, true>>();
    }
    if (name == "implicit_trapezoid") {
      return std::make_unique<ImplicitIntegrator<ImplicitTrapezoid, true>>();
    }
    if (auto rosenbrock = MakeRosenbrockIntegrator(name)) return rosenbrock;
    if (auto radau = MakeRadauIntegrator(name)) return radau;
    if (name == "implicit_euler_fixed") {
      return std::make_unique<ImplicitIntegrator<ImplicitEuler, false>>();
    }
    if (name == "implicit_trapezoid_fixed") {
      return std::make_unique<ImplicitIntegrator<ImplicitTrapezoid, false>>();
    }
    return std::make_unique<ImplicitIntegrator<Exponential, false>>();
  }
}

std::vector<std::string> ImplicitIntegratorNames() {
  return {"exponential",
          "implicit_euler",
          "implicit_euler_fixed",
          "implicit_trapezoid",
          "implicit_trapezoid_fixed",
          "kaps_rentrop4",
          "radau5",
          "radau5_fixed",
          "rodas4",
          "rosenbrock4"};
}

template std::unique_ptr<IntegratorBase<double>> MakeImplicitIntegrator<double>(
    const std::string&);
template std::unique_ptr<IntegratorBase<AutoDiffXd>>
MakeImplicitIntegrator<AutoDiffXd>(const std::string&);

}  // namespace internal
}  // namespace tern
