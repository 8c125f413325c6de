#include "formats/npy.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

TEST(NpyTest, RoundTripsEveryNumericDtype) {
  for (DataType dtype : {::tensorflow::DT_FLOAT, ::tensorflow::DT_DOUBLE, ::tensorflow::DT_HALF,
                         ::tensorflow::DT_INT8, ::tensorflow::DT_UINT8, ::tensorflow::DT_INT16,
                         ::tensorflow::DT_UINT16, ::tensorflow::DT_INT32, ::tensorflow::DT_INT64,
                         ::tensorflow::DT_BOOL}) {
    Tensor t(dtype, TensorShape({2, 3}));
    for (size_t i = 0; i < t.TotalBytes(); ++i) {
      static_cast<uint8_t*>(t.raw_data())[i] =
          static_cast<uint8_t>(dtype == ::tensorflow::DT_BOOL ? i % 2 : i * 7);
    }
    StatusOr<std::string> bytes = SerializeNpy(t);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ((bytes->find('\n') + 1) % 64, 0u) << "data must start 64-byte aligned";
    StatusOr<Tensor> back = ParseNpy(*bytes, "t.npy");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->dtype(), dtype);
    EXPECT_EQ(back->shape(), t.shape());
    EXPECT_EQ(std::string(static_cast<char*>(back->raw_data()), back->TotalBytes()),
              std::string(static_cast<char*>(t.raw_data()), t.TotalBytes()));
  }
}

TEST(NpyTest, ReadsFortranOrderBigEndianAndUnicode) {
  // numpy.save of np.array([[1, 2, 3], [4, 5, 6]], dtype='>i4', order='F')
  std::string header = "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  bytes += header;
  for (int v : {1, 4, 2, 5, 3, 6}) {
    bytes += std::string("\0\0\0", 3);
    bytes += static_cast<char>(v);
  }
  StatusOr<Tensor> t = ParseNpy(bytes, "f.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->data<int32_t>()[i], i + 1);

  std::string uheader = "{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }";
  uheader.append((64 - (10 + uheader.size() + 1) % 64) % 64, ' ');
  uheader += '\n';
  std::string ubytes = std::string("\x93NUMPY\x01\x00", 8);
  ubytes += static_cast<char>(uheader.size());
  ubytes += '\0';
  ubytes += uheader;
  ubytes += std::string("h\0\0\0\xe9\0\0\0", 8);  // "hé"
  StatusOr<Tensor> u = ParseNpy(ubytes, "u.npy");
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->data<std::string>()[0], "h\xc3\xa9");
}

TEST(NpyTest, TruncatedAndGarbageAreErrors) {
  Tensor t = Tensor::Vector<float>({1, 2, 3, 4});
  StatusOr<std::string> bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok());
  for (size_t cut : {size_t{3}, size_t{20}, bytes->size() - 1}) {
    StatusOr<Tensor> r = ParseNpy(bytes->substr(0, cut), "cut.npy");
    EXPECT_FALSE(r.ok()) << cut;
    EXPECT_NE(r.status().message().find("cut.npy"), std::string::npos);
  }
  EXPECT_FALSE(ParseNpy("not an npy file at all", "g.npy").ok());
  EXPECT_EQ(ReadNpy("/no/such.npy").status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace graphrt
