// SDFormat through libsdformat: the dart-doc Atlas against the same robot's
// URDF (poses to 1e-12; H and C to the digits the .sdf was written with);
// poses with relative_to, worlds with several models, joints, warnings and
// errors. (DART 6.12's SdfParser, the other possible oracle, frees memory it
// did not allocate under AddressSanitizer when reading this file, so it is
// not used.)
#include "tern/multibody/parsing/sdf_parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

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

}  // namespace
}  // namespace tern
