#include <gtest/gtest.h>

#include "runtime/kernels/cpu/nn_test_util.h"

namespace graphrt {
namespace testing {
namespace {

StatusOr<Tensor> Resize(const std::string& op, const Tensor& images, std::vector<int32_t> size,
                        bool align_corners, bool half_pixel_centers, int threads = 1) {
  return RunOp(op, {images, Tensor::Vector<int32_t>(size)},
               {{"align_corners", AttrBool(align_corners)},
                {"half_pixel_centers", AttrBool(half_pixel_centers)}},
               threads);
}

struct ResizeCase {
  const char* op;
  int32_t rows, cols;
  bool align_corners, half_pixel_centers;
  std::vector<double> expected;
};

// Expected values computed by TensorFlow 2.15.1 (tf.raw_ops.ResizeBilinear /
// ResizeNearestNeighbor, CPU) on Seq(24, 3, 13, 6, 0.5) as [1, 3, 4, 2]: up and down, in each
// coordinate mode.
const std::vector<ResizeCase>& Cases() {
  static const auto* cases = new std::vector<ResizeCase>{
      {"ResizeBilinear",
       5,
       7,
       false,
       false,
       {-3.0,
        -1.5,
        -1.2857141494750977,
        0.21428585052490234,
        0.42857158184051514,
        0.9999998211860657,
        2.142857551574707,
        -1.0000004768371582,
        1.9999996423721313,
        -1.1428568363189697,
        -2.384185791015625e-07,
        0.5714287757873535,
        -0.5,
        1.0,
        0.3000001907348633,
        -2.0999999046325684,
        -0.21428561210632324,
        -0.38571417331695557,
        -0.17142844200134277,
        0.39999979734420776,
        1.5428575277328491,
        -1.6000005006790161,
        1.3999996185302734,
        -1.7428568601608276,
        -0.600000262260437,
        -0.028571248054504395,
        -1.100000023841858,
        0.3999999761581421,
        2.299999952316284,
        -1.399999737739563,
        0.2999999523162842,
        -0.4285712242126465,
        -0.7714284658432007,
        -0.014285829849541187,
        0.9428575038909912,
        -1.2714287042617798,
        0.7999995946884155,
        -1.41428542137146,
        -1.200000286102295,
        -0.442857027053833,
        -1.7000000476837158,
        -0.20000004768371582,
        1.6999999284744263,
        1.9000005722045898,
        -0.30000007152557373,
        0.6428573131561279,
        -1.3714284896850586,
        -0.057142775505781174,
        0.3428574800491333,
        0.9142861366271973,
        0.19999957084655762,
        0.7714285850524902,
        -1.8000003099441528,
        -0.4857144355773926,
        -2.3000001907348633,
        -0.8000000715255737,
        1.5,
        3.0,
        -0.5,
        1.0,
        -1.5714284181594849,
        -0.07142841815948486,
        0.14285755157470703,
        1.642857551574707,
        -3.5762786865234375e-07,
        1.4999996423721313,
        -2.000000238418579,
        -0.5000002384185791,
        -2.5,
        -1.0}},
      {"ResizeNearestNeighbor",
       5,
       7,
       false,
       false,
       {-3.0, -1.5, -3.0, -1.5, 0.0,  1.5,  0.0,  1.5,  3.0, -2.0, 3.0, -2.0, -0.5, 1.0,
        -3.0, -1.5, -3.0, -1.5, 0.0,  1.5,  0.0,  1.5,  3.0, -2.0, 3.0, -2.0, -0.5, 1.0,
        2.5,  -2.5, 2.5,  -2.5, -1.0, 0.5,  -1.0, 0.5,  2.0, -3.0, 2.0, -3.0, -1.5, 0.0,
        2.5,  -2.5, 2.5,  -2.5, -1.0, 0.5,  -1.0, 0.5,  2.0, -3.0, 2.0, -3.0, -1.5, 0.0,
        1.5,  3.0,  1.5,  3.0,  -2.0, -0.5, -2.0, -0.5, 1.0, 2.5,  1.0, 2.5,  -2.5, -1.0}},
      {"ResizeBilinear",
       5,
       7,
       true,
       false,
       {-3.0, -1.5,   -1.5,  0.0,   0.0,    1.5,    1.5,   -0.25, 3.0,  -2.0,  1.25,  -0.5,
        -0.5, 1.0,    -0.25, -2.0,  -0.375, -0.5,   -0.5,  1.0,   1.0,  -0.75, 2.5,   -2.5,
        0.75, -1.0,   -1.0,  0.5,   2.5,    -2.5,   0.75,  -1.0,  -1.0, 0.5,   0.5,   -1.25,
        2.0,  -3.0,   0.25,  -1.5,  -1.5,   0.0,    2.0,   0.25,  0.25, 0.125, -1.5,  0.0,
        0.0,  -0.125, 1.5,   -0.25, -0.25,  -0.375, -2.0,  -0.5,  1.5,  3.0,   -0.25, 1.25,
        -2.0, -0.5,   -0.5,  1.0,   1.0,    2.5,    -0.75, 0.75,  -2.5, -1.0}},
      {"ResizeNearestNeighbor",
       5,
       7,
       true,
       false,
       {-3.0, -1.5, 0.0,  1.5,  0.0,  1.5,  3.0, -2.0, 3.0, -2.0, -0.5, 1.0,  -0.5, 1.0,
        2.5,  -2.5, -1.0, 0.5,  -1.0, 0.5,  2.0, -3.0, 2.0, -3.0, -1.5, 0.0,  -1.5, 0.0,
        2.5,  -2.5, -1.0, 0.5,  -1.0, 0.5,  2.0, -3.0, 2.0, -3.0, -1.5, 0.0,  -1.5, 0.0,
        1.5,  3.0,  -2.0, -0.5, -2.0, -0.5, 1.0, 2.5,  1.0, 2.5,  -2.5, -1.0, -2.5, -1.0,
        1.5,  3.0,  -2.0, -0.5, -2.0, -0.5, 1.0, 2.5,  1.0, 2.5,  -2.5, -1.0, -2.5, -1.0}},
      {"ResizeBilinear",
       5,
       7,
       false,
       true,
       {-3.0,
        -1.5,
        -1.9285712242126465,
        -0.4285712242126465,
        -0.21428561210632324,
        1.2857143878936768,
        1.5,
        -0.25,
        2.7499992847442627,
        -1.7857136726379395,
        0.7499995231628418,
        -0.07142806053161621,
        -0.5,
        1.0,
        -0.7999997138977051,
        -1.9000000953674316,
        -0.6571427583694458,
        -0.8285712599754333,
        -0.4285714030265808,
        0.8857143521308899,
        1.0999999046325684,
        -0.6500000357627869,
        2.349999189376831,
        -2.185713768005371,
        0.34999948740005493,
        -0.4714280962944031,
        -0.9000000357627869,
        0.5999999642372131,
        2.5,
        -2.5,
        1.249999761581421,
        -1.4285712242126465,
        -0.75,
        0.28571438789367676,
        0.5,
        -1.25,
        1.7499992847442627,
        -2.7857136726379395,
        -0.2500004768371582,
        -1.0714280605316162,
        -1.5,
        0.0,
        1.8999998569488525,
        0.8000006675720215,
        0.6499996185302734,
        0.4785717725753784,
        -1.3500001430511475,
        -0.03571432828903198,
        -0.10000014305114746,
        0.10000038146972656,
        1.1499991416931152,
        0.23571491241455078,
        -0.8500006198883057,
        -0.27857130765914917,
        -2.1000001430511475,
        -0.6000001430511475,
        1.5,
        3.0,
        0.2499997615814209,
        1.749999761581421,
        -1.75,
        -0.25,
        -0.5,
        1.0,
        0.7499992847442627,
        2.2499992847442627,
        -1.2500004768371582,
        0.2499995231628418,
        -2.5,
        -1.0}},
      {"ResizeNearestNeighbor",
       5,
       7,
       false,
       true,
       {-3.0, -1.5, -3.0, -1.5, 0.0,  1.5,  3.0, -2.0, 3.0, -2.0, -0.5, 1.0,  -0.5, 1.0,
        -3.0, -1.5, -3.0, -1.5, 0.0,  1.5,  3.0, -2.0, 3.0, -2.0, -0.5, 1.0,  -0.5, 1.0,
        2.5,  -2.5, 2.5,  -2.5, -1.0, 0.5,  2.0, -3.0, 2.0, -3.0, -1.5, 0.0,  -1.5, 0.0,
        1.5,  3.0,  1.5,  3.0,  -2.0, -0.5, 1.0, 2.5,  1.0, 2.5,  -2.5, -1.0, -2.5, -1.0,
        1.5,  3.0,  1.5,  3.0,  -2.0, -0.5, 1.0, 2.5,  1.0, 2.5,  -2.5, -1.0, -2.5, -1.0}},
      {"ResizeBilinear",
       2,
       3,
       false,
       false,
       {-3.0, -1.5, 1.0000001192092896, 0.33333325386047363, 0.6666665077209473,
        2.384185791015625e-07, 2.0, 0.25, -0.49999988079071045, -0.08333331346511841,
        -0.8333334922790527, -0.4166666269302368}},
      {"ResizeNearestNeighbor",
       2,
       3,
       false,
       false,
       {-3.0, -1.5, 0.0, 1.5, 3.0, -2.0, 2.5, -2.5, -1.0, 0.5, 2.0, -3.0}},
      {"ResizeBilinear",
       2,
       3,
       true,
       false,
       {-3.0, -1.5, 1.5, -0.25, -0.5, 1.0, 1.5, 3.0, -0.5, 1.0, -2.5, -1.0}},
      {"ResizeNearestNeighbor",
       2,
       3,
       true,
       false,
       {-3.0, -1.5, 3.0, -2.0, -0.5, 1.0, 1.5, 3.0, 1.0, 2.5, -2.5, -1.0}},
      {"ResizeBilinear",
       2,
       3,
       false,
       true,
       {-1.3958333730697632, -1.25, 1.25, -0.5, -0.16666722297668457, 0.2500004768371582,
        1.1666666269302368, 1.3125, -0.25, 0.4375, -1.6666672229766846, -0.4375002980232239}},
      {"ResizeNearestNeighbor",
       2,
       3,
       false,
       true,
       {-3.0, -1.5, 3.0, -2.0, -0.5, 1.0, 1.5, 3.0, 1.0, 2.5, -2.5, -1.0}},

  };
  return *cases;
}

TEST(ResizeOpsTest, MatchesTensorFlow) {
  const std::vector<float> x = Seq(24, 3, 13, 6, 0.5f);
  for (const ResizeCase& c : Cases()) {
    SCOPED_TRACE(StrCat(c.op, " ", c.rows, "x", c.cols, " align_corners=", c.align_corners,
                        " half_pixel_centers=", c.half_pixel_centers));
    for (int threads : {1, 3}) {
      StatusOr<Tensor> y = Resize(c.op, MakeTensor<float>({1, 3, 4, 2}, x), {c.rows, c.cols},
                                  c.align_corners, c.half_pixel_centers, threads);
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_EQ(y->dtype(), ::tensorflow::DT_FLOAT);
      EXPECT_EQ(y->shape(), TensorShape({1, c.rows, c.cols, 2}));
      ExpectAllClose(AsDoubles<float>(*y), c.expected, 1e-5, 1e-6);
    }
    // The same from a double image (bilinear still gives float).
    StatusOr<Tensor> d = Resize(c.op, MakeTensor<double>({1, 3, 4, 2}, x), {c.rows, c.cols},
                                c.align_corners, c.half_pixel_centers);
    ASSERT_TRUE(d.ok()) << d.status();
    if (std::string(c.op) == "ResizeBilinear") {
      ExpectAllClose(AsDoubles<float>(*d), c.expected, 1e-5, 1e-6);
    } else {
      ExpectAllClose(AsDoubles<double>(*d), c.expected, 0);
    }
  }
}

TEST(ResizeOpsTest, IntegerImages) {
  // TensorFlow 2.15.1 on uint8 [[0, 60, 120], [180, 240, 40]].
  const Tensor u8 = MakeTensor<uint8_t>({1, 2, 3, 1}, std::vector<int>{0, 60, 120, 180, 240, 40});
  StatusOr<Tensor> bilinear = Resize("ResizeBilinear", u8, {4, 5}, false, true);
  ASSERT_TRUE(bilinear.ok()) << bilinear.status();
  ExpectAllClose(AsDoubles<float>(*bilinear),
                 {0.0,
                  24.000001907348633,
                  60.0,
                  96.00000762939453,
                  120.0,
                  45.0,
                  69.0,
                  105.0,
                  102.0,
                  100.0,
                  135.0,
                  159.0,
                  195.0,
                  113.9999771118164,
                  60.0,
                  180.0,
                  204.0,
                  240.0,
                  119.99996948242188,
                  40.0},
                 1e-5);
  StatusOr<Tensor> nearest = Resize("ResizeNearestNeighbor", u8, {3, 4}, true, false);
  ASSERT_TRUE(nearest.ok()) << nearest.status();
  EXPECT_EQ(nearest->dtype(), ::tensorflow::DT_UINT8);
  EXPECT_EQ(Values<uint8_t>(*nearest),
            (std::vector<uint8_t>{0, 60, 60, 120, 180, 240, 240, 40, 180, 240, 240, 40}));
}

TEST(ResizeOpsTest, SameSizeAndEmptyBatch) {
  const std::vector<float> x = Seq(24, 3, 13, 6, 0.5f);
  StatusOr<Tensor> same =
      Resize("ResizeBilinear", MakeTensor<half>({1, 3, 4, 2}, x), {3, 4}, false, true);
  ASSERT_TRUE(same.ok()) << same.status();
  ExpectAllClose(AsDoubles<float>(*same), ToDoubles(x), 0);
  StatusOr<Tensor> empty = Resize("ResizeNearestNeighbor", MakeTensor<float>({0, 3, 4, 2}, Seq(0)),
                                  {5, 5}, false, false);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 5, 5, 2}));
}

TEST(ResizeOpsTest, BadInputsAreErrors) {
  const Tensor x = MakeTensor<float>({1, 2, 2, 1}, Seq(4));
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Resize(op, x, {3, 3}, true, true).status().message(),
              "If half_pixel_centers is True, align_corners must be False.");
    EXPECT_EQ(
        Resize(op, MakeTensor<float>({2, 2, 1}, Seq(4)), {3, 3}, false, false).status().message(),
        "input must be 4-dimensional[2,2,1]");
    EXPECT_EQ(Resize(op, x, {3, 3, 3}, false, false).status().message(),
              "shape_t must have two elements[3]");
    EXPECT_EQ(Resize(op, x, {0, 3}, false, false).status().message(),
              "output dimensions must be positive");
    EXPECT_EQ(Resize(op, MakeTensor<float>({1, 0, 2, 1}, Seq(0)), {3, 3}, false, false)
                  .status()
                  .message(),
              "input image must be of non-zero size");
    EXPECT_EQ(Resize(op, MakeTensor<float>({1, 2, 2, 0}, Seq(0)), {3, 3}, false, false)
                  .status()
                  .message(),
              "image must have at least one channel");
  }
}

TEST(ResizeOpsTest, ShapeFunction) {
  const OpRegistration* reg = OpRegistry::Global()->Find("ResizeBilinear");
  ASSERT_NE(reg, nullptr);
  ::tensorflow::NodeDef node =
      MakeNode("ResizeBilinear", {{"T", AttrType(::tensorflow::DT_UINT8)}});
  const Tensor size = Tensor::Vector<int32_t>({7, 9});
  InferenceContext known(node, {PartialTensorShape({2, -1, 5, 3}), PartialTensorShape({2})},
                         {nullptr, &size}, 1);
  ASSERT_TRUE(reg->shape_fn(&known).ok());
  EXPECT_EQ(known.output(0).DebugString(), PartialTensorShape({2, 7, 9, 3}).DebugString());
  InferenceContext fed(node, {PartialTensorShape({2, -1, 5, 3}), PartialTensorShape({2})}, {}, 1);
  ASSERT_TRUE(reg->shape_fn(&fed).ok());
  EXPECT_EQ(fed.output(0).DebugString(), PartialTensorShape({2, -1, -1, 3}).DebugString());
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
