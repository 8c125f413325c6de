// Tests of the array kernels. Expected values were computed with TensorFlow 2.15.1
// (tf.raw_ops.<Op> on the CPU) on iota inputs (0, 1, 2, ... in row-major order), and error
// messages are TensorFlow's.
#include <complex>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/array_test_util.h"

namespace graphrt {
namespace {

using ::tensorflow::DT_BOOL;
using ::tensorflow::DT_COMPLEX64;
using ::tensorflow::DT_FLOAT;
using ::tensorflow::DT_INT32;
using ::tensorflow::DT_INT64;
using ::tensorflow::DT_STRING;
using ::tensorflow::DT_UINT8;
using testing::AttrBool;
using testing::AttrInt;
using testing::AttrString;
using testing::AttrType;
using testing::ExpectTensor;
using testing::Int32Matrix;
using testing::Iota;
using testing::MakeNode;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;

::tensorflow::NodeDef Node(
    const std::string& op, DataType t = DT_FLOAT,
    std::vector<std::pair<std::string, ::tensorflow::AttrValue>> attrs = {}) {
  attrs.push_back({op == "GatherV2" || op == "Gather" ? "Tparams" : "T", AttrType(t)});
  return MakeNode(op, attrs);
}

Tensor Strings(const std::vector<std::string>& values, const TensorShape& shape) {
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

std::vector<std::string> StringValues(const Tensor& t) {
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.NumElements());
}

// ---------------------------------------------------------------------------------------------
// Pack, Unpack

TEST(ArrayOpsTest, PackAlongMiddleAxis) {
  auto node = Node("Pack", DT_FLOAT, {{"N", AttrInt(3)}, {"axis", AttrInt(1)}});
  ExpectTensor(RunOne(node, {Iota({2, 3}), Iota({2, 3}, 10), Iota({2, 3}, 20)}),
               TensorShape({2, 3, 3}),
               {0, 1, 2, 10, 11, 12, 20, 21, 22, 3, 4, 5, 13, 14, 15, 23, 24, 25});
  auto last = Node("Pack", DT_FLOAT, {{"N", AttrInt(2)}, {"axis", AttrInt(-1)}});
  ExpectTensor(RunOne(last, {Iota({2}), Iota({2}, 10)}), TensorShape({2, 2}), {0, 10, 1, 11});
}

TEST(ArrayOpsTest, PackScalarsEmptyAndSingle) {
  auto scalars = Node("Pack", DT_INT32, {{"N", AttrInt(3)}});
  ExpectTensor(RunOne(scalars, {Tensor::Scalar<int32_t>(4), Tensor::Scalar<int32_t>(5),
                                Tensor::Scalar<int32_t>(6)}),
               TensorShape({3}), {4, 5, 6});
  auto empty = Node("Pack", DT_FLOAT, {{"N", AttrInt(2)}, {"axis", AttrInt(1)}});
  ExpectTensor(RunOne(empty, {Iota({0, 2}), Iota({0, 2})}), TensorShape({0, 2, 2}), {});
  Tensor x = Iota({3});
  Tensor single = RunOne(Node("Pack", DT_FLOAT, {{"N", AttrInt(1)}}), {x});
  ExpectTensor(single, TensorShape({1, 3}), {0, 1, 2});
  EXPECT_TRUE(single.SharesBufferWith(x));
}

TEST(ArrayOpsTest, PackErrors) {
  auto node = Node("Pack", DT_FLOAT, {{"N", AttrInt(2)}});
  EXPECT_EQ(RunError(node, {Iota({2}), Iota({3})}),
            "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]");
  auto axis = Node("Pack", DT_FLOAT, {{"N", AttrInt(2)}, {"axis", AttrInt(3)}});
  EXPECT_EQ(RunError(axis, {Iota({2}), Iota({2})}), "axis = 3 not in [-2, 2)");
}

TEST(ArrayOpsTest, UnpackAlongAxis1) {
  auto node = Node("Unpack", DT_FLOAT, {{"num", AttrInt(2)}, {"axis", AttrInt(1)}});
  auto out = RunKernel(node, {Iota({3, 2, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  ExpectTensor((*out)[0], TensorShape({3, 4}), {0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19});
  ExpectTensor((*out)[1], TensorShape({3, 4}), {4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23});
}

TEST(ArrayOpsTest, UnpackAlongAxis0SharesTheBuffer) {
  Tensor x = Iota<int64_t>({3, 2});
  auto out = RunKernel(Node("Unpack", DT_INT64, {{"num", AttrInt(3)}}), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 3; ++i) {
    ExpectTensor((*out)[i], TensorShape({2}), {2.0 * i, 2.0 * i + 1});
    EXPECT_TRUE((*out)[i].SharesBufferWith(x));
  }
  EXPECT_EQ(RunError(Node("Unpack", DT_FLOAT, {{"num", AttrInt(3)}}), {Iota({2, 3})}),
            "Input shape axis 0 must equal 3, got shape [2,3]");
  EXPECT_EQ(RunError(Node("Unpack", DT_FLOAT, {{"num", AttrInt(1)}}), {Tensor::Scalar(1.0f)}),
            "axis = 0 not in [0, 0)");
}

// ---------------------------------------------------------------------------------------------
// ConcatV2, Concat

::tensorflow::NodeDef ConcatNode(int n, DataType t = DT_FLOAT, DataType tidx = DT_INT32) {
  return Node("ConcatV2", t, {{"N", AttrInt(n)}, {"Tidx", AttrType(tidx)}});
}

TEST(ArrayOpsTest, ConcatV2) {
  ExpectTensor(
      RunOne(ConcatNode(3),
             {Iota({2, 3}), Iota({2, 1}, 100), Iota({2, 4}, 200), Tensor::Scalar<int32_t>(1)}),
      TensorShape({2, 8}), {0, 1, 2, 100, 200, 201, 202, 203, 3, 4, 5, 101, 204, 205, 206, 207});
  ExpectTensor(RunOne(ConcatNode(2, DT_FLOAT, DT_INT64),
                      {Iota({1, 3, 2}), Iota({2, 3, 2}, 100), Tensor::Scalar<int64_t>(-3)}),
               TensorShape({3, 3, 2}),
               {0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111});
}

TEST(ArrayOpsTest, ConcatV2EmptyInputsAndLegacyForms) {
  ExpectTensor(
      RunOne(ConcatNode(3), {Iota({0, 3}), Iota({2, 3}), Iota({0, 3}), Tensor::Scalar<int32_t>(0)}),
      TensorShape({2, 3}), {0, 1, 2, 3, 4, 5});
  ExpectTensor(RunOne(ConcatNode(2), {Iota({0, 3}), Iota({0, 3}), Tensor::Scalar<int32_t>(0)}),
               TensorShape({0, 3}), {});
  // A one-element axis vector is accepted, and scalars join into a vector.
  ExpectTensor(RunOne(ConcatNode(2), {Iota({2}), Iota({1}, 7), Tensor::Vector<int32_t>({0})}),
               TensorShape({3}), {0, 1, 7});
  ExpectTensor(RunOne(ConcatNode(2),
                      {Tensor::Scalar(1.0f), Tensor::Scalar(2.0f), Tensor::Scalar<int32_t>(0)}),
               TensorShape({2}), {1, 2});
}

TEST(ArrayOpsTest, ConcatStringsBoolsAndOldConcat) {
  Tensor a = Strings({"a", "bb", "c", "dd"}, TensorShape({2, 2}));
  Tensor b = Strings({"x", "yy"}, TensorShape({2, 1}));
  Tensor out = RunOne(ConcatNode(2, DT_STRING), {a, b, Tensor::Scalar<int32_t>(1)});
  EXPECT_EQ(out.shape(), TensorShape({2, 3}));
  EXPECT_EQ(StringValues(out), std::vector<std::string>({"a", "bb", "x", "c", "dd", "yy"}));
  Tensor t(DT_BOOL, TensorShape({2}));
  t.data<bool>()[0] = true;
  t.data<bool>()[1] = false;
  auto old = Node("Concat", DT_BOOL, {{"N", AttrInt(2)}});
  ExpectTensor(RunOne(old, {Tensor::Scalar<int32_t>(0), t, t}), TensorShape({4}), {1, 0, 1, 0});
}

TEST(ArrayOpsTest, ConcatErrors) {
  EXPECT_EQ(RunError(ConcatNode(2), {Iota({2, 3}), Iota({3, 3}), Tensor::Scalar<int32_t>(1)}),
            "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [2,3] vs. shape[1] = "
            "[3,3]");
  EXPECT_EQ(RunError(ConcatNode(2), {Iota({2, 3}), Iota({3}), Tensor::Scalar<int32_t>(0)}),
            "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. shape[1] = "
            "[3]");
  EXPECT_EQ(RunError(ConcatNode(2), {Iota({2, 3}), Iota({2, 3}), Tensor::Scalar<int32_t>(2)}),
            "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2");
  EXPECT_EQ(RunError(ConcatNode(2), {Iota({2, 3}), Iota({2, 3}), Tensor::Vector<int32_t>({0, 1})}),
            "axis tensor should be a scalar integer, but got shape [2]");
}

// ---------------------------------------------------------------------------------------------
// Split, SplitV

TEST(ArrayOpsTest, Split) {
  auto out = RunKernel(Node("Split", DT_FLOAT, {{"num_split", AttrInt(3)}}),
                       {Tensor::Scalar<int32_t>(1), Iota({2, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensor((*out)[0], TensorShape({2, 2}), {0, 1, 6, 7});
  ExpectTensor((*out)[1], TensorShape({2, 2}), {2, 3, 8, 9});
  ExpectTensor((*out)[2], TensorShape({2, 2}), {4, 5, 10, 11});
  // Along dim 0 the pieces share the input's buffer.
  Tensor x = Iota({4, 3});
  auto rows = RunKernel(Node("Split", DT_FLOAT, {{"num_split", AttrInt(2)}}),
                        {Tensor::Scalar<int32_t>(-2), x});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ExpectTensor((*rows)[1], TensorShape({2, 3}), {6, 7, 8, 9, 10, 11});
  EXPECT_TRUE((*rows)[1].SharesBufferWith(x));
}

TEST(ArrayOpsTest, SplitV) {
  auto node = Node("SplitV", DT_FLOAT, {{"num_split", AttrInt(3)}, {"Tlen", AttrType(DT_INT32)}});
  auto out = RunKernel(
      node, {Iota({2, 6}), Tensor::Vector<int32_t>({1, -1, 2}), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensor((*out)[0], TensorShape({2, 1}), {0, 6});
  ExpectTensor((*out)[1], TensorShape({2, 3}), {1, 2, 3, 7, 8, 9});
  ExpectTensor((*out)[2], TensorShape({2, 2}), {4, 5, 10, 11});
  auto with_zero = RunKernel(
      node, {Iota({6, 1}), Tensor::Vector<int32_t>({3, 0, -1}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(with_zero.ok()) << with_zero.status();
  ExpectTensor((*with_zero)[1], TensorShape({0, 1}), {});
  ExpectTensor((*with_zero)[2], TensorShape({3, 1}), {3, 4, 5});
}

TEST(ArrayOpsTest, SplitErrors) {
  auto split = Node("Split", DT_FLOAT, {{"num_split", AttrInt(2)}});
  EXPECT_EQ(RunError(split, {Tensor::Scalar<int32_t>(1), Iota({2, 3})}),
            "Number of ways to split should evenly divide the split dimension, but got split_dim "
            "1 (size = 3) and num_split 2");
  EXPECT_EQ(RunError(split, {Tensor::Scalar<int32_t>(2), Iota({2, 4})}),
            "-input rank(-2) <= split_dim < input rank (2), but got 2");
  auto splitv = Node("SplitV", DT_FLOAT, {{"num_split", AttrInt(2)}, {"Tlen", AttrType(DT_INT32)}});
  Tensor axis = Tensor::Scalar<int32_t>(1);
  EXPECT_EQ(RunError(splitv, {Iota({2, 6}), Tensor::Vector<int32_t>({1, 2}), axis}),
            "Determined shape must either match input shape along split_dim exactly if fully "
            "specified, or be less than the size of the input along split_dim if not fully "
            "specified.  Got: 3");
  EXPECT_EQ(RunError(splitv, {Iota({2, 6}), Tensor::Vector<int32_t>({-1, -1}), axis}),
            "There can only be one -1 in the input.");
  EXPECT_EQ(RunError(splitv, {Iota({2, 6}), Tensor::Vector<int32_t>({-2, 8}), axis}),
            "Split size at index 0 must be >= 0. Got: -2");
  EXPECT_EQ(RunError(splitv, {Iota({2, 6}), Tensor::Vector<int32_t>({1, 2, 3}), axis}),
            "size of the split_tensor must be 1-D and have the same elements as outputs got 1 -D "
            "and 3 elements");
}

// ---------------------------------------------------------------------------------------------
// Slice, StridedSlice

::tensorflow::NodeDef SliceNode() {
  return Node("Slice", DT_FLOAT, {{"Index", AttrType(DT_INT32)}});
}

TEST(ArrayOpsTest, Slice) {
  ExpectTensor(RunOne(SliceNode(), {Iota({3, 4, 5}), Tensor::Vector<int32_t>({1, 0, 2}),
                                    Tensor::Vector<int32_t>({2, -1, 3})}),
               TensorShape({2, 4, 3}), {22, 23, 24, 27, 28, 29, 32, 33, 34, 37, 38, 39,
                                        42, 43, 44, 47, 48, 49, 52, 53, 54, 57, 58, 59});
  Tensor x = Iota({4, 3});
  Tensor rows =
      RunOne(SliceNode(), {x, Tensor::Vector<int32_t>({1, 0}), Tensor::Vector<int32_t>({2, 3})});
  ExpectTensor(rows, TensorShape({2, 3}), {3, 4, 5, 6, 7, 8});
  EXPECT_TRUE(rows.SharesBufferWith(x));
  ExpectTensor(RunOne(SliceNode(), {Iota({0, 3}), Tensor::Vector<int32_t>({0, 0}),
                                    Tensor::Vector<int32_t>({-1, -1})}),
               TensorShape({0, 3}), {});
}

TEST(ArrayOpsTest, SliceErrors) {
  Tensor x = Iota({2, 3, 4});
  EXPECT_EQ(RunError(SliceNode(),
                     {x, Tensor::Vector<int32_t>({0, 0, 0}), Tensor::Vector<int32_t>({3, 1, 1})}),
            "Expected size[0] in [0, 2], but got 3");
  EXPECT_EQ(RunError(SliceNode(),
                     {x, Tensor::Vector<int32_t>({-1, 0, 0}), Tensor::Vector<int32_t>({1, 1, 1})}),
            "Expected begin[0] in [0, 2], but got -1");
  EXPECT_EQ(
      RunError(SliceNode(), {x, Tensor::Vector<int32_t>({0, 0}), Tensor::Vector<int32_t>({1, 1})}),
      "Expected begin and size arguments to be 1-D tensors of size 3, but got shapes [2] and "
      "[2] instead.");
}

struct StridedCase {
  const char* name;
  std::vector<int32_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

// tf.raw_ops.StridedSlice on iota [3, 4, 5].
// clang-format off
const StridedCase kStridedCases[] = {
    {"basic", {1, 0, 2}, {3, 4, 5}, {1, 2, 1}, 0, 0, 0, 0, 0,
     {2, 2, 3},
     {22, 23, 24, 32, 33, 34, 42, 43, 44, 52, 53, 54}},
    {"negative_strides", {2, 3, 4}, {0, 0, 0}, {-1, -2, -3}, 0, 0, 0, 0, 0,
     {2, 2, 2},
     {59, 56, 49, 46, 39, 36, 29, 26}},
    {"negative_strides_end_mask", {-1, -1, -2}, {0, 0, 0}, {-1, -1, -2}, 0, 7, 0, 0, 0,
     {3, 4, 2},
     {58, 56, 53, 51, 48, 46, 43, 41, 38, 36, 33, 31, 28, 26, 23, 21, 18, 16, 13, 11, 8, 6, 3, 1}},
    {"begin_end_mask", {2, 1, 3}, {3, 4, 5}, {1, 1, 1}, 5, 2, 0, 0, 0,
     {3, 3, 5},
     {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 25, 26, 27, 28, 29, 30, 31, 32, 33,
      34, 35, 36, 37, 38, 39, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59}},
    {"ellipsis_first", {0, 1}, {0, 3}, {1, 1}, 0, 0, 1, 0, 0,
     {3, 4, 2},
     {1, 2, 6, 7, 11, 12, 16, 17, 21, 22, 26, 27, 31, 32, 36, 37, 41, 42, 46, 47, 51, 52, 56, 57}},
    {"ellipsis_middle", {1, 0, 2}, {3, 0, 4}, {1, 1, 1}, 0, 0, 2, 0, 0,
     {2, 4, 2},
     {22, 23, 27, 28, 32, 33, 37, 38, 42, 43, 47, 48, 52, 53, 57, 58}},
    {"new_axis", {0, 0, 1}, {0, 0, 3}, {1, 1, 1}, 1, 1, 0, 2, 0,
     {3, 1, 2, 5},
     {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 45, 46, 47, 48,
      49, 50, 51, 52, 53, 54}},
    {"shrink_0_2", {1, 0, 2}, {2, 0, 3}, {1, 1, 1}, 2, 2, 0, 0, 5,
     {4},
     {22, 27, 32, 37}},
    {"shrink_negative", {-1}, {0}, {1}, 0, 0, 0, 0, 1,
     {4, 5},
     {40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59}},
    {"clamp", {-10, 2, 0}, {10, 100, 3}, {1, 1, 1}, 0, 0, 0, 0, 0,
     {3, 2, 3},
     {10, 11, 12, 15, 16, 17, 30, 31, 32, 35, 36, 37, 50, 51, 52, 55, 56, 57}},
    {"clamp_negative_stride", {100, 10, -100}, {-100, -10, 100}, {-1, -2, 2}, 0, 0, 0, 0, 0,
     {3, 2, 3},
     {55, 57, 59, 45, 47, 49, 35, 37, 39, 25, 27, 29, 15, 17, 19, 5, 7, 9}},
    {"ellipsis_negative_stride", {0, -1}, {0, 0}, {1, -2}, 0, 2, 1, 0, 0,
     {3, 4, 3},
     {4, 2, 0, 9, 7, 5, 14, 12, 10, 19, 17, 15, 24, 22, 20, 29, 27, 25, 34, 32, 30, 39, 37, 35,
      44, 42, 40, 49, 47, 45, 54, 52, 50, 59, 57, 55}},
    {"empty_result", {2, 0, 0}, {1, 4, 5}, {1, 1, 1}, 0, 0, 0, 0, 0,
     {0, 4, 5},
     {}},
    {"ellipsis_new_axis_shrink", {0, 0, 1}, {0, 0, 2}, {1, 1, 1}, 0, 0, 1, 2, 4,
     {3, 4, 1},
     {1, 6, 11, 16, 21, 26, 31, 36, 41, 46, 51, 56}},
    {"all_masks_stride2", {0, 0, 0}, {0, 0, 0}, {2, 2, 2}, 7, 7, 0, 0, 0,
     {2, 2, 3},
     {0, 2, 4, 10, 12, 14, 40, 42, 44, 50, 52, 54}},
    {"new_axis_and_shrink_same_bit", {0, 1}, {0, 2}, {1, 1}, 0, 0, 0, 1, 1,
     {1, 1, 4, 5},
     {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39}},
};
// clang-format on

::tensorflow::NodeDef StridedNode(int bm, int em, int elm, int nam, int sam,
                                  DataType index = DT_INT32, DataType t = DT_FLOAT) {
  return Node("StridedSlice", t,
              {{"Index", AttrType(index)},
               {"begin_mask", AttrInt(bm)},
               {"end_mask", AttrInt(em)},
               {"ellipsis_mask", AttrInt(elm)},
               {"new_axis_mask", AttrInt(nam)},
               {"shrink_axis_mask", AttrInt(sam)}});
}

TEST(ArrayOpsTest, StridedSliceMatchesTensorFlow) {
  for (const StridedCase& c : kStridedCases) {
    SCOPED_TRACE(c.name);
    ExpectTensor(RunOne(StridedNode(c.begin_mask, c.end_mask, c.ellipsis_mask, c.new_axis_mask,
                                    c.shrink_axis_mask),
                        {Iota({3, 4, 5}), Tensor::Vector<int32_t>(c.begin),
                         Tensor::Vector<int32_t>(c.end), Tensor::Vector<int32_t>(c.strides)}),
                 TensorShape(c.shape), c.values);
  }
}

TEST(ArrayOpsTest, StridedSliceOtherIndexTypesAndDtypes) {
  Tensor begin(::tensorflow::DT_INT16, TensorShape({1}));
  Tensor end(::tensorflow::DT_INT16, TensorShape({1}));
  Tensor strides(::tensorflow::DT_INT16, TensorShape({1}));
  begin.data<int16_t>()[0] = 5;
  end.data<int16_t>()[0] = 0;
  strides.data<int16_t>()[0] = -2;
  ExpectTensor(RunOne(StridedNode(0, 0, 0, 0, 0, ::tensorflow::DT_INT16, DT_UINT8),
                      {Iota<uint8_t>({7}), begin, end, strides}),
               TensorShape({3}), {5, 3, 1});
  ExpectTensor(RunOne(StridedNode(0, 0, 0, 0, 0, DT_INT64, DT_INT64),
                      {Iota<int64_t>({7}), Tensor::Vector<int64_t>({1}),
                       Tensor::Vector<int64_t>({6}), Tensor::Vector<int64_t>({2})}),
               TensorShape({3}), {1, 3, 5});
  Tensor s = Strings({"a", "b", "c", "d"}, TensorShape({4}));
  Tensor out = RunOne(StridedNode(1, 1, 0, 0, 0, DT_INT32, DT_STRING),
                      {s, Tensor::Vector<int32_t>({0}), Tensor::Vector<int32_t>({0}),
                       Tensor::Vector<int32_t>({-1})});
  EXPECT_EQ(StringValues(out), std::vector<std::string>({"d", "c", "b", "a"}));
}

TEST(ArrayOpsTest, StridedSliceSharesBuffersWhereTensorFlowDoes) {
  Tensor x = Iota({3, 4, 5});
  Tensor rows = RunOne(StridedNode(0, 0, 0, 0, 0),
                       {x, Tensor::Vector<int32_t>({1}), Tensor::Vector<int32_t>({3}),
                        Tensor::Vector<int32_t>({1})});
  EXPECT_EQ(rows.shape(), TensorShape({2, 4, 5}));
  EXPECT_TRUE(rows.SharesBufferWith(x));
  Tensor all = RunOne(StridedNode(0, 0, 1, 0, 0),
                      {x, Tensor::Vector<int32_t>({0}), Tensor::Vector<int32_t>({0}),
                       Tensor::Vector<int32_t>({1})});
  EXPECT_EQ(all.shape(), x.shape());
  EXPECT_TRUE(all.SharesBufferWith(x));
  Tensor scalar = RunOne(StridedNode(0, 0, 0, 0, 0),
                         {Tensor::Scalar(4.0f), Tensor(DT_INT32, TensorShape({0})),
                          Tensor(DT_INT32, TensorShape({0})), Tensor(DT_INT32, TensorShape({0}))});
  ExpectTensor(scalar, TensorShape({}), {4});
}

TEST(ArrayOpsTest, StridedSliceErrors) {
  Tensor x = Iota({2, 3, 4});
  auto one = [](int32_t v) { return Tensor::Vector<int32_t>({v}); };
  EXPECT_EQ(RunError(StridedNode(0, 0, 0, 0, 0), {x, one(0), one(1), one(0)}),
            "strides[0] must be non-zero");
  EXPECT_EQ(RunError(StridedNode(0, 0, 0, 0, 1), {x, one(5), one(6), one(1)}),
            "slice index 5 of dimension 0 out of bounds.");
  EXPECT_EQ(RunError(StridedNode(0, 0, 0, 0, 1), {x, one(1), one(0), one(-1)}),
            "only stride 1 allowed on non-range indexing.");
  Tensor four = Tensor::Vector<int32_t>({0, 0, 0, 0});
  EXPECT_EQ(
      RunError(StridedNode(0, 0, 0, 0, 0), {x, four, four, Tensor::Vector<int32_t>({1, 1, 1, 1})}),
      "Index out of range using input dim 3; input has only 3 dims");
  Tensor two = Tensor::Vector<int32_t>({0, 0});
  EXPECT_EQ(RunError(StridedNode(0, 0, 3, 0, 0), {x, two, two, Tensor::Vector<int32_t>({1, 1})}),
            "Multiple ellipses in slice spec not allowed");
  EXPECT_EQ(
      RunError(StridedNode(0, 0, 0, 0, 0), {x, two, one(1), Tensor::Vector<int32_t>({1, 1})}),
      "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [1], "
      "and [2] instead.");
}

// ---------------------------------------------------------------------------------------------
// Transpose

::tensorflow::NodeDef TransposeNode(DataType t = DT_FLOAT, const std::string& op = "Transpose") {
  return Node(op, t, {{"Tperm", AttrType(DT_INT32)}});
}

TEST(ArrayOpsTest, TransposeMatchesTensorFlow) {
  ExpectTensor(RunOne(TransposeNode(), {Iota({2, 3, 4}), Tensor::Vector<int32_t>({2, 0, 1})}),
               TensorShape({4, 2, 3}), {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                                        2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  ExpectTensor(
      RunOne(TransposeNode(), {Iota({2, 1, 3, 2, 2}), Tensor::Vector<int32_t>({4, 2, 0, 3, 1})}),
      TensorShape({2, 3, 2, 2, 1}),
      {0, 2, 12, 14, 4, 6, 16, 18, 8, 10, 20, 22, 1, 3, 13, 15, 5, 7, 17, 19, 9, 11, 21, 23});
  ExpectTensor(RunOne(TransposeNode(), {Iota({2, 3, 2, 3}), Tensor::Vector<int32_t>({0, 3, 1, 2})}),
               TensorShape({2, 3, 3, 2}),
               {0,  3,  6,  9,  12, 15, 1,  4,  7,  10, 13, 16, 2,  5,  8,  11, 14, 17,
                18, 21, 24, 27, 30, 33, 19, 22, 25, 28, 31, 34, 20, 23, 26, 29, 32, 35});
}

// Every kernel path (blocked 2-D, batched 2-D, row copies, Eigen shuffle, generic) against a
// direct loop, for several element sizes and thread counts.
TEST(ArrayOpsTest, TransposePathsAgreeWithDirectLoop) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int32_t> perm;
  };
  const Case cases[] = {{{67, 131}, {1, 0}},
                        {{3, 45, 70}, {0, 2, 1}},
                        {{4, 9, 5, 16}, {0, 2, 1, 3}},
                        {{6, 7, 8}, {2, 0, 1}},
                        {{3, 4, 5, 6}, {3, 1, 0, 2}},
                        {{2, 3, 2, 3, 2}, {4, 3, 2, 1, 0}},
                        {{2, 2, 2, 2, 2, 3}, {5, 0, 4, 1, 3, 2}}};
  for (const Case& c : cases) {
    for (DataType t : {DT_FLOAT, DT_UINT8, DT_INT64, ::tensorflow::DT_HALF}) {
      for (int threads : {1, 3}) {
        SCOPED_TRACE(
            StrCat(TensorShape(c.dims).DebugString(), " ", DataTypeString(t), " x", threads));
        Tensor x = Iota<float>(c.dims);
        Tensor typed(t, x.shape());
        VisitNumericType(t, [&](auto tag) {
          using T = typename decltype(tag)::type;
          for (int64_t i = 0; i < x.NumElements(); ++i) {
            typed.data<T>()[i] = static_cast<T>(static_cast<float>(i % 200));
          }
        }).IgnoreError();
        Tensor out = RunOne(TransposeNode(t), {typed, Tensor::Vector<int32_t>(c.perm)}, threads);
        const int rank = static_cast<int>(c.dims.size());
        std::vector<int64_t> out_dims;
        for (int32_t p : c.perm) out_dims.push_back(c.dims[p]);
        ASSERT_EQ(out.shape(), TensorShape(out_dims));
        std::vector<double> in_values = testing::Values(typed), out_values = testing::Values(out);
        std::vector<int64_t> index(rank, 0);
        for (int64_t o = 0; o < out.NumElements(); ++o) {
          int64_t in_flat = 0;
          for (int d = 0; d < rank; ++d) {
            int64_t coord = 0;
            for (int k = 0; k < rank; ++k) {
              if (c.perm[k] == d) coord = index[k];
            }
            in_flat = in_flat * c.dims[d] + coord;
          }
          ASSERT_EQ(out_values[o], in_values[in_flat]) << "output element " << o;
          for (int k = rank - 1; k >= 0 && ++index[k] == out_dims[k]; --k) index[k] = 0;
        }
      }
    }
  }
}

TEST(ArrayOpsTest, TransposeWithoutDataMovementSharesTheBuffer) {
  Tensor x = Iota({2, 1, 3});
  Tensor same = RunOne(TransposeNode(), {x, Tensor::Vector<int32_t>({0, 1, 2})});
  EXPECT_TRUE(same.SharesBufferWith(x));
  Tensor moved_one = RunOne(TransposeNode(), {x, Tensor::Vector<int32_t>({1, 0, 2})});
  ExpectTensor(moved_one, TensorShape({1, 2, 3}), {0, 1, 2, 3, 4, 5});
  EXPECT_TRUE(moved_one.SharesBufferWith(x));
  ExpectTensor(RunOne(TransposeNode(), {Iota({0, 3}), Tensor::Vector<int32_t>({1, 0})}),
               TensorShape({3, 0}), {});
  ExpectTensor(RunOne(TransposeNode(), {Tensor::Scalar(2.0f), Tensor(DT_INT32, TensorShape({0}))}),
               TensorShape({}), {2});
}

TEST(ArrayOpsTest, TransposeStringsAndConjugate) {
  Tensor s = Strings({"a", "b", "c", "d", "e", "f"}, TensorShape({2, 3}));
  Tensor out = RunOne(TransposeNode(DT_STRING), {s, Tensor::Vector<int32_t>({1, 0})});
  EXPECT_EQ(StringValues(out), std::vector<std::string>({"a", "d", "b", "e", "c", "f"}));
  Tensor z(DT_COMPLEX64, TensorShape({2, 1}));
  z.data<std::complex<float>>()[0] = {1, 2};
  z.data<std::complex<float>>()[1] = {3, -4};
  Tensor conj = RunOne(TransposeNode(DT_COMPLEX64, "ConjugateTranspose"),
                       {z, Tensor::Vector<int32_t>({1, 0})});
  EXPECT_EQ(conj.shape(), TensorShape({1, 2}));
  EXPECT_EQ(conj.data<std::complex<float>>()[0], std::complex<float>(1, -2));
  EXPECT_EQ(conj.data<std::complex<float>>()[1], std::complex<float>(3, 4));
  Tensor plain = RunOne(TransposeNode(DT_FLOAT, "ConjugateTranspose"),
                        {Iota({2, 2}), Tensor::Vector<int32_t>({1, 0})});
  ExpectTensor(plain, TensorShape({2, 2}), {0, 2, 1, 3});
}

TEST(ArrayOpsTest, TransposeErrors) {
  Tensor x = Iota({2, 3, 4});
  EXPECT_EQ(RunError(TransposeNode(), {x, Tensor::Vector<int32_t>({0, 1})}),
            "transpose expects a vector of size 3. But input(1) is a vector of size 2");
  EXPECT_EQ(RunError(TransposeNode(), {x, Tensor::Vector<int32_t>({0, 1, 1})}),
            "2 is missing from {0,1,1}.");
  EXPECT_EQ(RunError(TransposeNode(), {x, Tensor::Vector<int32_t>({0, 1, 3})}),
            "3 is out of range [0 .. 3)");
  EXPECT_EQ(RunError(TransposeNode(), {x, Int32Matrix({{0, 1, 2}})}),
            "perm must be rank 1, got shape [1,3]");
}

// ---------------------------------------------------------------------------------------------
// Pad, PadV2, MirrorPad

::tensorflow::NodeDef PadNode(const std::string& op = "Pad", DataType t = DT_FLOAT) {
  return Node(op, t, {{"Tpaddings", AttrType(DT_INT32)}});
}

TEST(ArrayOpsTest, Pad) {
  ExpectTensor(RunOne(PadNode(), {Iota({3, 4}), Int32Matrix({{1, 2}, {0, 3}})}),
               TensorShape({6, 7}),
               {0, 0, 0,  0,  0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 7, 0, 0, 0,
                8, 9, 10, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  ExpectTensor(
      RunOne(PadNode("PadV2"), {Iota({2, 3}), Int32Matrix({{1, 2}, {0, 1}}), Tensor::Scalar(9.0f)}),
      TensorShape({5, 4}), {9, 9, 9, 9, 0, 1, 2, 9, 3, 4, 5, 9, 9, 9, 9, 9, 9, 9, 9, 9});
  ExpectTensor(RunOne(PadNode(), {Iota({2, 1, 3}), Int32Matrix({{0, 1}, {2, 1}, {1, 0}})}),
               TensorShape({3, 4, 4}),
               {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  Tensor paddings(DT_INT64, TensorShape({1, 2}));
  paddings.data<int64_t>()[0] = 2;
  paddings.data<int64_t>()[1] = 0;
  auto i64 = Node("Pad", DT_INT64, {{"Tpaddings", AttrType(DT_INT64)}});
  ExpectTensor(RunOne(i64, {Iota<int64_t>({2}, 5), paddings}), TensorShape({4}), {0, 0, 5, 6});
}

TEST(ArrayOpsTest, PadEdgeCases) {
  Tensor x = Iota({2, 2});
  Tensor same = RunOne(PadNode(), {x, Int32Matrix({{0, 0}, {0, 0}})});
  EXPECT_TRUE(same.SharesBufferWith(x));
  ExpectTensor(RunOne(PadNode(), {Iota({0, 2}), Int32Matrix({{1, 1}, {0, 1}})}),
               TensorShape({2, 3}), {0, 0, 0, 0, 0, 0});
  ExpectTensor(RunOne(PadNode(), {Tensor::Scalar(3.0f), Tensor(DT_INT32, TensorShape({0, 2}))}),
               TensorShape({}), {3});
  Tensor s = Strings({"a", "b"}, TensorShape({2}));
  Tensor padded = RunOne(PadNode("PadV2", DT_STRING),
                         {s, Int32Matrix({{1, 1}}), Strings({"-"}, TensorShape({}))});
  EXPECT_EQ(StringValues(padded), std::vector<std::string>({"-", "a", "b", "-"}));
  Tensor empty_strings = RunOne(PadNode("Pad", DT_STRING), {s, Int32Matrix({{0, 1}})});
  EXPECT_EQ(StringValues(empty_strings), std::vector<std::string>({"a", "b", ""}));
}

TEST(ArrayOpsTest, PadErrors) {
  Tensor x = Iota({2, 3, 4});
  EXPECT_EQ(RunError(PadNode(), {x, Int32Matrix({{0, 1}})}),
            "The first dimension of paddings must be the rank of inputs[1,2] [2,3,4]");
  EXPECT_EQ(RunError(PadNode(), {x, Int32Matrix({{0, -1}, {0, 0}, {0, 0}})}),
            "Paddings must be non-negative: 0 -1");
  EXPECT_EQ(RunError(PadNode(), {x, Tensor::Vector<int32_t>({1, 1})}),
            "paddings must be a matrix with 2 columns: [2]");
  EXPECT_EQ(RunError(PadNode("PadV2"),
                     {x, Int32Matrix({{1, 1}, {1, 1}, {1, 1}}), Tensor::Vector<float>({1.0f})}),
            "constant_values must be a scalar. Found: [1]");
}

::tensorflow::NodeDef MirrorNode(const std::string& mode, DataType t = DT_FLOAT) {
  return Node("MirrorPad", t, {{"Tpaddings", AttrType(DT_INT32)}, {"mode", AttrString(mode)}});
}

TEST(ArrayOpsTest, MirrorPad) {
  ExpectTensor(RunOne(MirrorNode("REFLECT"), {Iota({3, 4}), Int32Matrix({{1, 2}, {2, 1}})}),
               TensorShape({6, 7}),
               {6,  5, 4, 5, 6,  7,  6,  2, 1, 0, 1, 2, 3, 2, 6, 5, 4, 5, 6, 7, 6,
                10, 9, 8, 9, 10, 11, 10, 6, 5, 4, 5, 6, 7, 6, 2, 1, 0, 1, 2, 3, 2});
  ExpectTensor(RunOne(MirrorNode("SYMMETRIC"), {Iota({3, 4}), Int32Matrix({{3, 3}, {0, 3}})}),
               TensorShape({9, 7}),
               {8, 9, 10, 11, 11, 10, 9, 4, 5, 6, 7, 7, 6, 5, 0, 1, 2,  3,  3,  2,  1,
                0, 1, 2,  3,  3,  2,  1, 4, 5, 6, 7, 7, 6, 5, 8, 9, 10, 11, 11, 10, 9,
                8, 9, 10, 11, 11, 10, 9, 4, 5, 6, 7, 7, 6, 5, 0, 1, 2,  3,  3,  2,  1});
  Tensor pads = Int32Matrix({{0, 1}, {1, 1}, {2, 0}});
  ExpectTensor(
      RunOne(MirrorNode("REFLECT"), {Iota({2, 3, 4}), pads}), TensorShape({3, 5, 6}),
      {6,  5,  4,  5,  6,  7,  2,  1,  0,  1,  2,  3,  6,  5,  4,  5,  6,  7,  10, 9,  8,  9,  10,
       11, 6,  5,  4,  5,  6,  7,  18, 17, 16, 17, 18, 19, 14, 13, 12, 13, 14, 15, 18, 17, 16, 17,
       18, 19, 22, 21, 20, 21, 22, 23, 18, 17, 16, 17, 18, 19, 6,  5,  4,  5,  6,  7,  2,  1,  0,
       1,  2,  3,  6,  5,  4,  5,  6,  7,  10, 9,  8,  9,  10, 11, 6,  5,  4,  5,  6,  7});
  ExpectTensor(
      RunOne(MirrorNode("SYMMETRIC", DT_INT32), {Iota<int32_t>({2, 3, 4}), pads}),
      TensorShape({3, 5, 6}),
      {1,  0,  0,  1,  2,  3,  1,  0,  0,  1,  2,  3,  5,  4,  4,  5,  6,  7,  9,  8,  8,  9,  10,
       11, 9,  8,  8,  9,  10, 11, 13, 12, 12, 13, 14, 15, 13, 12, 12, 13, 14, 15, 17, 16, 16, 17,
       18, 19, 21, 20, 20, 21, 22, 23, 21, 20, 20, 21, 22, 23, 13, 12, 12, 13, 14, 15, 13, 12, 12,
       13, 14, 15, 17, 16, 16, 17, 18, 19, 21, 20, 20, 21, 22, 23, 21, 20, 20, 21, 22, 23});
}

TEST(ArrayOpsTest, MirrorPadErrors) {
  Tensor x = Iota({2, 3, 4});
  EXPECT_EQ(RunError(MirrorNode("REFLECT"), {x, Int32Matrix({{0, 2}, {0, 0}, {0, 0}})}),
            "paddings must be less than the dimension size: 0, 2 not less than 2");
  EXPECT_EQ(RunError(MirrorNode("SYMMETRIC"), {x, Int32Matrix({{0, 3}, {0, 0}, {0, 0}})}),
            "paddings must be no greater than the dimension size: 0, 3 greater than 2");
  EXPECT_EQ(RunError(MirrorNode("SYMMETRIC"), {x, Int32Matrix({{0, -1}, {0, 0}, {0, 0}})}),
            "paddings must be non-negative: 0 -1");
}

// ---------------------------------------------------------------------------------------------
// Tile, Reverse, BroadcastTo

::tensorflow::NodeDef TileNode(DataType t = DT_FLOAT) {
  return Node("Tile", t, {{"Tmultiples", AttrType(DT_INT32)}});
}

TEST(ArrayOpsTest, Tile) {
  ExpectTensor(RunOne(TileNode(), {Iota({2, 3}), Tensor::Vector<int32_t>({2, 3})}),
               TensorShape({4, 9}), {0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5,
                                     0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5});
  ExpectTensor(RunOne(TileNode(), {Iota({2, 1, 3}), Tensor::Vector<int32_t>({2, 3, 1})}),
               TensorShape({4, 3, 3}), {0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5,
                                        0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5});
  ExpectTensor(RunOne(TileNode(), {Iota({2, 3}), Tensor::Vector<int32_t>({0, 2})}),
               TensorShape({0, 6}), {});
  Tensor x = Iota({2});
  EXPECT_TRUE(RunOne(TileNode(), {x, Tensor::Vector<int32_t>({1})}).SharesBufferWith(x));
  ExpectTensor(RunOne(TileNode(), {Tensor::Scalar(1.5f), Tensor(DT_INT32, TensorShape({0}))}),
               TensorShape({}), {1.5});
  EXPECT_EQ(RunError(TileNode(), {Iota({2, 3}), Tensor::Vector<int32_t>({1})}),
            "Expected multiples argument to be a vector of length 2 but got length 1");
  EXPECT_EQ(RunError(TileNode(), {Iota({2, 3}), Tensor::Vector<int32_t>({1, -1})}),
            "Expected multiples[1] >= 0, but got -1");
}

TEST(ArrayOpsTest, Reverse) {
  auto v2 = Node("ReverseV2", DT_FLOAT, {{"Tidx", AttrType(DT_INT32)}});
  ExpectTensor(
      RunOne(v2, {Iota({2, 3, 4}), Tensor::Vector<int32_t>({0, -1})}), TensorShape({2, 3, 4}),
      {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  Tensor dims(DT_BOOL, TensorShape({3}));
  dims.data<bool>()[0] = false;
  dims.data<bool>()[1] = true;
  dims.data<bool>()[2] = true;
  ExpectTensor(
      RunOne(Node("Reverse"), {Iota({2, 3, 4}), dims}), TensorShape({2, 3, 4}),
      {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12});
  EXPECT_EQ(RunError(v2, {Iota({2, 3, 4}), Tensor::Vector<int32_t>({5})}),
            "'axis'[0] = 5 is out of valid range [0, 2");
  EXPECT_EQ(RunError(v2, {Iota({2, 3, 4}), Tensor::Vector<int32_t>({1, -2})}),
            "axis 1 specified more than once.");
}

// ---------------------------------------------------------------------------------------------
// GatherV2, Gather, OneHot

::tensorflow::NodeDef GatherNode(int batch_dims = 0, DataType t = DT_FLOAT) {
  return Node("GatherV2", t,
              {{"Tindices", AttrType(DT_INT32)},
               {"Taxis", AttrType(DT_INT32)},
               {"batch_dims", AttrInt(batch_dims)}});
}

TEST(ArrayOpsTest, GatherV2MatchesTensorFlow) {
  ExpectTensor(RunOne(GatherNode(),
                      {Iota({5, 4}), Tensor::Vector<int32_t>({3, 1}), Tensor::Scalar<int32_t>(1)}),
               TensorShape({5, 2}), {3, 1, 7, 5, 11, 9, 15, 13, 19, 17});
  ExpectTensor(RunOne(GatherNode(), {Iota({2, 3, 4}), Int32Matrix({{0, 3}, {2, 2}, {1, 0}}),
                                     Tensor::Scalar<int32_t>(-1)}),
               TensorShape({2, 3, 3, 2}),
               {0,  3,  2,  2,  1,  0,  4,  7,  6,  6,  5,  4,  8,  11, 10, 10, 9,  8,
                12, 15, 14, 14, 13, 12, 16, 19, 18, 18, 17, 16, 20, 23, 22, 22, 21, 20});
  ExpectTensor(RunOne(GatherNode(1), {Iota({2, 5, 3}), Int32Matrix({{0, 4, 1, 1}, {3, 2, 0, 4}}),
                                      Tensor::Scalar<int32_t>(1)}),
               TensorShape({2, 4, 3}), {0,  1,  2,  12, 13, 14, 3,  4,  5,  3,  4,  5,
                                        24, 25, 26, 21, 22, 23, 15, 16, 17, 27, 28, 29});
  ExpectTensor(RunOne(GatherNode(1),
                      {Iota({2, 3, 4}), Int32Matrix({{0, 3}, {2, 1}}), Tensor::Scalar<int32_t>(2)}),
               TensorShape({2, 3, 2}), {0, 3, 4, 7, 8, 11, 14, 13, 18, 17, 22, 21});
  Tensor idx(DT_INT32, TensorShape({2, 3, 2}));
  const int32_t idx_values[] = {0, 3, 1, 1, 2, 0, 3, 3, 0, 1, 2, 2};
  std::copy(idx_values, idx_values + 12, idx.data<int32_t>());
  ExpectTensor(RunOne(GatherNode(2), {Iota({2, 3, 4, 2}), idx, Tensor::Scalar<int32_t>(2)}),
               TensorShape({2, 3, 2, 2}), {0,  1,  6,  7,  10, 11, 10, 11, 20, 21, 16, 17,
                                           30, 31, 30, 31, 32, 33, 34, 35, 44, 45, 44, 45});
}

TEST(ArrayOpsTest, GatherScalarIndexEmptyAndOtherTypes) {
  ExpectTensor(
      RunOne(GatherNode(), {Iota({5, 3}), Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(0)}),
      TensorShape({3}), {9, 10, 11});
  ExpectTensor(RunOne(GatherNode(), {Iota({5, 3}), Tensor(DT_INT32, TensorShape({0})),
                                     Tensor::Scalar<int32_t>(0)}),
               TensorShape({0, 3}), {});
  Tensor s = Strings({"a", "b", "c"}, TensorShape({3}));
  Tensor out = RunOne(GatherNode(0, DT_STRING),
                      {s, Tensor::Vector<int32_t>({2, 0, 2}), Tensor::Scalar<int32_t>(0)});
  EXPECT_EQ(StringValues(out), std::vector<std::string>({"c", "a", "c"}));
  auto old = Node("Gather", DT_INT64, {{"Tindices", AttrType(DT_INT64)}});
  ExpectTensor(RunOne(old, {Iota<int64_t>({4}, 10), Tensor::Vector<int64_t>({3, 0})}),
               TensorShape({2}), {13, 10});
  // Many rows on several threads.
  Tensor big = RunOne(GatherNode(),
                      {Iota({1000, 8}), Tensor::Vector<int32_t>(std::vector<int32_t>(5000, 999)),
                       Tensor::Scalar<int32_t>(0)},
                      4);
  ASSERT_EQ(big.shape(), TensorShape({5000, 8}));
  EXPECT_EQ(big.data<float>()[4999 * 8 + 7], 7999.0f);
}

TEST(ArrayOpsTest, GatherErrors) {
  Tensor x = Iota({2, 3, 4});
  EXPECT_EQ(RunError(GatherNode(), {x, Int32Matrix({{0, 1}, {5, 0}}), Tensor::Scalar<int32_t>(0)}),
            "indices[1,0] = 5 is not in [0, 2)");
  EXPECT_EQ(RunError(GatherNode(), {x, Tensor::Vector<int32_t>({-1}), Tensor::Scalar<int32_t>(1)}),
            "indices[0] = -1 is not in [0, 3)");
  EXPECT_EQ(RunError(GatherNode(), {x, Tensor::Scalar<int32_t>(7), Tensor::Scalar<int32_t>(1)}),
            "indices = 7 is not in [0, 3)");
  EXPECT_EQ(RunError(GatherNode(), {x, Tensor::Vector<int32_t>({0}), Tensor::Scalar<int32_t>(3)}),
            "Shape must be at least rank 4 but is rank 3");
  EXPECT_EQ(RunError(GatherNode(1), {x, Int32Matrix({{0}}), Tensor::Scalar<int32_t>(0)}),
            "batch_dims (1) must be less than or equal to axis (0).");
  EXPECT_EQ(RunError(GatherNode(1), {x, Int32Matrix({{0}, {1}, {1}}), Tensor::Scalar<int32_t>(1)}),
            "params.shape[0]: 2 should be equal to indices.shape[0]: 3");
  EXPECT_EQ(RunError(GatherNode(3), {x, Int32Matrix({{0}, {1}}), Tensor::Scalar<int32_t>(2)}),
            "Expected batch_dims in the range [-2, 2], but got 3");
  EXPECT_EQ(RunError(GatherNode(), {Tensor::Scalar(1.0f), Tensor::Vector<int32_t>({0}),
                                    Tensor::Scalar<int32_t>(0)}),
            "params must be at least 1 dimensional");
}

TEST(ArrayOpsTest, OneHot) {
  auto node = Node("OneHot", DT_FLOAT, {{"TI", AttrType(DT_INT32)}, {"axis", AttrInt(1)}});
  ExpectTensor(RunOne(node, {Int32Matrix({{0, 2}, {-1, 5}}), Tensor::Scalar<int32_t>(3),
                             Tensor::Scalar(5.0f), Tensor::Scalar(-1.0f)}),
               TensorShape({2, 3, 2}), {5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1});
  auto last = Node("OneHot", DT_INT32, {{"TI", AttrType(DT_INT64)}});
  ExpectTensor(RunOne(last, {Tensor::Vector<int64_t>({1, 0}), Tensor::Scalar<int32_t>(2),
                             Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(0)}),
               TensorShape({2, 2}), {0, 1, 1, 0});
  EXPECT_EQ(RunError(node, {Int32Matrix({{0}}), Tensor::Scalar<int32_t>(-1), Tensor::Scalar(1.0f),
                            Tensor::Scalar(0.0f)}),
            "depth must be non-negative, got: -1");
  auto bad_axis = Node("OneHot", DT_FLOAT, {{"TI", AttrType(DT_INT32)}, {"axis", AttrInt(5)}});
  EXPECT_EQ(RunError(bad_axis, {Tensor::Vector<int32_t>({0}), Tensor::Scalar<int32_t>(3),
                                Tensor::Scalar(1.0f), Tensor::Scalar(0.0f)}),
            "Expected axis to be -1 or between [0, 2).  But received: 5");
}

}  // namespace
}  // namespace graphrt
