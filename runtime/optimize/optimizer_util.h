// What the optimizer's passes share: where a node runs, who reads a tensor, adding a node on the
// device of the ones it replaces, and moving edges. Internal to runtime/optimize.
#ifndef GRAPHRT_RUNTIME_OPTIMIZE_OPTIMIZER_UTIL_H_
#define GRAPHRT_RUNTIME_OPTIMIZE_OPTIMIZER_UTIL_H_

#include <string>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/optimize/graph_optimizer.h"

namespace graphrt {
namespace optimize {

inline Device* DeviceOf(const OptimizerContext& ctx, const Node* node) {
  return (*ctx.devices)[node->id()];
}

// "name (Op)", as RewriteRecord lists replaced nodes.
std::string Describe(const Node* node);

// The data edges out of `node`'s output `output`.
std::vector<Edge*> DataOutEdges(const Node* node, int output);
bool HasControlOutEdges(const Node* node);
bool HasControlInEdges(const Node* node);
// Whether a _Retval reads any output of `node` (the node is fetched).
bool IsFetched(const Node* node);
// The only consumer of `node` (through one data edge of output 0, no control edges, not
// fetched); null when there are others or none.
Node* SoleConsumer(const Node* node);
// The same, but `node` may also have control edges out (a Keras graph's NoOp that waits for
// every variable read).
Node* SoleDataConsumer(const Node* node);
// The node feeding data input `i`, or null.
Node* InputNode(const Node* node, int i);
// Whether `node` is a Const (its value in *value when not null; it may share the graph's
// buffer, so nothing may write into it).
bool IsConst(const Node* node, Tensor* value = nullptr);
// Control flow nodes (Switch, Merge, Enter, Exit, NextIteration, LoopCond) whose edges carry
// deadness and frames: the passes never rewrite around them.
bool IsControlFlow(const Node* node);

// Nodes in an order where every node follows its inputs; nodes on a cycle (a while loop's
// back edge) are left out, so the passes never touch them.
std::vector<Node*> TopologicalOrder(const Graph& graph);

// Adds `def` on `device` (its assigned device set, ctx.devices grown to cover its id).
StatusOr<Node*> AddNodeOnDevice(OptimizerContext* ctx, ::tensorflow::NodeDef def, Device* device);
// Replaces `node` by one made from `def` (its name and edges; a change of attrs, type attrs
// included) on the same device. `node` is gone afterwards.
StatusOr<Node*> RebuildNode(OptimizerContext* ctx, Node* node, ::tensorflow::NodeDef def);
// The [4, 2] paddings of a Const Pad (or PadV2 with a Const zero), in NHWC; false when the pad
// is not one a convolution can do itself (non-zero value, batch or channel padding).
bool ZeroPadding(const Node* pad, std::vector<int64_t>* paddings);
// Adds to `paddings` (a zero Pad's, ZeroPadding's layout) those of convolution `conv`: its
// explicit_paddings where its padding is EXPLICIT, none where VALID; false where it pads SAME.
bool AddConvPaddings(const Node* conv, std::vector<int64_t>* paddings);
// A Const node holding `value`.
StatusOr<Node*> AddConst(OptimizerContext* ctx, const std::string& name, const Tensor& value,
                         Device* device);

// Moves every data edge out of from:from_output to to:to_output.
void MoveDataOutEdges(Graph* graph, Node* from, int from_output, Node* to, int to_output);
// Gives `to` the control inputs of `from` (from keeps them).
void CopyControlInputs(Graph* graph, const Node* from, Node* to);
// Moves the control edges out of `from` to leave `to` instead.
void MoveControlOutEdges(Graph* graph, Node* from, Node* to);
// Removes `node`, then each Const that fed it and now feeds nothing.
void RemoveNodeAndDeadConsts(Graph* graph, Node* node);

// The static shapes of every node's outputs, by node id (unknown where no shape function or
// feed shape tells).
using ShapeMap = std::vector<std::vector<PartialTensorShape>>;
// Sets (*shapes)[node->id()] from its inputs' entries (REQUIRES: shapes covers node's id).
void InferShape(const OptimizerContext& ctx, Node* node, ShapeMap* shapes);

// The passes (each file of this folder).
Status PruneIdentities(OptimizerContext* ctx, std::vector<RewriteRecord>* records);
Status FoldConstants(const OptimizerOptions& options, OptimizerContext* ctx,
                     std::vector<RewriteRecord>* records);
Status FoldIntoWeights(OptimizerContext* ctx, std::vector<RewriteRecord>* records);
Status Remap(OptimizerContext* ctx, std::vector<RewriteRecord>* records);
// mixed_precision.cc: Grappler's auto_mixed_precision for CPU nodes (REQUIRES: mode != kNone).
Status AutoMixedPrecision(ReducedPrecision mode, OptimizerContext* ctx,
                          std::vector<RewriteRecord>* records);
// int8_weights.cc: products of Dequantize'd int8 Const weights into graphrt's int8 ops (after
// Remap); constant folding keeps the Dequantize nodes that this pass will take.
Status RemapInt8Weights(OptimizerContext* ctx, std::vector<RewriteRecord>* records);
bool IsInt8WeightsDequantize(const OptimizerContext& ctx, const Node* node);

}  // namespace optimize
}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_OPTIMIZE_OPTIMIZER_UTIL_H_
