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

// The L^T L factorization of packed rows in place: row k of A (then of L)
// at values + row_start[k], its depth + 1 entries along k's path (k, its
// parent, ...), rows consecutive (row_start[k + 1] - row_start[k] = depth +
// 1), parent[k] < k. PackedTreeFactor's layout, which the convex contact
// solver's Newton matrix shares. Returns -1, or the first index (from the
// last) whose pivot is not positive and finite.
//
// A robot's floating base is a chain of six dofs at the root, on every
// path: when the tree starts so (dofs 0-5, one root, no branch above depth
// 5), each row's update of those six rows is written out (21 entries, no
// loops), the same operations in the same order as the general loop
// (bench/contact/README.md: about 40 % of the factorization's instructions
// on a humanoid).
int FactorPackedRows(double* values, const int* row_start, const int* parent,
                     int n);
// x <- A^-1 x with the rows FactorPackedRows factored (the root chain's
// entries likewise written out, the same operations in the same order).
void SolvePackedRows(const double* values, const int* row_start,
                     const int* parent, int n, double* x);

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
  std::vector<int> parent_;    // (size) each index's parent, -1 at a root
  std::vector<double> values_;
};

}  // namespace tern
