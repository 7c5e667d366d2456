// MJCF parser: defaults, frames, joint chains, inertia from geoms, what is
// kept beside the tree, warnings and errors. The comparison with MuJoCo
// itself on the sample models is mjcf_mujoco_test.cc.
#include "tern/multibody/parsing/mjcf_parser.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

constexpr double kPi = std::numbers::pi;
namespace fs = std::filesystem;

MjcfModel Parse(const std::string& xml, MjcfParseOptions options = {}) {
  return ParseMjcfString(xml, options, "test.xml");
}

MjcfParseOptions NoMassCheck() {
  MjcfParseOptions o;
  o.check_mass_matrix = false;
  return o;
}

MjcfParseOptions Strict() {
  MjcfParseOptions o;
  o.strict = true;
  return o;
}

bool HasWarning(const MjcfModel& m, const std::string& text) {
  for (const ModelWarning& w : m.warnings) {
    if (w.ToString().find(text) != std::string::npos) return true;
  }
  return false;
}

std::string ErrorOf(const std::string& xml, MjcfParseOptions options = {}) {
  try {
    Parse(xml, options);
  } catch (const MjcfError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MjcfParserTest, DefaultClassesInheritAndChildclassApplies) {
  const MjcfModel m = Parse(R"(<mujoco>
  <default>
    <joint damping="1" armature="0.5"/>
    <default class="a">
      <joint damping="2"/>
      <default class="b"><joint frictionloss="3"/></default>
    </default>
  </default>
  <worldbody>
    <body name="b1" childclass="b">
      <joint name="j1" axis="0 0 1"/>
      <geom size="0.1"/>
      <body name="b2">
        <joint name="j2" class="a"/>
        <geom size="0.1"/>
      </body>
    </body>
    <body name="b3"><joint name="j3"/><geom size="0.1"/></body>
  </worldbody>
</mujoco>)");
  const auto& t = m.tree;
  const Joint<double>& j1 = t.body(t.FindJointBodyIndex("j1")).joint;
  EXPECT_EQ(j1.damping, 2);  // b inherits a
  EXPECT_EQ(j1.friction, 3);
  EXPECT_EQ(j1.armature, 0.5);  // from main
  const Joint<double>& j2 = t.body(t.FindJointBodyIndex("j2")).joint;
  EXPECT_EQ(j2.damping, 2);
  EXPECT_EQ(j2.friction, 0);  // class a overrides the inherited childclass b
  EXPECT_EQ(t.body(t.FindJointBodyIndex("j3")).joint.damping, 1);
}

TEST(MjcfParserTest, OrientationSpellingsAgree) {
  // The same rotation: 90 degrees about z, written five ways.
  const MjcfModel m = Parse(R"(<mujoco>
  <worldbody>
    <body name="q" quat="0.7071067811865476 0 0 0.7071067811865476"/>
    <body name="aa" axisangle="0 0 1 90"/>
    <body name="eu" euler="0 0 90"/>
    <body name="xy" xyaxes="0 1 0 -1 0 0"/>
    <body name="rad" axisangle="0 0 2 1.5707963267948966" pos="1 2 3"/>
  </worldbody>
  <compiler angle="degree"/>
</mujoco>)",
                            NoMassCheck());
  const Matrix3<double> R =
      AxisAngleToRotationMatrix<double>(Vector3<double>::UnitZ(), kPi / 2);
  for (const char* b : {"q", "aa", "eu", "xy"}) {
    EXPECT_LT((m.tree.body(m.tree.FindBodyIndex(b)).joint.X_PJ.R - R).norm(),
              1e-15)
        << b;
  }
  // In degrees, 1.57 is not a right angle.
  const RigidTransform<double>& X =
      m.tree.body(m.tree.FindBodyIndex("rad")).joint.X_PJ;
  EXPECT_GT((X.R - R).norm(), 1e-3);
  EXPECT_EQ(X.p, Vector3<double>(1, 2, 3));
}

TEST(MjcfParserTest, ZaxisIsTheMinimalRotation) {
  const MjcfModel m = Parse(R"(<mujoco><worldbody>
    <body name="b" zaxis="1 0 0"/></worldbody></mujoco>)");
  const Matrix3<double>& R = m.tree.body(1).joint.X_PJ.R;
  EXPECT_LT((R.col(2) - Vector3<double>::UnitX()).norm(), 1e-15);
  EXPECT_LT((R.col(1) - Vector3<double>::UnitY()).norm(), 1e-15);
}

// Two hinges at different anchors: the body pose is the composition of
// rotations about each anchor, in the body frame (MuJoCo's rule).
TEST(MjcfParserTest, JointsWithAnchorsComposeAboutTheAnchors) {
  const MjcfModel m = Parse(R"(<mujoco><compiler angle="radian"/>
  <worldbody>
    <body name="b" pos="0 0 1">
      <joint name="ja" pos="0.1 0 0" axis="0 0 1"/>
      <joint name="jb" pos="0 0.2 0" axis="1 0 0"/>
      <geom size="0.05"/>
    </body>
  </worldbody></mujoco>)");
  const auto& t = m.tree;
  ASSERT_EQ(t.num_positions(), 2);
  EXPECT_TRUE(t.HasBody("b.ja"));  // the chain's massless body
  EXPECT_TRUE(t.HasBody("b.jb"));  // the last joint is off the origin
  KinematicsCache<double> cache(t);
  VectorX<double> q(2);
  q << 0.3, -0.7;
  ForwardKinematics(t, &cache, q);
  auto about = [](const Vector3<double>& p, const Vector3<double>& axis,
                  double angle) {
    return RigidTransform<double>(Matrix3<double>::Identity(), p) *
           RigidTransform<double>(AxisAngleToRotationMatrix(axis, angle),
                                  Vector3<double>::Zero()) *
           RigidTransform<double>(Matrix3<double>::Identity(), -p);
  };
  const RigidTransform<double> expected =
      RigidTransform<double>(Matrix3<double>::Identity(),
                             Vector3<double>(0, 0, 1)) *
      about({0.1, 0, 0}, Vector3<double>::UnitZ(), 0.3) *
      about({0, 0.2, 0}, Vector3<double>::UnitX(), -0.7);
  const RigidTransform<double>& X = cache.X_WB[t.FindBodyIndex("b")];
  EXPECT_LT((X.p - expected.p).norm(), 1e-15);
  EXPECT_LT((X.R - expected.R).norm(), 1e-15);
}

TEST(MjcfParserTest, RefMakesTheWrittenPoseSitAtQEqualsRef) {
  const MjcfModel m = Parse(R"(<mujoco><worldbody>
    <body name="b" pos="0 0 1">
      <joint name="s" type="slide" axis="1 0 0" ref="0.25"/>
      <joint name="h" axis="0 0 1" ref="30"/>
      <geom size="0.1"/>
    </body></worldbody></mujoco>)");
  KinematicsCache<double> cache(m.tree);
  VectorX<double> q(2);
  q << 0.25, kPi / 6;
  ForwardKinematics(m.tree, &cache, q);
  const RigidTransform<double>& X = cache.X_WB[m.tree.FindBodyIndex("b")];
  EXPECT_LT((X.p - Vector3<double>(0, 0, 1)).norm(), 1e-15);
  EXPECT_LT((X.R - Matrix3<double>::Identity()).norm(), 1e-15);
  EXPECT_LT((m.qpos0 - q).norm(), 1e-15);
}

TEST(MjcfParserTest, GlobalCoordinatesEqualLocal) {
  const std::string local = R"(<mujoco><compiler angle="radian"/><worldbody>
    <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0" pos="0 0 0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="b" pos="0.3 0 0"><joint name="jb" axis="0 1 0"/>
        <geom type="box" size="0.1 0.05 0.02" pos="0.1 0 0"/></body>
    </body></worldbody></mujoco>)";
  const std::string global =
      R"(<mujoco><compiler angle="radian" coordinate="global"/><worldbody>
    <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0" pos="0 0 1.1"/>
      <geom type="capsule" fromto="0 0 1 0.3 0 1" size="0.05"/>
      <body name="b" pos="0.3 0 1"><joint name="jb" axis="0 1 0" pos="0.3 0 1"/>
        <geom type="box" size="0.1 0.05 0.02" pos="0.4 0 1"/></body>
    </body></worldbody></mujoco>)";
  const MjcfModel l = Parse(local), g = Parse(global);
  ASSERT_EQ(l.tree.num_bodies(), g.tree.num_bodies());
  KinematicsCache<double> cl(l.tree), cg(g.tree);
  VectorX<double> q(2);
  q << 0.4, -1.1;
  ForwardKinematics(l.tree, &cl, q);
  ForwardKinematics(g.tree, &cg, q);
  for (int b = 1; b < l.tree.num_bodies(); ++b) {
    EXPECT_LT((cl.X_WB[b].p - cg.X_WB[b].p).norm(), 1e-15);
    EXPECT_LT((cl.X_WB[b].R - cg.X_WB[b].R).norm(), 1e-15);
    EXPECT_NEAR(l.tree.body(b).inertia.m, g.tree.body(b).inertia.m, 1e-15);
  }
}

TEST(MjcfParserTest, InertiaFromGeomsUsesClosedForms) {
  const double r = 0.1, hl = 0.2;
  const MjcfModel m = Parse(R"(<mujoco><worldbody>
    <body name="s"><freejoint/><geom type="sphere" size="0.1"/></body>
    <body name="c"><freejoint/><geom type="capsule" fromto="0 0 0 0 0 0.4" size="0.1"/></body>
    <body name="m"><freejoint/><geom type="box" size="0.1 0.2 0.3" mass="2"/></body>
    <body name="i"><freejoint/><geom size="0.1"/>
      <inertial pos="0 0 0.5" mass="3" diaginertia="1 2 3"/></body>
  </worldbody></mujoco>)");
  const auto& t = m.tree;
  const double ms = 1000 * 4.0 / 3 * kPi * r * r * r;
  const double mc = 1000 * kPi * r * r * 2 * hl;
  EXPECT_NEAR(t.body(t.FindBodyIndex("s")).inertia.m, ms, 1e-12);
  const SpatialInertia<double>& Mc = t.body(t.FindBodyIndex("c")).inertia;
  EXPECT_NEAR(Mc.m, ms + mc, 1e-12);
  EXPECT_LT((Mc.h / Mc.m - Vector3<double>(0, 0, hl)).norm(), 1e-15);
  const SpatialInertia<double>& Mb = t.body(t.FindBodyIndex("m")).inertia;
  EXPECT_EQ(Mb.m, 2);
  EXPECT_NEAR(Mb.I(0, 0), 2 * (0.04 + 0.09) / 3, 1e-15);
  const SpatialInertia<double>& Mi = t.body(t.FindBodyIndex("i")).inertia;
  EXPECT_EQ(Mi.m, 3);  // <inertial> wins over the geoms (auto)
  EXPECT_NEAR(Mi.I(0, 0), 1 + 3 * 0.25, 1e-15);
}

TEST(MjcfParserTest, KeepsWhatTheTreeCannotHold) {
  const MjcfModel m = Parse(R"(<mujoco>
  <option timestep="0.005" gravity="0 0 -3"/>
  <worldbody>
    <body name="a"><joint name="ja"/><geom size="0.1"/><site name="imu"/>
      <body name="b" pos="1 0 0"><joint name="jb" stiffness="4"/>
        <geom size="0.1"/></body></body>
  </worldbody>
  <contact><exclude body1="a" body2="b"/></contact>
  <equality><connect body1="b" anchor="0.1 0 0"/></equality>
  <actuator>
    <motor name="m" joint="ja" gear="40" ctrlrange="-1 1" ctrllimited="true"/>
    <position name="p" joint="jb" kp="10"/>
    <velocity joint="jb"/>
  </actuator>
  <sensor><jointpos joint="ja"/><gyro site="imu"/><touch site="imu"/></sensor>
  <tendon/>
</mujoco>)");
  EXPECT_EQ(m.timestep, 0.005);
  EXPECT_TRUE(m.has_timestep);
  // Without <option timestep>, MuJoCo's default and no flag.
  const MjcfModel d = Parse(R"(<mujoco><option gravity="0 0 -1"/>
    <worldbody/></mujoco>)");
  EXPECT_EQ(d.timestep, 0.002);
  EXPECT_FALSE(d.has_timestep);
  EXPECT_EQ(m.tree.gravity(), Vector3<double>(0, 0, -3));
  ASSERT_EQ(m.actuators.size(), 2u);
  EXPECT_EQ(m.actuators[0].gear, 40);
  EXPECT_TRUE(m.actuators[0].ctrl_limited);
  EXPECT_EQ(m.actuators[1].kind, MjcfActuator::Kind::kPosition);
  EXPECT_EQ(m.actuators[1].kp, 10);
  ASSERT_EQ(m.sensors.size(), 2u);
  EXPECT_EQ(m.sensors[1].target, "imu");
  ASSERT_EQ(m.contact_excludes.size(), 1u);
  ASSERT_EQ(m.equalities.size(), 1u);
  EXPECT_EQ(m.equalities[0].body2, "world");
  ASSERT_EQ(m.springs.size(), 1u);
  EXPECT_EQ(m.springs[0].stiffness, 4);
  EXPECT_TRUE(HasWarning(m, "test.xml:13: <velocity>"));
  EXPECT_TRUE(HasWarning(m, "<touch>: sensor <touch>"));
  EXPECT_TRUE(HasWarning(m, "<tendon> is not modelled"));
  // Springs and equalities are applied (plant/mjcf_elements.h): no warning.
  EXPECT_FALSE(HasWarning(m, "stiffness"));
  EXPECT_FALSE(HasWarning(m, "<connect>"));
}

// A plane geom is a static half-space and an ellipsoid a convex shape: a
// ball dropped on an MJCF plane rests at its radius, an ellipsoid on its
// shortest semi-axis (closed forms; the time-stepping plant's rigid
// contact). A plane on a moving body is left out with a warning.
TEST(MjcfParserTest, PlaneAndEllipsoidCollide) {
  const MjcfModel m = Parse(R"(<mujoco><worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="ball" pos="0 0 0.15"><freejoint/><geom size="0.1"/></body>
    <body name="egg" pos="1 0 0.15"><freejoint/>
      <geom type="ellipsoid" size="0.1 0.2 0.05"/></body>
    <body name="b" pos="3 0 1"><geom type="plane"/><geom size="0.1"/>
      <joint type="slide" axis="1 0 0"/></body>
  </worldbody></mujoco>)");
  ASSERT_EQ(m.tree.body(0).collisions.size(), 1u);
  EXPECT_EQ(m.tree.body(0).collisions[0].shape, BodyGeometry::Shape::kPlane);
  const BodyGeometry& egg =
      m.tree.body(m.tree.FindBodyIndex("egg")).collisions.at(0);
  EXPECT_EQ(egg.shape, BodyGeometry::Shape::kEllipsoid);
  EXPECT_EQ(egg.radii, Vector3<double>(0.1, 0.2, 0.05));
  EXPECT_TRUE(HasWarning(m, "plane geom on body 'b' left out"));
  const GeometryModel geometry = GeometryModel::FromTree(m.tree);
  TimeSteppingRigidBodySystem plant(m.tree, geometry, 1e-3);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(
      &sim.get_mutable_context(), m.qpos0,
      VectorX<double>::Zero(m.tree.num_velocities()));
  sim.AdvanceTo(1.0);
  const VectorX<double>& x = plant.GetState(sim.get_context());
  ASSERT_TRUE(x.allFinite());
  const int ball = m.tree.body(m.tree.FindBodyIndex("ball")).position_start;
  const int e = m.tree.body(m.tree.FindBodyIndex("egg")).position_start;
  EXPECT_NEAR(x(ball + 2), 0.1, 1e-4);
  EXPECT_NEAR(x(e + 2), 0.05, 1e-4);
  EXPECT_NEAR(x(e + 3), 1, 1e-6);  // still level: qw = 1
  EXPECT_LT(x.tail(m.tree.num_velocities()).norm(), 1e-3);
}

// <option> physics Tern does not model (density, viscosity, wind, the
// integrator, the cone) and <flag>s off their defaults are named in a
// warning, errors in strict mode; values at MuJoCo's defaults say nothing;
// <flag gravity="disable"> is honoured (zero gravity).
TEST(MjcfParserTest, OptionsAndFlagsTernDoesNotModelAreNamed) {
  const std::string xml = R"(<mujoco>
  <option timestep="0.01" gravity="0 0 -3" density="1.2" viscosity="0"
          integrator="RK4" wind="0 0 0">
    <flag gravity="disable" contact="disable" warmstart="enable"/>
  </option>
  <worldbody><body name="b"><freejoint/><geom size="0.1"/></body></worldbody>
</mujoco>)";
  const MjcfModel m = Parse(xml);
  EXPECT_EQ(m.gravity, Vector3<double>::Zero());
  EXPECT_EQ(m.tree.gravity(), Vector3<double>::Zero());
  EXPECT_EQ(m.timestep, 0.01);
  std::string all;
  for (const ModelWarning& w : m.warnings) all += w.ToString() + "\n";
  EXPECT_EQ(all,
            "test.xml:2: <option>: option density=\"1.2\" is not modelled by "
            "Tern (MuJoCo's default 0); ignored\n"
            "test.xml:2: <option>: option integrator=\"RK4\" is not Tern's "
            "choice (the plant's integrator and contact model apply); "
            "ignored\n"
            "test.xml:4: <flag>: flag contact=\"disable\" is not modelled by "
            "Tern; ignored\n");
  EXPECT_EQ(ErrorOf(xml, Strict()),
            "test.xml:2: <option>: option density=\"1.2\" is not modelled by "
            "Tern (MuJoCo's default 0); ignored (MjcfParseOptions::strict)");
  EXPECT_TRUE(Parse("<mujoco><option><flag gravity='enable'/></option>"
                    "<worldbody/></mujoco>")
                  .warnings.empty());
  EXPECT_EQ(Parse("<mujoco><option><flag gravity='enable'/></option>"
                  "<worldbody/></mujoco>")
                .gravity,
            Vector3<double>(0, 0, -9.81));
}

// The same on files the project did not write (libmujoco-samples, where
// Debian installs them): the humanoid's <option timestep jacobian> gives its
// timestep and no warning (jacobian is a solver setting); humanoid100's
// solver, iterations and tolerance are solver settings too; active
// adhesion's viscosity="1" is named with its line, and refused when strict.
TEST(MjcfParserTest, OptionsOfMujocosSampleModels) {
  const std::string dir = "/usr/share/mujoco/model/";
  if (!fs::exists(dir + "humanoid/humanoid.xml")) {
    FAIL() << dir << " is missing: install libmujoco-samples "
           << "(scripts/install-deps test)";
  }
  auto option_warnings = [](const MjcfModel& m) {
    std::string out;
    for (const ModelWarning& w : m.warnings) {
      if (w.ToString().find("<option>") != std::string::npos ||
          w.ToString().find("<flag>") != std::string::npos) {
        out += w.ToString() + "\n";
      }
    }
    return out;
  };
  const MjcfModel humanoid =
      ParseMjcfFile(dir + "humanoid/humanoid.xml", NoMassCheck());
  EXPECT_EQ(humanoid.timestep, 0.005);
  EXPECT_EQ(option_warnings(humanoid), "");
  const MjcfModel hundred =
      ParseMjcfFile(dir + "humanoid100/humanoid100.xml", NoMassCheck());
  EXPECT_EQ(hundred.timestep, 0.005);
  EXPECT_EQ(option_warnings(hundred), "");
  const std::string adhesion = dir + "adhesion/active_adhesion.xml";
  EXPECT_EQ(option_warnings(ParseMjcfFile(adhesion, NoMassCheck())),
            adhesion +
                ":5: <option>: option viscosity=\"1\" is not modelled by "
                "Tern (MuJoCo's default 0); ignored\n");
  MjcfParseOptions strict = NoMassCheck();
  strict.strict = true;
  try {
    ParseMjcfFile(adhesion, strict);
    ADD_FAILURE() << "strict mode took active_adhesion.xml's viscosity";
  } catch (const MjcfError& e) {
    EXPECT_EQ(std::string(e.what()),
              adhesion +
                  ":5: <option>: option viscosity=\"1\" is not modelled by "
                  "Tern (MuJoCo's default 0); ignored "
                  "(MjcfParseOptions::strict)");
  }
}

TEST(MjcfParserTest, StrictModeRejectsWhatTernDoesNotModel) {
  const std::string xml = "<mujoco><worldbody/>\n<tendon/></mujoco>";
  EXPECT_NO_THROW(Parse(xml));
  EXPECT_NE(ErrorOf(xml, Strict()).find("test.xml:2: <tendon>:"),
            std::string::npos);
}

TEST(MjcfParserTest, ErrorsNameFileLineAndElement) {
  EXPECT_NE(
      ErrorOf("<mujoco>\n<worldbody>\n</mujoco>").find("XML: malformed XML"),
      std::string::npos);
  EXPECT_NE(ErrorOf("<robot/>").find("root element must be <mujoco>"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<mujoco><worldbody>\n<body><joint name='j' "
                    "type='spring'/></body></worldbody></mujoco>")
                .find("test.xml:2: <joint name='j'>: unknown joint type "
                      "'spring'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<mujoco><worldbody><body><body>\n<freejoint/>"
                    "</body></body></worldbody></mujoco>")
                .find("test.xml:2: <freejoint>: a free joint is allowed only"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<mujoco><worldbody>\n<geom class='nope' size='1'/>"
                    "</worldbody></mujoco>")
                .find("test.xml:2: <geom>: unknown default class 'nope'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<mujoco><asset>\n<mesh name='m' file='missing.stl'/>"
                    "</asset><worldbody><geom type='mesh' mesh='m'/>"
                    "</worldbody></mujoco>")
                .find("test.xml:2: <mesh name='m'>: mesh 'm'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<mujoco><worldbody>\n<geom size='a b'/></worldbody>"
                    "</mujoco>")
                .find("attribute 'size' has a bad number 'a'"),
            std::string::npos);
  // Integer attributes (found by fuzz_mjcf: 1e90 was cast to int, undefined
  // behaviour): a whole number in int's range, named.
  for (const char* geom : {"<geom size='0.1' contype='1e90'/>",
                           "<geom size='0.1' conaffinity='-1e90'/>",
                           "<geom size='0.1' group='1.5'/>"}) {
    const std::string what = ErrorOf(std::string("<mujoco><worldbody>\n") +
                                     geom + "</worldbody></mujoco>");
    EXPECT_NE(what.find("test.xml:2: <geom>: attribute '"), std::string::npos)
        << what;
    EXPECT_NE(what.find("' must be an integer"), std::string::npos) << what;
  }
  EXPECT_NE(ErrorOf("<mujoco><compiler inertiagrouprange='0 1e90'/>"
                    "<worldbody/></mujoco>")
                .find("attribute 'inertiagrouprange' must be an integer"),
            std::string::npos);
  // A massless leaf on a hinge makes H singular.
  EXPECT_NE(ErrorOf("<mujoco><worldbody><body><joint name='j'/></body>"
                    "</worldbody></mujoco>")
                .find("'j'"),
            std::string::npos);
}

TEST(MjcfParserTest, IncludedFilesAreReadWithTheirNames) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tern_mjcf_include";
  fs::create_directories(dir);
  std::ofstream(dir / "part.xml")
      << "<mujocoinclude>\n<body name='p'><joint name='j' type='bogus'/>"
         "</body></mujocoinclude>";
  std::ofstream(dir / "main.xml")
      << "<mujoco><worldbody><include file='part.xml'/></worldbody></mujoco>";
  try {
    ParseMjcfFile((dir / "main.xml").string());
    ADD_FAILURE() << "no error";
  } catch (const MjcfError& e) {
    EXPECT_EQ(e.file(), (dir / "part.xml").string());
    EXPECT_EQ(e.line(), 2);
  }
  fs::remove_all(dir);
}

// Only regular files are read, as models and as <include>s (fuzzing: an
// <include file="/dev/zero"/> read until memory ran out); the error names
// the including element's file and line and the file.
TEST(MjcfParserTest, IncludeAndModelMustBeRegularFiles) {
  const std::string err =
      ErrorOf("<mujoco>\n<worldbody/><include file='/dev/zero'/></mujoco>");
  EXPECT_EQ(err.rfind("test.xml:2: <include", 0), 0u) << err;
  EXPECT_NE(err.find("included file '/dev/zero': not a regular file"),
            std::string::npos)
      << err;
  EXPECT_NE(ErrorOf("<mujoco><include file='/'/></mujoco>")
                .find("'/': not a regular file"),
            std::string::npos);
  try {
    ParseMjcfFile("/dev/zero");
    ADD_FAILURE() << "no error";
  } catch (const MjcfError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero:0: file: not a regular"),
              std::string::npos)
        << e.what();
  }
}

// ResolveMjcfEqualities: frames in qpos0 (a weld without relpose keeps the
// relative pose there; its anchor is G's origin in body2), inactive ones
// left out, and a body the tree lacks (an equality edited after parsing)
// named with the equality and its line.
TEST(MjcfParserTest, EqualitiesResolveInQpos0) {
  MjcfModel m = ParseMjcfString(R"(<mujoco><worldbody>
    <body name="a" pos="0 0 1" euler="0 0 90"><freejoint/><geom size="0.1"/></body>
    <body name="b" pos="1 0 1"><freejoint/><geom size="0.1"/></body>
  </worldbody>
  <equality>
    <weld name="w" body1="a" body2="b" anchor="0 0 0.5"/>
    <connect body1="a" body2="b" anchor="1 0 0" active="false"/>
  </equality>
</mujoco>)");
  const std::vector<EqualityConstraintSpec> e = ResolveMjcfEqualities(m);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].type, EqualityConstraintSpec::Type::kWeld);
  EXPECT_EQ(e[0].X_2G.p, Vector3<double>(0, 0, 0.5));
  // F in a is G's pose: b's origin is 1 m along a's -y (a is yawed 90 deg),
  // the anchor 0.5 m up.
  EXPECT_TRUE(e[0].X_1F.p.isApprox(Vector3<double>(0, -1, 0.5), 1e-15))
      << e[0].X_1F.p.transpose();
  m.equalities[0].body2 = "gone";
  try {
    ResolveMjcfEqualities(m);
    FAIL();
  } catch (const MjcfError& x) {
    EXPECT_STREQ(x.what(),
                 "<mjcf>:6: equality 'w': body 'gone' does not exist");
  }
}

// An ASCII STL of the box [x0, x0 + a] x [0, a] x [0, a] (12 triangles,
// counter-clockwise seen from outside).
std::string StlBox(double x0, double a) {
  const double lo[3] = {x0, 0, 0};
  auto v = [&](int i, int j, int k) {
    return fmt::format("vertex {} {} {}\n", lo[0] + i * a, lo[1] + j * a,
                       lo[2] + k * a);
  };
  // Each face as two triangles of corner bits (i, j, k).
  const int faces[6][4][3] = {
      {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}},   // z = 0, normal -z
      {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}},   // z = a, +z
      {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}},   // y = 0, -y
      {{0, 1, 0}, {0, 1, 1}, {1, 1, 1}, {1, 1, 0}},   // y = a, +y
      {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}},   // x = 0, -x
      {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}, {1, 0, 1}}};  // x = a, +x
  constexpr int kTriangles[2][3] = {{0, 1, 2}, {0, 2, 3}};
  std::string stl = "solid box\n";
  for (const auto& f : faces) {
    for (const auto& t : kTriangles) {
      stl += "facet normal 0 0 0\nouter loop\n";
      for (int c = 0; c < 3; ++c) {
        stl += v(f[t[c]][0], f[t[c]][1], f[t[c]][2]);
      }
      stl += "endloop\nendfacet\n";
    }
  }
  return stl + "endsolid box\n";
}

// An STL cube of side 2 read through <compiler meshdir>: its mass is
// density * 8, its inertia about its centroid m a^2 / 6 on the diagonal
// (the mesh off its origin: the centroid, not the mesh origin, is the
// com), and its collision shape is the hull of its 8 corners. The body's
// euler angles follow eulerseq="zyx" (intrinsic z, then y, then x).
TEST(MjcfParserTest, StlMeshThroughMeshdirHasTheCubesMassAndHull) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("tern_mjcf_stl_{}", getpid());
  fs::create_directories(dir / "meshes");
  std::ofstream(dir / "meshes" / "cube.stl") << StlBox(3, 2);
  const std::string xml = R"(<mujoco>
  <compiler meshdir="meshes" eulerseq="zyx" angle="radian"/>
  <asset><mesh name="cube" file="cube.stl"/></asset>
  <worldbody>
    <body name="b" pos="0 0 1" euler="0.3 0.2 0.1"><freejoint/>
      <geom type="mesh" mesh="cube" density="500"/></body>
  </worldbody></mujoco>)";
  std::ofstream(dir / "model.xml") << xml;
  const MjcfModel m = ParseMjcfFile((dir / "model.xml").string());
  fs::remove_all(dir);
  const RigidBodyTree<double>& t = m.tree;
  const SpatialInertia<double>& M = t.body(t.FindBodyIndex("b")).inertia;
  const double a = 2, mass = 500 * a * a * a;
  EXPECT_NEAR(M.m, mass, 1e-9);
  const Vector3<double> c = M.h / M.m;
  EXPECT_LT((c - Vector3<double>(4, 1, 1)).norm(), 1e-12);
  const Matrix3<double> I_c =
      M.I -
      M.m * (c.squaredNorm() * Matrix3<double>::Identity() - c * c.transpose());
  EXPECT_LT((I_c - mass * a * a / 6 * Matrix3<double>::Identity()).norm(),
            1e-8 * mass);
  // eulerseq zyx: R = Rz(0.3) Ry(0.2) Rx(0.1), the body's pose in qpos0.
  const Matrix3<double> R = (Eigen::AngleAxisd(0.3, Vector3<double>::UnitZ()) *
                             Eigen::AngleAxisd(0.2, Vector3<double>::UnitY()) *
                             Eigen::AngleAxisd(0.1, Vector3<double>::UnitX()))
                                .toRotationMatrix();
  KinematicsCache<double> cache(t);
  ForwardKinematics(t, &cache, m.qpos0);
  const int b = t.FindBodyIndex("b");
  EXPECT_LT((cache.X_WB[b].R - R).norm(), 1e-15);
  EXPECT_EQ(cache.X_WB[b].p, Vector3<double>(0, 0, 1));
  // The collision shape: the hull of the 8 corners, in the mesh's frame.
  const GeometryModel geometry = GeometryModel::FromTree(t);
  ASSERT_EQ(geometry.num_geometries(), 1);
  const Shape& hull = geometry.geometry(0).shape;
  ASSERT_EQ(hull.kind, ShapeKind::kConvex);
  ASSERT_EQ(hull.convex->vertices.size(), 8u);
  Vector3<double> lo = hull.convex->vertices[0], hi = lo;
  for (const Vector3<double>& p : hull.convex->vertices) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  EXPECT_EQ(lo, Vector3<double>(3, 0, 0));
  EXPECT_EQ(hi, Vector3<double>(5, 2, 2));
}

// <inertial> on a mesh body is MuJoCo's: a given mass scales the mesh's
// inertia (mass = 6 for the same cube: I_c = 6 a^2 / 6).
TEST(MjcfParserTest, MeshGeomMassAttributeScalesItsInertia) {
  const fs::path dir = fs::temp_directory_path() /
                       fmt::format("tern_mjcf_stl_mass_{}", getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "cube.stl") << StlBox(-1, 2);
  const MjcfModel m = ParseMjcfString(R"(<mujoco>
  <asset><mesh name="cube" file="cube.stl"/></asset>
  <worldbody><body name="b"><freejoint/>
    <geom type="mesh" mesh="cube" mass="6"/></body></worldbody></mujoco>)",
                                      {}, "test.xml", dir.string());
  fs::remove_all(dir);
  const SpatialInertia<double>& M =
      m.tree.body(m.tree.FindBodyIndex("b")).inertia;
  EXPECT_EQ(M.m, 6);
  const Vector3<double> c = M.h / M.m;
  EXPECT_LT((c - Vector3<double>(0, 1, 1)).norm(), 1e-12);
  const Matrix3<double> I_c =
      M.I -
      M.m * (c.squaredNorm() * Matrix3<double>::Identity() - c * c.transpose());
  EXPECT_LT((I_c - 4.0 * Matrix3<double>::Identity()).norm(), 1e-12);
  // mass= given: no warning about MuJoCo's default mesh inertia.
  EXPECT_TRUE(m.warnings.empty());
}

}  // namespace
}  // namespace tern
