// The remapper: Conv2D, DepthwiseConv2dNative or MatMul, then a bias (BiasAdd, or Add of a 1-D
// Const of the output's channels), then optionally one activation (Relu, Relu6, Elu, LeakyRelu,
// Sigmoid, Tanh, or swish x * sigmoid(x)) become one _FusedConv2D, _FusedDepthwiseConv2dNative
// or _FusedMatMul node with TensorFlow's fused_ops attr, named after the last node it replaces
// (so a fetch of the pattern's result still names it).
//
// A pattern is fused only when every intermediate tensor has exactly one reader (not fetched,
// no control edges), every node runs on one device, and that device has a kernel for the fused
// node (graphrt's are float NHWC on the CPU).
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

// The activation after the bias node, if any; swish is Sigmoid(x) and Mul(x, that).
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
  // Swish: exactly two readers, a Sigmoid whose sole reader is the Mul, and that Mul.
  if (bias->out_edges().size() != 2) return;
  Node* sigmoid = nullptr;
  Node* mul = nullptr;
  for (const Edge* e : bias->out_edges()) {
    if (e->dst->op() == "Sigmoid") sigmoid = e->dst;
    if (e->dst->op() == "Mul") mul = e->dst;
  }
  if (sigmoid == nullptr || mul == nullptr || SoleConsumer(sigmoid) != mul) return;
  if (DeviceOf(ctx, sigmoid) != device || DeviceOf(ctx, mul) != device) return;
  p->nodes.push_back(sigmoid);
  p->nodes.push_back(mul);
  p->fused_ops.push_back("_MklSwish");
}

// Replaces the pattern rooted at `root` by its fused node.
Status Fuse(OptimizerContext* ctx, Node* root, const Pattern& p,
            std::vector<RewriteRecord>* records) {
  Graph* graph = ctx->graph;
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
  SetNodeAttr(&def, "num_args", int64_t{1});
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

  // What the fused node reads and who reads it, before the pattern's nodes go.
  const Edge* input = root->input_edge(0);
  const Edge* filter = root->input_edge(1);
  if (input == nullptr || filter == nullptr) return Status::OK();
  struct Source {
    Node* node;
    int output;
  };
  const std::vector<Source> sources = {{input->src, input->src_output},
                                       {filter->src, filter->src_output},
                                       {p.bias->src, p.bias->src_output}};
  std::vector<Node*> controls_in, controls_out;
  std::vector<std::pair<Node*, int>> readers;
  for (Node* n : p.nodes) {
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
  for (Node* n : p.nodes) graph->RemoveNode(n);
  GRT_ASSIGN_OR_RETURN(Node * fused, AddNodeOnDevice(ctx, std::move(def), device));
  for (size_t i = 0; i < sources.size(); ++i) {
    graph->AddEdge(sources[i].node, sources[i].output, fused, static_cast<int>(i));
  }
  for (Node* c : controls_in) graph->AddControlEdge(c, fused);
  for (Node* c : controls_out) graph->AddControlEdge(fused, c);
  for (const auto& [dst, slot] : readers) graph->AddEdge(fused, 0, dst, slot);
  records->push_back(std::move(record));
  return Status::OK();
}

}  // namespace

Status Remap(OptimizerContext* ctx, std::vector<RewriteRecord>* records) {
  // By id: nodes fused earlier are gone (their pointers dangle), the order lists them still.
  std::vector<int> ids;
  for (Node* n : TopologicalOrder(*ctx->graph)) ids.push_back(n->id());
  for (int id : ids) {
    Node* root = ctx->graph->node(id);
    if (root == nullptr || FusedOpFor(root->op()) == nullptr) continue;
    DataType t = ::tensorflow::DT_INVALID;
    if (!GetNodeAttr(root->def(), "T", &t).ok() || t != ::tensorflow::DT_FLOAT) continue;
    if (DeviceOf(*ctx, root) == nullptr || HasControlOutEdges(root) || IsFetched(root)) continue;
    std::string format = "NHWC";
    if (!GetNodeAttrOr(root->def(), "data_format", &format).ok() || format != "NHWC") continue;
    Pattern p;
    p.nodes.push_back(root);
    if (!MatchBias(*ctx, root, &p)) continue;
    MatchActivation(*ctx, &p);
    GRT_RETURN_IF_ERROR(Fuse(ctx, root, p, records));
  }
  return Status::OK();
}

}  // namespace optimize
}  // namespace graphrt
