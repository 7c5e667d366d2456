#include "tern/multibody/parsing/srdf_parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tern {
namespace {

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

std::string ErrorOf(const std::string& xml) {
  try {
    ParseSrdfDisabledCollisionsString(xml, "r.srdf");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(SrdfParserTest, ReadsDisabledCollisionPairsInOrder) {
  const fs::path path =
      fs::path(::testing::TempDir()) / "tern_srdf_parser_test.srdf";
  std::ofstream(path) << R"(<?xml version="1.0"?>
<robot name="wam">
  <group name="arm"><chain base_link="/wam0" tip_link="/wam7"/></group>
  <disable_collisions link1="/wam1" link2="/wam3" reason="Never"/>
  <virtual_joint name="v" type="fixed" parent_frame="world" child_link="/wam0"/>
  <disable_collisions link1="/wam2" link2="/wam4" reason="Adjacent"/>
</robot>
)";
  const auto pairs = ParseSrdfDisabledCollisions(path.string());
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0],
            std::make_pair(std::string("/wam1"), std::string("/wam3")));
  EXPECT_EQ(pairs[1],
            std::make_pair(std::string("/wam2"), std::string("/wam4")));
  fs::remove(path);
}

TEST(SrdfParserTest, BadInputNamesFileLineAndElement) {
  EXPECT_CONTAINS(ErrorOf("<robot name=\"r\">\n"
                          "<disable_collisions link1=\"a\"/>\n</robot>"),
                  "r.srdf:2: <disable_collisions>: missing or empty attribute "
                  "'link2'");
  EXPECT_CONTAINS(ErrorOf("<robot>\n<disable_collisions link1=\"\" "
                          "link2=\"b\"/></robot>"),
                  "r.srdf:2:");
  EXPECT_CONTAINS(ErrorOf("<robot>\n<disable_collisions"), "r.srdf:");
  EXPECT_CONTAINS(ErrorOf("<model/>"), "the root element of an SRDF");
  EXPECT_EQ(ErrorOf("<robot/>"), "");
  try {
    ParseSrdfDisabledCollisions("/nonexistent/robot.srdf");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_CONTAINS(e.what(), "/nonexistent/robot.srdf");
  }
}

}  // namespace
}  // namespace tern
