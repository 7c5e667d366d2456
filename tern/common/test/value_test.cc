#include "tern/common/value.h"

#include <gtest/gtest.h>

#include <vector>

namespace tern {
namespace {

TEST(ValueTest, HoldsAndClones) {
  auto v = AbstractValue::Make(std::vector<int>{1, 2, 3});
  auto c = v->Clone();
  v->get_mutable_value<std::vector<int>>().push_back(4);
  EXPECT_EQ(v->get_value<std::vector<int>>().size(), 4u);
  EXPECT_EQ(c->get_value<std::vector<int>>().size(), 3u);  // deep copy
  c->SetFrom(*v);
  EXPECT_EQ(c->get_value<std::vector<int>>().size(), 4u);
  EXPECT_EQ(v->maybe_get_value<double>(), nullptr);
}

TEST(ValueTest, TypeMismatchNamesBothTypes) {
  auto v = AbstractValue::Make(2.5);
  try {
    v->get_value<int>();
    FAIL() << "expected a throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("int"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("double"), std::string::npos);
  }
}

}  // namespace
}  // namespace tern
