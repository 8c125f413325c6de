#include "runtime/kernels/cpu/eigen_config.h"  // first: configures Eigen

#include "runtime/kernels/cpu/cwise_util.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

struct RunRecord {
  std::vector<int64_t> offsets;
  int64_t out_offset;
  int64_t length;
  bool operator==(const RunRecord& o) const {
    return offsets == o.offsets && out_offset == o.out_offset && length == o.length;
  }
};

std::vector<RunRecord> Runs(const BroadcastPlan& plan, int64_t begin, int64_t end) {
  std::vector<RunRecord> runs;
  plan.ForEachRun(begin, end, [&](const int64_t* in, int64_t pos, int64_t n) {
    runs.push_back({std::vector<int64_t>(in, in + plan.num_operands()), pos, n});
  });
  return runs;
}

TEST(CwiseUtilTest, SameShapesAreOneRun) {
  StatusOr<BroadcastPlan> plan =
      BroadcastPlan::Make({TensorShape({2, 3, 4}), TensorShape({2, 3, 4})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->output_shape(), TensorShape({2, 3, 4}));
  EXPECT_EQ(plan->row_size(), 24);
  EXPECT_EQ(Runs(*plan, 0, 24), (std::vector<RunRecord>{{{0, 0}, 0, 24}}));
  EXPECT_EQ(Runs(*plan, 5, 9), (std::vector<RunRecord>{{{5, 5}, 5, 4}}));
}

TEST(CwiseUtilTest, ScalarOperandStaysPut) {
  StatusOr<BroadcastPlan> plan = BroadcastPlan::Make({TensorShape(), TensorShape({3, 2})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->output_shape(), TensorShape({3, 2}));
  EXPECT_TRUE(plan->run_is_scalar(0));
  EXPECT_FALSE(plan->run_is_scalar(1));
  EXPECT_EQ(Runs(*plan, 0, 6), (std::vector<RunRecord>{{{0, 0}, 0, 6}}));
}

TEST(CwiseUtilTest, RowAndColumnVectors) {
  // [2,3] + [3]: two runs of 3, the row restarting at 0.
  StatusOr<BroadcastPlan> row = BroadcastPlan::Make({TensorShape({2, 3}), TensorShape({3})});
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(Runs(*row, 0, 6), (std::vector<RunRecord>{{{0, 0}, 0, 3}, {{3, 0}, 3, 3}}));
  // A range starting mid-row.
  EXPECT_EQ(Runs(*row, 2, 5), (std::vector<RunRecord>{{{2, 2}, 2, 1}, {{3, 0}, 3, 2}}));
  // [2,1] + [2,3]: the column is one element per run.
  StatusOr<BroadcastPlan> col = BroadcastPlan::Make({TensorShape({2, 1}), TensorShape({2, 3})});
  ASSERT_TRUE(col.ok()) << col.status();
  EXPECT_TRUE(col->run_is_scalar(0));
  EXPECT_EQ(Runs(*col, 0, 6), (std::vector<RunRecord>{{{0, 0}, 0, 3}, {{1, 3}, 3, 3}}));
}

TEST(CwiseUtilTest, SizeOneDimsAreDroppedAndAlikeDimsMerged) {
  // [2,1,3,4] + [1,1,3,4] merges the last two dims: two runs of 12.
  StatusOr<BroadcastPlan> plan =
      BroadcastPlan::Make({TensorShape({2, 1, 3, 4}), TensorShape({1, 1, 3, 4})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->row_size(), 12);
  EXPECT_EQ(Runs(*plan, 0, 24), (std::vector<RunRecord>{{{0, 0}, 0, 12}, {{12, 0}, 12, 12}}));
}

TEST(CwiseUtilTest, OuterProductOfThreeOperands) {
  // cond [2,1], t [3], e [] -> [2,3].
  StatusOr<BroadcastPlan> plan =
      BroadcastPlan::Make({TensorShape({2, 1}), TensorShape({3}), TensorShape()});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->output_shape(), TensorShape({2, 3}));
  EXPECT_TRUE(plan->run_is_scalar(0));
  EXPECT_FALSE(plan->run_is_scalar(1));
  EXPECT_TRUE(plan->run_is_scalar(2));
  EXPECT_EQ(Runs(*plan, 0, 6), (std::vector<RunRecord>{{{0, 0, 0}, 0, 3}, {{1, 0, 0}, 3, 3}}));
}

TEST(CwiseUtilTest, IncompatibleAndEmptyShapes) {
  StatusOr<BroadcastPlan> bad = BroadcastPlan::Make({TensorShape({2, 3}), TensorShape({4, 3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Incompatible shapes: [2,3] vs. [4,3]");
  StatusOr<BroadcastPlan> empty = BroadcastPlan::Make({TensorShape({0, 1}), TensorShape({1, 3})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->output_shape(), TensorShape({0, 3}));
  EXPECT_EQ(empty->num_elements(), 0);
  EXPECT_TRUE(Runs(*empty, 0, 0).empty());
  EXPECT_FALSE(BroadcastPlan::Make({TensorShape({0}), TensorShape({2})}).ok());
  StatusOr<BroadcastPlan> scalars = BroadcastPlan::Make({TensorShape(), TensorShape({1, 1})});
  ASSERT_TRUE(scalars.ok()) << scalars.status();
  EXPECT_EQ(scalars->output_shape(), TensorShape({1, 1}));
  EXPECT_EQ(Runs(*scalars, 0, 1), (std::vector<RunRecord>{{{0, 0}, 0, 1}}));
}

}  // namespace
}  // namespace graphrt
