// The time-stepping plant's island LCP (the seed's polyhedral cone) solved
// by Lemke's method, through solvers/row_group_lemke.h.
#include <span>

#include "tern/multibody/plant/time_stepping_stepper.h"
#include "tern/solvers/row_group_lemke.h"

namespace tern {

// The island's rows with the seed's polyhedral cone, solved exactly
// (solvers::SolveRowGroupsLemke: bilateral rows by their Schur complement,
// then Lemke on (c_n, beta, lambda) per contact and f per joint limit).
// False if it fails (the caller then runs PGS, warm started from the
// impulses the solver left untouched).
bool TimeSteppingStepper::SolveLemke(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  const solvers::RowGroupLemkeResult result = solvers::SolveRowGroupsLemke(
      Layout(), impl.cone, opt.constraint_regularization,
      std::span<const int>(s.order.data() + begin, end - begin),
      s.rows.groups.data(), &s.lemke, s.vn.data());
  s.stats.lemke_pivots += result.lcp.iterations;
  return result.ok();
}

}  // namespace tern
