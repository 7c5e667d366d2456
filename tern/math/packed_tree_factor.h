#pragma once
// PackedTreeFactor: A = L^T L for a symmetric positive definite A whose
// nonzeros lie between an index and its ancestors in a tree (parent[k] < k,
// -1 at a root), as a robot's joint-space mass matrix along its kinematic
// tree (Featherstone, "Rigid Body Dynamics Algorithms", 2008, sec. 6.3, the
// LTL factorization). Eliminating the last index first keeps that pattern,
// so L has no fill, a factorization costs the sum of the squared depths and
// a solve the sum of the depths.
//
// Row k of L is stored contiguously along k's path to its root: L(k, k),
// L(k, parent(k)), L(k, parent(parent(k))), ... An ancestor's path is the
// tail of its descendants' paths, so eliminating k updates each ancestor's
// row by one contiguous axpy (no index chasing in the inner loop).
//
// Model/data: SetTree allocates once; the caller writes A's entries into the
// rows (row(k)[e] = A(k, path(k)[e])), then Factor, Solve and Multiply
// neither allocate nor check sizes.
#include <vector>

namespace tern {

// The elimination's update of an ancestor's row by row k's tail: ri[f] -=
// l rk[f] for f < len. Two rows of a packed factor never overlap, which
// __restrict tells the compiler: without it, the loop checks for an overlap
// first, which costs a robot's short rows (2-12 entries) about 2 % of a
// humanoid's step (bench/contact/README.md).
inline void EliminationUpdate(double* __restrict ri,
                              const double* __restrict rk, double l, int len) {
  for (int f = 0; f < len; ++f) ri[f] -= l * rk[f];
}

class PackedTreeFactor {
 public:
  PackedTreeFactor() = default;
  // n indices with parent[k] < k (-1: a root). Throws std::invalid_argument
  // naming the index if a parent is out of order.
  PackedTreeFactor(const int* parent, int n);

  int size() const { return static_cast<int>(start_.size()) - 1; }
  // Row k: its depth + 1 entries along path(k) (path(k)[0] = k).
  double* row(int k) { return values_.data() + start_[k]; }
  const double* row(int k) const { return values_.data() + start_[k]; }
  const int* path(int k) const { return path_.data() + start_[k]; }
  int row_size(int k) const { return start_[k + 1] - start_[k]; }

  // Factors the rows in place (A -> L). Returns -1, or the first index
  // (from the last) whose pivot is not positive and finite: A is not
  // positive definite there, and the factor is unusable.
  int Factor();
  // x <- A^-1 x (size() entries).
  void Solve(double* x) const;
  // x <- A x with the factored A; tmp: size() entries of scratch.
  void Multiply(double* x, double* tmp) const;

 private:
  std::vector<int> start_{0};  // (size + 1) offset of each row
  std::vector<int> path_;      // per row: its indices along the path
  std::vector<double> values_;
};

}  // namespace tern
