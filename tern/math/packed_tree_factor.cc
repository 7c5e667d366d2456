#include "tern/math/packed_tree_factor.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace tern {

PackedTreeFactor::PackedTreeFactor(const int* parent, int n) {
  start_.resize(n + 1);
  start_[0] = 0;
  for (int k = 0; k < n; ++k) {
    if (parent[k] >= k || parent[k] < -1) {
      throw std::invalid_argument(fmt::format(
          "PackedTreeFactor: index {} has parent {}, which does not come "
          "before it",
          k, parent[k]));
    }
    int len = 0;
    for (int i = k; i >= 0; i = parent[i]) ++len;
    start_[k + 1] = start_[k] + len;
  }
  parent_.assign(parent, parent + n);
  path_.resize(start_[n]);
  values_.assign(start_[n], 0.0);
  for (int k = 0; k < n; ++k) {
    int e = start_[k];
    for (int i = k; i >= 0; i = parent[i]) path_[e++] = i;
  }
}

namespace {

// The elimination's update of an ancestor's row by row k's tail: ri[f] -=
// l rk[f] for f < len. Two rows never overlap, which __restrict tells the
// compiler: without it, the loop checks for an overlap first, which cost a
// robot's short rows (2-12 entries) about 2 % of a humanoid's step.
inline void EliminationUpdate(double* __restrict ri,
                              const double* __restrict rk, double l, int len) {
  for (int f = 0; f < len; ++f) ri[f] -= l * rk[f];
}

constexpr int kRootChain = 6;  // a floating base's dofs

// Whether dofs 0..5 are a chain from the only root and every other index
// lies below dof 5 (so a row of depth >= 5 ends with dofs 5, 4, ..., 0).
bool HasRootChain(const int* row_start, const int* parent, int n) {
  if (n <= kRootChain || parent[0] != -1) return false;
  for (int j = 1; j < kRootChain; ++j) {
    if (parent[j] != j - 1) return false;
  }
  for (int k = kRootChain; k < n; ++k) {
    if (row_start[k + 1] - row_start[k] <= kRootChain) return false;
  }
  return true;
}

// Rows 0..5 (the root chain) updated by row k's last six entries t[0..5]
// (t[5 - j] is L(k, j)): row j -= L(k, j) (L(k, j), L(k, j - 1), ..., L(k,
// 0)), as EliminationUpdate does it, row 5 first.
template <int J>
inline void RootChainUpdate(double* const* rows, const double* t) {
  const double l = t[kRootChain - 1 - J];
  if (l != 0) {
    double* r = rows[J];
    const double* tj = t + (kRootChain - 1 - J);
    for (int f = 0; f <= J; ++f) r[f] -= l * tj[f];
  }
  if constexpr (J > 0) RootChainUpdate<J - 1>(rows, t);
}

}  // namespace

int FactorPackedRows(double* values, const int* row_start, const int* parent,
                     int n) {
  const bool chain = HasRootChain(row_start, parent, n);
  double* chain_rows[kRootChain];
  for (int j = 0; chain && j < kRootChain; ++j) {
    chain_rows[j] = values + row_start[j];
  }
  for (int k = n - 1; k >= 0; --k) {
    double* rk = values + row_start[k];
    const int len = row_start[k + 1] - row_start[k];  // depth + 1
    const double d = rk[0];
    if (!(d > 0) || !std::isfinite(d)) return k;
    const double l = std::sqrt(d), inv = 1 / l;
    rk[0] = l;
    for (int e = 1; e < len; ++e) rk[e] *= inv;
    // Entries e < general go to their rows by the loop; the last six, on a
    // root chain, by RootChainUpdate.
    const int general = chain && k >= kRootChain ? len - kRootChain : len;
    int i = parent[k];
    for (int e = 1; e < general; ++e, i = parent[i]) {
      const double lki = rk[e];
      if (lki == 0) continue;
      // Row i runs along the rest of k's path: L(i, j) -= L(k, i) L(k, j).
      EliminationUpdate(values + row_start[i], rk + e, lki, len - e);
    }
    if (general < len) {
      RootChainUpdate<kRootChain - 1>(chain_rows, rk + general);
    }
  }
  return -1;
}

int PackedTreeFactor::Factor() {
  return FactorPackedRows(values_.data(), start_.data(), parent_.data(),
                          size());
}

void SolvePackedRows(const double* values, const int* row_start,
                     const int* parent, int n, double* x) {
  const bool chain = HasRootChain(row_start, parent, n);
  for (int i = n - 1; i >= 0; --i) {  // L^T y = x
    const double* ri = values + row_start[i];
    const double yi = x[i] / ri[0];
    x[i] = yi;
    if (yi == 0) continue;
    const int len = row_start[i + 1] - row_start[i];
    const int general = chain && i >= kRootChain ? len - kRootChain : len;
    int e = 1;
    for (int j = parent[i]; e < general; j = parent[j]) x[j] -= ri[e++] * yi;
    if (general < len) {  // x[5], ..., x[0]
      const double* t = ri + general;
      x[5] -= t[0] * yi, x[4] -= t[1] * yi, x[3] -= t[2] * yi;
      x[2] -= t[3] * yi, x[1] -= t[4] * yi, x[0] -= t[5] * yi;
    }
  }
  for (int i = 0; i < n; ++i) {  // L x = y
    const double* ri = values + row_start[i];
    const int len = row_start[i + 1] - row_start[i];
    const int general = chain && i >= kRootChain ? len - kRootChain : len;
    double xi = x[i];
    int e = 1;
    for (int j = parent[i]; e < general; j = parent[j]) xi -= ri[e++] * x[j];
    if (general < len) {
      const double* t = ri + general;
      xi -= t[0] * x[5], xi -= t[1] * x[4], xi -= t[2] * x[3];
      xi -= t[3] * x[2], xi -= t[4] * x[1], xi -= t[5] * x[0];
    }
    x[i] = xi / ri[0];
  }
}

void PackedTreeFactor::Solve(double* x) const {
  SolvePackedRows(values_.data(), start_.data(), parent_.data(), size(), x);
}

void PackedTreeFactor::Multiply(double* x, double* tmp) const {
  const int n = size();
  for (int i = 0; i < n; ++i) {  // tmp = L x
    const double* ri = row(i);
    const int* pi = path(i);
    const int len = row_size(i);
    double zi = 0;
    for (int e = 0; e < len; ++e) zi += ri[e] * x[pi[e]];
    tmp[i] = zi;
  }
  for (int i = 0; i < n; ++i) x[i] = 0;
  for (int i = 0; i < n; ++i) {  // x = L^T tmp
    const double* ri = row(i);
    const int* pi = path(i);
    const int len = row_size(i);
    for (int e = 0; e < len; ++e) x[pi[e]] += ri[e] * tmp[i];
  }
}

}  // namespace tern
