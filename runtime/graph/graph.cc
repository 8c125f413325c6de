#include "runtime/graph/graph.h"

#include <algorithm>
#include <deque>

#include <google/protobuf/unknown_field_set.h>

#include "runtime/core/attr_util.h"
#include "runtime/ops/op_registry.h"

namespace graphrt {

std::string TensorId::ToString() const {
  if (index == kControlSlot) return StrCat("^", node);
  return StrCat(node, ":", index);
}

StatusOr<TensorId> ParseTensorName(const std::string& name) {
  TensorId id;
  if (!name.empty() && name[0] == '^') {
    id.node = name.substr(1);
    id.index = kControlSlot;
  } else {
    size_t colon = name.rfind(':');
    long long index = 0;
    if (colon != std::string::npos &&
        ParseInt64(std::string_view(name).substr(colon + 1), &index)) {
      if (index < 0 || index > (1 << 24)) {
        return InvalidArgument("bad output index in tensor name '", name, "'");
      }
      id.node = name.substr(0, colon);
      id.index = static_cast<int>(index);
    } else {
      id.node = name;
    }
  }
  if (id.node.empty()) return InvalidArgument("empty node name in tensor name '", name, "'");
  return id;
}

const Edge* Node::input_edge(int i) const {
  for (const Edge* e : in_edges_) {
    if (e->dst_input == i) return e;
  }
  return nullptr;
}

void UpgradeLegacyPlaceholderShape(int producer, ::tensorflow::NodeDef* def) {
  if (producer > kLastLegacyPlaceholderProducer || def->op() != "Placeholder") return;
  auto it = def->mutable_attr()->find("shape");
  if (it == def->mutable_attr()->end() || !it->second.has_shape()) return;
  ::tensorflow::TensorShapeProto* shape = it->second.mutable_shape();
  if (shape->dim_size() == 0 && !shape->unknown_rank()) shape->set_unknown_rank(true);
}

Status PlaceholderShape(const ::tensorflow::NodeDef& def, int producer, PartialTensorShape* shape) {
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(def, "shape", shape));
  if (producer <= kLastLegacyPlaceholderProducer && def.op() == "Placeholder" &&
      shape->dims() == 0) {
    *shape = PartialTensorShape();
  }
  return Status::OK();
}

namespace {
constexpr size_t kConstValueBesideBytes = 1024;
}  // namespace

bool HoldsConstValueBeside(const Tensor& value) {
  return value.IsInitialized() && !value.in_device_memory() && IsPodType(value.dtype()) &&
         value.TotalBytes() >= kConstValueBesideBytes;
}

void SeparateConstValues(const ::tensorflow::GraphDef& def, ::tensorflow::GraphDef* out,
                         ConstValues* values) {
  out->Clear();
  if (def.has_versions()) *out->mutable_versions() = def.versions();
  *out->mutable_library() = def.library();
  out->mutable_node()->Reserve(def.node_size());
  for (const ::tensorflow::NodeDef& node : def.node()) {
    ::tensorflow::NodeDef* copy = out->add_node();
    auto it = node.attr().find("value");
    // Only bytes in tensor_content are worth it: a value written as a few *_val entries is small
    // in the NodeDef however large it decodes.
    if (node.op() != "Const" || it == node.attr().end() || !it->second.has_tensor() ||
        it->second.tensor().tensor_content().size() < kConstValueBesideBytes) {
      *copy = node;
      continue;
    }
    StatusOr<Tensor> value = Tensor::FromProto(it->second.tensor());
    if (!value.ok() || !HoldsConstValueBeside(*value)) {
      *copy = node;
      continue;
    }
    // Field by field, so that the value's bytes are never copied.
    copy->set_name(node.name());
    copy->set_op(node.op());
    *copy->mutable_input() = node.input();
    copy->set_device(node.device());
    if (node.has_experimental_debug_info()) {
      *copy->mutable_experimental_debug_info() = node.experimental_debug_info();
    }
    if (node.has_experimental_type()) *copy->mutable_experimental_type() = node.experimental_type();
    copy->GetReflection()->MutableUnknownFields(copy)->MergeFrom(
        node.GetReflection()->GetUnknownFields(node));
    for (const auto& [name, attr] : node.attr()) {
      if (name != "value") (*copy->mutable_attr())[name] = attr;
    }
    (*values)[node.name()] = *std::move(value);
  }
}

Graph::Graph() { versions_.set_producer(0); }
Graph::~Graph() = default;

StatusOr<Node*> Graph::AddNode(::tensorflow::NodeDef def) {
  if (def.name().empty()) return InvalidArgument("a node has no name (op '", def.op(), "')");
  if (by_name_.count(def.name()) > 0) {
    return InvalidArgument("Node '", def.name(),
                           "' is not unique: the graph has two nodes named so");
  }
  auto node = std::make_unique<Node>();
  node->id_ = static_cast<int>(nodes_.size());
  const OpRegistration* reg = OpRegistry::Global()->Find(def.op());
  if (reg != nullptr) {
    AddDefaultAttrs(reg->op_def, &def);
    node->op_def_ = &reg->op_def;
    Status s = InOutTypesForNode(def, reg->op_def, &node->input_types_, &node->output_types_);
    if (!s.ok()) return s;
  } else {
    int data_inputs = 0;
    for (const std::string& input : def.input()) {
      if (!input.empty() && input[0] != '^') ++data_inputs;
    }
    node->input_types_.assign(static_cast<size_t>(data_inputs), ::tensorflow::DT_INVALID);
  }
  node->def_ = std::move(def);
  Node* raw = node.get();
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  return raw;
}

void Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  auto edge = std::make_unique<Edge>(Edge{src, src_output, dst, dst_input});
  src->out_edges_.push_back(edge.get());
  dst->in_edges_.push_back(edge.get());
  edges_.push_back(std::move(edge));
}

void Graph::RemoveEdge(Edge* edge) {
  auto& outs = edge->src->out_edges_;
  outs.erase(std::remove(outs.begin(), outs.end(), edge), outs.end());
  auto& ins = edge->dst->in_edges_;
  ins.erase(std::remove(ins.begin(), ins.end(), edge), ins.end());
  edge->src = edge->dst = nullptr;
}

void Graph::RemoveNode(Node* node) {
  std::vector<Edge*> edges = node->in_edges_;
  edges.insert(edges.end(), node->out_edges_.begin(), node->out_edges_.end());
  for (Edge* e : edges) RemoveEdge(e);
  by_name_.erase(node->name());
  nodes_[node->id()].reset();
}

Node* Graph::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(by_name_.size());
  for (const auto& n : nodes_) {
    if (n) out.push_back(n.get());
  }
  return out;
}

StatusOr<std::unique_ptr<Graph>> Graph::FromGraphDef(const ::tensorflow::GraphDef& def,
                                                     const ConstValues* values) {
  auto graph = std::make_unique<Graph>();
  *graph->mutable_library() = def.library();
  if (def.has_versions()) graph->versions_ = def.versions();
  std::vector<Node*> nodes;
  nodes.reserve(def.node_size());
  for (const ::tensorflow::NodeDef& node_def : def.node()) {
    ::tensorflow::NodeDef upgraded = node_def;
    UpgradeLegacyPlaceholderShape(graph->versions_.producer(), &upgraded);
    GRT_ASSIGN_OR_RETURN(Node * node, graph->AddNode(std::move(upgraded)));
    if (values != nullptr && node->op() == "Const" && node->def().attr().count("value") == 0) {
      auto it = values->find(node->name());
      if (it != values->end()) node->const_value_ = it->second;
    }
    nodes.push_back(node);
  }
  // Output counts of unknown ops come from what their consumers name.
  std::unordered_map<Node*, int> unknown_outputs;
  for (Node* node : nodes) {
    bool seen_control = false;
    int data_index = 0;
    std::vector<std::pair<TensorId, int>> inputs;
    for (const std::string& input : node->def().input()) {
      StatusOr<TensorId> id = ParseTensorName(input);
      if (!id.ok()) {
        Status s = id.status();
        return s.Prepend(StrCat("Node '", node->name(), "'"));
      }
      if (id->index == kControlSlot) {
        seen_control = true;
      } else if (seen_control) {
        return InvalidArgument("Node '", node->name(),
                               "': All control inputs must follow all data inputs");
      }
      Node* src = graph->FindNode(id->node);
      if (src == nullptr) {
        return InvalidArgument("Node '", node->name(), "': Unknown input node '", input, "'");
      }
      if (id->index == kControlSlot) {
        graph->AddControlEdge(src, node);
        continue;
      }
      if (src->op_def() == nullptr) {
        int& count = unknown_outputs[src];
        count = std::max(count, id->index + 1);
      } else if (id->index >= src->num_outputs()) {
        return InvalidArgument("Node '", node->name(), "': Connecting to invalid output ",
                               id->index, " of source node ", src->name(), " which has ",
                               src->num_outputs(), " outputs");
      }
      graph->AddEdge(src, id->index, node, data_index++);
    }
    if (node->op_def() != nullptr && data_index != node->num_inputs()) {
      std::vector<std::string> expected;
      for (DataType t : node->input_types()) expected.push_back(DataTypeString(t));
      return InvalidArgument("Node '", node->name(), "' (", node->op(), "): expected ",
                             node->num_inputs(), " inputs (", StrJoin(expected, ", "), ") but ",
                             data_index, " are given");
    }
  }
  // An unknown op's outputs take the dtypes their known consumers expect, so that a feed may cut
  // the graph below it (the op is then pruned away); outputs no known op reads stay DT_INVALID.
  for (auto& [node, count] : unknown_outputs) {
    node->output_types_.assign(static_cast<size_t>(count), ::tensorflow::DT_INVALID);
    for (const Edge* e : node->out_edges()) {
      if (e->IsControl() || e->dst->op_def() == nullptr) continue;
      DataType& type = node->output_types_[e->src_output];
      if (type == ::tensorflow::DT_INVALID) type = BaseType(e->dst->input_types()[e->dst_input]);
    }
  }
  // Dtypes must agree along each edge (a reference may feed a value).
  for (Node* node : nodes) {
    for (const Edge* e : node->in_edges()) {
      if (e->IsControl() || e->src->op_def() == nullptr || node->op_def() == nullptr) continue;
      DataType produced = e->src->output_type(e->src_output);
      DataType expected = node->input_types()[e->dst_input];
      bool ok = produced == expected || BaseType(produced) == expected;
      if (!ok) {
        return InvalidArgument("Input ", e->dst_input, " of node ", node->name(), " was passed ",
                               DataTypeString(produced), " from ", e->src->name(), ":",
                               e->src_output, " incompatible with expected ",
                               DataTypeString(expected), ".");
      }
    }
  }
  return graph;
}

void Graph::ToGraphDef(::tensorflow::GraphDef* def) const {
  def->Clear();
  *def->mutable_versions() = versions_;
  *def->mutable_library() = library_;
  for (const auto& node : nodes_) {
    if (!node) continue;
    ::tensorflow::NodeDef* out = def->add_node();
    *out = node->def();
    out->clear_input();
    if (node->const_value().IsInitialized() && out->attr().count("value") == 0) {
      SetNodeAttr(out, "value", node->const_value());
    }
    std::vector<const Edge*> data(static_cast<size_t>(node->num_inputs()), nullptr);
    std::vector<std::string> controls;
    for (const Edge* e : node->in_edges()) {
      if (e->IsControl()) {
        controls.push_back(StrCat("^", e->src->name()));
      } else if (e->dst_input < static_cast<int>(data.size())) {
        data[e->dst_input] = e;
      }
    }
    for (const Edge* e : data) {
      if (e == nullptr) continue;
      out->add_input(e->src_output == 0 ? e->src->name()
                                        : StrCat(e->src->name(), ":", e->src_output));
    }
    for (const std::string& c : controls) out->add_input(c);
  }
}

void PruneForRoots(Graph* graph, const std::vector<Node*>& roots) {
  std::vector<bool> keep(static_cast<size_t>(graph->num_node_ids()), false);
  std::deque<Node*> queue;
  for (Node* n : roots) {
    if (!keep[n->id()]) {
      keep[n->id()] = true;
      queue.push_back(n);
    }
  }
  while (!queue.empty()) {
    Node* n = queue.front();
    queue.pop_front();
    for (const Edge* e : n->in_edges()) {
      if (!keep[e->src->id()]) {
        keep[e->src->id()] = true;
        queue.push_back(e->src);
      }
    }
  }
  for (Node* n : graph->nodes()) {
    if (!keep[n->id()]) graph->RemoveNode(n);
  }
}

}  // namespace graphrt
