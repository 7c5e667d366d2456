// The MJCF parser against MuJoCo 2.2.2 (mj_loadXML reads the same file):
// for every sample model of Debian's libmujoco-samples and dart-doc's
// data/mjcf that Tern can represent, total mass, body poses at random q
// (1e-12), the joint-space mass matrix (mj_fullM) and the bias forces
// (qfrc_bias) at random (q, v) (1e-10 relative). Models with tendons,
// composites or flex are skipped with the reason printed; so are files
// MuJoCo itself rejects.
//
// Coordinate map (mjcf_parser.h): hinge, slide and ball coordinates are
// equal; a free joint's qpos equals Tern's q, and qvel = T v with
// qvel = [R v_B; w_B] for Tern's v = [w_B; v_B]. Then H = Tᵀ M T and
// C = Tᵀ (M Tdot v + qfrc_bias) + damping v (MuJoCo keeps damping in
// qfrc_passive, Tern in C), with Tdot v = [R (w_B x v_B); 0] and M without
// the armature (MuJoCo's armature multiplies qacc, Tern's vdot: on a free
// joint they differ by Tdot v).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/mjcf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Why Tern cannot represent the model, or "".
std::string SkipReason(const mjModel* m, const std::string& text) {
  if (text.find("<composite") != std::string::npos) return "composite";
  if (text.find("<flex") != std::string::npos) return "flex";
  if (m->ntendon > 0) return "tendons";
  if (text.find("exactmeshinertia=\"true\"") == std::string::npos) {
    for (int g = 0; g < m->ngeom; ++g) {
      if (m->geom_type[g] == mjGEOM_MESH && m->body_mass[m->geom_bodyid[g]] > 0)
        return "a mesh geom's mass: MuJoCo 2.2.2's default mesh inertia "
               "(exactmeshinertia=false) is exact only for convex meshes, "
               "Tern's is exact";
    }
  }
  return "";
}

struct MjDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using ModelPtr = std::unique_ptr<mjModel, MjDeleter>;
using DataPtr = std::unique_ptr<mjData, MjDeleter>;

// Free joints of the map T (qvel = T v): dof address and R of each; T is
// the identity elsewhere, so Tᵀ X T is applied block by block.
struct FreeBlock {
  int a;
  Matrix3<double> R;
};
MatrixX<double> MapMassMatrix(const MatrixX<double>& M,
                              const std::vector<FreeBlock>& free) {
  MatrixX<double> X = M;  // X = M T
  for (const FreeBlock& f : free) {
    const MatrixX<double> lin = M.middleCols<3>(f.a) * f.R;
    X.middleCols<3>(f.a) = M.middleCols<3>(f.a + 3);
    X.middleCols<3>(f.a + 3) = lin;
  }
  MatrixX<double> H = X;  // H = Tᵀ X
  for (const FreeBlock& f : free) {
    const MatrixX<double> lin = f.R.transpose() * X.middleRows<3>(f.a);
    H.middleRows<3>(f.a) = X.middleRows<3>(f.a + 3);
    H.middleRows<3>(f.a + 3) = lin;
  }
  return H;
}
VectorX<double> MapForce(const VectorX<double>& f,
                         const std::vector<FreeBlock>& free) {
  VectorX<double> out = f;  // Tᵀ f
  for (const FreeBlock& b : free) {
    out.segment<3>(b.a) = f.segment<3>(b.a + 3);
    out.segment<3>(b.a + 3) = b.R.transpose() * f.segment<3>(b.a);
  }
  return out;
}

struct Errors {
  double mass{0}, pose{0}, H{0}, C{0};
  int filter{0};  // body pairs filtered by one engine and not the other
  int pairs{0};   // body pairs with geometry compared
  int geom_filter{0}, geom_pairs{0};  // the same for geom pairs
};

// Compares one model; returns the largest differences seen.
Errors Compare(const std::string& path, int trials) {
  char err[1000] = "";
  ModelPtr mp(mj_loadXML(path.c_str(), nullptr, err, sizeof(err)));
  EXPECT_NE(mp, nullptr) << path << ": " << err;
  Errors e;
  if (mp == nullptr) return e;
  mjModel* m = mp.get();
  DataPtr dp(mj_makeData(m));
  mjData* d = dp.get();
  const MjcfModel model = ParseMjcfFile(path);
  const RigidBodyTree<double>& tree = model.tree;
  EXPECT_EQ(tree.num_positions(), m->nq) << path;
  EXPECT_EQ(tree.num_velocities(), m->nv) << path;
  if (tree.num_positions() != m->nq || tree.num_velocities() != m->nv) {
    return e;
  }
  double mj_mass = 0;
  for (int b = 0; b < m->nbody; ++b) mj_mass += m->body_mass[b];
  e.mass = std::abs(tree.total_mass() - mj_mass) / std::max(mj_mass, 1e-300);

  // Names as the parser gives them.
  std::vector<std::string> body_names(m->nbody);
  for (int b = 0; b < m->nbody; ++b) {
    const char* n = mj_id2name(m, mjOBJ_BODY, b);
    body_names[b] = n ? n : "body" + std::to_string(b);
  }
  std::vector<int> tern_body_of_joint(m->njnt);
  for (int j = 0; j < m->njnt; ++j) {
    const char* n = mj_id2name(m, mjOBJ_JOINT, j);
    const int b = m->jnt_bodyid[j];
    const std::string name =
        n ? n
          : body_names[b] + ".joint" + std::to_string(j - m->body_jntadr[b]);
    tern_body_of_joint[j] = tree.FindJointBodyIndex(name);
  }

  // Contact filtering: MuJoCo's rule on its own weld bodies and parents
  // (mj_collision: never within one weld body; with filterparent, on by
  // default, not between a weld body and its parent's unless one is the
  // world; plus <exclude>) against Tern's tree filter (parent-child) with
  // the model's contact_excludes, for every pair of bodies with geoms that
  // collide (contype or conaffinity nonzero: Tern's collision geometry).
  {
    GeometryModelOptions options;
    options.exclude_parent_child = false;  // MJCF's pairs are in its excludes
    GeometryModel geometry = GeometryModel::FromTree(tree, options);
    for (const MjcfContactExclude& x : model.contact_excludes) {
      geometry.ExcludeBodyPair(x.body1, x.body2);
    }
    std::vector<char> collides(m->nbody, 0);
    for (int g = 0; g < m->ngeom; ++g) {
      collides[m->geom_bodyid[g]] |=
          (m->geom_contype[g] | m->geom_conaffinity[g]) != 0;
    }
    std::vector<int> with_geoms;  // bodies with a geom that collides
    for (int b = 1; b < m->nbody; ++b) {
      if (collides[b]) with_geoms.push_back(b);
    }
    const bool filterparent = (m->opt.disableflags & mjDSBL_FILTERPARENT) == 0;
    for (size_t i = 0; i < with_geoms.size(); ++i) {
      for (size_t j = i + 1; j < with_geoms.size(); ++j) {
        const int b1 = with_geoms[i], b2 = with_geoms[j];
        const int w1 = m->body_weldid[b1], w2 = m->body_weldid[b2];
        if (w1 == 0 && w2 == 0) continue;  // both static
        const int p1 = m->body_weldid[m->body_parentid[w1]];
        const int p2 = m->body_weldid[m->body_parentid[w2]];
        bool mj = w1 == w2 || (filterparent && w1 != 0 && w2 != 0 &&
                               (w1 == p2 || w2 == p1));
        for (int k = 0; k < m->nexclude; ++k) {
          const int sig = m->exclude_signature[k];
          mj |= sig == (std::min(b1, b2) << 16) + std::max(b1, b2);
        }
        const bool tern =
            geometry.IsExcluded(tree.FindBodyIndex(body_names[b1]),
                                tree.FindBodyIndex(body_names[b2]));
        e.filter += mj != tern;
        ++e.pairs;
        EXPECT_EQ(tern, mj) << body_names[b1] << " / " << body_names[b2];
      }
    }
    // Geom pairs: MuJoCo's contype / conaffinity rule, (ct1 & ca2) || (ct2
    // & ca1), on top of the body filter, against GeometryModel::CanCollide.
    // Tern's geometries of a body are its colliding geoms in order (planes
    // only on the world body).
    std::vector<int> tern_geom(m->ngeom, -1);
    std::vector<std::vector<int>> tern_of_body(tree.num_bodies());
    for (int k = 0; k < geometry.num_geometries(); ++k) {
      tern_of_body[geometry.geometry(k).body].push_back(k);
    }
    for (int b = 0; b < m->nbody; ++b) {
      const int tb = b == 0 ? 0 : tree.FindBodyIndex(body_names[b]);
      std::vector<int> mj_geoms;
      for (int g = m->body_geomadr[b];
           g >= 0 && g < m->body_geomadr[b] + m->body_geomnum[b]; ++g) {
        if ((m->geom_contype[g] | m->geom_conaffinity[g]) == 0) continue;
        if (b != 0 && m->geom_type[g] == mjGEOM_PLANE) continue;
        mj_geoms.push_back(g);
      }
      if (mj_geoms.size() != tern_of_body[tb].size()) {
        ADD_FAILURE() << body_names[b] << ": " << mj_geoms.size()
                      << " colliding geoms in MuJoCo, "
                      << tern_of_body[tb].size() << " in Tern";
        continue;
      }
      for (size_t i = 0; i < mj_geoms.size(); ++i) {
        tern_geom[mj_geoms[i]] = tern_of_body[tb][i];
      }
    }
    for (int g1 = 0; g1 < m->ngeom; ++g1) {
      for (int g2 = g1 + 1; g2 < m->ngeom; ++g2) {
        if (tern_geom[g1] < 0 || tern_geom[g2] < 0) continue;
        const int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
        const int w1 = m->body_weldid[b1], w2 = m->body_weldid[b2];
        if (w1 == 0 && w2 == 0) continue;  // both static
        const int p1 = m->body_weldid[m->body_parentid[w1]];
        const int p2 = m->body_weldid[m->body_parentid[w2]];
        bool mj = w1 != w2 && !(filterparent && w1 != 0 && w2 != 0 &&
                                (w1 == p2 || w2 == p1));
        for (int k = 0; k < m->nexclude; ++k) {
          const int sig = m->exclude_signature[k];
          mj &= sig != (std::min(b1, b2) << 16) + std::max(b1, b2);
        }
        mj &= (m->geom_contype[g1] & m->geom_conaffinity[g2]) != 0 ||
              (m->geom_contype[g2] & m->geom_conaffinity[g1]) != 0;
        const bool tern = geometry.CanCollide(tern_geom[g1], tern_geom[g2]);
        e.geom_filter += mj != tern;
        ++e.geom_pairs;
        EXPECT_EQ(tern, mj) << "geoms " << g1 << " (" << body_names[b1]
                            << ") / " << g2 << " (" << body_names[b2] << ")";
      }
    }
  }

  KinematicsCache<double> cache(tree);
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> s(-1.0, 1.0);
  const int nq = m->nq, nv = m->nv;
  for (int trial = 0; trial < trials; ++trial) {
    VectorX<double> q(nq), v(nv);
    for (int i = 0; i < nq; ++i) q(i) = s(gen);
    for (int i = 0; i < nv; ++i) v(i) = s(gen);
    NormalizeQuaternions(tree, &q);
    std::vector<FreeBlock> free;
    VectorX<double> v_mj = v;
    VectorX<double> Tdot_v = VectorX<double>::Zero(nv);
    VectorX<double> damping = VectorX<double>::Zero(nv);
    for (int j = 0; j < m->njnt; ++j) {
      const RigidBody<double>& body = tree.body(tern_body_of_joint[j]);
      const int qa = m->jnt_qposadr[j], da = m->jnt_dofadr[j];
      const int tq = body.position_start, tv = body.velocity_start;
      const int jnq = body.num_positions, jnv = body.num_velocities;
      EXPECT_EQ(tv, da) << "dof order differs at joint " << j;
      for (int k = 0; k < jnq; ++k) d->qpos[qa + k] = q(tq + k);
      for (int k = 0; k < jnv; ++k) {
        damping(tv + k) = body.joint.damping;
        EXPECT_DOUBLE_EQ(m->dof_damping[da + k], body.joint.damping);
        EXPECT_DOUBLE_EQ(m->dof_armature[da + k], body.joint.armature);
      }
      if (m->jnt_type[j] == mjJNT_FREE) {
        const Matrix3<double> R =
            QuaternionToRotationMatrix<double>(q.segment<4>(tq + 3));
        free.push_back(FreeBlock{da, R});
        const Vector3<double> w = v.segment<3>(tv), vB = v.segment<3>(tv + 3);
        v_mj.segment<3>(da) = R * vB;
        v_mj.segment<3>(da + 3) = w;
        Tdot_v.segment<3>(da) = R * w.cross(vB);
      }
    }
    for (int i = 0; i < nv; ++i) d->qvel[i] = v_mj(i);
    mj_forward(m, d);

    // Body poses.
    ForwardKinematics(tree, &cache, q);
    for (int b = 1; b < m->nbody; ++b) {
      const RigidTransform<double>& X =
          cache.X_WB[tree.FindBodyIndex(body_names[b])];
      for (int r = 0; r < 3; ++r) {
        e.pose = std::max(e.pose, std::abs(X.p(r) - d->xpos[3 * b + r]));
        for (int c = 0; c < 3; ++c) {
          e.pose = std::max(e.pose,
                            std::abs(X.R(r, c) - d->xmat[9 * b + 3 * r + c]));
        }
      }
    }

    MatrixX<double> M(nv, nv);
    mj_fullM(m, M.data(), d->qM);  // symmetric: layout is moot
    const MatrixX<double> H_mj = MapMassMatrix(M, free);
    const MatrixX<double> H = MassMatrix(tree, &cache, q);
    e.H = std::max(e.H, (H - H_mj).norm() / H_mj.norm());

    VectorX<double> bias(nv);
    for (int i = 0; i < nv; ++i) bias(i) = d->qfrc_bias[i];
    // Armature acts on MuJoCo's qacc but on Tern's vdot: for a free joint
    // the two differ by Tdot v, so the velocity product takes M without it.
    MatrixX<double> M_rigid = M;
    for (int i = 0; i < nv; ++i) M_rigid(i, i) -= m->dof_armature[i];
    const VectorX<double> C_mj =
        MapForce(M_rigid * Tdot_v + bias, free) + damping.cwiseProduct(v);
    const VectorX<double> C = BiasTerm(tree, &cache, q, v);
    e.C = std::max(e.C, (C - C_mj).norm() / std::max(C_mj.norm(), 1e-300));
  }
  return e;
}

// Debian compresses dart-doc's larger files (.xml.gz); neither MuJoCo nor
// Tern reads gzip, so they are unpacked into a temporary folder. Their
// <include>s (the fetch robots) then miss, and MuJoCo rejects them. CTest
// runs the cases as parallel processes that all unpack the same files: each
// writes a file of its own and renames it into place, so no process reads a
// file another is still writing.
std::string Gunzip(const fs::path& gz) {
  const fs::path dir = fs::temp_directory_path() / "tern_mjcf_gz";
  fs::create_directories(dir);
  const fs::path out = dir / gz.stem();  // name.xml
  gzFile in = gzopen(gz.c_str(), "rb");
  if (in == nullptr) return "";
  std::string text;
  char buf[1 << 14];
  int n = 0;
  while ((n = gzread(in, buf, sizeof(buf))) > 0) text.append(buf, n);
  gzclose(in);
  const fs::path partial =
      dir / (gz.stem().string() + "." + std::to_string(::getpid()));
  std::ofstream(partial) << text;
  fs::rename(partial, out);
  return out.string();
}

std::vector<std::string> SampleModels() {
  std::vector<std::string> out;
  for (const char* root : {"/usr/share/mujoco/model",
                           "/usr/share/doc/dart/data/mjcf", TERN_MODELS_DIR}) {
    if (!fs::exists(root)) continue;
    for (const auto& f : fs::recursive_directory_iterator(root)) {
      std::string path = f.path().string();
      if (path.ends_with(".xml.gz")) path = Gunzip(f.path());
      if (!path.ends_with(".xml")) continue;
      const std::string text = ReadFile(path);
      if (text.find("<mujoco") == std::string::npos) continue;
      out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(MjcfMujocoTest, SampleModelsAgree) {
  const std::vector<std::string> models = SampleModels();
  ASSERT_FALSE(models.empty())
      << "no MJCF samples found: install libmujoco-samples "
         "(scripts/install-deps test)";
  int compared = 0;
  bool humanoid = false;
  for (const std::string& path : models) {
    char err[1000] = "";
    mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
    if (m == nullptr) {
      std::printf("skip %s: MuJoCo rejects it (%s)\n", path.c_str(), err);
      continue;
    }
    const std::string why = SkipReason(m, ReadFile(path));
    mj_deleteModel(m);
    if (!why.empty()) {
      std::printf("skip %s: %s\n", path.c_str(), why.c_str());
      continue;
    }
    SCOPED_TRACE(path);
    Errors e;
    try {
      e = Compare(path, 3);
    } catch (const std::exception& ex) {
      ADD_FAILURE() << ex.what();
      continue;
    }
    std::printf(
        "%s: mass %.1e pose %.1e H %.1e C %.1e, filters differ on %d "
        "of %d body pairs and %d of %d geom pairs\n",
        path.c_str(), e.mass, e.pose, e.H, e.C, e.filter, e.pairs,
        e.geom_filter, e.geom_pairs);
    EXPECT_LT(e.mass, 1e-12);
    EXPECT_LT(e.pose, 1e-12);
    EXPECT_LT(e.H, 1e-10);
    EXPECT_LT(e.C, 1e-10);
    ++compared;
    humanoid = humanoid || path.ends_with("humanoid/humanoid.xml");
  }
  std::printf("compared %d of %zu sample models with MuJoCo\n", compared,
              models.size());
  EXPECT_TRUE(humanoid) << "the sample humanoid must be compared";
}

}  // namespace
}  // namespace tern
