#pragma once
// Random problems of row groups in Jacobian form for the solver tests
// (test-only), and the check of an answer's conditions.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tern/solvers/projected_gauss_seidel.h"
#include "tern/solvers/test/random_lcp.h"

namespace tern::solvers::test {

// A problem in Jacobian form: trees with SPD mass matrices, groups with
// random rows, v_free; its pool and layout.
struct GroupProblem {
  std::vector<Eigen::MatrixXd> M;  // per tree
  std::vector<int> dofs, tree_start, tree_size;
  std::vector<double> jac;
  std::vector<JacobianRowGroup> groups;
  std::vector<Eigen::MatrixXd> J;  // per group, (rows x nv) dense
  Eigen::VectorXd v_free;
  int nv = 0;
  JacobianRowLayout Layout() const {
    return {dofs.data(), tree_start.data(), tree_size.data(), jac.data()};
  }
};

// Trees: sizes; tree 0 is a free body (6 dofs) whose contacts take the fast
// path. Groups: 4 contacts (between trees or with the world), one limit,
// one bilateral pair, and with bound >= 0 two bounded rows (|p| <= bound:
// joint dry friction) on trees 1 and 2, drawn after the others (the same
// seed gives the same other groups).
inline GroupProblem MakeGroupProblem(std::mt19937_64* rng, double mu,
                                     double bound = -1) {
  GroupProblem P;
  const std::vector<int> sizes = {6, 10, 9};
  for (int n : sizes) {
    P.tree_start.push_back(P.nv);
    P.tree_size.push_back(n);
    for (int k = 0; k < n; ++k) P.dofs.push_back(P.nv + k);
    P.nv += n;
    P.M.push_back(RandomSpd(n, rng));
  }
  P.v_free = RandomVector(P.nv, rng);
  struct Spec {
    RowKind kind;
    int rows, t0, t1;
  };
  std::vector<Spec> specs = {
      {RowKind::kContact, 3, 0, -1}, {RowKind::kContact, 3, 0, 1},
      {RowKind::kContact, 3, 1, 2},  {RowKind::kContact, 3, 2, -1},
      {RowKind::kLimit, 1, 1, -1},   {RowKind::kBilateral, 2, 2, 1}};
  if (bound >= 0) {
    specs.push_back({RowKind::kBounded, 1, 1, -1});
    specs.push_back({RowKind::kBounded, 1, 2, -1});
  }
  for (const Spec& spec : specs) {
    JacobianRowGroup g;
    g.kind = spec.kind;
    g.rows = spec.rows;
    g.mu = mu;
    g.bound = std::max(bound, 0.0);
    Eigen::MatrixXd Jd = Eigen::MatrixXd::Zero(spec.rows, P.nv);
    const int trees[2] = {spec.t0, spec.t1};
    for (int e = 0; e < 2; ++e) {
      const int t = trees[e];
      g.tree[e] = t;
      if (t < 0) continue;
      const int n = sizes[t];
      const Eigen::MatrixXd Jt = RandomMatrix(spec.rows, n, rng);
      const Eigen::MatrixXd Yt = P.M[t].llt().solve(Jt.transpose()).transpose();
      g.jac[e] = static_cast<int>(P.jac.size());
      for (int i = 0; i < spec.rows; ++i) {
        for (int k = 0; k < n; ++k) P.jac.push_back(Jt(i, k));
      }
      for (int i = 0; i < spec.rows; ++i) {
        for (int k = 0; k < n; ++k) P.jac.push_back(Yt(i, k));
      }
      g.d0[e] = n == 6 ? P.tree_start[t] : -1;
      Jd.middleCols(P.tree_start[t], n) = Jt;
    }
    g.fast = (g.tree[0] < 0 || g.d0[0] >= 0) && (g.tree[1] < 0 || g.d0[1] >= 0);
    // Approaching contacts and limit: push the normal row's velocity down.
    if (spec.kind != RowKind::kBilateral && spec.kind != RowKind::kBounded) {
      const double un = Jd.row(0).dot(P.v_free);
      g.b[0] = -0.5 - std::abs(un) - un;
    }
    P.groups.push_back(g);
    P.J.push_back(Jd);
  }
  return P;
}

inline Eigen::MatrixXd DenseMinv(const GroupProblem& P) {
  Eigen::MatrixXd Minv = Eigen::MatrixXd::Zero(P.nv, P.nv);
  for (size_t t = 0; t < P.M.size(); ++t) {
    Minv.block(P.tree_start[t], P.tree_start[t], P.tree_size[t],
               P.tree_size[t]) = P.M[t].inverse();
  }
  return Minv;
}

// Checks the answer (the groups' p, velocities v) meets every group's
// conditions: v = v_free + M^-1 J^T p; contacts u_n >= 0 _|_ p_n >= 0,
// p_t in the polygon of radius mu p_n, sticking (u_t = 0) or maximal
// dissipation (p_t maximizes -u_t . p_t over the polygon); limits u >= 0
// _|_ p >= 0; bilateral groups u = 0; bounded rows |p| <= bound with u = 0
// inside, u <= 0 at p = bound and u >= 0 at p = -bound. Counts sliding and
// sticking contacts (and, if given, bounded rows at and inside their
// bounds).
inline void CheckRowGroupAnswer(const GroupProblem& P,
                                const PolygonalFrictionCone& cone,
                                const Eigen::VectorXd& v,
                                const std::string& where, int* sliding,
                                int* sticking, int* at_bound = nullptr,
                                int* inside = nullptr) {
  const Eigen::MatrixXd Minv = DenseMinv(P);
  Eigen::VectorXd v_expected = P.v_free;
  for (size_t gi = 0; gi < P.groups.size(); ++gi) {
    const JacobianRowGroup& g = P.groups[gi];
    v_expected += Minv * P.J[gi].transpose() *
                  Eigen::Map<const Eigen::VectorXd>(g.p, g.rows);
  }
  EXPECT_LE((v - v_expected).cwiseAbs().maxCoeff(), 1e-10) << where;
  const double tol = 1e-9;
  for (size_t gi = 0; gi < P.groups.size(); ++gi) {
    const JacobianRowGroup& g = P.groups[gi];
    Eigen::VectorXd u = P.J[gi] * v;
    for (int i = 0; i < g.rows; ++i) u[i] += g.b[i] + g.cfm * g.p[i];
    SCOPED_TRACE(where + " group " + std::to_string(gi));
    if (g.kind == RowKind::kBilateral) {
      EXPECT_LE(u.cwiseAbs().maxCoeff(), tol);
      continue;
    }
    if (g.kind == RowKind::kBounded) {
      EXPECT_LE(std::abs(g.p[0]), g.bound * (1 + 1e-12));
      if (g.p[0] >= g.bound * (1 - 1e-9)) {
        EXPECT_LE(u[0], tol);
      } else if (g.p[0] <= -g.bound * (1 - 1e-9)) {
        EXPECT_GE(u[0], -tol);
      } else {
        EXPECT_LE(std::abs(u[0]), tol);
      }
      const bool bounded = std::abs(g.p[0]) >= g.bound * (1 - 1e-9);
      if (bounded && at_bound != nullptr) ++*at_bound;
      if (!bounded && inside != nullptr) ++*inside;
      continue;
    }
    EXPECT_GE(u[0], -tol);
    EXPECT_GE(g.p[0], 0.0);
    EXPECT_LE(std::abs(u[0] * g.p[0]), tol);
    if (g.kind == RowKind::kLimit) continue;
    const double R = g.mu * g.p[0];
    EXPECT_TRUE(cone.Contains(g.p[1], g.p[2], R * (1 + 1e-9) + 1e-15));
    if (std::hypot(u[1], u[2]) <= tol) {
      ++*sticking;
      continue;
    }
    ++*sliding;
    const double dissipation = -(u[1] * g.p[1] + u[2] * g.p[2]);
    if (cone.is_disk()) {
      // Maximal dissipation on the disk: p_t = -R u_t / |u_t|.
      EXPECT_NEAR(dissipation, R * std::hypot(u[1], u[2]),
                  tol * (1 + R) + 1e-9 * R * std::hypot(u[1], u[2]));
      EXPECT_NEAR(std::hypot(g.p[1], g.p[2]), R, 1e-9 * R + 1e-15);
    }
    for (int j = 0; j < cone.num_directions(); ++j) {
      const double vertex =
          -(u[1] * cone.direction_cos(j) + u[2] * cone.direction_sin(j)) * R;
      EXPECT_GE(dissipation, vertex - tol);
    }
  }
}

}  // namespace tern::solvers::test
