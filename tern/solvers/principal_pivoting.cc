#include "tern/solvers/principal_pivoting.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern::solvers {
namespace {

constexpr const char* kWho = "SolveMixedLcpPrincipalPivoting";

// Solves L L^T x = x in place for the leading k x k block of M, factoring
// it (lower triangle read, L written over it). Returns -1, or the first
// column j whose pivot d_j is not positive (M is not positive definite).
// Written out rather than Eigen's LLT so that the factor lives in the
// workspace and AutoDiffXd takes the same code path.
template <typename T>
int CholeskySolveInPlace(MatrixX<T>* M_ptr, int k, VectorX<T>* x_ptr) {
  using std::sqrt;
  MatrixX<T>& M = *M_ptr;
  VectorX<T>& x = *x_ptr;
  for (int j = 0; j < k; ++j) {
    T d = M(j, j);
    for (int p = 0; p < j; ++p) d -= M(j, p) * M(j, p);
    if (!(d > 0)) return j;
    const T l = sqrt(d);
    M(j, j) = l;
    for (int i = j + 1; i < k; ++i) {
      T s = M(i, j);
      for (int p = 0; p < j; ++p) s -= M(i, p) * M(j, p);
      M(i, j) = s / l;
    }
  }
  for (int i = 0; i < k; ++i) {  // L y = x
    T s = x[i];
    for (int p = 0; p < i; ++p) s -= M(i, p) * x[p];
    x[i] = s / M(i, i);
  }
  for (int i = k - 1; i >= 0; --i) {  // L^T x = y
    T s = x[i];
    for (int p = i + 1; p < k; ++p) s -= M(p, i) * x[p];
    x[i] = s / M(i, i);
  }
  return -1;
}

double Value(double x) { return x; }
double Value(const AutoDiffXd& x) { return x.value(); }

}  // namespace

const char* ToString(PivotingStatus status) {
  switch (status) {
    case PivotingStatus::kSolved:
      return "solved";
    case PivotingStatus::kIterationLimit:
      return "pivot limit reached";
    case PivotingStatus::kNotPositiveDefinite:
      return "not positive definite";
  }
  return "unknown";
}

template <typename T>
void PrincipalPivotingWorkspace<T>::Reserve(int m) {
  if (m <= capacity_) return;
  L_.resize(m, m);
  g_.resize(m);
  index_.resize(m);
  active_.resize(m);
  capacity_ = m;
}

template <typename T>
PivotingResult SolveMixedLcpPrincipalPivoting(
    const PivotingMatrixRef<T>& A, const Eigen::Ref<const VectorX<T>>& b,
    std::span<const char> unilateral, const PivotingSettings& settings,
    PrincipalPivotingWorkspace<T>* workspace, Eigen::Ref<VectorX<T>> f) {
  if (workspace == nullptr) {
    throw std::invalid_argument(fmt::format("{}: workspace is null", kWho));
  }
  const int m = static_cast<int>(b.size());
  if (A.rows() != m || A.cols() != m) {
    throw std::invalid_argument(fmt::format(
        "{}: A is {} x {} but b has size {}", kWho, A.rows(), A.cols(), m));
  }
  if (static_cast<int>(unilateral.size()) != m || f.size() != m) {
    throw std::invalid_argument(fmt::format(
        "{}: unilateral has size {} and f size {} but b has size {}", kWho,
        unilateral.size(), f.size(), m));
  }
  for (int j = 0; j < m; ++j) {
    if (!std::isfinite(Value(b[j]))) {
      throw std::invalid_argument(
          fmt::format("{}: b[{}] = {} is not finite", kWho, j, Value(b[j])));
    }
    for (int i = 0; i < m; ++i) {
      if (!std::isfinite(Value(A(i, j)))) {
        throw std::invalid_argument(fmt::format(
            "{}: A({}, {}) = {} is not finite", kWho, i, j, Value(A(i, j))));
      }
    }
  }
  PrincipalPivotingWorkspace<T>& ws = *workspace;
  ws.Reserve(m);
  const int max_pivots =
      settings.max_pivots > 0 ? settings.max_pivots : 4 * m + 20;
  PivotingResult result;
  for (int i = 0; i < m; ++i) ws.active_[i] = 1;
  for (;;) {
    int k = 0;
    for (int i = 0; i < m; ++i) {
      if (ws.active_[i]) ws.index_[k++] = i;
    }
    result.num_active = k;
    for (int r = 0; r < k; ++r) {
      ws.g_[r] = b[ws.index_[r]];
      for (int c = 0; c <= r; ++c) {
        ws.L_(r, c) = A(ws.index_[r], ws.index_[c]);
      }
    }
    const int failed = CholeskySolveInPlace(&ws.L_, k, &ws.g_);
    if (failed >= 0) {
      f.setZero();
      result.status = PivotingStatus::kNotPositiveDefinite;
      result.failed_row = ws.index_[failed];
      return result;
    }
    f.setZero();
    for (int r = 0; r < k; ++r) f[ws.index_[r]] = ws.g_[r];
    // Least-index rule: the first row violating its condition flips.
    int flip = -1;
    for (int i = 0; i < m && flip < 0; ++i) {
      if (!unilateral[i]) continue;
      if (ws.active_[i]) {
        if (f[i] < 0) flip = i;
      } else {
        const T wi = A.row(i).dot(f) - b[i];
        if (wi < -settings.tolerance * (1 + std::abs(Value(b[i])))) flip = i;
      }
    }
    if (flip < 0) {
      result.status = PivotingStatus::kSolved;
      return result;
    }
    if (result.pivots == max_pivots) {
      result.status = PivotingStatus::kIterationLimit;
      return result;
    }
    ws.active_[flip] = !ws.active_[flip];
    ++result.pivots;
  }
}

#define TERN_INSTANTIATE_PRINCIPAL_PIVOTING(T)                          \
  template class PrincipalPivotingWorkspace<T>;                         \
  template PivotingResult SolveMixedLcpPrincipalPivoting<T>(            \
      const PivotingMatrixRef<T>&, const Eigen::Ref<const VectorX<T>>&, \
      std::span<const char>, const PivotingSettings&,                   \
      PrincipalPivotingWorkspace<T>*, Eigen::Ref<VectorX<T>>);

TERN_INSTANTIATE_PRINCIPAL_PIVOTING(double)
TERN_INSTANTIATE_PRINCIPAL_PIVOTING(AutoDiffXd)

#undef TERN_INSTANTIATE_PRINCIPAL_PIVOTING

}  // namespace tern::solvers
