// The time-stepping plant's island LCP (the seed's polyhedral cone) solved
// by Lemke's method, through solvers/row_group_lemke.h.
#include <fmt/format.h>

#include <span>
#include <string>

#include "tern/multibody/plant/time_stepping_stepper.h"
#include "tern/solvers/row_group_lemke.h"

namespace tern {

// The island's rows with the seed's polyhedral cone, solved exactly
// (solvers::SolveRowGroupsLemke: bilateral rows by their Schur complement,
// then Lemke on (c_n, beta, lambda) per contact and f per joint limit).
// False if it fails (the caller then runs PGS, warm started from the
// impulses the solver left untouched; lemke_failure_ says why).
bool TimeSteppingStepper::SolveLemke(int island) {
  const int begin = s.island_start[island], end = s.island_start[island + 1];
  const solvers::RowGroupLemkeResult result = solvers::SolveRowGroupsLemke(
      Layout(), impl.cone, opt.constraint_regularization,
      std::span<const int>(s.order.data() + begin, end - begin),
      s.rows.groups.data(), &s.lemke, s.vn.data());
  s.stats.lemke_pivots += result.lcp.iterations;
  if (!result.ok()) {
    lemke_failure_ =
        result.status == solvers::RowGroupLemkeStatus::kLcpFailed
            ? fmt::format("Lemke's method ended with {} after {} pivots",
                          solvers::ToString(result.lcp.status),
                          result.lcp.iterations)
        : result.status == solvers::RowGroupLemkeStatus::kSingularBilateral
            ? std::string(
                  "Lemke's method could not start: the bilateral "
                  "rows' Delassus matrix is singular")
            : std::string(
                  "Lemke's method could not start: the friction "
                  "cone has more than 60 directions");
  }
  return result.ok();
}

}  // namespace tern
