#pragma once
// Automatic differentiation scalars and helpers.
//
// AutoDiffXd carries a dynamically sized gradient (allocates); use it for
// general code such as System<AutoDiffXd>. Hot derivative paths use
// AutoDiffN<N>, whose gradient is a fixed-size vector and never allocates.
#include <Eigen/Core>
#include <algorithm>
#include <type_traits>
#include <unsupported/Eigen/AutoDiff>

#include "tern/common/eigen_types.h"

namespace tern {

using AutoDiffXd = Eigen::AutoDiffScalar<Eigen::VectorXd>;
template <int N>
using AutoDiffN = Eigen::AutoDiffScalar<Eigen::Matrix<double, N, 1>>;

namespace internal {

// The number of derivative lanes carried for K directions: K rounded up to
// even. Eigen vectorizes a fixed-size vector only when its bytes are a
// multiple of the 16-byte packet, so 17 directions (the quadrotor's 13 + 4)
// run as 17 scalar operations per dual-number operation and 18 as 9 packed
// ones. The extra lane is seeded with zero and never read.
constexpr int PaddedDirections(int k) {
  return k == Eigen::Dynamic ? Eigen::Dynamic : k + (k & 1);
}

// The forward-mode scalar with (at least) one derivative per direction for
// K directions: AutoDiffN of the padded lane count, or AutoDiffXd when K is
// Eigen::Dynamic. The one definition every derivative path (discrete
// Jacobians, collocation, the implicit integrators' Jacobians) uses.
template <int K>
using AutoDiffFor = std::conditional_t<K == Eigen::Dynamic, AutoDiffXd,
                                       AutoDiffN<PaddedDirections(K)>>;

// The derivative vector's length in AD for nz directions: its fixed
// (padded) size, or nz.
template <class AD>
Eigen::Index NumLanes(Eigen::Index nz) {
  constexpr int kLanes = AD::DerType::SizeAtCompileTime;
  return kLanes == Eigen::Dynamic ? nz : kLanes;
}

// Seeds the entries of v as the independent variables offset, offset + 1,
// ... of nz directions.
template <class AD, class Out, class In>
void SeedAutoDiff(const In& v, Eigen::Index nz, Eigen::Index offset, Out* out) {
  const Eigen::Index lanes = NumLanes<AD>(nz);
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    (*out)(i) = AD(v(i), AD::DerType::Unit(lanes, offset + i));
  }
}

}  // namespace internal

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
    Eigen::Matrix<double, Derived::RowsAtCompileTime,
                  Derived::ColsAtCompileTime>
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
    if (v(i).derivatives().size() == n)
      g.row(i) = v(i).derivatives().transpose();
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
