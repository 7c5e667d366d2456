#include "tern/integrators/discretize_zero_order_hold.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <unsupported/Eigen/MatrixFunctions>

namespace tern {

void DiscretizeZeroOrderHold(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                             double dt, Eigen::MatrixXd* Ad,
                             Eigen::MatrixXd* Bd) {
  const Eigen::Index n = A.rows();
  const Eigen::Index m = B.cols();
  if (A.cols() != n || B.rows() != n) {
    throw std::invalid_argument(fmt::format(
        "DiscretizeZeroOrderHold: A is {}x{} and B is {}x{}; A must be square "
        "and B must have A's rows",
        A.rows(), A.cols(), B.rows(), B.cols()));
  }
  if (!std::isfinite(dt)) {
    throw std::invalid_argument(
        fmt::format("DiscretizeZeroOrderHold: dt = {} is not finite", dt));
  }
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n + m, n + m);
  M.topLeftCorner(n, n) = A * dt;
  M.topRightCorner(n, m) = B * dt;
  const Eigen::MatrixXd E = M.exp();
  *Ad = E.topLeftCorner(n, n);
  *Bd = E.topRightCorner(n, m);
}

}  // namespace tern
