#include "tern/multibody/tree/tree_cholesky.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "tern/common/default_scalars.h"

namespace tern {

template <typename T>
TreeCholesky<T>::TreeCholesky(const RigidBodyTree<T>& tree)
    : parent_(tree.num_velocities(), -1),
      L_(MatrixX<T>::Zero(tree.num_velocities(), tree.num_velocities())) {
  const auto& bodies = tree.bodies();
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const RigidBody<T>& body = bodies[b];
    if (body.num_velocities == 0) continue;
    int p = body.parent;
    while (p > 0 && bodies[p].num_velocities == 0) p = bodies[p].parent;
    const int s = body.velocity_start;
    parent_[s] =
        p > 0 ? bodies[p].velocity_start + bodies[p].num_velocities - 1 : -1;
    for (int k = 1; k < body.num_velocities; ++k) parent_[s + k] = s + k - 1;
  }
  root_.resize(size());
  for (int k = 0; k < size(); ++k) {
    if (parent_[k] >= k) {
      throw std::logic_error(fmt::format(
          "TreeCholesky: tree '{}': dof {} has parent dof {} (the dofs are "
          "not ordered parents first)",
          tree.name(), k, parent_[k]));
    }
    root_[k] = parent_[k] < 0 ? k : root_[parent_[k]];
  }
  tree_end_.assign(size(), -1);
  for (int k = 0; k < size(); ++k) tree_end_[root_[k]] = k;
}

template <typename T>
int TreeCholesky<T>::Compute(const MatrixX<T>& H) {
  using std::sqrt;
  const int n = size();
  // The lower triangle on the paths, copied; then Featherstone's LTL
  // (RBDA Table 6.3), eliminating the last dof first.
  for (int k = 0; k < n; ++k) {
    L_(k, k) = H(k, k);
    for (int i = parent_[k]; i >= 0; i = parent_[i]) L_(k, i) = H(k, i);
  }
  for (int k = n - 1; k >= 0; --k) {
    const T d = L_(k, k);
    if (!(d > 0)) return k;
    const T l = sqrt(d);
    L_(k, k) = l;
    for (int i = parent_[k]; i >= 0; i = parent_[i]) L_(k, i) /= l;
    for (int i = parent_[k]; i >= 0; i = parent_[i]) {
      const T lki = L_(k, i);
      for (int j = i; j >= 0; j = parent_[j]) L_(i, j) -= lki * L_(k, j);
    }
  }
  return -1;
}

template <typename T>
void TreeCholesky<T>::SolveColumn(T* x) const {
  // The dofs the solve can change: from the lowest root of a nonzero entry
  // to the last dof of the trees they are in (L^T y = x fills ancestors,
  // L x = y descendants; other trees stay zero). All of them for AutoDiff
  // (a zero value may carry derivatives).
  int lo = 0, hi = size() - 1;
  if constexpr (std::is_same_v<T, double>) {
    lo = size();
    hi = -1;
    for (int i = 0; i < size(); ++i) {
      if (x[i] == 0) continue;
      lo = std::min(lo, root_[i]);
      hi = std::max(hi, tree_end_[root_[i]]);
    }
  }
  for (int i = hi; i >= lo; --i) {  // L^T y = x
    const T yi = x[i] / L_(i, i);
    x[i] = yi;
    if constexpr (std::is_same_v<T, double>) {
      if (yi == 0) continue;  // no update (AutoDiff: derivatives may not be)
    }
    for (int j = parent_[i]; j >= 0; j = parent_[j]) x[j] -= L_(i, j) * yi;
  }
  for (int i = lo; i <= hi; ++i) {  // L x = y
    T xi = x[i];
    for (int j = parent_[i]; j >= 0; j = parent_[j]) xi -= L_(i, j) * x[j];
    x[i] = xi / L_(i, i);
  }
}

template <typename T>
void TreeCholesky<T>::SolveInPlace(Eigen::Ref<MatrixX<T>> X) const {
  if (X.rows() != size()) {
    throw std::invalid_argument(fmt::format(
        "TreeCholesky::SolveInPlace: {} rows for a factor of size {}", X.rows(),
        size()));
  }
  for (Eigen::Index c = 0; c < X.cols(); ++c) SolveColumn(&X(0, c));
}

template <typename T>
void TreeCholesky<T>::SolveInPlace(VectorX<T>* x) const {
  if (x->size() != size()) {
    throw std::invalid_argument(fmt::format(
        "TreeCholesky::SolveInPlace: a vector of size {} for a factor of "
        "size {}",
        x->size(), size()));
  }
  SolveColumn(x->data());
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(TreeCholesky)

}  // namespace tern
