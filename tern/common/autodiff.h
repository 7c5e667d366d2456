#pragma once
// Automatic differentiation scalars and helpers.
//
// AutoDiffXd carries a dynamically sized gradient (allocates); use it for
// general code such as System<AutoDiffXd>. Hot derivative paths use
// AutoDiffN<N>, whose gradient is a fixed-size vector and never allocates.
#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

#include "tern/common/eigen_types.h"

namespace tern {

using AutoDiffXd = Eigen::AutoDiffScalar<Eigen::VectorXd>;
template <int N>
using AutoDiffN = Eigen::AutoDiffScalar<Eigen::Matrix<double, N, 1>>;

// The double value of a scalar (identity for double).
inline double ExtractDoubleOrThrow(double x) { return x; }
template <typename Derivs>
double ExtractDoubleOrThrow(const Eigen::AutoDiffScalar<Derivs>& x) {
  return x.value();
}

// Values of a vector/matrix of autodiff scalars.
template <typename Derived>
auto ExtractValue(const Eigen::MatrixBase<Derived>& m) {
  using Scalar = typename Derived::Scalar;
  if constexpr (std::is_same_v<Scalar, double>) {
    return Eigen::Matrix<double, Derived::RowsAtCompileTime,
                         Derived::ColsAtCompileTime>(m);
  } else {
    Eigen::Matrix<double, Derived::RowsAtCompileTime, Derived::ColsAtCompileTime>
        out(m.rows(), m.cols());
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i) out(i, j) = m(i, j).value();
    return out;
  }
}

// Gradient matrix (rows = entries of the column vector v, cols = number of
// derivatives). Entries with an empty derivative vector are treated as zero.
template <typename Derived>
Eigen::MatrixXd ExtractGradient(const Eigen::MatrixBase<Derived>& v,
                                Eigen::Index num_derivatives = -1) {
  Eigen::Index n = num_derivatives;
  if (n < 0) {
    n = 0;
    for (Eigen::Index i = 0; i < v.size(); ++i)
      n = std::max<Eigen::Index>(n, v(i).derivatives().size());
  }
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(v.size(), n);
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (v(i).derivatives().size() == n) g.row(i) = v(i).derivatives().transpose();
  }
  return g;
}

// Seeds x as the independent variables: entry i gets the unit vector e_i
// (of length x.size() + offset ... total) as derivatives.
inline VectorX<AutoDiffXd> InitializeAutoDiff(const Eigen::VectorXd& x,
                                              Eigen::Index num_derivatives = -1,
                                              Eigen::Index offset = 0) {
  if (num_derivatives < 0) num_derivatives = x.size();
  VectorX<AutoDiffXd> out(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    out(i).value() = x(i);
    out(i).derivatives() = Eigen::VectorXd::Unit(num_derivatives, offset + i);
  }
  return out;
}

}  // namespace tern
