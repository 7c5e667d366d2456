#include "tern/math/packed_tree_factor.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <random>
#include <stdexcept>
#include <vector>

namespace tern {
namespace {

// A random forest of n indices (parent[k] < k) and an SPD matrix with its
// pattern: A = M^T M + I for M with nonzeros only between an index and its
// ancestors (that product keeps the pattern, as a mass matrix along a
// kinematic tree has it).
struct TreeProblem {
  std::vector<int> parent;
  Eigen::MatrixXd A;
};

TreeProblem RandomTreeProblem(int n, std::mt19937* gen) {
  TreeProblem p;
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < n; ++k) {
    // Chains (parent k - 1), branches and new roots.
    std::uniform_int_distribution<int> pick(-1, k - 1);
    p.parent.push_back(k == 0 ? -1 : (u(*gen) > 0 ? k - 1 : pick(*gen)));
  }
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < n; ++k) {
    for (int i = k; i >= 0; i = p.parent[i]) M(k, i) = u(*gen);
  }
  p.A = M.transpose() * M + Eigen::MatrixXd::Identity(n, n);
  return p;
}

void Fill(const Eigen::MatrixXd& A, PackedTreeFactor* f) {
  for (int k = 0; k < f->size(); ++k) {
    for (int e = 0; e < f->row_size(k); ++e) {
      f->row(k)[e] = A(k, f->path(k)[e]);
    }
  }
}

TEST(PackedTreeFactorTest, SolvesAndMultipliesAsTheDenseMatrix) {
  std::mt19937 gen(3);
  for (int n : {1, 2, 7, 18, 35, 60}) {
    SCOPED_TRACE(n);
    const TreeProblem p = RandomTreeProblem(n, &gen);
    // The pattern claim: A has no entry between unrelated indices.
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < a; ++b) {
        bool related = false;
        for (int i = a; i >= 0; i = p.parent[i]) related |= i == b;
        if (!related) {
          EXPECT_EQ(p.A(a, b), 0.0);
        }
      }
    }
    PackedTreeFactor f(p.parent.data(), n);
    Fill(p.A, &f);
    ASSERT_EQ(f.Factor(), -1);
    const Eigen::VectorXd b = Eigen::VectorXd::Random(n);
    Eigen::VectorXd x = b;
    f.Solve(x.data());
    const Eigen::VectorXd ref = p.A.llt().solve(b);
    EXPECT_LT((x - ref).norm(), 1e-12 * (1 + ref.norm()));
    Eigen::VectorXd y = b, tmp(n);
    f.Multiply(y.data(), tmp.data());
    EXPECT_LT((y - p.A * b).norm(), 1e-12 * (1 + (p.A * b).norm()));
  }
}

// A floating base (a chain of six dofs at the root) with limbs: the
// factorization writes the chain's updates out (FactorPackedRows); with a
// branch above the chain's end (a dof hanging from dof 3) it does not. Both
// agree with the dense Cholesky.
TEST(PackedTreeFactorTest, FloatingBaseChainAgreesWithDense) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (bool branch_above : {false, true}) {
    SCOPED_TRACE(branch_above);
    std::vector<int> parent{-1, 0, 1, 2, 3, 4};
    for (int limb = 0; limb < 4; ++limb) {
      for (int k = 0; k < 6; ++k) {
        const int i = static_cast<int>(parent.size());
        parent.push_back(k == 0 ? 5 : i - 1);
      }
    }
    if (branch_above) parent.push_back(3);
    const int n = static_cast<int>(parent.size());
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
    for (int k = 0; k < n; ++k) {
      for (int i = k; i >= 0; i = parent[i]) M(k, i) = u(gen);
    }
    const Eigen::MatrixXd A =
        M.transpose() * M + Eigen::MatrixXd::Identity(n, n);
    PackedTreeFactor f(parent.data(), n);
    Fill(A, &f);
    ASSERT_EQ(f.Factor(), -1);
    const Eigen::VectorXd b = Eigen::VectorXd::Random(n);
    Eigen::VectorXd x = b;
    f.Solve(x.data());
    const Eigen::VectorXd ref = A.llt().solve(b);
    EXPECT_LT((x - ref).norm(), 1e-12 * (1 + ref.norm()));
    // L^T L = A, entry by entry.
    Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
    for (int k = 0; k < n; ++k) {
      for (int e = 0; e < f.row_size(k); ++e) L(k, f.path(k)[e]) = f.row(k)[e];
    }
    EXPECT_LT((L.transpose() * L - A).norm(), 1e-12 * A.norm());
  }
}

TEST(PackedTreeFactorTest, NamesTheIndexWhereANotPositiveDefinite) {
  std::mt19937 gen(4);
  const TreeProblem p = RandomTreeProblem(10, &gen);
  Eigen::MatrixXd A = p.A;
  A(6, 6) = -1;  // rows after 6 are eliminated first; 6 is the first bad one
  PackedTreeFactor f(p.parent.data(), 10);
  Fill(A, &f);
  EXPECT_EQ(f.Factor(), 6);
}

TEST(PackedTreeFactorTest, RejectsAParentAfterItsChild) {
  const std::vector<int> parent{-1, 0, 3, 1};
  try {
    PackedTreeFactor f(parent.data(), 4);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("index 2 has parent 3"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tern
