#pragma once
// Eigen aliases used across Tern. `T` is a scalar: double, AutoDiffXd, or a
// fixed-size autodiff scalar (see autodiff.h).
#include <Eigen/Core>

namespace tern {

template <typename T>
using VectorX = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T>
using MatrixX = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T, int N>
using Vector = Eigen::Matrix<T, N, 1>;
template <typename T>
using Vector3 = Eigen::Matrix<T, 3, 1>;
template <typename T>
using Vector4 = Eigen::Matrix<T, 4, 1>;
template <typename T>
using Vector6 = Eigen::Matrix<T, 6, 1>;
template <typename T>
using Matrix3 = Eigen::Matrix<T, 3, 3>;
template <typename T>
using Matrix6 = Eigen::Matrix<T, 6, 6>;
template <typename T>
using Matrix3X = Eigen::Matrix<T, 3, Eigen::Dynamic>;
template <typename T>
using Matrix6X = Eigen::Matrix<T, 6, Eigen::Dynamic>;

}  // namespace tern
