// Boost.Odeint rosenbrock4 peer, compiled as C++17 (see boost_rosenbrock4.h).
#include "boost_rosenbrock4.h"

#include <boost/numeric/odeint.hpp>
#include <utility>

#include "problems.h"

namespace tern_bench {

template <typename P>
std::array<double, P::N> BoostRosenbrock4(double rtol, double atol,
                                          Rosenbrock4Counts* counts) {
  namespace odeint = boost::numeric::odeint;
  using Vector = boost::numeric::ublas::vector<double>;
  using Matrix = boost::numeric::ublas::matrix<double>;
  long rhs = 0, jac = 0;
  Vector y(P::N);
  const auto y0 = P::Y0();
  for (int i = 0; i < P::N; ++i) y[i] = y0[i];
  auto sys = [&rhs](const Vector& x, Vector& dx, double t) {
    ++rhs;
    P::Rhs(t, x, dx);
  };
  auto jacobian = [&jac](const Vector& x, Matrix& J, double, Vector& dfdt) {
    ++jac;
    P::Jac(x, J);
    for (int i = 0; i < P::N; ++i) dfdt[i] = 0;
  };
  counts->steps = static_cast<long>(odeint::integrate_adaptive(
      odeint::make_controlled<odeint::rosenbrock4<double>>(atol, rtol),
      std::make_pair(sys, jacobian), y, P::kT0, P::kTf, 1e-6));
  counts->rhs = rhs;
  counts->jac = jac;
  std::array<double, P::N> out;
  for (int i = 0; i < P::N; ++i) out[i] = y[i];
  return out;
}

template std::array<double, VanDerPol::N> BoostRosenbrock4<VanDerPol>(
    double, double, Rosenbrock4Counts*);
template std::array<double, Robertson::N> BoostRosenbrock4<Robertson>(
    double, double, Rosenbrock4Counts*);

}  // namespace tern_bench
