// The graph optimizer: rewrites one plan's graph (after RewriteGraphForCall and device
// assignment, before device copies) so that it computes the same fetches with less work.
//
// Passes, in order: model pruning (Identity, StopGradient, Snapshot, NoOp), constant folding
// (nodes whose inputs are all Const, and Shape/Size/Rank of static shapes), arithmetic
// (FusedBatchNorm in inference and constant Mul after a convolution or MatMul folded into its
// weights), remapping (Conv2D / DepthwiseConv2dNative / MatMul + BiasAdd + activation, and
// residual Add, into _FusedConv2D / _FusedDepthwiseConv2dNative / _FusedMatMul; then MatMul /
// Conv2D and their fused forms whose weights are Dequantize'd int8 Consts into graphrt's int8
// _GraphrtQuantizedMatMul / _GraphrtQuantizedConv2D). Auto mixed precision, when asked for, runs
// between arithmetic and remapping (mixed_precision.cc): CPU ops on TensorFlow's lists move to
// float16 or bfloat16 between Casts, which constant folding then folds into Const weights; the
// remapper fuses float32 ops only, so a moved op stays unfused.
//
// Invariants every pass keeps: a fed (_Arg) or fetched (read by a _Retval) tensor is never
// rewritten away; a rewrite never spans two devices and never moves a node to another device;
// control dependencies are kept. Each rewrite is returned as a RewriteRecord, and a fused or
// folded node carries the names it replaced in its "_graphrt_replaced" attr.
#ifndef GRAPHRT_RUNTIME_OPTIMIZE_GRAPH_OPTIMIZER_H_
#define GRAPHRT_RUNTIME_OPTIMIZE_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <vector>

#include <graphrt/placement.h>

#include "runtime/core/status.h"
#include "runtime/core/tensor_shape.h"
#include "runtime/devices/device.h"
#include "runtime/graph/graph.h"

namespace graphrt {

struct OptimizerOptions {
  bool model_pruning = true;
  bool constant_folding = true;
  bool arithmetic_optimization = true;
  bool remapping = true;
  ReducedPrecision cpu_mixed_precision = ReducedPrecision::kNone;
  // A folded constant larger than this stays computed (TensorFlow's kMaxConstantSize).
  int64_t max_constant_bytes = 10 * 1024 * 1024;
};

// The attr on a node made by a rewrite that lists the nodes it replaced.
inline constexpr char kReplacedAttr[] = "_graphrt_replaced";

// One rewrite: `node` (op `op`) now stands for the nodes `replaced` (which may include `node`
// itself, when a fused node keeps the last replaced node's name). A removed node: empty `op`.
struct RewriteRecord {
  // "model_pruning", "constant_folding", "arithmetic_optimization", "auto_mixed_precision",
  // "remapping".
  std::string pass;
  std::string node;
  std::string op;
  std::vector<std::string> replaced;      // node names
  std::vector<std::string> replaced_ops;  // their ops, in the same order
  // auto_mixed_precision: the type `node` now computes in ("float16", "bfloat16"); the
  // placement report's precision for it.
  std::string precision = {};  // (initialized: aggregate inits elsewhere stop before it)
  // A node added without replacing any (a Cast): the device it runs on.
  std::string device = {};
  // "remapping: relu (_FusedConv2D) replaces conv (Conv2D), bias (BiasAdd), relu (Relu)";
  // "auto_mixed_precision: fc (MatMul) runs in float16"; "auto_mixed_precision: x/CastToFp16
  // (Cast) added".
  std::string ToString() const;
};

// What the optimizer works with. `devices` holds each node's device by node id; nodes the
// optimizer adds get the device of the nodes they replace (the vector grows).
struct OptimizerContext {
  Graph* graph = nullptr;
  std::vector<Device*>* devices = nullptr;
  // The shape each _Arg (by its "index") is declared with; unknown where absent.
  std::vector<PartialTensorShape> arg_shapes;
  // A CPU device to evaluate folded constants on.
  Device* host = nullptr;
};

// Runs the passes `options` turns on. A pass that cannot rewrite a pattern leaves it alone;
// errors are for a graph the optimizer left inconsistent (a bug), never for a model it cannot
// improve.
Status OptimizeGraph(const OptimizerOptions& options, OptimizerContext* context,
                     std::vector<RewriteRecord>* records);

// `report` with the rewrites shown: a node made by a rewrite gets its new op and, in its reason,
// the record; a node it replaced says into which node it went; a removed node says so.
PlacementReport WithRewrites(const PlacementReport& report,
                             const std::vector<RewriteRecord>& records);

// OptimizerOptions from the environment: GRAPHRT_OPTIMIZER=0 turns every pass off.
bool OptimizerDisabledByEnvironment();

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_OPTIMIZE_GRAPH_OPTIMIZER_H_
