#include "tern/multibody/parsing/urdf_parser.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tern {
namespace {

namespace fs = std::filesystem;

// Inertial block of a 1 kg body with unit inertia.
constexpr const char* kInertial = R"(
    <inertial><mass value="1"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/>
    </inertial>)";

std::string Link(const std::string& name, const std::string& extra = "") {
  return "  <link name=\"" + name + "\">" + kInertial + extra + "</link>\n";
}

std::string Joint(const std::string& name, const std::string& type,
                  const std::string& parent, const std::string& child,
                  const std::string& extra = "") {
  return "  <joint name=\"" + name + "\" type=\"" + type +
         "\"><parent link=\"" + parent + "\"/><child link=\"" + child + "\"/>" +
         extra + "</joint>\n";
}

std::string Robot(const std::string& body) {
  return "<robot name=\"r\">\n" + body + "</robot>\n";
}

// The message of the UrdfError thrown by parsing `xml`, or "" if none.
std::string ErrorOf(const std::string& xml, UrdfParseOptions options = {}) {
  try {
    ParseUrdfString(xml, options, "test.urdf");
  } catch (const UrdfError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(UrdfParserTest, AllJointTypesAndProperties) {
  const std::string xml =
      Robot(Link("base") + Link("a") + Link("b") + Link("c") + Link("d") +
            Link("e") + Link("f") + Link("g") +
            Joint("j_rev", "revolute", "base", "a",
                  R"(<origin xyz="1 2 3" rpy="0.1 0.2 0.3"/><axis xyz="0 0 2"/>
               <limit lower="-1" upper="2" effort="10" velocity="3"/>
               <dynamics damping="0.5" friction="0.25" armature="0.01"/>)") +
            Joint("j_cont", "continuous", "a", "b", R"(<axis xyz="0 1 0"/>)") +
            Joint("j_pri", "prismatic", "b", "c",
                  R"(<limit lower="0" upper="1" effort="1" velocity="1"/>)") +
            Joint("j_fix", "fixed", "c", "d") +
            Joint("j_float", "floating", "d", "e") +
            Joint("j_planar", "planar", "e", "f", R"(<axis xyz="0 0 1"/>)") +
            Joint("j_ball", "ball", "f", "g") +
            R"(  <joint name="j_mimic" type="revolute"><parent link="g"/>
           <child link="h"/><mimic joint="j_rev" multiplier="2" offset="0.1"/>
           <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>)" +
            Link("h"));
  const UrdfModel model = ParseUrdfString(xml);
  const RigidBodyTree<double>& tree = model.tree;
  EXPECT_EQ(tree.name(), "r");
  EXPECT_EQ(tree.num_bodies(), 10);  // world + 9 links
  EXPECT_EQ(tree.num_positions(), 1 + 1 + 1 + 7 + 3 + 4 + 1);
  EXPECT_EQ(tree.num_velocities(), 1 + 1 + 1 + 6 + 3 + 3 + 1);
  const auto& rev = tree.body(tree.FindJointBodyIndex("j_rev")).joint;
  EXPECT_EQ(rev.type, JointType::kRevolute);
  EXPECT_TRUE(rev.axis.isApprox(Vector3<double>::UnitZ()));
  EXPECT_TRUE(rev.X_PJ.p.isApprox(Vector3<double>(1, 2, 3)));
  EXPECT_TRUE(rev.X_PJ.R.isApprox(
      RollPitchYawToRotationMatrix(Vector3<double>(0.1, 0.2, 0.3))));
  EXPECT_EQ(rev.position_lower, -1);
  EXPECT_EQ(rev.position_upper, 2);
  EXPECT_EQ(rev.effort_limit, 10);
  EXPECT_EQ(rev.velocity_limit, 3);
  EXPECT_EQ(rev.damping, 0.5);
  EXPECT_EQ(rev.friction, 0.25);
  EXPECT_EQ(rev.armature, 0.01);
  const auto& cont = tree.body(tree.FindJointBodyIndex("j_cont")).joint;
  EXPECT_EQ(cont.type, JointType::kRevolute);
  EXPECT_TRUE(std::isinf(cont.position_upper));
  EXPECT_EQ(tree.body(tree.FindJointBodyIndex("j_pri")).joint.type,
            JointType::kPrismatic);
  EXPECT_EQ(tree.body(tree.FindJointBodyIndex("j_fix")).joint.type,
            JointType::kFixed);
  EXPECT_EQ(tree.body(tree.FindJointBodyIndex("j_float")).joint.type,
            JointType::kFloating);
  EXPECT_EQ(tree.body(tree.FindJointBodyIndex("j_planar")).joint.type,
            JointType::kPlanar);
  EXPECT_EQ(tree.body(tree.FindJointBodyIndex("j_ball")).joint.type,
            JointType::kBall);
  // The root is welded to the world.
  EXPECT_EQ(tree.body(1).name, "base");
  EXPECT_EQ(tree.body(1).joint.type, JointType::kFixed);
  ASSERT_EQ(tree.mimic_constraints().size(), 1u);
  const MimicConstraint& m = tree.mimic_constraints()[0];
  EXPECT_EQ(m.joint, "j_mimic");
  EXPECT_EQ(m.leader_joint, "j_rev");
  EXPECT_EQ(m.multiplier, 2);
  EXPECT_EQ(m.offset, 0.1);
  EXPECT_EQ(m.leader_body, tree.FindJointBodyIndex("j_rev"));
}

TEST(UrdfParserTest, InertialFrameAndMasslessLinks) {
  const std::string xml = Robot(R"(
  <link name="base"/>
  <link name="arm"><inertial><origin xyz="0 0 -0.5" rpy="0 0 1.5707963267948966"/>
    <mass value="2"/><inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>)" + Joint("j", "continuous", "base", "arm"));
  const UrdfModel model = ParseUrdfString(xml);
  const auto& M = model.tree.body(model.tree.FindBodyIndex("arm")).inertia;
  EXPECT_EQ(model.tree.body(1).inertia.m, 0.0);  // no <inertial>: massless
  EXPECT_EQ(M.m, 2);
  EXPECT_TRUE(M.h.isApprox(Vector3<double>(0, 0, -1)));
  // Rotated 90 degrees about z: ixx and iyy swap; plus m c^2 off the z axis.
  EXPECT_NEAR(M.I(0, 0), 2 + 2 * 0.25, 1e-12);
  EXPECT_NEAR(M.I(1, 1), 1 + 2 * 0.25, 1e-12);
  EXPECT_NEAR(M.I(2, 2), 3, 1e-12);
}

TEST(UrdfParserTest, FloatingBaseWhenAsked) {
  const std::string xml = Robot(Link("torso") + Link("leg") +
                                Joint("hip", "continuous", "torso", "leg"));
  UrdfParseOptions options;
  options.floating_base = true;
  const UrdfModel model = ParseUrdfString(xml, options);
  EXPECT_EQ(model.tree.body(1).joint.type, JointType::kFloating);
  EXPECT_EQ(model.tree.body(1).joint.name, "floating_base");
  EXPECT_EQ(model.tree.num_velocities(), 7);
  // A root link named "world" is the world itself.
  const UrdfModel w =
      ParseUrdfString(Robot("<link name=\"world\"/>" + Link("leg") +
                            Joint("hip", "continuous", "world", "leg")));
  EXPECT_EQ(w.tree.num_bodies(), 2);
  EXPECT_EQ(w.tree.body(1).parent, 0);
}

TEST(UrdfParserTest, GeometryMaterialsAndMeshes) {
  const fs::path dir = fs::temp_directory_path() / "tern_urdf_parser_test";
  fs::create_directories(dir / "pkgs" / "my_robot" / "meshes");
  fs::create_directories(dir / "model" / "meshes");
  {
    // A closed tetrahedron as ASCII STL: collision meshes are read.
    std::ofstream stl(dir / "pkgs" / "my_robot" / "meshes" / "arm.stl");
    const char* v[4] = {"0 0 0", "1 0 0", "0 1 0", "0 0 1"};
    const int f[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    stl << "solid arm\n";
    for (const auto& t : f) {
      stl << "facet normal 0 0 0\nouter loop\n";
      for (int k : t) stl << "vertex " << v[k] << "\n";
      stl << "endloop\nendfacet\n";
    }
    stl << "endsolid arm\n";
  }
  std::ofstream(dir / "model" / "meshes" / "rel.obj") << "o";
  const std::string xml = Robot(R"(
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base">
    <visual name="v1"><origin xyz="0 0 1"/><geometry><box size="1 2 3"/></geometry>
      <material name="red"/></visual>
    <visual><geometry><sphere radius="0.5"/></geometry>
      <material name="green"><color rgba="0 1 0 1"/></material></visual>
    <visual><geometry><cylinder radius="0.1" length="2"/></geometry></visual>
    <collision><geometry><capsule radius="0.2" length="1"/></geometry></collision>
    <collision><geometry><mesh filename="package://my_robot/meshes/arm.stl" scale="2 2 2"/></geometry></collision>
    <visual><geometry><mesh filename="meshes/rel.obj"/></geometry>
      <material name="green"/></visual>
  </link>)");
  UrdfParseOptions options;
  options.search_paths.push_back((dir / "pkgs").string());
  const std::string file = (dir / "model" / "robot.urdf").string();
  std::ofstream(file) << xml;
  const UrdfModel model = ParseUrdfFile(file, options);
  const auto& b = model.tree.body(1);
  ASSERT_EQ(b.visuals.size(), 4u);
  ASSERT_EQ(b.collisions.size(), 2u);
  EXPECT_EQ(b.visuals[0].name, "v1");
  EXPECT_EQ(b.visuals[0].shape, BodyGeometry::Shape::kBox);
  EXPECT_TRUE(b.visuals[0].box_size.isApprox(Vector3<double>(1, 2, 3)));
  EXPECT_TRUE(b.visuals[0].X_BG.p.isApprox(Vector3<double>(0, 0, 1)));
  EXPECT_EQ(b.visuals[0].material.name, "red");
  EXPECT_TRUE(b.visuals[0].material.rgba.isApprox(Vector4<double>(1, 0, 0, 1)));
  EXPECT_EQ(b.visuals[1].shape, BodyGeometry::Shape::kSphere);
  EXPECT_EQ(b.visuals[1].radius, 0.5);
  EXPECT_EQ(b.visuals[2].shape, BodyGeometry::Shape::kCylinder);
  EXPECT_EQ(b.visuals[2].length, 2);
  EXPECT_EQ(b.collisions[0].shape, BodyGeometry::Shape::kCapsule);
  EXPECT_EQ(b.collisions[1].shape, BodyGeometry::Shape::kMesh);
  EXPECT_EQ(fs::path(b.collisions[1].mesh_path),
            fs::absolute(dir / "pkgs" / "my_robot" / "meshes" / "arm.stl"));
  ASSERT_TRUE(b.collisions[1].mesh);
  EXPECT_EQ(b.collisions[1].mesh->triangles.size(), 4u);
  double max_coord = 0;
  for (const auto& p : b.collisions[1].mesh->vertices) {
    max_coord = std::max(max_coord, p.maxCoeff());
  }
  EXPECT_EQ(max_coord, 2.0);  // scale="2 2 2" applied
  EXPECT_TRUE(b.collisions[1].mesh_scale.isApprox(Vector3<double>(2, 2, 2)));
  EXPECT_EQ(fs::path(b.visuals[3].mesh_path),
            fs::absolute(dir / "model" / "meshes" / "rel.obj"));
  // A link-level named material is reusable by later visuals.
  EXPECT_TRUE(b.visuals[3].material.rgba.isApprox(Vector4<double>(0, 1, 0, 1)));
  // package_map takes precedence over search paths.
  UrdfParseOptions mapped;
  mapped.package_map["my_robot"] = (dir / "pkgs" / "my_robot").string();
  EXPECT_NO_THROW(ParseUrdfFile(file, mapped));
  fs::remove_all(dir);
}

TEST(UrdfParserTest, UnsupportedTagsAreWarnings) {
  const std::string xml = Robot(
      "  <gazebo reference=\"base\"/>\n" + Link("base", "<sensor/>") +
      Link("arm") +
      Joint(
          "j", "revolute", "base", "arm",
          "<limit lower=\"0\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
          "<calibration rising=\"0\"/><safety_controller k_velocity=\"1\"/>") +
      "  <transmission name=\"t\"/>\n");
  const UrdfModel model = ParseUrdfString(xml, {}, "test.urdf");
  ASSERT_EQ(model.warnings.size(), 5u);
  std::string all;
  for (const auto& w : model.warnings) all += w.ToString() + "\n";
  EXPECT_CONTAINS(all, "test.urdf:2: <gazebo>: unsupported element <gazebo>");
  EXPECT_CONTAINS(all, "<link name='base'>/<sensor>");
  EXPECT_CONTAINS(all, "<joint name='j'>/<calibration>");
  EXPECT_CONTAINS(all, "<joint name='j'>/<safety_controller>");
  EXPECT_CONTAINS(all, "<transmission name='t'>");
  EXPECT_GT(model.warnings[0].line, 0);
}

TEST(UrdfParserTest, BadInputNamesFileLineAndElement) {
  const std::string two = Link("base") + Link("arm");
  const std::string ok_joint = Joint("j", "continuous", "base", "arm");
  // Malformed XML.
  EXPECT_CONTAINS(ErrorOf("<robot name=\"r\">\n<link name=\"a\">\n</robot>"),
                  "test.urdf:2: XML: malformed XML");
  // Mass missing, negative; inertia not positive definite.
  EXPECT_CONTAINS(
      ErrorOf(Robot("<link name=\"a\">\n<inertial><inertia ixx=\"1\"/>"
                    "</inertial></link>")),
      "test.urdf:3: <inertial>: missing <mass>");
  EXPECT_CONTAINS(
      ErrorOf(
          Robot("<link name=\"a\"><inertial>\n<mass value=\"-2\"/>"
                "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>")),
      "test.urdf:3: <mass>: negative mass -2");
  EXPECT_CONTAINS(
      ErrorOf(Robot("<link name=\"a\"><inertial><mass value=\"1\"/>\n"
                    "<inertia ixx=\"1\" iyy=\"1\" izz=\"-1\"/></inertial>"
                    "</link>")),
      "test.urdf:3: <inertia>: link 'a': principal moments of inertia -1, "
      "1, 1 kg·m^2: a negative moment");
  // Missing links.
  EXPECT_CONTAINS(ErrorOf(Robot(two + Joint("j", "fixed", "nope", "arm"))),
                  "<joint name='j'>: joint 'j' names parent link 'nope'");
  EXPECT_CONTAINS(ErrorOf(Robot(two + Joint("j", "fixed", "base", "nope"))),
                  "<joint name='j'>: joint 'j' names child link 'nope'");
  // A cycle, two roots, a link with two parents.
  EXPECT_CONTAINS(
      ErrorOf(Robot(two + Link("c") + Joint("j1", "fixed", "base", "arm") +
                    Joint("j2", "fixed", "arm", "c") +
                    Joint("j3", "fixed", "c", "arm"))),
      "two joints");
  EXPECT_CONTAINS(ErrorOf(Robot(Link("base") + Link("a") + Link("b") +
                                Joint("j1", "fixed", "a", "b") +
                                Joint("j2", "fixed", "b", "a"))),
                  "cycle");
  EXPECT_CONTAINS(
      ErrorOf(Robot(
          two + Link("c") + Link("d") + Joint("j1", "fixed", "base", "arm") +
          Joint("j2", "fixed", "c", "d") + Joint("j3", "fixed", "d", "c"))),
      "joint 'j3' is part of a cycle through link 'c'");
  EXPECT_CONTAINS(ErrorOf(Robot(two)),
                  "<link name='arm'>: two root links, 'base' and 'arm'");
  // Unknown joint type.
  EXPECT_CONTAINS(ErrorOf(Robot(two + Joint("j", "hinge", "base", "arm"))),
                  "<joint name='j'>: unknown joint type 'hinge'");
  // A mesh that cannot be found.
  EXPECT_CONTAINS(
      ErrorOf(Robot("<link name=\"a\"><visual><geometry>\n<mesh "
                    "filename=\"package://nowhere/m.stl\"/></geometry></visual>"
                    "</link>")),
      "test.urdf:3: <mesh>: mesh 'package://nowhere/m.stl': package "
      "'nowhere' not found");
  UrdfParseOptions lenient;
  lenient.require_meshes = false;
  EXPECT_EQ(ErrorOf(Robot("<link name=\"a\"><visual><geometry><mesh "
                          "filename=\"x.stl\"/></geometry></visual></link>"),
                    lenient),
            "");
  // Other malformed values.
  EXPECT_CONTAINS(ErrorOf(Robot(two + Joint("j", "continuous", "base", "arm",
                                            "<origin xyz=\"1 2\"/>"))),
                  "<origin>: attribute 'xyz' needs 3 numbers");
  EXPECT_CONTAINS(
      ErrorOf(Robot(two + ok_joint + Joint("j", "fixed", "arm", "base"))),
      "duplicate joint 'j'");
  EXPECT_CONTAINS(ErrorOf("<model/>"), "the root element must be <robot>");
  try {
    ParseUrdfFile("/nonexistent/robot.urdf");
    FAIL();
  } catch (const UrdfError& e) {
    EXPECT_CONTAINS(e.what(), "/nonexistent/robot.urdf");
  }
}

// Inertias as real files have them (issue 29): principal moments
// (A, B, C) about the com.
std::string InertiaLink(double ixx, double iyy, double izz, double ixy = 0) {
  return "<link name=\"a\"><inertial><mass value=\"1\"/>\n<inertia ixx=\"" +
         fmt::format("{:.17g}", ixx) + "\" iyy=\"" +
         fmt::format("{:.17g}", iyy) + "\" izz=\"" +
         fmt::format("{:.17g}", izz) + "\" ixy=\"" +
         fmt::format("{:.17g}", ixy) +
         "\" ixz=\"0\" iyz=\"0\"/></inertial></link>";
}

TEST(UrdfParserTest, InertiaWithinRoundingOfZeroIsAccepted) {
  // A rod: moments (0, 1, 1) with an off-diagonal term that leaves the
  // smallest eigenvalue at -1e-12 (rounding), as in files exported by CAD.
  const double e = 1e-12;
  const std::string xml = Robot(
      "<link name=\"a\"><inertial><mass value=\"1\"/>\n<inertia ixx=\"0.5\" "
      "iyy=\"0.5\" izz=\"1\" ixy=\"" +
      fmt::format("{:.17g}", 0.5 + e) +
      "\" ixz=\"0\" iyz=\"0\"/>"
      "</inertial></link>");
  UrdfModel model;
  ASSERT_NO_THROW(model = ParseUrdfString(xml, {}, "test.urdf"));
  EXPECT_TRUE(model.warnings.empty());
  UrdfParseOptions strict;
  strict.inertia = InertiaPolicy::kStrict;
  EXPECT_CONTAINS(ErrorOf(xml, strict), "not positive definite for mass 1");
  EXPECT_CONTAINS(ErrorOf(xml, strict), "kStrict");
}

TEST(UrdfParserTest, TriangleInequalityPolicies) {
  // A + B = 1.99 < C = 2: broken by 0.5% of C.
  const std::string small = Robot(InertiaLink(0.99, 1.0, 2.0));
  // A + B = 1.5 < C = 2: by 25%.
  const std::string large = Robot(InertiaLink(0.5, 1.0, 2.0));
  // Rounding (1e-7 of C) passes silently in every mode.
  const std::string rounding = Robot(InertiaLink(1.0, 1.0, 2.0000002));
  for (InertiaPolicy p : {InertiaPolicy::kAccept, InertiaPolicy::kBalance,
                          InertiaPolicy::kStrict}) {
    UrdfParseOptions o;
    o.inertia = p;
    const UrdfModel m = ParseUrdfString(rounding, o, "test.urdf");
    EXPECT_TRUE(m.warnings.empty()) << InertiaPolicyName(p);
  }
  // kAccept: small kept with a warning naming link, moments and option.
  {
    const UrdfModel m = ParseUrdfString(small, {}, "test.urdf");
    ASSERT_EQ(m.warnings.size(), 1u);
    const std::string w = m.warnings[0].ToString();
    EXPECT_CONTAINS(w, "test.urdf:3: <inertia>: link 'a'");
    EXPECT_CONTAINS(w, "0.99, 1, 2");
    EXPECT_CONTAINS(w, "by 0.5% of C");
    EXPECT_CONTAINS(w, "kept as written (UrdfParseOptions::inertia = kAccept)");
    EXPECT_NEAR(m.tree.body(1).inertia.I(2, 2), 2.0, 1e-12);
    const std::string err = ErrorOf(large);
    EXPECT_CONTAINS(err, "test.urdf:3: <inertia>: link 'a'");
    EXPECT_CONTAINS(err, "0.5, 1, 2");
    EXPECT_CONTAINS(err, "by 25% of C");
    EXPECT_CONTAINS(err, "InertiaPolicy::kBalance");
  }
  // kBalance: all three set to their mean (MuJoCo's balanceinertia).
  {
    UrdfParseOptions o;
    o.inertia = InertiaPolicy::kBalance;
    const UrdfModel m = ParseUrdfString(large, o, "test.urdf");
    ASSERT_EQ(m.warnings.size(), 1u);
    EXPECT_CONTAINS(m.warnings[0].ToString(), "set to their mean 1.16667");
    const Matrix3<double> I = m.tree.body(1).inertia.I;
    EXPECT_TRUE(I.isApprox(3.5 / 3 * Matrix3<double>::Identity(), 1e-12)) << I;
  }
  // kStrict: small is an error too.
  {
    UrdfParseOptions o;
    o.inertia = InertiaPolicy::kStrict;
    EXPECT_CONTAINS(ErrorOf(small, o), "UrdfParseOptions::inertia = kStrict");
  }
  // A negative moment is no rigid body's, in any mode (MuJoCo too).
  UrdfParseOptions o;
  o.inertia = InertiaPolicy::kBalance;
  EXPECT_CONTAINS(ErrorOf(Robot(InertiaLink(-0.1, 1, 1)), o),
                  "a negative moment");
}

TEST(UrdfParserTest, MasslessLinkOnAMovingJointKeepsItsError) {
  const std::string xml = Robot(Link("base") + "  <link name=\"tip\"/>\n" +
                                Joint("j", "continuous", "base", "tip"));
  EXPECT_CONTAINS(ErrorOf(xml), "the mass matrix is singular");
  EXPECT_CONTAINS(ErrorOf(xml), "joint 'j'");
}

TEST(UrdfParserTest, AutomaticRootJointNameNeverCollides) {
  // The file uses "floating_base" for a link and "floating_base_1" for a
  // joint: the floating joint becomes floating_base_2.
  const std::string xml =
      Robot(Link("floating_base") + Link("arm") +
            Joint("floating_base_1", "continuous", "floating_base", "arm"));
  UrdfParseOptions o;
  o.floating_base = true;
  const UrdfModel m = ParseUrdfString(xml, o, "test.urdf");
  EXPECT_EQ(m.tree.body(1).joint.name, "floating_base_2");
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_CONTAINS(m.warnings[0].ToString(),
                  "the file already uses the name 'floating_base'");
  // The weld's name too.
  const UrdfModel w = ParseUrdfString(
      Robot(Link("base") + Link("arm") +
            Joint("world_to_base", "continuous", "base", "arm")),
      {}, "test.urdf");
  EXPECT_EQ(w.tree.body(1).joint.name, "world_to_base_1");
}

TEST(UrdfParserTest, HarmlessOdditiesOfRealFilesAreWarnings) {
  const std::string xml = Robot(
      Link("base",
           "<visual><geometry><box size=\"1 1 1\"/></geometry>\n"
           "<material name=\"undefined_blue\"/></visual>") +
      Link("a") + Link("b") + Link("c") +
      Joint("fixed_mimic", "fixed", "base", "a", "\n<mimic joint=\"j\"/>") +
      Joint("j", "continuous", "a", "b") +
      Joint("missing", "continuous", "b", "c", "\n<mimic joint=\"nope\"/>"));
  const UrdfModel m = ParseUrdfString(xml, {}, "test.urdf");
  EXPECT_TRUE(m.tree.mimic_constraints().empty());
  std::string all;
  for (const auto& w : m.warnings) all += w.ToString() + "\n";
  EXPECT_EQ(m.warnings.size(), 3u) << all;
  EXPECT_CONTAINS(all,
                  "<material name='undefined_blue'>: material "
                  "'undefined_blue' is not defined; default colour used");
  EXPECT_CONTAINS(all,
                  "mimic joint 'fixed_mimic' follows 'j', but fixed "
                  "joint 'fixed_mimic' has 0 degrees of freedom");
  EXPECT_CONTAINS(all,
                  "mimic joint 'missing' follows 'nope', which does not "
                  "exist; constraint ignored");
  EXPECT_FALSE(m.tree.body(1).visuals[0].material.has_rgba);
  // A valid mimic is kept.
  const UrdfModel ok =
      ParseUrdfString(Robot(Link("base") + Link("a") + Link("b") +
                            Joint("j", "continuous", "base", "a") +
                            Joint("k", "continuous", "a", "b",
                                  "<mimic joint=\"j\" multiplier=\"2\"/>")),
                      {}, "test.urdf");
  ASSERT_EQ(ok.tree.mimic_constraints().size(), 1u);
  EXPECT_EQ(ok.tree.mimic_constraints()[0].multiplier, 2.0);
}

// A missing package names the package, the URDF line and every place
// searched; upward discovery finds a package.xml above the URDF.
TEST(UrdfParserTest, PackagesAreDiscoveredUpwardAndMissingOnesNamed) {
  const fs::path dir = fs::temp_directory_path() / "tern_urdf_package_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "my_pkg" / "urdf");
  fs::create_directories(dir / "my_pkg" / "meshes");
  std::ofstream(dir / "my_pkg" / "package.xml")
      << "<package><name>my_robot_description</name></package>";
  std::ofstream(dir / "my_pkg" / "meshes" / "m.obj")
      << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  const std::string file = (dir / "my_pkg" / "urdf" / "r.urdf").string();
  std::ofstream(file) << Robot(
      "<link name=\"a\"><visual><geometry>\n<mesh filename=\"package://"
      "my_robot_description/meshes/m.obj\"/></geometry></visual></link>");
  const UrdfModel m = ParseUrdfFile(file);
  EXPECT_EQ(fs::path(m.tree.body(1).visuals[0].mesh_path),
            fs::absolute(dir / "my_pkg" / "meshes" / "m.obj"));
  // Discovery off: the package is missing, and the message says where.
  UrdfParseOptions hermetic;
  hermetic.discover_packages = false;
  hermetic.search_paths.push_back((dir / "elsewhere").string());
  try {
    ParseUrdfFile(file, hermetic);
    FAIL();
  } catch (const UrdfError& e) {
    const std::string msg = e.what();
    EXPECT_CONTAINS(msg, file + ":3: <mesh>:");
    EXPECT_CONTAINS(msg, "package 'my_robot_description' not found");
    EXPECT_CONTAINS(msg, "search path " + (dir / "elsewhere").string() +
                             " (does not exist)");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tern
