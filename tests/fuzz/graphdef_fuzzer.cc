// GraphDef bytes (binary, else text format) -> Session::Create; then, for graphs made only of
// ops whose output sizes follow their inputs' (no op that sizes its output from a value), a Run
// with every Placeholder fed a small tensor and every node fetched.
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graph.pb.h"
#include "runtime/core/tensor.h"
#include "runtime/session/session.h"
#include "tests/fuzz/fuzz_util.h"

namespace graphrt {
namespace {

// Ops whose outputs are no bigger than their inputs (or than a Const, whose size the input
// bounds): running a graph of them cannot allocate more than a few times the input's size.
const std::set<std::string>& RunnableOps() {
  static const auto* ops = new std::set<std::string>{"Placeholder",
                                                     "PlaceholderWithDefault",
                                                     "Const",
                                                     "Identity",
                                                     "IdentityN",
                                                     "NoOp",
                                                     "StopGradient",
                                                     "Add",
                                                     "AddV2",
                                                     "Sub",
                                                     "Mul",
                                                     "Div",
                                                     "RealDiv",
                                                     "FloorDiv",
                                                     "FloorMod",
                                                     "Maximum",
                                                     "Minimum",
                                                     "Neg",
                                                     "Abs",
                                                     "Square",
                                                     "Sqrt",
                                                     "Rsqrt",
                                                     "Exp",
                                                     "Log",
                                                     "Tanh",
                                                     "Sigmoid",
                                                     "Relu",
                                                     "Relu6",
                                                     "Elu",
                                                     "Selu",
                                                     "Softplus",
                                                     "Softmax",
                                                     "LogSoftmax",
                                                     "BiasAdd",
                                                     "Cast",
                                                     "Equal",
                                                     "Less",
                                                     "Greater",
                                                     "LogicalAnd",
                                                     "LogicalNot",
                                                     "Select",
                                                     "Shape",
                                                     "Size",
                                                     "Rank",
                                                     "Squeeze",
                                                     "ExpandDims",
                                                     "Reshape",
                                                     "Transpose",
                                                     "Sum",
                                                     "Mean",
                                                     "Max",
                                                     "Min",
                                                     "Prod",
                                                     "ArgMax",
                                                     "ArgMin",
                                                     "Slice",
                                                     "StridedSlice",
                                                     "ConcatV2",
                                                     "Pack",
                                                     "Unpack",
                                                     "Split",
                                                     "MatMul",
                                                     "BatchMatMulV2",
                                                     "Conv2D",
                                                     "MaxPool",
                                                     "AvgPool",
                                                     "Pad",
                                                     "GatherV2",
                                                     "StringJoin",
                                                     "Substr",
                                                     "StringToNumber",
                                                     "AsString"};
  return *ops;
}

constexpr int kMaxRunNodes = 64;

// A tensor of at most 16 elements for a Placeholder's dtype and shape attrs; false when the
// dtype is not one a feed can carry.
bool SmallFeed(const ::tensorflow::NodeDef& node, Tensor* feed) {
  auto dtype_it = node.attr().find("dtype");
  if (dtype_it == node.attr().end()) return false;
  const DataType dtype = dtype_it->second.type();
  switch (dtype) {
    case ::tensorflow::DT_FLOAT:
    case ::tensorflow::DT_DOUBLE:
    case ::tensorflow::DT_INT32:
    case ::tensorflow::DT_INT64:
    case ::tensorflow::DT_BOOL:
    case ::tensorflow::DT_STRING:
      break;
    default:
      return false;
  }
  std::vector<int64_t> dims;
  auto shape_it = node.attr().find("shape");
  if (shape_it != node.attr().end() && !shape_it->second.shape().unknown_rank()) {
    int64_t elements = 1;
    for (const auto& dim : shape_it->second.shape().dim()) {
      const int64_t d = dim.size() < 0 ? 2 : dim.size();
      if (d > 16 || dims.size() >= 4) return false;
      elements *= d;
      if (elements > 16) return false;
      dims.push_back(d);
    }
  }
  *feed = Tensor(dtype, TensorShape(dims));
  const int64_t n = feed->NumElements();
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype) {
      case ::tensorflow::DT_FLOAT:
        feed->data<float>()[i] = static_cast<float>(i) - 1.5f;
        break;
      case ::tensorflow::DT_DOUBLE:
        feed->data<double>()[i] = static_cast<double>(i) - 1.5;
        break;
      case ::tensorflow::DT_INT32:
        feed->data<int32_t>()[i] = static_cast<int32_t>(i % 3);
        break;
      case ::tensorflow::DT_INT64:
        feed->data<int64_t>()[i] = i % 3;
        break;
      case ::tensorflow::DT_BOOL:
        feed->data<bool>()[i] = (i % 2) == 0;
        break;
      case ::tensorflow::DT_STRING:
        feed->data<std::string>()[i] = std::to_string(i);
        break;
      default:
        break;
    }
  }
  return true;
}

void RunSmall(Session* session, const ::tensorflow::GraphDef& graph) {
  if (graph.node_size() > kMaxRunNodes || graph.library().function_size() > 0) return;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  for (const auto& node : graph.node()) {
    if (RunnableOps().count(node.op()) == 0) return;
  }
  for (const auto& node : graph.node()) {
    if (node.op() == "Placeholder") {
      Tensor feed;
      if (!SmallFeed(node, &feed)) return;
      feeds.emplace_back(node.name() + ":0", std::move(feed));
    } else if (node.op() != "NoOp") {
      fetches.push_back(node.name() + ":0");
    }
  }
  std::vector<Tensor> outputs;
  session->Run(feeds, fetches, {}, &outputs).IgnoreError();
}

}  // namespace
}  // namespace graphrt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ::tensorflow::GraphDef graph;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!graph.ParseFromString(bytes)) {
    graph.Clear();
    if (!graphrt::fuzzing::ParseTextProto(bytes, &graph)) return 0;
  }
  std::unique_ptr<graphrt::Session> session;
  if (!graphrt::NewSession(graphrt::fuzzing::FuzzSessionOptions(), &session).ok()) return 0;
  if (session->Create(graph).ok()) graphrt::RunSmall(session.get(), graph);
  session->Close().IgnoreError();
  return 0;
}
