// Model pruning: Identity, IdentityN, StopGradient, Snapshot and PreventGradient pass their
// inputs on unchanged at inference (IdentityN output i is input i: what a tf.custom_gradient
// such as Keras's swish leaves in a frozen graph), and NoOp only gathers control dependencies;
// their consumers read the input (or depend on the NoOp's dependencies) directly.
//
// Left alone: a fetched node; one whose input or a consumer is on another device (there the
// identity is where the copy happens); a reference input (Identity of a variable reads its
// value at that point); control flow on either side (edges there carry deadness and frames).
#include "runtime/core/str_util.h"
#include "runtime/optimize/optimizer_util.h"

namespace graphrt {
namespace optimize {

namespace {

bool IsPassThrough(const Node* node) {
  const std::string& op = node->op();
  return op == "Identity" || op == "IdentityN" || op == "StopGradient" || op == "Snapshot" ||
         op == "PreventGradient";
}

// Whether every node that `node` touches runs on its device and none is control flow.
bool NeighboursAllowRemoval(const OptimizerContext& ctx, const Node* node) {
  Device* device = DeviceOf(ctx, node);
  for (const Edge* e : node->in_edges()) {
    if (DeviceOf(ctx, e->src) != device || IsControlFlow(e->src)) return false;
  }
  for (const Edge* e : node->out_edges()) {
    if (DeviceOf(ctx, e->dst) != device || IsControlFlow(e->dst) || e->dst->IsRetval()) {
      return false;
    }
  }
  return true;
}

std::vector<Node*> ControlSources(const Node* node) {
  std::vector<Node*> out;
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl()) out.push_back(e->src);
  }
  return out;
}

void AddControlEdgeOnce(Graph* graph, Node* src, Node* dst) {
  if (src == dst) return;
  for (const Edge* e : dst->in_edges()) {
    if (e->IsControl() && e->src == src) return;
  }
  graph->AddControlEdge(src, dst);
}

// Rewires the consumers of pass-through `node`'s output i to its input i; true when it was
// removed.
bool RemovePassThrough(OptimizerContext* ctx, Node* node) {
  std::vector<std::pair<Node*, int>> inputs;  // output i's source: node and output
  for (int i = 0; i < node->num_outputs(); ++i) {
    const Edge* in = node->input_edge(i);
    if (in == nullptr || IsRefType(in->src->output_type(in->src_output))) return false;
    inputs.emplace_back(in->src, in->src_output);
  }
  if (inputs.empty() || !NeighboursAllowRemoval(*ctx, node)) return false;
  Graph* graph = ctx->graph;
  const std::vector<Node*> controls = ControlSources(node);
  std::vector<Node*> consumers, control_consumers;
  for (const Edge* e : node->out_edges()) {
    consumers.push_back(e->dst);
    if (e->IsControl()) control_consumers.push_back(e->dst);
  }
  // The node's own control dependencies now hold for each consumer.
  for (Node* dst : consumers) {
    for (Node* c : controls) AddControlEdgeOnce(graph, c, dst);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    MoveDataOutEdges(graph, node, static_cast<int>(i), inputs[i].first, inputs[i].second);
  }
  // "After the identity ran" becomes "after its inputs' producers ran".
  for (Node* dst : control_consumers) {
    for (const auto& [src, output] : inputs) AddControlEdgeOnce(graph, src, dst);
  }
  graph->RemoveNode(node);
  return true;
}

// A NoOp between control inputs and control consumers: each consumer depends on each input
// directly, unless that multiplies the edges (TensorFlow's dependency optimizer's rule).
bool RemoveNoOp(OptimizerContext* ctx, Node* node) {
  if (node->out_edges().empty()) return false;  // a target: what the caller runs
  if (!NeighboursAllowRemoval(*ctx, node)) return false;
  const size_t ins = node->in_edges().size(), outs = node->out_edges().size();
  if (ins * outs > ins + outs) return false;
  Graph* graph = ctx->graph;
  const std::vector<Node*> controls = ControlSources(node);
  std::vector<Node*> consumers;
  for (const Edge* e : node->out_edges()) consumers.push_back(e->dst);
  for (Node* dst : consumers) {
    for (Node* c : controls) AddControlEdgeOnce(graph, c, dst);
  }
  graph->RemoveNode(node);
  return true;
}

}  // namespace

Status PruneIdentities(OptimizerContext* ctx, std::vector<RewriteRecord>* records) {
  for (Node* node : TopologicalOrder(*ctx->graph)) {
    const bool pass_through = IsPassThrough(node);
    if (!pass_through && node->op() != "NoOp") continue;
    RewriteRecord record{"model_pruning", node->name(), "", {node->name()}, {node->op()}};
    const bool removed = pass_through ? RemovePassThrough(ctx, node) : RemoveNoOp(ctx, node);
    if (removed) records->push_back(std::move(record));
  }
  return Status::OK();
}

}  // namespace optimize
}  // namespace graphrt
