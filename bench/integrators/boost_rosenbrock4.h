#pragma once
// Boost.Odeint's rosenbrock4 (Shampine's Kaps-Rentrop 4(3) coefficients,
// controlled stepper) on a benchmark problem. Defined in
// boost_rosenbrock4.cc, which is compiled as C++17: the uBLAS of Boost 1.74
// that rosenbrock4 uses for its state and matrices calls
// std::allocator::construct, removed in C++20. The interface is plain C++,
// so the C++20 benchmark links it.
#include <array>

namespace tern_bench {

struct Rosenbrock4Counts {
  long steps = 0;  // accepted steps
  long rhs = 0;    // right-hand-side evaluations
  long jac = 0;    // Jacobian evaluations (one LU each)
};

// Integrates problem P (problems.h) from P::kT0 to P::kTf with the given
// tolerances and returns the final state. Instantiated for VanDerPol and
// Robertson.
template <typename P>
std::array<double, P::N> BoostRosenbrock4(double rtol, double atol,
                                          Rosenbrock4Counts* counts);

}  // namespace tern_bench
