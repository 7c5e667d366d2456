#include "tern/systems/controllers/linear_quadratic_regulator.h"

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include "tern/systems/controllers/riccati.h"

namespace tern {

LinearQuadraticRegulatorResult LinearQuadraticRegulator(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::MatrixXd>& B,
    const Eigen::Ref<const Eigen::MatrixXd>& Q,
    const Eigen::Ref<const Eigen::MatrixXd>& R,
    const Eigen::Ref<const Eigen::MatrixXd>& N) {
  LinearQuadraticRegulatorResult result;
  result.S = ContinuousAlgebraicRiccati(A, B, Q, R, N);
  Eigen::MatrixXd BtS_N = B.transpose() * result.S;
  if (N.size() != 0) BtS_N += N.transpose();
  result.K = R.llt().solve(BtS_N);
  return result;
}

LinearQuadraticRegulatorResult DiscreteTimeLinearQuadraticRegulator(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::MatrixXd>& B,
    const Eigen::Ref<const Eigen::MatrixXd>& Q,
    const Eigen::Ref<const Eigen::MatrixXd>& R,
    const Eigen::Ref<const Eigen::MatrixXd>& N) {
  LinearQuadraticRegulatorResult result;
  result.S = DiscreteAlgebraicRiccati(A, B, Q, R, N);
  const Eigen::MatrixXd SB = result.S * B;
  Eigen::MatrixXd BtSA_N = SB.transpose() * A;
  if (N.size() != 0) BtSA_N += N.transpose();
  const Eigen::MatrixXd R_BtSB = R + B.transpose() * SB;
  result.K = R_BtSB.llt().solve(BtSA_N);
  return result;
}

}  // namespace tern
