// Int8 weights (part of remapping, after the remapper's fusions): a MatMul, _FusedMatMul,
// Conv2D or _FusedConv2D whose weights are
//
//   Dequantize(Const qint8 w, Const min, Const max)  T=qint8, mode=SCALED, narrow_range=true,
//                                                    dtype=float, min = -max,
//                                                    axis = the output channel axis of w
//                                                    (MatMul [k, n]: 1; Conv2D HWIO: 3) with
//                                                    min/max [n], or -1 with one min/max
//
// (what `graphrt quantize --mode int8-dynamic` writes) becomes _GraphrtQuantizedMatMul /
// _GraphrtQuantizedConv2D (runtime/kernels/cpu/int8_ops.cc) on the int8 values themselves; a
// DepthwiseConv2dNative or _FusedDepthwiseConv2dNative with such a filter [h, w, channels, 1]
// (axis 2, multiplier 1) becomes _GraphrtQuantizedDepthwiseConv2D the same way,
// keeping the product's name, fused_ops and arguments. Anything else stays as written (float):
// other modes or types, transposed MatMuls, NCHW, a grouped convolution, weights that are not
// Consts or that something else reads too, nodes on different devices, or a device without the
// int8 kernels. Constant folding leaves such a Dequantize alone when remapping is on
// (IsInt8WeightsDequantize), so that the int8 values reach this pass.
//
// Static activation ranges: where the product's input is
//
//   Dequantize(QuantizeV2(x, Const min, Const max))  both T=quint8, mode=MIN_FIRST; QuantizeV2
//                                                    with round_mode HALF_AWAY_FROM_ZERO, axis -1,
//                                                    not narrow_range; Dequantize's three inputs
//                                                    QuantizeV2's three outputs
//
// (what `graphrt quantize --mode int8-static` writes), the int8 node reads x itself, with attrs
// input_min / input_max the range QuantizeV2 quantizes in (widened to hold 0 and to
// ensure_minimum_range as QuantizeV2 widens it), and its kernel makes QuantizeV2's codes. The
// pair is removed (and listed as replaced) when only such int8 nodes read it. A zero Pad (Const
// paddings) before the QuantizeV2 of a VALID or EXPLICIT convolution, read by nothing else, is
// folded into the convolution's explicit padding, as the remapper folds it for float ones:
// zero's code is the zero point (the calibrated ranges hold 0 exactly), which is what the int8
// kernels pad with.
//
// Codes between int8 nodes: an int8 node whose output only int8 nodes read, each as its input
// (input 0) in one and the same static range, writes that range's codes (Toutput quint8,
// output_min / output_max) and they read them (Tinput quint8): the values that went from one to
// the next in float and were quantized on arrival are quantized as they are made, and no float
// tensor passes between them. The codes are the same either way.
//
// The codes also pass through code-transparent float ops, which commute with quantizing in one
// range: MaxPool and MaxPoolV2 (the quantization map is monotone, so the max of the codes is the
// code of the max, ties and clamping included), ConcatV2 (each value's code is copied),
// Identity, Reshape, Squeeze and ExpandDims, and a zero Pad where the range starts at 0 (after a
// Relu), so that 0's code is the 0 Pad writes. A region is such ops connected through their value
// inputs (not shapes, axes, paddings or windows), the int8 nodes that make those values and the
// int8 nodes that read them: where every value going in comes from an int8 node's float output,
// everything that reads a value in the region is in it or an int8 node taking it as input 0 in one
// range R, all on one device and nothing fetched, the makers write R's codes, the ops run on them
// (T quint8) and the readers take them; otherwise the region stays float. An int8 node can read one
// region and write another. (Only a window holding NaN can pool differently: NaN's code is 0,
// where float max may keep the NaN.)
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/optimize/optimizer_util.h"

namespace graphrt {
namespace optimize {

namespace {

const char* Int8OpFor(const std::string& op) {
  if (op == "MatMul" || op == "_FusedMatMul") return "_GraphrtQuantizedMatMul";
  if (op == "Conv2D" || op == "_FusedConv2D") return "_GraphrtQuantizedConv2D";
  if (op == "DepthwiseConv2dNative" || op == "_FusedDepthwiseConv2dNative") {
    return "_GraphrtQuantizedDepthwiseConv2D";
  }
  return nullptr;
}

// The product's attrs that the int8 op takes over, where present.
constexpr const char* kCopiedAttrs[] = {"strides",   "padding",  "explicit_paddings", "dilations",
                                        "fused_ops", "num_args", "leakyrelu_alpha"};

bool AttrIs(const Node* node, const char* name, const std::string& value) {
  std::string s;
  return GetNodeAttr(node->def(), name, &s).ok() && s == value;
}

// Whether the fused_ops / num_args of `product` (empty for a plain one) are an epilogue the
// int8 kernels run: BiasAdd, an optional residual Add, at most one activation.
bool EpilogueFits(const Node* product) {
  std::vector<std::string> ops;
  int64_t num_args = 0;
  if (!GetNodeAttrOr(product->def(), "fused_ops", &ops).ok() ||
      !GetNodeAttrOr(product->def(), "num_args", &num_args).ok()) {
    return false;
  }
  if (ops.empty()) return num_args == 0;
  const bool residual = ops.size() >= 2 && ops[1] == "Add";
  return ops[0] == "BiasAdd" && num_args == (residual ? 2 : 1) && ops.size() <= (residual ? 3 : 2);
}

// The Dequantize that gives `product` its int8 weights as described above, or null.
Node* MatchInt8Weights(const OptimizerContext& ctx, const Node* product) {
  if (Int8OpFor(product->op()) == nullptr) return nullptr;
  Device* device = DeviceOf(ctx, product);
  DataType t = ::tensorflow::DT_INVALID;
  if (device == nullptr || !GetNodeAttr(product->def(), "T", &t).ok() ||
      t != ::tensorflow::DT_FLOAT || !EpilogueFits(product)) {
    return nullptr;
  }
  const bool matmul = Int8OpFor(product->op()) == std::string("_GraphrtQuantizedMatMul");
  if (matmul) {
    bool transpose_a = false, transpose_b = false;
    if (!GetNodeAttrOr(product->def(), "transpose_a", &transpose_a).ok() ||
        !GetNodeAttrOr(product->def(), "transpose_b", &transpose_b).ok() || transpose_a ||
        transpose_b) {
      return nullptr;
    }
  } else {
    std::string format = "NHWC";
    if (!GetNodeAttrOr(product->def(), "data_format", &format).ok() || format != "NHWC") {
      return nullptr;
    }
  }
  const Edge* edge = product->input_edge(1);
  if (edge == nullptr || edge->src_output != 0) return nullptr;
  Node* dq = edge->src;
  if (dq->op() != "Dequantize" || SoleDataConsumer(dq) != product || HasControlInEdges(dq) ||
      DeviceOf(ctx, dq) != device) {
    return nullptr;
  }
  DataType qt = ::tensorflow::DT_INVALID, dtype = ::tensorflow::DT_FLOAT;
  bool narrow_range = false;
  int64_t axis = -1;
  if (!GetNodeAttr(dq->def(), "T", &qt).ok() || qt != ::tensorflow::DT_QINT8 ||
      !AttrIs(dq, "mode", "SCALED") ||
      !GetNodeAttrOr(dq->def(), "narrow_range", &narrow_range).ok() || !narrow_range ||
      !GetNodeAttrOr(dq->def(), "dtype", &dtype).ok() || dtype != ::tensorflow::DT_FLOAT ||
      !GetNodeAttrOr(dq->def(), "axis", &axis).ok()) {
    return nullptr;
  }
  Tensor w, min, max;
  for (int i = 0; i < 3; ++i) {
    Node* in = InputNode(dq, i);
    if (!IsConst(in, i == 0 ? &w : i == 1 ? &min : &max) || DeviceOf(ctx, in) != device) {
      return nullptr;
    }
  }
  const bool depthwise =
      Int8OpFor(product->op()) == std::string("_GraphrtQuantizedDepthwiseConv2D");
  const int rank = matmul ? 2 : 4;
  const int64_t channel_axis = matmul ? 1 : depthwise ? 2 : 3;
  if (w.dtype() != ::tensorflow::DT_QINT8 || w.dims() != rank || w.NumElements() == 0 ||
      (axis != channel_axis && axis != -1)) {
    return nullptr;
  }
  if (depthwise && w.dim_size(3) != 1) return nullptr;  // a multiplier above 1 stays float
  const int64_t ranges = axis == -1 ? 1 : w.dim_size(channel_axis);
  for (const Tensor* m : {&min, &max}) {
    const bool shape_ok =
        axis == -1 ? m->NumElements() == 1 : (m->dims() == 1 && m->dim_size(0) == ranges);
    if (m->dtype() != ::tensorflow::DT_FLOAT || !shape_ok) return nullptr;
  }
  for (int64_t j = 0; j < ranges; ++j) {
    const float lo = min.data<float>()[j], hi = max.data<float>()[j];
    if (!(hi >= 0.0f) || !std::isfinite(hi) || lo != -hi) return nullptr;
  }
  return dq;
}

// An int8-static activation quantization feeding a product (see the top of the file).
struct StaticInput {
  Node* dequantize = nullptr;
  Node* quantize = nullptr;
  float min = 0.0f, max = 0.0f;  // the range QuantizeV2 quantizes in
  // A zero Pad that QuantizeV2 reads and a convolution can do itself, with its [4, 2] paddings.
  Node* pad = nullptr;
  std::vector<int64_t> paddings;
};

// Whether input 0 of `product` is Dequantize(QuantizeV2(x, Const, Const)) as described at the top.
bool MatchStaticInput(const OptimizerContext& ctx, const Node* product, StaticInput* out) {
  Device* device = DeviceOf(ctx, product);
  const Edge* edge = product->input_edge(0);
  if (edge == nullptr || edge->src_output != 0) return false;
  Node* dq = edge->src;
  if (dq->op() != "Dequantize" || HasControlInEdges(dq) || DeviceOf(ctx, dq) != device) {
    return false;
  }
  DataType t = ::tensorflow::DT_INVALID, dtype = ::tensorflow::DT_FLOAT;
  int64_t axis = -1;
  if (!GetNodeAttr(dq->def(), "T", &t).ok() || t != ::tensorflow::DT_QUINT8 ||
      !AttrIs(dq, "mode", "MIN_FIRST") || !GetNodeAttrOr(dq->def(), "dtype", &dtype).ok() ||
      dtype != ::tensorflow::DT_FLOAT || !GetNodeAttrOr(dq->def(), "axis", &axis).ok() ||
      axis != -1) {
    return false;
  }
  Node* qv = InputNode(dq, 0);
  if (qv == nullptr || qv->op() != "QuantizeV2" || HasControlInEdges(qv) ||
      DeviceOf(ctx, qv) != device) {
    return false;
  }
  for (const Edge* e : dq->in_edges()) {
    if (e->IsControl() || e->src != qv || e->src_output != e->dst_input) return false;
  }
  std::string round_mode = "HALF_AWAY_FROM_ZERO";
  bool narrow_range = false;
  int64_t q_axis = -1;
  float minimum_range = 0.01f;  // TensorFlow's default
  if (!GetNodeAttr(qv->def(), "T", &t).ok() || t != ::tensorflow::DT_QUINT8 ||
      !AttrIs(qv, "mode", "MIN_FIRST") ||
      !GetNodeAttrOr(qv->def(), "round_mode", &round_mode).ok() ||
      round_mode != "HALF_AWAY_FROM_ZERO" ||
      !GetNodeAttrOr(qv->def(), "narrow_range", &narrow_range).ok() || narrow_range ||
      !GetNodeAttrOr(qv->def(), "axis", &q_axis).ok() || q_axis != -1 ||
      !GetNodeAttrOr(qv->def(), "ensure_minimum_range", &minimum_range).ok()) {
    return false;
  }
  Tensor lo, hi;
  if (qv->input_edge(0) == nullptr || !IsConst(InputNode(qv, 1), &lo) ||
      !IsConst(InputNode(qv, 2), &hi)) {
    return false;
  }
  for (const Tensor* m : {&lo, &hi}) {
    if (m->dtype() != ::tensorflow::DT_FLOAT || m->NumElements() != 1) return false;
  }
  const float in_min = lo.data<float>()[0], in_max = hi.data<float>()[0];
  if (!std::isfinite(in_min) || !std::isfinite(in_max) || in_min > in_max) return false;
  // QuantizeV2's widening (quantized_convert_ops.cc), term for term.
  out->min = std::min(0.0f, in_min);
  const float epsilon =
      std::max(1.0f, std::max(std::fabs(in_min), std::fabs(in_max))) * minimum_range;
  out->max = std::max(0.0f, std::max(in_max, out->min + epsilon));
  if (!std::isfinite(out->max)) return false;
  out->dequantize = dq;
  out->quantize = qv;
  Node* x = InputNode(qv, 0);
  if (x != nullptr && SoleConsumer(x) == qv && !HasControlInEdges(x) &&
      DeviceOf(ctx, x) == device && ZeroPadding(x, &out->paddings)) {
    out->pad = x;
  }
  return true;
}

// The paddings of `product` with `pad`'s added, or false where the product cannot take them: a
// MatMul, or SAME padding.
bool PaddingsWithPad(const Node* product, const StaticInput& in, std::vector<int64_t>* out) {
  if (in.pad == nullptr || Int8OpFor(product->op()) == std::string("_GraphrtQuantizedMatMul")) {
    return false;
  }
  *out = in.paddings;
  return AddConvPaddings(product, out);
}

// Whether only `bypassing` nodes read the pair of `in` (through the Dequantize's output 0).
bool PairOnlyFeeds(const StaticInput& in, const std::set<const Node*>& bypassing) {
  for (const Edge* e : in.dequantize->out_edges()) {
    if (e->IsControl() || e->src_output != 0 || bypassing.count(e->dst) == 0) return false;
  }
  for (const Edge* e : in.quantize->out_edges()) {
    if (e->IsControl() || e->dst != in.dequantize) return false;
  }
  return true;
}

// The input depth of `conv` where its static shape tells, else -1.
int64_t InputDepth(const ShapeMap& shapes, const Node* conv) {
  const Edge* in = conv->input_edge(0);
  if (in == nullptr || in->src->id() >= static_cast<int>(shapes.size())) return -1;
  const auto& s = shapes[in->src->id()];
  if (in->src_output >= static_cast<int>(s.size())) return -1;
  const PartialTensorShape& shape = s[in->src_output];
  if (shape.unknown_rank() || shape.dims() != 4) return -1;
  return shape.dim_size(3);
}

// Replaces `product` and its Dequantize `dq` by the int8 node; with `in`, the int8 node reads
// `in`'s x in its static range, and lists the pair as replaced where `pair_replaced`. With
// `fold_pad`, it pads as in.pad did and reads the pad's input instead (*pad_folded then true).
Status Rewrite(OptimizerContext* ctx, Node* product, Node* dq, const StaticInput* in,
               bool pair_replaced, bool fold_pad, std::vector<RewriteRecord>* records,
               bool* pad_folded) {
  *pad_folded = false;
  Graph* graph = ctx->graph;
  Device* device = DeviceOf(*ctx, product);
  ::tensorflow::NodeDef def;
  def.set_name(product->name());
  def.set_op(Int8OpFor(product->op()));
  def.set_device(product->def().device());
  for (const char* attr : kCopiedAttrs) {
    if (const ::tensorflow::AttrValue* v = FindAttr(product->def(), attr)) {
      (*def.mutable_attr())[attr] = *v;
    }
  }
  if (FindAttr(def, "num_args") == nullptr) SetNodeAttr(&def, "num_args", int64_t{0});
  int64_t axis = -1;
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(dq->def(), "axis", &axis));
  SetNodeAttr(&def, "axis", axis);
  if (in != nullptr) {
    SetNodeAttr(&def, "input_min", in->min);
    SetNodeAttr(&def, "input_max", in->max);
  }
  std::vector<int64_t> paddings;
  fold_pad = fold_pad && PaddingsWithPad(product, *in, &paddings);
  if (fold_pad) {
    SetNodeAttr(&def, "padding", "EXPLICIT");
    SetNodeAttr(&def, "explicit_paddings", paddings);
  }
  if (!KernelRegistry::Global()->Supports(device->device_type(), def)) return Status::OK();

  // The fused node lists what it stands for: the nodes a fusion already replaced, then the
  // Dequantize.
  ::tensorflow::AttrValue replaced_attr;
  if (const ::tensorflow::AttrValue* before = FindAttr(product->def(), kReplacedAttr)) {
    replaced_attr = *before;
  } else {
    replaced_attr.mutable_list()->add_s(Describe(product));
  }
  replaced_attr.mutable_list()->add_s(Describe(dq));
  RewriteRecord record{"remapping",
                       product->name(),
                       def.op(),
                       {dq->name(), product->name()},
                       {dq->op(), product->op()}};
  if (in != nullptr && pair_replaced) {
    for (Node* n : {fold_pad ? in->pad : nullptr, in->quantize, in->dequantize}) {
      if (n == nullptr) continue;
      replaced_attr.mutable_list()->add_s(Describe(n));
      record.replaced.push_back(n->name());
      record.replaced_ops.push_back(n->op());
    }
  }
  (*def.mutable_attr())[kReplacedAttr] = replaced_attr;

  // Inputs: x, then the Dequantize's three, then the product's fused args.
  struct Source {
    Node* node;
    int output;
  };
  std::vector<Source> sources(4 + static_cast<size_t>(product->num_inputs() - 2), {nullptr, 0});
  for (const Edge* e : product->in_edges()) {
    if (e->IsControl()) continue;
    if (e->dst_input == 0) sources[0] = {e->src, e->src_output};
    if (e->dst_input >= 2) sources[e->dst_input + 2] = {e->src, e->src_output};
  }
  for (const Edge* e : dq->in_edges()) {
    if (!e->IsControl()) sources[1 + e->dst_input] = {e->src, e->src_output};
  }
  if (in != nullptr) {
    // Read now: x's producer may itself have been rewritten into a new node since the match.
    const Edge* x = (fold_pad ? in->pad : in->quantize)->input_edge(0);
    sources[0] = x == nullptr ? Source{nullptr, 0} : Source{x->src, x->src_output};
  }
  for (const Source& s : sources) {
    if (s.node == nullptr) return Status::OK();
  }
  std::vector<Node*> controls_in, controls_out;
  std::vector<std::pair<Node*, int>> readers;
  for (const Edge* e : product->in_edges()) {
    if (e->IsControl()) controls_in.push_back(e->src);
  }
  for (const Edge* e : product->out_edges()) {
    if (e->IsControl()) {
      controls_out.push_back(e->dst);
    } else {
      readers.push_back({e->dst, e->dst_input});
    }
  }
  // What waited for the weights waits for the node that now reads them.
  for (const Edge* e : dq->out_edges()) {
    if (e->IsControl() &&
        std::find(controls_out.begin(), controls_out.end(), e->dst) == controls_out.end()) {
      controls_out.push_back(e->dst);
    }
  }
  graph->RemoveNode(product);
  graph->RemoveNode(dq);
  GRT_ASSIGN_OR_RETURN(Node * node, AddNodeOnDevice(ctx, std::move(def), device));
  for (size_t i = 0; i < sources.size(); ++i) {
    graph->AddEdge(sources[i].node, sources[i].output, node, static_cast<int>(i));
  }
  for (Node* c : controls_in) graph->AddControlEdge(c, node);
  for (Node* c : controls_out) graph->AddControlEdge(node, c);
  for (const auto& [dst, slot] : readers) graph->AddEdge(node, 0, dst, slot);
  records->push_back(std::move(record));
  *pad_folded = fold_pad;
  return Status::OK();
}

bool IsInt8Op(const Node* node) {
  return node->op() == "_GraphrtQuantizedMatMul" || node->op() == "_GraphrtQuantizedConv2D" ||
         node->op() == "_GraphrtQuantizedDepthwiseConv2D";
}

// Whether int8 node `node` takes float input in a static range (its range in *lo, *hi).
bool TakesFloatInRange(const Node* node, float* lo, float* hi) {
  DataType t = ::tensorflow::DT_FLOAT;
  return GetNodeAttrOr(node->def(), "Tinput", &t).ok() && t == ::tensorflow::DT_FLOAT &&
         GetNodeAttr(node->def(), "input_min", lo).ok() &&
         GetNodeAttr(node->def(), "input_max", hi).ok();
}

// The number of leading inputs of `node` that carry its values when it is code-transparent (see
// the top of the file; the rest are shapes, axes or windows), else 0.
int TransparentValueInputs(const Node* node) {
  DataType t = ::tensorflow::DT_INVALID;
  if (!GetNodeAttr(node->def(), "T", &t).ok() || t != ::tensorflow::DT_FLOAT) return 0;
  const std::string& op = node->op();
  if (op == "MaxPool" || op == "MaxPoolV2" || op == "Identity" || op == "Reshape" ||
      op == "Squeeze" || op == "ExpandDims" || op == "Pad") {
    return 1;
  }
  int64_t n = 0;
  if (op == "ConcatV2" && GetNodeAttr(node->def(), "N", &n).ok()) return static_cast<int>(n);
  return 0;
}

// Int8 nodes that write one range's codes, the code-transparent nodes between them and the int8
// nodes that read the codes as their input 0, by name (rebuilding a node makes a new one).
struct CodeRegion {
  std::set<std::string> producers, transparent, readers;
  float lo = 0.0f, hi = 0.0f;
  bool pads = false;  // a Pad's zeros must be code 0 too: lo is 0
};

// Grows the region of int8 node `start`'s output: false (*region partial) where a value in it
// is read or made by anything else, on another device, or in more than one range. A fetch
// reads float, so a fetched node ends the region too.
bool GrowCodeRegion(const OptimizerContext& ctx, Node* start, CodeRegion* region) {
  Device* device = DeviceOf(ctx, start);
  std::vector<Node*> work;
  auto join = [&](Node* n, int output) {
    DataType out_type = ::tensorflow::DT_FLOAT;
    const bool producer = IsInt8Op(n) && GetNodeAttrOr(n->def(), "Toutput", &out_type).ok() &&
                          out_type == ::tensorflow::DT_FLOAT;
    if (output != 0 || DeviceOf(ctx, n) != device ||
        (!producer && TransparentValueInputs(n) == 0)) {
      return false;
    }
    if ((producer ? region->producers : region->transparent).insert(n->name()).second) {
      work.push_back(n);
    }
    region->pads = region->pads || n->op() == "Pad";
    return true;
  };
  if (!join(start, 0)) return false;
  while (!work.empty()) {
    Node* n = work.back();
    work.pop_back();
    for (int i = 0; i < TransparentValueInputs(n); ++i) {
      const Edge* in = n->input_edge(i);
      if (in == nullptr || !join(in->src, in->src_output)) return false;
    }
    for (const Edge* e : n->out_edges()) {
      if (e->IsControl()) continue;
      float lo = 0.0f, hi = 0.0f;
      if (IsInt8Op(e->dst) && e->dst_input == 0 && TakesFloatInRange(e->dst, &lo, &hi) &&
          DeviceOf(ctx, e->dst) == device) {
        if (!region->readers.empty() && (lo != region->lo || hi != region->hi)) return false;
        region->lo = lo;
        region->hi = hi;
        region->readers.insert(e->dst->name());
      } else if (e->dst_input >= TransparentValueInputs(e->dst) || !join(e->dst, 0)) {
        return false;
      }
    }
  }
  return !region->readers.empty() && (!region->pads || region->lo == 0.0f);
}

// Codes between int8 nodes, through code-transparent ops (see the top of the file).
Status ChainCodes(OptimizerContext* ctx) {
  std::map<std::string, Node*> nodes;
  std::vector<Node*> starts;
  for (Node* n : TopologicalOrder(*ctx->graph)) {
    nodes[n->name()] = n;
    if (IsInt8Op(n)) starts.push_back(n);
  }
  // Every region is found on the graph as it came, then its nodes are rebuilt once each with
  // all their changes (an int8 node can read one region and write another).
  std::map<std::string, ::tensorflow::NodeDef> changed;
  std::set<std::string> seen;
  for (Node* start : starts) {
    if (seen.count(start->name()) != 0) continue;
    CodeRegion region;
    const bool grown = GrowCodeRegion(*ctx, start, &region);
    seen.insert(region.producers.begin(), region.producers.end());
    if (!grown) continue;
    std::map<std::string, ::tensorflow::NodeDef> defs;
    auto def_of = [&](const std::string& name) -> ::tensorflow::NodeDef& {
      auto it = defs.find(name);
      if (it != defs.end()) return it->second;
      auto before = changed.find(name);
      return defs[name] = before != changed.end() ? before->second : nodes[name]->def();
    };
    for (const std::string& name : region.producers) {
      SetNodeAttr(&def_of(name), "Toutput", ::tensorflow::DT_QUINT8);
      SetNodeAttr(&def_of(name), "output_min", region.lo);
      SetNodeAttr(&def_of(name), "output_max", region.hi);
    }
    for (const std::string& name : region.transparent) {
      SetNodeAttr(&def_of(name), "T", ::tensorflow::DT_QUINT8);
    }
    for (const std::string& name : region.readers) {
      SetNodeAttr(&def_of(name), "Tinput", ::tensorflow::DT_QUINT8);
    }
    bool supported = true;
    for (const auto& [name, def] : defs) {
      supported = supported && KernelRegistry::Global()->Supports(
                                   DeviceOf(*ctx, nodes[name])->device_type(), def);
    }
    if (!supported) continue;
    for (auto& [name, def] : defs) changed[name] = std::move(def);
  }
  for (auto& [name, def] : changed) {
    GRT_RETURN_IF_ERROR(RebuildNode(ctx, nodes[name], std::move(def)).status());
  }
  return Status::OK();
}

}  // namespace

bool IsInt8WeightsDequantize(const OptimizerContext& ctx, const Node* node) {
  if (node->op() != "Dequantize") return false;
  const Node* product = SoleDataConsumer(node);
  return product != nullptr && MatchInt8Weights(ctx, product) == node;
}

Status RemapInt8Weights(OptimizerContext* ctx, std::vector<RewriteRecord>* records) {
  const std::vector<Node*> order = TopologicalOrder(*ctx->graph);
  ShapeMap shapes(static_cast<size_t>(ctx->graph->num_node_ids()));
  std::vector<Node*> products;
  for (Node* n : order) {
    InferShape(*ctx, n, &shapes);
    if (Int8OpFor(n->op()) != nullptr) products.push_back(n);
  }
  struct Match {
    Node* product;
    Node* dq;
    bool has_static_input;
    StaticInput in;
  };
  std::vector<Match> matches;
  std::set<const Node*> bypassing;  // products that will read x past their QuantizeV2
  for (Node* product : products) {
    Node* dq = MatchInt8Weights(*ctx, product);
    if (dq == nullptr) continue;
    if (Int8OpFor(product->op()) != std::string("_GraphrtQuantizedMatMul")) {
      Tensor w;
      IsConst(InputNode(dq, 0), &w);
      const int64_t depth = InputDepth(shapes, product);
      if (depth >= 0 && depth != w.dim_size(2)) continue;  // grouped: stays float
    }
    Match m{product, dq, false, {}};
    m.has_static_input = MatchStaticInput(*ctx, product, &m.in);
    if (m.has_static_input) bypassing.insert(product);
    matches.push_back(m);
  }
  // Rewrites remove only the product and its own Dequantize, so the other pointers stay valid;
  // the bypassed pairs go last, once nothing reads them.
  std::vector<StaticInput> pairs;
  for (Match& m : matches) {
    const bool pair_replaced = m.has_static_input && PairOnlyFeeds(m.in, bypassing);
    // The pad goes with a pair that only this product reads.
    const bool fold_pad = pair_replaced && m.in.dequantize->out_edges().size() == 1;
    bool pad_folded = false;
    GRT_RETURN_IF_ERROR(Rewrite(ctx, m.product, m.dq, m.has_static_input ? &m.in : nullptr,
                                pair_replaced, fold_pad, records, &pad_folded));
    if (!pad_folded) m.in.pad = nullptr;
    if (pair_replaced) pairs.push_back(m.in);
  }
  std::set<Node*> removed;
  for (const StaticInput& in : pairs) {
    if (removed.count(in.dequantize) != 0 || !in.dequantize->out_edges().empty()) continue;
    ctx->graph->RemoveNode(in.dequantize);
    ctx->graph->RemoveNode(in.quantize);
    if (in.pad != nullptr) RemoveNodeAndDeadConsts(ctx->graph, in.pad);
    removed.insert(in.dequantize);
  }
  return ChainCodes(ctx);
}

}  // namespace optimize
}  // namespace graphrt
