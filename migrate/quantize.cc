#include "migrate/quantize.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

#include "migrate/dtype_cast.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/devices/device_factory.h"
#include "runtime/graph/graph.h"
#include "runtime/optimize/graph_optimizer.h"

namespace graphrt {
namespace migrate {

using ::tensorflow::DT_FLOAT;
using ::tensorflow::DT_HALF;
using ::tensorflow::DT_QINT8;
using ::tensorflow::DT_QUINT8;
using ::tensorflow::NodeDef;

namespace {

constexpr float kHalfMax = 65504.0f;
// Float Consts smaller than this stay float32 in fp16-weights: scalars and shape-like constants
// weigh nothing and may be used where a half would change a computation's type.
constexpr int64_t kMinFp16Elements = 16;

struct NamedMode {
  const char* name;
  QuantizeMode mode;
};
constexpr NamedMode kModes[] = {{"fp16-weights", QuantizeMode::kFp16Weights},
                                {"int8-dynamic", QuantizeMode::kInt8Dynamic},
                                {"int8-static", QuantizeMode::kInt8Static}};

struct NamedMethod {
  const char* name;
  CalibrationMethod method;
};
constexpr NamedMethod kMethods[] = {{"minmax", CalibrationMethod::kMinMax},
                                    {"percentile", CalibrationMethod::kPercentile},
                                    {"entropy", CalibrationMethod::kEntropy}};

// The graph's nodes by name, and which nodes read each one.
class NodeIndex {
 public:
  explicit NodeIndex(const GraphDef& graph) {
    for (int i = 0; i < graph.node_size(); ++i) by_name_[graph.node(i).name()] = i;
  }
  const NodeDef* Find(const GraphDef& graph, const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &graph.node(it->second);
  }
  NodeDef* Find(GraphDef* graph, const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : graph->mutable_node(it->second);
  }
  bool Contains(const std::string& name) const { return by_name_.count(name) != 0; }
  // `base`, or `base_1`, `base_2`, ... whichever no node has; reserved from then on.
  std::string FreshName(const std::string& base) {
    std::string name = base;
    for (int i = 1; Contains(name) || taken_.count(name) != 0; ++i) name = StrCat(base, "_", i);
    taken_.insert(name);
    return name;
  }

 private:
  std::unordered_map<std::string, int> by_name_;
  std::set<std::string> taken_;
};

// "^x" -> "", "x:1" -> "x", "x" -> "x".
std::string InputNode(const std::string& input) {
  if (!input.empty() && input[0] == '^') return "";
  return input.substr(0, input.find(':'));
}

// The float Const an input reaches through Identity nodes, or null.
const NodeDef* FloatConstBehind(const GraphDef& graph, const NodeIndex& index,
                                const std::string& input) {
  const NodeDef* node = index.Find(graph, InputNode(input));
  for (int hops = 0; node != nullptr && node->op() == "Identity" && hops < 16; ++hops) {
    if (node->input_size() < 1) return nullptr;
    node = index.Find(graph, InputNode(node->input(0)));
  }
  if (node == nullptr || node->op() != "Const") return nullptr;
  DataType dtype = ::tensorflow::DT_INVALID;
  if (!GetNodeAttr(*node, "dtype", &dtype).ok() || dtype != DT_FLOAT) return nullptr;
  return node;
}

// The [height, width, in] of a Conv2D filter Const ([height, width, in, out]), or nothing.
std::optional<std::array<int64_t, 3>> FilterPatch(const NodeDef& filter) {
  const auto value = filter.attr().find("value");
  if (value == filter.attr().end()) return std::nullopt;
  const auto& shape = value->second.tensor().tensor_shape();
  if (shape.dim_size() != 4) return std::nullopt;
  return std::array<int64_t, 3>{shape.dim(0).size(), shape.dim(1).size(), shape.dim(2).size()};
}

StatusOr<Tensor> ConstValue(const NodeDef& node) {
  Tensor value;
  GRT_RETURN_IF_ERROR(GetNodeAttr(node, "value", &value));
  if (value.dtype() != DT_FLOAT) {
    return InvalidArgument("Const ", node.name(), " holds ", DataTypeString(value.dtype()),
                           ", not float");
  }
  return value;
}

// The weight input of a quantizable op and the axis of its output channels in the weight, or -1
// with `why` set when the op has no int8 path.
int WeightInput(const NodeDef& node, int* channel_axis, std::string* why) {
  if (node.op() == "MatMul") {
    bool transpose_b = false;
    GetNodeAttrOr(node, "transpose_b", &transpose_b).IgnoreError();
    *channel_axis = transpose_b ? 0 : 1;
    return 1;
  }
  if (node.op() == "Conv2D" || node.op() == "DepthwiseConv2dNative") {
    std::string format = "NHWC";
    GetNodeAttrOr(node, "data_format", &format).IgnoreError();
    if (format != "NHWC") {
      *why = StrCat("data_format ", format, " (the int8 kernels take NHWC)");
      return -1;
    }
    // Conv2D's filter is [h, w, in, out]; a depthwise filter [h, w, in, multiplier] has one
    // scale per input channel, shared by its multiplier outputs.
    *channel_axis = node.op() == "Conv2D" ? 3 : 2;
    return 1;
  }
  return -1;
}

bool Excluded(const std::regex* exclude, const std::string& name) {
  return exclude != nullptr && std::regex_match(name, *exclude);
}

StatusOr<std::unique_ptr<std::regex>> CompileExclude(const std::string& pattern) {
  if (pattern.empty()) return std::unique_ptr<std::regex>();
  try {
    return std::make_unique<std::regex>(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return InvalidArgument("--exclude '", pattern, "' is not a regular expression: ", e.what());
  }
}

NodeDef MakeConst(const std::string& name, const Tensor& value, const std::string& device) {
  NodeDef node;
  node.set_name(name);
  node.set_op("Const");
  node.set_device(device);
  SetNodeAttr(&node, "dtype", value.dtype());
  SetNodeAttr(&node, "value", value);
  return node;
}

// Symmetric int8 values of `w` with one scale per index of `axis` (-1: one for all), and the
// per-scale bound max|w| (the Dequantize range is [-bound, bound]).
void QuantizeSymmetric(const Tensor& w, int axis, Tensor* q, Tensor* bound) {
  const float* v = w.data<float>();
  const int64_t n = w.NumElements();
  int64_t channels = 1, inner = 1;
  if (axis >= 0) {
    channels = w.dim_size(axis);
    for (int d = axis + 1; d < w.dims(); ++d) inner *= w.dim_size(d);
  }
  std::vector<float> amax(channels, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / inner) % channels;
    amax[c] = std::max(amax[c], std::fabs(v[i]));
  }
  // An all-zero channel keeps a positive range: its values stay 0 and no scale divides by 0.
  for (float& a : amax) {
    if (!(a > 0.0f) || !std::isfinite(a)) a = a > 0.0f ? a : 1e-30f;
  }
  *q = Tensor(DT_QINT8, w.shape());
  int8_t* out = q->data<int8_t>();
  for (int64_t i = 0; i < n; ++i) {
    const float scale = 127.0f / amax[(i / inner) % channels];
    const float r = std::nearbyint(v[i] * scale);
    out[i] = static_cast<int8_t>(std::min(127.0f, std::max(-127.0f, r)));
  }
  *bound = axis >= 0 ? Tensor(DT_FLOAT, TensorShape({channels})) : Tensor(DT_FLOAT, TensorShape());
  std::copy(amax.begin(), amax.end(), bound->data<float>());
}

// [lo, hi] widened to hold 0 and nudged so that 0 is one of the 256 levels of quint8 MIN_FIRST
// (min = -zero_point * scale), as asymmetric uint8 quantization needs.
TensorRange NudgedUint8Range(TensorRange r) {
  float lo = std::min(0.0f, r.min), hi = std::max(0.0f, r.max);
  if (!(hi - lo > 1e-8f)) hi = lo + 1e-8f;
  const double scale = (static_cast<double>(hi) - lo) / 255.0;
  const double zero_point = std::min(255.0, std::max(0.0, std::nearbyint(-lo / scale)));
  return TensorRange{static_cast<float>(-zero_point * scale),
                     static_cast<float>((255.0 - zero_point) * scale)};
}

Status NothingToStoreAsFloat16() {
  return InvalidArgument("the graph has no float32 constant of ", kMinFp16Elements,
                         " or more elements to store as float16");
}

Status NoQuantizableOp(const std::vector<std::string>& kept_float) {
  return InvalidArgument(
      "the graph has no quantizable op (MatMul, Conv2D or DepthwiseConv2dNative with a float32 "
      "constant weight)",
      kept_float.empty() ? std::string() : StrCat("; left float: ", StrJoin(kept_float, "; ")));
}

bool IsFp16Candidate(const NodeDef& node) {
  DataType dtype = ::tensorflow::DT_INVALID;
  if (node.op() != "Const" || !GetNodeAttr(node, "dtype", &dtype).ok() || dtype != DT_FLOAT) {
    return false;
  }
  const auto it = node.attr().find("value");
  if (it == node.attr().end()) return false;
  int64_t elements = 1;
  for (const auto& d : it->second.tensor().tensor_shape().dim()) elements *= d.size();
  return elements >= kMinFp16Elements;
}

Status RewriteFp16(const std::regex* exclude, GraphDef* graph, QuantizeSummary* summary) {
  NodeIndex index(*graph);
  std::set<std::string> consumers_excluded;
  for (const NodeDef& node : graph->node()) {
    if (!Excluded(exclude, node.name())) continue;
    for (const std::string& in : node.input()) consumers_excluded.insert(InputNode(in));
  }
  std::vector<NodeDef> added;
  for (NodeDef& node : *graph->mutable_node()) {
    if (!IsFp16Candidate(node)) continue;
    if (Excluded(exclude, node.name()) || consumers_excluded.count(node.name()) != 0) continue;
    GRT_ASSIGN_OR_RETURN(Tensor value, ConstValue(node));
    const float* v = value.data<float>();
    if (std::any_of(v, v + value.NumElements(),
                    [](float x) { return std::isfinite(x) && std::fabs(x) > kHalfMax; })) {
      summary->kept_float.push_back(StrCat(node.name(), " (Const): values beyond float16's range"));
      continue;
    }
    GRT_ASSIGN_OR_RETURN(Tensor half, CastTensor(value, DT_HALF));
    const std::string stored = index.FreshName(node.name() + "/float16");
    added.push_back(MakeConst(stored, half, node.device()));
    summary->weight_bytes_before += static_cast<int64_t>(value.TotalBytes());
    summary->weight_bytes_after += static_cast<int64_t>(half.TotalBytes());
    summary->quantized.push_back(StrCat(node.name(), " (Const)"));
    NodeDef cast;
    cast.set_name(node.name());
    cast.set_op("Cast");
    cast.set_device(node.device());
    cast.add_input(stored);
    for (const std::string& in : node.input()) cast.add_input(in);  // control inputs
    SetNodeAttr(&cast, "SrcT", DT_HALF);
    SetNodeAttr(&cast, "DstT", DT_FLOAT);
    SetNodeAttr(&cast, "Truncate", false);
    node = std::move(cast);
  }
  if (added.empty()) return NothingToStoreAsFloat16();
  for (NodeDef& n : added) *graph->add_node() = std::move(n);
  return Status::OK();
}

}  // namespace

const char* QuantizeModeName(QuantizeMode mode) {
  for (const NamedMode& m : kModes) {
    if (m.mode == mode) return m.name;
  }
  return "?";
}

bool ParseQuantizeMode(const std::string& name, QuantizeMode* mode) {
  for (const NamedMode& m : kModes) {
    if (name == m.name) {
      *mode = m.mode;
      return true;
    }
  }
  return false;
}

const char* CalibrationMethodName(CalibrationMethod method) {
  for (const NamedMethod& m : kMethods) {
    if (m.method == method) return m.name;
  }
  return "?";
}

bool ParseCalibrationMethod(const std::string& name, CalibrationMethod* method) {
  for (const NamedMethod& m : kMethods) {
    if (name == m.name) {
      *method = m.method;
      return true;
    }
  }
  return false;
}

StatusOr<std::vector<QuantizableOp>> FindQuantizableOps(const GraphDef& graph,
                                                        const QuantizeOptions& options,
                                                        std::vector<std::string>* skipped) {
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<std::regex> exclude, CompileExclude(options.exclude));
  const NodeIndex index(graph);
  std::vector<QuantizableOp> ops;
  for (const NodeDef& node : graph.node()) {
    int axis = -1;
    std::string why;
    const int weight_input = WeightInput(node, &axis, &why);
    if (weight_input < 0) {
      if (!why.empty() && skipped != nullptr) {
        skipped->push_back(StrCat(node.name(), " (", node.op(), "): ", why));
      }
      continue;
    }
    if (node.input_size() <= weight_input) continue;
    const NodeDef* weight = FloatConstBehind(graph, index, node.input(weight_input));
    if (weight == nullptr) {
      if (skipped != nullptr) {
        skipped->push_back(
            StrCat(node.name(), " (", node.op(), "): its weight is not a float32 constant"));
      }
      continue;
    }
    if (Excluded(exclude.get(), node.name()) || Excluded(exclude.get(), weight->name())) {
      if (skipped != nullptr) {
        skipped->push_back(StrCat(node.name(), " (", node.op(), "): excluded by --exclude"));
      }
      continue;
    }
    if (node.op() == "Conv2D" && !options.quantize_shallow_convs) {
      const auto patch = FilterPatch(*weight);
      if (patch && (*patch)[2] <= kShallowConvDepth &&
          (*patch)[0] * (*patch)[1] * (*patch)[2] <= kShallowConvPatch) {
        if (skipped != nullptr) {
          skipped->push_back(StrCat(node.name(), " (", node.op(), "): patches of ", (*patch)[0],
                                    "x", (*patch)[1], "x", (*patch)[2],
                                    " values, faster in float32 "
                                    "(--quantize-shallow-convs quantizes it)"));
        }
        continue;
      }
    }
    std::string activation = node.input(0);
    if (activation.find(':') == std::string::npos) activation += ":0";
    ops.push_back(QuantizableOp{node.name(), node.op(), weight->name(), activation});
  }
  return ops;
}

Status CheckQuantizable(const GraphDef& graph, const QuantizeOptions& options) {
  if (options.mode == QuantizeMode::kFp16Weights) {
    for (const NodeDef& node : graph.node()) {
      if (IsFp16Candidate(node)) return Status::OK();
    }
    return NothingToStoreAsFloat16();
  }
  std::vector<std::string> kept_float;
  GRT_ASSIGN_OR_RETURN(std::vector<QuantizableOp> ops,
                       FindQuantizableOps(graph, options, &kept_float));
  return ops.empty() ? NoQuantizableOp(kept_float) : Status::OK();
}

Status QuantizeGraph(const QuantizeOptions& options,
                     const std::map<std::string, TensorRange>& ranges, GraphDef* graph,
                     QuantizeSummary* summary) {
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<std::regex> exclude, CompileExclude(options.exclude));
  GraphDef out = *graph;
  QuantizeSummary result;
  if (options.mode == QuantizeMode::kFp16Weights) {
    GRT_RETURN_IF_ERROR(RewriteFp16(exclude.get(), &out, &result));
    *graph = std::move(out);
    *summary = std::move(result);
    return Status::OK();
  }
  GRT_ASSIGN_OR_RETURN(std::vector<QuantizableOp> ops,
                       FindQuantizableOps(out, options, &result.kept_float));
  if (ops.empty()) {
    return InvalidArgument(
        "the graph has no quantizable op (MatMul, Conv2D or "
        "DepthwiseConv2dNative with a float32 constant weight)",
        result.kept_float.empty() ? std::string()
                                  : StrCat("; left float: ", StrJoin(result.kept_float, "; ")));
  }
  const bool with_activations = options.mode == QuantizeMode::kInt8Static;
  if (with_activations) {
    for (const QuantizableOp& op : ops) {
      if (ranges.count(op.activation) == 0) {
        return InvalidArgument("no calibrated range for ", op.activation, ", the input of ",
                               op.node, " (", op.op, ")");
      }
    }
  }
  NodeIndex index(out);
  std::vector<NodeDef> added;
  std::set<std::string> weights_done;
  std::map<std::string, std::string> dequantized_activation;  // tensor -> Dequantize node
  for (const QuantizableOp& op : ops) {
    NodeDef* node = index.Find(&out, op.node);
    int axis = -1;
    std::string why;
    WeightInput(*node, &axis, &why);
    if (!options.per_channel) axis = -1;
    if (weights_done.insert(op.weight).second) {
      NodeDef* weight = index.Find(&out, op.weight);
      GRT_ASSIGN_OR_RETURN(Tensor w, ConstValue(*weight));
      if (axis >= w.dims()) {
        return InvalidArgument(op.node, " (", op.op, "): weight ", op.weight, " has rank ",
                               w.dims());
      }
      Tensor q, bound;
      QuantizeSymmetric(w, axis, &q, &bound);
      Tensor lower(DT_FLOAT, bound.shape());
      for (int64_t i = 0; i < bound.NumElements(); ++i) {
        lower.data<float>()[i] = -bound.data<float>()[i];
      }
      const std::string device = weight->device();
      const std::string q_name = index.FreshName(op.weight + "/quantized");
      const std::string min_name = index.FreshName(op.weight + "/min");
      const std::string max_name = index.FreshName(op.weight + "/max");
      added.push_back(MakeConst(q_name, q, device));
      added.push_back(MakeConst(min_name, lower, device));
      added.push_back(MakeConst(max_name, bound, device));
      NodeDef dq;
      dq.set_name(op.weight);
      dq.set_op("Dequantize");
      dq.set_device(device);
      dq.add_input(q_name);
      dq.add_input(min_name);
      dq.add_input(max_name);
      for (const std::string& in : weight->input()) dq.add_input(in);  // control inputs
      SetNodeAttr(&dq, "T", DT_QINT8);
      SetNodeAttr(&dq, "mode", "SCALED");
      SetNodeAttr(&dq, "narrow_range", true);
      SetNodeAttr(&dq, "axis", static_cast<int64_t>(axis));
      SetNodeAttr(&dq, "dtype", DT_FLOAT);
      *weight = std::move(dq);
      result.weight_bytes_before += static_cast<int64_t>(w.TotalBytes());
      result.weight_bytes_after +=
          static_cast<int64_t>(q.TotalBytes() + lower.TotalBytes() + bound.TotalBytes());
    }
    result.quantized.push_back(StrCat(op.node, " (", op.op, ")"));
    if (!with_activations) continue;
    auto done = dequantized_activation.find(op.activation);
    if (done == dequantized_activation.end()) {
      const TensorRange r = NudgedUint8Range(ranges.at(op.activation));
      GRT_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(op.activation));
      const std::string base = id.index == 0 ? id.node : StrCat(id.node, "_", id.index);
      const std::string device = node->device();
      const std::string min_name = index.FreshName(base + "/range_min");
      const std::string max_name = index.FreshName(base + "/range_max");
      const std::string q_name = index.FreshName(base + "/quantize");
      const std::string dq_name = index.FreshName(base + "/dequantize");
      added.push_back(MakeConst(min_name, Tensor::Scalar<float>(r.min), device));
      added.push_back(MakeConst(max_name, Tensor::Scalar<float>(r.max), device));
      NodeDef quantize;
      quantize.set_name(q_name);
      quantize.set_op("QuantizeV2");
      quantize.set_device(device);
      quantize.add_input(op.activation);
      quantize.add_input(min_name);
      quantize.add_input(max_name);
      SetNodeAttr(&quantize, "T", DT_QUINT8);
      SetNodeAttr(&quantize, "mode", "MIN_FIRST");
      SetNodeAttr(&quantize, "ensure_minimum_range", 0.0f);
      NodeDef dequantize;
      dequantize.set_name(dq_name);
      dequantize.set_op("Dequantize");
      dequantize.set_device(device);
      dequantize.add_input(q_name);
      dequantize.add_input(q_name + ":1");
      dequantize.add_input(q_name + ":2");
      SetNodeAttr(&dequantize, "T", DT_QUINT8);
      SetNodeAttr(&dequantize, "mode", "MIN_FIRST");
      SetNodeAttr(&dequantize, "dtype", DT_FLOAT);
      added.push_back(std::move(quantize));
      added.push_back(std::move(dequantize));
      done = dequantized_activation.emplace(op.activation, dq_name).first;
    }
    node->set_input(0, done->second);
  }
  for (NodeDef& n : added) *out.add_node() = std::move(n);
  *graph = std::move(out);
  *summary = std::move(result);
  return Status::OK();
}

Status FoldForQuantization(const std::vector<std::string>& keep, GraphDef* graph) {
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> ir, Graph::FromGraphDef(*graph));
  // Each kept tensor is read by a _Retval, which the optimizer never rewrites away.
  std::vector<Node*> retvals;
  for (size_t i = 0; i < keep.size(); ++i) {
    GRT_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(keep[i]));
    Node* src = ir->FindNode(id.node);
    if (src == nullptr) return NotFound("no node ", id.node, " in the graph");
    if (id.index < 0 || id.index >= src->num_outputs()) continue;
    NodeDef def;
    def.set_name(StrCat("_graphrt_quantize_keep_", i));
    def.set_op("_Retval");
    SetNodeAttr(&def, "T", src->output_type(id.index));
    SetNodeAttr(&def, "index", static_cast<int64_t>(i));
    GRT_ASSIGN_OR_RETURN(Node * retval, ir->AddNode(std::move(def)));
    ir->AddEdge(src, id.index, retval, 0);
    retvals.push_back(retval);
  }
  DeviceOptions device_options;
  device_options.intra_op_threads = 1;
  device_options.max_gpus = 0;
  device_options.opencl_devices = "none";
  std::vector<std::unique_ptr<Device>> devices = CreateDevices(device_options);
  if (devices.empty()) return Internal("no CPU device to fold constants on");
  std::vector<Device*> by_node(ir->num_node_ids(), devices[0].get());
  for (Node* n : ir->nodes()) n->set_assigned_device(devices[0]->name());
  OptimizerOptions optimizer;
  optimizer.model_pruning = false;  // Identity nodes may be the names users fetch
  optimizer.remapping = false;      // fused ops are graphrt's and TensorFlow's internals
  OptimizerContext context;
  context.graph = ir.get();
  context.devices = &by_node;
  context.host = devices[0].get();
  std::vector<RewriteRecord> records;
  GRT_RETURN_IF_ERROR(OptimizeGraph(optimizer, &context, &records));
  for (Node* n : ir->nodes()) {
    if (n->IsRetval() && StartsWith(n->name(), "_graphrt_quantize_keep_")) ir->RemoveNode(n);
  }
  GraphDef folded;
  ir->ToGraphDef(&folded);
  for (NodeDef& node : *folded.mutable_node()) {
    // The devices were only the optimizer's; the user's requests stay as they were.
    node.clear_device();
  }
  std::unordered_map<std::string, std::string> requested;
  for (const NodeDef& node : graph->node()) requested[node.name()] = node.device();
  for (NodeDef& node : *folded.mutable_node()) {
    auto it = requested.find(node.name());
    if (it != requested.end()) node.set_device(it->second);
  }
  *graph = std::move(folded);
  return Status::OK();
}

RangeCollector::RangeCollector(CalibrationMethod method, double percentile)
    : method_(method), percentile_(percentile) {}

void RangeCollector::Rebin(float new_limit) {
  // Doubling the limit merges bins pairwise, so the counts stay exact per (wider) bin.
  while (limit_ < new_limit) {
    std::vector<double> merged(kBins, 0.0);
    for (int i = 0; i < kBins; ++i) merged[i / 2] += histogram_[i];
    histogram_ = std::move(merged);
    limit_ *= 2;
  }
}

Status RangeCollector::Add(const Tensor& value) {
  if (value.dtype() != DT_FLOAT) {
    return InvalidArgument("calibration needs float32 activations, got ",
                           DataTypeString(value.dtype()));
  }
  const float* v = value.data<float>();
  const int64_t n = value.NumElements();
  float lo = count_ == 0 ? 0.0f : min_, hi = count_ == 0 ? 0.0f : max_;
  float amax = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) continue;
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
    amax = std::max(amax, std::fabs(v[i]));
  }
  min_ = lo;
  max_ = hi;
  ++count_;
  if (method_ == CalibrationMethod::kMinMax) return Status::OK();
  if (histogram_.empty()) {
    histogram_.assign(kBins, 0.0);
    limit_ = amax > 0 ? amax * 1.0001f : 1e-6f;
  }
  if (amax >= limit_) Rebin(amax * 1.0001f);
  const float to_bin = kBins / limit_;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) continue;
    const int bin = std::min(kBins - 1, static_cast<int>(std::fabs(v[i]) * to_bin));
    histogram_[bin] += 1.0;
  }
  return Status::OK();
}

namespace {

// KL(p || q) of the histogram's first `bins` bins (outliers added to the last) against the same
// bins quantized to `levels` levels, TensorRT's entropy calibration.
double QuantizationDivergence(const std::vector<double>& histogram, int bins, int levels) {
  std::vector<double> p(histogram.begin(), histogram.begin() + bins);
  for (size_t i = bins; i < histogram.size(); ++i) p[bins - 1] += histogram[i];
  std::vector<double> q(bins, 0.0);
  const double per_level = static_cast<double>(bins) / levels;
  for (int l = 0; l < levels; ++l) {
    const int begin = static_cast<int>(std::floor(l * per_level));
    const int end = std::min(bins, static_cast<int>(std::floor((l + 1) * per_level)));
    double sum = 0;
    int nonzero = 0;
    for (int i = begin; i < end; ++i) {
      sum += histogram[i];
      nonzero += histogram[i] > 0 ? 1 : 0;
    }
    for (int i = begin; i < end; ++i) {
      if (histogram[i] > 0) q[i] = sum / nonzero;
    }
  }
  double p_total = 0, q_total = 0;
  for (int i = 0; i < bins; ++i) {
    p_total += p[i];
    q_total += q[i];
  }
  if (p_total <= 0 || q_total <= 0) return std::numeric_limits<double>::infinity();
  double kl = 0;
  for (int i = 0; i < bins; ++i) {
    if (p[i] <= 0) continue;
    const double pi = p[i] / p_total;
    const double qi = q[i] / q_total;
    kl += qi > 0 ? pi * std::log(pi / qi) : pi * 20.0;  // a level lost entirely costs a lot
  }
  return kl;
}

}  // namespace

TensorRange RangeCollector::Range() const {
  TensorRange full{std::min(0.0f, min_), std::max(0.0f, max_)};
  if (method_ == CalibrationMethod::kMinMax || histogram_.empty()) return full;
  double total = 0;
  for (double c : histogram_) total += c;
  if (total <= 0) return full;
  const float bin_width = limit_ / kBins;
  float threshold = limit_;
  if (method_ == CalibrationMethod::kPercentile) {
    const double wanted = total * std::min(100.0, std::max(0.0, percentile_)) / 100.0;
    double seen = 0;
    for (int i = 0; i < kBins; ++i) {
      seen += histogram_[i];
      if (seen >= wanted) {
        threshold = (i + 1) * bin_width;
        break;
      }
    }
  } else {
    // Values of one sign use all 256 levels of uint8; both signs share them.
    const int levels = min_ >= 0 || max_ <= 0 ? 255 : 128;
    double best = std::numeric_limits<double>::infinity();
    for (int bins = levels; bins <= kBins; bins += 16) {
      const double kl = QuantizationDivergence(histogram_, bins, levels);
      if (kl < best) {
        best = kl;
        threshold = bins * bin_width;
      }
    }
  }
  return TensorRange{std::max(full.min, -threshold), std::min(full.max, threshold)};
}

}  // namespace migrate
}  // namespace graphrt
