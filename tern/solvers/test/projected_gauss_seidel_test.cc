#include "tern/solvers/projected_gauss_seidel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tern/solvers/lemke.h"
#include "tern/solvers/test/random_lcp.h"
#include "tern/solvers/test/row_group_problem.h"
#include "tern/test_support/allocation_counter.h"

namespace tern::solvers {
namespace {

using test::Lcp;

Eigen::VectorXd LemkeZ(const Eigen::MatrixXd& M, const Eigen::VectorXd& q) {
  LemkeWorkspace ws;
  Eigen::VectorXd z(q.size()), w(q.size());
  const LcpResult r = SolveLcpLemke(M, q, {}, &ws, z, w);
  EXPECT_TRUE(r.ok()) << ToString(r.status);
  return z;
}

PgsSettings Tight() {
  PgsSettings s;
  s.tolerance = 1e-12;
  s.max_iterations = 20000;
  return s;
}

// Symmetric positive definite M is a P-matrix (unique solution) on which PGS
// converges: PGS and Lemke agree.
TEST(PgsTest, AgreesWithLemkeOnSpdProblems) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 1 + trial % 25;
    const Eigen::MatrixXd M = test::RandomSpd(n, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w(n);
    const LcpResult r = SolveLcpPgs(M, q, Tight(), z, w);
    ASSERT_EQ(r.status, LcpStatus::kSolved) << "trial " << trial;
    EXPECT_LE(r.residual, 1e-10);
    EXPECT_LE(test::LcpCheck(M, q, z), 1e-10);
    EXPECT_LE((z - LemkeZ(M, q)).lpNorm<Eigen::Infinity>(), 1e-9)
        << "trial " << trial;
  }
}

TEST(PgsTest, PsdProblemsReachTheResidual) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + trial % 15;
    // Symmetric PSD with a positive diagonal (rank n - 1).
    const Eigen::MatrixXd M =
        test::RandomPsd(n, n - 1 > 0 ? n - 1 : 1, false, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.4, 0.4, &rng);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w(n);
    PgsSettings s = Tight();
    s.max_iterations = 200000;
    s.tolerance = 1e-11;
    const LcpResult r = SolveLcpPgs(M, q, s, z, w);
    ASSERT_EQ(r.status, LcpStatus::kSolved) << "trial " << trial;
    EXPECT_LE(test::LcpCheck(M, q, z), 1e-10);
  }
}

TEST(PgsTest, WarmStartReducesIterations) {
  std::mt19937_64 rng(13);
  const int n = 30;
  const Eigen::MatrixXd M = test::RandomSpd(n, &rng);
  const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
  PgsSettings s;
  s.tolerance = 1e-10;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w(n);
  const LcpResult first = SolveLcpPgs(M, q, s, z, w);
  ASSERT_TRUE(first.ok());
  const Eigen::VectorXd q2 = q + 1e-6 * test::RandomVector(n, &rng);
  // The next step's problem differs a little (1e-6). PGS converges linearly,
  // so from 1e-6 away it needs about 4 of the 10 decades a cold start needs.
  Eigen::VectorXd z_cold = Eigen::VectorXd::Zero(n), z_warm = z;
  const LcpResult cold = SolveLcpPgs(M, q2, s, z_cold, w);
  const LcpResult warm = SolveLcpPgs(M, q2, s, z_warm, w);
  ASSERT_TRUE(cold.ok());
  ASSERT_TRUE(warm.ok());
  EXPECT_LT(warm.iterations, 0.6 * cold.iterations)
      << "warm " << warm.iterations << " cold " << cold.iterations;
  EXPECT_LE((z_warm - z_cold).lpNorm<Eigen::Infinity>(), 1e-8);
}

TEST(PgsTest, OverRelaxationConvergesToTheSameSolution) {
  std::mt19937_64 rng(14);
  const int n = 20;
  const Eigen::MatrixXd M = test::RandomSpd(n, &rng);
  const Eigen::VectorXd q = test::QFromSolution(M, 0.7, 0.3, &rng);
  PgsSettings s = Tight();
  Eigen::VectorXd z1 = Eigen::VectorXd::Zero(n), z2 = z1, w(n);
  const LcpResult gs = SolveLcpPgs(M, q, s, z1, w);
  s.relaxation = 1.4;
  const LcpResult sor = SolveLcpPgs(M, q, s, z2, w);
  ASSERT_TRUE(gs.ok());
  ASSERT_TRUE(sor.ok());
  EXPECT_LE((z1 - z2).lpNorm<Eigen::Infinity>(), 1e-9);
  EXPECT_NE(gs.iterations, sor.iterations);  // the setting is used
}

TEST(PgsTest, IterationCapReported) {
  std::mt19937_64 rng(15);
  const Eigen::MatrixXd M = test::RandomSpd(15, &rng);
  const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
  PgsSettings s;
  s.max_iterations = 2;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(15), w(15);
  const LcpResult r = SolveLcpPgs(M, q, s, z, w);
  EXPECT_EQ(r.status, LcpStatus::kIterationLimit);
  EXPECT_EQ(r.iterations, 2);
  EXPECT_GT(r.residual, s.tolerance);
}

TEST(PgsTest, BadInputNamesTheCulprit) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(3, 3);
  M(1, 1) = 0.0;
  const Eigen::VectorXd q = -Eigen::VectorXd::Ones(3);
  Eigen::VectorXd z(3), w(3);
  try {
    SolveLcpPgs(M, q, {}, z, w);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("M(1, 1) = 0 is not positive"),
              std::string::npos)
        << e.what();
  }
  PgsSettings s;
  s.relaxation = 2.0;
  try {
    SolveLcpPgs(Eigen::MatrixXd::Identity(3, 3), q, s, z, w);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("relaxation = 2 is outside (0, 2)"),
              std::string::npos)
        << e.what();
  }
  Eigen::VectorXd z_nan = Eigen::VectorXd::Zero(3);
  z_nan[2] = std::nan("");
  try {
    SolveLcpPgs(Eigen::MatrixXd::Identity(3, 3), q, {}, z_nan, w);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "z (initial iterate)[2] = nan is not finite"),
              std::string::npos)
        << e.what();
  }
  Eigen::MatrixXd M_inf = Eigen::MatrixXd::Identity(3, 3);
  M_inf(0, 2) = std::numeric_limits<double>::infinity();
  try {
    Eigen::VectorXd z0 = Eigen::VectorXd::Zero(3);
    SolveLcpPgs(M_inf, q, {}, z0, w);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("M(0, 2) = inf is not finite"),
              std::string::npos)
        << e.what();
  }
  const std::vector<int> bad = {3, 0};
  try {
    BlockPgsWorkspace ws(bad);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("block 1 has size 0"),
              std::string::npos)
        << e.what();
  }
  const std::vector<int> blocks = {2, 2};
  BlockPgsWorkspace ws(blocks);
  try {
    SolveLcpBlockPgs(Eigen::MatrixXd::Identity(3, 3), q, {}, &ws, z, w);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("blocks sum to 4"), std::string::npos)
        << e.what();
  }
}

// A block whose own LCP is infeasible (M_bb skew, so Lemke's ray is a proof)
// stops block PGS with the block's index; a size-1 block with a non-positive
// diagonal is bad input.
TEST(BlockPgsTest, BlockFailureNamesTheBlock) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(4, 4);
  M.block(2, 2, 2, 2) << 0, 1, -1, 0;
  const Eigen::VectorXd q = -Eigen::VectorXd::Ones(4);
  const std::vector<int> blocks = {1, 1, 2};
  BlockPgsWorkspace ws(blocks);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(4), w(4);
  const LcpResult r = SolveLcpBlockPgs(M, q, {}, &ws, z, w);
  EXPECT_EQ(r.status, LcpStatus::kBlockFailure);
  EXPECT_EQ(r.failed_block, 2);
  EXPECT_EQ(std::string(ToString(r.status)), "block failure");
  M(1, 1) = -1.0;
  try {
    SolveLcpBlockPgs(M, q, {}, &ws, z, w);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("block 1 has size 1 and diagonal "
                                         "entry M(1, 1) = -1 is not positive"),
              std::string::npos)
        << e.what();
  }
}

// One point mass (W = I / m) on the plane z = 0, friction directions +-x,
// +-y, arriving with velocity (vx, 0, vz), vz < 0. Closed form: the normal
// impulse stops the normal velocity, c_n = -m vz; if m |vx| > mu c_n the mass
// slides, the friction impulse is mu c_n against vx (beta on -x) and
// lambda = the remaining sliding speed |vx| - mu c_n / m; otherwise it sticks.
TEST(BlockPgsTest, PointMassOnAPlaneMatchesTheClosedForm) {
  const double m = 2.0, mu = 0.5, vz = -1.0;
  for (const double vx : {3.0, 0.2}) {
    // Rows of J: normal z, then directions +x, +y, -x, -y; W = I / m.
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, 3);
    J(0, 2) = 1.0;
    J(1, 0) = 1.0;
    J(2, 1) = 1.0;
    J(3, 0) = -1.0;
    J(4, 1) = -1.0;
    Eigen::MatrixXd M = J * J.transpose() / m;
    M.block(1, 5, 4, 1).setOnes();
    M(5, 0) = mu;
    M.block(5, 1, 1, 4).setConstant(-1.0);
    const Eigen::VectorXd q = J * Eigen::Vector3d(vx, 0.0, vz);
    const std::vector<int> blocks = {6};
    BlockPgsWorkspace ws(blocks);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(6), w(6);
    ASSERT_TRUE(SolveLcpBlockPgs(M, q, {}, &ws, z, w).ok());
    const Eigen::VectorXd z_lemke = LemkeZ(M, q);
    const double cn = -m * vz;
    EXPECT_NEAR(z[0], cn, 1e-12);
    EXPECT_NEAR(z_lemke[0], cn, 1e-12);
    // Net friction impulse along x and the resulting velocity.
    for (const Eigen::VectorXd& zz : {z, z_lemke}) {
      const Eigen::Vector3d v =
          Eigen::Vector3d(vx, 0.0, vz) + J.transpose() * zz / m;
      EXPECT_NEAR(v.z(), 0.0, 1e-12);
      EXPECT_NEAR(v.y(), 0.0, 1e-12);
      if (m * vx > mu * cn) {  // slides
        EXPECT_NEAR(zz[1] - zz[3], -mu * cn, 1e-12);
        EXPECT_NEAR(v.x(), vx - mu * cn / m, 1e-12);
        EXPECT_NEAR(zz[5], vx - mu * cn / m, 1e-12);  // lambda
      } else {                                        // sticks
        EXPECT_NEAR(v.x(), 0.0, 1e-12);
        EXPECT_NEAR(zz[5], 0.0, 1e-12);
      }
    }
  }
}

TEST(PgsTest, ScalarPgsDoesNotAllocate) {
  std::mt19937_64 rng(16);
  const Eigen::MatrixXd M = test::RandomSpd(24, &rng);
  const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(24), w(24);
  LcpResult r;
  {
    tern::test::ScopedAllocationCounter counter;
    r = SolveLcpPgs(M, q, {}, z, w);
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_TRUE(r.ok());
}

// With all blocks of size 1, block PGS is scalar PGS, iterate for iterate.
TEST(BlockPgsTest, UnitBlocksAreScalarPgs) {
  std::mt19937_64 rng(17);
  const int n = 12;
  const Eigen::MatrixXd M = test::RandomSpd(n, &rng);
  const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
  PgsSettings s;
  s.max_iterations = 7;
  s.relaxation = 1.2;
  const std::vector<int> ones(n, 1);
  BlockPgsWorkspace ws(ones);
  Eigen::VectorXd z1 = Eigen::VectorXd::Zero(n), z2 = z1, w(n);
  const LcpResult a = SolveLcpPgs(M, q, s, z1, w);
  const LcpResult b = SolveLcpBlockPgs(M, q, s, &ws, z2, w);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(z1, z2);
}

TEST(BlockPgsTest, AgreesWithLemkeOnSpdProblemsWithMixedBlocks) {
  std::mt19937_64 rng(18);
  const std::vector<int> blocks = {3, 1, 4, 2, 5};
  BlockPgsWorkspace ws(blocks);
  const int n = ws.size();
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::MatrixXd M = test::RandomSpd(n, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w(n);
    const LcpResult r = SolveLcpBlockPgs(M, q, Tight(), &ws, z, w);
    ASSERT_TRUE(r.ok()) << ToString(r.status);
    EXPECT_LE(test::LcpCheck(M, q, z), 1e-10);
    EXPECT_LE((z - LemkeZ(M, q)).lpNorm<Eigen::Infinity>(), 1e-9);
  }
}

// The Anitescu-Potra contact LCP, one block per contact (c_n, beta, lambda):
// scalar PGS cannot take it (zero diagonal), block PGS solves it to the
// residual, inside the friction cone, and warm starting helps.
TEST(BlockPgsTest, SolvesContactLcps) {
  std::mt19937_64 rng(19);
  for (int trial = 0; trial < 20; ++trial) {
    const int contacts = 1 + trial % 5;
    const int k = 4;
    const double mu = 0.5;
    // Well-separated contacts (more velocities than contact rows) keep the
    // Gauss-Seidel coupling contractive.
    const Lcp lcp = test::RandomContactLcp(contacts, k, mu, 8 * contacts, &rng);
    const std::vector<int> blocks(contacts, k + 2);
    BlockPgsWorkspace ws(blocks);
    const int n = ws.size();
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w(n);
    PgsSettings s;
    s.tolerance = 1e-10;
    s.max_iterations = 5000;
    const LcpResult r = SolveLcpBlockPgs(lcp.M, lcp.q, s, &ws, z, w);
    ASSERT_EQ(r.status, LcpStatus::kSolved) << "trial " << trial;
    EXPECT_LE(test::LcpCheck(lcp.M, lcp.q, z), 1e-10);
    for (int c = 0; c < contacts; ++c) {
      const int o = c * (k + 2);
      EXPECT_LE(z.segment(o + 1, k).sum(), mu * z[o] + 1e-10);
    }
    // Warm start on a perturbed problem.
    Lcp next = lcp;
    next.q += 1e-5 * test::RandomVector(n, &rng);
    for (int c = 0; c < contacts; ++c) next.q[c * (k + 2) + k + 1] = 0.0;
    Eigen::VectorXd z_cold = Eigen::VectorXd::Zero(n), z_warm = z;
    const LcpResult cold = SolveLcpBlockPgs(next.M, next.q, s, &ws, z_cold, w);
    const LcpResult warm = SolveLcpBlockPgs(next.M, next.q, s, &ws, z_warm, w);
    ASSERT_TRUE(cold.ok());
    ASSERT_TRUE(warm.ok());
    EXPECT_LE(warm.iterations, cold.iterations) << "trial " << trial;
  }
}

// One workspace serves layouts that change from step to step (contacts come
// and go) without allocating once it has seen the largest.
TEST(BlockPgsTest, ChangingLayoutsDoNotAllocate) {
  std::mt19937_64 rng(21);
  std::vector<Lcp> problems;
  std::vector<std::vector<int>> layouts;
  for (const int contacts : {5, 2, 4, 1, 3}) {
    problems.push_back(
        test::RandomContactLcp(contacts, 4, 0.5, 8 * contacts, &rng));
    layouts.emplace_back(contacts, 6);
  }
  BlockPgsWorkspace ws;
  EXPECT_EQ(ws.size(), 0);
  ws.SetBlocks(layouts[0]);  // the largest: allocates
  Eigen::VectorXd z = Eigen::VectorXd::Zero(30), w(30);
  int solved = 0;
  {
    tern::test::ScopedAllocationCounter counter;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      ws.SetBlocks(layouts[i]);
      const int n = ws.size();
      z.head(n).setZero();
      solved += SolveLcpBlockPgs(problems[i].M, problems[i].q, {}, &ws,
                                 z.head(n), w.head(n))
                    .ok();
    }
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_EQ(solved, 5);
}

TEST(BlockPgsTest, DoesNotAllocate) {
  std::mt19937_64 rng(20);
  const Lcp lcp = test::RandomContactLcp(4, 4, 0.5, 32, &rng);
  const std::vector<int> blocks(4, 6);
  BlockPgsWorkspace ws(blocks);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(24), w(24);
  LcpResult r;
  {
    tern::test::ScopedAllocationCounter counter;
    r = SolveLcpBlockPgs(lcp.M, lcp.q, {}, &ws, z, w);
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_TRUE(r.ok()) << ToString(r.status);
}

// ---------------------------------------------------------------------
// Row groups in Jacobian form.

TEST(PolygonalFrictionConeTest, ProjectionIsTheNearestPointOfThePolygon) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int k : {3, 4, 5, 8}) {
    const PolygonalFrictionCone cone(k);
    ASSERT_EQ(cone.num_directions(), k);
    const double R = 1.3;
    // The vertices R d_j and the center are in the polygon.
    for (int j = 0; j < k; ++j) {
      EXPECT_NEAR(std::hypot(cone.direction_cos(j), cone.direction_sin(j)), 1,
                  1e-15);
      EXPECT_TRUE(cone.Contains(0.999999 * R * cone.direction_cos(j),
                                0.999999 * R * cone.direction_sin(j), R));
      EXPECT_FALSE(cone.Contains(1.000001 * R * cone.direction_cos(j),
                                 1.000001 * R * cone.direction_sin(j), R));
    }
    EXPECT_TRUE(cone.Contains(0, 0, R));
    for (int trial = 0; trial < 200; ++trial) {
      const double x1 = u(rng), x2 = u(rng);
      double y1 = x1, y2 = x2;
      cone.Project(R, &y1, &y2);
      if (cone.Contains(x1, x2, R)) {
        EXPECT_EQ(y1, x1);
        EXPECT_EQ(y2, x2);
        continue;
      }
      // On the boundary, and no point of the boundary (sampled densely on
      // each edge) is nearer.
      EXPECT_TRUE(cone.Contains((1 - 1e-9) * y1, (1 - 1e-9) * y2, R));
      EXPECT_FALSE(cone.Contains((1 + 1e-9) * y1, (1 + 1e-9) * y2, R));
      const double d = std::hypot(x1 - y1, x2 - y2);
      for (int j = 0; j < k; ++j) {
        const int j1 = (j + 1) % k;
        for (int s = 0; s <= 100; ++s) {
          const double a = s / 100.0;
          const double p1 = R * ((1 - a) * cone.direction_cos(j) +
                                 a * cone.direction_cos(j1));
          const double p2 = R * ((1 - a) * cone.direction_sin(j) +
                                 a * cone.direction_sin(j1));
          EXPECT_GE(std::hypot(x1 - p1, x2 - p2), d - 1e-12);
        }
      }
    }
  }
  try {
    PolygonalFrictionCone bad(2);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("num_directions = 2"),
              std::string::npos)
        << e.what();
  }
}

using test::DenseMinv;
using test::GroupProblem;
using test::MakeGroupProblem;

TEST(RowGroupPgsTest, DelassusBlocksAreJMinvJt) {
  std::mt19937_64 rng(12);
  GroupProblem P = MakeGroupProblem(&rng, 0.5);
  const Eigen::MatrixXd Minv = DenseMinv(P);
  for (size_t gi = 0; gi < P.groups.size(); ++gi) {
    JacobianRowGroup& g = P.groups[gi];
    DelassusBlock block;
    FormDelassusBlock(P.Layout(), 1e-6, 0.0, &g, &block);
    const int r = g.rows;
    const Eigen::MatrixXd expected = P.J[gi] * Minv * P.J[gi].transpose();
    const Eigen::Map<const Eigen::Matrix<double, -1, -1, Eigen::RowMajor>> W(
        block.W, r, r),
        Winv(block.Winv, r, r);
    const double cfm =
        g.kind == RowKind::kBilateral ? 0.0 : 1e-6 * expected(0, 0);
    EXPECT_NEAR(g.cfm, cfm, 1e-12 * cfm) << "group " << gi;
    const Eigen::MatrixXd Wexp =
        expected + cfm * Eigen::MatrixXd::Identity(r, r);
    EXPECT_LE((W - Wexp).cwiseAbs().maxCoeff(), 1e-12 * Wexp.norm())
        << "group " << gi;
    EXPECT_LE(
        (Winv * W - Eigen::MatrixXd::Identity(r, r)).cwiseAbs().maxCoeff(),
        1e-9)
        << "group " << gi;
  }
  // A contact whose tangent rows are equal: its inverse stays finite
  // (regularized), and W Winv W = W up to the regularization.
  JacobianRowGroup g = P.groups[3];
  const int o = g.jac[0], n = P.tree_size[2];
  for (int k = 0; k < n; ++k) {
    P.jac[o + 2 * n + k] = P.jac[o + n + k];                  // J row 2 = row 1
    P.jac[o + 3 * n + 2 * n + k] = P.jac[o + 3 * n + n + k];  // and Y's
  }
  DelassusBlock block;
  FormDelassusBlock(P.Layout(), 0.0, 0.0, &g, &block);
  // Its r x r entries (the rest of the 6 x 6 pool is not written).
  for (int i = 0; i < g.rows * g.rows; ++i) {
    EXPECT_TRUE(std::isfinite(block.Winv[i])) << i;
  }
}

// Every group of P in order, from v_free, with `settings`; v is the answer.
RowGroupPgsResult SolveGroups(GroupProblem* P,
                              const PolygonalFrictionCone& cone,
                              const RowGroupPgsSettings& settings,
                              Eigen::VectorXd* v) {
  const JacobianRowLayout layout = P->Layout();
  std::vector<DelassusBlock> blocks(P->groups.size());
  for (size_t gi = 0; gi < P->groups.size(); ++gi) {
    FormDelassusBlock(layout, 1e-9, 0.0, &P->groups[gi], &blocks[gi]);
  }
  std::vector<int> order(P->groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  *v = P->v_free;
  return SolveRowGroupsPgs(layout, cone, blocks.data(), order, settings,
                           P->groups.data(), v->data());
}

// To a tight tolerance (1e-13, up to 20000 sweeps).
RowGroupPgsResult SolveTightly(GroupProblem* P,
                               const PolygonalFrictionCone& cone,
                               Eigen::VectorXd* v, double relaxation = 1.0) {
  RowGroupPgsSettings settings;
  settings.max_sweeps = 20000;
  settings.tolerance = 1e-13;
  settings.relaxation = relaxation;
  return SolveGroups(P, cone, settings, v);
}

// Over- and under-relaxed sweeps reach the answer of plain ones (the same
// fixed point): every condition holds and the velocities agree to 1e-9.
// Under-relaxed sweeps converge on every problem here; over-relaxed ones
// on most (the sliding step is not an exact local solve, so omega > 1 can
// cycle: 2 of these 20 random problems at 1.4, none at 1.2), which is why
// the plant checks every pile's convergence and falls back to the convex
// solver.
TEST(RowGroupPgsTest, RelaxedSweepsReachTheSameAnswer) {
  int sliding = 0, sticking = 0, converged_over = 0;
  for (int seed = 0; seed < 20; ++seed) {
    const double mu = seed % 2 ? 0.3 : 1.0;
    const PolygonalFrictionCone cone(seed % 3 ? 4 : 6);
    Eigen::VectorXd v_plain;
    {
      std::mt19937_64 rng(100 + seed);
      GroupProblem P = MakeGroupProblem(&rng, mu);
      ASSERT_TRUE(SolveTightly(&P, cone, &v_plain).converged);
    }
    for (const double omega : {0.7, 1.2, 1.4}) {
      std::mt19937_64 rng(100 + seed);
      GroupProblem P = MakeGroupProblem(&rng, mu);
      Eigen::VectorXd v;
      const RowGroupPgsResult r = SolveTightly(&P, cone, &v, omega);
      const std::string what =
          "seed " + std::to_string(seed) + ", omega " + std::to_string(omega);
      if (omega < 1.3) {
        ASSERT_TRUE(r.converged) << what << ": " << r.sweeps << " sweeps";
      } else if (!r.converged) {
        continue;
      } else {
        ++converged_over;
      }
      EXPECT_LE((v - v_plain).cwiseAbs().maxCoeff(),
                1e-9 * std::max(1.0, v_plain.cwiseAbs().maxCoeff()))
          << what;
      test::CheckRowGroupAnswer(P, cone, v, what, &sliding, &sticking);
    }
  }
  EXPECT_GE(converged_over, 18);
  EXPECT_GT(sliding, 5);
  EXPECT_GT(sticking, 5);
}

TEST(RowGroupPgsTest, RelaxationOutsideTheIntervalIsNamed) {
  std::mt19937_64 rng(3);
  GroupProblem P = MakeGroupProblem(&rng, 0.5);
  const PolygonalFrictionCone cone(4);
  for (const double omega : {0.0, 2.0, std::nan("")}) {
    Eigen::VectorXd v;
    try {
      SolveTightly(&P, cone, &v, omega);
      ADD_FAILURE() << "no exception for omega " << omega;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("SolveRowGroupsPgs: relaxation"),
                std::string::npos)
          << e.what();
    }
  }
}

// Solved to a tight tolerance, every group meets its conditions: contacts
// u_n >= 0 _|_ p_n >= 0, p_t in the polygon of radius mu p_n, sticking
// (u_t = 0) inside it and maximal dissipation (p_t maximizes -u_t . p_t
// over the polygon) on its boundary; the limit u >= 0 _|_ p >= 0; the
// bilateral pair u = 0. And v is v_free + M^-1 J^T p.
TEST(RowGroupPgsTest, AnswerMeetsTheConeAndComplementarity) {
  int sliding = 0, sticking = 0;
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(100 + seed);
    const double mu = seed % 2 ? 0.3 : 1.0;
    GroupProblem P = MakeGroupProblem(&rng, mu);
    const PolygonalFrictionCone cone(seed % 3 ? 4 : 6);
    Eigen::VectorXd v;
    const RowGroupPgsResult r = SolveTightly(&P, cone, &v);
    ASSERT_TRUE(r.converged) << "seed " << seed << ": " << r.sweeps
                             << " sweeps, change " << r.change;
    test::CheckRowGroupAnswer(P, cone, v, "seed " + std::to_string(seed),
                              &sliding, &sticking);
  }
  // Both regimes are exercised.
  EXPECT_GT(sliding, 5);
  EXPECT_GT(sticking, 5);
}

// With the round cone (PolygonalFrictionCone::Disk, the plant's pile path
// under kConvex) every sliding contact's friction has magnitude mu p_n and
// opposes its slip (maximal dissipation on the disk), in every direction.
TEST(RowGroupPgsTest, DiskConeFrictionOpposesTheSlipAtFullMagnitude) {
  int sliding = 0, sticking = 0;
  const PolygonalFrictionCone disk = PolygonalFrictionCone::Disk();
  EXPECT_TRUE(disk.is_disk());
  EXPECT_EQ(disk.num_directions(), 0);
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(300 + seed);
    GroupProblem P = MakeGroupProblem(&rng, seed % 2 ? 0.3 : 1.0);
    Eigen::VectorXd v;
    const RowGroupPgsResult r = SolveTightly(&P, disk, &v);
    ASSERT_TRUE(r.converged) << "seed " << seed;
    test::CheckRowGroupAnswer(P, disk, v, "seed " + std::to_string(seed),
                              &sliding, &sticking);
  }
  EXPECT_GT(sliding, 5);
  EXPECT_GT(sticking, 5);
  // The disk's projection is the nearest point of the circle.
  double x1 = 3, x2 = 4;
  disk.Project(1.0, &x1, &x2);
  EXPECT_NEAR(x1, 0.6, 1e-15);
  EXPECT_NEAR(x2, 0.8, 1e-15);
  EXPECT_TRUE(disk.Contains(0.6, 0.79, 1.0));
  EXPECT_FALSE(disk.Contains(0.6, 0.81, 1.0));
}

// With two bounded rows (joint dry friction, |p| <= bound) added to the
// groups above, the answer meets their box conditions too: u = 0 inside,
// u <= 0 at p = bound, u >= 0 at p = -bound; both regimes occur.
TEST(RowGroupPgsTest, BoundedRowsMeetTheirBox) {
  int sliding = 0, sticking = 0, at_bound = 0, inside = 0;
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(700 + seed);
    GroupProblem P = MakeGroupProblem(&rng, 0.5, seed % 2 ? 0.05 : 2.0);
    const PolygonalFrictionCone cone(4);
    Eigen::VectorXd v;
    const RowGroupPgsResult r = SolveTightly(&P, cone, &v);
    ASSERT_TRUE(r.converged) << "seed " << seed << ": " << r.sweeps
                             << " sweeps, change " << r.change;
    test::CheckRowGroupAnswer(P, cone, v, "seed " + std::to_string(seed),
                              &sliding, &sticking, &at_bound, &inside);
  }
  EXPECT_GT(at_bound, 5);
  EXPECT_GT(inside, 5);
}

// A single sticking contact is solved exactly by its first step: the next
// sweep changes nothing.
TEST(RowGroupPgsTest, SingleStickingContactTakesOneSweep) {
  std::mt19937_64 rng(8);
  GroupProblem P = MakeGroupProblem(&rng, 100.0);  // large mu: sticks
  const JacobianRowLayout layout = P.Layout();
  const PolygonalFrictionCone cone(4);
  std::vector<DelassusBlock> blocks(P.groups.size());
  FormDelassusBlock(layout, 0.0, 0.0, &P.groups[0], &blocks[0]);
  Eigen::VectorXd v = P.v_free;
  const std::vector<int> order = {0};
  const RowGroupPgsResult r = SolveRowGroupsPgs(
      layout, cone, blocks.data(), order, {}, P.groups.data(), v.data());
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.sweeps, 2);
  const Eigen::Vector3d u =
      P.J[0] * v + Eigen::Map<Eigen::Vector3d>(P.groups[0].b);
  EXPECT_LE(u.cwiseAbs().maxCoeff(), 1e-12);
}

// RowGroupPgsSweep (the compiled sweep SolveRowGroupsPgs runs) takes the
// same steps as RowGroupPgsStep group by group (to round-off: the same
// code, compiled in two places; to the bit where nothing contracts to
// fused multiply-adds, as on x86-64's baseline), on a caller's
// record type larger than JacobianRowGroup (its base found by the stride),
// with the polygon and the disk, plain and over-relaxed, in a shuffled
// order; the caller's own fields are left alone.
TEST(RowGroupPgsTest, SweepEqualsTheStepsOneByOne) {
  struct Record : JacobianRowGroup {
    double before[3] = {1, 2, 3};  // the caller's fields, not touched
    int tag = 7;
  };
  static_assert(sizeof(Record) > sizeof(JacobianRowGroup));
  int changed = 0;
  for (int seed = 0; seed < 8; ++seed) {
    std::mt19937_64 rng(900 + seed);
    GroupProblem P = MakeGroupProblem(&rng, seed % 2 ? 0.3 : 1.0, 0.5);
    const JacobianRowLayout layout = P.Layout();
    const PolygonalFrictionCone cone =
        seed % 4 < 2 ? PolygonalFrictionCone(4) : PolygonalFrictionCone::Disk();
    const double omega = seed % 3 ? 1.3 : 1.0;
    std::vector<DelassusBlock> blocks(P.groups.size());
    std::vector<Record> records(P.groups.size());
    for (size_t gi = 0; gi < P.groups.size(); ++gi) {
      FormDelassusBlock(layout, 1e-9, 0.0, &P.groups[gi], &blocks[gi]);
      static_cast<JacobianRowGroup&>(records[gi]) = P.groups[gi];
    }
    std::vector<int> order(P.groups.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::shuffle(order.begin(), order.end(), rng);
    Eigen::VectorXd v_steps = P.v_free, v_sweep = P.v_free;
    for (int sweep = 0; sweep < 4; ++sweep) {
      double change = 0;
      for (int gi : order) {
        change = std::max(
            change, RowGroupPgsStep(layout, cone, blocks[gi], &P.groups[gi],
                                    v_steps.data(), omega));
      }
      const double swept =
          RowGroupPgsSweep(layout, cone, blocks.data(), order, records.data(),
                           sizeof(Record), v_sweep.data(), omega);
      EXPECT_NEAR(swept, change, 1e-12 * (1 + change))
          << "seed " << seed << ", sweep " << sweep;
      changed += change > 0;
    }
    for (Eigen::Index i = 0; i < v_steps.size(); ++i) {
      EXPECT_NEAR(v_sweep[i], v_steps[i], 1e-12 * (1 + std::abs(v_steps[i])))
          << "seed " << seed << ", v " << i;
    }
    for (size_t gi = 0; gi < P.groups.size(); ++gi) {
      for (int i = 0; i < P.groups[gi].rows; ++i) {
        EXPECT_NEAR(records[gi].p[i], P.groups[gi].p[i],
                    1e-12 * (1 + std::abs(P.groups[gi].p[i])))
            << "seed " << seed << ", group " << gi << ", row " << i;
      }
      EXPECT_EQ(records[gi].before[2], 3.0);
      EXPECT_EQ(records[gi].tag, 7);
    }
  }
  EXPECT_GT(changed, 16);  // the sweeps did move the impulses
}

TEST(RowGroupPgsTest, SweepCapIsReported) {
  std::mt19937_64 rng(21);
  GroupProblem P = MakeGroupProblem(&rng, 0.5);
  const JacobianRowLayout layout = P.Layout();
  const PolygonalFrictionCone cone(4);
  std::vector<DelassusBlock> blocks(P.groups.size());
  for (size_t gi = 0; gi < P.groups.size(); ++gi) {
    FormDelassusBlock(layout, 0.0, 0.0, &P.groups[gi], &blocks[gi]);
  }
  std::vector<int> order(P.groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  Eigen::VectorXd v = P.v_free;
  RowGroupPgsSettings settings;
  settings.max_sweeps = 1;
  settings.tolerance = 1e-14;
  RowGroupPgsResult r;
  {
    tern::test::ScopedAllocationCounter counter;
    r = SolveRowGroupsPgs(layout, cone, blocks.data(), order, settings,
                          P.groups.data(), v.data());
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_EQ(r.sweeps, 1);
  EXPECT_FALSE(r.converged);
  EXPECT_GT(r.change, settings.tolerance);
}

// stall_check_from: a solve whose convergence rate cannot reach the
// tolerance within max_sweeps stops early, not converged (a stack, whose
// caller falls back to the convex solver); with a budget it can meet, most
// solves still converge. Never an early stop reported as converged.
TEST(RowGroupPgsTest, StallCheckStopsASlowSolveEarly) {
  int long_solves = 0, stopped_early = 0, converged_with_room = 0;
  for (int seed = 0; seed < 40; ++seed) {
    const PolygonalFrictionCone cone(4);
    auto solve = [&](int max_sweeps, int stall_from) {
      std::mt19937_64 rng(300 + seed);
      GroupProblem P = MakeGroupProblem(&rng, 0.5);
      RowGroupPgsSettings settings;
      settings.max_sweeps = max_sweeps;
      settings.tolerance = 1e-12;
      settings.stall_check_from = stall_from;
      Eigen::VectorXd v;
      return SolveGroups(&P, cone, settings, &v);
    };
    const RowGroupPgsResult full = solve(20000, 0);
    ASSERT_TRUE(full.converged) << seed;
    if (full.sweeps < 40) continue;
    ++long_solves;
    const int scarce = full.sweeps / 4;
    const RowGroupPgsResult cut = solve(scarce, 3);
    EXPECT_FALSE(cut.converged) << seed;
    EXPECT_EQ(cut.converged, cut.change <= 1e-12) << seed;
    stopped_early += cut.sweeps < scarce;
    const RowGroupPgsResult roomy = solve(2 * full.sweeps, 3);
    EXPECT_EQ(roomy.converged, roomy.change <= 1e-12) << seed;
    converged_with_room += roomy.converged;
  }
  ASSERT_GE(long_solves, 10);
  EXPECT_GE(stopped_early, long_solves * 3 / 4);
  EXPECT_GE(converged_with_room, long_solves * 3 / 4);
}

// Appends a free body (a tree of 6 dofs) pressed onto the world by one
// contact with friction mu: a group that settles in its first sweeps.
void AppendPressedBody(GroupProblem* P, std::mt19937_64* rng, double mu) {
  const int t = static_cast<int>(P->tree_size.size()), n = 6;
  P->tree_start.push_back(P->nv);
  P->tree_size.push_back(n);
  for (int k = 0; k < n; ++k) P->dofs.push_back(P->nv + k);
  P->M.push_back(test::RandomSpd(n, rng));
  Eigen::VectorXd v_free(P->nv + n);
  v_free << P->v_free, test::RandomVector(n, rng);
  P->v_free = v_free;
  JacobianRowGroup g;
  g.kind = RowKind::kContact;
  g.rows = 3;
  g.mu = mu;
  g.tree[0] = t;
  g.d0[0] = P->nv;
  g.fast = true;
  const Eigen::MatrixXd Jt = test::RandomMatrix(3, n, rng);
  const Eigen::MatrixXd Yt = P->M[t].llt().solve(Jt.transpose()).transpose();
  g.jac[0] = static_cast<int>(P->jac.size());
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < n; ++k) P->jac.push_back(Jt(i, k));
  }
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < n; ++k) P->jac.push_back(Yt(i, k));
  }
  for (Eigen::MatrixXd& J : P->J) {  // the dense rows gain the new columns
    J.conservativeResize(Eigen::NoChange, P->nv + n);
    J.rightCols(n).setZero();
  }
  Eigen::MatrixXd Jd = Eigen::MatrixXd::Zero(3, P->nv + n);
  Jd.middleCols(P->nv, n) = Jt;
  P->nv += n;
  const double un = Jd.row(0).dot(P->v_free);
  g.b[0] = -0.5 - std::abs(un) - un;  // approaching
  P->groups.push_back(g);
  P->J.push_back(Jd);
}

// Skipping settled groups (RowGroupPgsSettings::tree_motion): the answer
// meets every group's conditions and agrees with the solve without
// skipping, plain and over-relaxed (1.2; seeds on which the unskipped
// over-relaxed solve cycles are left out, as the plant's fallback would
// take them), and the sweeps leave out the bodies that settled (a coupled
// problem beside five bodies each pressed on the world). With a skip
// threshold far above the tolerance (1e-7 against 1e-13) the skipping
// sweeps stop early, and only the confirming full sweeps make the answer
// meet the tolerance: without them the check fails. A budget that ends
// on a partial sweep within the tolerance is not converged.
TEST(RowGroupPgsTest, SkippingSettledGroupsKeepsTheAnswer) {
  long long steps = 0, full_steps = 0;
  int sliding = 0, sticking = 0, checked = 0, cut_checked = 0;
  for (int seed = 0; seed < 20; ++seed) {
    for (double skip_fraction : {0.5, 1e6}) {
      std::mt19937_64 rng(1100 + seed);
      GroupProblem P = MakeGroupProblem(&rng, 0.5);
      for (int b = 0; b < 5; ++b) AppendPressedBody(&P, &rng, b % 2 ? 0.2 : 2);
      const PolygonalFrictionCone cone = PolygonalFrictionCone::Disk();
      RowGroupPgsSettings settings;
      settings.max_sweeps = 20000;
      settings.tolerance = 1e-13;
      settings.relaxation = seed % 2 ? 1.2 : 1.0;
      GroupProblem unskipped = P;
      Eigen::VectorXd v_unskipped;
      if (!SolveGroups(&unskipped, cone, settings, &v_unskipped).converged) {
        continue;
      }
      std::vector<double> motion(P.tree_size.size(), 123.0);  // any values
      settings.tree_motion = motion.data();
      settings.skip_fraction = skip_fraction;
      Eigen::VectorXd v;
      const std::string where = "seed " + std::to_string(seed) + ", skip " +
                                std::to_string(skip_fraction);
      GroupProblem start = P;  // the same problem, solved again below
      const RowGroupPgsResult r = SolveGroups(&P, cone, settings, &v);
      ASSERT_TRUE(r.converged) << where << ": " << r.sweeps << " sweeps";
      // The sweep before the last was a partial one within the tolerance;
      // a budget that ends there has not converged (only a full sweep
      // confirms).
      if (r.sweeps >= 3) {
        RowGroupPgsSettings cut = settings;
        cut.max_sweeps = r.sweeps - 1;
        Eigen::VectorXd v_cut;
        const RowGroupPgsResult c = SolveGroups(&start, cone, cut, &v_cut);
        EXPECT_LE(c.change, settings.tolerance) << where;
        EXPECT_FALSE(c.converged) << where;
        ++cut_checked;
      }
      test::CheckRowGroupAnswer(P, cone, v, where, &sliding, &sticking);
      EXPECT_LE((v - v_unskipped).cwiseAbs().maxCoeff(), 1e-9) << where;
      const long long all_groups =
          static_cast<long long>(r.sweeps) * P.groups.size();
      EXPECT_LE(r.group_steps, all_groups) << where;
      if (skip_fraction < 1)
        steps += r.group_steps, full_steps += all_groups, ++checked;
    }
  }
  EXPECT_GE(checked, 15);
  EXPECT_GE(cut_checked, 15);
  EXPECT_GT(sliding, 20);
  EXPECT_GT(sticking, 20);
  // Half the groups are the pressed bodies, settled after two sweeps.
  EXPECT_LT(steps, full_steps * 7 / 10);
}
}  // namespace
}  // namespace tern::solvers
