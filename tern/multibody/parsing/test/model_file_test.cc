#include "tern/multibody/parsing/model_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tern {
namespace {

namespace fs = std::filesystem;

class ModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: CTest runs the tests of this file in parallel,
    // and one's TearDown removed the folder under another (ReadsSdf failed).
    dir_ = fs::temp_directory_path() /
           (std::string("tern_model_file_test_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

constexpr const char* kUrdf =
    "<robot name='r'><link name='a'><inertial><mass value='1'/>"
    "<inertia ixx='1' iyy='1' izz='1'/></inertial></link></robot>";
constexpr const char* kMjcf =
    "<mujoco model='m'><option timestep='0.01'/><worldbody><body name='a'>"
    "<freejoint/><geom size='0.1'/></body></worldbody></mujoco>";

TEST_F(ModelFileTest, PicksTheParserByExtensionOrRootElement) {
  EXPECT_EQ(DetectModelFormat(Write("r.urdf", kUrdf)), ModelFormat::kUrdf);
  EXPECT_EQ(DetectModelFormat(Write("r.xml", kUrdf)), ModelFormat::kUrdf);
  EXPECT_EQ(DetectModelFormat(Write("m.xml", kMjcf)), ModelFormat::kMjcf);
  EXPECT_EQ(DetectModelFormat(Write("m.sdf", "<sdf/>")), ModelFormat::kSdf);
  const ModelFile u = ParseModelFile(Write("u.xml", kUrdf));
  EXPECT_EQ(u.tree.name(), "r");
  const ModelFile m = ParseModelFile(Write("m2.xml", kMjcf));
  EXPECT_EQ(m.format, ModelFormat::kMjcf);
  EXPECT_EQ(m.tree.name(), "m");
  EXPECT_EQ(m.tree.num_positions(), 7);
  EXPECT_EQ(m.mjcf.timestep, 0.01);
}

TEST_F(ModelFileTest, UnknownRootAndUnreadableFilesAreNamed) {
  const std::string path = Write("x.xml", "<launch/>");
  try {
    ParseModelFile(path);
    ADD_FAILURE() << "no error";
  } catch (const ModelParseError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":1: <launch>"),
              std::string::npos);
  }
  EXPECT_THROW(ParseModelFile((dir_ / "none.xml").string()), ModelParseError);
  EXPECT_THROW(ParseModelFile(Write("s.sdf", "<sdf/>")), ModelParseError);
}

TEST_F(ModelFileTest, ReadsSdf) {
  ASSERT_TRUE(SdfSupported())
      << "built without libsdformat: install libsdformat-dev "
         "(scripts/install-deps)";
  const ModelFile f = ParseModelFile(
      Write("b.sdf",
            "<sdf version='1.9'><model name='m'><pose>0 0 2 0 0 0</pose>"
            "<link name='a'><inertial><mass>2</mass></inertial></link>"
            "</model></sdf>"));
  EXPECT_EQ(f.format, ModelFormat::kSdf);
  EXPECT_EQ(f.tree.num_positions(), 7);
  EXPECT_EQ(f.q0(2), 2);
}

// The plant elements of every format, on the tree's names: MJCF's active
// equalities resolved in qpos0 (a connect's world point is the anchor's
// position there), MJCF joint stiffness as a JointSpringSpec.
TEST_F(ModelFileTest, CarriesEqualitiesAndSpringsWhateverTheFormat) {
  const ModelFile m = ParseModelFile(Write("loop.xml", R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="a" pos="0 0 1"><joint name="j" axis="0 1 0" stiffness="3" springref="0.2" ref="0.5"/>
      <geom size="0.1"/></body>
  </worldbody>
  <equality>
    <connect name="c" body1="a" anchor="1 0 0"/>
    <weld body1="a" active="false"/>
  </equality>
</mujoco>)"));
  ASSERT_EQ(m.equalities.size(), 1u);  // the inactive weld is left out
  const EqualityConstraintSpec& c = m.equalities[0];
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.type, EqualityConstraintSpec::Type::kPoint);
  EXPECT_EQ(c.body1, "a");
  EXPECT_EQ(c.body2, "world");
  EXPECT_EQ(c.X_1F.p, Vector3<double>(1, 0, 0));
  // qpos0 holds the hinge at its ref, where the body is as the file writes
  // it: the anchor's world point is (1, 0, 1).
  EXPECT_NEAR(m.q0(0), 0.5, 1e-15);
  EXPECT_TRUE(c.X_2G.p.isApprox(Vector3<double>(1, 0, 1), 1e-15))
      << c.X_2G.p.transpose();
  ASSERT_EQ(m.springs.size(), 1u);
  EXPECT_EQ(m.springs[0].joint, "j");
  EXPECT_EQ(m.springs[0].stiffness, 3);
  EXPECT_EQ(m.springs[0].reference, 0.2);
  // URDF has neither.
  const ModelFile u = ParseModelFile(Write("u.urdf", kUrdf));
  EXPECT_TRUE(u.equalities.empty());
  EXPECT_TRUE(u.springs.empty());
}

}  // namespace
}  // namespace tern
