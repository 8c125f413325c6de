#include "formats/tensor_bundle/bundle_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <map>
#include <random>
#include <thread>

#include "formats/tensor_bundle/bundle_format.h"
#include "formats/tensor_bundle/bundle_test_util.h"
#include "formats/tensor_bundle/bundle_writer.h"
#include "formats/tensor_bundle/coding.h"
#include "formats/tensor_bundle/crc32c.h"
#include "formats/tensor_bundle/table.h"
#include "saved_tensor_slice.pb.h"

namespace graphrt {
namespace {

using bundle_testing::DiffTensors;
using bundle_testing::Fill;
using bundle_testing::ReadAll;
using bundle_testing::Strings;
using bundle_testing::TempDir;
using bundle_testing::WriteAll;
using ::tensorflow::BundleEntryProto;
using ::tensorflow::BundleHeaderProto;

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

#define EXPECT_STATUS(expr, code_, ...)                                                     \
  do {                                                                                      \
    const Status grt_s_ = (expr);                                                           \
    EXPECT_EQ(grt_s_.code(), code_) << grt_s_;                                              \
    for (const std::string& grt_f_ : std::vector<std::string>{__VA_ARGS__}) {               \
      EXPECT_TRUE(Contains(grt_s_.message(), grt_f_)) << grt_s_ << "\n  lacks: " << grt_f_; \
    }                                                                                       \
  } while (0)

// A bundle assembled entry by entry, for the inputs no writer would produce.
struct HandBundle {
  BundleHeaderProto header;
  std::map<std::string, std::string> entries;  // key -> serialized value
  std::vector<std::string> shards{std::string()};

  HandBundle() {
    header.set_num_shards(1);
    header.mutable_version()->set_producer(1);
  }
  // Appends `bytes` to shard `shard` and returns an entry that points at them.
  BundleEntryProto Data(DataType dtype, const TensorShape& shape, const std::string& bytes,
                        int shard = 0) {
    BundleEntryProto e;
    e.set_dtype(dtype);
    shape.AsProto(e.mutable_shape());
    e.set_shard_id(shard);
    e.set_offset(static_cast<int64_t>(shards[shard].size()));
    e.set_size(static_cast<int64_t>(bytes.size()));
    e.set_crc32c(crc32c::Mask(crc32c::Value(bytes.data(), bytes.size())));
    shards[shard] += bytes;
    return e;
  }
  void Put(const std::string& key, const BundleEntryProto& e) {
    entries[key] = e.SerializeAsString();
  }
  void Write(const std::string& prefix, bool with_header = true) const {
    table::TableBuilder b;
    if (with_header) b.Add("", header.SerializeAsString());
    for (const auto& [k, v] : entries) b.Add(k, v);
    ASSERT_TRUE(WriteAll(bundle::IndexFilename(prefix), b.Finish()));
    for (size_t i = 0; i < shards.size(); ++i) {
      ASSERT_TRUE(WriteAll(bundle::DataFilename(prefix, static_cast<int>(i),
                                                header.num_shards() > 0 ? header.num_shards() : 1),
                           shards[i]));
    }
  }
};

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

std::unique_ptr<BundleReader> OpenOrDie(const std::string& prefix,
                                        BundleReader::Options options = {}) {
  auto r = BundleReader::Open(prefix, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(r).value() : nullptr;
}

TEST(BundleReaderTest, ReadsBigEndianBundles) {
  TempDir tmp;
  HandBundle h;
  h.header.set_endianness(BundleHeaderProto::BIG);
  h.Put("f", h.Data(::tensorflow::DT_FLOAT, {2}, Bytes({0x3f, 0x80, 0, 0, 0x40, 0, 0, 0})));
  h.Put("i16", h.Data(::tensorflow::DT_INT16, {2}, Bytes({0x00, 0x01, 0xff, 0xfe})));
  h.Put("bf", h.Data(::tensorflow::DT_BFLOAT16, {1}, Bytes({0x3f, 0x80})));
  h.Put("b", h.Data(::tensorflow::DT_BOOL, {2}, Bytes({1, 0})));
  // Strings: the length checksum is over big-endian uint32 lengths and stored big-endian.
  std::string lengths_be = Bytes({0, 0, 0, 2, 0, 0, 0, 1});
  const uint32_t length_crc = crc32c::Value(lengths_be.data(), lengths_be.size());
  const uint32_t masked = crc32c::Mask(length_crc);
  const std::string checksum =
      Bytes({static_cast<int>(masked >> 24), static_cast<int>((masked >> 16) & 0xff),
             static_cast<int>((masked >> 8) & 0xff), static_cast<int>(masked & 0xff)});
  BundleEntryProto s = h.Data(::tensorflow::DT_STRING, {2}, Bytes({2, 1}) + checksum + "abc");
  const std::string covered = lengths_be + checksum + "abc";
  s.set_crc32c(crc32c::Mask(crc32c::Value(covered.data(), covered.size())));
  h.Put("s", s);
  h.Write(tmp.Join("be"));

  auto reader = OpenOrDie(tmp.Join("be"));
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->swaps_bytes());
  EXPECT_EQ(DiffTensors(*reader->Read("f"), Tensor::Vector<float>({1.0f, 2.0f})), "");
  EXPECT_EQ(DiffTensors(*reader->Read("i16"), Tensor::Vector<int16_t>({1, -2})), "");
  EXPECT_EQ(DiffTensors(*reader->Read("bf"), Tensor::Vector<bfloat16>({bfloat16(1.0f)})), "");
  EXPECT_EQ(DiffTensors(*reader->Read("b"), Tensor::Vector<bool>({true, false})), "");
  StatusOr<Tensor> strings = reader->Read("s");
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(DiffTensors(*strings, Strings({2}, {"ab", "c"})), "");
  EXPECT_TRUE(reader->VerifyAll(nullptr).ok());
}

TEST(BundleReaderTest, MissingFilesAndDirectories) {
  TempDir tmp;
  EXPECT_STATUS(BundleReader::Open(tmp.Join("nothing")).status(), Code::kNotFound,
                tmp.Join("nothing.index"));
  EXPECT_STATUS(BundleReader::Open(tmp.path()).status(), Code::kNotFound, "directory");
  ASSERT_TRUE(WriteAll(tmp.Join("junk"), "not a table at all, just some bytes"));
  EXPECT_STATUS(BundleReader::Open(tmp.Join("junk")).status(), Code::kNotFound,
                "not a V1 checkpoint");
}

TEST(BundleReaderTest, RejectsBadHeaders) {
  TempDir tmp;
  {
    HandBundle h;
    h.Put("x", h.Data(::tensorflow::DT_FLOAT, {1}, std::string(4, '\0')));
    h.Write(tmp.Join("noheader"), /*with_header=*/false);
    EXPECT_STATUS(BundleReader::Open(tmp.Join("noheader")).status(), Code::kDataLoss,
                  "noheader.index", "no header entry");
  }
  struct Case {
    const char* name;
    std::function<void(BundleHeaderProto*)> edit;
    Code code;
    const char* fragment;
  };
  const Case cases[] = {
      {"zero_shards", [](BundleHeaderProto* h) { h->set_num_shards(0); }, Code::kDataLoss,
       "0 data shards"},
      {"endianness",
       [](BundleHeaderProto* h) {
         h->set_endianness(static_cast<BundleHeaderProto::Endianness>(7));
       },
       Code::kDataLoss, "unknown byte order"},
      {"min_consumer", [](BundleHeaderProto* h) { h->mutable_version()->set_min_consumer(2); },
       Code::kInvalidArgument, "version 2 or newer"},
      {"bad_consumer", [](BundleHeaderProto* h) { h->mutable_version()->add_bad_consumers(1); },
       Code::kInvalidArgument, "disallows"},
      {"producer", [](BundleHeaderProto* h) { h->mutable_version()->set_producer(-1); },
       Code::kInvalidArgument, "producer version -1"},
  };
  for (const Case& c : cases) {
    HandBundle h;
    c.edit(&h.header);
    h.Write(tmp.Join(c.name));
    EXPECT_STATUS(BundleReader::Open(tmp.Join(c.name)).status(), c.code,
                  tmp.Join(c.name) + ".index", c.fragment);
  }
  // A header value that is not a proto at all.
  table::TableBuilder b;
  b.Add("", "\xff\xff\xff");
  ASSERT_TRUE(WriteAll(tmp.Join("garbage.index"), b.Finish()));
  EXPECT_STATUS(BundleReader::Open(tmp.Join("garbage")).status(), Code::kDataLoss,
                "header entry does not parse");
}

// A V1 checkpoint: a table whose records are SavedTensorSlices.
std::string V1Table() {
  ::tensorflow::SavedTensorSlices meta;
  auto* t = meta.mutable_meta()->add_tensor();
  t->set_name("v");
  t->set_type(::tensorflow::DT_FLOAT);
  t->add_slice();
  ::tensorflow::SavedTensorSlices data;
  data.mutable_data()->set_name("v");
  data.mutable_data()->mutable_data()->set_dtype(::tensorflow::DT_FLOAT);
  data.mutable_data()->mutable_data()->add_float_val(0.5f);
  table::TableBuilder b;
  b.Add("", meta.SerializeAsString());
  b.Add(EncodeTensorNameSlice("v", TensorSlice(0)), data.SerializeAsString());
  return b.Finish();
}

TEST(BundleReaderTest, V1CheckpointsAreUnimplemented) {
  TempDir tmp;
  ASSERT_TRUE(WriteAll(tmp.Join("model.ckpt"), V1Table()));
  EXPECT_STATUS(BundleReader::Open(tmp.Join("model.ckpt")).status(), Code::kUnimplemented,
                "V1 checkpoint (SavedTensorSlices)", tmp.Join("model.ckpt"));
  ASSERT_TRUE(WriteAll(tmp.Join("sharded-00000-of-00002"), V1Table()));
  EXPECT_STATUS(BundleReader::Open(tmp.Join("sharded")).status(), Code::kUnimplemented,
                "V1 checkpoint (SavedTensorSlices)", "sharded-00000-of-00002");
  ASSERT_TRUE(WriteAll(tmp.Join("renamed.index"), V1Table()));
  EXPECT_STATUS(BundleReader::Open(tmp.Join("renamed")).status(), Code::kUnimplemented,
                "V1 checkpoint (SavedTensorSlices)");
}

TEST(BundleReaderTest, RejectsBadEntriesWithoutAllocating) {
  TempDir tmp;
  HandBundle h;
  h.header.set_num_shards(2);
  h.shards.resize(2);
  const std::string four(4, '\0');
  h.Put("good", h.Data(::tensorflow::DT_FLOAT, {1}, four));
  h.entries["unparsable"] = "\xff\xff";
  BundleEntryProto e = h.Data(::tensorflow::DT_FLOAT, {1}, four);
  e.set_dtype(::tensorflow::DT_RESOURCE);
  h.Put("resource", e);
  e.set_dtype(static_cast<DataType>(999));
  h.Put("dtype999", e);
  e.set_dtype(static_cast<DataType>(2000000000));  // once unbounded recursion in its name
  h.Put("dtype2e9", e);
  e = h.Data(::tensorflow::DT_FLOAT, {1}, four);
  e.mutable_shape()->mutable_dim(0)->set_size(-3);
  h.Put("negative_dim", e);
  e = h.Data(::tensorflow::DT_FLOAT, {1}, four);
  e.set_shard_id(7);
  h.Put("shard7", e);
  e.set_shard_id(0);
  e.set_offset(-1);
  h.Put("negative_offset", e);
  e = h.Data(::tensorflow::DT_FLOAT, {2}, four);
  h.Put("size_mismatch", e);
  e = h.Data(::tensorflow::DT_FLOAT, {1ll << 40, 1ll << 20}, four);
  h.Put("huge", e);
  e = h.Data(::tensorflow::DT_STRING, {1000000000000ll}, std::string(10, '\0'));
  h.Put("huge_strings", e);
  e = h.Data(::tensorflow::DT_FLOAT, {1}, four);
  e.set_offset(1000);
  h.Put("past_end", e);
  e = h.Data(::tensorflow::DT_FLOAT, {1}, four);
  e.set_crc32c(e.crc32c() ^ 1);
  h.Put("bad_crc", e);
  h.Put("in_shard1", h.Data(::tensorflow::DT_FLOAT, {1}, four, 1));
  h.Write(tmp.Join("ckpt"));
  auto reader = OpenOrDie(tmp.Join("ckpt"));
  ASSERT_NE(reader, nullptr);
  const std::string index = tmp.Join("ckpt.index");
  const std::string shard0 = tmp.Join("ckpt.data-00000-of-00002");
  EXPECT_TRUE(reader->Read("good").ok());
  EXPECT_STATUS(reader->Read("absent").status(), Code::kNotFound, "absent", tmp.Join("ckpt"));
  EXPECT_STATUS(reader->Read("").status(), Code::kNotFound);
  EXPECT_STATUS(reader->Read("unparsable").status(), Code::kDataLoss, index, "'unparsable'");
  EXPECT_STATUS(reader->Read("resource").status(), Code::kDataLoss, index, "resource");
  EXPECT_STATUS(reader->Read("dtype999").status(), Code::kDataLoss, index, "dtype999");
  EXPECT_STATUS(reader->Read("dtype2e9").status(), Code::kDataLoss, index,
                "unknown dtype enum (2000000000)");
  EXPECT_STATUS(reader->Read("negative_dim").status(), Code::kDataLoss, index, "bad shape");
  EXPECT_STATUS(reader->Read("shard7").status(), Code::kDataLoss, index, "shard 7 of 2");
  EXPECT_STATUS(reader->Read("negative_offset").status(), Code::kDataLoss, index, "offset -1");
  EXPECT_STATUS(reader->Read("size_mismatch").status(), Code::kDataLoss, index, "needs 2 x 4");
  EXPECT_STATUS(reader->Read("huge").status(), Code::kDataLoss, index, "'huge'");
  EXPECT_STATUS(reader->Read("huge_strings").status(), Code::kDataLoss, index, "too few");
  EXPECT_STATUS(reader->Read("past_end").status(), Code::kDataLoss, shard0, "'past_end'",
                "truncated");
  EXPECT_STATUS(reader->Read("bad_crc").status(), Code::kDataLoss, shard0, "'bad_crc'",
                "checksum mismatch");
  EXPECT_TRUE(reader->Read("in_shard1").ok());
  std::string failing;
  EXPECT_STATUS(reader->VerifyAll(&failing), Code::kDataLoss);
  EXPECT_EQ(failing, "bad_crc");  // the first bad key in sorted order
}

TEST(BundleReaderTest, RejectsBadStringTensors) {
  TempDir tmp;
  HandBundle h;
  std::string good;
  const std::vector<std::string> values = {"ab", "", "xyz"};
  const uint32_t crc = bundle::EncodeStringTensor(values.data(), 3, &good);
  BundleEntryProto e = h.Data(::tensorflow::DT_STRING, {3}, good);
  e.set_crc32c(crc32c::Mask(crc));
  h.Put("good", e);
  std::string bad_length = good;
  bad_length[0] = 3;  // lengths no longer match their checksum
  e = h.Data(::tensorflow::DT_STRING, {3}, bad_length);
  h.Put("bad_length", e);
  e = h.Data(::tensorflow::DT_STRING, {3}, good + "!");  // one byte too many
  h.Put("extra_byte", e);
  e = h.Data(::tensorflow::DT_STRING, {3}, Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  h.Put("bad_varint", e);
  e = h.Data(::tensorflow::DT_STRING, {0}, "");
  e.set_crc32c(crc32c::Mask(0));
  h.Put("empty", e);
  h.Write(tmp.Join("ckpt"));
  auto reader = OpenOrDie(tmp.Join("ckpt"));
  ASSERT_NE(reader, nullptr);
  StatusOr<Tensor> t = reader->Read("good");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(DiffTensors(*t, Strings({3}, values)), "");
  const std::string shard = tmp.Join("ckpt.data-00000-of-00001");
  EXPECT_STATUS(reader->Read("bad_length").status(), Code::kDataLoss, shard, "'bad_length'",
                "length checksum");
  EXPECT_STATUS(reader->Read("extra_byte").status(), Code::kDataLoss, shard, "'extra_byte'",
                "add up");
  EXPECT_STATUS(reader->Read("bad_varint").status(), Code::kDataLoss, shard, "'bad_varint'");
  EXPECT_TRUE(reader->Read("empty").ok());
}

TEST(BundleReaderTest, VariantsVerifyButDoNotRead) {
  TempDir tmp;
  HandBundle h;
  // One element: varint64 length 3 | "abc" | masked crc of (length as fixed64, "abc").
  std::string len8(8, '\0');
  len8[0] = 3;
  uint32_t crc = crc32c::Extend(crc32c::Value(len8.data(), 8), "abc", 3);
  std::string checksum;
  bundle::PutFixed32(&checksum, crc32c::Mask(crc));
  crc = crc32c::Extend(crc, checksum.data(), 4);
  BundleEntryProto e = h.Data(::tensorflow::DT_VARIANT, {1},
                              "\x03"
                              "abc" +
                                  checksum);
  e.set_crc32c(crc32c::Mask(crc));
  h.Put("variant", e);
  h.Write(tmp.Join("good"));
  auto reader = OpenOrDie(tmp.Join("good"));
  ASSERT_NE(reader, nullptr);
  EXPECT_STATUS(reader->Read("variant").status(), Code::kUnimplemented, "variant");
  EXPECT_TRUE(reader->VerifyAll(nullptr).ok());
  h.shards[0][2] ^= 1;
  h.Write(tmp.Join("bad"));
  reader = OpenOrDie(tmp.Join("bad"));
  ASSERT_NE(reader, nullptr);
  std::string failing;
  EXPECT_STATUS(reader->VerifyAll(&failing), Code::kDataLoss, "variant");
  EXPECT_EQ(failing, "variant");
}

// ---- Partitioned tensors ------------------------------------------------------------------------

TEST(BundleReaderTest, AssemblesAndSlicesPartitionedTensors) {
  TempDir tmp;
  const TensorShape full({5, 6});
  const Tensor whole = Fill<int32_t>(full, [](int64_t i) { return static_cast<int32_t>(i); });
  const Tensor names = Strings({5}, {"a", "bb", "", "dddd", "e"});
  BundleWriter writer(tmp.Join("ckpt"), {2});
  // Four uneven blocks of the 5x6 matrix, and a string vector in two pieces.
  const std::vector<TensorSlice> blocks = {
      TensorSlice({{0, 2}, {0, 4}}), TensorSlice({{0, 2}, {4, 2}}), TensorSlice({{2, 3}, {0, 1}}),
      TensorSlice({{2, 3}, {1, 5}})};
  for (const TensorSlice& b : blocks) {
    Tensor part(::tensorflow::DT_INT32, b.SliceShape(full));
    for (int64_t i = 0; i < part.NumElements(); ++i) {
      const int64_t cols = b.SliceShape(full).dim_size(1);
      part.data<int32_t>()[i] =
          static_cast<int32_t>((b.start(0) + i / cols) * 6 + b.start(1) + i % cols);
    }
    ::tensorflow::TensorSliceProto proto;
    b.AsProto(&proto);
    ASSERT_TRUE(writer.AddSlice("m", full, proto, part).ok());
  }
  for (auto [start, length] : {std::pair<int64_t, int64_t>{0, 3}, {3, 2}}) {
    ::tensorflow::TensorSliceProto proto;
    TensorSlice({{start, length}}).AsProto(&proto);
    std::vector<std::string> part(names.data<std::string>() + start,
                                  names.data<std::string>() + start + length);
    ASSERT_TRUE(writer.AddSlice("names", {5}, proto, Strings({length}, part)).ok());
  }
  ASSERT_TRUE(writer.Add("plain", whole).ok());
  ASSERT_TRUE(writer.Finish().ok());

  auto reader = OpenOrDie(tmp.Join("ckpt"));
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Keys(), (std::vector<std::string>{"m", "names", "plain"}));
  EXPECT_EQ(DiffTensors(*reader->Read("m"), whole), "");
  EXPECT_EQ(DiffTensors(*reader->Read("names"), names), "");
  for (const std::string key : {"m", "plain"}) {
    // A window across all four blocks.
    StatusOr<Tensor> window = reader->ReadSlice(key, TensorSlice({{1, 3}, {2, 4}}));
    ASSERT_TRUE(window.ok()) << window.status();
    Tensor want = Fill<int32_t>({3, 4}, [](int64_t i) { return (1 + i / 4) * 6 + 2 + i % 4; });
    EXPECT_EQ(DiffTensors(*window, want), "") << key;
    StatusOr<Tensor> column = reader->ReadSlice(key, TensorSlice({{0, -1}, {5, 1}}));
    ASSERT_TRUE(column.ok()) << column.status();
    EXPECT_EQ(DiffTensors(*column, Fill<int32_t>({5, 1}, [](int64_t i) { return i * 6 + 5; })), "");
    EXPECT_STATUS(reader->ReadSlice(key, TensorSlice({{4, 2}, {0, 1}})).status(),
                  Code::kInvalidArgument, "does not fit");
    EXPECT_STATUS(reader->ReadSlice(key, TensorSlice({{0, 1}})).status(), Code::kInvalidArgument,
                  "rank");
  }
  StatusOr<Tensor> middle = reader->ReadSlice("names", TensorSlice({{2, 2}}));
  ASSERT_TRUE(middle.ok()) << middle.status();
  EXPECT_EQ(DiffTensors(*middle, Strings({2}, {"", "dddd"})), "");
  EXPECT_TRUE(reader->VerifyAll(nullptr).ok());
  EXPECT_EQ(BundleReader::DisplayKey(EncodeTensorNameSlice("m", blocks[3])), "m[2,3:1,5]");
}

TEST(BundleReaderTest, RejectsInconsistentPartitions) {
  TempDir tmp;
  HandBundle h;
  const TensorShape full({4});
  auto full_entry = [&](std::vector<TensorSlice> slices) {
    BundleEntryProto e;
    e.set_dtype(::tensorflow::DT_FLOAT);
    full.AsProto(e.mutable_shape());
    for (const TensorSlice& s : slices) s.AsProto(e.add_slices());
    return e;
  };
  const TensorSlice first({{0, 2}}), second({{2, 2}}), overlap({{1, 2}});
  const std::string eight(8, '\0');
  // "missing": the second slice has no entry.
  h.Put("missing", full_entry({first, second}));
  h.Put(EncodeTensorNameSlice("missing", first), h.Data(::tensorflow::DT_FLOAT, {2}, eight));
  // "gap": only the first half is stored.
  h.Put("gap", full_entry({first}));
  h.Put(EncodeTensorNameSlice("gap", first), h.Data(::tensorflow::DT_FLOAT, {2}, eight));
  // "overlap": two slices share an element.
  h.Put("overlap", full_entry({first, overlap}));
  h.Put(EncodeTensorNameSlice("overlap", first), h.Data(::tensorflow::DT_FLOAT, {2}, eight));
  h.Put(EncodeTensorNameSlice("overlap", overlap), h.Data(::tensorflow::DT_FLOAT, {2}, eight));
  // "wrong_shape": a slice entry whose shape is not the slice's.
  h.Put("wrong_shape", full_entry({first, second}));
  h.Put(EncodeTensorNameSlice("wrong_shape", first), h.Data(::tensorflow::DT_FLOAT, {2}, eight));
  h.Put(EncodeTensorNameSlice("wrong_shape", second),
        h.Data(::tensorflow::DT_FLOAT, {3}, std::string(12, '\0')));
  // "outside": a slice that does not fit the full shape.
  h.Put("outside", full_entry({TensorSlice({{3, 2}})}));
  h.Write(tmp.Join("ckpt"));
  auto reader = OpenOrDie(tmp.Join("ckpt"));
  ASSERT_NE(reader, nullptr);
  const std::string index = tmp.Join("ckpt.index");
  EXPECT_STATUS(reader->Read("missing").status(), Code::kDataLoss, index, "slice 2,2", "no entry");
  EXPECT_STATUS(reader->Read("gap").status(), Code::kDataLoss, index, "cover 2 of its 4");
  EXPECT_TRUE(reader->ReadSlice("gap", first).ok());
  EXPECT_STATUS(reader->ReadSlice("gap", TensorSlice({{1, 2}})).status(), Code::kInvalidArgument,
                "do not cover");
  EXPECT_STATUS(reader->Read("overlap").status(), Code::kDataLoss, index, "overlap");
  EXPECT_STATUS(reader->Read("wrong_shape").status(), Code::kDataLoss, index, "float[2]");
  EXPECT_STATUS(reader->Read("outside").status(), Code::kDataLoss, index, "bad slice");
  EXPECT_EQ(reader->Keys().size(), 5u);
  std::string failing;
  EXPECT_FALSE(reader->VerifyAll(&failing).ok());
  EXPECT_EQ(failing, "gap");
}

// ---- Corruption, truncation, deletion -----------------------------------------------------------

struct SmallCheckpoint {
  std::map<std::string, Tensor> values;
  std::string prefix;
};

// Several dtypes, strings and a partitioned tensor over two shards.
SmallCheckpoint WriteSmall(const std::string& prefix) {
  SmallCheckpoint c;
  c.prefix = prefix;
  c.values["a"] = Tensor::Vector<float>({1.5f, -2.0f, 3.25f});
  c.values["s"] = Strings({3}, {"xy", "", "hello"});
  c.values["b"] = Tensor::Vector<bool>({true, false});
  c.values["h"] = Tensor::Vector<half>({half(0.5f), half(-8.0f)});
  c.values["p"] = Tensor::Vector<int32_t>({7, 8, 9, 10});
  BundleWriter writer(prefix, {2});
  for (const char* key : {"a", "s", "b", "h"}) EXPECT_TRUE(writer.Add(key, c.values[key]).ok());
  for (int64_t start : {0, 2}) {
    ::tensorflow::TensorSliceProto proto;
    TensorSlice({{start, 2}}).AsProto(&proto);
    EXPECT_TRUE(writer
                    .AddSlice("p", {4}, proto,
                              Tensor::Vector<int32_t>({int32_t(7 + start), int32_t(8 + start)}))
                    .ok());
  }
  EXPECT_TRUE(writer.Finish().ok());
  return c;
}

// Opens the checkpoint, reads every tensor into `*per_key` (a value returned as OK must be the
// one written) and returns what VerifyAll returns, or Open's error.
Status ReadEverything(const SmallCheckpoint& c, bool mmap, std::map<std::string, Status>* per_key,
                      std::string* failing) {
  auto reader = BundleReader::Open(c.prefix, {mmap});
  if (!reader.ok()) return reader.status();
  for (const auto& [key, want] : c.values) {
    StatusOr<Tensor> got = (*reader)->Read(key);
    if (got.ok()) {
      EXPECT_EQ(DiffTensors(*got, want), "") << "wrong value returned as OK for " << key;
      (*per_key)[key] = Status::OK();
    } else {
      (*per_key)[key] = got.status();
    }
  }
  return (*reader)->VerifyAll(failing);
}

TEST(BundleCorruptionTest, EveryIndexByteFlip) {
  TempDir tmp;
  const SmallCheckpoint c = WriteSmall(tmp.Join("ckpt"));
  const std::string index_path = tmp.Join("ckpt.index");
  const std::string original = ReadAll(index_path);
  // The footer's zero padding after the two block handles is the only byte range TensorFlow
  // ignores.
  std::string_view footer(original.data() + original.size() - 48, 40);
  table::BlockHandle h1, h2;
  ASSERT_TRUE(h1.DecodeFrom(&footer) && h2.DecodeFrom(&footer));
  const size_t padding_begin = original.size() - 8 - footer.size();
  const size_t padding_end = original.size() - 8;
  int ok_count = 0;
  for (size_t pos = 0; pos < original.size(); ++pos) {
    for (int mask : {0x01, 0x80, 0xff}) {
      std::string bytes = original;
      bytes[pos] = static_cast<char>(bytes[pos] ^ mask);
      ASSERT_TRUE(WriteAll(index_path, bytes));
      std::map<std::string, Status> per_key;
      std::string failing;
      Status s = ReadEverything(c, true, &per_key, &failing);
      const bool padding = pos >= padding_begin && pos < padding_end;
      if (s.ok()) {
        ++ok_count;
        EXPECT_TRUE(padding) << "flip of index byte " << pos << " went unnoticed";
        for (const auto& [key, status] : per_key) EXPECT_TRUE(status.ok()) << key;
      } else {
        EXPECT_FALSE(padding) << pos;
        EXPECT_TRUE(s.code() == Code::kDataLoss || s.code() == Code::kNotFound ||
                    s.code() == Code::kInvalidArgument)
            << "byte " << pos << ": " << s;
        EXPECT_TRUE(Contains(s.message(), index_path)) << "byte " << pos << ": " << s;
      }
    }
  }
  EXPECT_EQ(ok_count, static_cast<int>(3 * (padding_end - padding_begin)));
}

TEST(BundleCorruptionTest, EveryDataByteFlip) {
  TempDir tmp;
  const SmallCheckpoint c = WriteSmall(tmp.Join("ckpt"));
  auto reader = OpenOrDie(c.prefix);
  ASSERT_NE(reader, nullptr);
  for (int shard = 0; shard < 2; ++shard) {
    const std::string path = bundle::DataFilename(c.prefix, shard, 2);
    const std::string original = ReadAll(path);
    // Which tensor (by display name, and the key whose Read touches it) owns each byte.
    std::vector<std::pair<std::string, std::string>> owner(original.size());
    for (const auto& [key, value] : reader->index().entries()) {
      BundleEntryProto e;
      if (key.empty() || !e.ParseFromString(value) || e.slices_size() > 0 ||
          e.shard_id() != shard) {
        continue;
      }
      const std::string display = BundleReader::DisplayKey(key);
      const std::string read_key = display.substr(0, display.find('['));
      for (int64_t i = 0; i < e.size(); ++i) owner[e.offset() + i] = {display, read_key};
    }
    for (size_t pos = 0; pos < original.size(); ++pos) {
      ASSERT_FALSE(owner[pos].first.empty()) << "byte " << pos << " of " << path << " is unused";
      for (bool mmap : {true, false}) {
        std::string bytes = original;
        bytes[pos] ^= 0x20;
        ASSERT_TRUE(WriteAll(path, bytes));
        std::map<std::string, Status> per_key;
        std::string failing;
        Status s = ReadEverything(c, mmap, &per_key, &failing);
        EXPECT_EQ(s.code(), Code::kDataLoss) << path << " byte " << pos << ": " << s;
        EXPECT_EQ(failing, owner[pos].first) << pos;
        EXPECT_TRUE(Contains(s.message(), path)) << s;
        for (const auto& [key, status] : per_key) {
          if (key == owner[pos].second) {
            EXPECT_EQ(status.code(), Code::kDataLoss) << key << " byte " << pos;
            EXPECT_TRUE(Contains(status.message(), path)) << status;
            EXPECT_TRUE(Contains(status.message(), "'" + owner[pos].first + "'")) << status;
          } else {
            EXPECT_TRUE(status.ok()) << key << " failed for a flip of " << pos << ": " << status;
          }
        }
      }
    }
    ASSERT_TRUE(WriteAll(path, original));
  }
}

// Past the checksums: edits of the index's data block whose checksum is then recomputed, as a
// hostile or buggy writer could produce. Any outcome but a crash (or an error of an unexpected
// kind) is acceptable: such an index is a valid table describing other tensors.
TEST(BundleCorruptionTest, HostileIndexEntriesWithValidChecksums) {
  TempDir tmp;
  const SmallCheckpoint c = WriteSmall(tmp.Join("ckpt"));
  const std::string index_path = tmp.Join("ckpt.index");
  const std::string original = ReadAll(index_path);
  // TableBuilder wrote one data block at offset 0; its size is in the index block's handle.
  std::string_view footer(original.data() + original.size() - 48, 40);
  table::BlockHandle meta, index;
  ASSERT_TRUE(meta.DecodeFrom(&footer) && index.DecodeFrom(&footer));
  std::string_view entry(original.data() + index.offset, index.size);
  uint32_t shared, unshared, value_size;
  ASSERT_TRUE(bundle::GetVarint32(&entry, &shared) && bundle::GetVarint32(&entry, &unshared) &&
              bundle::GetVarint32(&entry, &value_size));
  entry.remove_prefix(unshared);
  table::BlockHandle data;
  ASSERT_TRUE(data.DecodeFrom(&entry));
  ASSERT_EQ(data.offset, 0u);

  auto rewrite = [&](std::string bytes) {
    const char type = bytes[data.size];
    uint32_t crc = crc32c::Extend(crc32c::Value(bytes.data(), data.size), &type, 1);
    std::string trailer;
    bundle::PutFixed32(&trailer, crc32c::Mask(crc));
    bytes.replace(data.size + 1, 4, trailer);
    ASSERT_TRUE(WriteAll(index_path, bytes));
  };
  auto check = [&](const std::string& what) {
    std::map<std::string, Status> per_key;
    std::string failing;
    auto reader = BundleReader::Open(c.prefix);
    std::vector<Status> results;
    if (!reader.ok()) {
      results.push_back(reader.status());
    } else {
      for (const std::string& key : (*reader)->Keys()) {
        results.push_back((*reader)->Read(key).status());
        results.push_back((*reader)->ReadSlice(key, TensorSlice({{0, 1}})).status());
      }
      results.push_back((*reader)->VerifyAll(&failing));
    }
    for (const Status& s : results) {
      EXPECT_TRUE(s.ok() || s.code() == Code::kDataLoss || s.code() == Code::kNotFound ||
                  s.code() == Code::kInvalidArgument || s.code() == Code::kUnimplemented)
          << what << ": " << s;
      EXPECT_TRUE(s.ok() || !s.message().empty()) << what;
    }
  };
  for (size_t pos = 0; pos < data.size; ++pos) {
    for (int mask : {0x01, 0x80, 0xff}) {
      std::string bytes = original;
      bytes[pos] = static_cast<char>(bytes[pos] ^ mask);
      rewrite(bytes);
      check(StrCat("byte ", pos, " ^ ", mask));
    }
  }
  std::mt19937 rng(11);
  for (int round = 0; round < 600; ++round) {
    std::string bytes = original;
    const int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) bytes[rng() % data.size] = static_cast<char>(rng());
    rewrite(bytes);
    check(StrCat("round ", round));
  }
}

TEST(BundleCorruptionTest, TruncatedFiles) {
  TempDir tmp;
  const SmallCheckpoint c = WriteSmall(tmp.Join("ckpt"));
  const std::string index_path = tmp.Join("ckpt.index");
  const std::string index = ReadAll(index_path);
  for (size_t keep : {size_t{0}, size_t{1}, size_t{47}, size_t{48}, index.size() / 2,
                      index.size() - 48, index.size() - 1}) {
    ASSERT_TRUE(WriteAll(index_path, index.substr(0, keep)));
    EXPECT_STATUS(BundleReader::Open(c.prefix).status(), Code::kDataLoss, index_path);
  }
  ASSERT_TRUE(WriteAll(index_path, index));
  const std::string shard_path = bundle::DataFilename(c.prefix, 0, 2);
  const std::string shard = ReadAll(shard_path);
  for (size_t keep : {size_t{0}, size_t{1}, shard.size() / 2, shard.size() - 1}) {
    ASSERT_TRUE(WriteAll(shard_path, shard.substr(0, keep)));
    for (bool mmap : {true, false}) {
      std::map<std::string, Status> per_key;
      std::string failing;
      Status s = ReadEverything(c, mmap, &per_key, &failing);
      EXPECT_EQ(s.code(), Code::kDataLoss) << s;
      EXPECT_TRUE(Contains(s.message(), shard_path)) << s;
      EXPECT_TRUE(Contains(s.message(), "'" + failing + "'")) << s;
      int failed = 0;
      for (const auto& [key, status] : per_key) {
        if (!status.ok()) {
          ++failed;
          EXPECT_EQ(status.code(), Code::kDataLoss) << status;
          EXPECT_TRUE(Contains(status.message(), shard_path)) << status;
        }
      }
      EXPECT_GT(failed, 0);
    }
  }
}

TEST(BundleCorruptionTest, DeletedShard) {
  TempDir tmp;
  const SmallCheckpoint c = WriteSmall(tmp.Join("ckpt"));
  const std::string shard_path = bundle::DataFilename(c.prefix, 1, 2);
  ASSERT_EQ(::unlink(shard_path.c_str()), 0);
  std::map<std::string, Status> per_key;
  std::string failing;
  Status s = ReadEverything(c, true, &per_key, &failing);
  EXPECT_STATUS(s, Code::kNotFound, shard_path);
  EXPECT_FALSE(failing.empty());
  int missing = 0;
  for (const auto& [key, status] : per_key) {
    if (status.ok()) continue;
    ++missing;
    EXPECT_STATUS(status, Code::kNotFound, shard_path);
  }
  EXPECT_GT(missing, 0);
  EXPECT_LT(missing, static_cast<int>(per_key.size()));
}

TEST(BundleReaderTest, ConcurrentReads) {
  TempDir tmp;
  const SmallCheckpoint c = WriteSmall(tmp.Join("ckpt"));
  auto reader = OpenOrDie(c.prefix);
  ASSERT_NE(reader, nullptr);
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        for (const auto& [key, want] : c.values) {
          StatusOr<Tensor> got = reader->Read(key);
          if (!got.ok() || !DiffTensors(*got, want).empty()) ++errors;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
}

}  // namespace
}  // namespace graphrt
