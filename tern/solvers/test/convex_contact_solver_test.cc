#include "tern/solvers/convex_contact_solver.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

#include "tern/solvers/lemke.h"
#include "tern/solvers/test/random_lcp.h"
#include "tern/test_support/allocation_counter.h"

namespace tern::solvers {
namespace {

using Kind = ConvexConstraintKind;
constexpr double kPi = std::numbers::pi;

struct Answer {
  ConvexSolverResult result;
  Eigen::VectorXd v, gamma;
};

Answer Solve(const Eigen::MatrixXd& A, const Eigen::VectorXd& v_star,
             const Eigen::MatrixXd& J, const Eigen::VectorXd& b,
             const std::vector<ConvexConstraint>& c,
             const ConvexSolverSettings& settings = {},
             Eigen::VectorXd gamma0 = {}) {
  ConvexSolverWorkspace ws;
  Answer a;
  a.v = v_star;
  a.gamma =
      gamma0.size() == J.rows() ? gamma0 : Eigen::VectorXd::Zero(J.rows());
  a.result =
      SolveConvexContact(A, v_star, J, b, c, settings, &ws, a.v, a.gamma);
  return a;
}

// A robot-like tree of dofs, parents first: a floating base (a chain of
// nbase dofs) with nbranch branches of depth dofs; each dof's parent (-1:
// the root).
std::vector<int> RobotLikeParents(int nbase, int nbranch, int depth) {
  std::vector<int> parent(nbase + nbranch * depth, -1);
  for (int i = 1; i < nbase; ++i) parent[i] = i - 1;
  for (int b = 0; b < nbranch; ++b) {
    for (int k = 0; k < depth; ++k) {
      const int i = nbase + b * depth + k;
      parent[i] = k == 0 ? nbase - 1 : i - 1;
    }
  }
  return parent;
}

// Dof i and its ancestors, i first.
std::vector<int> PathToRoot(const std::vector<int>& parent, int i) {
  std::vector<int> path;
  for (int j = i; j >= 0; j = parent[j]) path.push_back(j);
  return path;
}

// A point mass m (3 dofs: x, y, z) on the plane z = 0: rows normal (z), t1
// (x), t2 (y).
Eigen::MatrixXd PointRows() {
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3, 3);
  J(0, 2) = 1;
  J(1, 0) = 1;
  J(2, 1) = 1;
  return J;
}

// Sticking: each row is independent (W = I / m), so gamma_i = -vc*_i / (1/m
// + R_i) with the near-rigid R of the header: R_n = w / (4 pi^2), R_t = 1e-3
// w, w = 1 / m.
TEST(ConvexContactSolverTest, StickingContactClosedForm) {
  const double m = 2.0, g = 9.81, h = 1e-3, mu = 0.5;
  const Eigen::MatrixXd A = m * Eigen::MatrixXd::Identity(3, 3);
  const Eigen::Vector3d v_star(0.001, -0.002, -g * h);
  const Answer a = Solve(A, v_star, PointRows(), Eigen::VectorXd::Zero(3),
                         {{Kind::kContact, mu, 0}});
  ASSERT_TRUE(a.result.converged);
  const double w = 1 / m, Rn = w / (4 * kPi * kPi), Rt = 1e-3 * w;
  EXPECT_NEAR(a.gamma[0], g * h / (w + Rn), 1e-12);
  EXPECT_NEAR(a.gamma[1], -0.001 / (w + Rt), 1e-12);
  EXPECT_NEAR(a.gamma[2], 0.002 / (w + Rt), 1e-12);
  // Momentum balance A (v - v*) = J^T gamma.
  EXPECT_LT((A * (a.v - v_star) - PointRows().transpose() * a.gamma).norm(),
            1e-12);
  EXPECT_LE(a.result.iterations, 5);
}

// A frictionless contact (mu = 0) never pulls: a point mass moving away
// from the plane, or closing less than a speculative gap b_n, gets no
// impulse; one approaching gets the normal impulse alone. (With mu = 0 and
// no slip, the projection once took y_t = 0 <= mu y_n as stiction for a
// negative y_n too and pulled the mass onto the plane.)
TEST(ConvexContactSolverTest, FrictionlessContactNeverPulls) {
  const double m = 1.0;
  const Eigen::MatrixXd A = m * Eigen::MatrixXd::Identity(3, 3);
  for (double vz : {0.5, 0.0, -0.5}) {
    const Eigen::Vector3d v_star(0, 0, vz);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(3);
    b[0] = 1.0;  // a gap of 1 mm at h = 1 ms
    const Answer a =
        Solve(A, v_star, PointRows(), b, {{Kind::kContact, 0.0, 0}});
    ASSERT_TRUE(a.result.converged) << vz;
    EXPECT_EQ(a.gamma[0], 0.0) << vz;
    EXPECT_EQ(a.v[2], vz) << vz;
  }
  const Eigen::Vector3d v_star(0.2, 0, -0.5);
  const Answer a = Solve(A, v_star, PointRows(), Eigen::VectorXd::Zero(3),
                         {{Kind::kContact, 0.0, 0}});
  ASSERT_TRUE(a.result.converged);
  EXPECT_GT(a.gamma[0], 0.4);
  EXPECT_EQ(a.gamma[1], 0.0);
  EXPECT_EQ(a.v[0], 0.2);  // slides on, no friction
}

// Sliding in any direction: the friction impulse is mu gamma_n exactly and
// opposes the sliding velocity, with the same magnitude at every angle (the
// round cone; a polyhedral cone of 4 directions gives 1 / sqrt 2 less at 45
// degrees). The normal velocity is the convex formulation's "gliding"
// (Anitescu 2006; Castro et al. 2023 sec. V): from the projection's closed
// form, v_n = mu |v_t| - R_n (1 + mu^2 R_t / R_n) gamma_n.
TEST(ConvexContactSolverTest, SlidingContactIsIsotropic) {
  const double m = 1.0, g = 9.81, h = 1e-3, mu = 0.3;
  const Eigen::MatrixXd A = m * Eigen::MatrixXd::Identity(3, 3);
  double first = -1;
  for (double deg = 0; deg < 360; deg += 22.5) {
    const double th = deg * kPi / 180;
    const Eigen::Vector3d v_star(std::cos(th), std::sin(th), -g * h);
    const Answer a = Solve(A, v_star, PointRows(), Eigen::VectorXd::Zero(3),
                           {{Kind::kContact, mu, 0}});
    ASSERT_TRUE(a.result.converged) << deg;
    const double gt = std::hypot(a.gamma[1], a.gamma[2]);
    EXPECT_NEAR(gt, mu * a.gamma[0], 1e-12 * a.gamma[0]) << deg;
    // Opposes the sliding velocity (x, y of v).
    const double vt = std::hypot(a.v[0], a.v[1]);
    EXPECT_NEAR(a.gamma[1] * a.v[0] + a.gamma[2] * a.v[1], -gt * vt,
                1e-9 * gt * vt)
        << deg;
    if (first < 0) first = gt;
    EXPECT_NEAR(gt, first, 1e-12 * first) << deg;
    const double w = 1 / m, Rn = w / (4 * kPi * kPi), Rt = 1e-3 * w;
    EXPECT_NEAR(a.v[2], mu * vt - Rn * (1 + mu * mu * Rt / Rn) * a.gamma[0],
                1e-9)
        << deg;
    // Newton on a single contact: a few iterations.
    EXPECT_LE(a.result.iterations, 10) << deg;
  }
}

// A point mass on a slope of angle theta, stepped 400 times with its
// distance phi to the slope integrated and the bias b_n = max(phi, 0) / h
// (the plant's speculative row): with mu = tan(theta) + 0.05 it sticks
// (tangential speed at most the creep of the regularization), with mu =
// tan(theta) - 0.05 it slides with the acceleration g (sin theta - mu cos
// theta) within 1%, gliding above the slope by about mu |v_t| h.
TEST(ConvexContactSolverTest, BoxOnASlopeAtTheFrictionAngle) {
  const double m = 3.0, g = 9.81, h = 1e-3, theta = 0.4;
  const Eigen::MatrixXd A = m * Eigen::MatrixXd::Identity(3, 3);
  // Frame: x down the slope, z the slope's normal.
  const Eigen::Vector3d g_local(g * std::sin(theta), 0, -g * std::cos(theta));
  for (double dmu : {0.05, -0.05}) {
    const double mu = std::tan(theta) + dmu;
    Eigen::Vector3d v = Eigen::Vector3d::Zero();
    ConvexSolverWorkspace ws;
    Eigen::VectorXd gamma = Eigen::VectorXd::Zero(3);
    double v_prev = 0, phi = 0, phi_max = 0;
    Eigen::VectorXd b = Eigen::VectorXd::Zero(3);
    for (int step = 0; step < 400; ++step) {
      const Eigen::Vector3d v_star = v + h * g_local;
      Eigen::VectorXd vn = v_star;
      b[0] = std::max(phi, 0.0) / h;
      const ConvexSolverResult r =
          SolveConvexContact(A, v_star, PointRows(), b,
                             {{Kind::kContact, mu, 0}}, {}, &ws, vn, gamma);
      ASSERT_TRUE(r.converged);
      v_prev = v[0];
      v = vn;
      phi += h * v[2];
      if (step > 200) phi_max = std::max(phi_max, phi);
    }
    EXPECT_LT(phi_max, mu * std::abs(v[0]) * h + 1e-6);
    if (dmu > 0) {
      // Creep: sigma w |gamma_t| per step = 1e-3 g sin(theta) h.
      EXPECT_LT(std::abs(v[0]), 2e-3 * g * std::sin(theta) * h);
    } else {
      const double a = (v[0] - v_prev) / h;
      const double expected = g * (std::sin(theta) - mu * std::cos(theta));
      EXPECT_NEAR(a, expected, 0.01 * expected);
    }
  }
}

// Anchored friction (ConvexSolverSettings::anchor_sticking), steps of a
// point mass held on a slope by friction (mu = tan(theta) + 0.05), each
// warm started from the last impulses: without the anchor it creeps at the
// regularization's steady rate, v = sigma g sin(theta) h (W = 1 / m, R_t =
// sigma W); with it the creep decays by sigma / (1 + sigma) per step to
// round-off. The same for a hinge of inertia I held by dry friction B
// against a torque tau < B / h (a bounded row): sigma h tau / I without,
// round-off with. A wrong anchor (impulses in the cone where no friction is
// needed: a mass at rest on flat ground) costs one step at most the creep
// sigma W |gamma0_t|, and the next steps forget it.
TEST(ConvexContactSolverTest, AnchoredFrictionStopsTheCreep) {
  const double m = 3.0, g = 9.81, h = 1e-3, theta = 0.4, sigma = 1e-3;
  const Eigen::MatrixXd A = m * Eigen::MatrixXd::Identity(3, 3);
  const Eigen::Vector3d g_local(g * std::sin(theta), 0, -g * std::cos(theta));
  const double mu = std::tan(theta) + 0.05;
  for (bool anchor : {false, true}) {
    SCOPED_TRACE(anchor);
    ConvexSolverSettings settings;
    settings.anchor_sticking = anchor;
    ConvexSolverWorkspace ws;
    Eigen::VectorXd gamma = Eigen::VectorXd::Zero(3), b = gamma;
    Eigen::Vector3d v = Eigen::Vector3d::Zero();
    for (int step = 0; step < 50; ++step) {
      const Eigen::Vector3d v_star = v + h * g_local;
      Eigen::VectorXd vn = v_star;
      ASSERT_TRUE(SolveConvexContact(A, v_star, PointRows(), b,
                                     {{Kind::kContact, mu, 0}}, settings, &ws,
                                     vn, gamma)
                      .converged);
      v = vn;
    }
    const double creep = sigma * g * std::sin(theta) * h;
    if (anchor) {
      EXPECT_LT(std::abs(v[0]), 1e-6 * creep);
    } else {
      EXPECT_NEAR(v[0], creep, 1e-3 * creep);
    }
  }
  // The hinge: one dof, a bounded row.
  const double I = 2.0, B = 1e-3, tau = 0.5;  // tau h = 5e-4 < B
  const Eigen::MatrixXd Ah = Eigen::MatrixXd::Constant(1, 1, I);
  const Eigen::MatrixXd Jh = Eigen::MatrixXd::Ones(1, 1);
  for (bool anchor : {false, true}) {
    SCOPED_TRACE(anchor);
    ConvexSolverSettings settings;
    settings.anchor_sticking = anchor;
    ConvexSolverWorkspace ws;
    Eigen::VectorXd gamma = Eigen::VectorXd::Zero(1), b = gamma, v = gamma;
    for (int step = 0; step < 50; ++step) {
      const Eigen::VectorXd v_star =
          v + Eigen::VectorXd::Constant(1, h * tau / I);
      v = v_star;
      ASSERT_TRUE(SolveConvexContact(Ah, v_star, Jh, b,
                                     {{Kind::kBounded, 0, 0, -1, B}}, settings,
                                     &ws, v, gamma)
                      .converged);
    }
    const double creep = sigma * h * tau / I;
    if (anchor) {
      EXPECT_LT(std::abs(v[0]), 1e-6 * creep);
    } else {
      EXPECT_NEAR(v[0], creep, 1e-3 * creep);
    }
  }
  // A wrong anchor: gamma0_t = 0.4 mu gamma0_n on flat ground, at rest.
  ConvexSolverSettings anchored;
  anchored.anchor_sticking = true;
  ConvexSolverWorkspace ws;
  const Eigen::Vector3d v_star(0, 0, -g * h);
  Eigen::VectorXd gamma(3);
  gamma << m * g * h, 0.4 * 0.5 * m * g * h, 0;
  Eigen::VectorXd v = v_star;
  const Eigen::VectorXd b = Eigen::VectorXd::Zero(3);
  const std::vector<ConvexConstraint> flat{{Kind::kContact, 0.5, 0}};
  const double first_creep = sigma / m * gamma[1];
  ASSERT_TRUE(SolveConvexContact(A, v_star, PointRows(), b, flat, anchored, &ws,
                                 v, gamma)
                  .converged);
  EXPECT_GT(std::abs(v[0]), 0.5 * first_creep);
  EXPECT_LT(std::abs(v[0]), first_creep);
  for (int step = 0; step < 5; ++step) {
    const Eigen::Vector3d vs = v + Eigen::Vector3d(0, 0, -g * h);
    v = vs;
    ASSERT_TRUE(
        SolveConvexContact(A, vs, PointRows(), b, flat, anchored, &ws, v, gamma)
            .converged);
  }
  EXPECT_LT(std::abs(v[0]), 1e-6 * first_creep);
}

// Joint limit (unilateral) and bilateral rows on a point mass: closed forms.
TEST(ConvexContactSolverTest, UnilateralAndBilateralClosedForms) {
  const Eigen::MatrixXd A = Eigen::Vector2d(2.0, 4.0).asDiagonal();
  Eigen::MatrixXd J(2, 2);
  J << 1, 0, 0, 1;
  const Eigen::Vector2d v_star(-1.0, 0.5), b(0.1, -0.2);
  // Row 0: unilateral, violated (vc = -0.9 < 0): pushed to vc = -R gamma.
  // Row 1: bilateral, vc = 0.3: pulled back to -R gamma.
  const double R0 = 1e-4, R1 = 2e-4;  // given compliances
  const Answer a = Solve(
      A, v_star, J, b, {{Kind::kUnilateral, 0, R0}, {Kind::kBilateral, 0, R1}});
  ASSERT_TRUE(a.result.converged);
  EXPECT_NEAR(a.gamma[0], 0.9 / (0.5 + R0), 1e-10);
  EXPECT_NEAR(a.gamma[1], -0.3 / (0.25 + R1), 1e-10);
  // A separating unilateral row takes no impulse.
  const Answer s = Solve(A, Eigen::Vector2d(1.0, 0.0), J, b,
                         {{Kind::kUnilateral, 0, 0}, {Kind::kBilateral, 0, 0}});
  EXPECT_EQ(s.gamma[0], 0.0);
  EXPECT_NEAR(s.v[0], 1.0, 1e-14);
}

// With bilateral rows only, ell is quadratic: one Newton step lands on the
// minimizer, and the line search's first trial, the full step, is accepted:
// one trial, counted (the search once tried alpha_max = 1.5 first, a second
// trial per iteration that line_search_iterations did not count).
TEST(ConvexContactSolverTest, QuadraticCostTakesTheFullStepInOneTrial) {
  const Eigen::MatrixXd A = Eigen::Vector3d(2.0, 4.0, 1.0).asDiagonal();
  Eigen::MatrixXd J(2, 3);
  J << 1, -1, 0, 0, 1, 1;
  const Eigen::Vector3d v_star(-1.0, 0.5, 0.25);
  const Eigen::Vector2d b(0.1, -0.2);
  ConvexSolverSettings settings;
  settings.warm_start_impulses = false;  // start at v*
  const Answer a = Solve(
      A, v_star, J, b,
      {{Kind::kBilateral, 0, 1e-4}, {Kind::kBilateral, 0, 2e-4}}, settings);
  ASSERT_TRUE(a.result.converged);
  EXPECT_EQ(a.result.iterations, 1);
  EXPECT_EQ(a.result.line_search_iterations, 1);
  // The closed form: (J A^-1 J^T + R) gamma = -(J v* + b).
  const Eigen::Matrix2d W =
      J * A.inverse() * J.transpose() +
      Eigen::Vector2d(1e-4, 2e-4).asDiagonal().toDenseMatrix();
  const Eigen::Vector2d gamma = W.partialPivLu().solve(-(J * v_star + b));
  EXPECT_LT((a.gamma - gamma).norm(), 1e-12 * gamma.norm());
}

// A bounded row (joint dry friction, |gamma| <= B; MuJoCo's frictionloss)
// on one dof of inertia I, regularized as a tangential row: R = sigma / I.
// It sticks while |I v*| <= (1 + sigma) B: gamma = -I v* / (1 + sigma), v =
// sigma v* / (1 + sigma) (the creep); otherwise it slides with gamma = -B
// sign(v*) and v = v* - B sign(v*) / I; ell has its closed form in both.
TEST(ConvexContactSolverTest, BoundedRowClosedForm) {
  const double I = 2.0, B = 1.0, sigma = 1e-3, R = sigma / I;
  const Eigen::MatrixXd A = Eigen::MatrixXd::Constant(1, 1, I);
  const Eigen::MatrixXd J = Eigen::MatrixXd::Ones(1, 1);
  const Eigen::VectorXd b = Eigen::VectorXd::Zero(1);
  for (const double v_star : {0.3, -0.45, 0.5, 1.0, -3.0}) {
    SCOPED_TRACE(v_star);
    const Answer a = Solve(A, Eigen::VectorXd::Constant(1, v_star), J, b,
                           {{Kind::kBounded, 0, 0, -1, B}});
    ASSERT_TRUE(a.result.converged);
    if (std::abs(I * v_star) <= (1 + sigma) * B) {
      EXPECT_NEAR(a.gamma[0], -I * v_star / (1 + sigma), 1e-12);
      EXPECT_NEAR(a.v[0], sigma * v_star / (1 + sigma), 1e-12);
      const double cost = 0.5 * I * (a.v[0] - v_star) * (a.v[0] - v_star) +
                          0.5 * R * a.gamma[0] * a.gamma[0];
      EXPECT_NEAR(a.result.cost, cost, 1e-12);
    } else {
      const double s = v_star > 0 ? 1 : -1;
      EXPECT_EQ(a.gamma[0], -B * s);
      EXPECT_NEAR(a.v[0], v_star - B * s / I, 1e-12);
      // l = B |vc| - R B^2 / 2 (Huber).
      const double cost =
          0.5 * B * B / I + B * std::abs(a.v[0]) - 0.5 * R * B * B;
      EXPECT_NEAR(a.result.cost, cost, 1e-12);
    }
  }
  // Bound 0: no friction at all.
  const Answer z = Solve(A, Eigen::VectorXd::Constant(1, 0.2), J, b,
                         {{Kind::kBounded, 0, 0, -1, 0.0}});
  EXPECT_EQ(z.gamma[0], 0.0);
  EXPECT_EQ(z.v[0], 0.2);
}

// Random coupled problems with bounded rows only: with a tiny
// regularization (sigma = 1e-9) the answer is the exact box-constrained
// one, which Lemke finds on the box written as an LCP (p = p+ - p-, a
// slack lambda: w+- = +-u + lambda, zeta = B - p+ - p-). Both regimes (rows
// at their bound, rows inside) occur.
TEST(ConvexContactSolverTest, BoundedRowsAgreeWithTheBoxLcp) {
  std::mt19937_64 rng(41);
  int at_bound = 0, inside = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 5, m = 3;
    const Eigen::MatrixXd A = test::RandomSpd(n, &rng);
    const Eigen::MatrixXd J = test::RandomMatrix(m, n, &rng);
    const Eigen::VectorXd v_star = test::RandomVector(n, &rng);
    const Eigen::VectorXd b = Eigen::VectorXd::Zero(m);
    const double B = trial % 2 ? 0.1 : 1.0;
    std::vector<ConvexConstraint> c(m, {Kind::kBounded, 0, 0, -1, B});
    ConvexSolverSettings settings;
    settings.sigma = 1e-9;
    const Answer a = Solve(A, v_star, J, b, c, settings);
    ASSERT_TRUE(a.result.converged) << trial;
    // The box as an LCP.
    const Eigen::MatrixXd Ainv = A.inverse();
    const Eigen::MatrixXd W = J * Ainv * J.transpose();
    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(m, 3 * m);
    for (int i = 0; i < m; ++i) E(i, 3 * i) = 1, E(i, 3 * i + 1) = -1;
    Eigen::MatrixXd M = E.transpose() * W * E;
    Eigen::VectorXd q = E.transpose() * (J * v_star);
    for (int i = 0; i < m; ++i) {
      M(3 * i, 3 * i + 2) = M(3 * i + 1, 3 * i + 2) = 1;
      M(3 * i + 2, 3 * i) = M(3 * i + 2, 3 * i + 1) = -1;
      q[3 * i + 2] = B;
    }
    LemkeWorkspace ws;
    Eigen::VectorXd z = Eigen::VectorXd::Zero(3 * m), w(3 * m);
    ASSERT_TRUE(SolveLcpLemke(M, q, {}, &ws, z, w).ok()) << trial;
    const Eigen::VectorXd p = E * z;
    EXPECT_LE((a.gamma - p).cwiseAbs().maxCoeff(), 1e-6 * B) << trial;
    EXPECT_LE((a.v - (v_star + Ainv * J.transpose() * p)).norm(),
              1e-6 * (1 + v_star.norm()))
        << trial;
    for (int i = 0; i < m; ++i) {
      EXPECT_LE(std::abs(a.gamma[i]), B);
      (std::abs(a.gamma[i]) == B ? at_bound : inside)++;
    }
  }
  EXPECT_GT(at_bound, 5);
  EXPECT_GT(inside, 5);
}

// The Anitescu-Potra LCP with k friction directions for the same problem:
// unknowns (c_n, beta_1..k, lambda) per contact; v = v* + A^-1 J^T gamma.
struct LcpAnswer {
  Eigen::VectorXd v;
  bool ok;
};
LcpAnswer SolveWithLemke(const Eigen::MatrixXd& A,
                         const Eigen::VectorXd& v_star,
                         const Eigen::MatrixXd& J, const Eigen::VectorXd& mu,
                         int k) {
  const int nc = static_cast<int>(mu.size());
  const int bsz = k + 2;
  const Eigen::MatrixXd Ainv = A.inverse();
  // E maps LCP unknowns to row impulses (3 nc).
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(3 * nc, bsz * nc);
  for (int c = 0; c < nc; ++c) {
    E(3 * c, bsz * c) = 1;
    for (int j = 0; j < k; ++j) {
      const double a = 2 * kPi * j / k;
      E(3 * c + 1, bsz * c + 1 + j) = std::cos(a);
      E(3 * c + 2, bsz * c + 1 + j) = std::sin(a);
    }
  }
  const Eigen::MatrixXd W = J * Ainv * J.transpose();
  Eigen::MatrixXd M = E.transpose() * W * E;
  Eigen::VectorXd q = E.transpose() * (J * v_star);
  for (int c = 0; c < nc; ++c) {
    const int o = bsz * c;
    M.block(o + 1, o + k + 1, k, 1).setOnes();
    M(o + k + 1, o) = mu[c];
    M.block(o + k + 1, o + 1, 1, k).setConstant(-1.0);
  }
  LemkeWorkspace ws;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(q.size()), w(q.size());
  const LcpResult r = SolveLcpLemke(M, q, {}, &ws, z, w);
  return {v_star + Ainv * J.transpose() * (E * z), r.ok()};
}

// Small random problems: with a small regularization (beta = 1e-2, sigma =
// 1e-6) the answer is the rigid round-cone one where no contact slides
// (sticking contacts, contacts separating with v_n >= mu |v_t|,
// frictionless ones), which Lemke with 64 directions on the Anitescu-Potra
// LCP approximates to cos(pi / 64) = 0.9988 in the friction impulse. (Where
// a contact slides, or separates slower than mu |v_t|, the convex answer
// glides: v_n = mu |v_t| with an impulse, and the LCP's does not: not
// compared.)
TEST(ConvexContactSolverTest, AgreesWithLemkeOnManyDirections) {
  std::mt19937_64 rng(28);
  ConvexSolverSettings settings;
  settings.beta = 1e-2;
  settings.sigma = 1e-6;
  settings.rel_tolerance = 1e-10;
  settings.max_iterations = 300;
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int nc = 1 + trial % 2;
    const int n = 3 * nc + 3;
    const Eigen::MatrixXd B = test::RandomMatrix(n, n, &rng);
    const Eigen::MatrixXd A =
        B * B.transpose() + 0.5 * Eigen::MatrixXd::Identity(n, n);
    const Eigen::MatrixXd J = test::RandomMatrix(3 * nc, n, &rng);
    Eigen::VectorXd v_star = test::RandomVector(n, &rng);
    Eigen::VectorXd mu(nc);
    std::vector<ConvexConstraint> c;
    for (int i = 0; i < nc; ++i) {
      // Every third problem frictionless; the others with large friction,
      // so that most contacts stick.
      mu[i] = trial % 3 == 0
                  ? 0.0
                  : 1.0 + 2.0 * std::abs(test::RandomVector(1, &rng)[0]);
      c.push_back({Kind::kContact, mu[i], 0});
    }
    const Answer a =
        Solve(A, v_star, J, Eigen::VectorXd::Zero(3 * nc), c, settings);
    ASSERT_TRUE(a.result.converged) << trial;
    const LcpAnswer l = SolveWithLemke(A, v_star, J, mu, 64);
    if (!l.ok) continue;
    const Eigen::VectorXd vc = J * l.v;
    bool sliding = false;
    for (int i = 0; i < nc; ++i) {
      const double vt = vc.segment<2>(3 * i + 1).norm();
      sliding |= mu[i] > 0 && vt > 1e-9 && vc[3 * i] < mu[i] * vt;
    }
    if (sliding) continue;
    ++compared;
    const double scale = std::sqrt((v_star).dot(A * v_star));
    const Eigen::VectorXd d = a.v - l.v;
    EXPECT_LT(std::sqrt(d.dot(A * d)), 5e-3 * scale) << trial;
  }
  EXPECT_GE(compared, 25);
}

// Warm start from the answer's impulses: converged at once.
TEST(ConvexContactSolverTest, WarmStartFromTheAnswerTakesNoIteration) {
  std::mt19937_64 rng(7);
  const int n = 12, nc = 3;
  const Eigen::MatrixXd B = test::RandomMatrix(n, n, &rng);
  const Eigen::MatrixXd A = B * B.transpose() + Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd J = test::RandomMatrix(3 * nc, n, &rng);
  const Eigen::VectorXd v_star = test::RandomVector(n, &rng);
  std::vector<ConvexConstraint> c(nc, {Kind::kContact, 0.5, 0});
  const Answer cold = Solve(A, v_star, J, Eigen::VectorXd::Zero(3 * nc), c);
  ASSERT_TRUE(cold.result.converged);
  EXPECT_GT(cold.result.iterations, 0);
  const Answer warm =
      Solve(A, v_star, J, Eigen::VectorXd::Zero(3 * nc), c, {}, cold.gamma);
  ASSERT_TRUE(warm.result.converged);
  EXPECT_LE(warm.result.iterations, 1);
  EXPECT_LT((warm.v - cold.v).norm(), 1e-4 * v_star.norm());
}

// warm_start_best: of the impulse guess and the velocity guess, the solve
// starts from the one with the lower ell, and says which (with no impulses
// the impulse guess is v*); the answer does not depend on it.
TEST(ConvexContactSolverTest, WarmStartBestTakesTheLowestCostGuess) {
  std::mt19937_64 rng(17);
  const int n = 12, nc = 3;
  const Eigen::MatrixXd B = test::RandomMatrix(n, n, &rng);
  const Eigen::MatrixXd A = B * B.transpose() + Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd J = test::RandomMatrix(3 * nc, n, &rng);
  const Eigen::VectorXd v_star = test::RandomVector(n, &rng);
  const Eigen::VectorXd b = Eigen::VectorXd::Zero(3 * nc);
  std::vector<ConvexConstraint> c(nc, {Kind::kContact, 0.5, 0});
  const Answer cold = Solve(A, v_star, J, b, c);
  ASSERT_TRUE(cold.result.converged);
  ASSERT_GT(cold.result.iterations, 0);
  ConvexSolverSettings settings;
  settings.warm_start_best = true;
  ConvexSolverWorkspace ws;
  const Eigen::VectorXd far_v = v_star + 50 * Eigen::VectorXd::Ones(n);
  const Eigen::VectorXd far_gamma = 50 * Eigen::VectorXd::Ones(3 * nc);
  struct Case {
    Eigen::VectorXd v, gamma;
    int start;
  };
  const Case cases[] = {{cold.v, far_gamma, 1},
                        {far_v, cold.gamma, 0},
                        {far_v, Eigen::VectorXd::Zero(3 * nc), 0},
                        {cold.v, Eigen::VectorXd::Zero(3 * nc), 1}};
  for (const Case& k : cases) {
    Eigen::VectorXd v = k.v, gamma = k.gamma;
    const ConvexSolverResult r =
        SolveConvexContact(A, v_star, J, b, c, settings, &ws, v, gamma);
    ASSERT_TRUE(r.converged) << k.start;
    EXPECT_EQ(r.start, k.start);
    if (k.gamma.norm() != 0 || k.start == 1) {  // started from the answer
      EXPECT_LE(r.iterations, 1) << k.start;
    }
    EXPECT_LT((v - cold.v).norm(), 1e-4 * v_star.norm()) << k.start;
  }
}

// Independent problems solved as one island (block diagonal A, each
// contact on its own block: J is mostly structural zeros, n = 120 takes
// the blocked Cholesky) and one by one (n = 6, the plain Cholesky) give
// the same answers.
TEST(ConvexContactSolverTest, OneIslandOfIndependentBlocksAgreesBlockByBlock) {
  std::mt19937_64 rng(23);
  const int k = 20, nb = 6, n = k * nb;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3 * k, n);
  Eigen::VectorXd v_star(n);
  std::vector<ConvexConstraint> c;
  Eigen::VectorXd v_blocks(n);
  ConvexSolverSettings settings;
  settings.rel_tolerance = 1e-10;
  for (int i = 0; i < k; ++i) {
    const Eigen::MatrixXd Bi = test::RandomMatrix(nb, nb, &rng);
    const Eigen::MatrixXd Ai =
        Bi * Bi.transpose() + Eigen::MatrixXd::Identity(nb, nb);
    const Eigen::MatrixXd Ji = test::RandomMatrix(3, nb, &rng);
    const Eigen::VectorXd vi = test::RandomVector(nb, &rng);
    const ConvexConstraint ci{Kind::kContact, 0.2 + 0.1 * (i % 5), 0};
    A.block(nb * i, nb * i, nb, nb) = Ai;
    J.block(3 * i, nb * i, 3, nb) = Ji;
    v_star.segment(nb * i, nb) = vi;
    c.push_back(ci);
    const Answer one =
        Solve(Ai, vi, Ji, Eigen::VectorXd::Zero(3), {ci}, settings);
    ASSERT_TRUE(one.result.converged) << i;
    v_blocks.segment(nb * i, nb) = one.v;
  }
  const Answer all =
      Solve(A, v_star, J, Eigen::VectorXd::Zero(3 * k), c, settings);
  ASSERT_TRUE(all.result.converged);
  const Eigen::VectorXd d = all.v - v_blocks;
  EXPECT_LT(std::sqrt(d.dot(A * d)), 1e-5 * std::sqrt(v_star.dot(A * v_star)));
}

// Pairs of 3-dof bodies, each pair touching (a contact whose rows move
// both bodies) and one body of each pair on the ground: solved as one
// island of 20 pairs (A block diagonal: its own elimination tree has
// chains of 3 dofs, so the Delassus estimates walk two bodies' chains per
// contact; the Hessian factored along its tree or densely) and pair by
// pair (n = 6: dense throughout), the answers agree.
TEST(ConvexContactSolverTest, ContactsJoiningBlocksAgreePairByPair) {
  std::mt19937_64 rng(29);
  const int k = 20, nb = 3, n = 2 * nb * k;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6 * k, n);
  Eigen::VectorXd v_star(n), b(6 * k);
  std::vector<ConvexConstraint> c;
  Eigen::VectorXd v_pairs(n), gamma_pairs(6 * k);
  ConvexSolverSettings settings;
  settings.rel_tolerance = 1e-10;
  for (int i = 0; i < k; ++i) {
    const int o = 2 * nb * i;
    Eigen::MatrixXd Ai = Eigen::MatrixXd::Zero(2 * nb, 2 * nb);
    for (int body = 0; body < 2; ++body) {
      const Eigen::MatrixXd B = test::RandomMatrix(nb, nb, &rng);
      Ai.block(nb * body, nb * body, nb, nb) =
          B * B.transpose() + Eigen::MatrixXd::Identity(nb, nb);
    }
    Eigen::MatrixXd Ji = Eigen::MatrixXd::Zero(6, 2 * nb);
    Ji.topRows(3) = test::RandomMatrix(3, 2 * nb, &rng);  // both bodies
    Ji.bottomRows(3).leftCols(nb) = test::RandomMatrix(3, nb, &rng);  // ground
    const Eigen::VectorXd vi = test::RandomVector(2 * nb, &rng);
    const Eigen::VectorXd bi = -0.5 * (Ji * vi).cwiseAbs();
    const std::vector<ConvexConstraint> ci{{Kind::kContact, 0.4, 0},
                                           {Kind::kContact, 0.7, 0}};
    A.block(o, o, 2 * nb, 2 * nb) = Ai;
    J.block(6 * i, o, 6, 2 * nb) = Ji;
    v_star.segment(o, 2 * nb) = vi;
    b.segment(6 * i, 6) = bi;
    c.insert(c.end(), ci.begin(), ci.end());
    const Answer one = Solve(Ai, vi, Ji, bi, ci, settings);
    ASSERT_TRUE(one.result.converged) << i;
    EXPECT_FALSE(one.result.tree);
    v_pairs.segment(o, 2 * nb) = one.v;
    gamma_pairs.segment(6 * i, 6) = one.gamma;
  }
  EXPECT_GT(gamma_pairs.norm(), 0);  // the contacts act
  for (bool tree : {true, false}) {
    settings.tree_factorization = tree;
    const Answer all = Solve(A, v_star, J, b, c, settings);
    ASSERT_TRUE(all.result.converged) << tree;
    EXPECT_EQ(all.result.tree, tree);
    const Eigen::VectorXd d = all.v - v_pairs;
    EXPECT_LT(std::sqrt(d.dot(A * d)), 1e-8 * std::sqrt(v_star.dot(A * v_star)))
        << tree;
    EXPECT_LT((all.gamma - gamma_pairs).norm(), 1e-7 * gamma_pairs.norm())
        << tree;
  }
}

// A robot-like island: a floating base (a chain of 6 dofs) with 8
// branches of 3 dofs, parents first, A = L^T L with L nonzero only on the
// chains (a kinematic tree's mass matrix pattern). Contacts on one branch,
// one joining two branches (fill), a limit and a loop row. Solved in this
// order (factored along the elimination tree, result.tree) and with the
// dofs reversed (children first: the tree fills in, factored densely),
// the answers agree, and the tree path converges as fast.
TEST(ConvexContactSolverTest, TreeFactorizationAgreesWithDense) {
  std::mt19937_64 rng(31);
  const int nbase = 6, nbranch = 8, depth = 3, n = nbase + nbranch * depth;
  const std::vector<int> parent = RobotLikeParents(nbase, nbranch, depth);
  auto chain = [&](int i) { return PathToRoot(parent, i); };
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j : chain(i)) L(i, j) = 0.5 * test::RandomVector(1, &rng)[0];
    L(i, i) = 1 + std::abs(L(i, i));
  }
  const Eigen::MatrixXd A = L.transpose() * L;
  const Eigen::VectorXd v_star = test::RandomVector(n, &rng);
  std::vector<ConvexConstraint> c;
  std::vector<std::vector<int>> touches;
  for (int b = 0; b < nbranch; ++b) {  // a contact at each branch's tip
    c.push_back({Kind::kContact, 0.3 + 0.1 * (b % 4), 0});
    touches.push_back(chain(nbase + b * depth + depth - 1));
  }
  c.push_back({Kind::kContact, 0.5, 0});  // branches 0 and 1 touch
  std::vector<int> both = chain(nbase + depth - 1);
  for (int j = nbase + depth; j < nbase + 2 * depth; ++j) both.push_back(j);
  touches.push_back(both);
  c.push_back({Kind::kUnilateral, 0, 0});
  touches.push_back({nbase + 2 * depth + 1});
  c.push_back({Kind::kBilateral, 0, 0});
  touches.push_back(chain(nbase + 4 * depth + 2));
  int m = 0;
  for (const ConvexConstraint& ci : c) m += NumRows(ci.kind);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(m, n);
  int row = 0;
  for (size_t k = 0; k < c.size(); ++k) {
    for (int r = 0; r < NumRows(c[k].kind); ++r, ++row) {
      for (int j : touches[k]) J(row, j) = test::RandomVector(1, &rng)[0];
    }
  }
  // Bias: the contacts and the limit approach (negative vc at v*).
  const Eigen::VectorXd b = -0.5 * (J * v_star).cwiseAbs();
  ConvexSolverSettings settings;
  settings.rel_tolerance = 1e-12;
  const Answer tree = Solve(A, v_star, J, b, c, settings);
  ASSERT_TRUE(tree.result.converged);
  EXPECT_TRUE(tree.result.tree);
  const Eigen::MatrixXd P = Eigen::MatrixXd::Identity(n, n).rowwise().reverse();
  const Answer dense = Solve(P * A * P, P * v_star, J * P, b, c, settings);
  ASSERT_TRUE(dense.result.converged);
  EXPECT_FALSE(dense.result.tree);
  const Eigen::VectorXd d = P * dense.v - tree.v;
  EXPECT_LT(std::sqrt(d.dot(A * d)), 1e-9 * std::sqrt(v_star.dot(A * v_star)));
  EXPECT_LT((dense.gamma - tree.gamma).norm(), 1e-8 * tree.gamma.norm());
  EXPECT_GT(tree.gamma.norm(), 0);  // constraints act
  EXPECT_LE(tree.result.iterations, dense.result.iterations + 1);
}

// A pile: 15 free bodies (A block diagonal, 6 x 6 blocks), contacts with
// the ground and between bodies (a chain and random extra pairs) and a
// limit. The packed entry point (ConvexPackedRows) gives the dense one's
// answer bit for bit, and names a constraint whose columns are out of
// order.
TEST(ConvexContactSolverTest, PackedRowsAgreeWithDense) {
  std::mt19937_64 rng(37);
  const int k = 15, n = 6 * k;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < k; ++i) {
    const Eigen::MatrixXd B = test::RandomMatrix(6, 6, &rng);
    A.block(6 * i, 6 * i, 6, 6) =
        B * B.transpose() + Eigen::MatrixXd::Identity(6, 6);
  }
  std::vector<std::pair<int, int>> pairs;  // (body, body or -1: ground)
  for (int i = 0; i < k; ++i) pairs.push_back({i, -1});
  for (int i = 0; i + 1 < k; ++i) pairs.push_back({i, i + 1});
  for (int e = 0; e < 6; ++e) {
    const int a = static_cast<int>(rng() % k), b = static_cast<int>(rng() % k);
    if (a != b) pairs.push_back({std::min(a, b), std::max(a, b)});
  }
  const int m = 3 * static_cast<int>(pairs.size()) + 1;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(m, n);
  std::vector<ConvexConstraint> c;
  for (size_t q = 0; q < pairs.size(); ++q) {
    c.push_back({Kind::kContact, 0.3 + 0.1 * (q % 5), 0});
    for (int body : {pairs[q].first, pairs[q].second}) {
      if (body >= 0) {
        J.block(3 * q, 6 * body, 3, 6) = test::RandomMatrix(3, 6, &rng);
      }
    }
  }
  c.push_back({Kind::kUnilateral, 0, 0});  // a limit on body 4
  J.block(m - 1, 24, 1, 6) = test::RandomMatrix(1, 6, &rng);
  const Eigen::VectorXd v_star = test::RandomVector(n, &rng);
  const Eigen::VectorXd b = -0.5 * (J * v_star).cwiseAbs();
  ConvexSolverSettings settings;
  settings.rel_tolerance = 1e-12;
  settings.tree_factorization = false;
  const Answer dense = Solve(A, v_star, J, b, c, settings);
  ASSERT_TRUE(dense.result.converged);
  EXPECT_GT(dense.gamma.norm(), 0);  // the contacts act

  // The packed entry point: each constraint's nonzero columns.
  std::vector<int> cols, col_begin{0};
  std::vector<double> values;
  int row = 0;
  for (const ConvexConstraint& ci : c) {
    const int rr = NumRows(ci.kind);
    const int c0 = static_cast<int>(cols.size());
    for (int j = 0; j < n; ++j) {
      if (J.block(row, j, rr, 1).cwiseAbs().sum() != 0) cols.push_back(j);
    }
    const int nk = static_cast<int>(cols.size()) - c0;
    values.resize(3 * cols.size());
    for (int i = 0; i < rr; ++i) {
      for (int p = 0; p < nk; ++p) {
        values[3 * c0 + i * nk + p] = J(row + i, cols[c0 + p]);
      }
    }
    col_begin.push_back(static_cast<int>(cols.size()));
    row += rr;
  }
  ConvexSolverWorkspace ws;
  Eigen::VectorXd v = v_star, gamma = Eigen::VectorXd::Zero(m);
  const ConvexSolverResult packed =
      SolveConvexContact(A, v_star, ConvexPackedRows{cols, col_begin, values},
                         b, c, settings, &ws, v, gamma);
  ASSERT_TRUE(packed.converged);
  EXPECT_EQ(packed.iterations, dense.result.iterations);
  EXPECT_EQ((v - dense.v).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ((gamma - dense.gamma).cwiseAbs().maxCoeff(), 0.0);

  // Bad packed input names the constraint.
  std::swap(cols[0], cols[1]);
  try {
    SolveConvexContact(A, v_star, ConvexPackedRows{cols, col_begin, values}, b,
                       c, settings, &ws, v, gamma);
    ADD_FAILURE() << "no throw for columns out of order";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("constraint 0"), std::string::npos)
        << e.what();
  }
}

// The caller's factor of A (SolveConvexContact's a_factor), on the robot-
// like island of TreeFactorizationAgreesWithDense: with contacts on the
// branches only (A's tree is the Newton matrix's) and with a contact
// joining two branches (the Newton matrix has its own tree), the answer
// with A's factor handed in is the one without, to the bit. A factor of a
// matrix with A's diagonal but other off-diagonal entries changes the
// answer (so the factor is used), and a stale factor (another diagonal) or
// one of the wrong size is refused, naming a_factor.
TEST(ConvexContactSolverTest, CallersFactorOfAGivesTheSameAnswer) {
  std::mt19937_64 rng(41);
  const int nbase = 6, nbranch = 6, depth = 3, n = nbase + nbranch * depth;
  const std::vector<int> parent = RobotLikeParents(nbase, nbranch, depth);
  auto chain = [&](int i) {  // ascending
    std::vector<int> c = PathToRoot(parent, i);
    std::sort(c.begin(), c.end());
    return c;
  };
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j : chain(i)) L(i, j) = 0.5 * test::RandomVector(1, &rng)[0];
    L(i, i) = 1 + std::abs(L(i, i));
  }
  const Eigen::MatrixXd A = L.transpose() * L;
  const Eigen::VectorXd v_star = test::RandomVector(n, &rng);
  // The factor of a matrix B along the tree (its entries on the paths).
  auto factor_of = [&](const Eigen::MatrixXd& B) {
    PackedTreeFactor F(parent.data(), n);
    for (int k = 0; k < n; ++k) {
      for (int e = 0; e < F.row_size(k); ++e) F.row(k)[e] = B(k, F.path(k)[e]);
    }
    EXPECT_EQ(F.Factor(), -1);
    return F;
  };
  const PackedTreeFactor F = factor_of(A);
  for (bool join : {false, true}) {
    std::vector<ConvexConstraint> c;
    std::vector<std::vector<int>> touches;
    for (int br = 0; br < nbranch; ++br) {  // a contact at each branch's tip
      c.push_back({Kind::kContact, 0.3 + 0.1 * (br % 4), 0});
      touches.push_back(chain(nbase + br * depth + depth - 1));
    }
    if (join) {  // branches 0 and 1 touch
      c.push_back({Kind::kContact, 0.5, 0});
      std::vector<int> both = chain(nbase + depth - 1);
      for (int j = nbase + depth; j < nbase + 2 * depth; ++j) both.push_back(j);
      touches.push_back(both);
    }
    c.push_back({Kind::kUnilateral, 0, 0});
    touches.push_back({nbase + 2 * depth + 1});
    std::vector<int> cols, col_begin{0};
    std::vector<double> values;
    for (size_t k = 0; k < c.size(); ++k) {
      const int rr = NumRows(c[k].kind);
      const int nk = static_cast<int>(touches[k].size());
      const int c0 = static_cast<int>(cols.size());
      cols.insert(cols.end(), touches[k].begin(), touches[k].end());
      values.resize(3 * cols.size());
      for (int i = 0; i < rr * nk; ++i) {
        values[3 * c0 + i] = test::RandomVector(1, &rng)[0];
      }
      col_begin.push_back(static_cast<int>(cols.size()));
    }
    int m = 0;
    for (const ConvexConstraint& ci : c) m += NumRows(ci.kind);
    const ConvexPackedRows J{cols, col_begin, values};
    Eigen::VectorXd Jv = Eigen::VectorXd::Zero(m);
    {
      int row = 0;
      for (size_t k = 0; k < c.size(); ++k) {
        const int rr = NumRows(c[k].kind);
        const int nk = static_cast<int>(touches[k].size());
        for (int i = 0; i < rr; ++i, ++row) {
          for (int p = 0; p < nk; ++p) {
            Jv[row] +=
                values[3 * col_begin[k] + i * nk + p] * v_star[touches[k][p]];
          }
        }
      }
    }
    const Eigen::VectorXd b = -0.5 * Jv.cwiseAbs();
    ConvexSolverSettings settings;
    settings.rel_tolerance = 1e-12;
    settings.warm_start_best = true;  // the impulse guess solves with A
    const Eigen::VectorXd gamma0 = 0.1 * Jv.cwiseAbs();
    // With the matrix M (A unless given) and the caller's factor f.
    auto solve_with = [&](const Eigen::MatrixXd& M, const PackedTreeFactor* f) {
      ConvexSolverWorkspace ws;
      Answer a;
      a.v = v_star + 0.01 * Eigen::VectorXd::Ones(n);
      a.gamma = gamma0;
      a.result = SolveConvexContact(M, v_star, J, b, c, settings, &ws, a.v,
                                    a.gamma, f);
      return a;
    };
    auto solve = [&](const PackedTreeFactor* f) { return solve_with(A, f); };
    const Answer own = solve(nullptr), given = solve(&F);
    ASSERT_TRUE(own.result.converged) << join;
    EXPECT_TRUE(own.result.tree) << join;
    EXPECT_GT(own.gamma.norm(), 0) << join;
    EXPECT_EQ(given.result.iterations, own.result.iterations) << join;
    EXPECT_EQ((given.v - own.v).cwiseAbs().maxCoeff(), 0.0) << join;
    EXPECT_EQ((given.gamma - own.gamma).cwiseAbs().maxCoeff(), 0.0) << join;
    // The plant's entry (internal::SolveConvexContactOnTree): the tree and
    // A's rows on it are the caller's, unchecked; the same answer to the
    // bit, and the rows are read (on the Hessian's own tree, without the
    // joining contact).
    std::vector<double> rows_of_A;  // A's entries on F's paths, F's layout
    for (int k = 0; k < n; ++k) {
      for (int e = 0; e < F.row_size(k); ++e) {
        rows_of_A.push_back(A(k, F.path(k)[e]));
      }
    }
    auto solve_on_tree = [&](const ConvexPackedRows& Jr,
                             const std::vector<double>& rows) {
      ConvexSolverWorkspace ws;
      Answer a;
      a.v = v_star + 0.01 * Eigen::VectorXd::Ones(n);
      a.gamma = gamma0;
      a.result = internal::SolveConvexContactOnTree(
          A, v_star, Jr, b, c, settings, &ws, a.v, a.gamma, F, rows.data());
      return a;
    };
    const Answer on_tree = solve_on_tree(J, rows_of_A);
    EXPECT_EQ(on_tree.result.iterations, own.result.iterations) << join;
    EXPECT_EQ((on_tree.v - own.v).cwiseAbs().maxCoeff(), 0.0) << join;
    EXPECT_EQ((on_tree.gamma - own.gamma).cwiseAbs().maxCoeff(), 0.0) << join;
    if (!join) {
      std::vector<double> doubled = rows_of_A;
      doubled[0] *= 2;  // A(0, 0)
      EXPECT_GT(
          (solve_on_tree(J, doubled).gamma - own.gamma).cwiseAbs().maxCoeff(),
          0.0);
    }
    // Its checks of the data are SolveConvexContact's: a non-finite J.
    std::vector<double> nan_values = values;
    nan_values[3 * col_begin[1]] = std::nan("");
    try {
      solve_on_tree(ConvexPackedRows{cols, col_begin, nan_values}, rows_of_A);
      ADD_FAILURE() << "no throw for a non-finite J";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("constraint 1 has a non-finite"),
                std::string::npos)
          << e.what();
    }
    // A's diagonal, other couplings: accepted (the contract is the
    // caller's), and the answer changes: the factor is read.
    Eigen::MatrixXd B = A;
    B(n - 1, nbase - 1) *= 0.5;
    B(nbase - 1, n - 1) = B(n - 1, nbase - 1);
    const PackedTreeFactor FB = factor_of(B);
    const Answer other = solve(&FB);
    EXPECT_GT((other.gamma - own.gamma).cwiseAbs().maxCoeff(), 0.0) << join;
    // A coupling off the factor's tree (the last two branches' tips): the
    // factor (of A's entries on its paths, the same trace) cannot be A's and
    // is not used, so the answer is the solver's own; a -0.0 there is a
    // zero, and the factor is used (the answer above).
    for (double off : {1e-6, -0.0}) {
      Eigen::MatrixXd C = A;
      const int i = n - 1, j = n - 1 - depth;
      C(i, j) = C(j, i) = off;
      const PackedTreeFactor FC = factor_of(C);
      const Answer c_own = solve_with(C, nullptr), c_given = solve_with(C, &FC);
      if (off != 0) {
        EXPECT_EQ((c_given.gamma - c_own.gamma).cwiseAbs().maxCoeff(), 0.0)
            << join;
      } else {
        EXPECT_EQ((c_given.gamma - given.gamma).cwiseAbs().maxCoeff(), 0.0)
            << join;
      }
    }
    // A stale factor (1.01 A) and one of another size are refused.
    const PackedTreeFactor stale = factor_of(1.01 * A);
    const PackedTreeFactor small(parent.data(), n - 1);
    for (const PackedTreeFactor* bad : {&stale, &small}) {
      try {
        solve(bad);
        ADD_FAILURE() << "no throw for a factor of another matrix";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("a_factor"), std::string::npos)
            << e.what();
      }
    }
  }
}

// An iteration cap that is too small is reported, never as converged.
TEST(ConvexContactSolverTest, IterationCapIsReported) {
  std::mt19937_64 rng(9);
  const int n = 9, nc = 3;
  const Eigen::MatrixXd B = test::RandomMatrix(n, n, &rng);
  const Eigen::MatrixXd A = B * B.transpose() + Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd J = test::RandomMatrix(3 * nc, n, &rng);
  const Eigen::VectorXd v_star = 3 * test::RandomVector(n, &rng);
  std::vector<ConvexConstraint> c(nc, {Kind::kContact, 0.5, 0});
  ConvexSolverSettings settings;
  settings.max_iterations = 1;
  const Answer a =
      Solve(A, v_star, J, Eigen::VectorXd::Zero(3 * nc), c, settings);
  EXPECT_FALSE(a.result.converged);
  EXPECT_EQ(a.result.iterations, 1);
  EXPECT_GT(a.result.residual, settings.rel_tolerance);
}

TEST(ConvexContactSolverTest, RepeatedSolvesDoNotAllocate) {
  std::mt19937_64 rng(11);
  const int n = 12, nc = 3;
  const Eigen::MatrixXd B = test::RandomMatrix(n, n, &rng);
  const Eigen::MatrixXd A = B * B.transpose() + Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd J = test::RandomMatrix(3 * nc, n, &rng);
  const Eigen::VectorXd v_star = test::RandomVector(n, &rng);
  const Eigen::VectorXd b = Eigen::VectorXd::Zero(3 * nc);
  std::vector<ConvexConstraint> c(nc, {Kind::kContact, 0.5, 0});
  ConvexSolverWorkspace ws;
  Eigen::VectorXd v(n), gamma = Eigen::VectorXd::Zero(3 * nc);
  SolveConvexContact(A, v_star, J, b, c, {}, &ws, v, gamma);
  gamma.setZero();
  tern::test::ScopedAllocationCounter counter;
  const ConvexSolverResult r =
      SolveConvexContact(A, v_star, J, b, c, {}, &ws, v, gamma);
  EXPECT_EQ(counter.count(), 0);
  EXPECT_TRUE(r.converged);
}

TEST(ConvexContactSolverTest, BadInputNamesTheCulprit) {
  const Eigen::MatrixXd A = Eigen::MatrixXd::Identity(3, 3);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(3);
  auto expect_throw = [&](const Eigen::MatrixXd& AA,
                          const std::vector<ConvexConstraint>& c,
                          const std::string& what) {
    try {
      Solve(AA, v, PointRows(), Eigen::VectorXd::Zero(3), c);
      ADD_FAILURE() << "no throw for " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
          << e.what();
    }
  };
  expect_throw(A, {{Kind::kContact, -0.5, 0}}, "constraint 0: friction");
  expect_throw(A, {{Kind::kContact, 0.5, -1}}, "compliance");
  Eigen::MatrixXd singular = A;
  singular(2, 2) = 0;
  expect_throw(singular, {{Kind::kContact, 0.5, 0}}, "not positive definite");
  expect_throw(A, {{Kind::kUnilateral, 0, 0}}, "sizes disagree");
  expect_throw(A,
               {{Kind::kBounded, 0, 0, -1, -1.0},
                {Kind::kBounded, 0, 0, -1, 1.0},
                {Kind::kBounded, 0, 0, -1, 1.0}},
               "constraint 0: bound -1");
}

}  // namespace
}  // namespace tern::solvers
