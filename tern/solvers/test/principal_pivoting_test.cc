#include "tern/solvers/principal_pivoting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tern/common/autodiff.h"
#include "tern/solvers/lemke.h"
#include "tern/solvers/test/random_lcp.h"
#include "tern/test_support/allocation_counter.h"

namespace tern::solvers {
namespace {

struct Answer {
  PivotingResult result;
  Eigen::VectorXd f;
};

Answer Solve(const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
             const std::vector<char>& unilateral,
             const PivotingSettings& settings = {}) {
  PrincipalPivotingWorkspace<double> ws;
  Answer a{{}, Eigen::VectorXd::Constant(b.size(), -7.0)};
  a.result = SolveMixedLcpPrincipalPivoting<double>(A, b, unilateral, settings,
                                                    &ws, a.f);
  return a;
}

// The mixed LCP's conditions at f, with w = A f - b: the largest violation
// of w_i = 0 (bilateral), w_i >= 0, f_i >= 0 and |w_i f_i| (unilateral).
double Violation(const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                 const std::vector<char>& unilateral,
                 const Eigen::VectorXd& f) {
  const Eigen::VectorXd w = A * f - b;
  double v = 0;
  for (int i = 0; i < b.size(); ++i) {
    if (unilateral[i]) {
      v = std::max({v, -w[i], -f[i], std::abs(w[i] * f[i])});
    } else {
      v = std::max(v, std::abs(w[i]));
    }
  }
  return v;
}

// The same problem by another method: the bilateral rows B eliminated by
// their Schur complement, the unilateral rows U as the LCP(S, q) solved by
// Lemke, S = A_UU - A_UB A_BB^-1 A_BU, q = -(b_U - A_UB A_BB^-1 b_B); then
// f_B = A_BB^-1 (b_B - A_BU f_U).
Eigen::VectorXd SolveBySchurAndLemke(const Eigen::MatrixXd& A,
                                     const Eigen::VectorXd& b,
                                     const std::vector<char>& unilateral) {
  std::vector<int> B, U;
  for (int i = 0; i < b.size(); ++i) (unilateral[i] ? U : B).push_back(i);
  const int nb = static_cast<int>(B.size()), nu = static_cast<int>(U.size());
  Eigen::MatrixXd Abb(nb, nb), Abu(nb, nu), Aub(nu, nb), Auu(nu, nu);
  Eigen::VectorXd bb(nb), bu(nu);
  for (int r = 0; r < nb; ++r) {
    bb[r] = b[B[r]];
    for (int c = 0; c < nb; ++c) Abb(r, c) = A(B[r], B[c]);
    for (int c = 0; c < nu; ++c) Abu(r, c) = A(B[r], U[c]);
  }
  for (int r = 0; r < nu; ++r) {
    bu[r] = b[U[r]];
    for (int c = 0; c < nb; ++c) Aub(r, c) = A(U[r], B[c]);
    for (int c = 0; c < nu; ++c) Auu(r, c) = A(U[r], U[c]);
  }
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(Abb);
  Eigen::VectorXd fu = Eigen::VectorXd::Zero(nu), wu(nu);
  if (nu > 0) {
    const Eigen::MatrixXd S =
        nb > 0 ? Eigen::MatrixXd(Auu - Aub * ldlt.solve(Abu)) : Auu;
    const Eigen::VectorXd q =
        nb > 0 ? Eigen::VectorXd(-(bu - Aub * ldlt.solve(bb))) : -bu;
    LemkeWorkspace lemke;
    const LcpResult r = SolveLcpLemke(S, q, {}, &lemke, fu, wu);
    EXPECT_TRUE(r.ok()) << ToString(r.status);
  }
  Eigen::VectorXd f(b.size());
  for (int r = 0; r < nu; ++r) f[U[r]] = fu[r];
  if (nb > 0) {
    const Eigen::VectorXd fb = ldlt.solve(bb - Abu * fu);
    for (int r = 0; r < nb; ++r) f[B[r]] = fb[r];
  }
  return f;
}

std::vector<char> RandomMask(int m, double p_unilateral, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<char> mask(m);
  for (char& c : mask) c = u(*rng) < p_unilateral;
  return mask;
}

// Random mixed problems: the answer meets every row's condition and equals
// the one of the Schur complement + Lemke (unique: A is positive definite).
TEST(PrincipalPivotingTest, RandomMixedProblemsMatchSchurComplementLemke) {
  std::mt19937_64 rng(28);
  int max_pivots = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int m = 1 + trial % 14;
    const Eigen::MatrixXd A = test::RandomSpd(m, &rng);
    const Eigen::VectorXd b = test::RandomVector(m, &rng);
    const std::vector<char> mask = RandomMask(m, 0.6, &rng);
    const Answer a = Solve(A, b, mask);
    ASSERT_TRUE(a.result.ok())
        << "trial " << trial << ": " << ToString(a.result.status);
    EXPECT_LE(Violation(A, b, mask, a.f), 1e-10) << "trial " << trial;
    const Eigen::VectorXd expected = SolveBySchurAndLemke(A, b, mask);
    EXPECT_LE((a.f - expected).cwiseAbs().maxCoeff(), 1e-9)
        << "trial " << trial;
    max_pivots = std::max(max_pivots, a.result.pivots);
  }
  // The rule does pivot on these problems (the test is not all-bilateral).
  EXPECT_GT(max_pivots, 1);
}

// Only unilateral rows: the LCP(A, -b), the same answer as Lemke's.
TEST(PrincipalPivotingTest, PureUnilateralMatchesLemke) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    const int m = 1 + trial % 20;
    const Eigen::MatrixXd A = test::RandomSpd(m, &rng);
    const Eigen::VectorXd b = test::RandomVector(m, &rng);
    const std::vector<char> mask(m, 1);
    const Answer a = Solve(A, b, mask);
    ASSERT_TRUE(a.result.ok()) << "trial " << trial;
    LemkeWorkspace lemke;
    Eigen::VectorXd z(m), w(m);
    ASSERT_TRUE(SolveLcpLemke(A, -b, {}, &lemke, z, w).ok());
    EXPECT_LE((a.f - z).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
  }
}

// Only bilateral rows: one solve of A f = b, no pivot.
TEST(PrincipalPivotingTest, PureBilateralIsOneSolve) {
  std::mt19937_64 rng(3);
  const Eigen::MatrixXd A = test::RandomSpd(6, &rng);
  const Eigen::VectorXd b = test::RandomVector(6, &rng);
  const Answer a = Solve(A, b, std::vector<char>(6, 0));
  ASSERT_TRUE(a.result.ok());
  EXPECT_EQ(a.result.pivots, 0);
  EXPECT_EQ(a.result.num_active, 6);
  EXPECT_LE((a.f - A.llt().solve(b)).cwiseAbs().maxCoeff(), 1e-12);
}

// Degenerate problems: rows with f_i = w_i = 0 at the answer (b built from a
// complementary pair with empty supports), b = 0 and a repeated unilateral
// row (the plant's redundant limit, kept positive definite by a small
// regularization). The least-index rule does not cycle: each ends solved
// within the default cap.
TEST(PrincipalPivotingTest, DegenerateProblemsDoNotCycle) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    const int m = 2 + trial % 12;
    const Eigen::MatrixXd A = test::RandomSpd(m, &rng);
    Eigen::VectorXd f_star;
    // q = w* - A f*, so b = -q; a third of the rows in neither support.
    const Eigen::VectorXd b = -test::QFromSolution(A, 0.35, 0.3, &rng, &f_star);
    const std::vector<char> mask(m, 1);
    const Answer a = Solve(A, b, mask);
    ASSERT_TRUE(a.result.ok()) << "trial " << trial;
    EXPECT_LE(a.result.pivots, 4 * m + 20);
    EXPECT_LE((a.f - f_star).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
  }
  {
    const Eigen::MatrixXd A = test::RandomSpd(5, &rng);
    const Answer a =
        Solve(A, Eigen::VectorXd::Zero(5), std::vector<char>(5, 1));
    ASSERT_TRUE(a.result.ok());
    EXPECT_EQ(a.f, Eigen::VectorXd::Zero(5));
  }
  {
    // Rows 1 and 2 identical: A singular but for eps; a bilateral row 0.
    Eigen::MatrixXd J(3, 4);
    J << 1, 0.5, 0, 0,  //
        0, 1, -1, 0.3,  //
        0, 1, -1, 0.3;
    const double eps = 1e-12;
    const Eigen::MatrixXd A =
        J * J.transpose() + eps * Eigen::MatrixXd::Identity(3, 3);
    const Eigen::Vector3d b(0.2, 1.0, 1.0);
    const std::vector<char> mask = {0, 1, 1};
    const Answer a = Solve(A, b, mask);
    ASSERT_TRUE(a.result.ok());
    EXPECT_LE(Violation(A, b, mask, a.f), 1e-9);
    // The pair carries the force of one of its rows alone.
    const Eigen::MatrixXd J2 = J.topRows(2);
    const Eigen::MatrixXd A2 =
        J2 * J2.transpose() + eps * Eigen::MatrixXd::Identity(2, 2);
    const Answer single = Solve(A2, b.head(2), {0, 1});
    ASSERT_TRUE(single.result.ok());
    EXPECT_GT(single.f[1], 0.0);
    EXPECT_NEAR(a.f[1] + a.f[2], single.f[1], 1e-6 * single.f[1]);
    EXPECT_NEAR(a.f[0], single.f[0], 1e-6 * std::abs(single.f[0]));
  }
}

TEST(PrincipalPivotingTest, PivotCapIsReported) {
  // A = I, b = -1: from all rows active (f = -1), the least-index rule
  // drops one row per pivot, m pivots to the answer f = 0.
  const int m = 6;
  const Eigen::MatrixXd A = Eigen::MatrixXd::Identity(m, m);
  const Eigen::VectorXd b = -Eigen::VectorXd::Ones(m);
  PivotingSettings settings;
  settings.max_pivots = 2;
  const Answer capped = Solve(A, b, std::vector<char>(m, 1), settings);
  EXPECT_EQ(capped.result.status, PivotingStatus::kIterationLimit);
  EXPECT_EQ(capped.result.pivots, 2);
  EXPECT_FALSE(capped.result.ok());
  EXPECT_STREQ(ToString(capped.result.status), "pivot limit reached");
  const Answer free = Solve(A, b, std::vector<char>(m, 1));
  ASSERT_TRUE(free.result.ok());
  EXPECT_EQ(free.result.pivots, m);
  EXPECT_EQ(free.result.num_active, 0);
  EXPECT_EQ(free.f, Eigen::VectorXd::Zero(m));
}

TEST(PrincipalPivotingTest, NotPositiveDefiniteNamesTheRow) {
  Eigen::Matrix3d A;
  A << 2, 0, 0,  //
      0, 1, 1,   //
      0, 1, 1;   // rows 1 and 2 equal, no regularization
  const Answer a = Solve(A, Eigen::Vector3d(1, 1, 1), {0, 0, 0});
  EXPECT_EQ(a.result.status, PivotingStatus::kNotPositiveDefinite);
  EXPECT_EQ(a.result.failed_row, 2);
  EXPECT_STREQ(ToString(a.result.status), "not positive definite");
}

void ExpectThrowsWith(const std::function<void()>& call,
                      const std::string& what) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one with '" << what << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(PrincipalPivotingTest, BadInputIsNamed) {
  const Eigen::MatrixXd A = Eigen::MatrixXd::Identity(3, 3);
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(3);
  const std::vector<char> mask(3, 1);
  PrincipalPivotingWorkspace<double> ws;
  Eigen::VectorXd f(3);
  ExpectThrowsWith(
      [&] {
        SolveMixedLcpPrincipalPivoting<double>(A.leftCols(2), b, mask, {}, &ws,
                                               f);
      },
      "A is 3 x 2 but b has size 3");
  ExpectThrowsWith(
      [&] {
        SolveMixedLcpPrincipalPivoting<double>(
            A, b, std::span<const char>(mask.data(), 2), {}, &ws, f);
      },
      "unilateral has size 2");
  ExpectThrowsWith(
      [&] {
        Eigen::VectorXd f2(2);
        SolveMixedLcpPrincipalPivoting<double>(A, b, mask, {}, &ws, f2);
      },
      "f size 2");
  ExpectThrowsWith(
      [&] {
        SolveMixedLcpPrincipalPivoting<double>(A, b, mask, {}, nullptr, f);
      },
      "workspace is null");
  ExpectThrowsWith(
      [&] {
        Eigen::MatrixXd bad = A;
        bad(1, 0) = std::numeric_limits<double>::quiet_NaN();
        SolveMixedLcpPrincipalPivoting<double>(bad, b, mask, {}, &ws, f);
      },
      "A(1, 0) = nan is not finite");
  ExpectThrowsWith(
      [&] {
        Eigen::VectorXd bad = b;
        bad[2] = std::numeric_limits<double>::infinity();
        SolveMixedLcpPrincipalPivoting<double>(A, bad, mask, {}, &ws, f);
      },
      "b[2] = inf is not finite");
}

TEST(PrincipalPivotingTest, DoesNotAllocateOnceReserved) {
  std::mt19937_64 rng(5);
  const int m = 10;
  const Eigen::MatrixXd A = test::RandomSpd(m, &rng);
  const Eigen::VectorXd b = test::RandomVector(m, &rng);
  const std::vector<char> mask = RandomMask(m, 0.5, &rng);
  PrincipalPivotingWorkspace<double> ws(m);
  Eigen::VectorXd f(m);
  PivotingResult r;
  {
    tern::test::ScopedAllocationCounter counter;
    r = SolveMixedLcpPrincipalPivoting<double>(A, b, mask, {}, &ws, f);
    // A smaller problem (a block of the same matrix) fits too.
    r = SolveMixedLcpPrincipalPivoting<double>(
        A.topLeftCorner(4, 4), b.head(4), std::span<const char>(mask.data(), 4),
        {}, &ws, f.head(4));
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_TRUE(r.ok());
}

// AutoDiffXd: the same values as double, and df/db equal to central
// differences of the double solve (the active set does not change nearby).
TEST(PrincipalPivotingTest, AutoDiffMatchesDoubleAndFiniteDifferences) {
  std::mt19937_64 rng(17);
  const int m = 7;
  const Eigen::MatrixXd A = test::RandomSpd(m, &rng);
  const Eigen::VectorXd b = test::RandomVector(m, &rng);
  const std::vector<char> mask = RandomMask(m, 0.7, &rng);
  const Answer a = Solve(A, b, mask);
  ASSERT_TRUE(a.result.ok());
  MatrixX<AutoDiffXd> A_ad = A.cast<AutoDiffXd>();
  VectorX<AutoDiffXd> b_ad(m), f_ad(m);
  for (int i = 0; i < m; ++i) {
    b_ad[i] = AutoDiffXd(b[i], Eigen::VectorXd::Unit(m, i));
  }
  PrincipalPivotingWorkspace<AutoDiffXd> ws;
  const PivotingResult r = SolveMixedLcpPrincipalPivoting<AutoDiffXd>(
      A_ad, b_ad, mask, {}, &ws, f_ad);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.pivots, a.result.pivots);
  const double h = 1e-6;
  for (int j = 0; j < m; ++j) {
    Eigen::VectorXd bp = b, bm = b;
    bp[j] += h;
    bm[j] -= h;
    const Eigen::VectorXd fd =
        (Solve(A, bp, mask).f - Solve(A, bm, mask).f) / (2 * h);
    for (int i = 0; i < m; ++i) {
      EXPECT_EQ(f_ad[i].value(), a.f[i]);
      const double d =
          f_ad[i].derivatives().size() > 0 ? f_ad[i].derivatives()[j] : 0.0;
      EXPECT_NEAR(d, fd[i], 1e-6) << "df" << i << "/db" << j;
    }
  }
}

}  // namespace
}  // namespace tern::solvers
