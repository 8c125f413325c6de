// The remapper.
//
// A zero Pad with Const paddings before a VALID or EXPLICIT convolution becomes the
// convolution's explicit padding. Then Conv2D, DepthwiseConv2dNative or MatMul, a bias (BiasAdd,
// or Add of a 1-D Const of the output's channels), optionally a residual Add of a tensor of the
// same static shape, and optionally one activation (Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh,
// swish x * sigmoid(x) or Keras's x * sigmoid(1 * x), or hard-swish x * relu6(x + 3) / 6)
// become one _FusedConv2D, _FusedDepthwiseConv2dNative or _FusedMatMul node with TensorFlow's
// fused_ops attr, named after the last node it replaces (so a fetch of the pattern's result
// still names it).
//
// Then a 1x1 _FusedConv2D whose only reader is a _FusedDepthwiseConv2dNative with multiplier 1
// (neither with a residual) becomes one _GraphrtFusedExpandDepthwise, named after the depthwise
// node, and one of those whose only reader is a 1x1 _FusedConv2D becomes a
// _GraphrtFusedInvertedResidual, named after that (README.md).
//
// A pattern is fused only when every intermediate tensor has exactly one reader (not fetched,
// no control edges), every node runs on one device, and that device has a kernel for the fused
// node (graphrt's are float NHWC on the CPU).
#include <algorithm>
#include <cmath>
#include <utility>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/optimize/optimizer_util.h"

namespace graphrt {
namespace optimize {

namespace {

const char* FusedOpFor(const std::string& op) {
  if (op == "Conv2D") return "_FusedConv2D";
  if (op == "DepthwiseConv2dNative") return "_FusedDepthwiseConv2dNative";
  if (op == "MatMul") return "_FusedMatMul";
  return nullptr;
}

bool IsFusableActivation(const std::string& op) {
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "LeakyRelu" || op == "Sigmoid" ||
         op == "Tanh";
}

// The output channels of `root` when its weights are a Const; -1 when unknown.
int64_t OutputChannels(const Node* root) {
  Tensor w;
  if (!IsConst(InputNode(root, 1), &w)) return -1;
  if (root->op() == "MatMul") {
    if (w.dims() != 2) return -1;
    bool transpose_b = false;
    if (!GetNodeAttrOr(root->def(), "transpose_b", &transpose_b).ok()) return -1;
    return w.dim_size(transpose_b ? 0 : 1);
  }
  if (w.dims() != 4) return -1;
  if (root->op() == "DepthwiseConv2dNative") return w.dim_size(2) * w.dim_size(3);
  return w.dim_size(3);
}

struct Pattern {
  std::vector<Node*> nodes;  // in data order; the last one gives the fused node its name
  const Edge* bias = nullptr;
  const Edge* addend = nullptr;  // the residual Add's other input
  std::vector<std::string> fused_ops;
  float leakyrelu_alpha = 0.2f;
};

// The bias node after `root` (its sole consumer), with the edge of the bias vector.
bool MatchBias(const OptimizerContext& ctx, Node* root, Pattern* p) {
  Node* next = SoleConsumer(root);
  if (next == nullptr || DeviceOf(ctx, next) != DeviceOf(ctx, root)) return false;
  if (next->op() == "BiasAdd") {
    std::string format = "NHWC";
    if (!GetNodeAttrOr(next->def(), "data_format", &format).ok() || format != "NHWC") return false;
    if (next->input_edge(0) == nullptr || next->input_edge(0)->src != root) return false;
    p->bias = next->input_edge(1);
  } else if (next->op() == "Add" || next->op() == "AddV2") {
    const Edge* a = next->input_edge(0);
    const Edge* b = next->input_edge(1);
    if (a == nullptr || b == nullptr) return false;
    const Edge* other = a->src == root ? b : a;
    Tensor c;
    const int64_t channels = OutputChannels(root);
    if (!IsConst(other->src, &c) || c.dims() != 1 || channels < 0 || c.dim_size(0) != channels) {
      return false;
    }
    p->bias = other;
  } else {
    return false;
  }
  if (p->bias == nullptr || DeviceOf(ctx, p->bias->src) != DeviceOf(ctx, root)) return false;
  p->nodes.push_back(next);
  p->fused_ops.push_back("BiasAdd");
  return true;
}

// Static shapes, symbolic: each unknown dimension of a Placeholder or _Arg is replaced by a value
// of its own that no real dimension has (kSymbolBase + k), which shape inference carries through
// like a known one. Two tensors whose shapes come out fully defined and equal have equal shapes
// at run time (the batch dimension of a network's input reaching both sides of a residual Add,
// say), as with Grappler's symbolic shapes; where every dimension is known this is plain shape
// inference.
constexpr int64_t kSymbolBase = int64_t{1} << 24;

ShapeMap InferSymbolicShapes(const OptimizerContext& ctx, const std::vector<Node*>& order) {
  ShapeMap shapes(static_cast<size_t>(ctx.graph->num_node_ids()));
  int64_t symbols = 0;
  for (Node* n : order) {
    InferShape(ctx, n, &shapes);
    if (n->op() != "Placeholder" && !n->IsArg()) continue;
    for (PartialTensorShape& shape : shapes[n->id()]) {
      if (shape.unknown_rank()) continue;
      std::vector<int64_t> dims = shape.dim_sizes();
      for (int64_t& d : dims) {
        if (d < 0) d = kSymbolBase + symbols++;
      }
      shape = PartialTensorShape(dims);
    }
  }
  return shapes;
}

// Output `output` of `n` in `shapes`, or an unknown shape.
PartialTensorShape ShapeOf(const ShapeMap& shapes, const Node* n, int output) {
  if (n->id() >= static_cast<int>(shapes.size())) return PartialTensorShape();
  const auto& s = shapes[n->id()];
  return output < static_cast<int>(s.size()) ? s[output] : PartialTensorShape();
}

// A residual Add after the bias node: its other input has the bias output's static shape
// (symbolic shapes: InferSymbolicShapes), so that the fused kernel adds it element by element.
// (The kernel checks the shapes again at run time.)
void MatchResidualAdd(const OptimizerContext& ctx, const ShapeMap& shapes, Pattern* p) {
  Node* bias = p->nodes.back();
  if (HasControlOutEdges(bias) || IsFetched(bias)) return;
  Node* add = SoleConsumer(bias);
  if (add == nullptr || (add->op() != "Add" && add->op() != "AddV2")) return;
  if (DeviceOf(ctx, add) != DeviceOf(ctx, bias)) return;
  const Edge* a = add->input_edge(0);
  const Edge* b = add->input_edge(1);
  if (a == nullptr || b == nullptr || (a->src == bias && b->src == bias)) return;
  const Edge* other = a->src == bias ? b : a;
  if (DeviceOf(ctx, other->src) != DeviceOf(ctx, bias)) return;
  const PartialTensorShape mine = ShapeOf(shapes, bias, 0);
  const PartialTensorShape theirs = ShapeOf(shapes, other->src, other->src_output);
  if (!mine.IsFullyDefined() || !theirs.IsFullyDefined() ||
      mine.dim_sizes() != theirs.dim_sizes()) {
    return;
  }
  p->addend = other;
  p->nodes.push_back(add);
  p->fused_ops.push_back("Add");
}

// Whether `node` is a Const float scalar within a float rounding of `value`.
bool IsScalarConst(const Node* node, float value) {
  Tensor t;
  if (!IsConst(node, &t) || t.dtype() != ::tensorflow::DT_FLOAT || t.NumElements() != 1) {
    return false;
  }
  return std::fabs(t.data<float>()[0] - value) <= 1e-7f * std::fabs(value);
}

// The input of binary `node` that is not `known`, or null (also when both are).
const Edge* OtherInput(const Node* node, const Node* known) {
  const Edge* a = node->input_edge(0);
  const Edge* b = node->input_edge(1);
  if (a == nullptr || b == nullptr || (a->src == known) == (b->src == known)) return nullptr;
  return a->src == known ? b : a;
}

// x / 6 or x * (1/6) of `input`: Mul by a Const 1/6 or RealDiv by a Const 6.
bool IsSixth(const Node* node, const Node* input) {
  const Edge* other = OtherInput(node, input);
  if (other == nullptr) return false;
  if (node->op() == "Mul") return IsScalarConst(other->src, 1.0f / 6.0f);
  return node->op() == "RealDiv" && node->input_edge(1) == other && IsScalarConst(other->src, 6);
}

// Hard-swish of `x`, x * relu6(x + 3) / 6, as Keras writes it: Add(x, 3) -> Relu6, then
// Mul(x, that) scaled by 1/6, or the Relu6 scaled by 1/6 and then multiplied by x.
bool MatchHardSwish(const OptimizerContext& ctx, Node* x, Pattern* p) {
  Device* device = DeviceOf(ctx, x);
  Node* add = nullptr;
  for (const Edge* e : x->out_edges()) {
    if (e->dst->op() == "Add" || e->dst->op() == "AddV2") add = e->dst;
  }
  if (add == nullptr) return false;
  const Edge* three = OtherInput(add, x);
  if (three == nullptr || !IsScalarConst(three->src, 3)) return false;
  Node* relu6 = SoleConsumer(add);
  if (relu6 == nullptr || relu6->op() != "Relu6") return false;
  Node* first = SoleConsumer(relu6);
  if (first == nullptr) return false;
  Node* second = SoleConsumer(first);
  if (second == nullptr) return false;
  const bool product_first = first->op() == "Mul" && OtherInput(first, relu6) != nullptr &&
                             OtherInput(first, relu6)->src == x && IsSixth(second, first);
  const bool scale_first = IsSixth(first, relu6) && second->op() == "Mul" &&
                           OtherInput(second, first) != nullptr &&
                           OtherInput(second, first)->src == x;
  if (!product_first && !scale_first) return false;
  for (Node* n : {add, relu6, first, second}) {
    if (DeviceOf(ctx, n) != device) return false;
  }
  p->nodes.insert(p->nodes.end(), {add, relu6, first, second});
  p->fused_ops.push_back("_FusedHardSwish");
  return true;
}

// The activation after the bias (or residual Add) node, if any; swish is Sigmoid(x) and
// Mul(x, that).
void MatchActivation(const OptimizerContext& ctx, Pattern* p) {
  Node* bias = p->nodes.back();
  Device* device = DeviceOf(ctx, bias);
  if (HasControlOutEdges(bias) || IsFetched(bias)) return;
  if (Node* act = SoleConsumer(bias)) {
    if (!IsFusableActivation(act->op()) || DeviceOf(ctx, act) != device) return;
    if (act->op() == "LeakyRelu") {
      float alpha = 0.2f;
      if (!GetNodeAttrOr(act->def(), "alpha", &alpha).ok() || alpha > 1.0f) return;
      p->leakyrelu_alpha = alpha;
    }
    p->nodes.push_back(act);
    p->fused_ops.push_back(act->op());
    return;
  }
  if (bias->out_edges().size() != 2 || p->addend != nullptr) return;
  if (MatchHardSwish(ctx, bias, p)) return;
  // Swish: exactly two readers, a Sigmoid whose sole reader is the Mul, and that Mul. Keras
  // (tf-keras 2.13 on) writes x * sigmoid(beta * x) with beta a Const 1: then the Sigmoid reads
  // Mul(beta, x) instead of x.
  Node* sigmoid = nullptr;
  Node* scaled = nullptr;  // Mul(1, x), or null
  Node* mul = nullptr;
  for (const Edge* e : bias->out_edges()) {
    Node* dst = e->dst;
    if (dst->op() == "Sigmoid") sigmoid = dst;
    if (dst->op() != "Mul") continue;
    Node* next = SoleConsumer(dst);
    const Edge* other = OtherInput(dst, bias);
    if (next != nullptr && next->op() == "Sigmoid" && other != nullptr &&
        IsScalarConst(other->src, 1.0f)) {
      scaled = dst;
      sigmoid = next;
    } else {
      mul = dst;
    }
  }
  if (sigmoid == nullptr || mul == nullptr || SoleConsumer(sigmoid) != mul) return;
  if (OtherInput(mul, bias) == nullptr || OtherInput(mul, bias)->src != sigmoid) return;
  for (Node* n : {scaled, sigmoid, mul}) {
    if (n != nullptr && DeviceOf(ctx, n) != device) return;
  }
  if (scaled != nullptr) p->nodes.push_back(scaled);
  p->nodes.push_back(sigmoid);
  p->nodes.push_back(mul);
  p->fused_ops.push_back("_MklSwish");
}

// Replaces `nodes` (in data order: the last one's output is what the others make) by `def` on
// `device`, which reads `sources` ((node, output) each) in order. Control edges into any of the
// nodes and out of the last one, and the last one's readers, move to the new node.
StatusOr<Node*> ReplaceNodes(OptimizerContext* ctx, const std::vector<Node*>& nodes,
                             ::tensorflow::NodeDef def, Device* device,
                             const std::vector<std::pair<Node*, int>>& sources) {
  Graph* graph = ctx->graph;
  Node* last = nodes.back();
  std::vector<Node*> controls_in, controls_out;
  std::vector<std::pair<Node*, int>> readers;
  for (Node* n : nodes) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControl()) controls_in.push_back(e->src);
    }
  }
  for (const Edge* e : last->out_edges()) {
    if (e->IsControl()) {
      controls_out.push_back(e->dst);
    } else {
      readers.push_back({e->dst, e->dst_input});
    }
  }
  for (Node* n : nodes) graph->RemoveNode(n);
  GRT_ASSIGN_OR_RETURN(Node * fused, AddNodeOnDevice(ctx, std::move(def), device));
  for (size_t i = 0; i < sources.size(); ++i) {
    graph->AddEdge(sources[i].first, sources[i].second, fused, static_cast<int>(i));
  }
  for (Node* c : controls_in) graph->AddControlEdge(c, fused);
  for (Node* c : controls_out) graph->AddControlEdge(fused, c);
  for (const auto& [dst, slot] : readers) graph->AddEdge(fused, 0, dst, slot);
  return fused;
}

// Replaces the pattern rooted at `root` by its fused node.
Status Fuse(OptimizerContext* ctx, Node* root, const Pattern& p, ShapeMap* shapes,
            std::vector<RewriteRecord>* records) {
  Node* last = p.nodes.back();
  Device* device = DeviceOf(*ctx, root);
  ::tensorflow::NodeDef def;
  def.set_name(last->name());
  def.set_op(FusedOpFor(root->op()));
  def.set_device(last->def().device());
  for (const char* attr : {"T", "strides", "padding", "explicit_paddings", "data_format",
                           "dilations", "use_cudnn_on_gpu", "transpose_a", "transpose_b"}) {
    if (const ::tensorflow::AttrValue* v = FindAttr(root->def(), attr)) {
      (*def.mutable_attr())[attr] = *v;
    }
  }
  SetNodeAttr(&def, "num_args", int64_t{p.addend == nullptr ? 1 : 2});
  SetNodeAttr(&def, "leakyrelu_alpha", p.leakyrelu_alpha);
  ::tensorflow::AttrValue fused_ops, replaced_attr;
  for (const std::string& op : p.fused_ops) fused_ops.mutable_list()->add_s(op);
  (*def.mutable_attr())["fused_ops"] = fused_ops;
  if (!KernelRegistry::Global()->Supports(device->device_type(), def)) return Status::OK();

  RewriteRecord record{"remapping", last->name(), def.op(), {}, {}};
  for (Node* n : p.nodes) {
    record.replaced.push_back(n->name());
    record.replaced_ops.push_back(n->op());
    replaced_attr.mutable_list()->add_s(Describe(n));
  }
  (*def.mutable_attr())[kReplacedAttr] = replaced_attr;

  // What the fused node reads, before the pattern's nodes go.
  const Edge* input = root->input_edge(0);
  const Edge* filter = root->input_edge(1);
  if (input == nullptr || filter == nullptr) return Status::OK();
  std::vector<std::pair<Node*, int>> sources = {{input->src, input->src_output},
                                                {filter->src, filter->src_output},
                                                {p.bias->src, p.bias->src_output}};
  if (p.addend != nullptr) sources.push_back({p.addend->src, p.addend->src_output});
  std::vector<PartialTensorShape> out_shapes;
  if (last->id() < static_cast<int>(shapes->size())) out_shapes = (*shapes)[last->id()];
  GRT_ASSIGN_OR_RETURN(Node * fused, ReplaceNodes(ctx, p.nodes, std::move(def), device, sources));
  // A later residual Add may read the fused node: it has the shape of the node it replaced.
  shapes->resize(static_cast<size_t>(ctx->graph->num_node_ids()));
  (*shapes)[fused->id()] = out_shapes;
  records->push_back(std::move(record));
  return Status::OK();
}

// Pad (zeros, Const paddings) before a VALID or EXPLICIT NHWC convolution: the convolution pads
// instead (explicit_paddings), so the padded copy of the input is never made.
Status FoldPadIntoConv(OptimizerContext* ctx, Node* conv, std::vector<RewriteRecord>* records) {
  if (conv->op() != "Conv2D" && conv->op() != "DepthwiseConv2dNative") return Status::OK();
  const Edge* in = conv->input_edge(0);
  if (in == nullptr || in->src_output != 0) return Status::OK();
  Node* pad = in->src;
  std::vector<int64_t> paddings;
  if (SoleConsumer(pad) != conv || HasControlInEdges(pad) || !ZeroPadding(pad, &paddings) ||
      DeviceOf(*ctx, pad) != DeviceOf(*ctx, conv)) {
    return Status::OK();
  }
  std::string format = "NHWC";
  if (!GetNodeAttrOr(conv->def(), "data_format", &format).ok() || format != "NHWC" ||
      !AddConvPaddings(conv, &paddings)) {
    return Status::OK();
  }
  const Edge* source = pad->input_edge(0);
  if (source == nullptr) return Status::OK();
  ::tensorflow::NodeDef* def = conv->mutable_def();
  SetNodeAttr(def, "padding", "EXPLICIT");
  SetNodeAttr(def, "explicit_paddings", paddings);
  Node* src = source->src;
  const int src_output = source->src_output;
  RewriteRecord record{
      "remapping", conv->name(), conv->op(), {pad->name(), conv->name()}, {pad->op(), conv->op()}};
  RemoveNodeAndDeadConsts(ctx->graph, pad);
  ctx->graph->AddEdge(src, src_output, conv, 0);
  records->push_back(std::move(record));
  return Status::OK();
}

// Whether `node` (a fused convolution) is float NHWC with a 4-D Const filter, which *filter
// receives, and `num_args` epilogue arguments (*num_args) whose first fused op is BiasAdd.
bool FloatNhwcFusedConv(const Node* node, Tensor* filter, int64_t* num_args) {
  DataType t = ::tensorflow::DT_INVALID;
  std::string format = "NHWC";
  std::vector<std::string> fused_ops;
  return GetNodeAttr(node->def(), "T", &t).ok() && t == ::tensorflow::DT_FLOAT &&
         GetNodeAttrOr(node->def(), "data_format", &format).ok() && format == "NHWC" &&
         GetNodeAttr(node->def(), "num_args", num_args).ok() &&
         GetNodeAttr(node->def(), "fused_ops", &fused_ops).ok() && !fused_ops.empty() &&
         fused_ops[0] == "BiasAdd" && IsConst(InputNode(node, 1), filter) && filter->dims() == 4;
}

// FloatNhwcFusedConv with a bias and at most an activation after it: no residual Add.
bool PlainFusedConv(const Node* node, Tensor* filter) {
  int64_t num_args = 0;
  return FloatNhwcFusedConv(node, filter, &num_args) && num_args == 1;
}

// Whether `node`'s window is 1x1 in effect: unit strides and dilations, no padding.
bool UnitWindow(const Node* node) {
  std::vector<int64_t> strides, dilations = {1, 1, 1, 1}, paddings;
  if (!GetNodeAttr(node->def(), "strides", &strides).ok() ||
      !GetNodeAttrOr(node->def(), "dilations", &dilations).ok() ||
      !GetNodeAttrOr(node->def(), "explicit_paddings", &paddings).ok()) {
    return false;
  }
  auto all = [](const std::vector<int64_t>& v, int64_t value) {
    return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == value; });
  };
  return strides.size() == 4 && dilations.size() == 4 && all(strides, 1) && all(dilations, 1) &&
         all(paddings, 0);
}

// A _FusedConv2D with a 1x1 filter of unit strides and no padding, as FloatNhwcFusedConv.
bool PointwiseFusedConv(const Node* node, Tensor* filter, int64_t* num_args) {
  return node->op() == "_FusedConv2D" && FloatNhwcFusedConv(node, filter, num_args) &&
         filter->dim_size(0) == 1 && filter->dim_size(1) == 1 && UnitWindow(node);
}

// `producer`, whose only reader is `consumer` (through input 0), and `consumer` become `def`
// (named after the consumer, on its device), which reads `inputs` ((node, input) of the two).
Status FusePair(OptimizerContext* ctx, Node* producer, Node* consumer, ::tensorflow::NodeDef def,
                const std::vector<std::pair<Node*, int>>& inputs,
                std::vector<RewriteRecord>* records) {
  Device* device = DeviceOf(*ctx, consumer);
  if (device == nullptr || DeviceOf(*ctx, producer) != device ||
      SoleConsumer(producer) != consumer || IsFetched(producer) || HasControlOutEdges(producer)) {
    return Status::OK();
  }
  def.set_name(consumer->name());
  def.set_device(consumer->def().device());
  if (!KernelRegistry::Global()->Supports(device->device_type(), def)) return Status::OK();
  // The fused node lists what it stands for: what each of the two replaced, else itself.
  ::tensorflow::AttrValue replaced_attr;
  RewriteRecord record{"remapping", consumer->name(), def.op(), {}, {}};
  for (Node* n : {producer, consumer}) {
    auto made = std::find_if(records->rbegin(), records->rend(), [&](const RewriteRecord& r) {
      return r.node == n->name() && r.op == n->op();
    });
    if (made != records->rend()) {
      record.replaced.insert(record.replaced.end(), made->replaced.begin(), made->replaced.end());
      record.replaced_ops.insert(record.replaced_ops.end(), made->replaced_ops.begin(),
                                 made->replaced_ops.end());
    } else {
      record.replaced.push_back(n->name());
      record.replaced_ops.push_back(n->op());
    }
    if (const ::tensorflow::AttrValue* before = FindAttr(n->def(), kReplacedAttr)) {
      for (const std::string& r : before->list().s()) replaced_attr.mutable_list()->add_s(r);
    } else {
      replaced_attr.mutable_list()->add_s(Describe(n));
    }
  }
  (*def.mutable_attr())[kReplacedAttr] = replaced_attr;

  std::vector<std::pair<Node*, int>> sources;
  for (const auto& [node, input] : inputs) {
    const Edge* e = node->input_edge(input);
    if (e == nullptr) return Status::OK();
    sources.push_back({e->src, e->src_output});
  }
  GRT_RETURN_IF_ERROR(
      ReplaceNodes(ctx, {producer, consumer}, std::move(def), device, sources).status());
  records->push_back(std::move(record));
  return Status::OK();
}

// A fused convolution's attrs that name its epilogue, and those (with its type and window) that
// the nodes it fuses into keep.
const char* const kEpilogueAttrs[] = {"fused_ops", "num_args", "leakyrelu_alpha"};
const char* const kConvAttrs[] = {
    "T",         "strides",   "padding",  "explicit_paddings", "data_format",
    "dilations", "fused_ops", "num_args", "leakyrelu_alpha"};

// Copies `from`'s attrs `names` into def, each name after `prefix`.
template <size_t kCount>
void CopyAttrs(const Node* from, const char* const (&names)[kCount], const char* prefix,
               ::tensorflow::NodeDef* def) {
  for (const char* name : names) {
    if (const ::tensorflow::AttrValue* v = FindAttr(from->def(), name)) {
      (*def->mutable_attr())[std::string(prefix) + name] = *v;
    }
  }
}

// A float Mul whose only reader is a 1x1 _FusedConv2D of unit strides and no padding (`conv`):
// one _GraphrtFusedChannelScaledConv2D, named after the convolution. Its kernel takes the Mul's
// operands in their order and, where one is an NHWC tensor and the other one scale per image
// (or for all images) and channel ([N or 1, 1, 1, C], as a squeeze-and-excitation block's
// sigmoid is), scales the filter's rows or the input as it goes instead of making the product
// (sum over c of x[c] * (s[c] * w[c][o]) where that is cheaper, which rounds differently from
// (x[c] * s[c]) * w[c][o] by an ulp or so of each product); any other operands it multiplies
// out first, as the Mul would. Fused only where the static shapes do not rule the fast case
// out (those of a Keras squeeze-and-excitation block are often unknown: its Reshape takes a
// computed shape).
Status FuseChannelScale(OptimizerContext* ctx, const ShapeMap& shapes, Node* conv,
                        std::vector<RewriteRecord>* records) {
  Tensor filter;
  int64_t num_args = 0;
  if (!PointwiseFusedConv(conv, &filter, &num_args)) return Status::OK();
  const Edge* in = conv->input_edge(0);
  if (in == nullptr || in->src_output != 0 || in->src->op() != "Mul") return Status::OK();
  Node* mul = in->src;
  DataType mul_t = ::tensorflow::DT_INVALID;
  const Edge* a = mul->input_edge(0);
  const Edge* b = mul->input_edge(1);
  if (!GetNodeAttr(mul->def(), "T", &mul_t).ok() || mul_t != ::tensorflow::DT_FLOAT ||
      a == nullptr || b == nullptr) {
    return Status::OK();
  }
  // Whether s may be one scale per image and channel of x ([N or 1, 1, 1, C]).
  auto may_scale = [](const PartialTensorShape& x, const PartialTensorShape& s) {
    if (s.unknown_rank()) return true;
    if (s.dims() != 4) return false;
    for (int d = 1; d <= 2; ++d) {
      if (s.dim_size(d) > 1) return false;
    }
    return x.unknown_rank() || (x.dims() == 4 && (x.dim_size(1) != 1 || x.dim_size(2) != 1));
  };
  const PartialTensorShape sa = ShapeOf(shapes, a->src, a->src_output);
  const PartialTensorShape sb = ShapeOf(shapes, b->src, b->src_output);
  if (!may_scale(sa, sb) && !may_scale(sb, sa)) return Status::OK();
  ::tensorflow::NodeDef def;
  def.set_op("_GraphrtFusedChannelScaledConv2D");
  CopyAttrs(conv, kConvAttrs, "", &def);
  // Inputs: the Mul's two, the filter, then the convolution's arguments.
  std::vector<std::pair<Node*, int>> inputs = {{mul, 0}, {mul, 1}, {conv, 1}};
  for (int i = 0; i < num_args; ++i) inputs.push_back({conv, 2 + i});
  return FusePair(ctx, mul, conv, std::move(def), inputs, records);
}

// A 1x1 _FusedConv2D of unit strides and no padding whose only reader is a
// _FusedDepthwiseConv2dNative with multiplier 1 (`dw`), both without a residual: one
// _GraphrtFusedExpandDepthwise, named after the depthwise node, that never makes the expanded
// tensor whole.
Status FuseExpandDepthwise(OptimizerContext* ctx, Node* dw, std::vector<RewriteRecord>* records) {
  Tensor dw_filter, expand_filter;
  if (dw->op() != "_FusedDepthwiseConv2dNative" || !PlainFusedConv(dw, &dw_filter) ||
      dw_filter.dim_size(3) != 1) {
    return Status::OK();
  }
  const Edge* in = dw->input_edge(0);
  if (in == nullptr || in->src_output != 0 || in->src->op() != "_FusedConv2D") return Status::OK();
  Node* expand = in->src;
  int64_t expand_args = 0;
  if (!PointwiseFusedConv(expand, &expand_filter, &expand_args) || expand_args != 1 ||
      expand_filter.dim_size(3) != dw_filter.dim_size(2)) {
    return Status::OK();
  }
  ::tensorflow::NodeDef def;
  def.set_op("_GraphrtFusedExpandDepthwise");
  CopyAttrs(dw, kConvAttrs, "", &def);
  CopyAttrs(expand, kEpilogueAttrs, "expand_", &def);
  // Inputs: the expansion's input, filter and bias, then the depthwise filter and bias.
  return FusePair(ctx, expand, dw, std::move(def),
                  {{expand, 0}, {expand, 1}, {expand, 2}, {dw, 1}, {dw, 2}}, records);
}

// A _GraphrtFusedExpandDepthwise whose only reader is a 1x1 _FusedConv2D of unit strides and no
// padding (`project`, with a bias, optional residual Add and activation): one
// _GraphrtFusedInvertedResidual, named after the projection, that never makes the depthwise
// output whole either.
Status FuseProjection(OptimizerContext* ctx, Node* project, std::vector<RewriteRecord>* records) {
  int64_t num_args = 0;
  Tensor filter;
  if (!PointwiseFusedConv(project, &filter, &num_args) || num_args < 1 || num_args > 2) {
    return Status::OK();
  }
  const Edge* in = project->input_edge(0);
  if (in == nullptr || in->src_output != 0 || in->src->op() != "_GraphrtFusedExpandDepthwise") {
    return Status::OK();
  }
  Node* block = in->src;
  ::tensorflow::NodeDef def;
  def.set_op("_GraphrtFusedInvertedResidual");
  // The block's attrs (the fused node lists what it replaced itself), then the projection's
  // epilogue.
  *def.mutable_attr() = block->def().attr();
  def.mutable_attr()->erase(kReplacedAttr);
  CopyAttrs(project, kEpilogueAttrs, "project_", &def);
  // Inputs: the block's five, then the projection's filter and arguments.
  std::vector<std::pair<Node*, int>> inputs = {{block, 0}, {block, 1}, {block, 2},
                                               {block, 3}, {block, 4}, {project, 1}};
  for (int i = 0; i < num_args; ++i) inputs.push_back({project, 2 + i});
  return FusePair(ctx, block, project, std::move(def), inputs, records);
}

// fn(node) for the graph's nodes of `op` in topological order, those a call removed skipped.
template <typename Fn>
Status ForEachOf(OptimizerContext* ctx, const std::string& op, Fn fn) {
  std::vector<int> ids;
  for (Node* n : TopologicalOrder(*ctx->graph)) {
    if (n->op() == op) ids.push_back(n->id());
  }
  for (int id : ids) {
    Node* n = ctx->graph->node(id);
    if (n != nullptr) GRT_RETURN_IF_ERROR(fn(n));
  }
  return Status::OK();
}

}  // namespace

Status Remap(OptimizerContext* ctx, std::vector<RewriteRecord>* records) {
  // By id: nodes fused earlier are gone (their pointers dangle), the order lists them still.
  std::vector<int> ids;
  const std::vector<Node*> order = TopologicalOrder(*ctx->graph);
  for (Node* n : order) ids.push_back(n->id());
  ShapeMap shapes = InferSymbolicShapes(*ctx, order);
  for (int id : ids) {
    Node* root = ctx->graph->node(id);
    if (root == nullptr || FusedOpFor(root->op()) == nullptr) continue;
    DataType t = ::tensorflow::DT_INVALID;
    if (!GetNodeAttr(root->def(), "T", &t).ok() || t != ::tensorflow::DT_FLOAT) continue;
    if (DeviceOf(*ctx, root) == nullptr) continue;
    GRT_RETURN_IF_ERROR(FoldPadIntoConv(ctx, root, records));
    if (HasControlOutEdges(root) || IsFetched(root)) continue;
    std::string format = "NHWC";
    if (!GetNodeAttrOr(root->def(), "data_format", &format).ok() || format != "NHWC") continue;
    Pattern p;
    p.nodes.push_back(root);
    if (!MatchBias(*ctx, root, &p)) continue;
    MatchResidualAdd(*ctx, shapes, &p);
    MatchActivation(*ctx, &p);
    GRT_RETURN_IF_ERROR(Fuse(ctx, root, p, &shapes, records));
  }
  // Then a per-channel scaling into the 1x1 convolution after it, and the fused convolutions in
  // pairs.
  GRT_RETURN_IF_ERROR(ForEachOf(ctx, "_FusedConv2D", [&](Node* conv) {
    return FuseChannelScale(ctx, shapes, conv, records);
  }));
  GRT_RETURN_IF_ERROR(ForEachOf(ctx, "_FusedDepthwiseConv2dNative",
                                [&](Node* dw) { return FuseExpandDepthwise(ctx, dw, records); }));
  GRT_RETURN_IF_ERROR(ForEachOf(
      ctx, "_FusedConv2D", [&](Node* project) { return FuseProjection(ctx, project, records); }));
  return Status::OK();
}

}  // namespace optimize
}  // namespace graphrt
