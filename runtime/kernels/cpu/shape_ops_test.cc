// Tests of the shape kernels. Expected values and error messages are TensorFlow 2.15.1's
// (tf.raw_ops.<Op> on the CPU).
#include <complex>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/array_test_util.h"

namespace graphrt {
namespace {

using ::tensorflow::DT_BOOL;
using ::tensorflow::DT_COMPLEX64;
using ::tensorflow::DT_DOUBLE;
using ::tensorflow::DT_FLOAT;
using ::tensorflow::DT_HALF;
using ::tensorflow::DT_INT32;
using ::tensorflow::DT_INT64;
using ::tensorflow::DT_STRING;
using testing::AttrInt;
using testing::AttrInts;
using testing::AttrType;
using testing::ExpectTensor;
using testing::Iota;
using testing::MakeNode;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;

::tensorflow::NodeDef ReshapeNode(DataType tshape = DT_INT32) {
  return MakeNode("Reshape", {{"T", AttrType(DT_FLOAT)}, {"Tshape", AttrType(tshape)}});
}

TEST(ShapeOpsTest, ReshapeInfersAndSharesTheBuffer) {
  Tensor x = Iota({2, 3, 4});
  Tensor out = RunOne(ReshapeNode(), {x, Tensor::Vector<int32_t>({-1, 4})});
  EXPECT_EQ(out.shape(), TensorShape({6, 4}));
  EXPECT_TRUE(out.SharesBufferWith(x));
  EXPECT_EQ(RunOne(ReshapeNode(DT_INT64), {x, Tensor::Vector<int64_t>({2, -1, 1, 2})}).shape(),
            TensorShape({2, 6, 1, 2}));
  ExpectTensor(RunOne(ReshapeNode(), {Iota({1}, 7), Tensor(DT_INT32, TensorShape({0}))}),
               TensorShape({}), {7});
  // A scalar shape is the legacy spelling of a one-element vector.
  EXPECT_EQ(RunOne(ReshapeNode(), {Iota({1}), Tensor::Scalar<int32_t>(1)}).shape(),
            TensorShape({1}));
}

TEST(ShapeOpsTest, ReshapeOfEmptyTensorsInfersFromNonZeroDims) {
  // TensorFlow leaves zero sizes out when inferring -1, so [0, 3] -> [0, -1] is [0, 3].
  Tensor empty = Iota({0, 3});
  EXPECT_EQ(RunOne(ReshapeNode(), {empty, Tensor::Vector<int32_t>({0, -1})}).shape(),
            TensorShape({0, 3}));
  EXPECT_EQ(RunOne(ReshapeNode(), {empty, Tensor::Vector<int32_t>({-1, 0})}).shape(),
            TensorShape({3, 0}));
  EXPECT_EQ(RunOne(ReshapeNode(), {empty, Tensor::Vector<int32_t>({-1, 0, 2})}).shape(),
            TensorShape({1, 0, 2}));
  EXPECT_EQ(RunOne(ReshapeNode(), {empty, Tensor::Vector<int32_t>({2, -1})}).shape(),
            TensorShape({2, 0}));
  EXPECT_EQ(RunError(ReshapeNode(), {Iota({2, 3}), Tensor::Vector<int32_t>({0, -1})}),
            "Input to reshape is a tensor with 6 values, but the requested shape has 0");
}

TEST(ShapeOpsTest, ReshapeErrors) {
  Tensor x = Iota({2, 3, 4});
  EXPECT_EQ(RunError(ReshapeNode(), {x, Tensor::Vector<int32_t>({5, 5})}),
            "Input to reshape is a tensor with 24 values, but the requested shape has 25");
  EXPECT_EQ(RunError(ReshapeNode(), {x, Tensor::Vector<int32_t>({-1, -1})}),
            "Only one input size may be -1, not both 0 and 1");
  EXPECT_EQ(RunError(ReshapeNode(), {x, Tensor::Vector<int32_t>({-2, 12})}),
            "Size 0 must be non-negative, not -2");
  EXPECT_EQ(RunError(ReshapeNode(), {x, Tensor::Vector<int32_t>({5, -1})}),
            "Input to reshape is a tensor with 24 values, but the requested shape requires a "
            "multiple of 5");
  Tensor matrix(DT_INT32, TensorShape({1, 1}));
  matrix.data<int32_t>()[0] = 24;
  EXPECT_EQ(RunError(ReshapeNode(), {x, matrix}), "sizes input must be 1-D, not [1,1]");
}

TEST(ShapeOpsTest, Squeeze) {
  auto node = [](std::vector<int64_t> dims) {
    return MakeNode("Squeeze", {{"T", AttrType(DT_FLOAT)}, {"squeeze_dims", AttrInts(dims)}});
  };
  Tensor x = Iota({1, 3, 1, 2});
  Tensor all = RunOne(node({}), {x});
  EXPECT_EQ(all.shape(), TensorShape({3, 2}));
  EXPECT_TRUE(all.SharesBufferWith(x));
  EXPECT_EQ(RunOne(node({-2}), {x}).shape(), TensorShape({1, 3, 2}));
  EXPECT_EQ(RunOne(node({0, 2}), {x}).shape(), TensorShape({3, 2}));
  EXPECT_EQ(RunOne(node({0, 0, -4}), {x}).shape(), TensorShape({3, 1, 2}));
  EXPECT_EQ(RunOne(node({}), {Iota({1, 1})}).shape(), TensorShape({}));
  EXPECT_EQ(RunError(node({1}), {x}), "Can not squeeze dim[1], expected a dimension of 1, got 3");
  EXPECT_EQ(RunError(node({5}), {Iota({2, 3, 4})}),
            "Tried to squeeze dim index 5 for tensor with 3 dimensions.");
}

TEST(ShapeOpsTest, ExpandDims) {
  auto node = [](DataType tdim) {
    return MakeNode("ExpandDims", {{"T", AttrType(DT_FLOAT)}, {"Tdim", AttrType(tdim)}});
  };
  Tensor x = Iota({3, 4});
  Tensor out = RunOne(node(DT_INT32), {x, Tensor::Scalar<int32_t>(0)});
  EXPECT_EQ(out.shape(), TensorShape({1, 3, 4}));
  EXPECT_TRUE(out.SharesBufferWith(x));
  EXPECT_EQ(RunOne(node(DT_INT32), {x, Tensor::Scalar<int32_t>(-1)}).shape(),
            TensorShape({3, 4, 1}));
  EXPECT_EQ(RunOne(node(DT_INT64), {x, Tensor::Scalar<int64_t>(-3)}).shape(),
            TensorShape({1, 3, 4}));
  EXPECT_EQ(RunOne(node(DT_INT32), {x, Tensor::Vector<int32_t>({1})}).shape(),
            TensorShape({3, 1, 4}));
  EXPECT_EQ(RunOne(node(DT_INT32), {Tensor::Scalar(3.0f), Tensor::Scalar<int32_t>(0)}).shape(),
            TensorShape({1}));
  EXPECT_EQ(RunError(node(DT_INT32), {Iota({2, 3, 4}), Tensor::Scalar<int32_t>(5)}),
            "Tried to expand dim index 5 for tensor with 3 dimensions.");
  EXPECT_EQ(RunError(node(DT_INT32), {Iota({2, 3, 4}), Tensor::Scalar<int32_t>(-5)}),
            "Tried to expand dim index -5 for tensor with 3 dimensions.");
  EXPECT_EQ(RunError(node(DT_INT32), {x, Tensor::Vector<int32_t>({1, 2})}),
            "'dim' must be a tensor with a single value");
}

TEST(ShapeOpsTest, ShapeShapeNSizeRank) {
  Tensor x = Iota({2, 3, 4});
  for (DataType out_type : {DT_INT32, DT_INT64}) {
    auto shape = MakeNode("Shape", {{"T", AttrType(DT_FLOAT)}, {"out_type", AttrType(out_type)}});
    Tensor s = RunOne(shape, {x});
    EXPECT_EQ(s.dtype(), out_type);
    ExpectTensor(s, TensorShape({3}), {2, 3, 4});
    ExpectTensor(RunOne(shape, {Tensor::Scalar(1.0f)}), TensorShape({0}), {});
    auto size = MakeNode("Size", {{"T", AttrType(DT_FLOAT)}, {"out_type", AttrType(out_type)}});
    ExpectTensor(RunOne(size, {x}), TensorShape({}), {24});
    ExpectTensor(RunOne(size, {Iota({0, 3})}), TensorShape({}), {0});
  }
  auto shape_n = MakeNode(
      "ShapeN", {{"T", AttrType(DT_FLOAT)}, {"N", AttrInt(2)}, {"out_type", AttrType(DT_INT64)}});
  auto out = RunKernel(shape_n, {x, Tensor::Scalar(2.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensor((*out)[0], TensorShape({3}), {2, 3, 4});
  ExpectTensor((*out)[1], TensorShape({0}), {});
  auto rank = MakeNode("Rank", {{"T", AttrType(DT_BOOL)}});
  ExpectTensor(RunOne(rank, {Tensor(DT_BOOL, TensorShape({0, 3}))}), TensorShape({}), {2});
}

TEST(ShapeOpsTest, Fill) {
  auto node = [](DataType t, DataType index = DT_INT32) {
    return MakeNode("Fill", {{"T", AttrType(t)}, {"index_type", AttrType(index)}});
  };
  ExpectTensor(RunOne(node(DT_FLOAT), {Tensor::Vector<int32_t>({2, 3}), Tensor::Scalar(-1.25f)}),
               TensorShape({2, 3}), {-1.25, -1.25, -1.25, -1.25, -1.25, -1.25});
  ExpectTensor(RunOne(node(DT_INT64, DT_INT64),
                      {Tensor::Vector<int64_t>({3, 1}), Tensor::Scalar<int64_t>(7)}),
               TensorShape({3, 1}), {7, 7, 7});
  ExpectTensor(RunOne(node(DT_FLOAT), {Tensor(DT_INT32, TensorShape({0})), Tensor::Scalar(9.0f)}),
               TensorShape({}), {9});
  ExpectTensor(RunOne(node(DT_FLOAT), {Tensor::Vector<int32_t>({0, 3}), Tensor::Scalar(9.0f)}),
               TensorShape({0, 3}), {});
  Tensor word(DT_STRING, TensorShape({}));
  word.scalar<std::string>() = "hi";
  Tensor strings = RunOne(node(DT_STRING), {Tensor::Vector<int32_t>({2}), word});
  EXPECT_EQ(strings.data<std::string>()[1], "hi");
  // Many elements on several threads.
  Tensor big =
      RunOne(node(DT_FLOAT), {Tensor::Vector<int32_t>({1000, 1000}), Tensor::Scalar(2.0f)}, 4);
  EXPECT_EQ(big.data<float>()[999999], 2.0f);
  EXPECT_EQ(RunError(node(DT_FLOAT), {Tensor::Vector<int32_t>({-2}), Tensor::Scalar(1.0f)}),
            "Dimension -2 must be >= 0");
  EXPECT_EQ(RunError(node(DT_FLOAT), {Tensor::Vector<int32_t>({2}), Tensor::Vector<float>({1, 2})}),
            "value must represent a scalar, got shape [2]");
}

TEST(ShapeOpsTest, ZerosLikeAndOnesLike) {
  auto node = [](const char* op, DataType t) { return MakeNode(op, {{"T", AttrType(t)}}); };
  ExpectTensor(RunOne(node("ZerosLike", DT_FLOAT), {Iota({2, 3}, 1)}), TensorShape({2, 3}),
               {0, 0, 0, 0, 0, 0});
  ExpectTensor(RunOne(node("OnesLike", DT_INT64), {Iota<int64_t>({3})}), TensorShape({3}),
               {1, 1, 1});
  ExpectTensor(RunOne(node("OnesLike", DT_HALF), {Iota<half>({2})}), TensorShape({2}), {1, 1});
  ExpectTensor(RunOne(node("OnesLike", DT_BOOL), {Tensor(DT_BOOL, TensorShape({2}))}),
               TensorShape({2}), {1, 1});
  Tensor z(DT_COMPLEX64, TensorShape({1}));
  z.data<std::complex<float>>()[0] = {1, 2};
  Tensor ones = RunOne(node("OnesLike", DT_COMPLEX64), {z});
  EXPECT_EQ(ones.data<std::complex<float>>()[0], std::complex<float>(1, 0));
  Tensor s(DT_STRING, TensorShape({2}));
  s.data<std::string>()[0] = "x";
  Tensor zeros = RunOne(node("ZerosLike", DT_STRING), {s});
  EXPECT_EQ(zeros.data<std::string>()[0], "");
  ExpectTensor(RunOne(node("ZerosLike", DT_FLOAT), {Iota({0, 3})}), TensorShape({0, 3}), {});
}

::tensorflow::NodeDef RangeNode(DataType t) { return MakeNode("Range", {{"Tidx", AttrType(t)}}); }

template <typename T>
Tensor RunRange(T start, T limit, T delta) {
  return RunOne(RangeNode(DataTypeToEnum<T>::value),
                {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit), Tensor::Scalar<T>(delta)});
}

TEST(ShapeOpsTest, RangeIntegers) {
  ExpectTensor(RunRange<int32_t>(0, 10, 3), TensorShape({4}), {0, 3, 6, 9});
  ExpectTensor(RunRange<int32_t>(10, -3, -4), TensorShape({4}), {10, 6, 2, -2});
  ExpectTensor(RunRange<int32_t>(5, 5, 1), TensorShape({0}), {});
  ExpectTensor(RunRange<int64_t>(7, -6, -3), TensorShape({5}), {7, 4, 1, -2, -5});
  // The span does not fit int32, nor does 3 * delta: counted and filled without overflow.
  ExpectTensor(RunRange<int32_t>(INT32_MIN, INT32_MAX, 1 << 30), TensorShape({4}),
               {INT32_MIN, -(1 << 30), 0, 1 << 30});
  ExpectTensor(RunRange<int32_t>(INT32_MAX, INT32_MIN, -(1 << 30)), TensorShape({4}),
               {2147483647.0, 1073741823.0, -1.0, -1073741825.0});
  Tensor wide = RunRange<int64_t>(INT64_MIN, INT64_MAX, INT64_MAX);
  ASSERT_EQ(wide.shape(), TensorShape({3}));
  EXPECT_EQ(std::vector<int64_t>(wide.data<int64_t>(), wide.data<int64_t>() + 3),
            std::vector<int64_t>({INT64_MIN, -1, INT64_MAX - 1}));
}

TEST(ShapeOpsTest, RangeFloatsMatchTensorFlow) {
  Tensor f = RunRange<float>(0.5f, 3.4f, 0.7f);
  EXPECT_EQ(std::vector<float>(f.data<float>(), f.data<float>() + 5),
            std::vector<float>({0.5f, 1.2000000476837158f, 1.899999976158142f, 2.5999999046325684f,
                                3.299999952316284f}));
  Tensor neg = RunRange<float>(2.0f, -1.1f, -0.6f);
  EXPECT_EQ(std::vector<float>(neg.data<float>(), neg.data<float>() + 6),
            std::vector<float>({2.0f, 1.399999976158142f, 0.7999999523162842f, 0.19999992847442627f,
                                -0.40000009536743164f, -1.0f}));
  ExpectTensor(
      RunRange<double>(-1.0, 2.3, 0.45), TensorShape({8}),
      {-1.0, -0.55, -0.09999999999999998, 0.3500000000000001, 0.8, 1.25, 1.7000000000000002, 2.15});
  Tensor long_range = RunRange<float>(0.1f, 100.0f, 0.3f);
  ASSERT_EQ(long_range.shape(), TensorShape({333}));
  EXPECT_EQ(long_range.data<float>()[332], 99.70000457763672f);
}

TEST(ShapeOpsTest, RangeErrors) {
  auto run = [](int32_t s, int32_t l, int32_t d) {
    return RunError(RangeNode(DT_INT32), {Tensor::Scalar<int32_t>(s), Tensor::Scalar<int32_t>(l),
                                          Tensor::Scalar<int32_t>(d)});
  };
  EXPECT_EQ(run(0, 10, 0), "Requires delta != 0: 0");
  EXPECT_EQ(run(5, 3, 1), "Requires start <= limit when delta > 0: 5/3");
  EXPECT_EQ(run(0, 10, -1), "Requires start >= limit when delta < 0: 0/10");
  EXPECT_EQ(RunError(RangeNode(DT_FLOAT),
                     {Tensor::Scalar(0.5f), Tensor::Scalar(3.4f), Tensor::Scalar(-1.0f)}),
            "Requires start >= limit when delta < 0: 0.5/3.4");
  EXPECT_EQ(RunError(RangeNode(DT_FLOAT),
                     {Tensor::Scalar(0.5f), Tensor::Scalar(std::numeric_limits<float>::infinity()),
                      Tensor::Scalar(1.0f)}),
            "Requires ((limit - start) / delta) <= 9223372036854775807");
  EXPECT_EQ(RunError(RangeNode(DT_INT32), {Tensor::Vector<int32_t>({0, 1}),
                                           Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(1)}),
            "start must be a scalar, not shape [2]");
}

TEST(ShapeOpsTest, BroadcastTo) {
  auto node = MakeNode("BroadcastTo", {{"T", AttrType(DT_FLOAT)}, {"Tidx", AttrType(DT_INT32)}});
  ExpectTensor(RunOne(node, {Iota({3, 1}), Tensor::Vector<int32_t>({2, 3, 4})}),
               TensorShape({2, 3, 4}),
               {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
  ExpectTensor(RunOne(node, {Tensor::Scalar(3.0f), Tensor::Vector<int32_t>({2, 2})}),
               TensorShape({2, 2}), {3, 3, 3, 3});
  ExpectTensor(RunOne(node, {Iota({1}), Tensor::Vector<int32_t>({0})}), TensorShape({0}), {});
  Tensor x = Iota({2, 3});
  EXPECT_TRUE(RunOne(node, {x, Tensor::Vector<int32_t>({2, 3})}).SharesBufferWith(x));
  EXPECT_EQ(RunError(node, {x, Tensor::Vector<int32_t>({4, 3})}),
            "Incompatible shapes: [2,3] vs. [4,3]");
  EXPECT_EQ(RunError(node, {x, Tensor::Vector<int32_t>({3})}),
            "Rank of input (2) must be no greater than rank of output shape (1).");
  EXPECT_EQ(RunError(node, {Iota({3}), Tensor::Vector<int32_t>({1})}),
            "Unable to broadcast tensor of shape [3] to tensor of shape [1]");
}

TEST(ShapeOpsTest, BroadcastArgs) {
  auto node = MakeNode("BroadcastArgs", {{"T", AttrType(DT_INT32)}});
  ExpectTensor(RunOne(node, {Tensor::Vector<int32_t>({2, 1, 3}), Tensor::Vector<int32_t>({4, 1})}),
               TensorShape({3}), {2, 4, 3});
  EXPECT_EQ(RunError(node, {Tensor::Vector<int32_t>({2, 3}), Tensor::Vector<int32_t>({4, 1})}),
            "Incompatible shapes: [2,3] vs. [4,1]");
}

}  // namespace
}  // namespace graphrt
