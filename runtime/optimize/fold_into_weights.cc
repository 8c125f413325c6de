// Arithmetic folded into weights. After a Conv2D, DepthwiseConv2dNative or MatMul whose filter
// is a Const:
//   FusedBatchNorm (V1-V3, inference): y = (x - mean) * scale / sqrt(variance + epsilon) + offset
//     becomes a filter scaled per output channel by s = scale / sqrt(variance + epsilon) and a
//     BiasAdd of offset - mean * s; with a BiasAdd of a Const b between the product and the
//     batch norm (a Keras convolution with use_bias), of offset + (b - mean) * s;
//   Mul by a Const scalar or vector of the output channels: the filter scaled by it.
// The remapper then fuses the BiasAdd (and what follows) into the product.
//
// Exactness: the folded form rounds (x * w) * s where TensorFlow rounds ((x * w) - mean) * s;
// both are float32 computations of the same real number, and they differ by a few ulps of the
// largest term (relative 1e-6 of |x * w| and |mean * s|), which is the tolerance this pass keeps
// (a result much smaller than those terms, after cancellation, may differ by more relative to
// itself). The node the BiasAdd replaces keeps its name, so fetches still find it.
#include <cmath>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/optimize/optimizer_util.h"

namespace graphrt {
namespace optimize {

namespace {

bool IsProduct(const Node* node) {
  const std::string& op = node->op();
  return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "MatMul";
}

bool IsBatchNorm(const Node* node) {
  const std::string& op = node->op();
  return op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3";
}

// For filter element i, the output channel it contributes to; -1 when the layout is unknown.
int64_t ChannelsOf(const Node* root, const Tensor& w, bool* per_row) {
  *per_row = false;
  if (root->op() == "MatMul") {
    bool transpose_b = false;
    if (w.dims() != 2 || !GetNodeAttrOr(root->def(), "transpose_b", &transpose_b).ok()) return -1;
    *per_row = transpose_b;  // [N, K]: channel = i / K
    return w.dim_size(transpose_b ? 0 : 1);
  }
  if (w.dims() != 4) return -1;
  if (root->op() == "DepthwiseConv2dNative") return w.dim_size(2) * w.dim_size(3);
  return w.dim_size(3);
}

// w scaled per output channel by s (REQUIRES: s has ChannelsOf elements).
// One pass, no division per element: a frozen ResNet50's filters are 25M of them.
Tensor ScaledFilter(const Tensor& w, const std::vector<float>& s, int64_t channels, bool per_row) {
  const int64_t n = w.NumElements();
  if (n == 0 || channels <= 0) return w.DeepCopy();
  Tensor out(w.dtype(), w.shape());
  const float* in = w.data<float>();
  float* v = out.data<float>();
  const int64_t inner = n / channels;
  if (per_row) {
    for (int64_t r = 0; r < channels; ++r) {
      for (int64_t i = r * inner; i < (r + 1) * inner; ++i) v[i] = in[i] * s[r];
    }
  } else {
    for (int64_t row = 0; row < n; row += channels) {
      for (int64_t c = 0; c < channels; ++c) v[row + c] = in[row + c] * s[c];
    }
  }
  return out;
}

struct Candidate {
  Node* root;
  Tensor filter;
  int64_t channels;
  bool per_row;
};

// The product and its Const float filter, NHWC; false when the pattern does not apply.
bool MatchProduct(const OptimizerContext& ctx, Node* root, Candidate* c) {
  if (!IsProduct(root) || HasControlOutEdges(root) || IsFetched(root)) return false;
  DataType t = ::tensorflow::DT_INVALID;
  if (!GetNodeAttr(root->def(), "T", &t).ok() || t != ::tensorflow::DT_FLOAT) return false;
  std::string format = "NHWC";
  if (!GetNodeAttrOr(root->def(), "data_format", &format).ok() || format != "NHWC") return false;
  Node* filter = InputNode(root, 1);
  if (filter == nullptr || !IsConst(filter, &c->filter) || c->filter.dtype() != t) return false;
  if (DeviceOf(ctx, filter) != DeviceOf(ctx, root)) return false;
  c->root = root;
  c->channels = ChannelsOf(root, c->filter, &c->per_row);
  return c->channels > 0;
}

// Whether `node` is a BiasAdd (NHWC) of `root`'s output that only its one reader sees: no
// fetch, no control edges.
bool IsFoldableBiasAdd(const OptimizerContext& ctx, const Node* node, const Node* root) {
  if (node->op() != "BiasAdd" || IsFetched(node) || HasControlInEdges(node) ||
      HasControlOutEdges(node)) {
    return false;
  }
  std::string format = "NHWC";
  if (!GetNodeAttrOr(node->def(), "data_format", &format).ok() || format != "NHWC") return false;
  const Edge* in = node->input_edge(0);
  const Node* b = InputNode(node, 1);
  return in != nullptr && in->src == root && b != nullptr &&
         DeviceOf(ctx, b) == DeviceOf(ctx, node);
}

// Points the product at a new Const filter (the old one goes when nothing else reads it).
Status ReplaceFilter(OptimizerContext* ctx, Node* root, const Tensor& filter) {
  Graph* graph = ctx->graph;
  const Edge* old = root->input_edge(1);
  Node* old_filter = old->src;
  std::string name = StrCat(root->name(), "/folded_filter");
  while (graph->FindNode(name) != nullptr) name += "_";
  GRT_ASSIGN_OR_RETURN(Node * c, AddConst(ctx, name, filter, DeviceOf(*ctx, root)));
  graph->RemoveEdge(const_cast<Edge*>(old));
  graph->AddEdge(c, 0, root, 1);
  if (old_filter->out_edges().empty()) graph->RemoveNode(old_filter);
  return Status::OK();
}

// Batch norm (inference) after the product, or after `pre_bias` (a BiasAdd of a Const, null when
// there is none) after the product: the scale into the filter, the rest into a BiasAdd that
// takes the batch norm's name.
Status FoldBatchNorm(OptimizerContext* ctx, const Candidate& c, Node* pre_bias, Node* bn,
                     std::vector<RewriteRecord>* records) {
  bool training = true;
  float epsilon = 1e-4f;
  std::string format = "NHWC";
  if (!GetNodeAttrOr(bn->def(), "is_training", &training).ok() || training) return Status::OK();
  if (!GetNodeAttrOr(bn->def(), "epsilon", &epsilon).ok()) return Status::OK();
  if (!GetNodeAttrOr(bn->def(), "data_format", &format).ok() || format != "NHWC") {
    return Status::OK();
  }
  for (const Edge* e : bn->out_edges()) {
    if (!e->IsControl() && e->src_output != 0) return Status::OK();  // statistics are read
  }
  std::vector<Tensor> params(4);  // scale, offset, mean, variance
  for (int i = 0; i < 4; ++i) {
    Node* p = InputNode(bn, i + 1);
    if (p == nullptr || !IsConst(p, &params[i]) || params[i].dtype() != ::tensorflow::DT_FLOAT ||
        params[i].dims() != 1 || params[i].dim_size(0) != c.channels) {
      return Status::OK();
    }
  }
  std::vector<float> shift(static_cast<size_t>(c.channels), 0.0f);  // b, or zeros
  if (pre_bias != nullptr) {
    Tensor b;
    Node* b_node = InputNode(pre_bias, 1);
    if (b_node == nullptr || !IsConst(b_node, &b) || b.dtype() != ::tensorflow::DT_FLOAT ||
        b.dims() != 1 || b.dim_size(0) != c.channels) {
      return Status::OK();
    }
    shift.assign(b.data<float>(), b.data<float>() + c.channels);
  }
  std::vector<float> scale(static_cast<size_t>(c.channels));
  Tensor bias = Tensor::Vector<float>(std::vector<float>(scale.size()));
  for (int64_t k = 0; k < c.channels; ++k) {
    scale[k] = params[0].data<float>()[k] / std::sqrt(params[3].data<float>()[k] + epsilon);
    // With shift 0, exactly offset - mean * s.
    bias.data<float>()[k] =
        params[1].data<float>()[k] + (shift[k] - params[2].data<float>()[k]) * scale[k];
  }
  Graph* graph = ctx->graph;
  Device* device = DeviceOf(*ctx, bn);
  RewriteRecord record{"arithmetic_optimization",
                       bn->name(),
                       "BiasAdd",
                       {c.root->name(), bn->name()},
                       {c.root->op(), bn->op()}};
  if (pre_bias != nullptr) {
    record.replaced.insert(record.replaced.begin() + 1, pre_bias->name());
    record.replaced_ops.insert(record.replaced_ops.begin() + 1, pre_bias->op());
  }
  GRT_RETURN_IF_ERROR(
      ReplaceFilter(ctx, c.root, ScaledFilter(c.filter, scale, c.channels, c.per_row)));
  // The BiasAdd takes the batch norm's name, readers and control edges.
  const std::string name = bn->name();
  std::vector<std::pair<Node*, int>> readers;
  std::vector<Node*> controls_in, controls_out;
  for (const Edge* e : bn->out_edges()) {
    if (e->IsControl()) {
      controls_out.push_back(e->dst);
    } else {
      readers.push_back({e->dst, e->dst_input});
    }
  }
  for (const Edge* e : bn->in_edges()) {
    if (e->IsControl()) controls_in.push_back(e->src);
  }
  ::tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op("BiasAdd");
  def.set_device(bn->def().device());
  SetNodeAttr(&def, "T", ::tensorflow::DT_FLOAT);
  SetNodeAttr(&def, "data_format", "NHWC");
  RemoveNodeAndDeadConsts(graph, bn);
  if (pre_bias != nullptr) RemoveNodeAndDeadConsts(graph, pre_bias);
  GRT_ASSIGN_OR_RETURN(Node * bias_add, AddNodeOnDevice(ctx, std::move(def), device));
  GRT_ASSIGN_OR_RETURN(Node * bias_const,
                       AddConst(ctx, StrCat(name, "/folded_bias"), bias, device));
  graph->AddEdge(c.root, 0, bias_add, 0);
  graph->AddEdge(bias_const, 0, bias_add, 1);
  for (Node* n : controls_in) graph->AddControlEdge(n, bias_add);
  for (Node* n : controls_out) graph->AddControlEdge(bias_add, n);
  for (const auto& [dst, slot] : readers) graph->AddEdge(bias_add, 0, dst, slot);
  records->push_back(std::move(record));
  return Status::OK();
}

// Mul of the product by a Const scalar or channel vector: the filter scaled, the Mul gone (its
// readers read the product, which takes over nothing else: the Mul's name is kept by no node,
// so a Mul that is fetched is left alone).
Status FoldMul(OptimizerContext* ctx, const Candidate& c, Node* mul,
               std::vector<RewriteRecord>* records) {
  if (IsFetched(mul) || HasControlInEdges(mul)) return Status::OK();
  const Edge* a = mul->input_edge(0);
  const Edge* b = mul->input_edge(1);
  if (a == nullptr || b == nullptr) return Status::OK();
  const Edge* other = a->src == c.root ? b : a;
  Tensor k;
  if (!IsConst(other->src, &k) || k.dtype() != ::tensorflow::DT_FLOAT) return Status::OK();
  std::vector<float> scale(static_cast<size_t>(c.channels));
  if (k.NumElements() == 1 && k.dims() <= 1) {
    std::fill(scale.begin(), scale.end(), k.data<float>()[0]);
  } else if (k.dims() == 1 && k.dim_size(0) == c.channels) {
    scale.assign(k.data<float>(), k.data<float>() + c.channels);
  } else {
    return Status::OK();
  }
  RewriteRecord record{"arithmetic_optimization",
                       c.root->name(),
                       c.root->op(),
                       {mul->name(), c.root->name()},
                       {mul->op(), c.root->op()}};
  GRT_RETURN_IF_ERROR(
      ReplaceFilter(ctx, c.root, ScaledFilter(c.filter, scale, c.channels, c.per_row)));
  MoveDataOutEdges(ctx->graph, mul, 0, c.root, 0);
  MoveControlOutEdges(ctx->graph, mul, c.root);
  RemoveNodeAndDeadConsts(ctx->graph, mul);
  records->push_back(std::move(record));
  return Status::OK();
}

}  // namespace

Status FoldIntoWeights(OptimizerContext* ctx, std::vector<RewriteRecord>* records) {
  std::vector<int> ids;
  for (Node* n : TopologicalOrder(*ctx->graph)) ids.push_back(n->id());
  for (int id : ids) {
    Node* root = ctx->graph->node(id);
    Candidate c;
    if (root == nullptr || !MatchProduct(*ctx, root, &c)) continue;
    Node* next = SoleConsumer(root);
    if (next == nullptr || DeviceOf(*ctx, next) != DeviceOf(*ctx, root)) continue;
    if (IsBatchNorm(next) && next->input_edge(0) != nullptr && next->input_edge(0)->src == root) {
      GRT_RETURN_IF_ERROR(FoldBatchNorm(ctx, c, nullptr, next, records));
    } else if (IsFoldableBiasAdd(*ctx, next, root)) {
      Node* bn = SoleConsumer(next);
      if (bn != nullptr && IsBatchNorm(bn) && DeviceOf(*ctx, bn) == DeviceOf(*ctx, next) &&
          bn->input_edge(0) != nullptr && bn->input_edge(0)->src == next) {
        GRT_RETURN_IF_ERROR(FoldBatchNorm(ctx, c, next, bn, records));
      }
    } else if (next->op() == "Mul") {
      GRT_RETURN_IF_ERROR(FoldMul(ctx, c, next, records));
    }
  }
  return Status::OK();
}

}  // namespace optimize
}  // namespace graphrt
