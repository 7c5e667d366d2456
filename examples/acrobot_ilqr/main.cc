// Swing-up of the double pendulum of models/acrobot.urdf by iterative LQR on
// a RigidBodyTree, with the analytic discrete Jacobians of RK4
// (RigidBodyDynamicsModel, JacobianMethod::kAnalytic: the analytic
// derivatives of the forward dynamics chained through the rule; issue 20).
// Both joints are actuated here (u = tau), the shoulder's torque weighted
// ten times the elbow's; it is the acrobot's body, not Spong's
// underactuated problem.
//
// iLQR (Li & Todorov, ICINCO 2004) with the regularization and line search
// of Tassa, Erez & Todorov (IROS 2012), as examples/cartpole_swingup, on
// run-time sized matrices. Starts hanging at rest with zero torque, ends
// upright at rest; prints the cost per iteration and the time of the
// Jacobians against autodiff. Exit status 1 if it does not reach the goal.
#include <Eigen/Cholesky>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/rigid_body_model.h"

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using tern::DiscreteDynamics;
using tern::DiscreteJacobian;
using tern::RK4;

constexpr int kKnots = 101;   // N knot points, N - 1 steps
constexpr double kDt = 0.02;  // s

struct Problem {
  const tern::RigidBodyDynamicsModel& model;
  VectorXd start, goal;
  MatrixXd Q, R, Qf;

  double Cost(const std::vector<VectorXd>& x,
              const std::vector<VectorXd>& u) const {
    double J = 0;
    for (int k = 0; k + 1 < kKnots; ++k) {
      const VectorXd e = x[k] - goal;
      J += 0.5 * (e.dot(Q * e) + u[k].dot(R * u[k])) * kDt;
    }
    const VectorXd e = x[kKnots - 1] - goal;
    return J + 0.5 * e.dot(Qf * e);
  }
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

int main() {
  const auto start_time = std::chrono::steady_clock::now();
  const auto urdf =
      tern::ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/acrobot.urdf");
  const tern::RigidBodyDynamicsModel model(urdf.tree);
  const int n = static_cast<int>(model.num_states());
  const int m = static_cast<int>(model.num_inputs());
  Problem P{model,
            VectorXd::Zero(n),
            VectorXd::Zero(n),
            0.01 * MatrixXd::Identity(n, n),
            MatrixXd::Identity(m, m),
            1000 * MatrixXd::Identity(n, n)};
  P.goal(0) = M_PI;  // shoulder up, elbow straight, at rest
  P.R(0, 0) = 1.0;
  P.R(1, 1) = 0.1;

  std::vector<VectorXd> x(kKnots, VectorXd::Zero(n)), x_new = x;
  std::vector<VectorXd> u(kKnots, VectorXd::Zero(m)), u_new = u;
  std::vector<MatrixXd> jac(kKnots, MatrixXd(n, n + m));
  std::vector<MatrixXd> K(kKnots, MatrixXd::Zero(m, n));
  std::vector<VectorXd> d(kKnots, VectorXd::Zero(m));
  auto rollout = [&](std::vector<VectorXd>* xs, std::vector<VectorXd>* us) {
    (*xs)[0] = P.start;
    for (int k = 0; k + 1 < kKnots; ++k) {
      (*xs)[k + 1] =
          DiscreteDynamics<RK4>(model, (*xs)[k], (*us)[k], k * kDt, kDt);
    }
    return P.Cost(*xs, *us);
  };
  double cost = rollout(&x, &u);
  double mu = 1e-6;  // regularization of Vxx
  double jacobian_seconds = 0;
  std::printf("iter %3d  cost %12.6f\n", 0, cost);
  bool converged = false;
  int iter = 1;
  for (; iter <= 300 && !converged; ++iter) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k + 1 < kKnots; ++k) {
      DiscreteJacobian<RK4>(model, x[k], u[k], k * kDt, kDt, &jac[k],
                            tern::JacobianMethod::kAnalytic);
    }
    jacobian_seconds += Seconds(t0);
    // Backward pass on the quadratic model of the cost-to-go.
    bool backward_ok = false;
    double expected_1 = 0, expected_2 = 0;  // dJ(alpha) = a e1 + a^2 e2
    while (!backward_ok) {
      VectorXd Vx = P.Qf * (x[kKnots - 1] - P.goal);
      MatrixXd Vxx = P.Qf;
      backward_ok = true;
      expected_1 = expected_2 = 0;
      for (int k = kKnots - 2; k >= 0; --k) {
        const MatrixXd A = jac[k].leftCols(n);
        const MatrixXd B = jac[k].rightCols(m);
        const VectorXd Qx = P.Q * (x[k] - P.goal) * kDt + A.transpose() * Vx;
        const VectorXd Qu = P.R * u[k] * kDt + B.transpose() * Vx;
        const MatrixXd Vreg = Vxx + mu * MatrixXd::Identity(n, n);
        const MatrixXd Qxx = P.Q * kDt + A.transpose() * Vxx * A;
        const MatrixXd Quu = P.R * kDt + B.transpose() * Vreg * B;
        const MatrixXd Qux = B.transpose() * Vreg * A;
        const Eigen::LLT<MatrixXd> llt(Quu);
        if (llt.info() != Eigen::Success) {
          backward_ok = false;
          mu = std::max(mu * 10, 1e-6);
          break;
        }
        d[k] = -llt.solve(Qu);
        K[k] = -llt.solve(Qux);
        expected_1 += d[k].dot(Qu);
        expected_2 += 0.5 * d[k].dot(Quu * d[k]);
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
      x_new[0] = P.start;
      for (int k = 0; k + 1 < kKnots; ++k) {
        u_new[k] = u[k] + alpha * d[k] + K[k] * (x_new[k] - x[k]);
        x_new[k + 1] =
            DiscreteDynamics<RK4>(model, x_new[k], u_new[k], k * kDt, kDt);
      }
      new_cost = P.Cost(x_new, u_new);
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
  // The same Jacobians by autodiff through the tree, for comparison (20
  // knots: it is the slow way).
  constexpr int kTimed = 20;
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < kTimed; ++k) {
    DiscreteJacobian<RK4>(model, x[k], u[k], k * kDt, kDt, &jac[k],
                          tern::JacobianMethod::kAutoDiff);
  }
  const double autodiff_sweep = Seconds(t0);
  const VectorXd& xf = x[kKnots - 1];
  std::printf(
      "final state q = (%.4f, %.4f) rad (goal (pi, 0)), v = (%.4f, %.4f); "
      "%d iterations, %.3f s\n",
      xf(0), xf(1), xf(2), xf(3), iter - 1, Seconds(start_time));
  std::printf(
      "analytic RK4 Jacobians: %.1f us per knot; autodiff: %.1f us per knot\n",
      1e6 * jacobian_seconds / ((iter - 1) * (kKnots - 1)),
      1e6 * autodiff_sweep / kTimed);
  const bool at_goal = (xf - P.goal).cwiseAbs().maxCoeff() < 1e-2;
  std::printf(at_goal ? "reached the upright goal\n"
                      : "did NOT reach the goal\n");
  return at_goal ? 0 : 1;
}
