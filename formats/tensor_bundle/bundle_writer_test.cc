#include "formats/tensor_bundle/bundle_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "formats/npy.h"
#include "formats/tensor_bundle/bundle_format.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/bundle_test_util.h"
#include "formats/tensor_bundle/crc32c.h"
#include "formats/tensor_bundle/tensor_slice.h"

namespace graphrt {
namespace {

using bundle_testing::DiffTensors;
using bundle_testing::Fill;
using bundle_testing::ListDir;
using bundle_testing::ReadAll;
using bundle_testing::Strings;
using bundle_testing::TempDir;

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i < hex.size();) {
    if (hex[i] == ' ' || hex[i] == '\n') {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    i += 2;
  }
  return out;
}

// ---- The golden checkpoints committed under tests/fixtures/checkpoints/written -----------------
//
// tests/fixtures/gen_checkpoints.py runs this binary with GRAPHRT_WRITE_GOLDEN_CHECKPOINTS=DIR
// (test GoldenCheckpointTest.WriteForGenerator), checks with TensorFlow that what graphrt wrote
// reads back as these values, that TensorFlow's SaveV2 writes the same bytes for the one-shard
// checkpoints, and commits the bytes. The tests below check that graphrt still writes exactly
// those bytes and reads them back.

struct GoldenAdd {
  std::string name;
  std::string shape_and_slice;  // "" for a whole tensor
  Tensor tensor;
};

std::vector<GoldenAdd> GoldenAdds() {
  std::vector<GoldenAdd> adds;
  auto add = [&](std::string name, Tensor t, std::string spec = "") {
    adds.push_back({std::move(name), std::move(spec), std::move(t)});
  };
  add("float32/matrix", Fill<float>({3, 5}, [](int64_t i) { return (i - 7) * 0.37f; }));
  Tensor f32 = Fill<float>({4}, [](int64_t i) { return 1.0f / (i + 1); });
  f32.data<float>()[3] = -std::numeric_limits<float>::infinity();
  add("float32/with_inf", f32);
  Tensor f64 = Fill<double>({6}, [](int64_t i) { return (i % 2 ? -1.0 : 1.0) / (i + 1); });
  f64.data<double>()[4] = 1e300;
  f64.data<double>()[5] = -0.0;
  add("float64/vector", f64);
  add("float16/cube", Fill<half>({2, 3, 4}, [](int64_t i) { return half(i * 0.25f - 3.0f); }));
  add("bfloat16/row", Fill<bfloat16>({7}, [](int64_t i) { return bfloat16(i * 1.5f - 4.0f); }));
  add("int8/values", Fill<int8_t>({4}, [](int64_t i) {
        const int8_t v[] = {-128, -1, 0, 127};
        return v[i];
      }));
  add("int16/values", Fill<int16_t>({3}, [](int64_t i) { return i == 0 ? -32768 : i * 1000; }));
  add("int32/matrix", Fill<int32_t>({2, 2}, [](int64_t i) { return (i - 2) * 100000; }));
  add("int64/global_step", Tensor::Scalar<int64_t>(123456789012));
  add("uint8/values", Fill<uint8_t>({5}, [](int64_t i) { return i * 63; }));
  add("uint16/values", Fill<uint16_t>({3}, [](int64_t i) { return i * 30000; }));
  add("uint32/values",
      Fill<uint32_t>({3}, [](int64_t i) { return i == 2 ? 0xffffffffu : i * 7u; }));
  add("uint64/values", Fill<uint64_t>({2}, [](int64_t i) { return i ? ~0ull : 42ull; }));
  add("bool/mask", Fill<bool>({2, 3}, [](int64_t i) { return i % 3 == 1; }));
  add("strings/vector", Strings({5}, {"", "a", "hello world", std::string(200, 'x'),
                                      std::string("a\0b\xff\x80z", 6)}));
  add("strings/scalar", Strings({}, {"checkpoint"}));
  add("empty/float", Tensor(::tensorflow::DT_FLOAT, TensorShape({0, 3})));
  add("empty/string", Strings({0}, {}));
  // Partitioned variables, as tf.compat.v1.get_variable(partitioner=...) saves them.
  auto embedding = [](int64_t row, int64_t rows) {
    return Fill<float>({rows, 4}, [row](int64_t i) { return (row * 4 + i) * 0.5f - 3.0f; });
  };
  add("partitioned/embedding", embedding(0, 4), "10 4 0,4:0,4");
  add("partitioned/embedding", embedding(4, 3), "10 4 4,3:0,4");
  add("partitioned/embedding", embedding(7, 3), "10 4 7,3:0,4");
  const int64_t quad_rows[2] = {0, 2}, quad_cols[2] = {0, 3};
  for (int64_t r : quad_rows) {
    for (int64_t c : quad_cols) {
      add("partitioned/quad",
          Fill<int64_t>({2, 3}, [r, c](int64_t i) { return (r + i / 3) * 6 + c + i % 3; }),
          StrCat("4 6 ", r, ",2:", c, ",3"));
    }
  }
  add("partitioned/bf16", Fill<bfloat16>({2}, [](int64_t i) { return bfloat16(i + 0.5f); }),
      "6 0,2");
  add("partitioned/bf16", Fill<bfloat16>({4}, [](int64_t i) { return bfloat16(i + 2.5f); }),
      "6 2,4");
  return adds;
}

// The whole value of each golden tensor, partitioned ones assembled.
std::map<std::string, Tensor> GoldenValues() {
  std::map<std::string, Tensor> values;
  for (const GoldenAdd& add : GoldenAdds()) {
    if (add.shape_and_slice.empty()) {
      values[add.name] = add.tensor;
      continue;
    }
    TensorShape full;
    TensorSlice slice;
    EXPECT_TRUE(ParseShapeAndSlice(add.shape_and_slice, &full, &slice).ok());
    auto it = values.find(add.name);
    if (it == values.end()) it = values.emplace(add.name, Tensor(add.tensor.dtype(), full)).first;
    Tensor& whole = it->second;
    // Row-major copy of the slice into the whole tensor (rank <= 2 here).
    const int64_t cols = full.dims() == 2 ? full.dim_size(1) : 1;
    const int64_t slice_cols = full.dims() == 2 ? slice.SliceShape(full).dim_size(1) : 1;
    const int64_t col0 = full.dims() == 2 ? slice.start(1) : 0;
    const size_t elem = DataTypeSize(add.tensor.dtype());
    for (int64_t i = 0; i < add.tensor.NumElements(); ++i) {
      const int64_t row = slice.start(0) + i / slice_cols, col = col0 + i % slice_cols;
      std::memcpy(static_cast<char*>(whole.raw_data()) + (row * cols + col) * elem,
                  static_cast<const char*>(add.tensor.raw_data()) + i * elem, elem);
    }
  }
  return values;
}

Status WriteGolden(const std::string& prefix, int num_shards) {
  BundleWriter writer(prefix, {num_shards});
  for (const GoldenAdd& add : GoldenAdds()) {
    if (add.shape_and_slice.empty()) {
      GRT_RETURN_IF_ERROR(writer.Add(add.name, add.tensor));
    } else {
      TensorShape full;
      TensorSlice slice;
      GRT_RETURN_IF_ERROR(ParseShapeAndSlice(add.shape_and_slice, &full, &slice));
      ::tensorflow::TensorSliceProto proto;
      slice.AsProto(&proto);
      GRT_RETURN_IF_ERROR(writer.AddSlice(add.name, full, proto, add.tensor));
    }
  }
  return writer.Finish();
}

// Many small tensors, so the index spans several 256 KiB blocks, and one entry whose key alone
// exceeds two blocks (it is flushed into a block of its own).
constexpr int kManyTensors = 20000;
Status WriteMany(const std::string& prefix) {
  BundleWriter writer(prefix);
  for (int i = 0; i < kManyTensors; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "many/layer_%05d/%s", i / 3,
                  i % 3 == 0   ? "bias"
                  : i % 3 == 1 ? "kernel"
                               : "kernel/Adam");
    GRT_RETURN_IF_ERROR(writer.Add(name, Tensor::Scalar<int8_t>(static_cast<int8_t>(i))));
  }
  GRT_RETURN_IF_ERROR(writer.Add(std::string(600000, 'z'), Tensor::Scalar<float>(1.5f)));
  return writer.Finish();
}

std::string WrittenFixtureDir() {
  return std::string(GRAPHRT_SOURCE_DIR) + "/tests/fixtures/checkpoints/written";
}

TEST(GoldenCheckpointTest, WriteForGenerator) {
  const char* out = std::getenv("GRAPHRT_WRITE_GOLDEN_CHECKPOINTS");
  if (out == nullptr) GTEST_SKIP() << "only run by tests/fixtures/gen_checkpoints.py";
  const std::string dir = out;
  for (const char* sub : {"multi", "single", "many", "values"}) {
    ::mkdir((dir + "/" + sub).c_str(), 0777);
  }
  ASSERT_TRUE(WriteGolden(dir + "/multi/ckpt", 3).ok());
  ASSERT_TRUE(WriteGolden(dir + "/single/ckpt", 1).ok());
  ASSERT_TRUE(WriteMany(dir + "/many/ckpt").ok());
  // What was added, in order, for TensorFlow to check against and to save itself.
  std::string manifest;
  int i = 0;
  for (const GoldenAdd& add : GoldenAdds()) {
    const std::string npy = StrCat(i++, ".npy");
    ASSERT_TRUE(WriteNpy(dir + "/values/" + npy, add.tensor).ok());
    manifest += StrCat(add.name, "\t", add.shape_and_slice, "\t",
                       DataTypeString(add.tensor.dtype()), "\t", npy, "\n");
  }
  ASSERT_TRUE(bundle_testing::WriteAll(dir + "/values/adds.tsv", manifest));
}

TEST(GoldenCheckpointTest, WriterReproducesCommittedBytes) {
  TempDir tmp;
  for (const auto& [sub, shards] : {std::pair<std::string, int>{"multi", 3}, {"single", 1}}) {
    const std::string committed = WrittenFixtureDir() + "/" + sub;
    const std::vector<std::string> files = ListDir(committed);
    ASSERT_EQ(files.size(), static_cast<size_t>(shards + 1)) << committed;
    ASSERT_TRUE(WriteGolden(tmp.Join(sub + "_ckpt"), shards).ok());
    for (const std::string& file : files) {
      ASSERT_EQ(file.substr(0, 5), "ckpt.");
      const std::string written = ReadAll(tmp.Join(sub + "_" + file));
      const std::string want = ReadAll(committed + "/" + file);
      ASSERT_FALSE(want.empty()) << file;
      EXPECT_TRUE(written == want) << sub << "/" << file << " differs from the committed bytes";
    }
  }
}

TEST(GoldenCheckpointTest, ReaderReadsCommittedCheckpoints) {
  const std::map<std::string, Tensor> want = GoldenValues();
  for (const char* sub : {"multi", "single"}) {
    for (bool mmap : {true, false}) {
      auto reader = BundleReader::Open(WrittenFixtureDir() + "/" + sub + "/ckpt", {mmap});
      ASSERT_TRUE(reader.ok()) << reader.status();
      std::vector<std::string> keys;
      for (const auto& [name, t] : want) keys.push_back(name);
      EXPECT_EQ((*reader)->Keys(), keys);
      for (const auto& [name, t] : want) {
        StatusOr<Tensor> got = (*reader)->Read(name);
        ASSERT_TRUE(got.ok()) << got.status();
        EXPECT_EQ(DiffTensors(*got, t), "") << sub << " " << name;
      }
      std::string failing;
      EXPECT_TRUE((*reader)->VerifyAll(&failing).ok()) << failing;
    }
  }
  // The 3-shard checkpoint spreads tensors over every shard.
  auto reader = BundleReader::Open(WrittenFixtureDir() + "/multi/ckpt");
  ASSERT_TRUE(reader.ok());
  std::set<int> shards;
  for (const auto& [key, value] : (*reader)->index().entries()) {
    ::tensorflow::BundleEntryProto e;
    if (!key.empty() && e.ParseFromString(value) && e.slices_size() == 0)
      shards.insert(e.shard_id());
  }
  EXPECT_EQ(shards, (std::set<int>{0, 1, 2}));
}

// The large checkpoint is not committed; its files' sizes and checksums are, as TensorFlow's
// SaveV2 wrote them (checked by the generator).
TEST(GoldenCheckpointTest, ManyTensorCheckpointMatchesTensorFlowDigests) {
  const std::string digests = ReadAll(WrittenFixtureDir() + "/many_digests.tsv");
  ASSERT_FALSE(digests.empty());
  TempDir tmp;
  ASSERT_TRUE(WriteMany(tmp.Join("ckpt")).ok());
  std::string got;
  for (const std::string& file : ListDir(tmp.path())) {
    const std::string bytes = ReadAll(tmp.Join(file));
    got += StrCat(file, "\t", bytes.size(), "\t", crc32c::Value(bytes.data(), bytes.size()), "\n");
  }
  EXPECT_EQ(got, digests);
  auto reader = BundleReader::Open(tmp.Join("ckpt"));
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_GE((*reader)->index().num_data_blocks(), 3);
  EXPECT_EQ((*reader)->Keys().size(), static_cast<size_t>(kManyTensors + 1));
  StatusOr<Tensor> t = (*reader)->Read("many/layer_01234/kernel");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->scalar<int8_t>(), static_cast<int8_t>(1234 * 3 + 1));
  EXPECT_TRUE((*reader)->VerifyAll(nullptr).ok());
}

// ---- Writer behaviour -------------------------------------------------------------------------

// What TensorFlow 2.15's SaveV2 wrote for tensor_names ['a', 's', 'w'], shape_and_slices
// ['', '', '4 3 0,2:0,3'], tensors int64 {1,2,3}, string {"ab","","xyz"}, float ones [2,3].
TEST(BundleWriterTest, MatchesBytesTensorFlowWrote) {
  TempDir tmp;
  BundleWriter writer(tmp.Join("s"));
  ASSERT_TRUE(writer.Add("a", Tensor::Vector<int64_t>({1, 2, 3})).ok());
  ASSERT_TRUE(writer.Add("s", Strings({3}, {"ab", "", "xyz"})).ok());
  ::tensorflow::TensorSliceProto slice;
  TensorSlice({{0, 2}, {0, 3}}).AsProto(&slice);
  ASSERT_TRUE(
      writer.AddSlice("w", {4, 3}, slice, Fill<float>({2, 3}, [](int64_t) { return 1; })).ok());
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(ReadAll(tmp.Join("s.index")),
            Unhex("00 00 06 08 01 1a 02 08 01 00 0a 15 00 77 00 01 01 02 80 82 80 83 08 01 12 08 "
                  "12 02 08 02 12 02 08 03 20 24 28 18 35 6b 3e 3a a8 00 01 0f 61 08 09 12 04 12 "
                  "02 08 03 28 18 35 e1 f2 8a 2a 00 01 11 73 08 07 12 04 12 02 08 03 20 18 28 0c "
                  "35 10 ad c4 3f 00 01 16 77 08 01 12 08 12 02 08 04 12 02 08 03 3a 08 0a 02 10 "
                  "02 0a 02 10 03 00 00 00 00 01 00 00 00 00 b0 6b 78 82 00 00 00 00 01 00 00 00 "
                  "00 c0 f2 a1 b0 00 01 02 78 00 75 00 00 00 00 01 00 00 00 00 e3 9c 3e 8f 7a 08 "
                  "87 01 0e 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
                  "00 00 00 00 00 00 00 00 00 00 00 00 57 fb 80 8b 24 75 47 db "));
  EXPECT_EQ(ReadAll(tmp.Join("s.data-00000-of-00001")),
            Unhex("01 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 02 00 "
                  "03 1b 42 8b ca 61 62 78 79 7a 00 00 80 3f 00 00 80 3f 00 00 80 3f 00 00 80 3f "
                  "00 00 80 3f 00 00 80 3f"));
  EXPECT_EQ(ListDir(tmp.path()), (std::vector<std::string>{"s.data-00000-of-00001", "s.index"}));
}

TEST(BundleWriterTest, RoundTripsEveryDtypeOverShards) {
  TempDir tmp;
  std::map<std::string, Tensor> values = GoldenValues();
  for (int shards : {1, 2, 5}) {
    const std::string prefix = tmp.Join(StrCat("sub/dir/ckpt", shards));
    ASSERT_TRUE(WriteGolden(prefix, shards).ok());
    auto reader = BundleReader::Open(prefix);
    ASSERT_TRUE(reader.ok()) << reader.status();
    EXPECT_EQ((*reader)->num_shards(), shards);
    for (const auto& [name, t] : values) {
      StatusOr<Tensor> got = (*reader)->Read(name);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(DiffTensors(*got, t), "") << name;
    }
  }
}

TEST(BundleWriterTest, BalancesShardsBySize) {
  TempDir tmp;
  BundleWriter writer(tmp.Join("ckpt"), {3});
  ASSERT_TRUE(writer.Add("big", Tensor(::tensorflow::DT_FLOAT, TensorShape({100}))).ok());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(writer.Add(StrCat("small", i), Tensor::Scalar<float>(i)).ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(ReadAll(tmp.Join("ckpt.data-00000-of-00003")).size(), 400u);
  EXPECT_EQ(ReadAll(tmp.Join("ckpt.data-00001-of-00003")).size(), 8u);
  EXPECT_EQ(ReadAll(tmp.Join("ckpt.data-00002-of-00003")).size(), 8u);
}

TEST(BundleWriterTest, EmptyCheckpointHasHeaderAndEmptyShards) {
  TempDir tmp;
  BundleWriter writer(tmp.Join("ckpt"), {2});
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(ListDir(tmp.path()),
            (std::vector<std::string>{"ckpt.data-00000-of-00002", "ckpt.data-00001-of-00002",
                                      "ckpt.index"}));
  auto reader = BundleReader::Open(tmp.Join("ckpt"));
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_TRUE((*reader)->Keys().empty());
  EXPECT_EQ((*reader)->num_shards(), 2);
}

TEST(BundleWriterTest, RejectsBadArgumentsWithoutSideEffects) {
  TempDir tmp;
  BundleWriter writer(tmp.Join("ckpt"));
  const Tensor one = Tensor::Scalar<float>(1);
  EXPECT_EQ(writer.Add("", one).code(), Code::kInvalidArgument);
  ASSERT_TRUE(writer.Add("x", one).ok());
  EXPECT_EQ(writer.Add("x", one).code(), Code::kInvalidArgument);
  EXPECT_EQ(writer.Add("r", Tensor(::tensorflow::DT_RESOURCE, TensorShape())).code(),
            Code::kInvalidArgument);
  ::tensorflow::TensorSliceProto top, overlapping, outside;
  TensorSlice({{0, 2}, {0, 3}}).AsProto(&top);
  TensorSlice({{1, 2}, {0, 3}}).AsProto(&overlapping);
  TensorSlice({{3, 2}, {0, 3}}).AsProto(&outside);
  const Tensor block = Fill<float>({2, 3}, [](int64_t i) { return i; });
  ASSERT_TRUE(writer.AddSlice("p", {4, 3}, top, block).ok());
  EXPECT_EQ(writer.AddSlice("p", {4, 3}, overlapping, block).code(), Code::kInvalidArgument);
  EXPECT_EQ(writer.AddSlice("p", {4, 3}, outside, block).code(), Code::kInvalidArgument);
  EXPECT_EQ(writer.AddSlice("p", {5, 3}, top, block).code(), Code::kInvalidArgument);
  EXPECT_EQ(
      writer.AddSlice("p", {4, 3}, top, Fill<int32_t>({2, 3}, [](int64_t) { return 0; })).code(),
      Code::kInvalidArgument);
  EXPECT_EQ(writer.AddSlice("x", {4, 3}, top, block).code(), Code::kInvalidArgument);
  EXPECT_EQ(writer.AddSlice("q", {4, 3}, top, one).code(), Code::kInvalidArgument);
  EXPECT_EQ(writer.Add("p", one).code(), Code::kInvalidArgument);
  // A slice that covers the whole shape is a plain tensor.
  ::tensorflow::TensorSliceProto all;
  TensorSlice({{0, 2}, {0, 3}}).AsProto(&all);
  ASSERT_TRUE(writer.AddSlice("whole", {2, 3}, all, block).ok());
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(writer.Finish().code(), Code::kFailedPrecondition);
  EXPECT_EQ(writer.Add("late", one).code(), Code::kFailedPrecondition);

  auto reader = BundleReader::Open(tmp.Join("ckpt"));
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->Keys(), (std::vector<std::string>{"p", "whole", "x"}));
  EXPECT_EQ((*reader)->Entry("whole")->slices_size(), 0);
  // "p" has one slice of four rows: reading all of it reports the gap.
  StatusOr<Tensor> p = (*reader)->Read("p");
  EXPECT_EQ(p.status().code(), Code::kDataLoss) << p.status();
  StatusOr<Tensor> top_rows = (*reader)->ReadSlice("p", TensorSlice({{0, 2}, {0, 3}}));
  ASSERT_TRUE(top_rows.ok()) << top_rows.status();
  EXPECT_EQ(DiffTensors(*top_rows, block), "");
}

TEST(BundleWriterTest, LeavesNothingBehindWithoutFinish) {
  TempDir tmp;
  {
    BundleWriter writer(tmp.Join("ckpt"), {2});
    ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
    EXPECT_EQ(ListDir(tmp.path()).size(), 2u);  // the temporary data files
  }
  EXPECT_TRUE(ListDir(tmp.path()).empty());
}

TEST(BundleWriterTest, LeavesNothingBehindWhenFinishFails) {
  TempDir tmp;
  BundleWriter writer(tmp.Join("ckpt"));
  ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  // A directory where the index should go makes its rename fail.
  ASSERT_EQ(::mkdir(tmp.Join("ckpt.index").c_str(), 0777), 0);
  ASSERT_EQ(::mkdir(tmp.Join("ckpt.index/keep").c_str(), 0777), 0);
  Status s = writer.Finish();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(ListDir(tmp.path()), (std::vector<std::string>{"ckpt.index"}));
}

TEST(BundleWriterTest, ReportsUnwritableDirectories) {
  TempDir tmp;
  ASSERT_TRUE(bundle_testing::WriteAll(tmp.Join("file"), "x"));
  BundleWriter writer(tmp.Join("file/ckpt"));
  Status s = writer.Add("x", Tensor::Scalar<float>(1));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(writer.Add("y", Tensor::Scalar<float>(1)), s);  // I/O errors stick
  EXPECT_EQ(writer.Finish(), s);
  EXPECT_EQ(ListDir(tmp.path()), (std::vector<std::string>{"file"}));
  BundleWriter no_shards(tmp.Join("ckpt"), {0});
  EXPECT_EQ(no_shards.Finish().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace graphrt
