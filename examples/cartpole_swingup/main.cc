// Cart-pole swing-up by iterative LQR, using only DiscreteDynamics and
// DiscreteJacobian (tern/systems/analysis).
//
// iLQR (Li & Todorov, ICINCO 2004) with the regularization and line search
// of Tassa, Erez & Todorov, "Synthesis and stabilization of complex
// behaviors through online trajectory optimization", IROS 2012: a backward
// pass on the local quadratic model of the cost-to-go, a forward rollout of
// the new policy u = u_k + alpha d_k + K_k (x - x_k), and Levenberg-Marquardt
// style regularization of Vxx when Quu is not positive definite or no step
// lowers the cost.
//
// Starts from the hanging rest state with zero force and ends upright at
// rest; prints the cost per iteration. Exit status 1 if it does not reach
// the goal.
#include <Eigen/Cholesky>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/example_models.h"

namespace {

using tern::DiscreteDynamics;
using tern::DiscreteJacobian;
using tern::RK4;
using Model = tern::examples::Cartpole;
using X = Eigen::Vector4d;
using U = Eigen::Matrix<double, 1, 1>;
using Jac = Eigen::Matrix<double, 4, 5>;

constexpr int kKnots = 61;     // N knot points, N - 1 steps
constexpr double kDt = 0.05;   // s
const X kStart(0, 0, 0, 0);    // hanging at rest
const X kGoal(0, M_PI, 0, 0);  // upright at rest

// Cost: sum_k 1/2 (x-g)'Q(x-g) + 1/2 u'Ru (times dt) + 1/2 (x-g)'Qf(x-g).
const Eigen::Matrix4d kQ = 0.01 * Eigen::Matrix4d::Identity();
const double kR = 0.1;
const Eigen::Matrix4d kQf = 1000 * Eigen::Matrix4d::Identity();

double Cost(const std::vector<X>& x, const std::vector<U>& u) {
  double J = 0;
  for (int k = 0; k + 1 < kKnots; ++k) {
    const X e = x[k] - kGoal;
    J += 0.5 * (e.dot(kQ * e) + kR * u[k](0) * u[k](0)) * kDt;
  }
  const X e = x[kKnots - 1] - kGoal;
  return J + 0.5 * e.dot(kQf * e);
}

double Rollout(const Model& model, std::vector<X>* x, std::vector<U>* u) {
  (*x)[0] = kStart;
  for (int k = 0; k + 1 < kKnots; ++k) {
    (*x)[k + 1] = DiscreteDynamics<RK4>(model, (*x)[k], (*u)[k], k * kDt, kDt);
  }
  return Cost(*x, *u);
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  const Model model;
  std::vector<X> x(kKnots), x_new(kKnots);
  std::vector<U> u(kKnots, U::Zero()), u_new(kKnots, U::Zero());
  std::vector<Jac> jac(kKnots);
  std::vector<Eigen::Matrix<double, 1, 4>> K(kKnots);
  std::vector<double> d(kKnots);

  double cost = Rollout(model, &x, &u);
  double mu = 1e-6;  // regularization of Vxx
  std::printf("iter %3d  cost %12.6f\n", 0, cost);
  bool converged = false;
  int iter = 1;
  for (; iter <= 200 && !converged; ++iter) {
    for (int k = 0; k + 1 < kKnots; ++k) {
      DiscreteJacobian<RK4>(model, x[k], u[k], k * kDt, kDt, &jac[k]);
    }
    // Backward pass.
    bool backward_ok = false;
    double expected_1 = 0, expected_2 = 0;  // dJ(alpha) = a e1 + a^2 e2
    while (!backward_ok) {
      X Vx = kQf * (x[kKnots - 1] - kGoal);
      Eigen::Matrix4d Vxx = kQf;
      backward_ok = true;
      expected_1 = expected_2 = 0;
      for (int k = kKnots - 2; k >= 0; --k) {
        const Eigen::Matrix4d A = jac[k].leftCols<4>();
        const X B = jac[k].col(4);
        const X lx = kQ * (x[k] - kGoal) * kDt;
        const double lu = kR * u[k](0) * kDt;
        const X Qx = lx + A.transpose() * Vx;
        const double Qu = lu + B.dot(Vx);
        const Eigen::Matrix4d Vreg = Vxx + mu * Eigen::Matrix4d::Identity();
        const Eigen::Matrix4d Qxx = kQ * kDt + A.transpose() * Vxx * A;
        const double Quu = kR * kDt + B.dot(Vreg * B);
        const Eigen::Matrix<double, 1, 4> Qux = B.transpose() * Vreg * A;
        if (!(Quu > 0)) {
          backward_ok = false;
          mu = std::max(mu * 10, 1e-6);
          break;
        }
        d[k] = -Qu / Quu;
        K[k] = -Qux / Quu;
        expected_1 += d[k] * Qu;
        expected_2 += 0.5 * d[k] * d[k] * Quu;
        Vx = Qx + K[k].transpose() * Quu * d[k] + K[k].transpose() * Qu +
             Qux.transpose() * d[k];
        Vxx = Qxx + K[k].transpose() * Quu * K[k] + K[k].transpose() * Qux +
              Qux.transpose() * K[k];
        Vxx = 0.5 * (Vxx + Vxx.transpose()).eval();
      }
    }
    // Forward pass with a backtracking line search.
    double alpha = 1.0;
    bool accepted = false;
    double new_cost = cost;
    for (int ls = 0; ls < 10 && !accepted; ++ls, alpha *= 0.5) {
      x_new[0] = kStart;
      for (int k = 0; k + 1 < kKnots; ++k) {
        u_new[k](0) = u[k](0) + alpha * d[k] + K[k].dot(x_new[k] - x[k]);
        x_new[k + 1] =
            DiscreteDynamics<RK4>(model, x_new[k], u_new[k], k * kDt, kDt);
      }
      new_cost = Cost(x_new, u_new);
      const double expected =
          -(alpha * expected_1 + alpha * alpha * expected_2);
      accepted = new_cost < cost && (cost - new_cost) > 1e-4 * expected;
    }
    if (accepted) {
      const double change = cost - new_cost;
      std::swap(x, x_new);
      std::swap(u, u_new);
      cost = new_cost;
      mu = std::max(mu / 10, 1e-9);
      std::printf("iter %3d  cost %12.6f  step %.4f  reg %.1e\n", iter, cost,
                  2 * alpha, mu);
      converged = change < 1e-6 * cost;
    } else {
      mu = std::max(mu * 10, 1e-6);
      std::printf("iter %3d  cost %12.6f  (no step; reg %.1e)\n", iter, cost,
                  mu);
      if (mu > 1e10) break;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const X xf = x[kKnots - 1];
  std::printf(
      "final state p %.4f m, theta %.4f rad (goal pi), pdot %.4f, thetadot "
      "%.4f; %d iterations, %.3f s\n",
      xf(0), xf(1), xf(2), xf(3), iter - 1, seconds);
  const bool at_goal = (xf - kGoal).cwiseAbs().maxCoeff() < 1e-2;
  std::printf(at_goal ? "reached the upright goal\n"
                      : "did NOT reach the goal\n");
  return at_goal ? 0 : 1;
}
