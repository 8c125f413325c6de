// Tests of the random kernels against numbers computed with TensorFlow 2.15.1 on the CPU
// (tf.raw_ops.<Op>(shape=..., dtype=..., seed=..., seed2=...)), compared bit for bit.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "runtime/devices/device.h"
#include "runtime/kernels/kernel_registry.h"
#include "tests/kernel_test_util.h"

namespace graphrt {
namespace {

using ::tensorflow::DT_BFLOAT16;
using ::tensorflow::DT_DOUBLE;
using ::tensorflow::DT_FLOAT;
using ::tensorflow::DT_HALF;
using ::tensorflow::DT_INT32;
using ::tensorflow::DT_INT64;
using testing::AttrInt;
using testing::AttrType;
using testing::MakeNode;
using testing::RunKernel;

::tensorflow::NodeDef RandomNode(const std::string& op, DataType dtype, int64_t seed,
                                 int64_t seed2) {
  return MakeNode(op, {{"dtype", AttrType(dtype)},
                       {"T", AttrType(DT_INT32)},
                       {"seed", AttrInt(seed)},
                       {"seed2", AttrInt(seed2)}});
}

// The bits of element i (floats of any width), to compare exactly.
uint64_t BitsAt(const Tensor& t, int64_t i) {
  switch (DataTypeSize(t.dtype())) {
    case 2:
      return static_cast<const uint16_t*>(t.raw_data())[i];
    case 4:
      return static_cast<const uint32_t*>(t.raw_data())[i];
    default:
      return static_cast<const uint64_t*>(t.raw_data())[i];
  }
}

struct SeededCase {
  const char* op;
  DataType dtype;
  std::vector<uint64_t> bits;  // of shape [7, 3], seed 1, seed2 2
};

// tf.raw_ops.<op>(shape=[7, 3], dtype=<dtype>, seed=1, seed2=2), as bit patterns.
const SeededCase kSeededCases[] = {
    {"RandomUniform",
     ::tensorflow::DT_FLOAT,
     {0x3ed0133c, 0x3f5b8ba6, 0x3d62e6c0, 0x3dafddd0, 0x3ed305cc, 0x3d160a40, 0x3f283f22,
      0x3db3cf30, 0x3f5e7caa, 0x3d2cf660, 0x3eb51118, 0x3e73be98, 0x3d8bf520, 0x3efbfd3c,
      0x3f3389c4, 0x3f2bca90, 0x3f195050, 0x3ed570f4, 0x3f68dcb6, 0x3f1a02b0, 0x3e109a58}},
    {"RandomUniform",
     ::tensorflow::DT_DOUBLE,
     {0x3fd0133e33b7174c, 0x3fdc5cd8282bf774, 0x3fd305cf6c12c148, 0x3fd07e44382cf3cc,
      0x3fee7caab50acf66, 0x3fea888cfd3cefa6, 0x3fe17ea4cc7dfe9e, 0x3fe389c57babca90,
      0x3fe95050666ab87a, 0x3fd1b96c27340560, 0x3fc09a5d62894ff0, 0x3fe09206cf8d741e,
      0x3fe2ff1f238b03a8, 0x3fd901bccceaae64, 0x3fe8300d0294be90, 0x3fe59d165cfd7cbe,
      0x3fed29a74b90da98, 0x3fecb95a204dc3fa, 0x3fd7b2ec3c2a8198, 0x3fef7928c69c39d2,
      0x3fdaf356abb07888}},
    {"RandomUniform",
     ::tensorflow::DT_HALF,
     {0x3278, 0x374c, 0x3a6c, 0x3774, 0x35cc, 0x2d20, 0x3b22, 0x3398, 0x38aa, 0x3b66, 0x2c60,
      0x3ba6, 0x3aa4, 0x3a9e, 0x3310, 0x3520, 0x2900, 0x2ba0, 0x38b6, 0x3560, 0x3a96}},
    {"RandomUniform",
     ::tensorflow::DT_BFLOAT16,
     {0x3f1e, 0x3f26, 0x3ed8, 0x3f3a, 0x3f66, 0x3f24, 0x3e08, 0x3f66, 0x3f2a, 0x3ecc, 0x3f0c,
      0x3f26, 0x3f24, 0x3f1e, 0x3f44, 0x3f10, 0x3ea0, 0x3ef4, 0x3f36, 0x3f30, 0x3f16}},
    {"RandomStandardNormal",
     ::tensorflow::DT_FLOAT,
     {0xbf85fcdd, 0x3f56f6e1, 0x3f9e2fe3, 0x4004150f, 0x3e9b842a, 0x3fa5edfb, 0x3ef5dbd8,
      0x3f47c36a, 0x3e0e3d73, 0x3f02ddd6, 0x3fb808dc, 0x3dddd852, 0x3de96c5b, 0xc01414f1,
      0xbf3da8bb, 0xbecd4153, 0x3f015124, 0xbf60ab80, 0xbe84cd9d, 0xbeb2f7cb, 0xbfbd050d}},
    {"RandomStandardNormal",
     ::tensorflow::DT_DOUBLE,
     {0x3fe298089076cdd3, 0xbff8eb3aca515204, 0x3ff8e4f44037f289, 0xbfb34d61b9fd07a9,
      0xbfd1816ab358dc28, 0x3fc30293969a8e6e, 0xbfe683254bbe0fe9, 0xbfeb040f6e8efb92,
      0x3fe598ac5fe86c45, 0xbfbd87a6b50ef753, 0xbfccea153b3e6384, 0xc000114db2ab5db6,
      0x3fe4b7155fdb4b9a, 0xbfe9469cf4c14046, 0xbfe55c8846296246, 0xbfd59fe9f3f06984,
      0xbfd08a975d54ef84, 0x3fd61141029c6130, 0xbfc2a06da7b04978, 0x3ff66ec7170b56c4,
      0xbff4c9ce4f0187c9}},
    {"RandomStandardNormal",
     ::tensorflow::DT_HALF,
     {0xbc30, 0x3ab8, 0x3cf1, 0x4021, 0x34dc, 0x3d2f, 0x37af, 0x3a3e, 0x3072, 0x3817, 0x3dc0,
      0x2eef, 0x2f4b, 0xc0a1, 0xb9ed, 0xb66a, 0x380b, 0xbb05, 0xb426, 0xb598, 0xbde8}},
    {"RandomStandardNormal",
     ::tensorflow::DT_BFLOAT16,
     {0xbf86, 0x3f57, 0x3f9e, 0x4004, 0x3e9c, 0x3fa6, 0x3ef6, 0x3f48, 0x3e0e, 0x3f03, 0x3fb8,
      0x3dde, 0x3de9, 0xc014, 0xbf3e, 0xbecd, 0x3f01, 0xbf61, 0xbe85, 0xbeb3, 0xbfbd}},
    {"TruncatedNormal",
     ::tensorflow::DT_FLOAT,
     {0xbf85fcdd, 0x3f56f6e1, 0x3f9e2fe3, 0x3e9b842a, 0x3ec7027f, 0x3f9e4c57, 0x3e762ae7,
      0xbe20e9fd, 0xbe27f63a, 0xbf7dac4f, 0xbf8b76e5, 0xbe9a44f5, 0xbf9b0be8, 0x3fb94a52,
      0x3cce9609, 0x3f8f0584, 0xbff9b483, 0x3f326a93, 0xbddf1a2b, 0xbf517c4e, 0x3f9abe02}},
    {"TruncatedNormal",
     ::tensorflow::DT_DOUBLE,
     {0x3fe298089076cdd3, 0xbff8eb3aca515204, 0xbff212c734d3894d, 0xbfe0803aba843b6c,
      0xbff20bf7ca0d8c29, 0xbfe1e326f34231da, 0x3ff013f256794a06, 0x3fcff77610125143,
      0x3fe330b1d9847a73, 0x3fba9b77853d5041, 0x3fd905c3cf945e9d, 0xbfb89d975ad206dc,
      0x3ff6be1dd6de1a77, 0xbfd3b8842c97f9c5, 0x3fe3f18e89cb3d81, 0xbfc865c33260dd9e,
      0x3fc8a8b8d40d0c31, 0x3fd736ad8e744941, 0x3fcdd6a8ba2fb1fb, 0xbffd2a6754728f3f,
      0xbff166ba7b80183f}},
    {"TruncatedNormal",
     ::tensorflow::DT_HALF,
     {0xbc30, 0x3ab8, 0x3cf1, 0x34dc, 0x3638, 0x3cf2, 0x33b1, 0xb107, 0xb140, 0xbbed, 0xbc5c,
      0xb4d2, 0xbcd8, 0x3dca, 0x2675, 0x3c78, 0xbfce, 0x3993, 0xaef9, 0xba8c, 0x3cd6}},
    {"TruncatedNormal",
     ::tensorflow::DT_BFLOAT16,
     {0xbf86, 0x3f57, 0x3f9e, 0x3e9c, 0x3ec7, 0x3f9e, 0x3e76, 0xbe21, 0xbe28, 0xbf7e, 0xbf8b,
      0xbe9a, 0xbf9b, 0x3fb9, 0x3ccf, 0x3f8f, 0xbffa, 0x3f32, 0xbddf, 0xbf51, 0x3f9b}},
};

TEST(RandomOpsTest, MatchesTensorFlowBitForBit) {
  for (const SeededCase& c : kSeededCases) {
    SCOPED_TRACE(StrCat(c.op, " ", DataTypeString(c.dtype)));
    auto out = RunKernel(RandomNode(c.op, c.dtype, 1, 2), {Tensor::Vector<int32_t>({7, 3})});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& t = (*out)[0];
    ASSERT_EQ(t.shape(), TensorShape({7, 3}));
    ASSERT_EQ(t.dtype(), c.dtype);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      EXPECT_EQ(BitsAt(t, i), c.bits[i]) << "element " << i;
    }
  }
}

struct LargeCase {
  const char* op;
  std::vector<uint32_t> bits;  // at kLargeIndices
  double sum;                  // of all 1027 values, in double
};

const int64_t kLargeIndices[] = {0, 1, 2, 3, 4, 511, 512, 513, 1000, 1023, 1024, 1025, 1026};

// tf.raw_ops.<op>(shape=[1027], dtype=tf.float32, seed=87654321, seed2=7): a size past one
// thread's share and not a multiple of 4.
const LargeCase kLargeCases[] = {
    {"RandomUniform",
     {0x3ef7c71c, 0x3f019686, 0x3e82a234, 0x3dff78e0, 0x3f6ed9c0, 0x3da45030, 0x3f11e12e,
      0x3f56c1da, 0x3f40f5de, 0x3f695be8, 0x3f2839ae, 0x3e1255d8, 0x3f25bf8c},
     520.1493872404099},
    {"RandomStandardNormal",
     {0xbd404a1e, 0xbf9a1979, 0x3f955adb, 0x3f95d6e4, 0xbea3e03f, 0x3f360547, 0xbf663e0e,
      0x3f0fe275, 0xbf3ec95f, 0x3ebf40f8, 0x3f3774cf, 0x3f1235ce, 0xbf6d31b6},
     -17.707721735190717},
    {"TruncatedNormal",
     {0xbd404a1e, 0xbf9a1979, 0x3f955adb, 0x3f95d6e4, 0x3f3774cf, 0x3cf6049e, 0x3faa8985,
      0x3f193f5c, 0xbf6f264e, 0x3f468aec, 0x3f15b321, 0x3fa6ffb6, 0xbf46085a},
     -14.037198242265731},
};

TEST(RandomOpsTest, LargeOutputsMatchTensorFlowOnManyThreads) {
  for (const LargeCase& c : kLargeCases) {
    SCOPED_TRACE(c.op);
    for (int threads : {1, 4}) {
      auto out = RunKernel(RandomNode(c.op, DT_FLOAT, 87654321, 7),
                           {Tensor::Vector<int64_t>({1027})}, threads);
      ASSERT_TRUE(out.ok()) << out.status();
      const Tensor& t = (*out)[0];
      for (size_t k = 0; k < c.bits.size(); ++k) {
        EXPECT_EQ(BitsAt(t, kLargeIndices[k]), c.bits[k]) << "element " << kLargeIndices[k];
      }
      double sum = 0;
      for (int64_t i = 0; i < t.NumElements(); ++i) sum += t.data<float>()[i];
      EXPECT_NEAR(sum, c.sum, 1e-9);
    }
  }
}

TEST(RandomOpsTest, UniformIntMatchesTensorFlow) {
  // tf.raw_ops.RandomUniformInt(shape=[7], minval=-5, maxval=6, seed=1, seed2=2)
  auto node = [](DataType t, int64_t seed, int64_t seed2) {
    return MakeNode("RandomUniformInt", {{"Tout", AttrType(t)},
                                         {"T", AttrType(DT_INT32)},
                                         {"seed", AttrInt(seed)},
                                         {"seed2", AttrInt(seed2)}});
  };
  auto i32 = RunKernel(
      node(DT_INT32, 1, 2),
      {Tensor::Vector<int32_t>({7}), Tensor::Scalar<int32_t>(-5), Tensor::Scalar<int32_t>(6)});
  ASSERT_TRUE(i32.ok()) << i32.status();
  EXPECT_EQ(std::vector<int32_t>((*i32)[0].data<int32_t>(), (*i32)[0].data<int32_t>() + 7),
            std::vector<int32_t>({0, 0, 1, 4, 1, -2, -2}));
  auto i64 = RunKernel(
      node(DT_INT64, 1, 2),
      {Tensor::Vector<int32_t>({7}), Tensor::Scalar<int64_t>(-5), Tensor::Scalar<int64_t>(6)});
  ASSERT_TRUE(i64.ok()) << i64.status();
  EXPECT_EQ(std::vector<int64_t>((*i64)[0].data<int64_t>(), (*i64)[0].data<int64_t>() + 7),
            std::vector<int64_t>({-2, 4, 2, 1, -1, 2, -2}));
  // The full int32 range: the span does not fit a signed int32.
  auto full = RunKernel(node(DT_INT32, 3, 4),
                        {Tensor::Vector<int32_t>({5}), Tensor::Scalar<int32_t>(INT32_MIN),
                         Tensor::Scalar<int32_t>(INT32_MAX)});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(std::vector<int32_t>((*full)[0].data<int32_t>(), (*full)[0].data<int32_t>() + 5),
            std::vector<int32_t>({-151634687, 229599812, -1954980207, 501771546, 1178931311}));
}

TEST(RandomOpsTest, SecondRunOfOneKernelContinuesTheStream) {
  // Two Session.run calls of one RandomUniform(shape=[5], seed=1, seed2=2) node in TF 2.15.1.
  const uint32_t run1[] = {0x3ed0133c, 0x3f5b8ba6, 0x3d62e6c0, 0x3dafddd0, 0x3ed305cc};
  const uint32_t run2[] = {0x3e23aa70, 0x3ec853b8, 0x3f73cf7c, 0x3f159926, 0x3f3a178a};
  std::unique_ptr<Device> device = NewCpuDevice(0, 1);
  auto kernel = KernelRegistry::Global()->CreateKernel(
      kDeviceCpu, RandomNode("RandomUniform", DT_FLOAT, 1, 2), device.get(), nullptr);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  for (const uint32_t* expected : {run1, run2}) {
    std::vector<Entry> inputs(1);
    inputs[0].tensor = Tensor::Vector<int32_t>({5});
    inputs[0].has_value = true;
    StepState step;
    OpKernelContext::Params params;
    params.kernel = kernel->get();
    params.device = device.get();
    params.inputs = &inputs;
    params.step = &step;
    OpKernelContext ctx(params);
    ASSERT_TRUE((*kernel)->Compute(&ctx).ok());
    const Tensor& t = ctx.outputs()[0].tensor;
    for (int i = 0; i < 5; ++i) EXPECT_EQ(BitsAt(t, i), expected[i]) << "element " << i;
  }
}

TEST(RandomOpsTest, UnseededKernelsDiffer) {
  auto a = RunKernel(RandomNode("RandomUniform", DT_FLOAT, 0, 0), {Tensor::Vector<int32_t>({8})});
  auto b = RunKernel(RandomNode("RandomUniform", DT_FLOAT, 0, 0), {Tensor::Vector<int32_t>({8})});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(std::memcmp((*a)[0].raw_data(), (*b)[0].raw_data(), 8 * sizeof(float)), 0);
  for (int i = 0; i < 8; ++i) {
    EXPECT_GE((*a)[0].data<float>()[i], 0.0f);
    EXPECT_LT((*a)[0].data<float>()[i], 1.0f);
  }
}

TEST(RandomOpsTest, EmptyAndScalarShapes) {
  auto empty =
      RunKernel(RandomNode("TruncatedNormal", DT_FLOAT, 5, 9), {Tensor::Vector<int32_t>({0, 3})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), TensorShape({0, 3}));
  auto scalar =
      RunKernel(RandomNode("RandomUniform", DT_FLOAT, 1, 2), {Tensor(DT_INT32, TensorShape({0}))});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ((*scalar)[0].shape(), TensorShape({}));
  EXPECT_EQ(BitsAt((*scalar)[0], 0), 0x3ed0133cu);  // the first value of the [7, 3] case
}

TEST(RandomOpsTest, BadInputsAreErrors) {
  auto matrix = RunKernel(RandomNode("RandomUniform", DT_FLOAT, 1, 2),
                          {Tensor(DT_INT32, TensorShape({1, 1}))});
  EXPECT_EQ(matrix.status().code(), Code::kInvalidArgument);
  auto negative = RunKernel(RandomNode("RandomStandardNormal", DT_FLOAT, 1, 2),
                            {Tensor::Vector<int32_t>({-2})});
  EXPECT_EQ(negative.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(negative.status().message(), "Dimension -2 must be >= 0");
  auto node =
      MakeNode("RandomUniformInt", {{"Tout", AttrType(DT_INT32)}, {"T", AttrType(DT_INT32)}});
  auto empty_range = RunKernel(
      node, {Tensor::Vector<int32_t>({2}), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5)});
  EXPECT_EQ(empty_range.status().message(), "Need minval < maxval, got 5 >= 5");
  auto vector_min = RunKernel(node, {Tensor::Vector<int32_t>({2}), Tensor::Vector<int32_t>({5}),
                                     Tensor::Scalar<int32_t>(6)});
  EXPECT_EQ(vector_min.status().message(), "minval must be 0-D, got shape [1]");
}

}  // namespace
}  // namespace graphrt
