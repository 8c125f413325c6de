#include "runtime/core/attr_util.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

using ::tensorflow::AttrValue;
using ::tensorflow::NodeDef;

const AttrValue& Attr(const NodeDef& node, const std::string& name) {
  const AttrValue* attr = FindAttr(node, name);
  EXPECT_NE(attr, nullptr) << name;
  static const AttrValue kNone;
  return attr == nullptr ? kNone : *attr;
}

TEST(SetNodeAttrTest, ScalarsGoToTheirOwnField) {
  NodeDef node;
  SetNodeAttr(&node, "i64", int64_t{1} << 40);
  SetNodeAttr(&node, "i32", -7);
  SetNodeAttr(&node, "f", 0.25f);
  SetNodeAttr(&node, "b", true);
  SetNodeAttr(&node, "s", std::string("NHWC"));
  SetNodeAttr(&node, "literal", "SAME");
  SetNodeAttr(&node, "type", ::tensorflow::DT_INT32);
  EXPECT_EQ(node.attr_size(), 7);

  EXPECT_EQ(Attr(node, "i64").value_case(), AttrValue::kI);
  EXPECT_EQ(Attr(node, "i64").i(), int64_t{1} << 40);
  EXPECT_EQ(Attr(node, "i32").value_case(), AttrValue::kI);
  EXPECT_EQ(Attr(node, "i32").i(), -7);
  EXPECT_EQ(Attr(node, "f").value_case(), AttrValue::kF);
  EXPECT_EQ(Attr(node, "f").f(), 0.25f);
  EXPECT_EQ(Attr(node, "b").value_case(), AttrValue::kB);
  EXPECT_TRUE(Attr(node, "b").b());
  EXPECT_EQ(Attr(node, "s").value_case(), AttrValue::kS);
  EXPECT_EQ(Attr(node, "s").s(), "NHWC");
  // A literal is a string, not the bool a pointer would convert to.
  EXPECT_EQ(Attr(node, "literal").value_case(), AttrValue::kS);
  EXPECT_EQ(Attr(node, "literal").s(), "SAME");
  EXPECT_EQ(Attr(node, "type").value_case(), AttrValue::kType);
  EXPECT_EQ(Attr(node, "type").type(), ::tensorflow::DT_INT32);
}

TEST(SetNodeAttrTest, ShapesKeepUnknownDimsAndUnknownRank) {
  NodeDef node;
  SetNodeAttr(&node, "shape", PartialTensorShape({-1, 3}));
  SetNodeAttr(&node, "scalar", PartialTensorShape(std::vector<int64_t>{}));
  SetNodeAttr(&node, "any", PartialTensorShape());

  const auto& shape = Attr(node, "shape");
  ASSERT_EQ(shape.value_case(), AttrValue::kShape);
  EXPECT_FALSE(shape.shape().unknown_rank());
  ASSERT_EQ(shape.shape().dim_size(), 2);
  EXPECT_EQ(shape.shape().dim(0).size(), -1);
  EXPECT_EQ(shape.shape().dim(1).size(), 3);

  const auto& scalar = Attr(node, "scalar");
  ASSERT_EQ(scalar.value_case(), AttrValue::kShape);
  EXPECT_FALSE(scalar.shape().unknown_rank());
  EXPECT_EQ(scalar.shape().dim_size(), 0);

  const auto& any = Attr(node, "any");
  ASSERT_EQ(any.value_case(), AttrValue::kShape);
  EXPECT_TRUE(any.shape().unknown_rank());
  EXPECT_EQ(any.shape().dim_size(), 0);
}

TEST(SetNodeAttrTest, TensorsAreEncodedAsTensorContent) {
  NodeDef node;
  SetNodeAttr(&node, "value", Tensor::Vector<float>({1.5f, -2.0f}));
  const auto& attr = Attr(node, "value");
  ASSERT_EQ(attr.value_case(), AttrValue::kTensor);
  EXPECT_EQ(attr.tensor().dtype(), ::tensorflow::DT_FLOAT);
  ASSERT_EQ(attr.tensor().tensor_shape().dim_size(), 1);
  EXPECT_EQ(attr.tensor().tensor_shape().dim(0).size(), 2);
  EXPECT_EQ(attr.tensor().tensor_content().size(), 2 * sizeof(float));
  EXPECT_EQ(attr.tensor().float_val_size(), 0);

  Tensor back;
  ASSERT_TRUE(GetNodeAttr(node, "value", &back).ok());
  ASSERT_EQ(back.NumElements(), 2);
  EXPECT_EQ(back.data<float>()[0], 1.5f);
  EXPECT_EQ(back.data<float>()[1], -2.0f);
}

TEST(SetNodeAttrTest, StringTensorsAreEncodedAsStringVal) {
  NodeDef node;
  Tensor t(::tensorflow::DT_STRING, TensorShape());
  t.data<std::string>()[0] = "model";
  SetNodeAttr(&node, "value", t);
  const auto& attr = Attr(node, "value");
  ASSERT_EQ(attr.value_case(), AttrValue::kTensor);
  EXPECT_EQ(attr.tensor().dtype(), ::tensorflow::DT_STRING);
  EXPECT_EQ(attr.tensor().tensor_shape().dim_size(), 0);
  ASSERT_EQ(attr.tensor().string_val_size(), 1);
  EXPECT_EQ(attr.tensor().string_val(0), "model");
}

TEST(SetNodeAttrTest, ListsOfIntsAndTypes) {
  NodeDef node;
  SetNodeAttr(&node, "strides", std::vector<int64_t>{1, 2, 2, 1});
  SetNodeAttr(&node, "T",
              std::vector<::tensorflow::DataType>{::tensorflow::DT_FLOAT, ::tensorflow::DT_BOOL});
  SetNodeAttr(&node, "explicit_paddings", std::vector<int64_t>{});

  const auto& strides = Attr(node, "strides");
  ASSERT_EQ(strides.value_case(), AttrValue::kList);
  ASSERT_EQ(strides.list().i_size(), 4);
  EXPECT_EQ(strides.list().i(1), 2);
  EXPECT_EQ(strides.list().i(3), 1);

  const auto& types = Attr(node, "T");
  ASSERT_EQ(types.value_case(), AttrValue::kList);
  ASSERT_EQ(types.list().type_size(), 2);
  EXPECT_EQ(types.list().type(0), ::tensorflow::DT_FLOAT);
  EXPECT_EQ(types.list().type(1), ::tensorflow::DT_BOOL);

  // An empty list is present, and set as a list.
  const auto& empty = Attr(node, "explicit_paddings");
  EXPECT_EQ(empty.value_case(), AttrValue::kList);
  EXPECT_EQ(empty.list().i_size(), 0);
  std::vector<int64_t> read = {9};
  ASSERT_TRUE(GetNodeAttr(node, "explicit_paddings", &read).ok());
  EXPECT_TRUE(read.empty());
}

TEST(SetNodeAttrTest, ASetterReplacesTheOldValue) {
  NodeDef node;
  SetNodeAttr(&node, "x", std::vector<int64_t>{1, 2});
  SetNodeAttr(&node, "x", std::vector<int64_t>{3});
  ASSERT_EQ(Attr(node, "x").list().i_size(), 1);
  EXPECT_EQ(Attr(node, "x").list().i(0), 3);

  // A new kind leaves nothing of the old one behind.
  SetNodeAttr(&node, "x", ::tensorflow::DT_HALF);
  EXPECT_EQ(Attr(node, "x").value_case(), AttrValue::kType);
  EXPECT_EQ(Attr(node, "x").list().i_size(), 0);
  EXPECT_EQ(Attr(node, "x").type(), ::tensorflow::DT_HALF);
  EXPECT_EQ(node.attr_size(), 1);
}

TEST(SetNodeAttrTest, WhatIsWrittenReadsBackThroughGetNodeAttr) {
  NodeDef node;
  node.set_name("n");
  SetNodeAttr(&node, "N", 3);
  SetNodeAttr(&node, "alpha", 0.5f);
  SetNodeAttr(&node, "keep_dims", false);
  SetNodeAttr(&node, "dtype", ::tensorflow::DT_INT64);
  int32_t n = 0;
  float alpha = 0;
  bool keep_dims = true;
  DataType dtype = ::tensorflow::DT_INVALID;
  ASSERT_TRUE(GetNodeAttr(node, "N", &n).ok());
  ASSERT_TRUE(GetNodeAttr(node, "alpha", &alpha).ok());
  ASSERT_TRUE(GetNodeAttr(node, "keep_dims", &keep_dims).ok());
  ASSERT_TRUE(GetNodeAttr(node, "dtype", &dtype).ok());
  EXPECT_EQ(n, 3);
  EXPECT_EQ(alpha, 0.5f);
  EXPECT_FALSE(keep_dims);
  EXPECT_EQ(dtype, ::tensorflow::DT_INT64);
  // A setter of one kind is not readable as another.
  std::string s;
  EXPECT_FALSE(GetNodeAttr(node, "N", &s).ok());
}

}  // namespace
}  // namespace graphrt
