#include "tern/multibody/parsing/package_map.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace tern {
namespace {

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

// A workspace:
//   ws/src/robot_a/package.xml     <name>alpha</name>  (folder name differs)
//   ws/src/robot_a/meshes/m.stl
//   ws/src/group/robot_b/package.xml  <name>robot_b</name> (one level deeper)
//   ws/src/.hidden/package.xml     <name>hidden</name> (not crawled)
//   ws/models/plain/meshes/p.stl   (no package.xml: found by folder name)
//   ws/src/robot_a/urdf/r.urdf
class PackageMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: CTest runs the tests in parallel processes.
    ws_ = fs::path(::testing::TempDir()) /
          (std::string("tern_package_map_test_") +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(ws_);
    Package(ws_ / "src" / "robot_a", "alpha");
    Package(ws_ / "src" / "group" / "robot_b", "robot_b");
    Package(ws_ / "src" / ".hidden", "hidden");
    fs::create_directories(ws_ / "src" / "robot_a" / "meshes");
    fs::create_directories(ws_ / "src" / "robot_a" / "urdf");
    fs::create_directories(ws_ / "models" / "plain" / "meshes");
    std::ofstream(ws_ / "src" / "robot_a" / "meshes" / "m.stl") << "x";
    std::ofstream(ws_ / "src" / "robot_a" / "urdf" / "r.urdf") << "x";
    std::ofstream(ws_ / "models" / "plain" / "meshes" / "p.stl") << "x";
  }
  void TearDown() override { fs::remove_all(ws_); }
  static void Package(const fs::path& dir, const std::string& name) {
    fs::create_directories(dir);
    std::ofstream(dir / "package.xml")
        << "<?xml version=\"1.0\"?>\n<package format=\"2\">\n  <name> " << name
        << " </name>\n  <version>1.0.0</version>\n</package>\n";
  }
  std::string S(const fs::path& p) const {
    return fs::absolute(p).lexically_normal().string();
  }
  fs::path ws_;
};

TEST_F(PackageMapTest, AddAndResolveEveryKindOfUri) {
  PackageMap map;
  map.Add("alpha", (ws_ / "src" / "robot_a").string());
  EXPECT_TRUE(map.Contains("alpha"));
  EXPECT_FALSE(map.Contains("robot_a"));
  EXPECT_EQ(map.GetPath("alpha"), S(ws_ / "src" / "robot_a"));
  const std::string m = S(ws_ / "src" / "robot_a" / "meshes" / "m.stl");
  EXPECT_EQ(map.Resolve("package://alpha/meshes/m.stl", "/"), m);
  EXPECT_EQ(map.Resolve("model://alpha/meshes/m.stl", "/"), m);
  EXPECT_EQ(map.Resolve("file://" + m, "/"), m);
  EXPECT_EQ(map.Resolve(m, "/"), m);
  EXPECT_EQ(map.Resolve("../meshes/m.stl",
                        (ws_ / "src" / "robot_a" / "urdf").string()),
            m);
  // Add replaces an earlier entry of the same name.
  map.Add("alpha", (ws_ / "models").string());
  EXPECT_EQ(map.GetPath("alpha"), S(ws_ / "models"));
}

TEST_F(PackageMapTest, AddRejectsAFileOrAMissingFolder) {
  PackageMap map;
  try {
    map.Add("alpha", (ws_ / "nowhere").string());
    FAIL();
  } catch (const PackageError& e) {
    EXPECT_CONTAINS(e.what(), "'alpha'");
    EXPECT_CONTAINS(e.what(), "nowhere");
    EXPECT_CONTAINS(e.what(), "is not a folder");
  }
  EXPECT_THROW(
      map.Add("alpha", (ws_ / "src" / "robot_a" / "package.xml").string()),
      PackageError);
  EXPECT_THROW(map.Add("a/b", ws_.string()), PackageError);
}

TEST_F(PackageMapTest, SearchPathFindsPackageXmlBelowAndSubfoldersByName) {
  PackageMap map;
  map.AddSearchPath((ws_ / "src").string());
  map.AddSearchPath((ws_ / "models").string());
  // By package.xml <name> (whitespace trimmed), at any depth.
  EXPECT_EQ(map.GetPath("alpha"), S(ws_ / "src" / "robot_a"));
  EXPECT_EQ(map.GetPath("robot_b"), S(ws_ / "src" / "group" / "robot_b"));
  // Hidden folders are not crawled.
  EXPECT_FALSE(map.Contains("hidden"));
  // Immediate subfolders by folder name (as ROS_PACKAGE_PATH entries).
  EXPECT_EQ(map.GetPath("plain"), S(ws_ / "models" / "plain"));
  EXPECT_EQ(map.GetPath("group"), S(ws_ / "src" / "group"));
  // A package.xml name wins over a folder name of another folder.
  EXPECT_EQ(map.Resolve("package://plain/meshes/p.stl", "/"),
            S(ws_ / "models" / "plain" / "meshes" / "p.stl"));
  // Relative paths are also tried against the search paths.
  EXPECT_EQ(map.Resolve("plain/meshes/p.stl", "/nonexistent"),
            S(ws_ / "models" / "plain" / "meshes" / "p.stl"));
  ASSERT_EQ(map.search_paths().size(), 2u);
}

TEST_F(PackageMapTest, PopulateFromEnvironmentSplitsOnColons) {
  const std::string value =
      (ws_ / "src").string() + ":" + (ws_ / "models").string() + ":";
  ::setenv("TERN_TEST_PACKAGE_PATH", value.c_str(), 1);
  PackageMap map;
  map.PopulateFromEnvironment("TERN_TEST_PACKAGE_PATH");
  EXPECT_TRUE(map.Contains("alpha"));
  EXPECT_TRUE(map.Contains("robot_b"));
  EXPECT_TRUE(map.Contains("plain"));
  ::unsetenv("TERN_TEST_PACKAGE_PATH");
  PackageMap empty;
  empty.PopulateFromEnvironment("TERN_TEST_PACKAGE_PATH");
  EXPECT_EQ(empty.size(), 0);
  EXPECT_CONTAINS(empty.DescribeSearched(),
                  "$TERN_TEST_PACKAGE_PATH (unset or empty)");
}

TEST_F(PackageMapTest, PopulateUpstreamFindsTheEnclosingPackage) {
  PackageMap map;
  map.PopulateUpstream((ws_ / "src" / "robot_a" / "urdf" / "r.urdf").string());
  EXPECT_EQ(map.GetPath("alpha"), S(ws_ / "src" / "robot_a"));
  EXPECT_FALSE(map.Contains("robot_b"));
  // Explicit entries win over discovered ones, whatever the order.
  PackageMap explicit_first;
  explicit_first.Add("alpha", (ws_ / "models").string());
  explicit_first.PopulateUpstream((ws_ / "src" / "robot_a" / "urdf").string());
  EXPECT_EQ(explicit_first.GetPath("alpha"), S(ws_ / "models"));
}

TEST_F(PackageMapTest, MissingPackageNamesUriPackageAndEveryPlaceSearched) {
  PackageMap map;
  map.Add("alpha", (ws_ / "src" / "robot_a").string());
  map.AddSearchPath((ws_ / "models").string());
  map.AddSearchPath((ws_ / "gone").string());
  map.PopulateUpstream((ws_ / "src" / "robot_a" / "urdf").string());
  try {
    map.Resolve("package://herb_description/meshes/wam1.dae", "/");
    FAIL();
  } catch (const PackageError& e) {
    const std::string msg = e.what();
    EXPECT_CONTAINS(msg, "'package://herb_description/meshes/wam1.dae'");
    EXPECT_CONTAINS(msg, "package 'herb_description' not found");
    EXPECT_CONTAINS(msg, "alpha=" + S(ws_ / "src" / "robot_a"));
    EXPECT_CONTAINS(msg, "search path " + S(ws_ / "models"));
    EXPECT_CONTAINS(msg, S(ws_ / "gone") + " (does not exist)");
    EXPECT_CONTAINS(msg, "package.xml files in " +
                             S(ws_ / "src" / "robot_a" / "urdf") +
                             " and the folders above");
  }
  // A known package, a missing file: the file and the package's folder.
  try {
    map.Resolve("package://alpha/meshes/none.stl", "/");
    FAIL();
  } catch (const PackageError& e) {
    EXPECT_CONTAINS(e.what(), "meshes/none.stl does not exist");
    EXPECT_CONTAINS(e.what(),
                    "package 'alpha' is " + S(ws_ / "src" / "robot_a"));
  }
  // A relative path: every folder tried.
  try {
    map.Resolve("meshes/none.stl", "/base");
    FAIL();
  } catch (const PackageError& e) {
    EXPECT_CONTAINS(e.what(), "/base/meshes/none.stl");
    EXPECT_CONTAINS(e.what(), S(ws_ / "models") + "/meshes/none.stl");
  }
  EXPECT_THROW(map.GetPath("nope"), PackageError);
  EXPECT_THROW(map.Resolve("http://example.org/m.stl", "/"), PackageError);
}

}  // namespace
}  // namespace tern
