#include "runtime/optimize/graph_optimizer.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <set>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/optimize/optimizer_util.h"

namespace graphrt {

std::string RewriteRecord::ToString() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < replaced.size(); ++i) {
    parts.push_back(StrCat(replaced[i], " (", i < replaced_ops.size() ? replaced_ops[i] : "", ")"));
  }
  if (op.empty()) return StrCat(pass, ": removed ", StrJoin(parts, ", "));
  if (!precision.empty()) return StrCat(pass, ": ", node, " (", op, ") runs in ", precision);
  if (replaced.empty()) return StrCat(pass, ": ", node, " (", op, ") added");
  return StrCat(pass, ": ", node, " (", op, ") replaces ", StrJoin(parts, ", "));
}

PlacementReport WithRewrites(const PlacementReport& report,
                             const std::vector<RewriteRecord>& records) {
  std::map<std::string, std::vector<std::string>> notes;
  std::map<std::string, std::string> new_ops;
  std::map<std::string, std::string> precisions;
  std::vector<const RewriteRecord*> made;  // records whose node may be new
  for (const RewriteRecord& r : records) {
    if (r.op.empty()) {
      for (const std::string& name : r.replaced) notes[name].push_back(r.ToString());
      continue;
    }
    notes[r.node].push_back(r.ToString());
    new_ops[r.node] = r.op;
    if (!r.precision.empty()) precisions[r.node] = r.precision;
    made.push_back(&r);
    for (const std::string& name : r.replaced) {
      if (name != r.node) {
        notes[name].push_back(StrCat(r.pass, ": folded into ", r.node, " (", r.op, ")"));
      }
    }
  }
  PlacementReport out;
  std::set<std::string> seen;
  for (PlacementDecision d : report.decisions()) {
    seen.insert(d.node);
    auto n = notes.find(d.node);
    if (n != notes.end()) d.reason = StrCat(d.reason, "; ", StrJoin(n->second, "; "));
    auto o = new_ops.find(d.node);
    if (o != new_ops.end()) d.op = o->second;
    auto p = precisions.find(d.node);
    if (p != precisions.end()) d.precision = p->second;
    out.Add(std::move(d));
  }
  // Nodes with new names (a second output of a folded node) sit where the first node they
  // replaced sits.
  for (const RewriteRecord* r : made) {
    if (!seen.insert(r->node).second) continue;
    // A later rewrite of the node (a Cast folded into a Const) gives its op.
    PlacementDecision d{r->node, new_ops[r->node], "", r->device, StrJoin(notes[r->node], "; "),
                        ""};
    for (const std::string& name : r->replaced) {
      if (const PlacementDecision* from = report.Find(name)) {
        d.assigned = from->assigned;
        d.precision = from->precision;
        break;
      }
    }
    if (!r->precision.empty()) d.precision = r->precision;
    out.Add(std::move(d));
  }
  return out;
}

bool OptimizerDisabledByEnvironment() {
  const char* value = std::getenv("GRAPHRT_OPTIMIZER");
  return value != nullptr && std::strcmp(value, "0") == 0;
}

Status OptimizeGraph(const OptimizerOptions& options, OptimizerContext* context,
                     std::vector<RewriteRecord>* records) {
  if (options.model_pruning) GRT_RETURN_IF_ERROR(optimize::PruneIdentities(context, records));
  if (options.constant_folding) {
    GRT_RETURN_IF_ERROR(optimize::FoldConstants(options, context, records));
  }
  if (options.arithmetic_optimization) {
    GRT_RETURN_IF_ERROR(optimize::FoldIntoWeights(context, records));
  }
  if (options.cpu_mixed_precision != ReducedPrecision::kNone) {
    const size_t before = records->size();
    GRT_RETURN_IF_ERROR(
        optimize::AutoMixedPrecision(options.cpu_mixed_precision, context, records));
    // The Casts of Const weights become Consts of the reduced type.
    if (options.constant_folding && records->size() != before) {
      GRT_RETURN_IF_ERROR(optimize::FoldConstants(options, context, records));
    }
  }
  if (options.remapping) {
    GRT_RETURN_IF_ERROR(optimize::Remap(context, records));
    GRT_RETURN_IF_ERROR(optimize::RemapInt8Weights(context, records));
  }
  return Status::OK();
}

namespace optimize {

std::string Describe(const Node* node) { return StrCat(node->name(), " (", node->op(), ")"); }

std::vector<Edge*> DataOutEdges(const Node* node, int output) {
  std::vector<Edge*> out;
  for (Edge* e : node->out_edges()) {
    if (!e->IsControl() && e->src_output == output) out.push_back(e);
  }
  return out;
}

bool HasControlOutEdges(const Node* node) {
  for (const Edge* e : node->out_edges()) {
    if (e->IsControl()) return true;
  }
  return false;
}

bool HasControlInEdges(const Node* node) {
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl()) return true;
  }
  return false;
}

bool IsFetched(const Node* node) {
  for (const Edge* e : node->out_edges()) {
    if (e->dst->IsRetval()) return true;
  }
  return false;
}

Node* SoleConsumer(const Node* node) {
  if (node->out_edges().size() != 1) return nullptr;
  const Edge* e = node->out_edges()[0];
  if (e->IsControl() || e->src_output != 0 || e->dst->IsRetval()) return nullptr;
  return e->dst;
}

Node* SoleDataConsumer(const Node* node) {
  const std::vector<Edge*> edges = DataOutEdges(node, 0);
  if (edges.size() != 1 || node->num_outputs() != 1 || IsFetched(node)) return nullptr;
  return edges[0]->dst;
}

Node* InputNode(const Node* node, int i) {
  const Edge* e = node->input_edge(i);
  return e == nullptr ? nullptr : e->src;
}

bool IsConst(const Node* node, Tensor* value) {
  if (node == nullptr || node->op() != "Const") return false;
  if (value == nullptr) return true;
  if (node->const_value().IsInitialized()) {
    *value = node->const_value();
  } else if (!GetNodeAttr(node->def(), "value", value).ok()) {
    return false;
  }
  return value->IsInitialized() && !value->in_device_memory();
}

bool IsControlFlow(const Node* node) {
  return node->IsSwitch() || node->IsMerge() || node->IsEnter() || node->IsExit() ||
         node->IsNextIteration() || node->IsLoopCond() || node->IsControlTrigger();
}

std::vector<Node*> TopologicalOrder(const Graph& graph) {
  std::vector<int> pending(static_cast<size_t>(graph.num_node_ids()), 0);
  std::deque<Node*> ready;
  for (Node* n : graph.nodes()) {
    pending[n->id()] = static_cast<int>(n->in_edges().size());
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* n = ready.front();
    ready.pop_front();
    order.push_back(n);
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  return order;
}

StatusOr<Node*> AddNodeOnDevice(OptimizerContext* ctx, ::tensorflow::NodeDef def, Device* device) {
  GRT_ASSIGN_OR_RETURN(Node * node, ctx->graph->AddNode(std::move(def)));
  if (ctx->devices->size() <= static_cast<size_t>(node->id())) {
    ctx->devices->resize(static_cast<size_t>(node->id()) + 1, nullptr);
  }
  (*ctx->devices)[node->id()] = device;
  if (device != nullptr) node->set_assigned_device(device->name());
  return node;
}

StatusOr<Node*> RebuildNode(OptimizerContext* ctx, Node* node, ::tensorflow::NodeDef def) {
  struct Link {
    Node* node;
    int output, input;
  };
  std::vector<Link> ins, outs;
  for (const Edge* e : node->in_edges()) ins.push_back({e->src, e->src_output, e->dst_input});
  for (const Edge* e : node->out_edges()) outs.push_back({e->dst, e->src_output, e->dst_input});
  Device* device = DeviceOf(*ctx, node);
  const Tensor const_value = node->const_value();
  ctx->graph->RemoveNode(node);
  GRT_ASSIGN_OR_RETURN(Node * rebuilt, AddNodeOnDevice(ctx, std::move(def), device));
  if (const_value.IsInitialized()) rebuilt->set_const_value(const_value);
  for (const Link& in : ins) {
    if (in.output == kControlSlot) {
      ctx->graph->AddControlEdge(in.node, rebuilt);
    } else {
      ctx->graph->AddEdge(in.node, in.output, rebuilt, in.input);
    }
  }
  for (const Link& out : outs) {
    if (out.output == kControlSlot) {
      ctx->graph->AddControlEdge(rebuilt, out.node);
    } else {
      ctx->graph->AddEdge(rebuilt, out.output, out.node, out.input);
    }
  }
  return rebuilt;
}

bool ZeroPadding(const Node* pad, std::vector<int64_t>* paddings) {
  if (pad->op() != "Pad" && pad->op() != "PadV2") return false;
  Tensor p;
  if (!IsConst(InputNode(pad, 1), &p) || p.dims() != 2 || p.dim_size(0) != 4 ||
      p.dim_size(1) != 2) {
    return false;
  }
  if (pad->op() == "PadV2") {
    Tensor value;
    if (!IsConst(InputNode(pad, 2), &value) || value.dtype() != ::tensorflow::DT_FLOAT ||
        value.NumElements() != 1 || value.data<float>()[0] != 0.0f) {
      return false;
    }
  }
  paddings->resize(8);
  for (int i = 0; i < 8; ++i) {
    (*paddings)[i] =
        p.dtype() == ::tensorflow::DT_INT64 ? p.data<int64_t>()[i] : int64_t{p.data<int32_t>()[i]};
    if ((*paddings)[i] < 0) return false;
  }
  return (*paddings)[0] == 0 && (*paddings)[1] == 0 && (*paddings)[6] == 0 && (*paddings)[7] == 0;
}

bool AddConvPaddings(const Node* conv, std::vector<int64_t>* paddings) {
  std::string padding;
  std::vector<int64_t> explicit_paddings;
  if (!GetNodeAttr(conv->def(), "padding", &padding).ok() ||
      !GetNodeAttrOr(conv->def(), "explicit_paddings", &explicit_paddings).ok()) {
    return false;
  }
  if (padding == "EXPLICIT" && explicit_paddings.size() == 8 && paddings->size() == 8) {
    for (int i = 0; i < 8; ++i) (*paddings)[i] += explicit_paddings[i];
    return true;
  }
  return padding == "VALID";
}

StatusOr<Node*> AddConst(OptimizerContext* ctx, const std::string& name, const Tensor& value,
                         Device* device) {
  ::tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  SetNodeAttr(&def, "dtype", value.dtype());
  if (HoldsConstValueBeside(value)) {
    GRT_ASSIGN_OR_RETURN(Node * node, AddNodeOnDevice(ctx, std::move(def), device));
    node->set_const_value(value);
    return node;
  }
  SetNodeAttr(&def, "value", value);
  return AddNodeOnDevice(ctx, std::move(def), device);
}

void MoveDataOutEdges(Graph* graph, Node* from, int from_output, Node* to, int to_output) {
  for (Edge* e : DataOutEdges(from, from_output)) {
    Node* dst = e->dst;
    const int slot = e->dst_input;
    graph->RemoveEdge(e);
    graph->AddEdge(to, to_output, dst, slot);
  }
}

void CopyControlInputs(Graph* graph, const Node* from, Node* to) {
  std::vector<Node*> sources;
  for (const Edge* e : from->in_edges()) {
    if (e->IsControl()) sources.push_back(e->src);
  }
  for (Node* src : sources) {
    bool present = false;
    for (const Edge* e : to->in_edges()) {
      if (e->IsControl() && e->src == src) present = true;
    }
    if (!present && src != to) graph->AddControlEdge(src, to);
  }
}

void MoveControlOutEdges(Graph* graph, Node* from, Node* to) {
  std::vector<Edge*> edges;
  for (Edge* e : from->out_edges()) {
    if (e->IsControl()) edges.push_back(e);
  }
  for (Edge* e : edges) {
    Node* dst = e->dst;
    graph->RemoveEdge(e);
    bool present = false;
    for (const Edge* in : dst->in_edges()) {
      if (in->IsControl() && in->src == to) present = true;
    }
    if (!present && dst != to) graph->AddControlEdge(to, dst);
  }
}

void RemoveNodeAndDeadConsts(Graph* graph, Node* node) {
  std::set<Node*> inputs;
  for (const Edge* e : node->in_edges()) inputs.insert(e->src);
  graph->RemoveNode(node);
  for (Node* in : inputs) {
    if (IsConst(in) && in->out_edges().empty()) graph->RemoveNode(in);
  }
}

}  // namespace optimize
}  // namespace graphrt
