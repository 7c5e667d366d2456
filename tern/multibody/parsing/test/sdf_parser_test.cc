// SDFormat through libsdformat: the dart-doc Atlas against the same robot's
// URDF (poses to 1e-12; H and C to the digits the .sdf was written with);
// poses with relative_to, worlds with several models, joints, warnings and
// errors (the comparison with DART's SDF loader is sdf_parser_dart_test.cc);
// plane and ellipsoid contact; a world of three models on both plants;
// dart-doc's Gazebo worlds with Tern's stand-ins for Gazebo's stock models.
#include "tern/multibody/parsing/sdf_parser.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include "tern/integrators/explicit_rules.h"
#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/parsing/model_file.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/compliant_contact.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

namespace fs = std::filesystem;

class SdfParserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(SdfSupported())
        << "built without libsdformat: install libsdformat-dev "
           "(scripts/install-deps)";
  }
};

SdfModel Parse(const std::string& xml) {
  SdfParseOptions o;
  o.check_mass_matrix = false;
  return ParseSdfString(xml, o, "test.sdf");
}

std::string ErrorOf(const std::string& xml) {
  try {
    Parse(xml);
  } catch (const SdfError& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(SdfParserTest, AtlasAgreesWithItsUrdf) {
  const std::string dir = std::string(TERN_DART_DATA_DIR) + "/sdf/atlas";
  ASSERT_TRUE(fs::exists(dir))
      << dir << " is missing: install dart-doc (scripts/install-deps test)";
  SdfParseOptions so;
  so.load_collision_meshes = false;
  const SdfModel sdf = ParseSdfFile(dir + "/atlas_v3_no_head.sdf", so);
  UrdfParseOptions uo;
  uo.floating_base = true;
  uo.load_collision_meshes = false;
  const UrdfModel urdf = ParseUrdfFile(dir + "/atlas_v3_no_head.urdf", uo);
  const RigidBodyTree<double>& a = sdf.tree;
  const RigidBodyTree<double>& b = urdf.tree;
  ASSERT_EQ(a.num_positions(), b.num_positions());
  ASSERT_EQ(a.num_velocities(), b.num_velocities());
  EXPECT_NEAR(a.total_mass(), b.total_mass(), 1e-12 * b.total_mass());
  // Coordinates matched by joint name (the floating base by body).
  const int nq = a.num_positions(), nv = a.num_velocities();
  std::vector<int> qmap(nq, -1), vmap(nv, -1);  // index in b of a's
  for (int i = 1; i < a.num_bodies(); ++i) {
    const RigidBody<double>& ba = a.body(i);
    if (ba.num_positions == 0) continue;
    const RigidBody<double>& bb =
        ba.joint.type == JointType::kFloating
            ? b.body(b.FindBodyIndex(ba.name))
            : b.body(b.FindJointBodyIndex(ba.joint.name));
    ASSERT_EQ(ba.joint.type, bb.joint.type) << ba.name;
    for (int k = 0; k < ba.num_positions; ++k) {
      qmap[ba.position_start + k] = bb.position_start + k;
    }
    for (int k = 0; k < ba.num_velocities; ++k) {
      vmap[ba.velocity_start + k] = bb.velocity_start + k;
    }
  }
  KinematicsCache<double> ca(a), cb(b);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  double pose = 0, H = 0, C = 0;
  for (int trial = 0; trial < 5; ++trial) {
    VectorX<double> qb(nq), vb(nv), qa(nq), va(nv);
    for (int i = 0; i < nq; ++i) qb(i) = u(gen);
    for (int i = 0; i < nv; ++i) vb(i) = u(gen);
    NormalizeQuaternions(b, &qb);
    for (int i = 0; i < nq; ++i) qa(i) = qb(qmap[i]);
    for (int i = 0; i < nv; ++i) va(i) = vb(vmap[i]);
    ForwardKinematics(a, &ca, qa);
    ForwardKinematics(b, &cb, qb);
    for (int i = 1; i < a.num_bodies(); ++i) {
      const int j = b.FindBodyIndex(a.body(i).name);
      pose = std::max(pose, (ca.X_WB[i].p - cb.X_WB[j].p).norm());
      pose = std::max(pose, (ca.X_WB[i].R - cb.X_WB[j].R).norm());
    }
    const MatrixX<double> Ha = MassMatrix(a, &ca, qa);
    const MatrixX<double> Hb = MassMatrix(b, &cb, qb);
    MatrixX<double> Hb_a(nv, nv);
    for (int r = 0; r < nv; ++r) {
      for (int c = 0; c < nv; ++c) Hb_a(r, c) = Hb(vmap[r], vmap[c]);
    }
    H = std::max(H, (Ha - Hb_a).norm() / Hb.norm());
    const VectorX<double> Ca = BiasTerm(a, &ca, qa, va);
    const VectorX<double> Cb = BiasTerm(b, &cb, qb, vb);
    VectorX<double> Cb_a(nv);
    for (int r = 0; r < nv; ++r) Cb_a(r) = Cb(vmap[r]);
    C = std::max(C, (Ca - Cb_a).norm() / Cb.norm());
  }
  std::printf("atlas sdf vs urdf: pose %.1e H %.1e C %.1e\n", pose, H, C);
  EXPECT_LT(pose, 1e-12);
  // The .sdf's utorso holds the URDF's utorso and the links fixed to it,
  // lumped by the URDF-to-SDF conversion and printed to six digits
  // (com -0.0909481 ...): H and C agree to that precision, not better.
  EXPECT_LT(H, 1e-6);
  EXPECT_LT(C, 1e-6);
}

TEST_F(SdfParserTest, PosesRelativeToFramesAndJointFrames) {
  const SdfModel m = Parse(R"(<sdf version="1.9"><model name="m">
  <link name="base"><pose>0 0 1 0 0 0</pose>
    <inertial><mass>1</mass></inertial></link>
  <link name="arm"><pose relative_to="base">1 0 0 0 0 1.5707963267948966</pose>
    <inertial><mass>1</mass></inertial></link>
  <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
    <pose>0.5 0 0 0 0 0</pose>
    <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>2</upper></limit>
      <dynamics><damping>0.3</damping></dynamics></axis></joint>
</model></sdf>)");
  const RigidBodyTree<double>& t = m.tree;
  // base floats; the joint is 0.5 m along the arm's x, so the arm hangs on
  // a massless body at the joint by a weld.
  EXPECT_EQ(t.body(t.FindBodyIndex("base")).joint.type, JointType::kFloating);
  EXPECT_TRUE(t.HasBody("arm.j"));
  const Joint<double>& j = t.body(t.FindJointBodyIndex("j")).joint;
  EXPECT_EQ(j.position_lower, -1);
  EXPECT_EQ(j.damping, 0.3);
  KinematicsCache<double> cache(t);
  VectorX<double> q = m.q0;
  ASSERT_EQ(q.size(), 8);
  q(7) = 0.5;  // rotate the arm about the joint's z
  ForwardKinematics(t, &cache, q);
  const Vector3<double> arm = cache.X_WB[t.FindBodyIndex("arm")].p;
  // Joint at (1, 0.5, 1); the arm's origin 0.5 m from it, at angle
  // -pi/2 + 0.5 in the world.
  const Vector3<double> expected(1 + 0.5 * std::cos(-M_PI / 2 + 0.5),
                                 0.5 + 0.5 * std::sin(-M_PI / 2 + 0.5), 1);
  EXPECT_LT((arm - expected).norm(), 1e-14);
}

TEST_F(SdfParserTest, WorldWithThreeModelsUsesPrefixes) {
  const SdfModel m = Parse(R"(<sdf version="1.9"><world name="w">
  <gravity>0 0 -5</gravity>
  <model name="a"><pose>0 0 1 0 0 0</pose><link name="l">
    <inertial><mass>1</mass></inertial>
    <collision name="c"><geometry><box><size>1 2 3</size></box></geometry>
      <surface><friction><ode><mu>0.4</mu></ode></friction></surface>
    </collision></link></model>
  <model name="b"><pose>2 0 1 0 0 0</pose><link name="l">
    <inertial><mass>2</mass></inertial>
    <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>
    <visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry></visual>
  </link></model>
  <model name="ground"><static>true</static><link name="l">
    <collision name="c"><geometry><box><size>10 10 0.1</size></box></geometry></collision>
  </link></model>
</world></sdf>)");
  const RigidBodyTree<double>& t = m.tree;
  EXPECT_TRUE(t.HasBody("a::l"));
  EXPECT_TRUE(t.HasBody("b::l"));
  EXPECT_EQ(t.body(t.FindBodyIndex("ground::l")).joint.type, JointType::kFixed);
  EXPECT_EQ(t.num_positions(), 14);
  EXPECT_EQ(t.gravity(), Vector3<double>(0, 0, -5));
  const BodyGeometry& box = t.body(t.FindBodyIndex("a::l")).collisions.at(0);
  EXPECT_EQ(box.box_size, Vector3<double>(1, 2, 3));
  EXPECT_EQ(box.contact.mu, 0.4);
  EXPECT_EQ(m.q0(7), 2);  // b's x
  bool plane_warned = false;
  for (const ModelWarning& w : m.warnings) {
    plane_warned |= w.ToString().find("<visual name='v'>") != std::string::npos;
  }
  EXPECT_TRUE(plane_warned);
}

// A world of three models (a ball, a crate and a two-link pendulum hinged
// to a static post) above a static ground model simulates on both plants:
// the continuous one with compliant contact (RK4) and the time-stepping
// one. States stay finite; the ball and the crate come to rest on the
// ground at their closed-form heights (radius and half-height, less the
// compliant sag m g / k_series per contact point), the pendulum hangs
// straight down.
TEST_F(SdfParserTest, WorldOfThreeModelsSimulatesOnBothPlants) {
  const SdfModel m = Parse(R"(<sdf version="1.9"><world name="w">
  <model name="ground"><static>true</static><link name="l">
    <pose>0 0 -0.05 0 0 0</pose>
    <collision name="c"><geometry><box><size>10 10 0.1</size></box></geometry>
    </collision></link></model>
  <model name="ball"><pose>0 0 0.11 0 0 0</pose><link name="l">
    <inertial><mass>1</mass><inertia><ixx>0.004</ixx><iyy>0.004</iyy>
      <izz>0.004</izz></inertia></inertial>
    <collision name="c"><geometry><sphere><radius>0.1</radius></sphere>
    </geometry></collision></link></model>
  <model name="crate"><pose>1 0 0.21 0 0 0</pose><link name="l">
    <inertial><mass>2</mass><inertia><ixx>0.0267</ixx><iyy>0.0267</iyy>
      <izz>0.0267</izz></inertia></inertial>
    <collision name="c"><geometry><box><size>0.4 0.4 0.4</size></box>
    </geometry></collision></link></model>
  <model name="pendulum"><pose>-1 0 1 0 0 0</pose>
    <link name="upper"><pose>0 0 -0.25 0 0 0</pose>
      <inertial><mass>1</mass><inertia><ixx>0.02</ixx><iyy>0.02</iyy>
        <izz>0.001</izz></inertia></inertial></link>
    <link name="lower"><pose>0 0 -0.75 0 0 0</pose>
      <inertial><mass>1</mass><inertia><ixx>0.02</ixx><iyy>0.02</iyy>
        <izz>0.001</izz></inertia></inertial></link>
    <joint name="hinge" type="revolute"><parent>world</parent>
      <child>upper</child><pose>0 0 0.25 0 0 0</pose>
      <axis><xyz>0 1 0</xyz><dynamics><damping>4</damping></dynamics>
      </axis></joint>
    <joint name="elbow" type="revolute"><parent>upper</parent>
      <child>lower</child><pose>0 0 0.25 0 0 0</pose>
      <axis><xyz>0 1 0</xyz><dynamics><damping>1</damping></dynamics>
      </axis></joint>
  </model>
</world></sdf>)");
  const RigidBodyTree<double>& tree = m.tree;
  ASSERT_EQ(tree.num_positions(), 7 + 7 + 2);
  const int ball = tree.FindBodyIndex("ball::l");
  const int crate = tree.FindBodyIndex("crate::l");
  const int lower = tree.FindBodyIndex("pendulum::lower");
  const int qb = tree.body(ball).position_start;
  const int qc = tree.body(crate).position_start;
  VectorX<double> q0 = m.q0;
  q0(tree.body(tree.FindJointBodyIndex("pendulum::hinge")).position_start) =
      0.4;
  const VectorX<double> v0 = VectorX<double>::Zero(tree.num_velocities());
  const GeometryModel geometry = GeometryModel::FromTree(tree);
  const double g = 9.81, k_series = 1e6 / 2;  // default stiffness, in series
  auto check = [&](const VectorX<double>& q, const VectorX<double>& v,
                   double tol, const char* plant) {
    SCOPED_TRACE(plant);
    ASSERT_TRUE(q.allFinite() && v.allFinite());
    EXPECT_NEAR(q(qb + 2), 0.1 - 1 * g / k_series, tol);
    EXPECT_NEAR(q(qc + 2), 0.2 - 2 * g / (4 * k_series), tol);
    EXPECT_NEAR(q(qb), 0, 1e-6);  // dropped straight: no drift sideways
    EXPECT_NEAR(q(qc), 1, 1e-6);
    KinematicsCache<double> cache(tree);
    ForwardKinematics(tree, &cache, q);
    // Hanging straight down below the hinge at (-1, 0, 1) (damped swing).
    EXPECT_NEAR(cache.X_WB[lower].p.x(), -1, 2e-2);
    EXPECT_NEAR(cache.X_WB[lower].p.z(), 0.25, 1e-3);
  };
  const double t_end = 2.5;
  {
    auto contact = std::make_shared<CompliantContact>(tree, geometry);
    RigidBodySystem<double> plant(tree, {contact});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0, v0);
    sim.reset_integrator<RK4>(1e-3);
    sim.AdvanceTo(t_end);
    const VectorX<double>& x = sim.get_context().get_continuous_state_vector();
    check(x.head(tree.num_positions()),
          x.segment(tree.num_positions(), tree.num_velocities()), 1e-6,
          "RigidBodySystem, compliant contact");
  }
  {
    TimeSteppingRigidBodySystem plant(tree, geometry, 1e-3);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0, v0);
    sim.AdvanceTo(t_end);
    const VectorX<double>& x = plant.GetState(sim.get_context());
    // Rigid contact: no sag, rest within the solver's tolerance.
    const int nq = tree.num_positions();
    VectorX<double> q = x.head(nq);
    q(qb + 2) -= g / k_series;
    q(qc + 2) -= g / (2 * k_series);
    check(q, x.tail(tree.num_velocities()), 1e-4,
          "TimeSteppingRigidBodySystem");
  }
}

// The plane collisions on the world body (static scenery).
std::vector<BodyGeometry> WorldPlanes(const RigidBodyTree<double>& tree) {
  std::vector<BodyGeometry> planes;
  for (const BodyGeometry& g : tree.body(0).collisions) {
    if (g.shape == BodyGeometry::Shape::kPlane) planes.push_back(g);
  }
  return planes;
}

std::string AllWarnings(const std::vector<ModelWarning>& warnings) {
  std::string all;
  for (const ModelWarning& w : warnings) all += w.ToString() + "\n";
  return all;
}

// Sets an environment variable for a scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Gazebo's worlds include its stock models model://sun and
// model://ground_plane, from Gazebo's model database (not installed):
// every world file of dart-doc loads, through ParseSdfFile and
// ParseModelFile, with Tern's stand-ins where it includes them; the ground
// (included or written in the file) is one static plane on the world body,
// normal +z through the origin.
TEST_F(SdfParserTest, EveryDartDocWorldLoadsWithGazebosStockModels) {
  const std::string dir = std::string(TERN_DART_DATA_DIR) + "/sdf";
  ASSERT_TRUE(fs::exists(dir))
      << dir << " is missing: install dart-doc (scripts/install-deps test)";
  ASSERT_FALSE(FindSdfStockModelsDir().empty());
  struct World {
    std::string file;
    bool includes_sun;
    bool includes_ground;  // model://ground_plane, not written in the file
    int planes;
    // The error Tern's tree raises past the includes, if any.
    std::string error{};
  };
  const World worlds[] = {
      {"benchmark.world", true, false, 1},
      {"double_pendulum.world", true, false, 1},
      {"double_pendulum_with_base.world", true, false, 1},
      {"empty.world", true, true, 1},
      {"ground.world", false, false, 1},
      {"test/force_torque_test.world", true, true, 1},
      {"test/force_torque_test2.world", true, true, 1},
      {"test/single_bodynode_skeleton.world", true, false, 0},
      // Screw and universal joints, which the tree does not have.
      {"test/test_skeleton_joint.world", true, false, 0,
       "test_skeleton_joint.world:218: <joint name='joint_screw'>: joint "
       "type (revolute2, universal, screw, gearbox) is not in Tern's tree"},
  };
  // Every .world file of dart-doc is in the list.
  int found = 0;
  for (const std::string sub : {"", "/test"}) {
    for (const auto& f : fs::directory_iterator(dir + sub)) {
      if (f.path().extension() != ".world") continue;
      ++found;
      const std::string rel =
          (sub.empty() ? "" : "test/") + f.path().filename().string();
      EXPECT_TRUE(std::any_of(std::begin(worlds), std::end(worlds),
                              [&](const World& w) { return w.file == rel; }))
          << rel << " is not in the list";
    }
  }
  EXPECT_EQ(found, static_cast<int>(std::size(worlds)));
  for (const World& w : worlds) {
    SCOPED_TRACE(w.file);
    const std::string path = dir + "/" + w.file;
    SdfParseOptions o;
    o.check_mass_matrix = false;
    if (!w.error.empty()) {
      try {
        ParseSdfFile(path, o);
        ADD_FAILURE() << "no error";
      } catch (const SdfError& e) {
        EXPECT_NE(std::string(e.what()).find(w.error), std::string::npos)
            << e.what();
      }
      continue;
    }
    SdfModel m;
    ASSERT_NO_THROW(m = ParseSdfFile(path, o));
    ModelFileOptions mo;
    mo.sdf = o;
    ModelFile mf;
    ASSERT_NO_THROW(mf = ParseModelFile(path, mo));
    EXPECT_EQ(mf.format, ModelFormat::kSdf);
    EXPECT_EQ(mf.tree.num_bodies(), m.tree.num_bodies());
    EXPECT_EQ(mf.tree.num_positions(), m.tree.num_positions());
    const std::string all = AllWarnings(m.warnings);
    EXPECT_EQ(all.find("model://sun</uri>: not found") != std::string::npos,
              w.includes_sun)
        << all;
    EXPECT_EQ(
        all.find("model://ground_plane</uri>: not found") != std::string::npos,
        w.includes_ground)
        << all;
    if (w.includes_sun) {
      EXPECT_NE(all.find("<light>(s) not read (rendering only)"),
                std::string::npos)
          << all;
    }
    const std::vector<BodyGeometry> planes = WorldPlanes(m.tree);
    ASSERT_EQ(static_cast<int>(planes.size()), w.planes);
    for (const BodyGeometry& g : planes) {
      EXPECT_LT((g.X_BG.R.col(2) - Vector3<double>::UnitZ()).norm(), 1e-15);
      EXPECT_LT(g.X_BG.p.norm(), 1e-15);
      // Gazebo's ground friction (the stand-in's, and the files' own).
      EXPECT_TRUE(g.contact.has_mu);
      EXPECT_EQ(g.contact.mu, 100);
    }
    // The ground is a static model: no body of its own moves.
    for (int b = 1; b < m.tree.num_bodies(); ++b) {
      if (m.tree.body(b).name.find("ground_plane") != std::string::npos) {
        EXPECT_EQ(m.tree.body(b).joint.type, JointType::kFixed);
      }
    }
  }
}

// A world including model://sun and model://ground_plane: the stand-ins
// when no model path holds them (a warning for each), a user's own
// ground_plane when one does (through the package map, SDF_PATH as
// libsdformat reads it, or Gazebo's GAZEBO_MODEL_PATH), and the
// libsdformat error naming file:line when the stand-ins are turned off.
TEST_F(SdfParserTest, StockModelStandInsAndTheUsersOwnWins) {
  const std::string world = R"(<sdf version="1.9"><world name="w">
  <include><uri>model://sun</uri></include>
  <include><uri>model://ground_plane</uri></include>
  <model name="ball"><pose>0 0 1 0 0 0</pose><link name="l">
    <inertial><mass>1</mass></inertial>
    <collision name="c"><geometry><sphere><radius>0.1</radius></sphere>
    </geometry></collision></link></model>
</world></sdf>)";
  {
    const SdfModel m = Parse(world);
    const std::string all = AllWarnings(m.warnings);
    EXPECT_NE(all.find("test.sdf:2: <include><uri>model://sun</uri>: not "
                       "found on the model paths (the package map, SDF_PATH, "
                       "GZ_SIM_RESOURCE_PATH, IGN_GAZEBO_RESOURCE_PATH, "
                       "GAZEBO_MODEL_PATH): Tern's stand-in " +
                       FindSdfStockModelsDir() +
                       "/sun used (a light: rendering only, not simulated)"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("model://ground_plane</uri>: not found"),
              std::string::npos)
        << all;
    ASSERT_EQ(WorldPlanes(m.tree).size(), 1u);
    EXPECT_EQ(m.tree.FindBodyIndex("ground_plane::link") > 0, true);
  }
  // A user's ground_plane: a box, so that it differs from the stand-in.
  const fs::path user =
      fs::temp_directory_path() / fmt::format("tern_sdf_stock_{}", ::getpid());
  fs::create_directories(user / "models" / "ground_plane");
  std::ofstream(user / "models" / "ground_plane" / "model.config")
      << R"(<?xml version="1.0"?><model><name>ground_plane</name>
<sdf version="1.9">model.sdf</sdf></model>)";
  std::ofstream(user / "models" / "ground_plane" / "model.sdf")
      << R"(<sdf version="1.9"><model name="ground_plane"><static>true</static>
<link name="slab"><collision name="c"><pose>0 0 -0.5 0 0 0</pose>
<geometry><box><size>10 10 1</size></box></geometry></collision></link>
</model></sdf>)";
  auto expect_users = [&](const SdfModel& m) {
    const std::string all = AllWarnings(m.warnings);
    EXPECT_EQ(all.find("model://ground_plane</uri>: not found"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("model://sun</uri>: not found"), std::string::npos);
    EXPECT_TRUE(WorldPlanes(m.tree).empty());
    EXPECT_GT(m.tree.FindBodyIndex("ground_plane::slab"), 0);
  };
  {
    SCOPED_TRACE("package map");
    SdfParseOptions o;
    o.check_mass_matrix = false;
    o.packages.AddSearchPath((user / "models").string());
    expect_users(ParseSdfString(world, o, "test.sdf"));
  }
  for (const char* var : {"SDF_PATH", "GAZEBO_MODEL_PATH",
                          "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH"}) {
    SCOPED_TRACE(var);
    const ScopedEnv env(var, "/no/such/folder:" + (user / "models").string());
    expect_users(Parse(world));
  }
  fs::remove_all(user);
  // Stand-ins asked for but not found (a broken install): the error says
  // where to point Tern.
  {
    const ScopedEnv env("TERN_SDF_STOCK_DIR", "/no/such/folder");
    EXPECT_EQ(FindSdfStockModelsDir(), "");
    try {
      Parse(world);
      ADD_FAILURE() << "no error";
    } catch (const SdfError& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "Unable to find uri[model://sun]; Tern's stand-in for it "
                    "was not found either (set TERN_SDF_STOCK_DIR"),
                std::string::npos)
          << e.what();
    }
  }
  // Without the stand-ins: libsdformat's error, naming the file, the line
  // and the element.
  SdfParseOptions o;
  o.use_stock_models = false;
  try {
    ParseSdfString(world, o, "test.sdf");
    ADD_FAILURE() << "no error";
  } catch (const SdfError& e) {
    EXPECT_NE(std::string(e.what()).find("Unable to find uri[model://sun]"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("include"), std::string::npos)
        << e.what();
  }
}

// SDFormat planes are static half-spaces (on the world body, at the static
// link's pose, behind the normal) and ellipsoids convex shapes: a ball
// rests on Gazebo's usual ground_plane model at its radius and an
// ellipsoid at its shortest semi-axis; a tilted plane's normal is kept.
TEST_F(SdfParserTest, PlaneAndEllipsoidCollide) {
  const SdfModel m = Parse(R"(<sdf version="1.9"><world name="w">
  <model name="ground_plane"><static>true</static><link name="link">
    <collision name="c"><geometry><plane><normal>0 0 1</normal>
      <size>100 100</size></plane></geometry></collision>
    <visual name="v"><geometry><plane><normal>0 0 1</normal></plane>
    </geometry></visual></link></model>
  <model name="wall"><static>true</static><pose>5 0 0 0 0 0</pose>
    <link name="link"><collision name="c"><geometry><plane>
      <normal>-1 0 0</normal></plane></geometry></collision></link></model>
  <model name="ball"><pose>0 0 0.15 0 0 0</pose><link name="l">
    <inertial><mass>1</mass><inertia><ixx>0.004</ixx><iyy>0.004</iyy>
      <izz>0.004</izz></inertia></inertial>
    <collision name="c"><geometry><sphere><radius>0.1</radius></sphere>
    </geometry></collision></link></model>
  <model name="egg"><pose>1 0 0.15 0 0 0</pose><link name="l">
    <inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.005</iyy>
      <izz>0.01</izz></inertia></inertial>
    <collision name="c"><geometry><ellipsoid><radii>0.1 0.2 0.05</radii>
    </ellipsoid></geometry></collision></link></model>
</world></sdf>)");
  const RigidBodyTree<double>& tree = m.tree;
  ASSERT_EQ(tree.body(0).collisions.size(), 2u);
  const BodyGeometry& wall = tree.body(0).collisions[1];
  EXPECT_EQ(wall.shape, BodyGeometry::Shape::kPlane);
  // G's z is the normal (-1, 0, 0); the plane passes through x = 5.
  EXPECT_LT((wall.X_BG.R.col(2) - Vector3<double>(-1, 0, 0)).norm(), 1e-15);
  EXPECT_EQ(wall.X_BG.p, Vector3<double>(5, 0, 0));
  const GeometryModel geometry = GeometryModel::FromTree(tree);
  TimeSteppingRigidBodySystem plant(tree, geometry, 1e-3);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), m.q0,
                                  VectorX<double>::Zero(tree.num_velocities()));
  sim.AdvanceTo(1.0);
  const VectorX<double>& x = plant.GetState(sim.get_context());
  ASSERT_TRUE(x.allFinite());
  const int ball = tree.body(tree.FindBodyIndex("ball::l")).position_start;
  const int egg = tree.body(tree.FindBodyIndex("egg::l")).position_start;
  EXPECT_NEAR(x(ball + 2), 0.1, 1e-4);
  EXPECT_NEAR(x(egg + 2), 0.05, 1e-4);
  EXPECT_LT(x.tail(tree.num_velocities()).norm(), 1e-3);
}

TEST_F(SdfParserTest, ErrorsNameTheElement) {
  EXPECT_NE(ErrorOf(R"(<sdf version="1.9"><model name="m">
  <link name="a"/><link name="b"/>
  <joint name="u" type="universal"><parent>a</parent><child>b</child></joint>
</model></sdf>)")
                .find("<joint name='u'>: joint type"),
            std::string::npos);
  // libsdformat's own errors keep its file and line.
  EXPECT_NE(ErrorOf("<sdf version='1.9'><model name='m'><link name='a'/>"
                    "<joint name='j' type='revolute'><parent>a</parent>"
                    "<child>nope</child></joint></model></sdf>"),
            "no error");
  EXPECT_NE(ErrorOf("<sdf version='1.9'><model name='m'><link name='a'>"
                    "<collision name='c'><geometry><mesh><uri>missing.stl"
                    "</uri></mesh></geometry></collision></link></model></sdf>")
                .find("<collision name='c'>: mesh"),
            std::string::npos);
}

// <spring_stiffness> and <spring_reference> are kept (SdfModel::springs,
// the plants' JointSpring through MakeJointSprings); a negative stiffness
// is an error naming the joint and line.
TEST_F(SdfParserTest, JointSpringsAreKeptAndANegativeOneIsAnError) {
  const auto model = [](const std::string& stiffness) {
    return R"(<sdf version="1.9"><model name="m">
  <link name="a"><inertial><mass>1</mass></inertial></link>
  <joint name="hinge" type="revolute"><parent>world</parent><child>a</child>
    <axis><xyz>0 0 1</xyz><dynamics><spring_stiffness>)" +
           stiffness + R"(</spring_stiffness>
      <spring_reference>0.5</spring_reference></dynamics></axis></joint>
</model></sdf>)";
  };
  const SdfModel m = Parse(model("3"));
  ASSERT_EQ(m.springs.size(), 1u);
  EXPECT_EQ(m.springs[0].joint, "hinge");
  EXPECT_EQ(m.springs[0].stiffness, 3);
  EXPECT_EQ(m.springs[0].reference, 0.5);
  for (const ModelWarning& w : m.warnings) {
    EXPECT_EQ(w.message.find("spring"), std::string::npos) << w.ToString();
  }
  EXPECT_TRUE(Parse(model("0")).springs.empty());
  EXPECT_EQ(ErrorOf(model("-2")),
            "test.sdf:3: <joint name='hinge'>: <spring_stiffness> -2 and "
            "<spring_reference> 0.5: need a finite stiffness >= 0");
}

// Every element Tern does not model is named in a warning with its file and
// line, when it carries a meaning: a world's <physics>, <self_collide>, a
// link's <gravity>false</gravity>, <kinematic>, <velocity_decay>, a
// surface's <bounce>, a joint's <physics>, <gripper>, <actor>, and an
// element SDFormat does not define (libsdformat's report, routed). Values
// at their defaults (<gravity>true</gravity>) say nothing.
constexpr const char* kUnmodelledSdf = R"(<sdf version="1.9">
<world name="w">
  <physics name="p" type="ode"><max_step_size>0.002</max_step_size></physics>
  <model name="m">
    <self_collide>true</self_collide>
    <link name="a">
      <gravity>false</gravity>
      <kinematic>true</kinematic>
      <velocity_decay><linear>0.1</linear></velocity_decay>
      <wibble/>
      <inertial><mass>1</mass></inertial>
      <collision name="c"><geometry><sphere><radius>0.1</radius></sphere>
        </geometry><surface><bounce>
        <restitution_coefficient>0.5</restitution_coefficient></bounce>
        <friction><ode><mu>0.3</mu></ode></friction></surface></collision>
    </link>
    <link name="b"><inertial><mass>1</mass></inertial>
      <gravity>true</gravity><velocity_decay><linear>0</linear>
      </velocity_decay></link>
    <joint name="j" type="revolute"><parent>a</parent><child>b</child>
      <axis><xyz>0 0 1</xyz></axis>
      <physics><ode><cfm>0.1</cfm></ode></physics></joint>
    <gripper name="g"><grasp_check><attach_steps>20</attach_steps>
      </grasp_check><gripper_link>a</gripper_link><palm_link>b</palm_link>
    </gripper>
  </model>
  <actor name="act"><skin><filename>x.dae</filename></skin></actor>
</world></sdf>)";

TEST_F(SdfParserTest, UnmodelledElementsAreNamedInWarnings) {
  const SdfModel m = Parse(kUnmodelledSdf);
  EXPECT_EQ(m.tree.num_bodies(), 3);
  EXPECT_EQ(
      AllWarnings(m.warnings),
      "test.sdf:3: <world name='w'>/<physics name='p'>: not modelled by Tern; "
      "ignored (max_step_size 0.002)\n"
      "test.sdf:5: <model name='m'>/<self_collide>: not modelled by Tern; "
      "ignored (true)\n"
      "test.sdf:7: <link name='a'>/<gravity>: not modelled by Tern; ignored "
      "(false)\n"
      "test.sdf:8: <link name='a'>/<kinematic>: not modelled by Tern; ignored "
      "(true)\n"
      "test.sdf:9: <link name='a'>/<velocity_decay>: not modelled by Tern; "
      "ignored (linear 0.1)\n"
      "test.sdf:13: <collision name='c'>/<surface>/<bounce>: not modelled by "
      "Tern; ignored (restitution_coefficient 0.5)\n"
      "test.sdf:22: <joint name='j'>/<physics>: not modelled by Tern; ignored "
      "(ode/cfm 0.1)\n"
      "test.sdf:23: <model name='m'>/<gripper name='g'>: not modelled by "
      "Tern; ignored (gripper_link a, palm_link b)\n"
      "test.sdf:27: <world name='w'>/<actor name='act'>: not modelled by "
      "Tern; ignored (skin/filename x.dae)\n"
      "test.sdf:10: <wibble>: not an SDFormat element "
      "(/sdf/world[@name=\"w\"]/model[@name=\"m\"]/link[@name=\"a\"]/"
      "wibble); ignored\n");
  // One element kind repeated in a file is one warning listing the lines.
  const SdfModel boxes = Parse(R"(<sdf version="1.9"><model name="m">
  <link name="a"><collision name="c"><geometry><box><size>1 1 1</size></box>
    </geometry><surface><bounce><restitution_coefficient>0.5
    </restitution_coefficient></bounce></surface></collision></link>
  <link name="b"><collision name="c"><geometry><box><size>1 1 1</size></box>
    </geometry><surface><bounce><restitution_coefficient>0.2
    </restitution_coefficient></bounce></surface></collision></link>
</model></sdf>)");
  EXPECT_EQ(AllWarnings(boxes.warnings),
            "test.sdf:3: <collision name='c'>/<surface>/<bounce>: not "
            "modelled by Tern; ignored (restitution_coefficient 0.5); 1 more "
            "in this file (lines 6)\n");
}

// SdfParseOptions::strict makes each of those warnings an error naming the
// file, line and element; rendering-only elements stay warnings.
TEST_F(SdfParserTest, StrictModeRejectsWhatTernDoesNotModel) {
  SdfParseOptions strict;
  strict.strict = true;
  strict.check_mass_matrix = false;
  const auto error_of = [&strict](const std::string& xml) {
    try {
      ParseSdfString(xml, strict, "test.sdf");
    } catch (const SdfError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto model = [](const std::string& in_link) {
    return R"(<sdf version="1.9"><model name="m">
  <link name="a"><inertial><mass>1</mass></inertial>
    )" + in_link +
           R"(</link>
</model></sdf>)";
  };
  // The first in the file: libsdformat's report of <wibble> comes before
  // Tern's walk.
  EXPECT_EQ(error_of(kUnmodelledSdf),
            "test.sdf:10: <wibble>: not an SDFormat element "
            "(/sdf/world[@name=\"w\"]/model[@name=\"m\"]/link[@name=\"a\"]/"
            "wibble); ignored (SdfParseOptions::strict)");
  EXPECT_EQ(error_of(model("<gravity>false</gravity>")),
            "test.sdf:3: <link name='a'>/<gravity>: not modelled by Tern; "
            "ignored (false) (SdfParseOptions::strict)");
  EXPECT_EQ(error_of(model("<kinematic>true</kinematic>")),
            "test.sdf:3: <link name='a'>/<kinematic>: not modelled by Tern; "
            "ignored (true) (SdfParseOptions::strict)");
  EXPECT_EQ(error_of(model("<sensor name='imu' type='imu'/>")),
            "test.sdf:3: <link name='a'>/<sensor name='imu'>: not read (Tern's "
            "sensors are systems of their own) (SdfParseOptions::strict)");
  EXPECT_EQ(error_of(R"(<sdf version="1.9"><model name="m">
  <link name="a"><inertial><mass>1</mass></inertial></link>
  <link name="b"><inertial><mass>1</mass></inertial></link>
  <joint name="j" type="ball"><parent>a</parent><child>b</child>
    <axis><xyz>0 0 1</xyz><dynamics><damping>2</damping></dynamics></axis>
  </joint></model></sdf>)"),
            "test.sdf:5: <joint name='j'>/<axis>: not read on a ball joint; "
            "ignored (dynamics/damping 2) (SdfParseOptions::strict)");
  // Defaults and rendering are not errors.
  EXPECT_EQ(error_of(model("<gravity>true</gravity>")), "no error");
  EXPECT_EQ(error_of(model(R"(<visual name="v"><geometry><box><size>1 1 1
    </size></box></geometry><material><diffuse>1 0 0 1</diffuse>
    <ambient>1 0 0 1</ambient></material></visual>)")),
            "no error");
}

// A malformed file's error is one line naming the file and the line of the
// XML error (libsdformat's own says line 0, "Unable to read file").
TEST_F(SdfParserTest, MalformedFileNamesTheLine) {
  const fs::path dir = fs::temp_directory_path() /
                       fmt::format("tern_sdf_malformed_{}", getpid());
  fs::create_directories(dir);
  const std::string path = (dir / "bad.sdf").string();
  std::ofstream(path) << R"(<?xml version="1.0"?>
<sdf version="1.9">
  <model name="m">
    <link name="a">
  </model>
</sdf>
)";
  std::string what = "no error";
  try {
    ParseSdfFile(path);
  } catch (const SdfError& e) {
    what = e.what();
    EXPECT_EQ(e.line(), 4);  // where the unclosed <link> opens
  }
  fs::remove_all(dir);
  EXPECT_EQ(what, path +
                      ":4: XML: malformed XML: "
                      "Error=XML_ERROR_MISMATCHED_ELEMENT ErrorID=14 (0xe) "
                      "Line number=4: XMLElement name=link");
  EXPECT_EQ(what.find('\n'), std::string::npos);
}

// Nested models compose their poses: a link at (0 0 1) in model n, n at
// (0 1 0) in m, m at (1 0 0) turned a quarter about z in the world, is at
// (0, 0, 1) + Rz(pi/2) (0, 1, 0) + (1, 0, 0) = (0, 0, 1) in the world,
// turned a quarter about z; its body is "n::l".
TEST_F(SdfParserTest, NestedModelsComposePoses) {
  const SdfModel m = Parse(R"(<sdf version="1.9"><model name="m">
  <pose>1 0 0 0 0 1.5707963267948966</pose>
  <link name="base"><inertial><mass>1</mass></inertial></link>
  <model name="n"><pose>0 1 0 0 0 0</pose>
    <link name="l"><pose>0 0 1 0 0 0</pose><inertial><mass>2</mass>
    </inertial></link></model>
  <joint name="weld" type="fixed"><parent>base</parent><child>n::l</child>
  </joint>
</model></sdf>)");
  const RigidBodyTree<double>& t = m.tree;
  ASSERT_TRUE(t.HasBody("n::l"));
  KinematicsCache<double> cache(t);
  ForwardKinematics(t, &cache, m.q0);
  const int l = t.FindBodyIndex("n::l");
  EXPECT_LT((cache.X_WB[l].p - Vector3<double>(0, 0, 1)).norm(), 1e-15);
  const Matrix3<double> Rz =
      AxisAngleToRotationMatrix<double>(Vector3<double>::UnitZ(), M_PI / 2);
  EXPECT_LT((cache.X_WB[l].R - Rz).norm(), 1e-15);
  EXPECT_LT(
      (cache.X_WB[t.FindBodyIndex("base")].p - Vector3<double>(1, 0, 0)).norm(),
      1e-15);
  EXPECT_EQ(t.total_mass(), 3);
}

// Ball, prismatic and fixed joints: their types and sizes, the prismatic's
// axis, limits, damping and friction (and a revolute's friction), and
// capsule and cylinder collisions with their radius and length.
TEST_F(SdfParserTest, JointTypesLimitsFrictionAndShapeSizes) {
  const SdfModel m = Parse(R"(<sdf version="1.9"><model name="m">
  <link name="a"><inertial><mass>1</mass></inertial>
    <collision name="cap"><geometry><capsule><radius>0.05</radius>
      <length>0.3</length></capsule></geometry></collision></link>
  <link name="b"><pose>0 0 -1 0 0 0</pose><inertial><mass>1</mass></inertial>
    <collision name="cyl"><geometry><cylinder><radius>0.2</radius>
      <length>0.7</length></cylinder></geometry></collision></link>
  <link name="c"><inertial><mass>1</mass></inertial></link>
  <link name="d"><inertial><mass>1</mass></inertial></link>
  <joint name="ball" type="ball"><parent>world</parent><child>a</child></joint>
  <joint name="slide" type="prismatic"><parent>a</parent><child>b</child>
    <axis><xyz>0 3 4</xyz><limit><lower>-0.25</lower><upper>0.5</upper>
      <effort>40</effort><velocity>2</velocity></limit>
      <dynamics><damping>1.5</damping><friction>0.75</friction></dynamics>
    </axis></joint>
  <joint name="fix" type="fixed"><parent>b</parent><child>c</child></joint>
  <joint name="hinge" type="revolute"><parent>c</parent><child>d</child>
    <axis><xyz>1 0 0</xyz><dynamics><friction>0.125</friction></dynamics>
    </axis></joint>
</model></sdf>)");
  const RigidBodyTree<double>& t = m.tree;
  const auto joint = [&t](const char* body) -> const Joint<double>& {
    return t.body(t.FindBodyIndex(body)).joint;
  };
  EXPECT_EQ(joint("a").type, JointType::kBall);
  EXPECT_EQ(joint("b").type, JointType::kPrismatic);
  EXPECT_EQ(joint("c").type, JointType::kFixed);
  EXPECT_EQ(joint("d").type, JointType::kRevolute);
  EXPECT_EQ(t.num_positions(), 4 + 1 + 1);
  EXPECT_EQ(t.num_velocities(), 3 + 1 + 1);
  const Joint<double>& slide = joint("b");
  EXPECT_LT((slide.axis - Vector3<double>(0, 0.6, 0.8)).norm(), 1e-15);
  EXPECT_EQ(slide.position_lower, -0.25);
  EXPECT_EQ(slide.position_upper, 0.5);
  EXPECT_EQ(slide.effort_limit, 40);
  EXPECT_EQ(slide.velocity_limit, 2);
  EXPECT_EQ(slide.damping, 1.5);
  EXPECT_EQ(slide.friction, 0.75);
  EXPECT_EQ(joint("d").friction, 0.125);
  // The ball's q0 is the identity quaternion.
  const int qa = t.body(t.FindBodyIndex("a")).position_start;
  EXPECT_EQ(m.q0.segment<4>(qa), Vector4<double>(1, 0, 0, 0));
  const BodyGeometry& cap = t.body(t.FindBodyIndex("a")).collisions.at(0);
  EXPECT_EQ(cap.shape, BodyGeometry::Shape::kCapsule);
  EXPECT_EQ(cap.radius, 0.05);
  EXPECT_EQ(cap.length, 0.3);
  const BodyGeometry& cyl = t.body(t.FindBodyIndex("b")).collisions.at(0);
  EXPECT_EQ(cyl.shape, BodyGeometry::Shape::kCylinder);
  EXPECT_EQ(cyl.radius, 0.2);
  EXPECT_EQ(cyl.length, 0.7);
  EXPECT_TRUE(m.warnings.empty()) << AllWarnings(m.warnings);
}

}  // namespace
}  // namespace tern
