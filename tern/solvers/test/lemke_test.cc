#include "tern/solvers/lemke.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "tern/solvers/test/random_lcp.h"
#include "tern/test_support/allocation_counter.h"

namespace tern::solvers {
namespace {

using test::Lcp;

struct Answer {
  LcpResult result;
  Eigen::VectorXd z, w;
};

Answer Solve(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
             const LemkeSettings& settings = {}) {
  LemkeWorkspace ws;
  Answer a{{}, Eigen::VectorXd::Zero(q.size()), Eigen::VectorXd(q.size())};
  a.result = SolveLcpLemke(M, q, settings, &ws, a.z, a.w);
  return a;
}

TEST(LemkeTest, NonnegativeQGivesZero) {
  const Eigen::MatrixXd M = Eigen::MatrixXd::Identity(3, 3);
  const Eigen::VectorXd q = Eigen::Vector3d(1.0, 0.0, 2.0);
  const Answer a = Solve(M, q);
  EXPECT_EQ(a.result.status, LcpStatus::kSolved);
  EXPECT_EQ(a.result.iterations, 0);
  EXPECT_EQ(a.z, Eigen::VectorXd::Zero(3));
  EXPECT_EQ(a.w, q);
}

TEST(LemkeTest, TwoByTwoClosedForm) {
  // Both z > 0: z = -M^-1 q = (4/3, 7/3), w = 0.
  Eigen::MatrixXd M(2, 2);
  M << 2, 1, 1, 2;
  const Eigen::VectorXd q = Eigen::Vector2d(-5.0, -6.0);
  const Answer a = Solve(M, q);
  ASSERT_EQ(a.result.status, LcpStatus::kSolved);
  EXPECT_NEAR(a.z[0], 4.0 / 3.0, 1e-14);
  EXPECT_NEAR(a.z[1], 7.0 / 3.0, 1e-14);
  EXPECT_NEAR(a.w.norm(), 0.0, 1e-14);
  // One active: q = (-1, 3): z = (1/2, 0), w = (0, 3.5).
  const Answer b = Solve(M, Eigen::Vector2d(-1.0, 3.0));
  ASSERT_EQ(b.result.status, LcpStatus::kSolved);
  EXPECT_NEAR(b.z[0], 0.5, 1e-15);
  EXPECT_EQ(b.z[1], 0.0);
  EXPECT_NEAR(b.w[1], 3.5, 1e-15);
}

// Random P-matrices (not symmetric): the solution is unique and equals the
// planted one.
TEST(LemkeTest, RandomPMatrixFindsThePlantedSolution) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 1 + trial % 30;
    const Eigen::MatrixXd M = test::RandomPMatrix(n, &rng);
    Eigen::VectorXd z_star;
    const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng, &z_star);
    const Answer a = Solve(M, q);
    ASSERT_EQ(a.result.status, LcpStatus::kSolved) << "trial " << trial;
    EXPECT_LE(a.result.residual, 1e-10);
    EXPECT_LE((a.z - z_star).lpNorm<Eigen::Infinity>(), 1e-10)
        << "trial " << trial;
  }
}

TEST(LemkeTest, RandomPsdSolvedWithSmallResidual) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 25;
    const Eigen::MatrixXd M = test::RandomPsd(n, 1 + n / 2, trial % 2, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.4, 0.4, &rng);
    const Answer a = Solve(M, q);
    ASSERT_EQ(a.result.status, LcpStatus::kSolved) << "trial " << trial;
    EXPECT_LE(a.result.residual, 1e-10);
    EXPECT_LE(test::LcpCheck(M, q, a.z), 1e-10);
  }
}

// Degenerate problems: every ratio test ties at the first pivot (all q_i
// equal), the planted solution has indices with z_i = w_i = 0, and M is
// singular with repeated rows. Lexicographic pivoting must still end at a
// solution.
TEST(LemkeTest, DegenerateProblemsTerminateAtASolution) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 3 + trial % 15;
    Eigen::MatrixXd M = test::RandomPsd(n, 2, false, &rng);
    M.row(n - 1) = M.row(0);  // repeated constraint
    M.col(n - 1) = M.col(0);
    {
      const Eigen::VectorXd q = Eigen::VectorXd::Constant(n, -1.0);
      const Answer a = Solve(M + Eigen::MatrixXd::Identity(n, n), q);
      ASSERT_EQ(a.result.status, LcpStatus::kSolved) << "trial " << trial;
      EXPECT_LE(a.result.residual, 1e-10);
    }
    {
      // Planted degenerate solution: a third of the indices have z = w = 0.
      const Eigen::VectorXd q = test::QFromSolution(M, 0.33, 0.33, &rng);
      const Answer a = Solve(M, q);
      ASSERT_EQ(a.result.status, LcpStatus::kSolved) << "trial " << trial;
      EXPECT_LE(a.result.residual, 1e-10);
    }
  }
}

// A degenerate P-matrix problem: all q_i equal, so the first ratio test ties
// three ways, and later ones tie at zero. Breaking ties by the smallest row
// index instead of lexicographically cycles here until the pivot cap (tried);
// the lexicographic rule reaches the unique solution z = (1/3, 1/3, 1/3).
TEST(LemkeTest, DegenerateIntegerProblem) {
  Eigen::MatrixXd M(3, 3);
  M << 1, 2, 0, 0, 1, 2, 2, 0, 1;
  const Eigen::VectorXd q = Eigen::Vector3d(-1.0, -1.0, -1.0);
  const Answer a = Solve(M, q);
  ASSERT_EQ(a.result.status, LcpStatus::kSolved);
  EXPECT_LE(a.result.residual, 1e-12);
  EXPECT_NEAR(a.z[0], 1.0 / 3.0, 1e-14);  // the symmetric solution z = 1/3
}

TEST(LemkeTest, InfeasibleProblemsEndInRayTermination) {
  {
    // w1 = z2 - 1, w2 = -z1 - 1 < 0 always (M skew, so copositive-plus).
    Eigen::MatrixXd M(2, 2);
    M << 0, 1, -1, 0;
    const Answer a = Solve(M, Eigen::Vector2d(-1.0, -1.0));
    EXPECT_EQ(a.result.status, LcpStatus::kRayTermination);
    EXPECT_FALSE(a.result.ok());
    EXPECT_EQ(std::string(ToString(a.result.status)), "ray termination");
  }
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 2 + trial % 20;
    const Lcp lcp = test::RandomInfeasiblePsd(n, 1 + n / 2, &rng);
    const Answer a = Solve(lcp.M, lcp.q);
    EXPECT_EQ(a.result.status, LcpStatus::kRayTermination) << "trial " << trial;
  }
}

TEST(LemkeTest, IterationCapReported) {
  std::mt19937_64 rng(5);
  const Eigen::MatrixXd M = test::RandomSpd(10, &rng);
  const Eigen::VectorXd q = -Eigen::VectorXd::Ones(10);
  LemkeSettings settings;
  settings.max_pivots = 3;
  const Answer a = Solve(M, q, settings);
  EXPECT_EQ(a.result.status, LcpStatus::kIterationLimit);
  EXPECT_EQ(a.result.iterations, 3);
}

TEST(LemkeTest, CoveringVectorDoesNotChangeAUniqueSolution) {
  std::mt19937_64 rng(6);
  const int n = 12;
  const Eigen::MatrixXd M = test::RandomPMatrix(n, &rng);
  const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
  const Answer ones = Solve(M, q);
  const Eigen::VectorXd d = Eigen::VectorXd::LinSpaced(n, 0.5, 3.0);
  LemkeWorkspace ws;
  Eigen::VectorXd z(n), w(n);
  const LcpResult r = SolveLcpLemke(M, q, d, {}, &ws, z, w);
  ASSERT_TRUE(r.ok());
  EXPECT_LE((z - ones.z).lpNorm<Eigen::Infinity>(), 1e-11);
}

TEST(LemkeTest, WarmStartFromTheSameSupportTakesNoPivots) {
  std::mt19937_64 rng(7);
  const int n = 20;
  const Eigen::MatrixXd M = test::RandomPMatrix(n, &rng);
  Eigen::VectorXd z_star;
  const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng, &z_star);
  const Answer cold = Solve(M, q);
  ASSERT_TRUE(cold.result.ok());
  // Next "time step": q changes a little, the support does not.
  const Eigen::VectorXd q2 = q + 1e-3 * test::RandomVector(n, &rng);
  LemkeSettings warm_settings;
  warm_settings.warm_start = true;
  LemkeWorkspace ws;
  Eigen::VectorXd z = cold.z, w(n);
  const LcpResult warm = SolveLcpLemke(M, q2, warm_settings, &ws, z, w);
  const Answer cold2 = Solve(M, q2);
  ASSERT_TRUE(warm.ok());
  EXPECT_LE((z - cold2.z).lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_EQ(warm.iterations, 0);
  EXPECT_GT(cold2.result.iterations, 5);
  // A wrong guess falls back to the cold path and still solves.
  z.setOnes();
  const LcpResult bad_guess = SolveLcpLemke(M, q2, warm_settings, &ws, z, w);
  ASSERT_TRUE(bad_guess.ok());
  EXPECT_LE((z - cold2.z).lpNorm<Eigen::Infinity>(), 1e-10);
}

// Restarting a contact LCP from its own answer takes no pivots, including
// answers where a contact carries only lambda (its row and column of M_aa
// vanish; without the rule that keeps such an entry at its guess, 3 of these
// 24 restarts fell back to the cold path, and 30 of 64 with 16 contacts).
TEST(LemkeTest, WarmStartOnContactLcpsFromTheirOwnAnswer) {
  std::mt19937_64 rng(10);
  LemkeSettings warm_settings;
  warm_settings.warm_start = true;
  int lambda_only = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int contacts = 8;
    const Lcp lcp =
        test::RandomContactLcp(contacts, 4, 0.5, 8 * contacts, &rng);
    const Answer cold = Solve(lcp.M, lcp.q);
    ASSERT_TRUE(cold.result.ok());
    for (int c = 0; c < contacts; ++c) {
      lambda_only +=
          cold.z.segment(6 * c, 5).isZero(0.0) && cold.z[6 * c + 5] > 0;
    }
    LemkeWorkspace ws;
    Eigen::VectorXd z = cold.z, w(lcp.q.size());
    const LcpResult warm =
        SolveLcpLemke(lcp.M, lcp.q, warm_settings, &ws, z, w);
    ASSERT_TRUE(warm.ok()) << "trial " << trial;
    EXPECT_EQ(warm.iterations, 0) << "trial " << trial;
    EXPECT_LE(test::LcpCheck(lcp.M, lcp.q, z), 1e-10);
  }
  EXPECT_GT(lambda_only, 0);  // the case the rule is for occurs
}

TEST(LemkeTest, RepeatedSolvesDoNotAllocate) {
  std::mt19937_64 rng(8);
  const int n = 24;
  const Lcp lcp = test::RandomContactLcp(4, 4, 0.5, 12, &rng);
  ASSERT_EQ(lcp.q.size(), n);
  LemkeWorkspace ws(n);
  Eigen::VectorXd z(n), w(n);
  LemkeSettings warm;
  warm.warm_start = true;
  LcpResult r;
  {
    tern::test::ScopedAllocationCounter counter;
    r = SolveLcpLemke(lcp.M, lcp.q, {}, &ws, z, w);
    r = SolveLcpLemke(lcp.M, lcp.q, warm, &ws, z, w);
    // A smaller problem fits in the same workspace.
    r = SolveLcpLemke(lcp.M.topLeftCorner(6, 6), lcp.q.head(6), {}, &ws,
                      z.head(6), w.head(6));
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_TRUE(r.ok());
}

// The Anitescu-Potra contact LCP is not a P-matrix nor PSD (zero diagonal in
// the lambda rows); Lemke processes it (Stewart & Trinkle 1996).
TEST(LemkeTest, SolvesContactLcps) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 30; ++trial) {
    const int contacts = 1 + trial % 6;
    const int k = trial % 2 ? 4 : 8;
    const Lcp lcp =
        test::RandomContactLcp(contacts, k, 0.6, 3 * contacts + 6, &rng);
    const Answer a = Solve(lcp.M, lcp.q);
    ASSERT_EQ(a.result.status, LcpStatus::kSolved) << "trial " << trial;
    EXPECT_LE(a.result.residual, 1e-10);
  }
}

TEST(LemkeTest, BadInputNamesTheCulprit) {
  LemkeWorkspace ws;
  Eigen::VectorXd z(2), w(2);
  const Eigen::MatrixXd M = Eigen::MatrixXd::Identity(2, 2);
  const Eigen::VectorXd q = -Eigen::VectorXd::Ones(2);
  auto message = [&](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([&] {
              SolveLcpLemke(Eigen::MatrixXd::Identity(3, 3), q, {}, &ws, z, w);
            }).find("M is 3 x 3 but q has size 2"),
            std::string::npos);
  EXPECT_NE(message([&] {
              Eigen::VectorXd z3(3);
              SolveLcpLemke(M, q, {}, &ws, z3, w);
            }).find("z has size 3"),
            std::string::npos);
  EXPECT_NE(message([&] {
              SolveLcpLemke(M, q, Eigen::Vector2d(1.0, 0.0), {}, &ws, z, w);
            }).find("d[1] = 0 is not positive"),
            std::string::npos);
  EXPECT_NE(message([&] {
              SolveLcpLemke(M, q, Eigen::Vector3d::Ones(), {}, &ws, z, w);
            }).find("covering vector d has size 3"),
            std::string::npos);
  EXPECT_NE(message([&] {
              Eigen::Vector2d q_nan(-1.0, std::nan(""));
              SolveLcpLemke(M, q_nan, {}, &ws, z, w);
            }).find("q[1] = nan is not finite"),
            std::string::npos);
  EXPECT_NE(message([&] {
              Eigen::MatrixXd M_inf = M;
              M_inf(1, 0) = std::numeric_limits<double>::infinity();
              SolveLcpLemke(M_inf, q, {}, &ws, z, w);
            }).find("M(1, 0) = inf is not finite"),
            std::string::npos);
  EXPECT_NE(message([&] {
              SolveLcpLemke(M, q, {}, nullptr, z, w);
            }).find("workspace is null"),
            std::string::npos);
}

}  // namespace
}  // namespace tern::solvers
