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

namespace {

// True if every entry of x[0..n) is finite: x * 0 is 0 for a finite x and
// NaN for an infinite or NaN one, and NaN propagates through the sums
// (four of them: independent adds, no early exit, no branch per entry).
bool AllFinite(const double* x, Eigen::Index n) {
  double s[4] = {0, 0, 0, 0};
  Eigen::Index i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) s[k] += x[i + k] * 0.0;
  }
  for (; i < n; ++i) s[0] += x[i] * 0.0;
  const double sum = (s[0] + s[1]) + (s[2] + s[3]);
  return sum == sum;
}

}  // namespace

void CheckFiniteMatrix(const char* who, const char* name,
                       const Eigen::Ref<const Eigen::MatrixXd>& A) {
  bool finite = true;
  if (A.outerStride() == A.rows()) {  // contiguous: one pass
    finite = AllFinite(A.data(), A.size());
  } else {
    for (Eigen::Index j = 0; j < A.cols() && finite; ++j) {
      finite = AllFinite(A.data() + j * A.outerStride(), A.rows());
    }
  }
  if (finite) return;
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
  if (AllFinite(v.data(), v.size())) return;
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
