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
  path_.resize(start_[n]);
  values_.assign(start_[n], 0.0);
  for (int k = 0; k < n; ++k) {
    int e = start_[k];
    for (int i = k; i >= 0; i = parent[i]) path_[e++] = i;
  }
}

int PackedTreeFactor::Factor() {
  for (int k = size() - 1; k >= 0; --k) {
    double* rk = row(k);
    const int len = row_size(k);
    const double d = rk[0];
    if (!(d > 0) || !std::isfinite(d)) return k;
    const double l = std::sqrt(d), inv = 1 / l;
    rk[0] = l;
    for (int e = 1; e < len; ++e) rk[e] *= inv;
    const int* pk = path(k);
    for (int e = 1; e < len; ++e) {
      const double lki = rk[e];
      if (lki == 0) continue;
      // Row i = path(k)[e] runs along path(k)[e..len): L(i, j) -= L(k, i)
      // L(k, j) for every j on it.
      EliminationUpdate(row(pk[e]), rk + e, lki, len - e);
    }
  }
  return -1;
}

void PackedTreeFactor::Solve(double* x) const {
  const int n = size();
  for (int i = n - 1; i >= 0; --i) {  // L^T y = x
    const double* ri = row(i);
    const double yi = x[i] / ri[0];
    x[i] = yi;
    if (yi == 0) continue;
    const int* pi = path(i);
    const int len = row_size(i);
    for (int e = 1; e < len; ++e) x[pi[e]] -= ri[e] * yi;
  }
  for (int i = 0; i < n; ++i) {  // L x = y
    const double* ri = row(i);
    const int* pi = path(i);
    const int len = row_size(i);
    double xi = x[i];
    for (int e = 1; e < len; ++e) xi -= ri[e] * x[pi[e]];
    x[i] = xi / ri[0];
  }
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
