#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/math_test_util.h"

namespace graphrt {
namespace testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor Axes(const std::vector<int32_t>& axes) {
  return MakeTensor<int32_t>(TensorShape({static_cast<int64_t>(axes.size())}), axes);
}

StatusOr<Tensor> Reduce(const char* op, const Tensor& x, const Tensor& axes, bool keep_dims = false,
                        int threads = 1) {
  return RunOp(op, {x, axes},
               {{"keep_dims", AttrBool(keep_dims)}, {"Tidx", AttrType(axes.dtype())}}, threads);
}

// A naive reduction of `values` (shape `shape`) over the dims flagged in `reduced`: combine()
// folds each output's elements in order, starting from `init`.
std::vector<double> ReferenceReduce(const TensorShape& shape, const std::vector<double>& values,
                                    const std::vector<bool>& reduced, double init,
                                    const std::function<double(double, double)>& combine,
                                    std::vector<int64_t>* counts) {
  const int rank = shape.dims();
  int64_t out_size = 1;
  for (int d = 0; d < rank; ++d) out_size *= reduced[d] ? 1 : shape.dim_size(d);
  std::vector<double> out(static_cast<size_t>(out_size), init);
  counts->assign(static_cast<size_t>(out_size), 0);
  std::vector<int64_t> index(rank, 0);
  for (size_t flat = 0; flat < values.size(); ++flat) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * shape.dim_size(d) + index[d];
    }
    out[o] = combine(out[o], values[flat]);
    ++(*counts)[o];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dim_size(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST(ReductionOpsTest, EveryAxisSubsetMatchesReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int rank = 1 + trial % 5;
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = 1 + rng() % 4;
    const TensorShape shape(dims);
    std::vector<double> values(static_cast<size_t>(shape.num_elements()));
    for (double& v : values) v = static_cast<double>(static_cast<int>(rng() % 21) - 10);
    const Tensor x32 = MakeTensor<int32_t>(shape, values);
    const Tensor xf = MakeTensor<float>(shape, values);
    for (int mask = 0; mask < (1 << rank); ++mask) {
      std::vector<int32_t> axes;
      std::vector<bool> reduced(rank);
      for (int d = 0; d < rank; ++d) {
        reduced[d] = (mask >> d) & 1;
        if (reduced[d]) axes.push_back(rng() % 2 ? d : d - rank);  // negative axes too
      }
      const bool keep_dims = rng() % 2;
      std::vector<int64_t> out_dims;
      for (int d = 0; d < rank; ++d) {
        if (!reduced[d]) out_dims.push_back(dims[d]);
        if (reduced[d] && keep_dims) out_dims.push_back(1);
      }
      SCOPED_TRACE(StrCat(shape.DebugString(), " axes mask ", mask, " keep_dims ", keep_dims));
      std::vector<int64_t> counts;
      const auto sum = ReferenceReduce(shape, values, reduced, 0, std::plus<double>(), &counts);
      const auto max = ReferenceReduce(
          shape, values, reduced, -kInf, [](double a, double b) { return std::max(a, b); },
          &counts);
      const auto min = ReferenceReduce(
          shape, values, reduced, kInf, [](double a, double b) { return std::min(a, b); }, &counts);
      const auto sq = ReferenceReduce(
          shape, values, reduced, 0, [](double a, double b) { return a + b * b; }, &counts);
      std::vector<double> mean_int, mean_float, norm;
      for (size_t i = 0; i < sum.size(); ++i) {
        mean_int.push_back(std::trunc(sum[i] / counts[i]));
        mean_float.push_back(sum[i] / counts[i]);
        norm.push_back(std::sqrt(sq[i]));
      }
      for (const auto& [op, x, expected, rtol] :
           std::vector<std::tuple<const char*, Tensor, std::vector<double>, double>>{
               {"Sum", x32, sum, 0},
               {"Max", x32, max, 0},
               {"Min", x32, min, 0},
               {"Mean", x32, mean_int, 0},
               {"Sum", xf, sum, 0},
               {"Mean", xf, mean_float, 1e-6},
               {"Max", xf, max, 0},
               {"EuclideanNorm", xf, norm, 1e-6}}) {
        SCOPED_TRACE(StrCat(op, " ", DataTypeString(x.dtype())));
        StatusOr<Tensor> y = Reduce(op, x, Axes(axes), keep_dims, trial % 2 ? 3 : 1);
        ASSERT_TRUE(y.ok()) << y.status();
        EXPECT_EQ(y->shape(), TensorShape(out_dims));
        ExpectAllClose(
            y->dtype() == ::tensorflow::DT_INT32 ? AsDoubles<int32_t>(*y) : AsDoubles<float>(*y),
            expected, rtol);
      }
    }
  }
}

TEST(ReductionOpsTest, ProdAllAny) {
  const Tensor x = MakeTensor<int64_t>(TensorShape({2, 3}), std::vector<int>{1, 2, 3, -4, 5, 6});
  StatusOr<Tensor> prod = Reduce("Prod", x, Axes({1}));
  ASSERT_TRUE(prod.ok()) << prod.status();
  EXPECT_EQ(Values<int64_t>(*prod), (std::vector<int64_t>{6, -120}));
  const Tensor b =
      MakeTensor<bool>(TensorShape({2, 3}), std::vector<bool>{true, true, false, true, true, true});
  StatusOr<Tensor> all = Reduce("All", b, Axes({1}));
  StatusOr<Tensor> any = Reduce("Any", b, Axes({0}));
  StatusOr<Tensor> all0 = Reduce("All", b, Axes({0, 1}), /*keep_dims=*/true);
  ASSERT_TRUE(all.ok() && any.ok() && all0.ok());
  EXPECT_EQ(Values<bool>(*all), (std::vector<bool>{false, true}));
  EXPECT_EQ(Values<bool>(*any), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(all0->shape(), TensorShape({1, 1}));
  EXPECT_EQ(Values<bool>(*all0), (std::vector<bool>{false}));
}

TEST(ReductionOpsTest, IntegerOverflowAndMeanMatchTensorFlow) {
  const Tensor x = MakeTensor<int8_t>(TensorShape({3}), std::vector<int>{100, 100, 100});
  StatusOr<Tensor> sum = Reduce("Sum", x, Axes({0}));
  StatusOr<Tensor> mean = Reduce("Mean", x, Axes({0}));
  ASSERT_TRUE(sum.ok() && mean.ok());
  EXPECT_EQ(sum->scalar<int8_t>(), 44);    // TensorFlow: 300 wraps to 44
  EXPECT_EQ(mean->scalar<int8_t>(), 100);  // summed in 64 bits first
  StatusOr<Tensor> m = Reduce(
      "Mean", MakeTensor<int32_t>(TensorShape({2, 2}), std::vector<int>{1, 2, -3, -6}), Axes({1}));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(Values<int32_t>(*m), (std::vector<int32_t>{1, -4}));  // truncates toward zero
  StatusOr<Tensor> p = Reduce(
      "Prod", MakeTensor<uint16_t>(TensorShape({2}), std::vector<int>{65535, 65535}), Axes({0}));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->scalar<uint16_t>(), 1);  // 65535^2 mod 2^16
}

TEST(ReductionOpsTest, EmptyReductionsGiveIdentities) {
  // TensorFlow 2.15.1 on zeros of shape [0, 3] reduced over axis 0.
  const Tensor f(::tensorflow::DT_FLOAT, TensorShape({0, 3}));
  for (const auto& [op, expected] : std::vector<std::pair<const char*, double>>{
           {"Sum", 0}, {"Prod", 1}, {"Max", -kInf}, {"Min", kInf}, {"Mean", kNaN}}) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> y = Reduce(op, f, Axes({0}));
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y->shape(), TensorShape({3}));
    ExpectAllClose(AsDoubles<float>(*y), std::vector<double>(3, expected), 0);
  }
  StatusOr<Tensor> max_int =
      Reduce("Max", Tensor(::tensorflow::DT_INT32, TensorShape({0, 3})), Axes({0}));
  ASSERT_TRUE(max_int.ok()) << max_int.status();
  EXPECT_EQ(Values<int32_t>(*max_int),
            std::vector<int32_t>(3, std::numeric_limits<int32_t>::min()));
  StatusOr<Tensor> mean_int =
      Reduce("Mean", Tensor(::tensorflow::DT_INT32, TensorShape({0, 3})), Axes({0}));
  ASSERT_TRUE(mean_int.ok()) << mean_int.status();
  EXPECT_EQ(Values<int32_t>(*mean_int), std::vector<int32_t>(3, 0));
  StatusOr<Tensor> mean_bf16 =
      Reduce("Mean", Tensor(::tensorflow::DT_BFLOAT16, TensorShape({0, 3})), Axes({0}));
  ASSERT_TRUE(mean_bf16.ok()) << mean_bf16.status();
  EXPECT_TRUE(std::isnan(AsDoubles<bfloat16>(*mean_bf16)[0]));
  StatusOr<Tensor> all =
      Reduce("All", Tensor(::tensorflow::DT_BOOL, TensorShape({0, 3})), Axes({0}));
  StatusOr<Tensor> any =
      Reduce("Any", Tensor(::tensorflow::DT_BOOL, TensorShape({0, 3})), Axes({0}));
  ASSERT_TRUE(all.ok() && any.ok());
  EXPECT_EQ(Values<bool>(*all), std::vector<bool>(3, true));
  EXPECT_EQ(Values<bool>(*any), std::vector<bool>(3, false));
  StatusOr<Tensor> empty_out = Reduce("Sum", f, Axes({1}));
  ASSERT_TRUE(empty_out.ok()) << empty_out.status();
  EXPECT_EQ(empty_out->shape(), TensorShape({0}));
}

TEST(ReductionOpsTest, NaNPropagatesThroughMaxAndMin) {
  std::vector<double> v(201, 1.0);
  v[100] = kNaN;
  const Tensor x = MakeTensor<float>(TensorShape({201}), v);
  for (const char* op : {"Max", "Min", "Sum"}) {
    StatusOr<Tensor> y = Reduce(op, x, Axes({0}));
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(std::isnan(y->scalar<float>())) << op;
  }
  // Along an outer dim too.
  StatusOr<Tensor> y = Reduce("Max", MakeTensor<float>(TensorShape({201, 1}), v), Axes({0}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(std::isnan(y->data<float>()[0]));
}

TEST(ReductionOpsTest, HalfAndBfloat16AccumulateInFloat) {
  const std::vector<double> ones(10000, 1.0);
  for (const TensorShape& shape :
       {TensorShape({10000}), TensorShape({10000, 1}), TensorShape({1, 10000})}) {
    SCOPED_TRACE(shape.DebugString());
    const Tensor all = shape.dims() == 1 ? Axes({0}) : Axes({0, 1});
    StatusOr<Tensor> h = Reduce("Sum", MakeTensor<half>(shape, ones), all);
    ASSERT_TRUE(h.ok()) << h.status();
    EXPECT_EQ(AsDoubles<half>(*h)[0], 10000.0);
    StatusOr<Tensor> b = Reduce("Sum", MakeTensor<bfloat16>(shape, ones), all);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(AsDoubles<bfloat16>(*b)[0], 9984.0);  // 10000 rounded to bfloat16
    StatusOr<Tensor> m = Reduce("Mean", MakeTensor<half>(shape, ones), all);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(AsDoubles<half>(*m)[0], 1.0);
  }
  // Max of half is exact.
  StatusOr<Tensor> mx = Reduce(
      "Max", MakeTensor<half>(TensorShape({3}), std::vector<double>{0.5, 65504, -3}), Axes({0}));
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_EQ(AsDoubles<half>(*mx)[0], 65504.0);
}

TEST(ReductionOpsTest, LargeFloatReductionsAcrossThreads) {
  // Big enough to split single runs (full reduction) and single columns (outer reduction).
  const int64_t n = 1 << 18;
  std::vector<float> v(n);
  double exact = 0;
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>(std::sin(0.001 * i)) + 0.5f;
    exact += v[i];
  }
  for (int threads : {1, 4}) {
    SCOPED_TRACE(threads);
    StatusOr<Tensor> full =
        Reduce("Sum", MakeTensor<float>(TensorShape({n}), v), Axes({0}), false, threads);
    ASSERT_TRUE(full.ok()) << full.status();
    EXPECT_NEAR(full->scalar<float>(), exact, 1e-5 * std::abs(exact));
    StatusOr<Tensor> cols =
        Reduce("Mean", MakeTensor<float>(TensorShape({n / 2, 2}), v), Axes({0}), false, threads);
    ASSERT_TRUE(cols.ok()) << cols.status();
    double even = 0, odd = 0;
    for (int64_t i = 0; i < n; i += 2) {
      even += v[i];
      odd += v[i + 1];
    }
    EXPECT_NEAR(cols->data<float>()[0], even / (n / 2), 1e-5);
    EXPECT_NEAR(cols->data<float>()[1], odd / (n / 2), 1e-5);
    StatusOr<Tensor> max =
        Reduce("Max", MakeTensor<float>(TensorShape({64, n / 64}), v), Axes({1}), false, threads);
    ASSERT_TRUE(max.ok()) << max.status();
    for (int64_t r = 0; r < 64; ++r) {
      const float expected =
          *std::max_element(v.begin() + r * (n / 64), v.begin() + (r + 1) * (n / 64));
      ASSERT_EQ(max->data<float>()[r], expected);
    }
  }
}

TEST(ReductionOpsTest, OuterReductionOfFewColumns) {
  // [1001, 3] over axis 0: rows are folded 16 at a time, then the remainder.
  const int64_t rows = 1001;
  std::vector<int> v(rows * 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>((i * 7919) % 201) - 100;
  const Tensor x = MakeTensor<int32_t>(TensorShape({rows, 3}), v);
  std::vector<int64_t> sum(3, 0);
  std::vector<int32_t> max(3, std::numeric_limits<int32_t>::min()), min(3, 1000);
  for (int64_t r = 0; r < rows; ++r) {
    for (int c = 0; c < 3; ++c) {
      sum[c] += v[r * 3 + c];
      max[c] = std::max(max[c], v[r * 3 + c]);
      min[c] = std::min(min[c], v[r * 3 + c]);
    }
  }
  for (int threads : {1, 3}) {
    StatusOr<Tensor> s = Reduce("Sum", x, Axes({0}), false, threads);
    StatusOr<Tensor> mx = Reduce("Max", x, Axes({0}), false, threads);
    StatusOr<Tensor> mn = Reduce("Min", x, Axes({0}), false, threads);
    ASSERT_TRUE(s.ok() && mx.ok() && mn.ok());
    EXPECT_EQ(Values<int32_t>(*s), std::vector<int32_t>(sum.begin(), sum.end()));
    EXPECT_EQ(Values<int32_t>(*mx), max);
    EXPECT_EQ(Values<int32_t>(*mn), min);
  }
  std::vector<bool> b(rows * 2, true);
  b[777 * 2 + 1] = false;
  StatusOr<Tensor> all = Reduce("All", MakeTensor<bool>(TensorShape({rows, 2}), b), Axes({0}));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(Values<bool>(*all), (std::vector<bool>{true, false}));
}

// float Sum and Mean over the outer dims of wide rows (the vector paths' ColumnSums: four
// vectors, one, and a tail) give, bit for bit, the rows added in order from 0 (divided once by the
// count for Mean): a squeeze-and-excitation block's Mean over height and width, and a Sum over
// the leading dim. 1 and 2 threads.
TEST(ReductionOpsTest, FloatOuterSumsMatchAddingRowsInOrder) {
  const int64_t batch = 2, rows = 13, cols = 11, depth = 4 * 16 + 16 + 5;
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> x(static_cast<size_t>(batch * rows * cols * depth));
  for (float& v : x) v = dist(gen);
  const Tensor input = MakeTensor<float>(TensorShape({batch, rows, cols, depth}), x);
  int cases = 0;
  for (const char* op : {"Sum", "Mean"}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(StrCat(op, ", ", threads, " threads"));
      StatusOr<Tensor> got = Reduce(op, input, Axes({1, 2}), /*keep_dims=*/true, threads);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->shape(), TensorShape({batch, 1, 1, depth}));
      int64_t mismatches = 0;
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t k = 0; k < depth; ++k) {
          float acc = 0;
          for (int64_t p = 0; p < rows * cols; ++p) acc += x[(n * rows * cols + p) * depth + k];
          if (std::string(op) == "Mean") acc /= static_cast<float>(rows * cols);
          mismatches += got->data<float>()[n * depth + k] != acc;
        }
      }
      EXPECT_EQ(mismatches, 0);
      ++cases;
    }
  }
  // Over the leading dim of [rows, wide].
  const int64_t wide = 3 * 64 + 7;
  std::vector<float> y(static_cast<size_t>(rows * cols * wide));
  for (float& v : y) v = dist(gen);
  const Tensor m = MakeTensor<float>(TensorShape({rows * cols, wide}), y);
  StatusOr<Tensor> sum = Reduce("Sum", m, Axes({0}));
  ASSERT_TRUE(sum.ok()) << sum.status();
  int64_t mismatches = 0;
  for (int64_t k = 0; k < wide; ++k) {
    float acc = 0;
    for (int64_t r = 0; r < rows * cols; ++r) acc += y[r * wide + k];
    mismatches += sum->data<float>()[k] != acc;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(cases, 4);
}

TEST(ReductionOpsTest, LongHalfRunsAreWidenedInChunks) {
  std::vector<double> v(3000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 500) - 250;
  v[2500] = 1000;
  v[1234] = -2000;
  const Tensor h = MakeTensor<half>(TensorShape({3000}), v);
  StatusOr<Tensor> mx = Reduce("Max", h, Axes({0}));
  StatusOr<Tensor> mn = Reduce("Min", h, Axes({0}));
  StatusOr<Tensor> norm = Reduce("EuclideanNorm", h, Axes({0}));
  ASSERT_TRUE(mx.ok() && mn.ok() && norm.ok());
  EXPECT_EQ(AsDoubles<half>(*mx)[0], 1000);
  EXPECT_EQ(AsDoubles<half>(*mn)[0], -2000);
  double squares = 0;
  for (double x : v) squares += x * x;
  ExpectAllClose(AsDoubles<half>(*norm), {std::sqrt(squares)}, 1e-3);
}

TEST(ReductionOpsTest, AxisForms) {
  const Tensor x = MakeTensor<float>(TensorShape({2, 3}), std::vector<float>{1, 1, 1, 1, 1, 1});
  StatusOr<Tensor> scalar_axis = Reduce("Sum", x, MakeScalar<int32_t>(1));
  ASSERT_TRUE(scalar_axis.ok()) << scalar_axis.status();
  EXPECT_EQ(Values<float>(*scalar_axis), (std::vector<float>{3, 3}));
  StatusOr<Tensor> matrix_axis =
      Reduce("Sum", x, MakeTensor<int32_t>(TensorShape({1, 1}), std::vector<int>{0}));
  ASSERT_TRUE(matrix_axis.ok()) << matrix_axis.status();
  EXPECT_EQ(Values<float>(*matrix_axis), (std::vector<float>{2, 2, 2}));
  StatusOr<Tensor> int64_axis =
      Reduce("Sum", x, MakeTensor<int64_t>(TensorShape({2}), std::vector<int64_t>{-1, 0}));
  ASSERT_TRUE(int64_axis.ok()) << int64_axis.status();
  EXPECT_EQ(int64_axis->shape(), TensorShape());
  EXPECT_EQ(int64_axis->scalar<float>(), 6);
  StatusOr<Tensor> no_axes = Reduce("Sum", x, Axes({}), /*keep_dims=*/true);
  ASSERT_TRUE(no_axes.ok()) << no_axes.status();
  EXPECT_EQ(no_axes->shape(), TensorShape({2, 3}));
  StatusOr<Tensor> of_scalar = Reduce("Mean", MakeScalar<float>(3), Axes({}));
  ASSERT_TRUE(of_scalar.ok()) << of_scalar.status();
  EXPECT_EQ(of_scalar->scalar<float>(), 3);
  StatusOr<Tensor> keep = Reduce("Sum", Tensor(::tensorflow::DT_FLOAT, TensorShape({2, 3, 4})),
                                 Axes({0, 2}), /*keep_dims=*/true);
  ASSERT_TRUE(keep.ok()) << keep.status();
  EXPECT_EQ(keep->shape(), TensorShape({1, 3, 1}));
}

TEST(ReductionOpsTest, BadAxesFail) {
  const Tensor x(::tensorflow::DT_FLOAT, TensorShape({2, 3}));
  StatusOr<Tensor> dup = Reduce("Sum", x, Axes({0, -2}));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(),
            "Invalid reduction arguments: Axes contains duplicate dimension: 0");
  StatusOr<Tensor> high = Reduce("Max", x, Axes({2}));
  ASSERT_FALSE(high.ok());
  EXPECT_EQ(high.status().message(),
            "Invalid reduction dimension (2 for input with 2 dimension(s)");
  StatusOr<Tensor> low = Reduce("Mean", x, Axes({-3}));
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.status().message(),
            "Invalid reduction dimension (-3 for input with 2 dimension(s)");
  EXPECT_FALSE(Reduce("Sum", MakeScalar<float>(3), Axes({0})).ok());
}

StatusOr<Tensor> Arg(const char* op, const Tensor& x, const Tensor& dim,
                     DataType out = ::tensorflow::DT_INT64) {
  return RunOp(op, {x, dim}, {{"Tidx", AttrType(dim.dtype())}, {"output_type", AttrType(out)}});
}

TEST(ReductionOpsTest, ArgMaxArgMinTiesAndNaN) {
  // TensorFlow 2.15.1: ties take the first index; NaN is never picked.
  auto arg = [](const char* op, std::vector<double> v) {
    StatusOr<Tensor> y =
        Arg(op, MakeTensor<float>(TensorShape({static_cast<int64_t>(v.size())}), v),
            MakeScalar<int32_t>(0));
    EXPECT_TRUE(y.ok()) << y.status();
    return y.ok() ? y->scalar<int64_t>() : -1;
  };
  EXPECT_EQ(arg("ArgMax", {1, 3, 3, 2}), 1);
  EXPECT_EQ(arg("ArgMin", {1, 0, 0, 2}), 1);
  EXPECT_EQ(arg("ArgMax", {1, kNaN, 3, kNaN}), 2);
  EXPECT_EQ(arg("ArgMin", {1, kNaN, 0, kNaN}), 2);
  EXPECT_EQ(arg("ArgMax", {kNaN, 1, 3}), 2);
  std::vector<double> long_v(101, 1.0);
  long_v[50] = kNaN;
  for (int i = 51; i < 101; ++i) long_v[i] = 3;
  EXPECT_EQ(arg("ArgMax", long_v), 51);
  StatusOr<Tensor> rows = Arg(
      "ArgMax", MakeTensor<float>(TensorShape({2, 3}), std::vector<double>{kNaN, 1, 3, 1, 5, kNaN}),
      MakeScalar<int32_t>(1));
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(Values<int64_t>(*rows), (std::vector<int64_t>{2, 1}));
  StatusOr<Tensor> cols = Arg(
      "ArgMax", MakeTensor<float>(TensorShape({2, 3}), std::vector<double>{kNaN, 1, 3, 1, 5, kNaN}),
      MakeScalar<int32_t>(0));
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_EQ(Values<int64_t>(*cols), (std::vector<int64_t>{1, 1, 0}));
}

TEST(ReductionOpsTest, ArgMaxOfExtremeIntegers) {
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  auto arg = [](const char* op, std::vector<int64_t> v) {
    StatusOr<Tensor> y =
        Arg(op, MakeTensor<int32_t>(TensorShape({static_cast<int64_t>(v.size())}), v),
            MakeScalar<int32_t>(0));
    EXPECT_TRUE(y.ok()) << y.status();
    return y.ok() ? y->scalar<int64_t>() : -1;
  };
  EXPECT_EQ(arg("ArgMax", {lo, lo, lo}), 0);
  EXPECT_EQ(arg("ArgMax", {lo, lo, 3, 3}), 2);
  EXPECT_EQ(arg("ArgMin", {hi, hi}), 0);
  EXPECT_EQ(arg("ArgMin", {hi, 5, -7, -7}), 2);
}

TEST(ReductionOpsTest, ArgMaxTypesAndAxes) {
  StatusOr<Tensor> b =
      Arg("ArgMax", MakeTensor<bool>(TensorShape({3}), std::vector<bool>{false, true, true}),
          MakeScalar<int32_t>(0));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->scalar<int64_t>(), 1);
  // [2,3,2] along the middle axis, output int32 and a negative int64 axis.
  const Tensor x = MakeTensor<int32_t>(TensorShape({2, 3, 2}),
                                       std::vector<int>{1, 9, 5, 2, 3, 4, 7, 0, 7, 8, -1, 8});
  StatusOr<Tensor> mid = Arg("ArgMax", x, MakeScalar<int64_t>(-2), ::tensorflow::DT_INT32);
  ASSERT_TRUE(mid.ok()) << mid.status();
  EXPECT_EQ(mid->shape(), TensorShape({2, 2}));
  EXPECT_EQ(Values<int32_t>(*mid), (std::vector<int32_t>{1, 0, 0, 1}));
  StatusOr<Tensor> mn = Arg("ArgMin", x, MakeScalar<int32_t>(2), ::tensorflow::DT_INT32);
  ASSERT_TRUE(mn.ok()) << mn.status();
  EXPECT_EQ(Values<int32_t>(*mn), (std::vector<int32_t>{0, 1, 0, 1, 0, 0}));
  StatusOr<Tensor> u16 = Arg("ArgMax", x, MakeScalar<int32_t>(0), ::tensorflow::DT_UINT16);
  ASSERT_TRUE(u16.ok()) << u16.status();
  EXPECT_EQ(Values<uint16_t>(*u16), (std::vector<uint16_t>{1, 0, 1, 1, 0, 1}));
  StatusOr<Tensor> i16_axis = Arg("ArgMax", x, MakeScalar<int16_t>(0), ::tensorflow::DT_INT16);
  ASSERT_TRUE(i16_axis.ok()) << i16_axis.status();
  EXPECT_EQ(Values<int16_t>(*i16_axis), (std::vector<int16_t>{1, 0, 1, 1, 0, 1}));
  StatusOr<Tensor> empty_other =
      Arg("ArgMax", Tensor(::tensorflow::DT_FLOAT, TensorShape({0, 3})), MakeScalar<int32_t>(1));
  ASSERT_TRUE(empty_other.ok()) << empty_other.status();
  EXPECT_EQ(empty_other->shape(), TensorShape({0}));
}

TEST(ReductionOpsTest, ArgMaxErrorsMatchTensorFlow) {
  StatusOr<Tensor> empty =
      Arg("ArgMax", Tensor(::tensorflow::DT_FLOAT, TensorShape({0, 3})), MakeScalar<int32_t>(0));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "Reduction axis 0 is empty in shape [0,3]");
  StatusOr<Tensor> scalar = Arg("ArgMax", MakeScalar<float>(1), MakeScalar<int32_t>(0));
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.status().message(), "Expected dimension in the range [0, 0), but got 0");
  StatusOr<Tensor> high = Arg("ArgMin", MakeTensor<float>(TensorShape({1}), std::vector<float>{1}),
                              MakeScalar<int32_t>(1));
  ASSERT_FALSE(high.ok());
  EXPECT_EQ(high.status().message(), "Expected dimension in the range [-1, 1), but got 1");
  StatusOr<Tensor> vec =
      Arg("ArgMax", MakeTensor<float>(TensorShape({1, 2}), std::vector<float>{1, 2}),
          MakeTensor<int32_t>(TensorShape({1}), std::vector<int>{1}));
  ASSERT_FALSE(vec.ok());
  EXPECT_EQ(vec.status().message(), "dim must be a scalar, but received tensor of shape: [1]");
}

TEST(ReductionOpsTest, ArgMaxLargeAcrossThreads) {
  const int64_t rows = 300, cols = 2000;
  std::vector<float> v(rows * cols);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f);
  StatusOr<Tensor> by_row =
      Arg("ArgMax", MakeTensor<float>(TensorShape({rows, cols}), v), MakeScalar<int32_t>(1));
  ASSERT_TRUE(by_row.ok()) << by_row.status();
  for (int64_t r = 0; r < rows; ++r) {
    auto begin = v.begin() + r * cols;
    ASSERT_EQ(by_row->data<int64_t>()[r], std::max_element(begin, begin + cols) - begin);
  }
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
