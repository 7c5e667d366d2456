#include "tern/solvers/lcp.h"

#include <algorithm>
#include <cmath>

namespace tern::solvers {

const char* ToString(LcpStatus status) {
  switch (status) {
    case LcpStatus::kSolved:
      return "solved";
    case LcpStatus::kRayTermination:
      return "ray termination";
    case LcpStatus::kIterationLimit:
      return "iteration limit";
    case LcpStatus::kInaccurate:
      return "inaccurate";
    case LcpStatus::kBlockFailure:
      return "block failure";
  }
  return "unknown";
}

double LcpNaturalResidual(const Eigen::Ref<const Eigen::VectorXd>& z,
                          const Eigen::Ref<const Eigen::VectorXd>& w) {
  double r = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    r = std::max(r, std::abs(std::min(z[i], w[i])));
  }
  return r;
}

}  // namespace tern::solvers
