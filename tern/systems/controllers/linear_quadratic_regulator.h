#pragma once
// Linear quadratic regulators (Anderson & Moore, Optimal Control: Linear
// Quadratic Methods, 1990, ch. 2-3). The feedback is u = -K x and S is the
// cost-to-go matrix, x'Sx the optimal cost from x.
//
// Continuous: minimize int x'Qx + u'Ru + 2x'Nu dt s.t. xdot = A x + B u;
//   S from ContinuousAlgebraicRiccati, K = R^-1 (B'S + N').
// Discrete:   minimize sum x'Qx + u'Ru + 2x'Nu s.t. x' = A x + B u;
//   S from DiscreteAlgebraicRiccati, K = (R + B'SB)^-1 (B'SA + N').
// Errors as in riccati.h.
#include <Eigen/Core>

namespace tern {

struct LinearQuadraticRegulatorResult {
  Eigen::MatrixXd K;  // m x n, u = -K x
  Eigen::MatrixXd S;  // n x n, cost-to-go
};

LinearQuadraticRegulatorResult LinearQuadraticRegulator(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::MatrixXd>& B,
    const Eigen::Ref<const Eigen::MatrixXd>& Q,
    const Eigen::Ref<const Eigen::MatrixXd>& R,
    const Eigen::Ref<const Eigen::MatrixXd>& N = Eigen::MatrixXd());

LinearQuadraticRegulatorResult DiscreteTimeLinearQuadraticRegulator(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::MatrixXd>& B,
    const Eigen::Ref<const Eigen::MatrixXd>& Q,
    const Eigen::Ref<const Eigen::MatrixXd>& R,
    const Eigen::Ref<const Eigen::MatrixXd>& N = Eigen::MatrixXd());

}  // namespace tern
