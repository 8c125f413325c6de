#include "formats/tensor_bundle/table.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "formats/tensor_bundle/coding.h"
#include "formats/tensor_bundle/crc32c.h"

namespace graphrt {
namespace table {
namespace {

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

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

// Assembles a table from hand-made block contents, with correct trailers and footer, so that
// each test can break exactly one thing.
class RawTable {
 public:
  BlockHandle AddBlock(const std::string& contents, uint8_t type = kNoCompression) {
    BlockHandle h{file_.size(), contents.size()};
    file_ += contents;
    const char t = static_cast<char>(type);
    file_.push_back(t);
    bundle::PutFixed32(&file_, crc32c::Mask(crc32c::Extend(
                                   crc32c::Value(contents.data(), contents.size()), &t, 1)));
    return h;
  }
  std::string Finish(const BlockHandle& metaindex, const BlockHandle& index) {
    std::string footer;
    metaindex.EncodeTo(&footer);
    index.EncodeTo(&footer);
    footer.resize(40, '\0');
    bundle::PutFixed64(&footer, kTableMagicNumber);
    return file_ + footer;
  }

 private:
  std::string file_;
};

// Block contents from (key, value) pairs with the given restart interval.
std::string MakeBlock(const std::vector<std::pair<std::string, std::string>>& kvs,
                      int restart_interval = 16) {
  BlockBuilder b(restart_interval);
  for (const auto& [k, v] : kvs) b.Add(k, v);
  return std::string(b.Finish());
}

std::string Handle(const BlockHandle& h) {
  std::string s;
  h.EncodeTo(&s);
  return s;
}

// A table of one data block holding `kvs`.
std::string OneBlockTable(const std::vector<std::pair<std::string, std::string>>& kvs,
                          const std::string& index_key) {
  RawTable t;
  BlockHandle data = t.AddBlock(MakeBlock(kvs));
  BlockHandle meta = t.AddBlock(MakeBlock({}));
  BlockHandle index = t.AddBlock(MakeBlock({{index_key, Handle(data)}}, 1));
  return t.Finish(meta, index);
}

void ExpectDataLoss(const std::string& bytes, const std::string& fragment) {
  StatusOr<Table> t = Table::Parse(bytes, "x.index");
  ASSERT_FALSE(t.ok()) << "expected an error containing '" << fragment << "'";
  EXPECT_EQ(t.status().code(), Code::kDataLoss) << t.status();
  EXPECT_NE(t.status().message().find("x.index"), std::string::npos) << t.status();
  EXPECT_NE(t.status().message().find(fragment), std::string::npos) << t.status();
}

TEST(CodingTest, VarintsRoundTripAndRejectMalformed) {
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 300ull, 0xffffffffull, 0x100000000ull, ~0ull}) {
    std::string s;
    bundle::PutVarint64(&s, v);
    EXPECT_EQ(static_cast<int>(s.size()), bundle::VarintLength(v));
    std::string_view in = s;
    uint64_t got;
    ASSERT_TRUE(bundle::GetVarint64(&in, &got));
    EXPECT_EQ(got, v);
    EXPECT_TRUE(in.empty());
    in = std::string_view(s).substr(0, s.size() - 1);
    EXPECT_FALSE(bundle::GetVarint64(&in, &got)) << "truncated " << v;
  }
  std::string_view eleven("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
  uint64_t v64;
  EXPECT_FALSE(bundle::GetVarint64(&eleven, &v64));
  std::string_view tenth_too_big("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10);
  EXPECT_FALSE(bundle::GetVarint64(&tenth_too_big, &v64));
  std::string_view too_big_for_32("\x80\x80\x80\x80\x10", 5);
  uint32_t v32;
  EXPECT_FALSE(bundle::GetVarint32(&too_big_for_32, &v32));
  std::string_view max32("\xff\xff\xff\xff\x0f", 5);
  ASSERT_TRUE(bundle::GetVarint32(&max32, &v32));
  EXPECT_EQ(v32, 0xffffffffu);
}

// The two-entry index of the reference's worked example (float32 "w" = {1, 2}), which is also
// what TensorFlow 2.15 writes for it.
TEST(TableBuilderTest, MatchesTensorFlowBytes) {
  TableBuilder b;
  b.Add("", Unhex("08 01 1a 02 08 01"));
  b.Add("w", Unhex("08 01 12 04 12 02 08 02 28 08 35 59 3c e5 35"));
  std::string want = Unhex(
      "00 00 06 08 01 1a 02 08 01 00 01 0f 77 08 01 12 04 12 02 08 02 28 08 35 59 3c e5 35 "
      "00 00 00 00 01 00 00 00 00 09 21 ad c3 00 00 00 00 01 00 00 00 00 c0 f2 a1 b0 00 01 02 "
      "78 00 24 00 00 00 00 01 00 00 00 00 ab 30 70 7f 29 08 36 0e");
  want.resize(121 - 8, '\0');  // the footer's zero padding
  want += Unhex("57 fb 80 8b 24 75 47 db");
  const std::string got = b.Finish();
  EXPECT_EQ(got.size(), 121u);
  EXPECT_EQ(Hex(got), Hex(want));

  StatusOr<Table> t = Table::Parse(got, "w.index");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->entries().size(), 2u);
  EXPECT_EQ(t->entries()[1].first, "w");
  EXPECT_EQ(t->num_data_blocks(), 1);
}

TEST(TableBuilderTest, RoundTripsManyBlocksWithAndWithoutSnappy) {
  for (CompressionType compression : {kNoCompression, kSnappyCompression}) {
    for (int restart_interval : {1, 2, 16}) {
      Options options;
      options.block_size = 200;
      options.block_restart_interval = restart_interval;
      options.compression = compression;
      TableBuilder b(options);
      std::vector<std::pair<std::string, std::string>> kvs;
      for (int i = 0; i < 500; ++i) {
        char key[32];
        std::snprintf(key, sizeof(key), "layer_%04d/kernel", i);
        kvs.emplace_back(key, std::string(i % 37, static_cast<char>('a' + i % 26)));
      }
      // An entry of more than two blocks' size starts a block of its own.
      kvs.emplace_back("zz_big", std::string(1000, 'q'));
      kvs.emplace_back("zz_big2\xff\xff", std::string(3, '\0'));
      for (const auto& [k, v] : kvs) b.Add(k, v);
      EXPECT_EQ(b.num_entries(), static_cast<int64_t>(kvs.size()));
      const std::string bytes = b.Finish();
      StatusOr<Table> t = Table::Parse(bytes, "many.index");
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_EQ(t->entries(), kvs);
      EXPECT_GT(t->num_data_blocks(), 10);
      if (compression == kSnappyCompression) {
        EXPECT_GT(t->num_compressed_blocks(), 0);
      } else {
        EXPECT_EQ(t->num_compressed_blocks(), 0);
      }
      for (const auto& [k, v] : kvs) {
        const std::string* found = t->Find(k);
        ASSERT_NE(found, nullptr) << k;
        EXPECT_EQ(*found, v);
      }
      EXPECT_EQ(t->Find("layer_0000"), nullptr);
      EXPECT_EQ(t->Find("zzz"), nullptr);
    }
  }
}

TEST(TableBuilderTest, EmptyTable) {
  TableBuilder b;
  const std::string bytes = b.Finish();
  StatusOr<Table> t = Table::Parse(bytes, "empty.index");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->entries().empty());
}

TEST(TableBuilderTest, IncompressibleBlocksStayRaw) {
  Options options;
  options.compression = kSnappyCompression;
  TableBuilder b(options);
  std::mt19937 rng(1);
  std::string noise(3000, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  b.Add("noise", noise);
  StatusOr<Table> t = Table::Parse(b.Finish(), "noise.index");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->num_compressed_blocks(), 0);
  EXPECT_EQ(*t->Find("noise"), noise);
}

TEST(TableReaderTest, HandBuiltTableReads) {
  StatusOr<Table> t = Table::Parse(OneBlockTable({{"a", "1"}, {"b", "2"}}, "c"), "x.index");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->entries().size(), 2u);
}

TEST(TableReaderTest, SnappyBlockReads) {
  // The builder compresses; the raw bytes show a type-1 block whose contents are not the raw
  // entries.
  Options options;
  options.compression = kSnappyCompression;
  TableBuilder b(options);
  b.Add("key", std::string(100, 'z'));
  const std::string bytes = b.Finish();
  EXPECT_EQ(bytes.find(std::string(100, 'z')), std::string::npos);
  StatusOr<Table> table = Table::Parse(bytes, "x.index");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(*table->Find("key"), std::string(100, 'z'));
  EXPECT_EQ(table->num_compressed_blocks(), 1);
}

TEST(TableReaderTest, RejectsShortFilesAndBadFooters) {
  ExpectDataLoss("", "too short");
  ExpectDataLoss(std::string(47, '\0'), "too short");
  std::string good = OneBlockTable({{"a", "1"}}, "b");
  std::string bad_magic = good;
  bad_magic.back() ^= 1;
  ExpectDataLoss(bad_magic, "bad magic");
  // A footer whose handles are not varints.
  std::string bad_handles = good;
  std::fill(bad_handles.end() - 48, bad_handles.end() - 8, '\xff');
  ExpectDataLoss(bad_handles, "bad block handle in the footer");
  // The same handles with the last varint padded to two bytes (80|x, 00): the same values, but
  // not how any writer encodes them, so a flipped high bit cannot go unnoticed.
  std::string_view footer(good.data() + good.size() - 48, 40);
  BlockHandle meta, index;
  ASSERT_TRUE(meta.DecodeFrom(&footer) && index.DecodeFrom(&footer));
  std::string handles;
  meta.EncodeTo(&handles);
  index.EncodeTo(&handles);
  ASSERT_LT(index.size, 128u);
  handles.back() = static_cast<char>(handles.back() | 0x80);
  handles.push_back('\0');
  std::string padded = good;
  padded.replace(good.size() - 48, handles.size(), handles);
  ExpectDataLoss(padded, "non-minimal block handle");
}

TEST(TableReaderTest, RejectsBlocksOutsideTheFile) {
  RawTable t;
  BlockHandle data = t.AddBlock(MakeBlock({{"a", "1"}}));
  BlockHandle meta = t.AddBlock(MakeBlock({}));
  BlockHandle index = t.AddBlock(MakeBlock({{"b", Handle({data.offset, 1000})}}, 1));
  ExpectDataLoss(t.Finish(meta, index), "lies outside the file");
  RawTable t2;
  BlockHandle meta2 = t2.AddBlock(MakeBlock({}));
  ExpectDataLoss(t2.Finish(meta2, BlockHandle{~0ull - 3, 10}), "lies outside the file");
}

TEST(TableReaderTest, RejectsChecksumMismatchAndUnknownTypes) {
  std::string good = OneBlockTable({{"a", "1"}}, "b");
  std::string flipped = good;
  flipped[5] ^= 0x40;  // inside the data block
  ExpectDataLoss(flipped, "checksum mismatch in data block");
  // A block whose type byte is 2, with a checksum that matches.
  RawTable t;
  BlockHandle data = t.AddBlock(MakeBlock({{"a", "1"}}), 2);
  BlockHandle meta = t.AddBlock(MakeBlock({}));
  BlockHandle index = t.AddBlock(MakeBlock({{"b", Handle(data)}}, 1));
  ExpectDataLoss(t.Finish(meta, index), "unknown compression type 2");
  // Type 1 over bytes that are not Snappy data.
  RawTable t2;
  BlockHandle data2 = t2.AddBlock("\xff\xff\xff\xff\x0f garbage", kSnappyCompression);
  BlockHandle meta2 = t2.AddBlock(MakeBlock({}));
  BlockHandle index2 = t2.AddBlock(MakeBlock({{"b", Handle(data2)}}, 1));
  ExpectDataLoss(t2.Finish(meta2, index2), "bad Snappy data");
}

TEST(TableReaderTest, RejectsMalformedBlocks) {
  auto table_with_data_block = [](const std::string& contents) {
    RawTable t;
    BlockHandle data = t.AddBlock(contents);
    BlockHandle meta = t.AddBlock(MakeBlock({}));
    BlockHandle index = t.AddBlock(MakeBlock({{"z", Handle(data)}}, 1));
    return t.Finish(meta, index);
  };
  ExpectDataLoss(table_with_data_block("\x01\x00"), "shorter than its restart count");
  ExpectDataLoss(table_with_data_block(std::string("\x00\x00\x00\x00\x05\x00\x00\x00", 8)),
                 "restarts do not fit");
  // shared=0 unshared=1 value=9 but only 1 byte follows.
  std::string overrun(
      "\x00\x01\x09"
      "a"
      "x",
      5);
  bundle::PutFixed32(&overrun, 0);
  bundle::PutFixed32(&overrun, 1);
  ExpectDataLoss(table_with_data_block(overrun), "overruns the block");
  // A varint that never ends.
  std::string bad_header("\x80\x80\x80\x80\x80\x80", 6);
  bundle::PutFixed32(&bad_header, 0);
  bundle::PutFixed32(&bad_header, 1);
  ExpectDataLoss(table_with_data_block(bad_header), "bad entry header");
  // Shares more bytes than the previous key has.
  std::string over_share(
      "\x00\x01\x00"
      "a"
      "\x05\x01\x00"
      "b",
      8);
  bundle::PutFixed32(&over_share, 0);
  bundle::PutFixed32(&over_share, 1);
  ExpectDataLoss(table_with_data_block(over_share), "overruns the block");
  // Keys out of order.
  std::string unordered(
      "\x00\x01\x00"
      "b"
      "\x00\x01\x00"
      "a",
      8);
  bundle::PutFixed32(&unordered, 0);
  bundle::PutFixed32(&unordered, 1);
  ExpectDataLoss(table_with_data_block(unordered), "keys out of order");
  // Restart points that are not entries that share nothing.
  std::string block = MakeBlock({{"a", "1"}, {"ab", "2"}}, 16);
  std::string bad_restart = block.substr(0, block.size() - 8);
  bundle::PutFixed32(&bad_restart, 0);
  bundle::PutFixed32(&bad_restart, 5);  // the second entry, which shares a byte
  bundle::PutFixed32(&bad_restart, 2);
  ExpectDataLoss(table_with_data_block(bad_restart), "bad restart point 5");
  std::string no_restarts = block.substr(0, block.size() - 8);
  bundle::PutFixed32(&no_restarts, 0);
  ExpectDataLoss(table_with_data_block(no_restarts), "entries but no restart points");
  ExpectDataLoss(table_with_data_block(MakeBlock({})), "empty data block");
}

TEST(TableReaderTest, RejectsIndexInconsistencies) {
  // Index key below the block's last key.
  ExpectDataLoss(OneBlockTable({{"a", "1"}, {"c", "2"}}, "b"), "beyond its index key");
  // An index value that is a handle followed by junk.
  RawTable t;
  BlockHandle data = t.AddBlock(MakeBlock({{"a", "1"}}));
  BlockHandle meta = t.AddBlock(MakeBlock({}));
  BlockHandle index = t.AddBlock(MakeBlock({{"b", Handle(data) + "x"}}, 1));
  ExpectDataLoss(t.Finish(meta, index), "bad block handle for index key #0");
  // Two blocks whose keys are not in order across blocks.
  RawTable t2;
  BlockHandle d1 = t2.AddBlock(MakeBlock({{"m", "1"}}));
  BlockHandle d2 = t2.AddBlock(MakeBlock({{"c", "2"}}));
  BlockHandle meta2 = t2.AddBlock(MakeBlock({}));
  BlockHandle index2 = t2.AddBlock(MakeBlock({{"n", Handle(d1)}, {"o", Handle(d2)}}, 1));
  ExpectDataLoss(t2.Finish(meta2, index2), "out of order");
  // A second block whose keys fall at or below the previous index key.
  RawTable t3;
  BlockHandle e1 = t3.AddBlock(MakeBlock({{"a", "1"}}));
  BlockHandle e2 = t3.AddBlock(MakeBlock({{"b", "2"}}));
  BlockHandle meta3 = t3.AddBlock(MakeBlock({}));
  BlockHandle index3 = t3.AddBlock(MakeBlock({{"c", Handle(e1)}, {"d", Handle(e2)}}, 1));
  ExpectDataLoss(t3.Finish(meta3, index3), "before the previous index key");
}

TEST(TableReaderTest, ChecksTheMetaindexBlockToo) {
  std::string good = OneBlockTable({{"a", "1"}}, "b");
  StatusOr<Table> t = Table::Parse(good, "x.index");
  ASSERT_TRUE(t.ok());
  // The metaindex block follows the 5 + 1 + 8 bytes... find it through the footer.
  std::string_view footer(good.data() + good.size() - 48, 40);
  BlockHandle meta;
  ASSERT_TRUE(meta.DecodeFrom(&footer));
  std::string broken = good;
  broken[meta.offset] ^= 1;
  ExpectDataLoss(broken, "checksum mismatch in metaindex block");
}

TEST(TableReaderTest, OpenNamesMissingFiles) {
  StatusOr<Table> t = Table::Open("/nonexistent/dir/x.index");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kNotFound);
  EXPECT_NE(t.status().message().find("/nonexistent/dir/x.index"), std::string::npos);
}

}  // namespace
}  // namespace table
}  // namespace graphrt
