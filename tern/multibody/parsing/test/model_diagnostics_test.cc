#include "tern/multibody/parsing/model_diagnostics.h"

#include <gtest/gtest.h>

namespace tern {
namespace {

TEST(ModelDiagnosticsTest, NumberListAcceptsFiniteNumbersOnly) {
  std::vector<double> v;
  std::string bad;
  EXPECT_TRUE(ParseNumberList(" 1 +2.5\t-3e-1\n", &v, &bad));
  EXPECT_EQ(v, (std::vector<double>{1, 2.5, -0.3}));
  EXPECT_FALSE(ParseNumberList("1 x 2", &v, &bad));
  EXPECT_EQ(bad, "x");
  EXPECT_FALSE(ParseNumberList("inf", &v, &bad));
  EXPECT_TRUE(ParseNumberList("", &v, &bad));
  EXPECT_TRUE(v.empty());
}

TEST(ModelDiagnosticsTest, MessagesNameFileLineAndElement) {
  const ModelParseError e("a.xml", 7, "<joint name='j'>", "bad");
  EXPECT_STREQ(e.what(), "a.xml:7: <joint name='j'>: bad");
  EXPECT_EQ(e.line(), 7);
  const ModelWarning w{"a.xml", 3, "<tendon>", "left out"};
  EXPECT_EQ(w.ToString(), "a.xml:3: <tendon>: left out");
}

}  // namespace
}  // namespace tern
