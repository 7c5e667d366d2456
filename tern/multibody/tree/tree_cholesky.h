#pragma once
// TreeCholesky: the factorization H = L^T L of a tree's joint-space mass
// matrix along its kinematic tree (Featherstone, "Rigid Body Dynamics
// Algorithms", 2008, sec. 6.3, the LTL factorization). H(i, j) is zero
// unless one of dofs i, j is an ancestor of the other, and eliminating the
// last dof first keeps that pattern: L(k, i) != 0 only for i an ancestor of
// k (or k itself). So the factorization costs the sum over dofs of their
// squared depths instead of nv^3 / 3, and a solve the sum of their depths
// instead of nv^2: for a scene of many robots or free bodies (22 humanoids:
// 594 dofs, depth <= 14) hundreds of times less than a dense Cholesky. The
// plants' constraint solves (H^-1 J^T for their rows) use it in place of a
// dense LLT.
//
// The dofs' parents (dof s + k of a k-dof joint has parent s + k - 1; a
// joint's first dof has the last dof of the nearest moving ancestor) come
// from the tree once; Compute reads only the entries of H on those paths.
// Model/data split: one object per Context (it holds L, nv x nv).
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

template <typename T>
class TreeCholesky {
 public:
  TreeCholesky() = default;
  explicit TreeCholesky(const RigidBodyTree<T>& tree);

  int size() const { return static_cast<int>(parent_.size()); }
  // The parent of each dof (-1 at a root): the elimination tree.
  const std::vector<int>& dof_parents() const { return parent_; }
  // The root dof of each dof's tree from the world (H is block diagonal
  // over these trees: constraint rows on different ones do not couple).
  const std::vector<int>& dof_roots() const { return root_; }
  // Per root dof: the last dof of its tree (-1 for a dof that is not a
  // root). A tree's dofs lie in [root, tree_end], perhaps with others'.
  const std::vector<int>& tree_ends() const { return tree_end_; }

  // Factors H (size x size, symmetric; its entries off the dofs' ancestor
  // paths are not read). Returns -1, or the first dof whose pivot is not
  // positive (H is not positive definite there: the caller names its
  // joint); the factor is then unusable.
  int Compute(const MatrixX<T>& H);

  // X <- H^-1 X, column by column (X: size rows). For T = double, entries
  // that are zero in a column skip their updates (a constraint row's J^T
  // touches one robot's dofs).
  void SolveInPlace(Eigen::Ref<MatrixX<T>> X) const;
  void SolveInPlace(VectorX<T>* x) const;

 private:
  void SolveColumn(T* x) const;

  std::vector<int> parent_, root_, tree_end_;
  MatrixX<T> L_;  // lower triangle on the ancestor paths
};

}  // namespace tern
