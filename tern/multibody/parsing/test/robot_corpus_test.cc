// The robots that Debian's dart-doc ships (issue 29): each loads with its
// meshes through the package map, becomes a GeometryModel, and has a
// positive definite mass matrix; the visual and collision meshes of a link
// agree in bounding box (the check that caught COLLADA files turned 90
// degrees about x). The models stay where Debian installs them.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <filesystem>
#include <random>

#include "tern/math/packed_tree_factor.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/mesh_reader.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/tree_cholesky.h"

namespace tern {
namespace {

namespace fs = std::filesystem;

const std::string kData = TERN_DART_DATA_DIR;

struct Robot {
  const char* name;
  std::string urdf;
  bool floating;
  int num_velocities;
  int min_meshes;  // collision meshes the file names
};

void PrintTo(const Robot& r, std::ostream* os) { *os << r.name; }

std::vector<Robot> Corpus() {
  return {
      {"wam", kData + "/urdf/wam/wam.urdf", false, 7, 7},
      {"kr5", kData + "/urdf/KR5/KR5 sixx R650.urdf", false, 6, 7},
      {"drchubo", kData + "/urdf/drchubo/drchubo.urdf", true, 6 + 51, 30},
      {"atlas", kData + "/sdf/atlas/atlas_v3_no_head.urdf", true, 6 + 27, 29},
  };
}

// The WAM's meshes are named package://herb_description/..., a package whose
// folder dart-doc ships as urdf/wam (DART's own tests add the same
// directory for "herb_description"). DRC-Hubo has a package.xml beside its
// URDF (found upward); Atlas uses relative paths; KR5 too.
UrdfParseOptions Options(const Robot& r) {
  UrdfParseOptions o;
  o.floating_base = r.floating;
  o.packages.Add("herb_description", kData + "/urdf/wam");
  return o;
}

void Box(const MeshData& m, const RigidTransform<double>& X,
         Vector3<double>* lo, Vector3<double>* hi) {
  *lo = Vector3<double>::Constant(INFINITY);
  *hi = -*lo;
  for (const auto& v : m.vertices) {
    const Vector3<double> p = X.R * v + X.p;
    *lo = lo->cwiseMin(p);
    *hi = hi->cwiseMax(p);
  }
}

class RobotCorpusTest : public ::testing::TestWithParam<Robot> {};

TEST_P(RobotCorpusTest, LoadsWithMeshesAndHasAPositiveDefiniteMassMatrix) {
  const Robot& r = GetParam();
  if (!fs::exists(r.urdf))
    FAIL() << r.urdf
           << " is missing: install dart-doc (scripts/install-deps test)";
  const UrdfModel model = ParseUrdfFile(r.urdf, Options(r));
  const RigidBodyTree<double>& tree = model.tree;
  EXPECT_EQ(tree.num_velocities(), r.num_velocities);
  int meshes = 0;
  for (int b = 0; b < tree.num_bodies(); ++b) {
    for (const auto& g : tree.body(b).collisions) {
      if (g.shape != BodyGeometry::Shape::kMesh) continue;
      ++meshes;
      ASSERT_TRUE(g.mesh) << g.mesh_uri;
      EXPECT_TRUE(fs::exists(g.mesh_path)) << g.mesh_path;
    }
    for (const auto& g : tree.body(b).visuals) {
      if (g.shape == BodyGeometry::Shape::kMesh) {
        EXPECT_TRUE(fs::exists(g.mesh_path)) << g.mesh_uri;
      }
    }
  }
  EXPECT_GE(meshes, r.min_meshes);
  const GeometryModel geometry = GeometryModel::FromTree(tree);
  EXPECT_GE(geometry.num_geometries(), meshes);

  KinematicsCache<double> cache(tree);
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 3; ++trial) {
    VectorX<double> q(tree.num_positions());
    for (int i = 0; i < q.size(); ++i) q(i) = u(gen);
    NormalizeQuaternions(tree, &q);
    const MatrixX<double> H = MassMatrix(tree, &cache, q);
    EXPECT_LT((H - H.transpose()).norm(), 1e-12 * H.norm());
    Eigen::LLT<MatrixX<double>> llt(H);
    EXPECT_EQ(llt.info(), Eigen::Success) << r.name;
  }
}

// What the time-stepping plant takes from the dynamics on these robots:
// MassMatrix and BiasTerm leave the poses and body velocities that
// ForwardKinematics(q, v) writes (the plant skips that pass); each body's
// world-aligned Jacobian columns (the plant's contact rows) give its
// points' velocities; PackedTreeFactor along the dof
// tree solves and multiplies by H + h D as the dense matrix does.
TEST_P(RobotCorpusTest, DynamicsServeTheTimeSteppingPlant) {
  const Robot& r = GetParam();
  if (!fs::exists(r.urdf))
    FAIL() << r.urdf
           << " is missing: install dart-doc (scripts/install-deps test)";
  const RigidBodyTree<double> tree = ParseUrdfFile(r.urdf, Options(r)).tree;
  const int nv = tree.num_velocities();
  KinematicsCache<double> fk(tree), dyn(tree);
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VectorX<double> q(tree.num_positions()), v(nv);
  for (int i = 0; i < q.size(); ++i) q(i) = u(gen);
  for (int i = 0; i < nv; ++i) v(i) = 2 * u(gen);
  NormalizeQuaternions(tree, &q);
  ForwardKinematics(tree, &fk, q, v);
  MatrixX<double> H = MassMatrix(tree, &dyn, q);
  BiasTerm(tree, &dyn, q, v);
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const int nvb = tree.body(b).num_velocities;
    EXPECT_LT((dyn.X_WB[b].R - fk.X_WB[b].R).norm(), 1e-14) << b;
    EXPECT_LT((dyn.X_WB[b].p - fk.X_WB[b].p).norm(), 1e-14) << b;
    EXPECT_EQ(dyn.S[b].leftCols(nvb), fk.S[b].leftCols(nvb)) << b;
    EXPECT_LT((dyn.V[b] - fk.V[b]).norm(), 1e-13 * (1 + fk.V[b].norm())) << b;
  }
  // Each body's Jacobian columns map v to the velocity of a point on it,
  // as the body's spatial velocity from forward kinematics gives it.
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const Vector3<double> p_B(0.1, -0.05, 0.2);
    Vector6<double> Jv = Vector6<double>::Zero();
    ForEachWorldAlignedJacobianColumn(
        tree, fk, b, Vector3<double>(fk.X_WB[b] * p_B),
        [&](int col, const Vector6<double>& c) { Jv += c * v[col]; });
    const Matrix3<double>& R = fk.X_WB[b].R;
    const Vector3<double> w_B = fk.V[b].head<3>();
    Vector6<double> expected;
    expected << R * w_B, R * (fk.V[b].tail<3>() + w_B.cross(p_B));
    EXPECT_LT((Jv - expected).norm(), 1e-12 * (1 + expected.norm()))
        << tree.body(b).name;
  }
  // The plant's free-motion matrix with implicit damping h D.
  for (int i = 0; i < nv; ++i) H(i, i) += 1e-3 * (0.1 + std::abs(u(gen)));
  const std::vector<int> parent = TreeCholesky<double>(tree).dof_parents();
  PackedTreeFactor A(parent.data(), nv);
  for (int k = 0; k < nv; ++k) {
    for (int e = 0; e < A.row_size(k); ++e) A.row(k)[e] = H(k, A.path(k)[e]);
  }
  ASSERT_EQ(A.Factor(), -1);
  const VectorX<double> x = VectorX<double>::Random(nv);
  VectorX<double> y = x, tmp(nv);
  A.Solve(y.data());
  const VectorX<double> ref = H.llt().solve(x);
  EXPECT_LT((y - ref).norm(), 1e-9 * ref.norm()) << r.name;
  y = x;
  A.Multiply(y.data(), tmp.data());
  EXPECT_LT((y - H * x).norm(), 1e-12 * (H * x).norm()) << r.name;
}

// Per link, the box of the visual meshes against the box of the collision
// meshes, in the body frame. Collision meshes are coarser (hulls, fewer
// triangles), so the boxes agree to a few centimetres, not exactly; a
// mesh turned 90 degrees swaps two extents and misses by decimetres.
TEST_P(RobotCorpusTest, VisualAndCollisionMeshesAgreeInBoundingBox) {
  const Robot& r = GetParam();
  if (!fs::exists(r.urdf))
    FAIL() << r.urdf
           << " is missing: install dart-doc (scripts/install-deps test)";
  const UrdfModel model = ParseUrdfFile(r.urdf, Options(r));
  int compared = 0;
  for (int b = 0; b < model.tree.num_bodies(); ++b) {
    const auto& body = model.tree.body(b);
    if (body.visuals.size() != 1 || body.collisions.size() != 1) continue;
    const BodyGeometry& v = body.visuals[0];
    const BodyGeometry& c = body.collisions[0];
    if (v.shape != BodyGeometry::Shape::kMesh || !c.mesh ||
        v.mesh_path == c.mesh_path) {
      continue;
    }
    Vector3<double> vlo, vhi, clo, chi;
    Box(*ReadMeshFile(v.mesh_path, v.mesh_scale), v.X_BG, &vlo, &vhi);
    Box(*c.mesh, c.X_BG, &clo, &chi);
    const double size = (chi - clo).maxCoeff();
    const double miss = std::max((vlo - clo).cwiseAbs().maxCoeff(),
                                 (vhi - chi).cwiseAbs().maxCoeff());
    EXPECT_LT(miss, 0.03 + 0.1 * size)
        << r.name << " link " << body.name << ": visual " << v.mesh_path << " ["
        << vlo.transpose() << "] .. [" << vhi.transpose() << "], collision "
        << c.mesh_path << " [" << clo.transpose() << "] .. [" << chi.transpose()
        << "]";
    ++compared;
  }
  RecordProperty("links_compared", compared);
  if (std::string(r.name) == "wam" || std::string(r.name) == "atlas") {
    EXPECT_GE(compared, 7) << r.name;
  }
}

INSTANTIATE_TEST_SUITE_P(DartDoc, RobotCorpusTest,
                         ::testing::ValuesIn(Corpus()),
                         [](const auto& info) { return info.param.name; });

// Atlas ships each link as a Z_UP COLLADA file and as an STL of the same
// surface: read both, the boxes agree to rounding (an up axis ignored or
// applied twice would swap y and z).
TEST(RobotCorpusTest, AtlasColladaAndStlOfTheSameLinkAgree) {
  const fs::path dir = kData + "/sdf/atlas";
  if (!fs::exists(dir))
    FAIL() << dir
           << " is missing: install dart-doc (scripts/install-deps test)";
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".dae") continue;
    fs::path stl = entry.path();
    stl.replace_extension(".stl");
    if (!fs::exists(stl)) continue;
    const RigidTransform<double> I;
    Vector3<double> dlo, dhi, slo, shi;
    Box(*ReadMeshFile(entry.path().string(), Vector3<double>::Ones()), I, &dlo,
        &dhi);
    Box(*ReadMeshFile(stl.string(), Vector3<double>::Ones()), I, &slo, &shi);
    const double size = (shi - slo).maxCoeff();
    EXPECT_LT((dlo - slo).cwiseAbs().maxCoeff(), 1e-3 * size + 1e-4)
        << entry.path() << " [" << dlo.transpose() << "] vs " << stl << " ["
        << slo.transpose() << "]";
    EXPECT_LT((dhi - shi).cwiseAbs().maxCoeff(), 1e-3 * size + 1e-4)
        << entry.path() << " [" << dhi.transpose() << "] vs " << stl << " ["
        << shi.transpose() << "]";
    ++compared;
  }
  EXPECT_GE(compared, 25);
}

}  // namespace
}  // namespace tern
