// Tern's LCP solvers against Siconos numerics (INRIA; Debian
// libsiconos-numerics-dev) on the same random problems: Siconos's
// lexicographic Lemke (lcp_lexicolemke) and projected Gauss-Seidel (lcp_pgs).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tern/solvers/lemke.h"
#include "tern/solvers/projected_gauss_seidel.h"
#include "tern/solvers/test/random_lcp.h"

// Siconos numerics 4.4 leaks 120 bytes per driver call inside the library
// (not in this test's calls to it); keep LeakSanitizer to Tern's own code.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libsiconos_numerics.so";
}

extern "C" {
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>
}

namespace tern::solvers {
namespace {

using test::Lcp;

enum class SiconosSolver { kLexicoLemke, kPgs };

struct SiconosAnswer {
  int info = -1;  // 0: solved
  Eigen::VectorXd z, w;
};

// Solves the LCP(M, q) with a Siconos solver. Siconos's dense matrices are
// column-major, as Eigen's.
SiconosAnswer SolveWithSiconos(const Eigen::MatrixXd& M,
                               const Eigen::VectorXd& q, SiconosSolver which,
                               double tolerance = 1e-12,
                               int max_iterations = 100000) {
  const int n = static_cast<int>(q.size());
  NumericsMatrix* nm = NM_create(NM_DENSE, n, n);
  std::memcpy(nm->matrix0, M.data(), sizeof(double) * n * n);
  Eigen::VectorXd q_copy = q;
  LinearComplementarityProblem problem;
  problem.size = n;
  problem.M = nm;
  problem.q = q_copy.data();
  SolverOptions* options = solver_options_create(
      which == SiconosSolver::kLexicoLemke ? SICONOS_LCP_LEMKE
                                           : SICONOS_LCP_PGS);
  options->iparam[SICONOS_IPARAM_MAX_ITER] = max_iterations;
  options->dparam[SICONOS_DPARAM_TOL] = tolerance;
  SiconosAnswer a{-1, Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  // Through Siconos's driver, which (filterOn, its default) checks the
  // answer with lcp_compute_error: called alone, lcp_lexicolemke returns
  // info = 0 on infeasible problems with a residual of order 1.
  a.info =
      linearComplementarity_driver(&problem, a.z.data(), a.w.data(), options);
  solver_options_delete(options);
  NM_free(nm);
  return a;
}

struct TernAnswer {
  LcpResult result;
  Eigen::VectorXd z, w;
};

TernAnswer SolveWithLemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q) {
  LemkeWorkspace ws;
  TernAnswer a{{}, Eigen::VectorXd::Zero(q.size()), Eigen::VectorXd(q.size())};
  a.result = SolveLcpLemke(M, q, {}, &ws, a.z, a.w);
  return a;
}

TEST(SiconosCrossCheckTest, LemkeSameSolutionOnPMatrices) {
  std::mt19937_64 rng(101);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 1 + trial % 30;
    const Eigen::MatrixXd M = test::RandomPMatrix(n, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
    const SiconosAnswer s = SolveWithSiconos(M, q, SiconosSolver::kLexicoLemke);
    const TernAnswer t = SolveWithLemke(M, q);
    ASSERT_EQ(s.info, 0) << "trial " << trial;
    ASSERT_TRUE(t.result.ok()) << "trial " << trial;
    EXPECT_LE(t.result.residual, 1e-10);
    EXPECT_LE((t.z - s.z).lpNorm<Eigen::Infinity>(), 1e-10)
        << "trial " << trial;
  }
}

// Degenerate P-matrix problems (planted solutions with z_i = w_i = 0, equal
// q_i): still unique, and both Lemkes must find it.
TEST(SiconosCrossCheckTest, LemkeSameSolutionOnDegeneratePMatrices) {
  std::mt19937_64 rng(102);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial % 20;
    const Eigen::MatrixXd M = test::RandomPMatrix(n, &rng);
    Eigen::VectorXd z_star;
    const Eigen::VectorXd q =
        trial % 2 ? test::QFromSolution(M, 0.33, 0.33, &rng, &z_star)
                  : Eigen::VectorXd(-Eigen::VectorXd::Ones(n));
    const SiconosAnswer s = SolveWithSiconos(M, q, SiconosSolver::kLexicoLemke);
    const TernAnswer t = SolveWithLemke(M, q);
    ASSERT_EQ(s.info, 0) << "trial " << trial;
    ASSERT_TRUE(t.result.ok()) << "trial " << trial;
    EXPECT_LE((t.z - s.z).lpNorm<Eigen::Infinity>(), 1e-10)
        << "trial " << trial;
    if (trial % 2) {
      EXPECT_LE((t.z - z_star).lpNorm<Eigen::Infinity>(), 1e-10);
    }
  }
}

// Symmetric PSD (singular): z is not unique but w = M z + q is (the LCP is a
// convex QP's optimality condition); both reach residual <= 1e-10.
TEST(SiconosCrossCheckTest, LemkeSameWOnSymmetricPsd) {
  std::mt19937_64 rng(103);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial % 25;
    const Eigen::MatrixXd M = test::RandomPsd(n, 1 + n / 2, false, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.4, 0.4, &rng);
    const SiconosAnswer s = SolveWithSiconos(M, q, SiconosSolver::kLexicoLemke);
    const TernAnswer t = SolveWithLemke(M, q);
    ASSERT_EQ(s.info, 0) << "trial " << trial;
    ASSERT_TRUE(t.result.ok()) << "trial " << trial;
    EXPECT_LE(test::LcpCheck(M, q, t.z), 1e-10);
    EXPECT_LE(test::LcpCheck(M, q, s.z), 1e-10);
    EXPECT_LE((t.w - (M * s.z + q)).lpNorm<Eigen::Infinity>(), 1e-9)
        << "trial " << trial;
  }
}

// Non-symmetric PSD (monotone): solutions may differ; both must solve.
TEST(SiconosCrossCheckTest, LemkeBothSolveMonotoneProblems) {
  std::mt19937_64 rng(104);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 2 + trial % 25;
    const Eigen::MatrixXd M = test::RandomPsd(n, 1 + n / 2, true, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.4, 0.4, &rng);
    const SiconosAnswer s = SolveWithSiconos(M, q, SiconosSolver::kLexicoLemke);
    const TernAnswer t = SolveWithLemke(M, q);
    ASSERT_EQ(s.info, 0) << "trial " << trial;
    ASSERT_TRUE(t.result.ok()) << "trial " << trial;
    EXPECT_LE(test::LcpCheck(M, q, t.z), 1e-10);
    EXPECT_LE(test::LcpCheck(M, q, s.z), 1e-9);
  }
}

// Infeasible: Siconos reports failure, Tern reports ray termination.
TEST(SiconosCrossCheckTest, BothFailOnInfeasibleProblems) {
  std::mt19937_64 rng(105);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + trial % 15;
    const Lcp lcp = test::RandomInfeasiblePsd(n, 1 + n / 2, &rng);
    const SiconosAnswer s =
        SolveWithSiconos(lcp.M, lcp.q, SiconosSolver::kLexicoLemke);
    const TernAnswer t = SolveWithLemke(lcp.M, lcp.q);
    EXPECT_NE(s.info, 0) << "trial " << trial;
    EXPECT_EQ(t.result.status, LcpStatus::kRayTermination) << "trial " << trial;
  }
}

TEST(SiconosCrossCheckTest, PgsSameSolutionOnSpdProblems) {
  std::mt19937_64 rng(106);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 1 + trial % 25;
    const Eigen::MatrixXd M = test::RandomSpd(n, &rng);
    const Eigen::VectorXd q = test::QFromSolution(M, 0.5, 0.5, &rng);
    const SiconosAnswer s = SolveWithSiconos(M, q, SiconosSolver::kPgs);
    PgsSettings settings;
    settings.tolerance = 1e-12;
    settings.max_iterations = 100000;
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w(n);
    const LcpResult t = SolveLcpPgs(M, q, settings, z, w);
    ASSERT_EQ(s.info, 0) << "trial " << trial;
    ASSERT_TRUE(t.ok()) << "trial " << trial;
    EXPECT_LE(t.residual, 1e-10);
    EXPECT_LE((z - s.z).lpNorm<Eigen::Infinity>(), 1e-9) << "trial " << trial;
  }
}

// The Anitescu-Potra contact LCP (not P, not PSD: zero diagonal in the
// lambda rows). Tern's Lemke and block PGS solve all 20 problems; Siconos's
// lexicographic Lemke solves 18 and reports failure (info 1) on two (trials 4
// and 13), which Tern's Lemke solves (residual checked). Solutions are not
// unique here: compare residuals.
TEST(SiconosCrossCheckTest, ContactLcps) {
  std::mt19937_64 rng(107);
  int siconos_solved = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const int contacts = 1 + trial % 5;
    const int k = 4;
    const Lcp lcp =
        test::RandomContactLcp(contacts, k, 0.5, 8 * contacts, &rng);
    const int n = static_cast<int>(lcp.q.size());
    const SiconosAnswer s =
        SolveWithSiconos(lcp.M, lcp.q, SiconosSolver::kLexicoLemke);
    const TernAnswer t = SolveWithLemke(lcp.M, lcp.q);
    const std::vector<int> blocks(contacts, k + 2);
    BlockPgsWorkspace ws(blocks);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w(n);
    PgsSettings settings;
    settings.max_iterations = 5000;
    const LcpResult b = SolveLcpBlockPgs(lcp.M, lcp.q, settings, &ws, z, w);
    ASSERT_TRUE(t.result.ok()) << "trial " << trial;
    ASSERT_TRUE(b.ok()) << "trial " << trial;
    EXPECT_LE(test::LcpCheck(lcp.M, lcp.q, t.z), 1e-10);
    EXPECT_LE(test::LcpCheck(lcp.M, lcp.q, z), 1e-10);
    if (s.info == 0) {
      ++siconos_solved;
      EXPECT_LE(test::LcpCheck(lcp.M, lcp.q, s.z), 1e-10) << "trial " << trial;
    }
  }
  EXPECT_EQ(siconos_solved, 18);
}

}  // namespace
}  // namespace tern::solvers
