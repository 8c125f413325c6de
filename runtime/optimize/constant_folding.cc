// Constant folding: a node whose data inputs are all Const is run once, now, with graphrt's own
// CPU kernel, and becomes Const nodes of its outputs; Shape, Size and Rank of a tensor whose
// shape is known before the run (from Consts, declared feed shapes and the ops' shape
// functions) become Consts too. Folding runs in topological order, so chains fold whole.
//
// Not folded: stateful ops (random numbers, variables, I/O), control flow, ops that call
// functions, fetched nodes (their _Retval keeps reading the node it names), nodes off the CPU
// (a GPU node stays a GPU kernel), outputs over the size cap, a node whose kernel fails (the
// run reports the error, as it would have without folding), and, when remapping is on, the
// Dequantize of int8 weights that remapping turns into an int8 product (int8_weights.cc).
#include <memory>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/ops/op_registry.h"
#include "runtime/optimize/optimizer_util.h"

namespace graphrt {
namespace optimize {

namespace {

bool IsFoldableType(DataType t) {
  return t != ::tensorflow::DT_INVALID && !IsRefType(t) && t != ::tensorflow::DT_RESOURCE &&
         t != ::tensorflow::DT_VARIANT;
}

// Ops the registry may not mark stateful whose results change from run to run or that act.
bool HasSideEffectsOrState(const Node* node) {
  const std::string& op = node->op();
  if (node->op_def()->is_stateful()) return true;
  if (!StartsWith(op, "Stateless") && op.find("Random") != std::string::npos) return true;
  for (const char* name : {"Multinomial", "TruncatedNormal", "ParameterizedTruncatedNormal",
                           "Print", "PrintV2", "Assert", "Timestamp", "Placeholder",
                           "PlaceholderV2", "PlaceholderWithDefault", "_Arg", "_Retval"}) {
    if (op == name) return true;
  }
  for (const auto& attr : node->op_def()->attr()) {
    if (attr.type() == "func" || attr.type() == "list(func)") return true;
  }
  return false;
}

// Shape, Size or Rank of a statically known shape: the value, else an uninitialized tensor.
Tensor StaticShapeValue(const Node* node, const ShapeMap& shapes) {
  const std::string& op = node->op();
  if (op != "Shape" && op != "Size" && op != "Rank") return Tensor();
  const Edge* in = node->input_edge(0);
  if (in == nullptr) return Tensor();
  const auto& src_shapes = shapes[in->src->id()];
  if (in->src_output >= static_cast<int>(src_shapes.size())) return Tensor();
  const PartialTensorShape& shape = src_shapes[in->src_output];
  if (op == "Rank") {
    if (shape.unknown_rank()) return Tensor();
    return Tensor::Scalar<int32_t>(shape.dims());
  }
  if (!shape.IsFullyDefined()) return Tensor();
  const bool int64 = node->output_type(0) == ::tensorflow::DT_INT64;
  if (op == "Size") {
    int64_t n = 1;
    for (int64_t d : shape.dim_sizes()) n *= d;
    if (int64) return Tensor::Scalar<int64_t>(n);
    if (n > INT32_MAX) return Tensor();
    return Tensor::Scalar<int32_t>(static_cast<int32_t>(n));
  }
  if (int64) return Tensor::Vector<int64_t>(shape.dim_sizes());
  std::vector<int32_t> dims;
  for (int64_t d : shape.dim_sizes()) {
    if (d > INT32_MAX) return Tensor();
    dims.push_back(static_cast<int32_t>(d));
  }
  return Tensor::Vector<int32_t>(dims);
}

// Whether `node` may be evaluated now: every data input a Const without control inputs.
bool InputsAreConstant(const Node* node, std::vector<Tensor>* values) {
  if (node->num_inputs() == 0) return false;
  values->assign(static_cast<size_t>(node->num_inputs()), Tensor());
  int seen = 0;
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl()) continue;
    if (!IsConst(e->src, &(*values)[e->dst_input]) || HasControlInEdges(e->src)) return false;
    ++seen;
  }
  return seen == node->num_inputs();
}

// Runs `node`'s CPU kernel on `inputs`; an error leaves the node to the run.
StatusOr<std::vector<Tensor>> Evaluate(const OptimizerContext& ctx, const Node* node,
                                       const std::vector<Tensor>& inputs) {
  GRT_ASSIGN_OR_RETURN(
      std::unique_ptr<OpKernel> kernel,
      KernelRegistry::Global()->CreateKernel(kDeviceCpu, node->def(), ctx.host, nullptr));
  std::vector<Entry> entries(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    entries[i].tensor = inputs[i];
    entries[i].has_value = true;
  }
  StepState step;
  OpKernelContext::Params params;
  params.kernel = kernel.get();
  params.device = ctx.host;
  params.inputs = &entries;
  params.step = &step;
  OpKernelContext op_ctx(params);
  GRT_RETURN_IF_ERROR(kernel->Compute(&op_ctx));
  std::vector<Tensor> outputs;
  for (Entry& entry : op_ctx.outputs()) {
    if (!entry.has_value || entry.ref != nullptr) return Unimplemented("no plain value");
    outputs.push_back(entry.tensor);
  }
  return outputs;
}

void SetReplaced(Node* node, const std::vector<std::string>& replaced) {
  ::tensorflow::AttrValue value;
  for (const std::string& r : replaced) value.mutable_list()->add_s(r);
  (*node->mutable_def()->mutable_attr())[kReplacedAttr] = value;
}

// Replaces `node` by Consts of `values` (one per output that is read), keeping its name for
// output 0 and its control edges.
Status ReplaceByConsts(OptimizerContext* ctx, Node* node, const std::vector<Tensor>& values,
                       std::vector<RewriteRecord>* records) {
  Graph* graph = ctx->graph;
  Device* device = DeviceOf(*ctx, node);
  const std::string name = node->name();
  const std::string described = Describe(node);
  const std::string op = node->op();
  struct Use {
    Node* dst;
    int output, slot;
  };
  std::vector<Use> uses;
  std::vector<Node*> control_in, control_out;
  for (const Edge* e : node->out_edges()) {
    if (e->IsControl()) {
      control_out.push_back(e->dst);
    } else {
      uses.push_back({e->dst, e->src_output, e->dst_input});
    }
  }
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl()) control_in.push_back(e->src);
  }
  RemoveNodeAndDeadConsts(graph, node);
  std::vector<Node*> consts(values.size(), nullptr);
  auto const_for = [&](int output) -> StatusOr<Node*> {
    if (consts[output] != nullptr) return consts[output];
    std::string const_name = output == 0 ? name : StrCat(name, "/_folded_output_", output);
    while (graph->FindNode(const_name) != nullptr) const_name += "_";
    GRT_ASSIGN_OR_RETURN(Node * c, AddConst(ctx, const_name, values[output], device));
    SetReplaced(c, {described});
    for (Node* src : control_in) graph->AddControlEdge(src, c);
    consts[output] = c;
    records->push_back({"constant_folding", const_name, "Const", {name}, {op}});
    return c;
  };
  for (const Use& use : uses) {
    GRT_ASSIGN_OR_RETURN(Node * c, const_for(use.output));
    graph->AddEdge(c, 0, use.dst, use.slot);
  }
  if (!control_out.empty()) {
    GRT_ASSIGN_OR_RETURN(Node * c, const_for(0));
    for (Node* dst : control_out) graph->AddControlEdge(c, dst);
  }
  return Status::OK();
}

}  // namespace

void InferShape(const OptimizerContext& ctx, Node* node, ShapeMap* shapes) {
  std::vector<PartialTensorShape>& out = (*shapes)[node->id()];
  out.assign(static_cast<size_t>(node->num_outputs()), PartialTensorShape());
  if (node->IsArg()) {
    int64_t index = -1;
    if (GetNodeAttr(node->def(), "index", &index).ok() && index >= 0 &&
        index < static_cast<int64_t>(ctx.arg_shapes.size())) {
      out[0] = ctx.arg_shapes[index];
    }
    return;
  }
  Tensor value;
  if (IsConst(node, &value)) {
    out[0] = PartialTensorShape(value.shape().dim_sizes());
    return;
  }
  const OpRegistration* reg = OpRegistry::Global()->Find(node->op());
  if (reg == nullptr || !reg->shape_fn || IsControlFlow(node)) return;
  std::vector<PartialTensorShape> inputs(static_cast<size_t>(node->num_inputs()));
  std::vector<Tensor> values(static_cast<size_t>(node->num_inputs()));
  std::vector<const Tensor*> known(static_cast<size_t>(node->num_inputs()), nullptr);
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl() || e->dst_input >= node->num_inputs()) continue;
    const auto& src_shapes = (*shapes)[e->src->id()];
    if (e->src_output < static_cast<int>(src_shapes.size())) {
      inputs[e->dst_input] = src_shapes[e->src_output];
    }
    if (IsConst(e->src, &values[e->dst_input])) known[e->dst_input] = &values[e->dst_input];
  }
  InferenceContext c(node->def(), std::move(inputs), std::move(known), node->num_outputs());
  if (!reg->shape_fn(&c).ok()) return;
  for (int i = 0; i < node->num_outputs(); ++i) out[i] = c.output(i);
}

Status FoldConstants(const OptimizerOptions& options, OptimizerContext* ctx,
                     std::vector<RewriteRecord>* records) {
  ShapeMap shapes(static_cast<size_t>(ctx->graph->num_node_ids()));
  // Nodes inside a while loop's frame (after an Enter, before its Exit): a Const made for one of
  // them would sit in the root frame, which the loop cannot read without an Enter.
  std::vector<bool> in_loop(static_cast<size_t>(ctx->graph->num_node_ids()), false);
  for (Node* node : TopologicalOrder(*ctx->graph)) {
    for (const Edge* e : node->in_edges()) {
      if (e->src->id() < static_cast<int>(in_loop.size()) && !e->src->IsExit() &&
          (e->src->IsEnter() || in_loop[e->src->id()])) {
        in_loop[node->id()] = true;
      }
    }
    if (node->op_def() == nullptr || node->op() == "Const") {
      if (node->op() == "Const") InferShape(*ctx, node, &shapes);
      continue;
    }
    Device* device = DeviceOf(*ctx, node);
    bool foldable = device != nullptr && device->device_type() == kDeviceCpu && !IsFetched(node) &&
                    !IsControlFlow(node) && !HasSideEffectsOrState(node);
    for (DataType t : node->output_types()) foldable = foldable && IsFoldableType(t);
    // Int8 weights that remapping will multiply as int8 (int8_weights.cc) stay int8.
    foldable = foldable && !(options.remapping && IsInt8WeightsDequantize(*ctx, node));
    if (foldable) {
      std::vector<Tensor> values;
      Tensor shape_value = in_loop[node->id()] ? Tensor() : StaticShapeValue(node, shapes);
      if (shape_value.IsInitialized()) {
        values.push_back(shape_value);
      } else {
        std::vector<Tensor> inputs;
        if (InputsAreConstant(node, &inputs)) {
          StatusOr<std::vector<Tensor>> outputs = Evaluate(*ctx, node, inputs);
          if (outputs.ok()) values = std::move(*outputs);
        }
      }
      bool fits = !values.empty() && values.size() == static_cast<size_t>(node->num_outputs());
      for (const Tensor& v : values) {
        fits = fits && v.IsInitialized() && !v.in_device_memory() &&
               static_cast<int64_t>(v.TotalBytes()) <= options.max_constant_bytes;
      }
      if (fits) {
        const int first_new = ctx->graph->num_node_ids();
        GRT_RETURN_IF_ERROR(ReplaceByConsts(ctx, node, values, records));
        // The Consts made carry the shapes of their values for the nodes that follow.
        shapes.resize(static_cast<size_t>(ctx->graph->num_node_ids()));
        for (int id = first_new; id < ctx->graph->num_node_ids(); ++id) {
          if (ctx->graph->node(id) != nullptr) InferShape(*ctx, ctx->graph->node(id), &shapes);
        }
        continue;
      }
    }
    InferShape(*ctx, node, &shapes);
  }
  return Status::OK();
}

}  // namespace optimize
}  // namespace graphrt
