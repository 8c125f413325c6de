#include "runtime/core/tensor.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

TEST(TensorTest, FromProtoRepeatsLastValue) {
  ::tensorflow::TensorProto proto;
  proto.set_dtype(::tensorflow::DT_FLOAT);
  proto.mutable_tensor_shape()->add_dim()->set_size(4);
  proto.add_float_val(1.5f);
  proto.add_float_val(2.5f);
  StatusOr<Tensor> t = Tensor::FromProto(proto);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<float>()[0], 1.5f);
  EXPECT_EQ(t->data<float>()[3], 2.5f);
}

TEST(TensorTest, FromProtoRejectsWrongContentSize) {
  ::tensorflow::TensorProto proto;
  proto.set_dtype(::tensorflow::DT_INT32);
  proto.mutable_tensor_shape()->add_dim()->set_size(3);
  proto.set_tensor_content(std::string(8, '\0'));
  StatusOr<Tensor> t = Tensor::FromProto(proto);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
}

TEST(TensorTest, StringContentRoundTrip) {
  Tensor t(::tensorflow::DT_STRING, TensorShape({2}));
  t.data<std::string>()[0] = "ab";
  t.data<std::string>()[1] = std::string(300, 'x');
  ::tensorflow::TensorProto proto;
  t.AsProtoTensorContent(&proto);
  StatusOr<Tensor> back = Tensor::FromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data<std::string>()[1], std::string(300, 'x'));
}

TEST(TensorTest, SliceSharesBuffer) {
  Tensor t = Tensor::Vector<int32_t>({1, 2, 3, 4, 5, 6}).Reshaped(TensorShape({3, 2}));
  Tensor s = t.Slice(1, 3);
  EXPECT_EQ(s.shape(), TensorShape({2, 2}));
  EXPECT_EQ(s.data<int32_t>()[0], 3);
  EXPECT_TRUE(s.SharesBufferWith(t));
}

TEST(TensorTest, ShortestFloatText) {
  EXPECT_EQ(Tensor::Scalar<float>(2.5f).ElementString(0), "2.5");
  EXPECT_EQ(Tensor::Scalar<float>(0.1f).ElementString(0), "0.1");
}

}  // namespace
}  // namespace graphrt
