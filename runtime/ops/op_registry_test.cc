#include "runtime/ops/op_registry.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

TEST(OpRegistryTest, ParsesSpecsIntoOpDef) {
  ::tensorflow::OpDef def;
  ShapeFn fn;
  Status s = OpDefBuilder("Test")
                 .Input("a: T")
                 .Input("b: N * int32")
                 .Input("r: Ref(T)")
                 .Output("out: Tlist")
                 .Attr("T: {float, double} = DT_FLOAT")
                 .Attr("N: int >= 1")
                 .Attr("Tlist: list(type)")
                 .Attr("padding: {'SAME', 'VALID'}")
                 .Attr("strides: list(int) = [1, 2]")
                 .Attr("shape: shape = { unknown_rank: true }")
                 .Attr("name: string = 'x'")
                 .Finalize(&def, &fn);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(def.input_arg(0).type_attr(), "T");
  EXPECT_EQ(def.input_arg(1).number_attr(), "N");
  EXPECT_EQ(def.input_arg(1).type(), ::tensorflow::DT_INT32);
  EXPECT_TRUE(def.input_arg(2).is_ref());
  EXPECT_EQ(def.output_arg(0).type_list_attr(), "Tlist");
  EXPECT_EQ(def.attr(0).default_value().type(), ::tensorflow::DT_FLOAT);
  EXPECT_EQ(def.attr(0).allowed_values().list().type_size(), 2);
  EXPECT_TRUE(def.attr(1).has_minimum());
  EXPECT_EQ(def.attr(3).allowed_values().list().s(1), "VALID");
  EXPECT_EQ(def.attr(4).default_value().list().i(1), 2);
  EXPECT_TRUE(def.attr(5).default_value().shape().unknown_rank());
  EXPECT_EQ(def.attr(6).default_value().s(), "x");
}

TEST(OpRegistryTest, BadSpecsAreErrors) {
  ::tensorflow::OpDef def;
  ShapeFn fn;
  EXPECT_FALSE(OpDefBuilder("Bad").Input("a: NoSuchAttr").Finalize(&def, &fn).ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("x: int = notanumber").Finalize(&def, &fn).ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("missing colon").Finalize(&def, &fn).ok());
}

TEST(OpRegistryTest, DefaultsAndTypesForNodes) {
  const OpRegistration* reg = OpRegistry::Global()->Find("Enter");
  ASSERT_NE(reg, nullptr);
  ::tensorflow::NodeDef node;
  node.set_name("e");
  node.set_op("Enter");
  (*node.mutable_attr())["T"].set_type(::tensorflow::DT_INT64);
  (*node.mutable_attr())["frame_name"].set_s("f");
  AddDefaultAttrs(reg->op_def, &node);
  EXPECT_EQ(node.attr().at("parallel_iterations").i(), 10);
  EXPECT_FALSE(node.attr().at("is_constant").b());
  std::vector<DataType> in, out;
  ASSERT_TRUE(InOutTypesForNode(node, reg->op_def, &in, &out).ok());
  EXPECT_EQ(in, std::vector<DataType>{::tensorflow::DT_INT64});
  node.mutable_attr()->erase("T");
  Status s = InOutTypesForNode(node, reg->op_def, &in, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("'T'"), std::string::npos);
}

}  // namespace
}  // namespace graphrt
