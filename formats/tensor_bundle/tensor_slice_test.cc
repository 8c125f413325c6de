#include "formats/tensor_bundle/tensor_slice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

namespace graphrt {
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

std::string Signed(int64_t v) {
  std::string s;
  ordered_code::WriteSignedNumIncreasing(&s, v);
  return Hex(s);
}

TEST(OrderedCodeTest, SignedNumbers) {
  EXPECT_EQ(Signed(0), "80");
  EXPECT_EQ(Signed(5), "85");
  EXPECT_EQ(Signed(20), "94");
  EXPECT_EQ(Signed(63), "bf");
  EXPECT_EQ(Signed(-1), "7f");
  EXPECT_EQ(Signed(-64), "40");
  EXPECT_EQ(Signed(64), "c0 40");
  EXPECT_EQ(Signed(-65), "3f bf");
  EXPECT_EQ(Signed(8191), "df ff");
  EXPECT_EQ(Signed(8192), "e0 20 00");
  EXPECT_EQ(Signed(std::numeric_limits<int64_t>::max()), "ff c0 7f ff ff ff ff ff ff ff");
  EXPECT_EQ(Signed(std::numeric_limits<int64_t>::min()), "00 3f 80 00 00 00 00 00 00 00");
}

TEST(OrderedCodeTest, SignedNumbersRoundTripAndSortLikeTheirValues) {
  std::mt19937_64 rng(3);
  std::vector<int64_t> values = {0,
                                 1,
                                 -1,
                                 63,
                                 64,
                                 -64,
                                 -65,
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min()};
  for (int i = 0; i < 2000; ++i) {
    values.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  }
  std::sort(values.begin(), values.end());
  std::string previous;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string s;
    ordered_code::WriteSignedNumIncreasing(&s, values[i]);
    std::string_view in = s;
    int64_t back;
    ASSERT_TRUE(ordered_code::ReadSignedNumIncreasing(&in, &back)) << values[i];
    EXPECT_EQ(back, values[i]);
    EXPECT_TRUE(in.empty());
    if (i > 0 && values[i] != values[i - 1]) {
      EXPECT_LT(previous, s) << values[i];
    }
    previous = s;
  }
}

TEST(OrderedCodeTest, RejectsNonCanonicalAndTruncatedNumbers) {
  int64_t v;
  std::string_view empty;
  EXPECT_FALSE(ordered_code::ReadSignedNumIncreasing(&empty, &v));
  std::string_view truncated("\xe0\x20", 2);  // a 3-byte number cut to 2
  EXPECT_FALSE(ordered_code::ReadSignedNumIncreasing(&truncated, &v));
  std::string_view long_zero("\xc0\x00", 2);  // 0 written in 2 bytes
  EXPECT_FALSE(ordered_code::ReadSignedNumIncreasing(&long_zero, &v));
  std::string_view too_long("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11);
  EXPECT_FALSE(ordered_code::ReadSignedNumIncreasing(&too_long, &v));
}

TEST(OrderedCodeTest, StringsAndUnsignedNumbers) {
  std::string s;
  ordered_code::WriteString(&s, std::string("a\0b\xff", 4));
  EXPECT_EQ(Hex(s), "61 00 ff 62 ff 00 00 01");
  std::string_view in = s;
  std::string back;
  ASSERT_TRUE(ordered_code::ReadString(&in, &back));
  EXPECT_EQ(back, std::string("a\0b\xff", 4));
  EXPECT_TRUE(in.empty());
  std::string_view unterminated("ab\x00", 3);
  EXPECT_FALSE(ordered_code::ReadString(&unterminated, &back));
  std::string_view bad_escape("a\xff\x01\x00\x01", 5);
  EXPECT_FALSE(ordered_code::ReadString(&bad_escape, &back));

  std::string n;
  ordered_code::WriteNumIncreasing(&n, 0);
  ordered_code::WriteNumIncreasing(&n, 2);
  ordered_code::WriteNumIncreasing(&n, 0x1234);
  EXPECT_EQ(Hex(n), "00 01 02 02 12 34");
  std::string_view nin = n;
  uint64_t a, b, c;
  ASSERT_TRUE(ordered_code::ReadNumIncreasing(&nin, &a));
  ASSERT_TRUE(ordered_code::ReadNumIncreasing(&nin, &b));
  ASSERT_TRUE(ordered_code::ReadNumIncreasing(&nin, &c));
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 2u);
  EXPECT_EQ(c, 0x1234u);
  std::string_view nine("\x09\x01\x01\x01\x01\x01\x01\x01\x01\x01", 10);
  EXPECT_FALSE(ordered_code::ReadNumIncreasing(&nine, &a));
}

TEST(SliceKeyTest, MatchesTensorFlow) {
  // The reference's example, and what TensorFlow 2.15 wrote for "w" sliced 0,2:0,3.
  TensorSlice a({{0, 5}, {0, 20}});
  EXPECT_EQ(Hex(EncodeTensorNameSlice("w", a)), "00 77 00 01 01 02 80 85 80 94");
  TensorSlice b({{0, 2}, {0, 3}});
  EXPECT_EQ(Hex(EncodeTensorNameSlice("w", b)), "00 77 00 01 01 02 80 82 80 83");
  TensorSlice c({{0, TensorSlice::kFullExtent}, {100, 28}});
  EXPECT_EQ(Hex(EncodeTensorNameSlice("x", c)), "00 78 00 01 01 02 80 7f c0 64 9c");
}

TEST(SliceKeyTest, DecodesOnlyRealSliceKeys) {
  TensorSlice slice({{3, 4}, {0, TensorSlice::kFullExtent}, {70, 1000}});
  const std::string key = EncodeTensorNameSlice(std::string("odd\0name\xff", 9), slice);
  std::string name;
  TensorSlice back;
  ASSERT_TRUE(DecodeTensorNameSlice(key, &name, &back));
  EXPECT_EQ(name, std::string("odd\0name\xff", 9));
  EXPECT_EQ(back, slice);
  EXPECT_FALSE(DecodeTensorNameSlice("dense/kernel", &name, &back));
  EXPECT_FALSE(DecodeTensorNameSlice("", &name, &back));
  EXPECT_FALSE(DecodeTensorNameSlice(key + "x", &name, &back));
  EXPECT_FALSE(DecodeTensorNameSlice(key.substr(0, key.size() - 1), &name, &back));
  // A negative start is not a slice.
  std::string bad;
  ordered_code::WriteNumIncreasing(&bad, 0);
  ordered_code::WriteString(&bad, "w");
  ordered_code::WriteNumIncreasing(&bad, 1);
  ordered_code::WriteSignedNumIncreasing(&bad, -2);
  ordered_code::WriteSignedNumIncreasing(&bad, 3);
  EXPECT_FALSE(DecodeTensorNameSlice(bad, &name, &back));
}

TEST(TensorSliceTest, ParseAndPrint) {
  StatusOr<TensorSlice> s = TensorSlice::Parse("0,2:-:1,3");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->dims(), 3);
  EXPECT_TRUE(s->IsFullAt(1));
  EXPECT_FALSE(s->IsFull());
  EXPECT_EQ(s->DebugString(), "0,2:-:1,3");
  EXPECT_EQ(TensorSlice::Parse("")->dims(), 0);
  EXPECT_TRUE(TensorSlice::Parse("-:-")->IsFull());
  for (const char* bad : {"0", "0,0", "-1,2", "a,b", "1,2,3", "0,-1", "1,"}) {
    EXPECT_FALSE(TensorSlice::Parse(bad).ok()) << bad;
  }
}

TEST(TensorSliceTest, ProtoRoundTripIsTensorFlowsForm) {
  TensorSlice s({{0, 2}, {0, TensorSlice::kFullExtent}, {5, 1}});
  ::tensorflow::TensorSliceProto proto;
  s.AsProto(&proto);
  ASSERT_EQ(proto.extent_size(), 3);
  EXPECT_TRUE(proto.extent(0).has_length_case() == ::tensorflow::TensorSliceProto::Extent::kLength);
  EXPECT_EQ(proto.extent(0).length(), 2);
  EXPECT_EQ(proto.extent(1).ByteSizeLong(), 0u);  // whole dims are empty extents
  EXPECT_EQ(proto.extent(2).start(), 5);
  StatusOr<TensorSlice> back = TensorSlice::FromProto(proto);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, s);
  ::tensorflow::TensorSliceProto bad;
  bad.add_extent()->set_start(3);  // a start without a length
  EXPECT_FALSE(TensorSlice::FromProto(bad).ok());
  ::tensorflow::TensorSliceProto zero;
  zero.add_extent()->set_length(0);
  EXPECT_FALSE(TensorSlice::FromProto(zero).ok());
  ::tensorflow::TensorSliceProto overflow;
  overflow.add_extent()->set_start(std::numeric_limits<int64_t>::max());
  overflow.mutable_extent(0)->set_length(2);
  EXPECT_FALSE(TensorSlice::FromProto(overflow).ok());
}

TEST(TensorSliceTest, ShapesAndOverlaps) {
  const TensorShape shape({10, 4});
  TensorSlice top({{0, 5}, {0, TensorSlice::kFullExtent}});
  TensorSlice bottom({{5, 5}, {0, 4}});
  EXPECT_TRUE(top.CheckFits(shape).ok());
  EXPECT_EQ(top.SliceShape(shape), TensorShape({5, 4}));
  EXPECT_FALSE(top.Overlaps(bottom, shape));
  EXPECT_TRUE(top.Overlaps(TensorSlice({{4, 2}, {3, 1}}), shape));
  EXPECT_FALSE(top.CoversAll(shape));
  EXPECT_TRUE(TensorSlice({{0, 10}, {0, 4}}).CoversAll(shape));
  EXPECT_FALSE(TensorSlice({{6, 5}, {0, 4}}).CheckFits(shape).ok());
  EXPECT_FALSE(TensorSlice({{0, 5}}).CheckFits(shape).ok());

  TensorShape full;
  TensorSlice slice;
  ASSERT_TRUE(ParseShapeAndSlice("100 64 0,25:0,64", &full, &slice).ok());
  EXPECT_EQ(full, TensorShape({100, 64}));
  EXPECT_EQ(slice.DebugString(), "0,25:0,64");
  EXPECT_FALSE(ParseShapeAndSlice("100 64", &full, &slice).ok());  // 64 is not a slice of rank 1
  EXPECT_FALSE(ParseShapeAndSlice("10 0,11", &full, &slice).ok());
  EXPECT_FALSE(ParseShapeAndSlice("x 0,1", &full, &slice).ok());
  EXPECT_FALSE(ParseShapeAndSlice("", &full, &slice).ok());
}

}  // namespace
}  // namespace graphrt
