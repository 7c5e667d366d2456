#pragma once
// Tern's runs of the integrators benchmark, in their own translation unit
// (tern_runs.cc) as a user's model would be: in the benchmark's large main
// TU, GCC stopped inlining the right-hand side into the rules' stages, which
// no small program sees. The peers keep their usual calling conventions.
#include <array>

namespace tern_bench {

enum class TernRule { kBs3, kDopri5, kDop853, kRadau5, kKapsRentrop4, kRodas4 };

struct TernCounts {
  long steps = 0;  // accepted steps
  long rhs = 0;    // right-hand-side evaluations
  long jac = 0;    // Jacobian evaluations
  long lu = 0;     // LU factorizations (radau5: real and complex)
};

// Integrates problem P (problems.h) from P::kT0 to P::kTf with `rule`
// (explicit rules for non-stiff problems, implicit ones for stiff
// problems, with P's analytic Jacobian) and returns the final state.
// Instantiated for Arenstorf, VanDerPol and Robertson.
template <typename P>
std::array<double, P::N> TernSolve(TernRule rule, double rtol, double atol,
                                   TernCounts* counts);

}  // namespace tern_bench
