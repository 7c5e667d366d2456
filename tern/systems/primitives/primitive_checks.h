#pragma once
// Internal: argument checks shared by the primitive blocks' constructors.
// Each throws std::invalid_argument with a message that starts with the
// block's name.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/eigen_types.h"

namespace tern::internal {

// n >= 1; returns n.
inline int CheckPositiveSize(const char* block, const char* what,
                             Eigen::Index n) {
  if (n < 1) {
    throw std::invalid_argument(
        fmt::format("{}: {} must be at least 1, got {}", block, what, n));
  }
  return static_cast<int>(n);
}

// v.size() == n.
inline void CheckSize(const char* block, const char* what,
                      const VectorX<double>& v, Eigen::Index n) {
  if (v.size() != n) {
    throw std::invalid_argument(fmt::format(
        "{}: {} has size {} but must have size {}", block, what, v.size(), n));
  }
}

// Every entry finite.
inline void CheckFinite(const char* block, const char* what,
                        const Eigen::Ref<const MatrixX<double>>& m) {
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
      if (!std::isfinite(m(i, j))) {
        throw std::invalid_argument(
            fmt::format("{}: {}({}, {}) is {}, must be finite", block, what, i,
                        j, m(i, j)));
      }
    }
  }
}

// A sampling period: finite and > 0.
inline void CheckPeriod(const char* block, double period) {
  if (!(period > 0) || !std::isfinite(period)) {
    throw std::invalid_argument(fmt::format(
        "{}: period must be finite and > 0, got {}", block, period));
  }
}

}  // namespace tern::internal
