#pragma once
// Algebraic Riccati equations by the structure-preserving doubling algorithm
// (SDA): Chu, Fan, Lin & Wang, "Structure-preserving algorithms for periodic
// discrete-time algebraic Riccati equations", Int. J. Control 77 (2004), for
// the discrete equation; Chu, Fan & Lin, "A structure-preserving doubling
// algorithm for continuous-time algebraic Riccati equations", Linear Algebra
// Appl. 396 (2005), which maps the continuous equation to the same iteration
// by a Cayley transform. The iteration converges quadratically to the
// stabilizing solution, keeps the iterates symmetric positive semidefinite,
// and never forms the Hamiltonian's eigenvectors.
//
// A cross term N (n x m) is folded in by A <- A - B R^-1 N', Q <- Q - N R^-1
// N'. Both solvers check their inputs (sizes, symmetry of Q and R, R > 0)
// and the residual of the result; they throw std::invalid_argument on bad
// input and std::runtime_error when no stabilizing solution is found (e.g.
// (A, B) not stabilizable or (A, Q) with an unobservable mode on the
// imaginary axis / unit circle).
#include <Eigen/Core>

namespace tern {

// The stabilizing X = X' >= 0 of
//   A'X + XA - (XB + N) R^-1 (B'X + N') + Q = 0,
// A (n x n), B (n x m), Q (n x n), R (m x m), N (n x m, or empty for 0).
Eigen::MatrixXd ContinuousAlgebraicRiccati(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::MatrixXd>& B,
    const Eigen::Ref<const Eigen::MatrixXd>& Q,
    const Eigen::Ref<const Eigen::MatrixXd>& R,
    const Eigen::Ref<const Eigen::MatrixXd>& N = Eigen::MatrixXd());

// The stabilizing X = X' >= 0 of
//   X = A'XA - (A'XB + N) (R + B'XB)^-1 (B'XA + N') + Q.
Eigen::MatrixXd DiscreteAlgebraicRiccati(
    const Eigen::Ref<const Eigen::MatrixXd>& A,
    const Eigen::Ref<const Eigen::MatrixXd>& B,
    const Eigen::Ref<const Eigen::MatrixXd>& Q,
    const Eigen::Ref<const Eigen::MatrixXd>& R,
    const Eigen::Ref<const Eigen::MatrixXd>& N = Eigen::MatrixXd());

}  // namespace tern
