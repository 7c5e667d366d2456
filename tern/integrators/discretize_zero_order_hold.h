#pragma once
// Exact zero-order-hold discretization of a linear time-invariant system,
// used by the exponential integration rule (exponential.h) and by
// discretization (DiscreteDynamics<Exponential>, DiscreteJacobian,
// DiscreteTimeLinearize). Declared apart from exponential.h so that its
// users do not compile Eigen's MatrixFunctions.
#include <Eigen/Core>

namespace tern {

// Zero-order-hold discretization of xdot = A x + B u (u held over [0, dt]):
//   x1 = Ad x0 + Bd u,  Ad = e^{A dt},  Bd = int_0^dt e^{A s} ds B,
// both read off the exponential of the augmented matrix [[A, B], [0, 0]] dt
// (Van Loan, "Computing integrals involving the matrix exponential", IEEE
// TAC 23, 1978), by scaling and squaring with Pade approximation (Higham
// 2005). Exact up to rounding. Throws std::invalid_argument on mismatched
// sizes or a dt that is not finite.
void DiscretizeZeroOrderHold(const Eigen::MatrixXd& A,  // (n x n)
                             const Eigen::MatrixXd& B,  // (n x m)
                             double dt,                 // s
                             Eigen::MatrixXd* Ad,       // (n x n)
                             Eigen::MatrixXd* Bd);      // (n x m)

}  // namespace tern
