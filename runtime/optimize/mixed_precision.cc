// Auto mixed precision on the CPU, as TensorFlow 2.15's Grappler pass
// (grappler/optimizers/auto_mixed_precision.cc) colours a graph:
//
//   1. allow:  ops on the mode's allow list (MatMul, Conv2D, ...).
//   2. deny:   ops on the deny list, and the infer/clear ops on a forward path from one to an
//              infer op (with the infer op).
//   3. infer and clear ops on a path from an allow op to an allow op join them;
//   4. (bfloat16 only) infer ops that follow allow ops join them (TensorFlow leaves this step out
//      in its float16 modes, which emulate CUDA's lists);
//   5. clear ops reached from allow ops through clear ops (either way) join them.
//
// Every joined node computes in the reduced type: its float32 "T" becomes float16/bfloat16, a
// Cast to that type is added on each input that comes from outside the set (one per tensor), and a
// Cast back to float32 on each output read outside it. The float16 mode uses TensorFlow's CUDA
// lists (its CPU mode emulates a GPU), bfloat16 the oneDNN lists; both as of TensorFlow 2.15.1,
// including its quirks (no BatchMatMulV3; the oneDNN infer list misses Sum and Tanh, which a
// missing comma in TensorFlow fuses into one name).
//
// A node joins only if it runs on a CPU device, its "T" is float32, it is not fetched (TensorFlow
// preserves fetch nodes; a fed tensor is an _Arg, never rewritten) and graphrt has a CPU kernel
// for it in the reduced type; graphrt's half and bfloat16 kernels widen to float and round their
// result, which is what TensorFlow's float16 emulation on the CPU computes.
#include <map>
#include <set>
#include <tuple>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/ops/op_registry.h"
#include "runtime/optimize/optimizer_util.h"

namespace graphrt {
namespace optimize {
namespace {

using OpSet = std::set<std::string>;

struct OpLists {
  OpSet allow, infer, deny, clear;
};

// The clear list both modes share (ops that only move or select values).
OpSet CommonClearList() {
  return {"Abs",
          "ArgMax",
          "ArgMin",
          "BatchToSpace",
          "BatchToSpaceND",
          "BroadcastTo",
          "Ceil",
          "CheckNumerics",
          "ClipByValue",
          "Concat",
          "ConcatV2",
          "DepthToSpace",
          "DynamicPartition",
          "DynamicStitch",
          "EnsureShape",
          "Enter",
          "Equal",
          "Exit",
          "ExpandDims",
          "Fill",
          "Floor",
          "Gather",
          "GatherNd",
          "GatherV2",
          "Greater",
          "GreaterEqual",
          "Identity",
          "IsFinite",
          "IsInf",
          "IsNan",
          "Less",
          "LessEqual",
          "Max",
          "Maximum",
          "MaxPool",
          "MaxPool3D",
          "MaxPool3DGrad",
          "MaxPoolGrad",
          "MaxPoolGradGrad",
          "MaxPoolGradGradV2",
          "MaxPoolGradV2",
          "MaxPoolV2",
          "Merge",
          "Min",
          "Minimum",
          "MirrorPad",
          "MirrorPadGrad",
          "Neg",
          "NextIteration",
          "NotEqual",
          "OnesLike",
          "Pack",
          "Pad",
          "PadV2",
          "PreventGradient",
          "Rank",
          "Relu",
          "Relu6",
          "Relu6Grad",
          "ReluGrad",
          "Reshape",
          "ResizeNearestNeighbor",
          "ResizeNearestNeighborGrad",
          "Reverse",
          "ReverseSequence",
          "ReverseV2",
          "Round",
          "Select",
          "SelectV2",
          "Shape",
          "ShapeN",
          "Sign",
          "Slice",
          "Snapshot",
          "SpaceToBatch",
          "SpaceToBatchND",
          "SpaceToDepth",
          "Split",
          "SplitV",
          "Squeeze",
          "StopGradient",
          "StridedSlice",
          "StridedSliceGrad",
          "Switch",
          "Tile",
          "TopK",
          "TopKV2",
          "Transpose",
          "Unpack",
          "Where",
          "ZerosLike"};
}

// TensorFlow's AutoMixedPrecisionListsCuda as its CPU mode builds it (CUDA 10, cuDNN 8).
OpLists Float16Lists() {
  OpLists l;
  l.allow = {"BlockLSTM", "BlockLSTMV2", "BlockLSTMGrad", "BlockLSTMGradV2", "Conv2D",
             "Conv2DBackpropFilter", "Conv2DBackpropInput", "CudnnRNN", "CudnnRNNBackprop",
             "CudnnRNNBackpropV2", "CudnnRNNBackpropV3", "CudnnRNNV2", "CudnnRNNV3", "Einsum",
             "FusedConv2DBiasActivation", "GRUBlockCell", "GRUBlockCellGrad", "LSTMBlockCell",
             "LSTMBlockCellGrad", "MatMul", "BatchMatMul", "BatchMatMulV2", "Conv3D",
             "Conv3DBackpropFilter", "Conv3DBackpropFilterV2", "Conv3DBackpropInput",
             "Conv3DBackpropInputV2", "DepthwiseConv2dNative",
             "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput",
             // graphrt's remapper runs after this pass, but a graph may arrive fused; these
             // have float32 kernels only today, so the kernel check keeps them as they are.
             "_FusedConv2D", "_FusedMatMul", "_FusedDepthwiseConv2dNative"};
  l.infer = {"Add",
             "AddN",
             "AddV2",
             "AvgPool",
             "AvgPool3D",
             "AvgPool3DGrad",
             "AvgPoolGrad",
             "BiasAdd",
             "BiasAddGrad",
             "BiasAddV1",
             "Elu",
             "EluGrad",
             "Erf",
             "Erfc",
             "FloorDiv",
             "FusedBatchNormV2",
             "FusedBatchNormGradV2",
             "FusedBatchNormV3",
             "FusedBatchNormGradV3",
             "_FusedBatchNormEx",
             "Inv",
             "LeakyRelu",
             "LeakyReluGrad",
             "Log",
             "Log1p",
             "LogSoftmax",
             "Mul",
             "Prod",
             "RealDiv",
             "Reciprocal",
             "Selu",
             "SeluGrad",
             "Sigmoid",
             "SigmoidGrad",
             "Softmax",
             "Softplus",
             "SoftplusGrad",
             "Softsign",
             "SoftsignGrad",
             "Sqrt",
             "Sub",
             "Tanh",
             "TanhGrad"};
  l.deny = {"Exp",
            "Expm1",
            "L2Loss",
            "Mean",
            "Pow",
            "SaveV2",
            "SoftmaxCrossEntropyWithLogits",
            "SparseSoftmaxCrossEntropyWithLogits",
            "Sum"};
  l.clear = CommonClearList();
  l.clear.insert("IdentityN");
  l.clear.insert("OneHot");
  l.clear.insert("Size");
  return l;
}

// TensorFlow's AutoMixedPrecisionListsMkl (the oneDNN bfloat16 mode).
OpLists Bfloat16Lists() {
  OpLists l;
  l.allow = {"Conv2D",
             "Conv2DBackpropFilter",
             "Conv2DBackpropInput",
             "Conv3D",
             "Conv3DBackpropFilterV2",
             "Conv3DBackpropInputV2",
             "DepthwiseConv2dNative",
             "DepthwiseConv2dNativeBackpropFilter",
             "DepthwiseConv2dNativeBackpropInput",
             "MatMul",
             "FusedPadConv2D",
             "BatchMatMul",
             "BatchMatMulV2",
             "Einsum",
             "_FusedConv2D",
             "_FusedMatMul",
             "_FusedDepthwiseConv2dNative"};
  l.infer = {"Add",
             "AddN",
             "AddV2",
             "AvgPool",
             "AvgPool3D",
             "AvgPool3DGrad",
             "AvgPoolGrad",
             "BiasAdd",
             "BiasAddGrad",
             "BiasAddV1",
             "Erf",
             "FusedBatchNormV2",
             "FusedBatchNormGradV2",
             "FusedBatchNormV3",
             "FusedBatchNormGradV3",
             "LeakyRelu",
             "LeakyReluGrad",
             "Mul",
             "Sub",
             "Elu",
             "EluGrad",
             "FloorDiv",
             "_FusedBatchNormEx",
             "Log",
             "Log1p",
             "LogSoftmax",
             "Prod",
             "RealDiv",
             "Reciprocal",
             "Rsqrt",
             "Selu",
             "SeluGrad",
             "Sigmoid",
             "SigmoidGrad",
             "Softmax",
             "Softplus",
             "SoftplusGrad",
             "Softsign",
             "SoftsignGrad",
             "Sqrt",
             "Square",
             "SquaredDifference",
             "SumTanh",
             "TanhGrad"};
  l.deny = {"Exp",
            "Expm1",
            "L2Loss",
            "Mean",
            "Pow",
            "SaveV2",
            "SoftmaxCrossEntropyWithLogits",
            "SparseSoftmaxCrossEntropyWithLogits"};
  l.clear = CommonClearList();
  l.clear.insert("ResizeBilinear");
  l.clear.insert("ScatterNd");
  return l;
}

// What the pass knows of a node that may join: which of its inputs and outputs turn reduced
// with its "T".
struct Candidate {
  std::vector<bool> in_reduced;
  std::vector<bool> out_reduced;
};

class MixedPrecisionPass {
 public:
  MixedPrecisionPass(ReducedPrecision mode, OptimizerContext* ctx)
      : ctx_(ctx),
        lists_(mode == ReducedPrecision::kBfloat16 ? Bfloat16Lists() : Float16Lists()),
        bfloat16_(mode == ReducedPrecision::kBfloat16),
        reduced_(bfloat16_ ? ::tensorflow::DT_BFLOAT16 : ::tensorflow::DT_HALF) {}

  Status Run(std::vector<RewriteRecord>* records) {
    std::vector<Node*> order = TopologicalOrder(*ctx_->graph);
    for (Node* n : order) {
      if (InAnyList(n->op())) FindCandidate(n);
    }
    std::set<int> allow, deny;
    for (Node* n : order) {
      if (candidates_.count(n->id()) && lists_.allow.count(n->op())) allow.insert(n->id());
    }
    if (allow.empty()) return Status::OK();
    Deny(order, &deny);
    AddBetweenAllow(order, deny, &allow);
    if (bfloat16_) AddInferFollowingAllow(order, deny, &allow);
    AddClearAroundAllow(deny, &allow);
    std::set<std::string> names;
    for (int id : allow) names.insert(ctx_->graph->node(id)->name());
    return Rewrite(order, names, records);
  }

 private:
  bool InAnyList(const std::string& op) const {
    return lists_.allow.count(op) || lists_.infer.count(op) || lists_.clear.count(op);
  }

  // Adds `n` to candidates_ when it may compute in the reduced type.
  void FindCandidate(Node* n) {
    Device* device = DeviceOf(*ctx_, n);
    if (device == nullptr || device->device_type() != kDeviceCpu) return;
    if (IsControlFlow(n) || IsFetched(n) || n->op_def() == nullptr) return;
    DataType t;
    if (!GetNodeAttr(n->def(), "T", &t).ok() || t != ::tensorflow::DT_FLOAT) return;
    ::tensorflow::NodeDef reduced = n->def();
    SetNodeAttr(&reduced, "T", reduced_);
    if (!KernelRegistry::Global()->Supports(kDeviceCpu, reduced)) return;
    std::vector<DataType> ins, outs;
    if (!InOutTypesForNode(reduced, *n->op_def(), &ins, &outs).ok() ||
        ins.size() != n->input_types().size() || outs.size() != n->output_types().size()) {
      return;
    }
    Candidate c;
    for (size_t i = 0; i < ins.size(); ++i) c.in_reduced.push_back(ins[i] != n->input_types()[i]);
    for (size_t i = 0; i < outs.size(); ++i) {
      c.out_reduced.push_back(outs[i] != n->output_types()[i]);
    }
    candidates_[n->id()] = std::move(c);
  }

  // Whether the data edge `e` carries a tensor that both of its ends would compute in the
  // reduced type (the edges the colouring follows).
  bool ReducibleEdge(const Edge* e) const {
    if (e->IsControl()) return false;
    auto src = candidates_.find(e->src->id());
    auto dst = candidates_.find(e->dst->id());
    return src != candidates_.end() && dst != candidates_.end() &&
           src->second.out_reduced[e->src_output] && dst->second.in_reduced[e->dst_input];
  }

  // Step 2. Deny-list nodes, and infer/clear nodes on a forward path from one to an infer node.
  void Deny(const std::vector<Node*>& order, std::set<int>* deny) const {
    std::set<int> reached;  // infer/clear nodes downstream of a deny node through such nodes
    for (Node* n : order) {
      bool from_deny = false;
      for (const Edge* e : n->in_edges()) {
        if (e->IsControl() || e->src->output_type(e->src_output) != ::tensorflow::DT_FLOAT)
          continue;
        if (lists_.deny.count(e->src->op()) || reached.count(e->src->id())) from_deny = true;
      }
      if (from_deny && (lists_.infer.count(n->op()) || lists_.clear.count(n->op()))) {
        reached.insert(n->id());
      }
      if (lists_.deny.count(n->op())) deny->insert(n->id());
    }
    // A reached clear node is denied only when an infer node follows it.
    std::set<int> leads_to_infer;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node* n = *it;
      if (!reached.count(n->id())) continue;
      bool leads = lists_.infer.count(n->op()) > 0;
      for (const Edge* e : n->out_edges()) {
        if (!e->IsControl() && leads_to_infer.count(e->dst->id())) leads = true;
      }
      if (leads) {
        leads_to_infer.insert(n->id());
        deny->insert(n->id());
      }
    }
  }

  // Whether `n` may join through steps 3-5: a candidate not yet coloured, of one of `ops`.
  bool MayJoin(const Node* n, const std::set<int>& deny, const std::set<int>& allow,
               const OpSet& ops) const {
    return candidates_.count(n->id()) && !deny.count(n->id()) && !allow.count(n->id()) &&
           ops.count(n->op());
  }

  // Step 3. Infer/clear nodes both downstream and upstream of allow nodes, through such nodes.
  void AddBetweenAllow(const std::vector<Node*>& order, const std::set<int>& deny,
                       std::set<int>* allow) const {
    OpSet between = lists_.infer;
    between.insert(lists_.clear.begin(), lists_.clear.end());
    std::set<int> down, up;
    for (Node* n : order) {
      if (!MayJoin(n, deny, *allow, between)) continue;
      for (const Edge* e : n->in_edges()) {
        if (ReducibleEdge(e) && (allow->count(e->src->id()) || down.count(e->src->id()))) {
          down.insert(n->id());
        }
      }
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node* n = *it;
      if (!MayJoin(n, deny, *allow, between)) continue;
      for (const Edge* e : n->out_edges()) {
        if (ReducibleEdge(e) && (allow->count(e->dst->id()) || up.count(e->dst->id()))) {
          up.insert(n->id());
        }
      }
    }
    for (int id : down) {
      if (up.count(id)) allow->insert(id);
    }
  }

  // Step 4 (bfloat16). Infer nodes downstream of allow nodes, through infer nodes.
  void AddInferFollowingAllow(const std::vector<Node*>& order, const std::set<int>& deny,
                              std::set<int>* allow) const {
    for (Node* n : order) {
      if (!MayJoin(n, deny, *allow, lists_.infer)) continue;
      for (const Edge* e : n->in_edges()) {
        if (ReducibleEdge(e) && allow->count(e->src->id())) {
          allow->insert(n->id());
          break;
        }
      }
    }
  }

  // Step 5. Clear nodes connected to allow nodes through clear nodes, in either direction.
  void AddClearAroundAllow(const std::set<int>& deny, std::set<int>* allow) const {
    std::vector<int> stack(allow->begin(), allow->end());
    std::set<int> joined;
    while (!stack.empty()) {
      Node* n = ctx_->graph->node(stack.back());
      stack.pop_back();
      auto visit = [&](const Edge* e, Node* next) {
        if (!ReducibleEdge(e) || joined.count(next->id())) return;
        if (!MayJoin(next, deny, *allow, lists_.clear)) return;
        joined.insert(next->id());
        stack.push_back(next->id());
      };
      for (const Edge* e : n->in_edges()) visit(e, e->src);
      for (const Edge* e : n->out_edges()) visit(e, e->dst);
    }
    allow->insert(joined.begin(), joined.end());
  }

  // The Cast of src:output to `to`, on `device`, made once per tensor and device.
  StatusOr<Node*> CastOf(Node* src, int output, DataType to, Device* device,
                         std::vector<RewriteRecord>* records) {
    auto key = std::make_tuple(src->name(), output, device->name());
    auto it = casts_.find(key);
    if (it != casts_.end()) return it->second;
    DataType from = src->output_type(output);
    std::string base = StrCat(src->name(), output == 0 ? "" : StrCat("_", output), "/CastTo",
                              to == ::tensorflow::DT_FLOAT ? "Fp32"
                              : bfloat16_                  ? "Bf16"
                                                           : "Fp16");
    std::string name = base;
    for (int i = 1; ctx_->graph->FindNode(name) != nullptr; ++i) name = StrCat(base, "_", i);
    ::tensorflow::NodeDef def;
    def.set_name(name);
    def.set_op("Cast");
    SetNodeAttr(&def, "SrcT", from);
    SetNodeAttr(&def, "DstT", to);
    SetNodeAttr(&def, "Truncate", false);
    GRT_ASSIGN_OR_RETURN(Node * cast, AddNodeOnDevice(ctx_, std::move(def), device));
    ctx_->graph->AddEdge(src, output, cast, 0);
    RewriteRecord record;
    record.pass = "auto_mixed_precision";
    record.node = name;
    record.op = "Cast";
    record.device = device->name();
    records->push_back(std::move(record));
    casts_[key] = cast;
    return cast;
  }

  // Moves every node named in `joined` to the reduced type, in topological order, so that a
  // node's joined inputs already produce it.
  Status Rewrite(const std::vector<Node*>& order, const std::set<std::string>& joined,
                 std::vector<RewriteRecord>* records) {
    const std::string precision = bfloat16_ ? "bfloat16" : "float16";
    std::vector<std::string> names;
    for (Node* n : order) {
      if (joined.count(n->name())) names.push_back(n->name());
    }
    for (const std::string& name : names) {
      Node* n = ctx_->graph->FindNode(name);
      const Candidate c = candidates_.at(n->id());
      Device* device = DeviceOf(*ctx_, n);
      struct In {
        Node* src;
        int output, input;
      };
      struct Out {
        Node* dst;
        int output, input;
      };
      std::vector<In> ins;
      std::vector<Out> outs;
      std::vector<Node*> control_in, control_out;
      for (const Edge* e : n->in_edges()) {
        if (e->IsControl()) {
          control_in.push_back(e->src);
        } else {
          ins.push_back({e->src, e->src_output, e->dst_input});
        }
      }
      for (const Edge* e : n->out_edges()) {
        if (e->IsControl()) {
          control_out.push_back(e->dst);
        } else {
          outs.push_back({e->dst, e->src_output, e->dst_input});
        }
      }
      ::tensorflow::NodeDef def = n->def();
      SetNodeAttr(&def, "T", reduced_);
      const std::string op = n->op();
      ctx_->graph->RemoveNode(n);
      GRT_ASSIGN_OR_RETURN(Node * moved, AddNodeOnDevice(ctx_, std::move(def), device));
      for (const In& in : ins) {
        Node* src = in.src;
        int output = in.output;
        // A joined source (already moved) produces the reduced type on its reduced outputs.
        if (c.in_reduced[in.input] && src->output_type(output) != reduced_) {
          GRT_ASSIGN_OR_RETURN(src, CastOf(src, output, reduced_, device, records));
          output = 0;
        }
        ctx_->graph->AddEdge(src, output, moved, in.input);
      }
      for (Node* src : control_in) ctx_->graph->AddControlEdge(src, moved);
      for (const Out& out : outs) {
        Node* from = moved;
        int output = out.output;
        const bool dst_joins = joined.count(out.dst->name()) > 0 &&
                               candidates_.count(out.dst->id()) &&
                               candidates_.at(out.dst->id()).in_reduced[out.input];
        if (c.out_reduced[out.output] && !dst_joins) {
          GRT_ASSIGN_OR_RETURN(from,
                               CastOf(moved, out.output, ::tensorflow::DT_FLOAT, device, records));
          output = 0;
        }
        ctx_->graph->AddEdge(from, output, out.dst, out.input);
      }
      for (Node* dst : control_out) ctx_->graph->AddControlEdge(moved, dst);
      candidates_[moved->id()] = c;
      RewriteRecord record;
      record.pass = "auto_mixed_precision";
      record.node = name;
      record.op = op;
      record.replaced = {name};
      record.replaced_ops = {op};
      record.precision = precision;
      records->push_back(std::move(record));
    }
    return Status::OK();
  }

  OptimizerContext* ctx_;
  OpLists lists_;
  bool bfloat16_;
  DataType reduced_;
  std::map<int, Candidate> candidates_;  // by node id
  std::map<std::tuple<std::string, int, std::string>, Node*> casts_;
};

}  // namespace

Status AutoMixedPrecision(ReducedPrecision mode, OptimizerContext* ctx,
                          std::vector<RewriteRecord>* records) {
  return MixedPrecisionPass(mode, ctx).Run(records);
}

}  // namespace optimize
}  // namespace graphrt
