#include "runtime/graph/subgraph.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include "runtime/core/attr_util.h"

namespace graphrt {
namespace {

// x -> Square -> y; z is a second, unrelated branch.
constexpr char kGraph[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "y" op: "Square" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
node { name: "z" op: "Identity" input: "c" attr { key: "T" value { type: DT_INT32 } } }
)";

std::unique_ptr<Graph> Parse(const char* text) {
  ::tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  StatusOr<std::unique_ptr<Graph>> graph = Graph::FromGraphDef(def);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return std::move(graph).value();
}

std::vector<std::string> NodeOps(const Graph& graph) {
  std::vector<std::string> ops;
  for (const Node* node : graph.nodes()) ops.push_back(node->op() + ":" + node->name());
  std::sort(ops.begin(), ops.end());
  return ops;
}

TEST(SubgraphTest, FeedsBecomeArgsFetchesRetvalsAndTheRestIsPruned) {
  std::unique_ptr<Graph> graph = Parse(kGraph);
  CallSignature sig;
  ASSERT_TRUE(RewriteGraphForCall(graph.get(), {"x:0"}, {"y:0"}, {}, &sig).ok());
  EXPECT_EQ(sig.feeds, std::vector<std::string>({"x:0"}));
  EXPECT_EQ(sig.feed_types, std::vector<DataType>({::tensorflow::DT_FLOAT}));
  ASSERT_EQ(sig.feed_shapes.size(), 1u);
  EXPECT_EQ(sig.feed_shapes[0].DebugString(), "[2]");
  EXPECT_EQ(sig.fetches, std::vector<std::string>({"y:0"}));
  // The placeholder is cut off (pruned), c and z are not needed; Square now reads the _Arg.
  EXPECT_EQ(NodeOps(*graph),
            std::vector<std::string>({"Square:y", "_Arg:_arg_x_0_0", "_Retval:_retval_y_0_0"}));
}

TEST(SubgraphTest, FetchingAFedTensorReturnsTheFeedAndTargetsKeepTheirNodes) {
  std::unique_ptr<Graph> graph = Parse(kGraph);
  CallSignature sig;
  ASSERT_TRUE(RewriteGraphForCall(graph.get(), {"x:0"}, {"x:0"}, {"z"}, &sig).ok());
  EXPECT_EQ(NodeOps(*graph), std::vector<std::string>({"Const:c", "Identity:z", "_Arg:_arg_x_0_0",
                                                       "_Retval:_retval_x_0_0"}));
}

TEST(SubgraphTest, MissingNamesAreNotFoundErrorsNamingThem) {
  struct Case {
    std::vector<std::string> feeds, fetches, targets;
    std::string message;
  };
  for (const Case& c :
       std::vector<Case>{{{"nope:0"}, {"y:0"}, {}, "Feed tensor 'nope:0' names node 'nope'"},
                         {{"x:3"}, {"y:0"}, {}, "Feed tensor 'x:3': node 'x' has 1 outputs"},
                         {{}, {"w:0"}, {}, "Fetch tensor 'w:0' names node 'w'"},
                         {{}, {"y:1"}, {}, "Fetch tensor 'y:1': node 'y' (Square) has 1 outputs"},
                         {{}, {}, {"t"}, "Target node 't' is not in the graph"}}) {
    std::unique_ptr<Graph> graph = Parse(kGraph);
    CallSignature sig;
    Status s = RewriteGraphForCall(graph.get(), c.feeds, c.fetches, c.targets, &sig);
    EXPECT_EQ(s.code(), Code::kNotFound) << s;
    EXPECT_NE(s.message().find(c.message), std::string::npos) << s;
  }
}

// A graph cut below an op graphrt does not know: the feed takes the dtype Relu expects, and the
// unknown op is pruned away; fed above it instead, the unknown op remains and is named.
TEST(SubgraphTest, FeedBelowAnUnknownOpPrunesIt) {
  constexpr char kText[] = R"(
node { name: "raw" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
node { name: "decoded" op: "SomeCustomDecoderOp" input: "raw" }
node { name: "y" op: "Relu" input: "decoded" attr { key: "T" value { type: DT_FLOAT } } }
)";
  std::unique_ptr<Graph> graph = Parse(kText);
  CallSignature sig;
  Status s = RewriteGraphForCall(graph.get(), {"decoded:0"}, {"y:0"}, {}, &sig);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(sig.feed_types, std::vector<DataType>({::tensorflow::DT_FLOAT}));
  EXPECT_TRUE(sig.feed_shapes[0].unknown_rank());
  EXPECT_EQ(NodeOps(*graph),
            std::vector<std::string>({"Relu:y", "_Arg:_arg_decoded_0_0", "_Retval:_retval_y_0_0"}));

  graph = Parse(kText);
  s = RewriteGraphForCall(graph.get(), {"raw:0"}, {"y:0"}, {}, &sig);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("SomeCustomDecoderOp"), std::string::npos) << s;
}

// TensorFlow reads a Placeholder's empty `shape {}` as "any shape" in graphs of producer 21 and
// older (tensorflow__rust's multiplication.pb is producer 9), as a scalar from producer 22.
TEST(SubgraphTest, EmptyPlaceholderShapeIsUnknownInLegacyGraphs) {
  for (int producer : {0, 9, 21, 22, 1700}) {
    std::string text = StrCat(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { } } } }
node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: )",
                              producer, " }");
    std::unique_ptr<Graph> graph = Parse(text.c_str());
    CallSignature sig;
    ASSERT_TRUE(RewriteGraphForCall(graph.get(), {"x:0"}, {"y:0"}, {}, &sig).ok());
    EXPECT_EQ(sig.feed_shapes[0].DebugString(), producer <= 21 ? "<unknown>" : "[]") << producer;
  }
}

// A graph with a large Const (w, 300 floats in tensor_content), a small one (b) and a consumer.
::tensorflow::GraphDef GraphWithLargeConst() {
  ::tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                            float_val: 1 float_val: 2 } } } }
node { name: "y" op: "Identity" input: "w" input: "^b" device: "/cpu:0"
       attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 27 }
)",
                                                            &def));
  std::vector<float> values(300);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * static_cast<float>(i);
  ::tensorflow::NodeDef* w = def.add_node();
  w->set_name("w");
  w->set_op("Const");
  w->set_device("/cpu:0");
  w->mutable_experimental_debug_info()->add_original_node_names("w_before");
  SetNodeAttr(w, "dtype", ::tensorflow::DT_FLOAT);
  SetNodeAttr(w, "value", Tensor::Vector<float>(values).Reshaped(TensorShape({3, 100})));
  return def;
}

// A session keeps large Const values beside its NodeDefs: each graph built from them shares the
// one decoded buffer, and writing the graph back gives the original NodeDefs.
TEST(ConstValuesTest, LargeValuesAreHeldOnceBesideTheNodeDefs) {
  const ::tensorflow::GraphDef def = GraphWithLargeConst();
  ::tensorflow::GraphDef light;
  ConstValues values;
  SeparateConstValues(def, &light, &values);
  ASSERT_EQ(values.size(), 1u);
  const Tensor& w = values.at("w");
  EXPECT_EQ(w.shape().DebugString(), "[3,100]");
  EXPECT_EQ(w.data<float>()[299], 149.5f);
  ASSERT_EQ(light.node_size(), 3);
  EXPECT_EQ(light.node(2).attr().count("value"), 0u);
  EXPECT_EQ(light.node(2).experimental_debug_info().original_node_names(0), "w_before");
  EXPECT_EQ(light.node(0).attr().count("value"), 1u);  // b is small: it stays in its attr
  EXPECT_LT(light.ByteSizeLong(), 1024u);

  StatusOr<std::unique_ptr<Graph>> first = Graph::FromGraphDef(light, &values);
  ASSERT_TRUE(first.ok()) << first.status();
  StatusOr<std::unique_ptr<Graph>> second = Graph::FromGraphDef(light, &values);
  ASSERT_TRUE(second.ok()) << second.status();
  const Node* w1 = (*first)->FindNode("w");
  const Node* w2 = (*second)->FindNode("w");
  EXPECT_TRUE(w1->const_value().SharesBufferWith(w));
  EXPECT_TRUE(w2->const_value().SharesBufferWith(w));
  EXPECT_FALSE((*first)->FindNode("b")->const_value().IsInitialized());

  ::tensorflow::GraphDef back;
  (*first)->ToGraphDef(&back);
  ASSERT_EQ(back.node_size(), def.node_size());
  for (int i = 0; i < def.node_size(); ++i) {
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back.node(i), def.node(i)))
        << back.node(i).DebugString();
  }
}

// A value that does not decode stays in its attr, so that building a kernel for it reports the
// error as before.
TEST(ConstValuesTest, ValueThatDoesNotDecodeStaysInTheNodeDef) {
  ::tensorflow::GraphDef def = GraphWithLargeConst();
  ::tensorflow::TensorProto* w = (*def.mutable_node(2)->mutable_attr())["value"].mutable_tensor();
  w->mutable_tensor_content()->resize(1100);  // not 300 floats
  ::tensorflow::GraphDef light;
  ConstValues values;
  SeparateConstValues(def, &light, &values);
  EXPECT_TRUE(values.empty());
  EXPECT_EQ(light.node(2).attr().at("value").tensor().tensor_content().size(), 1100u);
}

}  // namespace
}  // namespace graphrt
