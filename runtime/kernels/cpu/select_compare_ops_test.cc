#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/math_test_util.h"

namespace graphrt {
namespace testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor Bools(const TensorShape& shape, const std::vector<bool>& values) {
  return MakeTensor<bool>(shape, values);
}

Tensor Strings(const std::vector<std::string>& values) {
  Tensor t(::tensorflow::DT_STRING, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

StatusOr<Tensor> RunSelect(const char* op, const Tensor& c, const Tensor& t, const Tensor& e) {
  return RunOp(op, {c, t, e}, {{"T", AttrType(t.dtype())}});
}

TEST(SelectCompareOpsTest, ComparisonsBroadcastAndHandleNaN) {
  const Tensor x =
      MakeTensor<float>(TensorShape({2, 3}), std::vector<double>{1, kNaN, 3, -kInf, 2, 2});
  const Tensor y = MakeTensor<float>(TensorShape({3}), std::vector<double>{2, 2, 2});
  const std::vector<std::pair<const char*, std::vector<bool>>> cases = {
      {"Less", {true, false, false, true, false, false}},
      {"LessEqual", {true, false, false, true, true, true}},
      {"Greater", {false, false, true, false, false, false}},
      {"GreaterEqual", {false, false, true, false, true, true}},
      {"Equal", {false, false, false, false, true, true}},
      {"NotEqual", {true, true, true, true, false, false}},
  };
  for (const auto& [op, expected] : cases) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> z = RunOp(op, {x, y});
    ASSERT_TRUE(z.ok()) << z.status();
    EXPECT_EQ(z->dtype(), ::tensorflow::DT_BOOL);
    EXPECT_EQ(z->shape(), TensorShape({2, 3}));
    EXPECT_EQ(Values<bool>(*z), expected);
  }
}

TEST(SelectCompareOpsTest, ComparisonsOfOtherTypes) {
  StatusOr<Tensor> ints =
      RunOp("Greater", {MakeTensor<uint64_t>(TensorShape({3}), std::vector<uint64_t>{0, 5, ~0ull}),
                        MakeScalar<uint64_t>(4)});
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_EQ(Values<bool>(*ints), (std::vector<bool>{false, true, true}));
  StatusOr<Tensor> halves =
      RunOp("LessEqual", {MakeTensor<half>(TensorShape({3}), std::vector<double>{0.5, 1, 1.5}),
                          MakeScalar<half>(half(1.0f))});
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_EQ(Values<bool>(*halves), (std::vector<bool>{true, true, false}));
  StatusOr<Tensor> bools =
      RunOp("Equal", {Bools(TensorShape({2}), {true, false}), MakeScalar<bool>(true)});
  ASSERT_TRUE(bools.ok()) << bools.status();
  EXPECT_EQ(Values<bool>(*bools), (std::vector<bool>{true, false}));
  StatusOr<Tensor> strings = RunOp("Equal", {Strings({"a", "b"}), Strings({"a"})});
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(Values<bool>(*strings), (std::vector<bool>{true, false}));
  StatusOr<Tensor> not_equal = RunOp("NotEqual", {Strings({"a", "b"}), Strings({"a"})});
  ASSERT_TRUE(not_equal.ok()) << not_equal.status();
  EXPECT_EQ(Values<bool>(*not_equal), (std::vector<bool>{false, true}));
  EXPECT_FALSE(RunOp("Less", {MakeScalar<bool>(true), MakeScalar<bool>(false)}).ok());
}

TEST(SelectCompareOpsTest, IncompatibleShapes) {
  const Tensor x = MakeTensor<float>(TensorShape({2}), std::vector<float>{1, 2});
  const Tensor y = MakeTensor<float>(TensorShape({3}), std::vector<float>{1, 2, 3});
  StatusOr<Tensor> strict = RunOp("Equal", {x, y});
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().message(), "Incompatible shapes: [2] vs. [3]");
  // incompatible_shape_error=false: a scalar false (Equal) or true (NotEqual), as TensorFlow.
  StatusOr<Tensor> eq = RunOp("Equal", {x, y}, {{"incompatible_shape_error", AttrBool(false)}});
  ASSERT_TRUE(eq.ok()) << eq.status();
  EXPECT_EQ(eq->shape(), TensorShape());
  EXPECT_FALSE(eq->scalar<bool>());
  StatusOr<Tensor> ne = RunOp("NotEqual", {x, y}, {{"incompatible_shape_error", AttrBool(false)}});
  ASSERT_TRUE(ne.ok()) << ne.status();
  EXPECT_TRUE(ne->scalar<bool>());
  StatusOr<Tensor> compatible =
      RunOp("Equal", {x, MakeTensor<float>(TensorShape({1}), std::vector<float>{1})},
            {{"incompatible_shape_error", AttrBool(false)}});
  ASSERT_TRUE(compatible.ok()) << compatible.status();
  EXPECT_EQ(Values<bool>(*compatible), (std::vector<bool>{true, false}));
  EXPECT_FALSE(RunOp("Less", {x, y}).ok());
}

TEST(SelectCompareOpsTest, LogicalOps) {
  StatusOr<Tensor> a = RunOp("LogicalAnd", {Bools(TensorShape({2, 1}), {true, false}),
                                            Bools(TensorShape({2}), {true, false})});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->shape(), TensorShape({2, 2}));
  EXPECT_EQ(Values<bool>(*a), (std::vector<bool>{true, false, false, false}));
  StatusOr<Tensor> o = RunOp("LogicalOr", {Bools(TensorShape({2, 1}), {true, false}),
                                           Bools(TensorShape({2}), {true, false})});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(Values<bool>(*o), (std::vector<bool>{true, true, true, false}));
  StatusOr<Tensor> n = RunOp("LogicalNot", {Bools(TensorShape({3}), {true, false, true})});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(Values<bool>(*n), (std::vector<bool>{false, true, false}));
  StatusOr<Tensor> bad = RunOp("LogicalAnd", {Bools(TensorShape({3}), {true, false, true}),
                                              Bools(TensorShape({2}), {true, false})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Incompatible shapes: [3] vs. [2]");
}

TEST(SelectCompareOpsTest, ApproximateEqual) {
  StatusOr<Tensor> z =
      RunOp("ApproximateEqual",
            {MakeTensor<float>(TensorShape({4}), std::vector<double>{1, 2, kNaN, kInf}),
             MakeTensor<float>(TensorShape({4}), std::vector<double>{1.000001, 2.1, kNaN, kInf})});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(Values<bool>(*z), (std::vector<bool>{true, false, false, false}));  // as TensorFlow
  StatusOr<Tensor> bad =
      RunOp("ApproximateEqual", {MakeTensor<float>(TensorShape({2}), std::vector<float>{1, 2}),
                                 MakeTensor<float>(TensorShape({1}), std::vector<float>{1})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "x and y must be of the same shape. x shape: [2]. y shape: [1]");
}

TEST(SelectCompareOpsTest, SelectElementwiseRowsAndScalar) {
  const Tensor t = MakeTensor<float>(TensorShape({2, 2}), std::vector<float>{1, 2, 5, 6});
  const Tensor e = MakeTensor<float>(TensorShape({2, 2}), std::vector<float>{3, 4, 7, 8});
  StatusOr<Tensor> rows = RunSelect("Select", Bools(TensorShape({2}), {true, false}), t, e);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(Values<float>(*rows), (std::vector<float>{1, 2, 7, 8}));
  StatusOr<Tensor> same =
      RunSelect("Select", Bools(TensorShape({2, 2}), {true, false, false, true}), t, e);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(Values<float>(*same), (std::vector<float>{1, 4, 7, 6}));
  StatusOr<Tensor> scalar = RunSelect("Select", MakeScalar<bool>(false), t, e);
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(Values<float>(*scalar), (std::vector<float>{3, 4, 7, 8}));
  // Rank 3, cond picking rows of [2,2,3].
  std::vector<int> tv(12), ev(12);
  for (int i = 0; i < 12; ++i) {
    tv[i] = i;
    ev[i] = 100 + i;
  }
  StatusOr<Tensor> rank3 = RunSelect("Select", Bools(TensorShape({2}), {false, true}),
                                     MakeTensor<int64_t>(TensorShape({2, 2, 3}), tv),
                                     MakeTensor<int64_t>(TensorShape({2, 2, 3}), ev));
  ASSERT_TRUE(rank3.ok()) << rank3.status();
  EXPECT_EQ(Values<int64_t>(*rank3),
            (std::vector<int64_t>{100, 101, 102, 103, 104, 105, 6, 7, 8, 9, 10, 11}));
}

TEST(SelectCompareOpsTest, SelectOfStringsAndVectors) {
  StatusOr<Tensor> s = RunSelect("Select", Bools(TensorShape({2}), {true, false}),
                                 Strings({"a", "b"}), Strings({"c", "d"}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Values<std::string>(*s), (std::vector<std::string>{"a", "d"}));
  StatusOr<Tensor> h = RunSelect("Select", Bools(TensorShape({3}), {true, false, true}),
                                 MakeTensor<half>(TensorShape({3}), std::vector<float>{1, 2, 3}),
                                 MakeTensor<half>(TensorShape({3}), std::vector<float>{4, 5, 6}));
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(AsDoubles<half>(*h), (std::vector<double>{1, 5, 3}));
}

TEST(SelectCompareOpsTest, SelectErrorsMatchTensorFlow) {
  const Tensor t = MakeTensor<float>(TensorShape({2, 2}), std::vector<float>{1, 2, 5, 6});
  const Tensor e = MakeTensor<float>(TensorShape({2, 2}), std::vector<float>{3, 4, 7, 8});
  StatusOr<Tensor> rows = RunSelect("Select", Bools(TensorShape({3}), {true, false, true}), t, e);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(),
            "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3");
  StatusOr<Tensor> mismatch =
      RunSelect("Select", Bools(TensorShape({2}), {true, false}),
                MakeTensor<float>(TensorShape({2}), std::vector<float>{1, 2}),
                MakeTensor<float>(TensorShape({3}), std::vector<float>{1, 2, 3}));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().message(),
            "Inputs to operation n of type Select must have the same size and shape.  Input 0: "
            "[2] != input 2: [3]");
  StatusOr<Tensor> scalar_then = RunSelect("Select", Bools(TensorShape({1}), {true}),
                                           MakeScalar<float>(1), MakeScalar<float>(2));
  ASSERT_FALSE(scalar_then.ok());
  EXPECT_EQ(scalar_then.status().message(), "'then' must be at least a vector, but saw shape: []");
  StatusOr<Tensor> broadcast = RunSelect("Select", Bools(TensorShape({1, 2}), {true, false}), t, e);
  EXPECT_FALSE(broadcast.ok());  // Select does not broadcast; SelectV2 does
  StatusOr<Tensor> scalar_cond =
      RunSelect("Select", MakeScalar<bool>(true), t,
                MakeTensor<float>(TensorShape({4}), std::vector<float>{1, 2, 3, 4}));
  ASSERT_FALSE(scalar_cond.ok());
  EXPECT_EQ(scalar_cond.status().message(),
            "'then' and 'else' must have the same size.  but received: [2,2] vs. [4]");
}

TEST(SelectCompareOpsTest, SelectV2Broadcasts) {
  StatusOr<Tensor> z = RunSelect("SelectV2", Bools(TensorShape({2, 1}), {true, false}),
                                 MakeTensor<float>(TensorShape({3}), std::vector<float>{1, 2, 3}),
                                 MakeScalar<float>(0));
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<float>(*z), (std::vector<float>{1, 2, 3, 0, 0, 0}));
  // The condition varying along the innermost dim, then and else along the outer one.
  StatusOr<Tensor> mixed =
      RunSelect("SelectV2", Bools(TensorShape({3}), {true, false, true}),
                MakeTensor<int32_t>(TensorShape({2, 1}), std::vector<int>{1, 2}),
                MakeTensor<int32_t>(TensorShape({2, 3}), std::vector<int>{10, 11, 12, 13, 14, 15}));
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ(Values<int32_t>(*mixed), (std::vector<int32_t>{1, 11, 1, 2, 14, 2}));
  StatusOr<Tensor> bad = RunSelect("SelectV2", Bools(TensorShape({2}), {true, false}),
                                   MakeTensor<float>(TensorShape({3}), std::vector<float>{1, 2, 3}),
                                   MakeScalar<float>(0));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "condition [2], then [3], and else [] must be broadcastable");
  StatusOr<Tensor> empty = RunSelect("SelectV2", Bools(TensorShape({0}), {}), MakeScalar<float>(1),
                                     MakeScalar<float>(2));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0}));
}

TEST(SelectCompareOpsTest, SelectV2LargeAcrossThreads) {
  std::vector<bool> c(5000);
  std::vector<float> t(5000 * 8), e(8);
  for (size_t i = 0; i < c.size(); ++i) c[i] = i % 3 == 0;
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i);
  for (size_t i = 0; i < e.size(); ++i) e[i] = -static_cast<float>(i);
  StatusOr<Tensor> z =
      RunOp("SelectV2",
            {Bools(TensorShape({5000, 1}), c), MakeTensor<float>(TensorShape({5000, 8}), t),
             MakeTensor<float>(TensorShape({8}), e)},
            {{"T", AttrType(::tensorflow::DT_FLOAT)}}, 4);
  ASSERT_TRUE(z.ok()) << z.status();
  for (size_t i = 0; i < 5000; ++i) {
    for (size_t j = 0; j < 8; ++j) {
      ASSERT_EQ(z->data<float>()[i * 8 + j], c[i] ? t[i * 8 + j] : e[j]) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
