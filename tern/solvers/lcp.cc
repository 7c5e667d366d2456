#include "tern/solvers/lcp.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

namespace internal {

void CheckFiniteMatrix(const char* who, const char* name,
                       const Eigen::Ref<const Eigen::MatrixXd>& A) {
  if (A.allFinite()) return;
  for (Eigen::Index j = 0; j < A.cols(); ++j) {
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      if (!std::isfinite(A(i, j))) {
        throw std::invalid_argument(fmt::format(
            "{}: {}({}, {}) = {} is not finite", who, name, i, j, A(i, j)));
      }
    }
  }
}

void CheckFiniteVector(const char* who, const char* name,
                       const Eigen::Ref<const Eigen::VectorXd>& v) {
  if (v.allFinite()) return;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      throw std::invalid_argument(
          fmt::format("{}: {}[{}] = {} is not finite", who, name, i, v[i]));
    }
  }
}

void CheckFiniteAnswer(const char* who,
                       const Eigen::Ref<const Eigen::MatrixXd>& M,
                       const Eigen::Ref<const Eigen::VectorXd>& z,
                       const Eigen::Ref<const Eigen::VectorXd>& w) {
  if (z.allFinite() && w.allFinite()) return;
  CheckFiniteMatrix(who, "M", M);
  throw std::runtime_error(fmt::format(
      "{}: the answer is not finite although M and q are (overflow: is M "
      "badly scaled?)",
      who));
}

}  // namespace internal

}  // namespace tern::solvers
