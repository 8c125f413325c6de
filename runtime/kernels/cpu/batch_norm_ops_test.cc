#include <cmath>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/nn_test_util.h"

namespace graphrt {
namespace testing {
namespace {

using ::tensorflow::DT_FLOAT;

const std::vector<float> kScale = {1.0f, 2.0f, 0.5f};
const std::vector<float> kOffset = {0.1f, 0.2f, 0.3f};
const std::vector<float> kMean = {0.5f, -0.5f, 0.0f};
const std::vector<float> kVariance = {1.0f, 2.0f, 3.0f};

StatusOr<std::vector<Tensor>> BatchNorm(const std::string& op, const Tensor& x, bool training,
                                        const std::string& format, float avg_factor = 1.0f,
                                        std::vector<float> mean = kMean,
                                        std::vector<float> variance = kVariance, int threads = 1) {
  std::vector<std::pair<std::string, ::tensorflow::AttrValue>> attrs = {
      {"T", AttrType(x.dtype())},
      {"epsilon", AttrFloat(0.001f)},
      {"is_training", AttrBool(training)},
      {"data_format", AttrString(format)},
      {"exponential_avg_factor", AttrFloat(avg_factor)}};
  if (op != "FusedBatchNorm") attrs.push_back({"U", AttrType(DT_FLOAT)});
  const int64_t n = static_cast<int64_t>(kScale.size());
  return RunKernel(MakeNode(op, attrs),
                   {x, MakeTensor<float>({n}, kScale), MakeTensor<float>({n}, kOffset),
                    MakeTensor<float>({static_cast<int64_t>(mean.size())}, mean),
                    MakeTensor<float>({static_cast<int64_t>(variance.size())}, variance)},
                   threads);
}

// Expected values computed by TensorFlow 2.15.1 (tf.raw_ops.FusedBatchNormV3, CPU) on
// x = Seq(24, 3, 13, 6, 0.5), epsilon 0.001 and the per-channel values above.
const std::vector<double> kInferenceNhwc = {
    -3.398251533508301, -1.2138601541519165, 0.30000001192092896,  1.0995004177093506,
    5.148510456085205,  -0.2772541046142578, -0.8995003700256348,  2.3207902908325195,
    1.0215675830841064, -2.898501396179199,  -0.5069301128387451,  0.44431352615356445,
    1.5992506742477417, -3.3346505165100098, -0.13294059038162231, -0.3997502028942108,
    3.0277204513549805, 1.1658811569213867,  -2.3987510204315186,  0.20000000298023224,
    0.5886270999908447, 2.0990006923675537,  -2.627720355987549,   0.011372953653335571};

TEST(BatchNormOpsTest, InferenceMatchesTensorFlow) {
  const std::vector<float> x = Seq(24, 3, 13, 6, 0.5f);
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    SCOPED_TRACE(op);
    StatusOr<std::vector<Tensor>> out =
        BatchNorm(op, MakeTensor<float>({2, 2, 2, 3}, x), false, "NHWC");
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), std::string(op) == "FusedBatchNormV3" ? 6u : 5u);
    ExpectAllClose(AsDoubles<float>((*out)[0]), kInferenceNhwc, 1e-6, 1e-7);
    // Inference passes the statistics through.
    EXPECT_EQ(Values<float>((*out)[1]), kMean);
    EXPECT_EQ(Values<float>((*out)[2]), kVariance);
    EXPECT_EQ(Values<float>((*out)[3]), kMean);
    EXPECT_EQ(Values<float>((*out)[4]), kVariance);
    if (out->size() == 6) {
      EXPECT_EQ((*out)[5].shape(), TensorShape({0}));
    }
  }
  StatusOr<std::vector<Tensor>> nchw =
      BatchNorm("FusedBatchNormV3", MakeTensor<float>({2, 3, 2, 2}, x), false, "NCHW");
  ASSERT_TRUE(nchw.ok()) << nchw.status();
  ExpectAllClose(
      AsDoubles<float>((*nchw)[0]),
      {-3.398251533508301, -1.8990007638931274, -0.3997502028942108,  1.0995004177093506,
       5.148510456085205,  -1.920790195465088,  0.20000000298023224,  2.3207902908325195,
       1.0215675830841064, -0.4215676188468933, 0.011372953653335571, 0.44431352615356445,
       1.5992506742477417, -3.398251533508301,  -1.8990007638931274,  -0.3997502028942108,
       3.0277204513549805, 5.148510456085205,   -1.920790195465088,   0.20000000298023224,
       0.5886270999908447, 1.0215675830841064,  -0.4215676188468933,  0.011372953653335571},
      1e-6, 1e-7);
  StatusOr<std::vector<Tensor>> h =
      BatchNorm("FusedBatchNormV3", MakeTensor<half>({2, 2, 2, 3}, x), false, "NHWC");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ((*h)[0].dtype(), ::tensorflow::DT_HALF);
  ExpectAllClose(AsDoubles<half>((*h)[0]), kInferenceNhwc, 1e-3, 1e-4);
  // A 5-D NDHWC input: the same numbers with a depth dim of 1.
  StatusOr<std::vector<Tensor>> ndhwc =
      BatchNorm("FusedBatchNormV3", MakeTensor<float>({2, 1, 2, 2, 3}, x), false, "NDHWC");
  ASSERT_TRUE(ndhwc.ok()) << ndhwc.status();
  ExpectAllClose(AsDoubles<float>((*ndhwc)[0]), kInferenceNhwc, 1e-6, 1e-7);
}

TEST(BatchNormOpsTest, TrainingMatchesTensorFlow) {
  const std::vector<float> x = Seq(24, 3, 13, 6, 0.5f);
  StatusOr<std::vector<Tensor>> out =
      BatchNorm("FusedBatchNormV3", MakeTensor<float>({2, 2, 2, 3}, x), true, "NHWC", 0.25f, kMean,
                kVariance, 2);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectAllClose(
      AsDoubles<float>((*out)[0]),
      {-1.2856937646865845, -0.9641674160957336, 0.2078021764755249,    0.9818052053451538,
       3.692502021789551,   -0.3822639584541321, -0.025972165167331696, 1.6228712797164917,
       0.9453848600387573,  -1.0337494611740112, -0.4467596411705017,   0.35531872510910034,
       1.233749508857727,   -2.516390562057495,  -0.23474740982055664,  0.22597217559814453,
       2.1402788162231445,  1.0929014682769775,  -0.781805157661438,    0.07064807415008545,
       0.5028352737426758,  1.4856938123703003,  -1.9989826679229736,   -0.08723089098930359},
      1e-5, 1e-6);
  // Blended with exponential_avg_factor 0.25; the variance with Bessel's correction.
  ExpectAllClose(AsDoubles<float>((*out)[1]), {0.3125, -0.46875, 0.078125}, 1e-6);
  ExpectAllClose(AsDoubles<float>((*out)[2]), {1.875, 2.5669643878936768, 3.0703125}, 1e-6);
  ExpectAllClose(AsDoubles<float>((*out)[3]), {-0.25, -0.375, 0.3125}, 1e-6);
  ExpectAllClose(AsDoubles<float>((*out)[4]), {3.9375, 3.734375, 2.87109375}, 1e-6);

  // NCHW with empty running statistics (allowed when exponential_avg_factor is 1).
  StatusOr<std::vector<Tensor>> nchw =
      BatchNorm("FusedBatchNormV3", MakeTensor<float>({2, 3, 2, 2}, x), true, "NCHW", 1.0f, {}, {});
  ASSERT_TRUE(nchw.ok()) << nchw.status();
  ExpectAllClose(
      AsDoubles<float>((*nchw)[0]),
      {-1.2087562084197998, -0.359833300113678,  0.489089697599411,   1.3380126953125,
       2.9284021854400635,  -2.3953094482421875, -0.7981959581375122, 0.7989175319671631,
       0.9821005463600159,  -0.3488273620605469, 0.05045102536678314, 0.44972938299179077,
       1.620987057685852,   -1.2087562084197998, -0.359833300113678,  0.489089697599411,
       1.3312888145446777,  2.9284021854400635,  -2.3953094482421875, -0.7981959581375122,
       0.5828222036361694,  0.9821005463600159,  -0.3488273620605469, 0.05045102536678314},
      1e-5, 1e-6);
  ExpectAllClose(AsDoubles<float>((*nchw)[1]), {-0.6875, 0.4375, -0.0625}, 1e-6);
  ExpectAllClose(AsDoubles<float>((*nchw)[2]), {3.5669643878936768, 4.03125, 4.03125}, 1e-6);
  ExpectAllClose(AsDoubles<float>((*nchw)[3]), {-0.6875, 0.4375, -0.0625}, 1e-6);
  ExpectAllClose(AsDoubles<float>((*nchw)[4]), {3.12109375, 3.52734375, 3.52734375}, 1e-6);
}

TEST(BatchNormOpsTest, EmptyBatchGivesNaNStatistics) {
  StatusOr<std::vector<Tensor>> out =
      BatchNorm("FusedBatchNormV3", MakeTensor<float>({0, 2, 2, 3}, Seq(0)), false, "NHWC");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 2, 2, 3}));
  for (float v : Values<float>((*out)[1])) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(Values<float>((*out)[3]), std::vector<float>(3, 0.0f));
}

TEST(BatchNormOpsTest, BadShapesAreErrors) {
  const Tensor x = MakeTensor<float>({1, 2, 2, 2}, Seq(8));
  StatusOr<std::vector<Tensor>> rank3 =
      BatchNorm("FusedBatchNormV3", MakeTensor<float>({2, 2, 3}, Seq(12)), false, "NHWC");
  EXPECT_EQ(rank3.status().message(), "input must be 4 or 5-dimensional[2,2,3]");
  StatusOr<std::vector<Tensor>> channels = BatchNorm("FusedBatchNormV3", x, false, "NHWC");
  EXPECT_EQ(channels.status().message(),
            "scale must have the same number of elements as the channels of x, got 3 and 2");
  StatusOr<std::vector<Tensor>> mean =
      BatchNorm("FusedBatchNormV3", MakeTensor<float>({1, 2, 2, 3}, Seq(12)), false, "NHWC", 1.0f,
                {0.0f, 0.0f}, kVariance);
  EXPECT_EQ(mean.status().message(),
            "When is_training=false, mean must have the same number of elements as the "
            "channels of x, got 2 and 3");
}

TEST(BatchNormOpsTest, ShapeFunction) {
  const OpRegistration* reg = OpRegistry::Global()->Find("FusedBatchNormV3");
  ASSERT_NE(reg, nullptr);
  ::tensorflow::NodeDef node = MakeNode(
      "FusedBatchNormV3",
      {{"T", AttrType(DT_FLOAT)}, {"U", AttrType(DT_FLOAT)}, {"data_format", AttrString("NCHW")}});
  std::vector<PartialTensorShape> inputs = {PartialTensorShape({-1, 16, 7, 7})};
  for (int i = 0; i < 4; ++i) inputs.push_back(PartialTensorShape({16}));
  InferenceContext c(node, inputs, {}, 6);
  ASSERT_TRUE(reg->shape_fn(&c).ok());
  EXPECT_EQ(c.output(0).DebugString(), PartialTensorShape({-1, 16, 7, 7}).DebugString());
  EXPECT_EQ(c.output(1).DebugString(), PartialTensorShape({16}).DebugString());
  EXPECT_EQ(c.output(5).DebugString(), PartialTensorShape({0}).DebugString());
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
