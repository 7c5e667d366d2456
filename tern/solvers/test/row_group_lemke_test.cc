#include "tern/solvers/row_group_lemke.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tern/solvers/test/row_group_problem.h"
#include "tern/test_support/allocation_counter.h"

namespace tern::solvers {
namespace {

using test::GroupProblem;
using test::MakeGroupProblem;

// Forms every group's Delassus block (and its cfm); returns the blocks.
std::vector<DelassusBlock> Blocks(GroupProblem* P, double contact_cfm) {
  std::vector<DelassusBlock> blocks(P->groups.size());
  for (size_t gi = 0; gi < P->groups.size(); ++gi) {
    FormDelassusBlock(P->Layout(), contact_cfm, 0.0, &P->groups[gi],
                      &blocks[gi]);
  }
  return blocks;
}

std::vector<int> AllGroups(const GroupProblem& P) {
  std::vector<int> order(P.groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  return order;
}

// The exact answer meets every group's conditions (the polyhedral-cone
// LCP, bilateral rows by their Schur complement), on problems with
// contacts between trees and with the world, a limit and a bilateral pair.
TEST(RowGroupLemkeTest, AnswerMeetsTheConeAndComplementarity) {
  int sliding = 0, sticking = 0;
  RowGroupLemkeWorkspace ws;
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(300 + seed);
    const double mu = seed % 2 ? 0.3 : 1.0;
    GroupProblem P = MakeGroupProblem(&rng, mu);
    Blocks(&P, 1e-9);
    const PolygonalFrictionCone cone(seed % 3 ? 4 : 6);
    Eigen::VectorXd v = P.v_free;
    const std::vector<int> order = AllGroups(P);
    const RowGroupLemkeResult r = SolveRowGroupsLemke(
        P.Layout(), cone, 0.0, order, P.groups.data(), &ws, v.data());
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << ToString(r.lcp.status);
    EXPECT_GT(r.lcp.iterations, 0);
    test::CheckRowGroupAnswer(P, cone, v, "seed " + std::to_string(seed),
                              &sliding, &sticking);
  }
  EXPECT_GT(sliding, 5);
  EXPECT_GT(sticking, 5);
}

// Bounded rows (joint dry friction, |p| <= bound) split into p+ - p- with a
// slack (the box as an LCP): the exact answer meets their box conditions,
// in both regimes, and agrees with the row-group PGS's.
TEST(RowGroupLemkeTest, BoundedRowsMeetTheirBoxAndAgreeWithPgs) {
  int sliding = 0, sticking = 0, at_bound = 0, inside = 0;
  RowGroupLemkeWorkspace ws;
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(700 + seed);
    GroupProblem P = MakeGroupProblem(&rng, 0.5, seed % 2 ? 0.05 : 2.0);
    const std::vector<DelassusBlock> blocks = Blocks(&P, 1e-9);
    GroupProblem Q = P;
    const PolygonalFrictionCone cone(4);
    Eigen::VectorXd v = P.v_free;
    const std::vector<int> order = AllGroups(P);
    const RowGroupLemkeResult r = SolveRowGroupsLemke(
        P.Layout(), cone, 0.0, order, P.groups.data(), &ws, v.data());
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << ToString(r.lcp.status);
    test::CheckRowGroupAnswer(P, cone, v, "seed " + std::to_string(seed),
                              &sliding, &sticking, &at_bound, &inside);
    // Where the PGS answer is unique (no friction: the normal, limit and
    // bounded rows form a strictly convex problem) both agree.
    if (seed % 4 == 0) {
      for (auto& g : P.groups) g.mu = 0;
      for (auto& g : Q.groups) g.mu = 0;
      Eigen::VectorXd v_lemke = P.v_free, v_pgs = P.v_free;
      for (auto& g : P.groups) std::fill(g.p, g.p + 6, 0.0);
      ASSERT_TRUE(SolveRowGroupsLemke(P.Layout(), cone, 0.0, order,
                                      P.groups.data(), &ws, v_lemke.data())
                      .ok());
      RowGroupPgsSettings settings;
      settings.max_sweeps = 100000;
      settings.tolerance = 1e-13;
      ASSERT_TRUE(SolveRowGroupsPgs(Q.Layout(), cone, blocks.data(), order,
                                    settings, Q.groups.data(), v_pgs.data())
                      .converged);
      EXPECT_LE((v_lemke - v_pgs).cwiseAbs().maxCoeff(), 1e-8)
          << "seed " << seed;
    }
  }
  EXPECT_GT(at_bound, 5);
  EXPECT_GT(inside, 5);
}

// Without friction the problem is a positive definite LCP in the normal
// and limit rows (after the bilateral Schur complement): one answer, which
// the row-group PGS reaches too.
TEST(RowGroupLemkeTest, FrictionlessAgreesWithRowGroupPgs) {
  for (int seed = 0; seed < 10; ++seed) {
    std::mt19937_64 rng(500 + seed);
    GroupProblem P = MakeGroupProblem(&rng, 0.0);
    const std::vector<DelassusBlock> blocks = Blocks(&P, 1e-9);
    GroupProblem Q = P;
    const PolygonalFrictionCone cone(4);
    const std::vector<int> order = AllGroups(P);
    Eigen::VectorXd v_lemke = P.v_free, v_pgs = P.v_free;
    RowGroupLemkeWorkspace ws;
    ASSERT_TRUE(SolveRowGroupsLemke(P.Layout(), cone, 0.0, order,
                                    P.groups.data(), &ws, v_lemke.data())
                    .ok());
    RowGroupPgsSettings settings;
    settings.max_sweeps = 20000;
    settings.tolerance = 1e-14;
    ASSERT_TRUE(SolveRowGroupsPgs(Q.Layout(), cone, blocks.data(), order,
                                  settings, Q.groups.data(), v_pgs.data())
                    .converged);
    EXPECT_LE((v_lemke - v_pgs).cwiseAbs().maxCoeff(), 1e-8) << seed;
    for (size_t gi = 0; gi < P.groups.size(); ++gi) {
      for (int i = 0; i < P.groups[gi].rows; ++i) {
        EXPECT_NEAR(P.groups[gi].p[i], Q.groups[gi].p[i], 1e-8)
            << "seed " << seed << " group " << gi << " row " << i;
      }
    }
  }
}

// A cone with more than 60 directions is refused; the groups and v are
// untouched. The workspace, once grown, does not allocate.
TEST(RowGroupLemkeTest, RefusalLeavesTheGroupsAndAllocationFree) {
  std::mt19937_64 rng(9);
  GroupProblem P = MakeGroupProblem(&rng, 0.5);
  Blocks(&P, 1e-9);
  for (auto& g : P.groups) g.p[0] = 0.25;  // a warm start to keep
  const std::vector<int> order = AllGroups(P);
  RowGroupLemkeWorkspace ws;
  Eigen::VectorXd v = P.v_free;
  const RowGroupLemkeResult refused =
      SolveRowGroupsLemke(P.Layout(), PolygonalFrictionCone(61), 0.0, order,
                          P.groups.data(), &ws, v.data());
  EXPECT_EQ(refused.status, RowGroupLemkeStatus::kTooManyDirections);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(v, P.v_free);
  for (const auto& g : P.groups) EXPECT_EQ(g.p[0], 0.25);

  const PolygonalFrictionCone cone(4);
  ASSERT_TRUE(SolveRowGroupsLemke(P.Layout(), cone, 0.0, order, P.groups.data(),
                                  &ws, v.data())
                  .ok());
  v = P.v_free;
  RowGroupLemkeResult r;
  {
    tern::test::ScopedAllocationCounter counter;
    r = SolveRowGroupsLemke(P.Layout(), cone, 0.0, order, P.groups.data(), &ws,
                            v.data());
    EXPECT_EQ(counter.count(), 0);
  }
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace tern::solvers
