#include "tern/solvers/free_body_contact_solver.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tern/solvers/convex_contact_internal.h"
#include "tern/solvers/convex_contact_solver.h"
#include "tern/test_support/allocation_counter.h"

namespace tern::solvers {
namespace {

using Kind = ConvexConstraintKind;

// An island of free bodies as both entry points take it: the blocks and
// packed rows of SolveFreeBodyContact, and the dense A and J of
// SolveConvexContact.
struct Island {
  std::vector<Matrix6d> A;
  Eigen::VectorXd v_star, b, gamma0, v0;
  std::vector<int> bodies;
  std::vector<double> values;
  std::vector<ConvexConstraint> constraints;
  Eigen::MatrixXd A_dense, J_dense;
};

enum class Shape { kChain, kStack, kRing, kOne };
enum class Motion { kSticking, kSliding, kSeparating, kMixed };

// A rigid body's spatial inertia about a point off its center of mass, in
// the dofs [w; v]: mass m, rotational inertia I_c about the center, the
// center at c.
Matrix6d SpatialInertia(double m, const Eigen::Matrix3d& I_c,
                        const Eigen::Vector3d& c) {
  Eigen::Matrix3d cx;
  cx << 0, -c.z(), c.y(), c.z(), 0, -c.x(), -c.y(), c.x(), 0;
  Matrix6d M;
  M.topLeftCorner<3, 3>() = I_c - m * cx * cx;
  M.topRightCorner<3, 3>() = m * cx;
  M.bottomLeftCorner<3, 3>() = -m * cx;
  M.bottomRightCorner<3, 3>() = m * Eigen::Matrix3d::Identity();
  return M;
}

// diagonal: each body's block of A diagonal (its center of mass at its
// origin, its principal axes along its frame's: the solver's diagonal path).
Island MakeIsland(int nb, Shape shape, Motion motion, double mu,
                  bool warm_start, unsigned seed, bool diagonal = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto vec3 = [&] { return Eigen::Vector3d(u(rng), u(rng), u(rng)); };
  Island is;
  const double h = 1e-3;
  for (int i = 0; i < nb; ++i) {
    const double m = 0.5 + 2 * std::abs(u(rng));
    const Eigen::Vector3d d = 0.01 + 0.1 * vec3().cwiseAbs().array();
    const Eigen::Matrix3d Q =
        Eigen::Quaterniond(Eigen::Vector4d::Random().normalized())
            .toRotationMatrix();
    if (diagonal) {
      Matrix6d M = Matrix6d::Zero();
      M.diagonal() << d, m, m, m;
      is.A.push_back(M);
      continue;
    }
    is.A.push_back(
        SpatialInertia(m, Q * d.asDiagonal() * Q.transpose(), 0.02 * vec3()));
  }
  // Body pairs (-1: the world).
  std::vector<std::pair<int, int>> pairs;
  if (shape == Shape::kOne) {
    for (int c = 0; c < 1 + static_cast<int>(seed % 4); ++c) {
      pairs.emplace_back(0, -1);
    }
  } else {
    pairs.emplace_back(0, -1);
    for (int i = 1; i < nb; ++i) {
      pairs.emplace_back(i, shape == Shape::kStack ? i - 1 : i - 1);
      if (shape == Shape::kStack) pairs.emplace_back(i, i - 1);  // 2 points
    }
    if (shape == Shape::kRing && nb > 2) pairs.emplace_back(0, nb - 1);
    if (shape == Shape::kChain) pairs.emplace_back(nb - 1, -1);
  }
  // Velocities: gravity's h g down, plus a sliding or a separating part.
  const int n = 6 * nb;
  is.v_star = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < nb; ++i) {
    is.v_star[6 * i + 5] = -9.81 * h;
    const bool slide =
        motion == Motion::kSliding || (motion == Motion::kMixed && u(rng) > 0);
    const bool lift = motion == Motion::kSeparating ||
                      (motion == Motion::kMixed && u(rng) > 0.5);
    if (slide) is.v_star.segment<2>(6 * i + 3) += 0.3 * vec3().head<2>();
    if (slide) is.v_star.segment<3>(6 * i) += 0.5 * vec3();
    if (lift) is.v_star[6 * i + 5] += 0.05 * (i + 1);
    is.v_star.segment<6>(6 * i) += 1e-4 * Eigen::Matrix<double, 6, 1>::Random();
  }
  const int nc = static_cast<int>(pairs.size());
  const int m = 3 * nc;
  is.J_dense = Eigen::MatrixXd::Zero(m, n);
  is.values.assign(36 * nc, 0.0);
  is.b = Eigen::VectorXd::Zero(m);
  is.gamma0 = Eigen::VectorXd::Zero(m);
  for (int k = 0; k < nc; ++k) {
    const auto [a, bb] = pairs[k];
    // Normal mostly up, tangents completing a frame; the point below body
    // a's origin.
    const Eigen::Vector3d nrm =
        (Eigen::Vector3d::UnitZ() + 0.2 * vec3()).normalized();
    const Eigen::Vector3d t1 = nrm.unitOrthogonal(), t2 = nrm.cross(t1);
    const Eigen::Vector3d dirs[3] = {nrm, t1, t2};
    const Eigen::Vector3d p_a = Eigen::Vector3d(0, 0, -0.05) + 0.03 * vec3();
    const Eigen::Vector3d p_b = Eigen::Vector3d(0, 0, 0.05) + 0.03 * vec3();
    for (int e = 0; e < 2; ++e) {
      const int body = e == 0 ? a : bb;
      if (body < 0) continue;
      const double sign = e == 0 ? 1 : -1;
      const Eigen::Vector3d& p = e == 0 ? p_a : p_b;
      for (int i = 0; i < 3; ++i) {
        const Eigen::Vector3d c = p.cross(dirs[i]);
        for (int j = 0; j < 3; ++j) {
          is.values[36 * k + 18 * e + 6 * i + j] = sign * c[j];
          is.values[36 * k + 18 * e + 6 * i + 3 + j] = sign * dirs[i][j];
        }
      }
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 6; ++j) {
          is.J_dense(3 * k + i, 6 * body + j) =
              is.values[36 * k + 18 * e + 6 * i + j];
        }
      }
    }
    is.bodies.push_back(a);
    is.bodies.push_back(bb);
    is.b[3 * k] = (seed % 3 == 0 ? -0.002 : 0.0) * std::abs(u(rng));
    ConvexConstraint c{Kind::kContact, mu, 0.0, -1.0};
    if (warm_start) {
      is.gamma0.segment<3>(3 * k) =
          Eigen::Vector3d(0.01 * (1 + u(rng)), 0.002 * u(rng), 0.002 * u(rng));
      if (k % 2 == 0) c.load = 0.01 * (1 + u(rng));
    }
    is.constraints.push_back(c);
  }
  is.A_dense = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < nb; ++i) is.A_dense.block<6, 6>(6 * i, 6 * i) = is.A[i];
  is.v0 = is.v_star + 1e-3 * Eigen::VectorXd::Random(n);
  return is;
}

struct Answer {
  ConvexSolverResult result;
  Eigen::VectorXd v, gamma;
};

Answer SolveDense(const Island& is, const ConvexSolverSettings& settings) {
  ConvexSolverWorkspace ws;
  Answer a{{}, is.v0, is.gamma0};
  a.result = SolveConvexContact(is.A_dense, is.v_star, is.J_dense, is.b,
                                is.constraints, settings, &ws, a.v, a.gamma);
  return a;
}

Answer SolveFree(const Island& is, const ConvexSolverSettings& settings,
                 FreeBodySolverWorkspace* ws) {
  Answer a{{}, is.v0, is.gamma0};
  a.result =
      SolveFreeBodyContact(is.A, is.v_star, FreeBodyRows{is.bodies, is.values},
                           is.b, is.constraints, settings, ws, a.v, a.gamma);
  return a;
}

double RelDiff(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  return (x - y).norm() / std::max(1e-12, std::max(x.norm(), y.norm()));
}

// The free-body solver against the dense one on island `is`: the same
// convergence, start and (within one) iterations; where the paths take as
// many iterations, the same answer and cost (the residual is not compared:
// where every contact separates it is round-off over round-off, 0 or 1 by
// the path; the cost is round-off there too, ~1e-37); at a tight tolerance
// the same answer whatever the paths. Returns the free-body solver's tight
// answer; *converged: whether its answer at `settings` converged.
// roundoff_paths (many random problems, ill-conditioned ones among them:
// near-rigid, mu = 1) allows the round-off differences of the two solvers'
// products to take different paths: the iterations may differ by more than
// one where both answers are at round-off (residuals below 1e-12, the same
// cost to 1e-12), and answers after as many iterations agree to ten times
// the tolerance (a converged residual, 1e-7 on one path and 1e-9 on the
// other, is not round-off); the tight answers agree to 1e-9 as always.
Answer ExpectSameAsDense(const Island& is, const ConvexSolverSettings& settings,
                         FreeBodySolverWorkspace* ws, bool* converged = nullptr,
                         bool roundoff_paths = false) {
  const Answer d = SolveDense(is, settings);
  const Answer f = SolveFree(is, settings, ws);
  if (converged) *converged = f.result.converged;
  EXPECT_EQ(d.result.converged, f.result.converged);
  if (roundoff_paths &&
      std::abs(d.result.iterations - f.result.iterations) > 1) {
    // Both at round-off (residual ~1e-16, the same cost to the last
    // digits): one path's extra iterations only chase round-off before the
    // cost test stops it.
    EXPECT_LT(std::max(d.result.residual, f.result.residual), 1e-12);
    EXPECT_NEAR(d.result.cost, f.result.cost,
                1e-12 * std::abs(d.result.cost) + 1e-20);
  } else {
    EXPECT_NEAR(d.result.iterations, f.result.iterations, 1);
  }
  EXPECT_EQ(d.result.start, f.result.start);
  if (d.result.iterations == f.result.iterations) {
    // Loose: two converged answers (residuals up to the tolerance, not to
    // round-off) agree to the tolerance's scale.
    const double tol = roundoff_paths ? 10 * settings.rel_tolerance : 1e-9;
    EXPECT_LT(RelDiff(d.v, f.v), tol);
    EXPECT_LT(RelDiff(d.gamma, f.gamma), tol);
    EXPECT_NEAR(d.result.cost, f.result.cost,
                1e-9 * std::abs(d.result.cost) + 1e-20);
  }
  ConvexSolverSettings tight = settings;
  tight.rel_tolerance = 1e-12;
  tight.cost_tolerance = 0;
  const Answer dt = SolveDense(is, tight);
  const Answer ft = SolveFree(is, tight, ws);
  EXPECT_LT(RelDiff(dt.v, ft.v), 1e-9);
  EXPECT_LT(RelDiff(dt.gamma, ft.gamma), 1e-9);
  return ft;
}

// The specialised solver and the generic one on the same random islands:
// the same answer (to 1e-9 relative at a tolerance both reach), the same
// convergence report (iterations within 1) at the default tolerance. The
// starts from impulses anchor the sticking contacts' friction on them
// (anchor_sticking, the plant's grasp option), the others do not: with the best
// of three starts as well, random anchors (impulses no step produced) make
// some islands slow enough (14 and 17 iterations, both converged to a
// residual of 6e-7) that the two paths' round-off decides the count.
TEST(FreeBodyContactSolverTest, AgreesWithGenericSolver) {
  FreeBodySolverWorkspace ws;  // shared: a workspace reused across sizes
  int cases = 0, sliding = 0, sticking = 0, separating = 0;
  for (Shape shape :
       {Shape::kOne, Shape::kChain, Shape::kStack, Shape::kRing}) {
    for (int nb : {1, 2, 3, 7, 20}) {
      if ((shape == Shape::kOne) != (nb == 1)) continue;
      for (Motion motion : {Motion::kSticking, Motion::kSliding,
                            Motion::kSeparating, Motion::kMixed}) {
        for (double mu : {0.0, 0.5}) {
          // warm: 0 from zero impulses, 1 from impulses, 2 the best of
          // three guesses, 3 from a velocity guess.
          for (int warm = 0; warm < 4; ++warm) {
            // 20 bodies (the generic solver's dense 120 dofs are slow
            // under the sanitizers): every motion from impulses, the
            // other starts on the mixed one.
            if (nb == 20 && warm != 1 && motion != Motion::kMixed) continue;
            const unsigned seed = 1000 * nb + 100 * static_cast<int>(shape) +
                                  10 * static_cast<int>(motion) + warm +
                                  static_cast<unsigned>(4 * mu);
            const Island is = MakeIsland(nb, shape, motion, mu, warm > 0, seed);
            ConvexSolverSettings settings;
            settings.warm_start_impulses = warm != 3;
            settings.warm_start_best = warm == 2;
            settings.rest_velocity = warm == 1 || warm == 2 ? 0.1 : 0;
            settings.anchor_sticking = warm == 1;
            SCOPED_TRACE(::testing::Message()
                         << "nb " << nb << " shape " << static_cast<int>(shape)
                         << " motion " << static_cast<int>(motion) << " mu "
                         << mu << " warm " << warm);
            const Answer ft = ExpectSameAsDense(is, settings, &ws);
            // What the contacts did, so that the cases cover each.
            for (size_t k = 0; k < is.constraints.size(); ++k) {
              const double gn = ft.gamma[3 * k];
              const double gt = ft.gamma.segment<2>(3 * k + 1).norm();
              if (gn <= 0) {
                ++separating;
              } else if (mu > 0 && gt >= 0.999 * mu * gn) {
                ++sliding;
              } else {
                ++sticking;
              }
            }
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 416 - 3 * 3 * 2 * 3);
  EXPECT_GT(sliding, 50);
  EXPECT_GT(sticking, 50);
  EXPECT_GT(separating, 50);
}

// Bodies whose blocks of A are diagonal (spheres and boxes in the plant)
// take the solver's diagonal path (the factor and the products with A^-1 as
// scalings): the same answers and reports as the generic solver's, on one
// body (1 to 4 contacts) and on chains and stacks, sticking and sliding
// (anchored as in AgreesWithGenericSolver).
TEST(FreeBodyContactSolverTest, DiagonalBlocksAgreeWithGenericSolver) {
  FreeBodySolverWorkspace ws;
  int cases = 0, sliding = 0, sticking = 0;
  for (Shape shape : {Shape::kOne, Shape::kChain, Shape::kStack}) {
    for (int nb : {1, 3}) {
      if ((shape == Shape::kOne) != (nb == 1)) continue;
      for (Motion motion : {Motion::kSticking, Motion::kSliding,
                            Motion::kSeparating, Motion::kMixed}) {
        for (int warm = 0; warm < 4; ++warm) {
          for (unsigned rep = 0; rep < 4; ++rep) {
            const unsigned seed =
                7000 + 1000 * nb + 100 * static_cast<int>(shape) +
                10 * static_cast<int>(motion) + 4 * rep + warm;
            const Island is =
                MakeIsland(nb, shape, motion, 0.5, warm > 0, seed, true);
            ASSERT_TRUE(is.A[0].isDiagonal(0.0));
            ConvexSolverSettings settings;
            settings.warm_start_impulses = warm != 3;
            settings.warm_start_best = warm == 2;
            settings.rest_velocity = warm == 1 || warm == 2 ? 0.1 : 0;
            settings.anchor_sticking = warm == 1;
            SCOPED_TRACE(::testing::Message()
                         << "nb " << nb << " shape " << static_cast<int>(shape)
                         << " motion " << static_cast<int>(motion) << " warm "
                         << warm << " seed " << seed);
            bool converged = false;
            const Answer ft = ExpectSameAsDense(is, settings, &ws, &converged);
            EXPECT_TRUE(converged);
            for (size_t k = 0; k < is.constraints.size(); ++k) {
              const double gn = ft.gamma[3 * k];
              const double gt = ft.gamma.segment<2>(3 * k + 1).norm();
              if (gn <= 0) continue;
              ++(gt >= 0.999 * 0.5 * gn ? sliding : sticking);
            }
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 3 * 4 * 4 * 4);
  EXPECT_GT(sliding, 20);
  EXPECT_GT(sticking, 20);
}

// Constraint k of island `is` becomes a one-row constraint of `kind` (its
// first row stays, the other two go).
void MakeOneRow(Island* is, int k, Kind kind) {
  std::vector<int> keep;
  int row = 0;
  for (int c = 0; c < static_cast<int>(is->constraints.size()); ++c) {
    const int rows = NumRows(is->constraints[c].kind);
    for (int i = 0; i < (c == k ? 1 : rows); ++i) keep.push_back(row + i);
    row += rows;
  }
  is->constraints[k] = {kind, 0, 0, -1};
  const int m = static_cast<int>(keep.size());
  Eigen::MatrixXd J(m, is->J_dense.cols());
  Eigen::VectorXd b(m), g0(m);
  for (int i = 0; i < m; ++i) {
    J.row(i) = is->J_dense.row(keep[i]);
    b[i] = is->b[keep[i]];
    g0[i] = is->gamma0[keep[i]];
  }
  is->J_dense = J;
  is->b = b;
  is->gamma0 = g0;
}

// One free body (the path with fixed-size vectors, most islands of a pile):
// random problems of 1 to 4 contacts, sticking, sliding, separating and
// mixed, mu = 0 too, diagonal and full blocks of A, every start, some with
// a one-row constraint among the contacts: the same report and answer as
// the generic solver's.
TEST(FreeBodyContactSolverTest, OneBodyAgreesWithGenericSolver) {
  FreeBodySolverWorkspace ws;
  int cases = 0, sliding = 0, sticking = 0, separating = 0, one_row = 0;
  int iterated = 0;
  for (Motion motion : {Motion::kSticking, Motion::kSliding,
                        Motion::kSeparating, Motion::kMixed}) {
    for (double mu : {0.0, 0.3, 1.0}) {
      for (int warm = 0; warm < 4; ++warm) {
        for (unsigned rep = 0; rep < 8; ++rep) {
          const unsigned seed = 40000 + 1000 * static_cast<int>(motion) +
                                100 * static_cast<int>(10 * mu) + 10 * warm +
                                rep;
          const bool diagonal = rep % 2 == 1;
          std::srand(seed);  // MakeIsland's Eigen Random(): order-free
          Island is =
              MakeIsland(1, Shape::kOne, motion, mu, warm > 0, seed, diagonal);
          const int nc = static_cast<int>(is.constraints.size());
          if (rep % 4 == 2 && nc > 1) {
            MakeOneRow(&is, nc - 1,
                       rep % 8 == 2 ? Kind::kUnilateral : Kind::kBilateral);
            ++one_row;
          }
          ConvexSolverSettings settings;
          settings.warm_start_impulses = warm != 3;
          settings.warm_start_best = warm == 2;
          settings.rest_velocity = warm == 1 || warm == 2 ? 0.1 : 0;
          SCOPED_TRACE(::testing::Message()
                       << "motion " << static_cast<int>(motion) << " mu " << mu
                       << " warm " << warm << " seed " << seed);
          bool converged = false;
          const Answer ft = ExpectSameAsDense(is, settings, &ws, &converged,
                                              /*roundoff_paths=*/true);
          EXPECT_TRUE(converged);
          const Answer f = SolveFree(is, settings, &ws);
          iterated += f.result.iterations > 0;
          int row = 0;
          for (const ConvexConstraint& c : is.constraints) {
            const int rows = NumRows(c.kind);
            if (c.kind == Kind::kContact) {
              const double gn = ft.gamma[row];
              const double gt = ft.gamma.segment<2>(row + 1).norm();
              if (gn <= 0) {
                ++separating;
              } else if (mu > 0 && gt >= 0.999 * mu * gn) {
                ++sliding;
              } else {
                ++sticking;
              }
            }
            row += rows;
          }
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 4 * 3 * 4 * 8);
  EXPECT_GT(one_row, 40);
  EXPECT_GT(iterated, cases / 2);
  EXPECT_GT(sliding, 50);
  EXPECT_GT(sticking, 50);
  EXPECT_GT(separating, 50);
}

// The one-body path's sums of six terms (internal::Dot, ScaledNorm on
// fixed-size 6-vectors) give the same bits as Eigen's dynamic-size ones,
// so the fixed-size Newton iteration takes the dynamic one's path.
TEST(FreeBodyContactSolverTest, SixTermSumsAreEigensDynamicSums) {
  using Vector6d = Eigen::Matrix<double, 6, 1>;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  int differ_by_order = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Vector6d x, y;
    for (int i = 0; i < 6; ++i) {
      // Magnitudes over many decades, so that the order of the additions
      // shows in the last bits.
      x[i] = u(rng) * std::pow(10.0, 8 * u(rng));
      y[i] = u(rng) * std::pow(10.0, 8 * u(rng));
    }
    const Eigen::VectorXd xd = x, yd = y;
    EXPECT_EQ(internal::Dot(x, y), xd.dot(yd));
    EXPECT_EQ(internal::ScaledNorm(x, y), xd.cwiseProduct(yd).norm());
    double in_order = 0;
    for (int i = 0; i < 6; ++i) in_order += x[i] * y[i];
    differ_by_order += in_order != xd.dot(yd);
  }
  // The test can tell orders apart.
  EXPECT_GT(differ_by_order, 100);
}

// Other kinds of constraint between free bodies (a bilateral row, a
// limit-like unilateral row) go through the same code.
TEST(FreeBodyContactSolverTest, OneRowConstraintsAgree) {
  Island is = MakeIsland(4, Shape::kChain, Motion::kMixed, 0.5, true, 77);
  // Constraint 1 becomes a bilateral row, 2 a unilateral one: their first
  // row stays, the others go.
  std::vector<int> keep;
  for (int k = 0; k < static_cast<int>(is.constraints.size()); ++k) {
    const int rows = k == 1 || k == 2 ? 1 : 3;
    if (k == 1) is.constraints[k] = {Kind::kBilateral, 0, 0, -1};
    if (k == 2) is.constraints[k] = {Kind::kUnilateral, 0, 0, -1};
    for (int i = 0; i < rows; ++i) keep.push_back(3 * k + i);
  }
  const int m = static_cast<int>(keep.size());
  Eigen::MatrixXd J(m, is.J_dense.cols());
  Eigen::VectorXd b(m), g0(m);
  for (int i = 0; i < m; ++i) {
    J.row(i) = is.J_dense.row(keep[i]);
    b[i] = is.b[keep[i]];
    g0[i] = is.gamma0[keep[i]];
  }
  is.J_dense = J;
  is.b = b;
  is.gamma0 = g0;
  ConvexSolverSettings settings;
  settings.rel_tolerance = 1e-12;
  settings.cost_tolerance = 0;
  FreeBodySolverWorkspace ws;
  const Answer d = SolveDense(is, settings);
  const Answer f = SolveFree(is, settings, &ws);
  ASSERT_TRUE(d.result.converged);
  ASSERT_TRUE(f.result.converged);
  EXPECT_LT(RelDiff(d.v, f.v), 1e-9);
  EXPECT_LT(RelDiff(d.gamma, f.gamma), 1e-9);
}

// The momentum balance A (v - v*) = J^T gamma and the exact cone hold at the
// specialised solver's answer.
TEST(FreeBodyContactSolverTest, MomentumBalanceAndCone) {
  const Island is =
      MakeIsland(7, Shape::kStack, Motion::kSliding, 0.4, true, 5);
  ConvexSolverSettings settings;
  settings.rel_tolerance = 1e-12;
  settings.cost_tolerance = 0;
  FreeBodySolverWorkspace ws;
  const Answer f = SolveFree(is, settings, &ws);
  ASSERT_TRUE(f.result.converged);
  const Eigen::VectorXd lhs = is.A_dense * (f.v - is.v_star);
  const Eigen::VectorXd rhs = is.J_dense.transpose() * f.gamma;
  EXPECT_LT((lhs - rhs).norm(), 1e-10 * rhs.norm());
  for (size_t k = 0; k < is.constraints.size(); ++k) {
    EXPECT_GE(f.gamma[3 * k], 0);
    EXPECT_LE(f.gamma.segment<2>(3 * k + 1).norm(),
              0.4 * f.gamma[3 * k] * (1 + 1e-12) + 1e-300);
  }
}

// Once the workspace has grown, a solve allocates nothing (one body, and
// a ring of 7 with its ordering and fill).
TEST(FreeBodyContactSolverTest, RepeatedSolvesDoNotAllocate) {
  for (const auto& [nb, shape] :
       {std::pair{1, Shape::kOne}, std::pair{7, Shape::kRing}}) {
    const Island is = MakeIsland(nb, shape, Motion::kMixed, 0.5, true, 9);
    ConvexSolverSettings settings;
    settings.warm_start_best = true;
    FreeBodySolverWorkspace ws;
    Eigen::VectorXd v = is.v0, gamma = is.gamma0;
    const FreeBodyRows rows{is.bodies, is.values};
    SolveFreeBodyContact(is.A, is.v_star, rows, is.b, is.constraints, settings,
                         &ws, v, gamma);
    v = is.v0;
    gamma = is.gamma0;
    tern::test::ScopedAllocationCounter counter;
    const ConvexSolverResult r = SolveFreeBodyContact(
        is.A, is.v_star, rows, is.b, is.constraints, settings, &ws, v, gamma);
    EXPECT_EQ(counter.count(), 0) << nb << " bodies";
    EXPECT_TRUE(r.converged);
    EXPECT_GT(r.iterations, 0);
  }
}

template <typename F>
std::string ThrowMessage(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no throw)";
}

TEST(FreeBodyContactSolverTest, BadInputNamesTheCulprit) {
  const Island base =
      MakeIsland(3, Shape::kChain, Motion::kSticking, 0.5, true, 3);
  ConvexSolverSettings settings;
  FreeBodySolverWorkspace ws;
  {
    Island is = base;
    is.A[2](4, 4) = -1;  // not SPD
    EXPECT_NE(ThrowMessage([&] {
                SolveFree(is, settings, &ws);
              }).find("body 2: its block of A is not positive definite"),
              std::string::npos);
  }
  {
    Island is = base;
    is.constraints[1].mu = -0.5;
    EXPECT_NE(ThrowMessage([&] {
                SolveFree(is, settings, &ws);
              }).find("constraint 1: friction coefficient -0.5 is not >= 0"),
              std::string::npos);
  }
  {
    Island is = base;
    is.b.conservativeResize(is.b.size() - 1);
    EXPECT_NE(ThrowMessage([&] {
                SolveFree(is, settings, &ws);
              }).find("sizes disagree"),
              std::string::npos);
  }
  {
    Island is = base;
    is.bodies[3] = 1;  // constraint 1 on body 1 twice
    EXPECT_NE(ThrowMessage([&] {
                SolveFree(is, settings, &ws);
              }).find("constraint 1: bodies 1 and 1"),
              std::string::npos);
  }
  {
    Island is = base;
    is.values[36 * 2 + 7] = std::nan("");
    EXPECT_NE(ThrowMessage([&] {
                SolveFree(is, settings, &ws);
              }).find("constraint 2 has a non-finite entry nan (body "),
              std::string::npos);
    EXPECT_NE(ThrowMessage([&] {
                SolveFree(is, settings, &ws);
              }).find(", row 1, dof 1)"),
              std::string::npos);
  }
  {
    Island is = base;
    is.constraints[0].R = -1;
    EXPECT_NE(ThrowMessage([&] {
                SolveFree(is, settings, &ws);
              }).find("constraint 0: regularization"),
              std::string::npos);
  }
}

// The vectors' finiteness (checked in one pass, then named): each
// non-finite entry of v_star, b and the guess (gamma with warm-started
// impulses, v without) is named, for one body and for several.
TEST(FreeBodyContactSolverTest, NonFiniteVectorsNameTheCulprit) {
  const double inf = std::numeric_limits<double>::infinity();
  FreeBodySolverWorkspace ws;
  for (int nb : {1, 3}) {
    const Island base =
        nb == 1 ? MakeIsland(1, Shape::kOne, Motion::kSticking, 0.5, true, 5)
                : MakeIsland(3, Shape::kChain, Motion::kSticking, 0.5, true, 5);
    for (bool warm : {true, false}) {
      ConvexSolverSettings settings;
      settings.warm_start_impulses = warm;
      for (double bad : {std::nan(""), inf, -inf}) {
        SCOPED_TRACE(::testing::Message()
                     << "nb " << nb << " warm " << warm << " bad " << bad);
        const std::string value =
            std::isnan(bad) ? "nan" : (bad > 0 ? "inf" : "-inf");
        // The island with one entry made `bad` names it.
        auto expect_named = [&](auto&& spoil, const std::string& name) {
          Island is = base;
          spoil(is);
          EXPECT_NE(ThrowMessage([&] {
                      SolveFree(is, settings, &ws);
                    }).find(name + " = " + value + " is not finite"),
                    std::string::npos)
              << name;
        };
        expect_named([&](Island& is) { is.v_star[5] = bad; }, "v_star[5]");
        expect_named([&](Island& is) { is.b[2] = bad; }, "b[2]");
        expect_named(
            [&](Island& is) {
              is.gamma0[1] = bad;
              is.v0[4] = bad;
            },
            warm ? "gamma[1]" : "v[4]");
      }
      // Finite extremes pass the check.
      Island is = base;
      is.v_star[0] = 1e100;
      is.b[0] = -1e100;
      is.gamma0[0] = 0.0 * -1;
      EXPECT_EQ(ThrowMessage([&] { SolveFree(is, settings, &ws); }),
                "(no throw)");
    }
  }
}

// The plant's entry point (internal::SolveFreeBodyContactPrepared, with
// the blocks' PositiveDiagonal6 answers given) returns the public entry
// point's answer to the bit, and still checks the data.
TEST(FreeBodyContactSolverTest, PreparedEntryIsTheSameSolve) {
  FreeBodySolverWorkspace ws1, ws2;
  int cases = 0;
  for (int nb : {1, 3}) {
    for (bool diagonal : {false, true}) {
      for (unsigned seed = 0; seed < 8; ++seed) {
        const Island is = nb == 1 ? MakeIsland(1, Shape::kOne, Motion::kMixed,
                                               0.5, true, 300 + seed, diagonal)
                                  : MakeIsland(3, Shape::kStack, Motion::kMixed,
                                               0.5, true, 300 + seed, diagonal);
        std::vector<char> diag;
        for (const Matrix6d& a : is.A) diag.push_back(PositiveDiagonal6(a));
        EXPECT_EQ(diag[0] != 0, diagonal);
        ConvexSolverSettings settings;
        const Answer a = SolveFree(is, settings, &ws1);
        Answer b{{}, is.v0, is.gamma0};
        auto prepared = [&](const Island& x) {
          return internal::SolveFreeBodyContactPrepared(
              x.A, diag, x.v_star, FreeBodyRows{x.bodies, x.values}, x.b,
              x.constraints, settings, &ws2, b.v, b.gamma);
        };
        b.result = prepared(is);
        EXPECT_EQ(a.result.iterations, b.result.iterations);
        EXPECT_EQ(a.result.converged, b.result.converged);
        EXPECT_EQ(a.v, b.v);
        EXPECT_EQ(a.gamma, b.gamma);
        ++cases;
        Island bad = is;
        bad.constraints[0].mu = -1;
        bad.v_star[0] = std::nan("");
        EXPECT_NE(ThrowMessage([&] {
                    prepared(bad);
                  }).find("constraint 0: friction coefficient -1"),
                  std::string::npos);
        bad.constraints[0].mu = 0.5;
        EXPECT_NE(ThrowMessage([&] {
                    prepared(bad);
                  }).find("v_star[0] = nan is not finite"),
                  std::string::npos);
      }
    }
  }
  EXPECT_EQ(cases, 32);
  Matrix6d M = Matrix6d::Identity();
  EXPECT_TRUE(PositiveDiagonal6(M));
  M(3, 1) = 1e-300;
  EXPECT_FALSE(PositiveDiagonal6(M));
  M(3, 1) = 0;
  M(5, 5) = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(PositiveDiagonal6(M));
  M(5, 5) = 0;
  EXPECT_FALSE(PositiveDiagonal6(M));
}

}  // namespace
}  // namespace tern::solvers
