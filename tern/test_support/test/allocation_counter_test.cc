#include "tern/test_support/allocation_counter.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace tern::test {
namespace {

TEST(AllocationCounterTest, CountsAllocations) {
  ScopedAllocationCounter counter;
  EXPECT_EQ(counter.count(), 0);
  auto p = std::make_unique<std::vector<double>>(10);
  EXPECT_GE(counter.count(), 2);  // the vector object and its buffer
}

TEST(AllocationCounterTest, NoAllocationNoCount) {
  double a[4] = {1, 2, 3, 4};
  ScopedAllocationCounter counter;
  double s = 0;
  for (double x : a) s += x;
  EXPECT_EQ(s, 10.0);
  EXPECT_EQ(counter.count(), 0);
}

}  // namespace
}  // namespace tern::test
