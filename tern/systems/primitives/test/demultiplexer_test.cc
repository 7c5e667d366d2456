#include "tern/systems/primitives/demultiplexer.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tern/common/autodiff.h"

namespace tern {
namespace {

TEST(DemultiplexerTest, SplitsIntoSegments) {
  Demultiplexer<double> demux(std::vector<int>{1, 3, 2});
  EXPECT_EQ(demux.get_input_port().size(), 6);
  ASSERT_EQ(demux.num_output_ports(), 3);
  auto context = demux.CreateDefaultContext();
  Eigen::VectorXd u(6);
  u << 1, 2, 3, 4, 5, 6;
  demux.get_input_port().FixValue(context.get(), u);
  EXPECT_EQ(demux.get_output_port(0).Eval(*context), u.segment(0, 1));
  EXPECT_EQ(demux.get_output_port(1).Eval(*context), u.segment(1, 3));
  EXPECT_EQ(demux.get_output_port(2).Eval(*context), u.segment(4, 2));
  EXPECT_EQ(demux.get_output_port(2).get_name(), "y2");
  EXPECT_TRUE(demux.HasDirectFeedthrough(0, 1));
}

TEST(DemultiplexerTest, EqualSizesAndAutoDiff) {
  Demultiplexer<AutoDiffXd> demux(4, 2);
  ASSERT_EQ(demux.num_output_ports(), 2);
  auto context = demux.CreateDefaultContext();
  demux.get_input_port().FixValue(
      context.get(), InitializeAutoDiff(Eigen::Vector4d(1, 2, 3, 4)));
  const VectorX<AutoDiffXd>& y1 = demux.get_output_port(1).Eval(*context);
  EXPECT_EQ(y1[0].value(), 3.0);
  EXPECT_EQ(y1[1].derivatives(), Eigen::Vector4d(0, 0, 0, 1));
}

TEST(DemultiplexerTest, RejectsBadSizes) {
  try {
    Demultiplexer<double> demux(5, 2);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "Demultiplexer: size 5 is not a multiple of output_size 2");
  }
  EXPECT_THROW(Demultiplexer<double>(std::vector<int>{1, -1}),
               std::invalid_argument);
  EXPECT_THROW(Demultiplexer<double>(0), std::invalid_argument);
}

}  // namespace
}  // namespace tern
