#include "migrate/graph_migration.h"

#include <deque>
#include <map>
#include <set>

#include "function.pb.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"
#include "runtime/core/tensor.h"

namespace graphrt {
namespace migrate {

namespace {

// "BASE/part_N" (a partitioned variable's N-th part, N a decimal index) -> BASE and N.
bool SplitPartKey(const std::string& key, std::string* base, int* part) {
  const size_t at = key.rfind("/part_");
  if (at == std::string::npos || at == 0) return false;
  const std::string digits = key.substr(at + 6);
  long long n;
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos || !ParseInt64(digits, &n)) {
    return false;
  }
  *base = key.substr(0, at);
  *part = static_cast<int>(n);
  return true;
}

using ::tensorflow::AttrValue;
using ::tensorflow::NodeDef;

// Inputs are "node", "node:k" or "^node" (a control edge).
bool IsControl(const std::string& input) { return !input.empty() && input[0] == '^'; }
std::string NodeOf(const std::string& input) {
  std::string s = IsControl(input) ? input.substr(1) : input;
  const size_t colon = s.find(':');
  return colon == std::string::npos ? s : s.substr(0, colon);
}
// Graphs write "node:k"; function bodies "node:output_arg:k".
int IndexOf(const std::string& input) {
  const size_t colon = input.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(input.c_str() + colon + 1);
}
std::string TensorKey(const std::string& node, int index) { return StrCat(node, ":", index); }
std::string InputFor(const std::string& node, int index) {
  return index == 0 ? node : StrCat(node, ":", index);
}

using Nodes = google::protobuf::RepeatedPtrField<NodeDef>;
using Returns = google::protobuf::Map<std::string, std::string>;

// Replaces data inputs (and a function's results, `ret`) by `forward` (keys "node:k", followed
// transitively) and control inputs on `removed` nodes by a control input on what replaced them,
// then deletes the removed nodes.
void Rewire(const std::map<std::string, std::string>& forward, const std::set<std::string>& removed,
            Nodes* nodes, Returns* ret = nullptr) {
  auto resolve = [&](std::string input) {
    for (int hops = 0; hops < 1000; ++hops) {
      auto it = forward.find(TensorKey(NodeOf(input), IndexOf(input)));
      if (it == forward.end()) break;
      input = it->second;
    }
    return input;
  };
  Nodes out;
  for (NodeDef& node : *nodes) {
    if (removed.count(node.name()) != 0) continue;
    std::vector<std::string> data, control;
    std::set<std::string> seen_control;
    for (const std::string& input : node.input()) {
      if (!IsControl(input)) {
        data.push_back(resolve(input));
        continue;
      }
      std::string target = NodeOf(input);
      if (removed.count(target) != 0) {
        auto it = forward.find(TensorKey(target, 0));
        if (it == forward.end()) continue;
        target = NodeOf(resolve(it->second));
        if (removed.count(target) != 0) continue;
      }
      if (seen_control.insert(target).second) control.push_back("^" + target);
    }
    node.clear_input();
    for (const std::string& d : data) node.add_input(d);
    for (const std::string& c : control) node.add_input(c);
    out.Add()->Swap(&node);
  }
  nodes->Swap(&out);
  if (ret != nullptr) {
    for (auto& [name, value] : *ret) value = resolve(value);
  }
}
void Rewire(const std::map<std::string, std::string>& forward, const std::set<std::string>& removed,
            GraphDef* graph) {
  Rewire(forward, removed, graph->mutable_node());
}

// Colocation with a node that is gone would stop TensorFlow's importer ("expects to be
// colocated with unknown node"): such entries are dropped.
void DropDanglingColocation(Nodes* nodes) {
  std::set<std::string> names;
  for (const NodeDef& node : *nodes) names.insert(node.name());
  for (NodeDef& node : *nodes) {
    auto cls = node.mutable_attr()->find("_class");
    if (cls == node.mutable_attr()->end()) continue;
    AttrValue::ListValue kept;
    for (const std::string& loc : cls->second.list().s()) {
      if (!StartsWith(loc, "loc:@") || names.count(loc.substr(5)) != 0) kept.add_s(loc);
    }
    if (kept.s_size() == 0) {
      node.mutable_attr()->erase(cls);
    } else {
      *cls->second.mutable_list() = kept;
    }
  }
}

// Who reads each node's outputs: node name -> (reader index, input position).
std::map<std::string, std::vector<std::pair<int, int>>> Readers(const Nodes& nodes) {
  std::map<std::string, std::vector<std::pair<int, int>>> readers;
  for (int i = 0; i < nodes.size(); ++i) {
    const NodeDef& node = nodes.Get(i);
    for (int j = 0; j < node.input_size(); ++j) readers[NodeOf(node.input(j))].emplace_back(i, j);
  }
  return readers;
}

bool HasDataReaders(const std::map<std::string, std::vector<std::pair<int, int>>>& readers,
                    const Nodes& nodes, const std::string& name) {
  auto it = readers.find(name);
  if (it == readers.end()) return false;
  for (const auto& [node, pos] : it->second) {
    if (!IsControl(nodes.Get(node).input(pos))) return true;
  }
  return false;
}

DataType TypeAttr(const NodeDef& node, const std::string& attr) {
  auto it = node.attr().find(attr);
  return it == node.attr().end() ? ::tensorflow::DT_INVALID : it->second.type();
}

void MakeConst(NodeDef* node, const Tensor& value) {
  node->set_op("Const");
  node->clear_input();
  node->mutable_attr()->clear();
  SetNodeAttr(node, "dtype", value.dtype());
  SetNodeAttr(node, "value", value);
}

void MakePlaceholder(NodeDef* node, DataType dtype, const AttrValue* shape) {
  node->set_op("Placeholder");
  node->clear_input();
  node->mutable_attr()->clear();
  SetNodeAttr(node, "dtype", dtype);
  if (shape != nullptr) (*node->mutable_attr())["shape"] = *shape;
}

bool IsXlaOrTpuAttr(const std::string& name) {
  static const char* const kExact[] = {"_pivot_for_cluster",
                                       "_post_device_rewrite",
                                       "_XlaCompile",
                                       "_XlaScope",
                                       "_XlaInternalScope",
                                       "_XlaMustCompile",
                                       "_XlaSeparateCompiledGradients"};
  for (const char* e : kExact) {
    if (name == e) return true;
  }
  return StartsWith(name, "_tpu_") || StartsWith(name, "_xla_");
}

bool IsTpuSystemOp(const std::string& op) {
  return op == "TPUReplicateMetadata" || op == "ConfigureDistributedTPU" ||
         op == "ShutdownDistributedTPU" || op == "ConfigureTPUEmbedding" ||
         op == "InfeedEnqueueTuple" || op == "InfeedEnqueue" ||
         op == "InfeedEnqueuePrelinearizedBuffer" || op == "EnqueueTPUEmbeddingSparseTensorBatch" ||
         op == "EnqueueTPUEmbeddingIntegerBatch" || op == "EnqueueTPUEmbeddingSparseBatch" ||
         op == "SendTPUEmbeddingGradients" || StartsWith(op, "LoadTPUEmbedding") ||
         StartsWith(op, "RetrieveTPUEmbedding");
}

// Strips the TPU rewrite from the nodes of a graph or of a function body (`ret` its results;
// feeds cannot become placeholders there). `where` prefixes the report's lines.
void StripTpu(Nodes* nodes, Returns* ret, const std::string& where, GraphMigrationReport* report) {
  const bool in_function = ret != nullptr;
  const auto readers = Readers(*nodes);
  std::map<std::string, std::string> forward;
  std::set<std::string> removed;
  std::vector<NodeDef> added;
  std::vector<std::string> outfeed_enqueues;
  for (NodeDef& node : *nodes) {
    const std::string op = node.op();
    const std::string& name = node.name();
    if (IsTpuSystemOp(op)) {
      removed.insert(name);
      report->changes.push_back(StrCat(where, "removed ", op, " ", name));
    } else if (op == "TPUReplicatedInput") {
      for (const std::string& input : node.input()) {
        if (!IsControl(input)) {
          forward[TensorKey(name, 0)] = input;
          break;
        }
      }
      removed.insert(name);
      report->changes.push_back(
          StrCat(where, "bypassed TPUReplicatedInput ", name, " (replica 0)"));
    } else if ((op == "TPUReplicatedOutput" || op == "CrossReplicaSum") &&
               (node.input_size() == 0 || IsControl(node.input(0)))) {
      report->warnings.push_back(StrCat(where, op, " ", name, " has no data input; left as it is"));
    } else if (op == "TPUReplicatedOutput") {
      int64_t replicas = 1;
      auto it = node.attr().find("num_replicas");
      if (it != node.attr().end()) replicas = it->second.i();
      for (int64_t k = 0; k < replicas; ++k) forward[TensorKey(name, k)] = node.input(0);
      removed.insert(name);
      report->changes.push_back(StrCat(where, "bypassed TPUReplicatedOutput ", name));
    } else if (op == "TPUCompilationResult") {
      if (HasDataReaders(readers, *nodes, name)) {
        Tensor empty(::tensorflow::DT_STRING, TensorShape({}));
        MakeConst(&node, empty);
        report->changes.push_back(StrCat(where, "TPUCompilationResult ", name, " -> Const \"\""));
      } else {
        removed.insert(name);
        report->changes.push_back(StrCat(where, "removed TPUCompilationResult ", name));
      }
    } else if (op == "TPUOrdinalSelector") {
      MakeConst(&node, Tensor::Vector<int32_t>({0}));
      report->changes.push_back(StrCat(where, "TPUOrdinalSelector ", name, " -> Const [0]"));
    } else if (op == "TPUPartitionedCall") {
      // The last data input is device_ordinal.
      std::vector<std::string> data, control;
      for (const std::string& input : node.input()) {
        (IsControl(input) ? control : data).push_back(input);
      }
      if (!data.empty()) data.pop_back();
      node.clear_input();
      for (const auto& d : data) node.add_input(d);
      for (const auto& c : control) node.add_input(c);
      node.set_op("PartitionedCall");
      node.mutable_attr()->erase("autotuner_thresh");
      report->changes.push_back(StrCat(where, "TPUPartitionedCall ", name, " -> PartitionedCall"));
    } else if (op == "CrossReplicaSum") {
      std::vector<std::string> inputs(node.input().begin(), node.input().end());
      node.clear_input();
      node.add_input(inputs[0]);
      for (size_t i = 1; i < inputs.size(); ++i) {
        if (IsControl(inputs[i])) node.add_input(inputs[i]);
      }
      node.set_op("Identity");
      node.mutable_attr()->erase("group_assignment");
      report->changes.push_back(
          StrCat(where, "CrossReplicaSum ", name, " -> Identity (one replica)"));
    } else if (in_function && (StartsWith(op, "Infeed") || StartsWith(op, "Outfeed"))) {
      report->warnings.push_back(StrCat(where, op, " ", name, " is left in a function body"));
    } else if (op == "InfeedDequeue") {
      const AttrValue shape = node.attr().count("shape") ? node.attr().at("shape") : AttrValue();
      MakePlaceholder(&node, TypeAttr(node, "dtype"), &shape);
      report->placeholders.push_back(name);
      report->changes.push_back(StrCat(where, "InfeedDequeue ", name, " -> Placeholder"));
    } else if (op == "InfeedDequeueTuple") {
      const auto& types = (*node.mutable_attr())["dtypes"].list();
      const AttrValue::ListValue* shapes =
          node.attr().count("shapes") ? &node.attr().at("shapes").list() : nullptr;
      for (int k = 0; k < types.type_size(); ++k) {
        NodeDef ph;
        ph.set_name(StrCat(name, "_", k));
        ph.set_device(node.device());
        AttrValue shape;
        if (shapes != nullptr && k < shapes->shape_size())
          *shape.mutable_shape() = shapes->shape(k);
        MakePlaceholder(&ph, types.type(k), shapes != nullptr ? &shape : nullptr);
        forward[TensorKey(name, k)] = ph.name();
        report->placeholders.push_back(ph.name());
        added.push_back(std::move(ph));
      }
      removed.insert(name);
      report->changes.push_back(StrCat(where, "InfeedDequeueTuple ", name, " -> ",
                                       types.type_size(), " placeholders ", name, "_<k>"));
    } else if (op == "OutfeedEnqueueTuple" || op == "OutfeedEnqueue") {
      const bool tuple = op == "OutfeedEnqueueTuple";
      AttrValue types = (*node.mutable_attr())[tuple ? "dtypes" : "dtype"];
      node.mutable_attr()->clear();
      (*node.mutable_attr())["T"] = types;
      node.set_op(tuple ? "IdentityN" : "Identity");
      outfeed_enqueues.push_back(name);
      report->changes.push_back(StrCat(where, op, " ", name, " -> ", node.op()));
    }
  }
  for (NodeDef& node : *nodes) {
    if (node.op() != "OutfeedDequeueTuple" && node.op() != "OutfeedDequeue") continue;
    if (outfeed_enqueues.size() != 1) continue;
    const bool tuple = node.op() == "OutfeedDequeueTuple";
    const int n = tuple ? (*node.mutable_attr())["dtypes"].list().type_size() : 1;
    for (int k = 0; k < n; ++k)
      forward[TensorKey(node.name(), k)] = InputFor(outfeed_enqueues[0], k);
    removed.insert(node.name());
    report->changes.push_back(
        StrCat(where, node.op(), " ", node.name(), " reads ", outfeed_enqueues[0]));
  }
  for (NodeDef& n : added) nodes->Add()->Swap(&n);
  // Attributes, and colocation with removed nodes.
  int attrs = 0;
  for (NodeDef& node : *nodes) {
    std::vector<std::string> drop;
    for (const auto& [key, value] : node.attr()) {
      if (IsXlaOrTpuAttr(key)) drop.push_back(key);
    }
    for (const std::string& key : drop) node.mutable_attr()->erase(key);
    attrs += static_cast<int>(drop.size());
    auto cls = node.mutable_attr()->find("_class");
    if (cls != node.mutable_attr()->end()) {
      AttrValue::ListValue kept;
      for (const std::string& loc : cls->second.list().s()) {
        if (!StartsWith(loc, "loc:@") || removed.count(loc.substr(5)) == 0) kept.add_s(loc);
      }
      *cls->second.mutable_list() = kept;
    }
  }
  if (attrs > 0)
    report->changes.push_back(StrCat(where, "removed ", attrs, " _tpu_*/_xla_* attributes"));
  Rewire(forward, removed, nodes, ret);
}

std::string MapDevice(const std::string& device, const MigrationRules& rules) {
  if (rules.clear_devices || device.empty()) return rules.clear_devices ? "" : device;
  std::string type, job;
  int id = 0;
  for (const std::string& part : StrSplit(device, '/', /*skip_empty=*/true)) {
    std::vector<std::string> fields = StrSplit(part, ':');
    if (fields.size() == 2 && fields[0] == "job") job = fields[1];
    if (fields.size() == 3 && fields[0] == "device") {
      type = fields[1];
      id = std::atoi(fields[2].c_str());
    } else if (fields.size() == 2 && fields[0] != "job" && fields[0] != "replica" &&
               fields[0] != "task") {
      type = fields[0];
      id = std::atoi(fields[1].c_str());
    }
  }
  for (const auto& [from, to] : rules.device_map) {
    std::string upper = type;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!from.empty() && StartsWith(upper, from)) {
      return StrCat("/device:", to, ":", upper == from ? id : 0);
    }
  }
  // The TPU job's hosts become the local machine.
  if ((job == "tpu_worker" || job == "coordinator") && !type.empty() && !rules.device_map.empty()) {
    return StrCat("/device:", type, ":", id);
  }
  return device;
}

// bfloat16 variables become float32; their readers follow.
void WidenBfloat16Variables(GraphDef* graph, GraphMigrationReport* report) {
  using ::tensorflow::DT_BFLOAT16;
  using ::tensorflow::DT_FLOAT;
  const auto readers = Readers(graph->node());
  std::map<std::string, std::string> forward;
  std::set<std::string> removed;
  std::vector<NodeDef> added;
  std::deque<int> work;
  std::set<int> widened;
  for (int i = 0; i < graph->node_size(); ++i) {
    NodeDef* node = graph->mutable_node(i);
    const std::string& op = node->op();
    if ((op == "VariableV2" || op == "Variable" || op == "VarHandleOp") &&
        TypeAttr(*node, "dtype") == DT_BFLOAT16) {
      SetNodeAttr(node, "dtype", DT_FLOAT);
      widened.insert(i);
      work.push_back(i);
      report->changes.push_back(StrCat("variable ", node->name(), " bfloat16 -> float32"));
    }
  }
  while (!work.empty()) {
    const NodeDef& producer = graph->node(work.front());
    work.pop_front();
    auto it = readers.find(producer.name());
    if (it == readers.end()) continue;
    std::string narrowed;  // a Cast back to bfloat16 for readers that need it
    for (const auto& [r, pos] : it->second) {
      NodeDef* reader = graph->mutable_node(r);
      if (IsControl(reader->input(pos)) || widened.count(r) != 0) continue;
      const std::string& op = reader->op();
      if ((op == "Identity" && TypeAttr(*reader, "T") == DT_BFLOAT16) ||
          (op == "ReadVariableOp" && TypeAttr(*reader, "dtype") == DT_BFLOAT16)) {
        SetNodeAttr(reader, op == "Identity" ? "T" : "dtype", DT_FLOAT);
        widened.insert(r);
        work.push_back(r);
      } else if (op == "Cast" && TypeAttr(*reader, "SrcT") == DT_BFLOAT16) {
        if (TypeAttr(*reader, "DstT") == DT_FLOAT) {
          forward[TensorKey(reader->name(), 0)] = reader->input(pos);
          removed.insert(reader->name());
          report->changes.push_back(StrCat("removed bfloat16 Cast ", reader->name()));
        } else {
          SetNodeAttr(reader, "SrcT", DT_FLOAT);
        }
      } else if (producer.op() != "VariableV2" && producer.op() != "Variable" &&
                 producer.op() != "VarHandleOp") {
        if (narrowed.empty()) {
          NodeDef cast;
          cast.set_name(producer.name() + "/to_bfloat16");
          cast.set_op("Cast");
          cast.set_device(producer.device());
          cast.add_input(producer.name());
          SetNodeAttr(&cast, "SrcT", DT_FLOAT);
          SetNodeAttr(&cast, "DstT", DT_BFLOAT16);
          SetNodeAttr(&cast, "Truncate", false);
          narrowed = cast.name();
          added.push_back(std::move(cast));
        }
        reader->set_input(pos, narrowed);
      } else {
        report->warnings.push_back(
            StrCat(op, " ", reader->name(), " still expects bfloat16 from ", producer.name()));
      }
    }
  }
  for (NodeDef& n : added) graph->add_node()->Swap(&n);
  Rewire(forward, removed, graph);
}

bool IsInputPipelineOp(const std::string& op) {
  return op == "IteratorGetNext" || op == "IteratorGetNextSync" || op == "QueueDequeueV2" ||
         op == "QueueDequeueManyV2" || op == "QueueDequeueUpToV2" || op == "QueueDequeue" ||
         op == "QueueDequeueMany" || op == "QueueDequeueUpTo";
}

void ReplaceInputPipeline(GraphDef* graph, GraphMigrationReport* report) {
  std::map<std::string, std::string> forward;
  std::set<std::string> removed;
  std::vector<NodeDef> added;
  for (NodeDef& node : *graph->mutable_node()) {
    if (!IsInputPipelineOp(node.op())) continue;
    const bool iterator = StartsWith(node.op(), "Iterator");
    auto types_it = node.attr().find(iterator ? "output_types" : "component_types");
    if (types_it == node.attr().end()) continue;
    const auto& types = types_it->second.list();
    auto shapes_it = node.attr().find("output_shapes");
    const AttrValue::ListValue* shapes =
        shapes_it == node.attr().end() ? nullptr : &shapes_it->second.list();
    for (int k = 0; k < types.type_size(); ++k) {
      NodeDef ph;
      ph.set_name(types.type_size() == 1 ? node.name() + "_0" : StrCat(node.name(), "_", k));
      AttrValue shape;
      if (shapes != nullptr && k < shapes->shape_size()) *shape.mutable_shape() = shapes->shape(k);
      MakePlaceholder(&ph, types.type(k), shapes != nullptr ? &shape : nullptr);
      forward[TensorKey(node.name(), k)] = ph.name();
      report->placeholders.push_back(ph.name());
      added.push_back(std::move(ph));
    }
    removed.insert(node.name());
    report->changes.push_back(
        StrCat(node.op(), " ", node.name(), " -> placeholders ", node.name(), "_<k>"));
  }
  for (NodeDef& n : added) graph->add_node()->Swap(&n);
  Rewire(forward, removed, graph);
}

Status RenameNodes(const MigrationRules& rules, GraphDef* graph, GraphMigrationReport* report) {
  GRT_ASSIGN_OR_RETURN(Renamer renamer, Renamer::Create(rules));
  std::map<std::string, std::string> renamed;
  std::map<std::string, std::string> owner;  // new name -> old name
  int changed = 0;
  for (const NodeDef& node : graph->node()) {
    const std::string to = renamer.Rename(node.name());
    if (to.empty())
      return InvalidArgument("renames turn node '", node.name(), "' into an empty name");
    auto [it, inserted] = owner.emplace(to, node.name());
    if (!inserted) {
      return InvalidArgument("renames collide: nodes '", it->second, "' and '", node.name(),
                             "' both become '", to, "'");
    }
    if (to != node.name()) {
      renamed[node.name()] = to;
      ++changed;
    }
  }
  for (const std::string& rule : renamer.UnusedRules()) {
    report->warnings.push_back(StrCat("rule matches nothing: ", rule));
  }
  if (changed == 0) return Status::OK();
  auto map_name = [&](const std::string& name) {
    auto it = renamed.find(name);
    return it == renamed.end() ? name : it->second;
  };
  for (NodeDef& node : *graph->mutable_node()) {
    // A resource variable's checkpoint name is its shared_name.
    auto shared = node.mutable_attr()->find("shared_name");
    if (node.op() == "VarHandleOp" && shared != node.mutable_attr()->end() &&
        !shared->second.s().empty()) {
      shared->second.set_s(renamer.Rename(shared->second.s()));
    }
    node.set_name(map_name(node.name()));
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string& input = node.input(i);
      const std::string target = map_name(NodeOf(input));
      if (IsControl(input)) {
        node.set_input(i, "^" + target);
      } else {
        node.set_input(i, InputFor(target, IndexOf(input)));
      }
    }
    auto cls = node.mutable_attr()->find("_class");
    if (cls != node.mutable_attr()->end()) {
      auto* list = cls->second.mutable_list();
      for (int i = 0; i < list->s_size(); ++i) {
        if (StartsWith(list->s(i), "loc:@"))
          list->set_s(i, "loc:@" + map_name(list->s(i).substr(5)));
      }
    }
  }
  report->changes.push_back(StrCat("renamed ", changed, " nodes"));
  return Status::OK();
}

}  // namespace

Status PruneToOutputs(const std::vector<std::string>& outputs, GraphDef* graph) {
  std::map<std::string, int> index;
  for (int i = 0; i < graph->node_size(); ++i) index[graph->node(i).name()] = i;
  std::set<std::string> keep;
  std::deque<std::string> work;
  for (const std::string& output : outputs) {
    const std::string node = NodeOf(output);
    if (index.count(node) == 0) return InvalidArgument("output '", output, "' is not in the graph");
    if (keep.insert(node).second) work.push_back(node);
  }
  while (!work.empty()) {
    const NodeDef& node = graph->node(index[work.front()]);
    work.pop_front();
    for (const std::string& input : node.input()) {
      const std::string from = NodeOf(input);
      if (index.count(from) == 0) {
        return InvalidArgument("node '", node.name(), "' reads '", input,
                               "', which is not in the graph");
      }
      if (keep.insert(from).second) work.push_back(from);
    }
  }
  std::set<std::string> removed;
  for (const NodeDef& node : graph->node()) {
    if (keep.count(node.name()) == 0) removed.insert(node.name());
  }
  Rewire({}, removed, graph);
  DropDanglingColocation(graph->mutable_node());
  return Status::OK();
}

static Status MigrateGraphUnguarded(const MigrationRules& rules, GraphDef* graph,
                                    GraphMigrationReport* report);

Status MigrateGraph(const MigrationRules& rules, GraphDef* graph, GraphMigrationReport* report) {
  return StatusFromExceptions("MigrateGraph",
                              [&] { return MigrateGraphUnguarded(rules, graph, report); });
}

static Status MigrateGraphUnguarded(const MigrationRules& rules, GraphDef* graph,
                                    GraphMigrationReport* report) {
  report->nodes_before = graph->node_size();
  if (rules.strip_training && rules.outputs.empty()) {
    return InvalidArgument("--strip-training needs the inference outputs (--outputs NAME)");
  }
  if (rules.strip_tpu) {
    StripTpu(graph->mutable_node(), nullptr, "", report);
    // TPU inference exports call a function holding the rewrite (TPUPartitionedCall's f).
    for (auto& function : *graph->mutable_library()->mutable_function()) {
      StripTpu(function.mutable_node_def(), function.mutable_ret(),
               StrCat("function ", function.signature().name(), ": "), report);
    }
  }
  if (rules.strip_training) {
    ReplaceInputPipeline(graph, report);
    const int before = graph->node_size();
    GRT_RETURN_IF_ERROR(PruneToOutputs(rules.outputs, graph));
    report->changes.push_back(StrCat("removed ", before - graph->node_size(),
                                     " nodes the outputs do not need (training, input pipeline, "
                                     "summaries, savers)"));
  } else if (!rules.outputs.empty()) {
    GRT_RETURN_IF_ERROR(PruneToOutputs(rules.outputs, graph));
  }
  for (const auto& [from, to] : rules.casts) {
    if (from == ::tensorflow::DT_BFLOAT16 && to == ::tensorflow::DT_FLOAT) {
      WidenBfloat16Variables(graph, report);
    }
  }
  if (rules.clear_devices || !rules.device_map.empty()) {
    int mapped = 0;
    auto map_devices = [&](Nodes* nodes) {
      for (NodeDef& node : *nodes) {
        const std::string device = MapDevice(node.device(), rules);
        if (device != node.device()) {
          node.set_device(device);
          ++mapped;
        }
      }
    };
    map_devices(graph->mutable_node());
    for (auto& function : *graph->mutable_library()->mutable_function()) {
      map_devices(function.mutable_node_def());
    }
    report->changes.push_back(StrCat("changed the device of ", mapped, " nodes"));
  }
  GRT_RETURN_IF_ERROR(RenameNodes(rules, graph, report));
  // Only the placeholders the outputs still need are feeds.
  std::set<std::string> present;
  for (const NodeDef& node : graph->node()) present.insert(node.name());
  std::vector<std::string> feeds;
  for (const std::string& name : report->placeholders) {
    if (present.count(name) != 0) feeds.push_back(name);
  }
  report->placeholders = feeds;
  DropDanglingColocation(graph->mutable_node());
  report->nodes_after = graph->node_size();
  if (rules.strict && !report->warnings.empty()) {
    return InvalidArgument(report->warnings.front(), " (--strict)");
  }
  return Status::OK();
}

static Status FreezeGraphUnguarded(BundleReader* checkpoint,
                                   const std::vector<std::string>& outputs, GraphDef* graph,
                                   int* frozen_variables);

Status FreezeGraph(BundleReader* checkpoint, const std::vector<std::string>& outputs,
                   GraphDef* graph, int* frozen_variables) {
  return StatusFromExceptions("FreezeGraph", [&] {
    return FreezeGraphUnguarded(checkpoint, outputs, graph, frozen_variables);
  });
}

static Status FreezeGraphUnguarded(BundleReader* checkpoint,
                                   const std::vector<std::string>& outputs, GraphDef* graph,
                                   int* frozen_variables) {
  if (outputs.empty()) return InvalidArgument("freeze needs at least one --output");
  GRT_RETURN_IF_ERROR(PruneToOutputs(outputs, graph));
  // Rows of every variable with a shape, taken before nodes become constants.
  std::map<std::string, int64_t> rows;
  for (const NodeDef& node : graph->node()) {
    auto it = node.attr().find("shape");
    if (it != node.attr().end() && it->second.shape().dim_size() > 0) {
      rows[node.name()] = it->second.shape().dim(0).size();
    }
  }
  // The checkpoint value of variable node `node` stored as `key`.
  auto value_of = [&](const NodeDef& node, const std::string& key) -> StatusOr<Tensor> {
    if (checkpoint->Contains(key)) return checkpoint->Read(key);
    std::string base;
    int part = 0;
    if (SplitPartKey(key, &base, &part) && checkpoint->Contains(base)) {
      int64_t offset = 0;
      for (int j = 0; j < part; ++j) {
        auto it = rows.find(StrCat(base, "/part_", j));
        if (it == rows.end()) {
          return InvalidArgument("variable ", node.name(), ": cannot place part ", part, " of '",
                                 base, "' without the shape of ", base, "/part_", j);
        }
        offset += it->second;
      }
      auto shape_attr = node.attr().find("shape");
      if (shape_attr == node.attr().end()) {
        return InvalidArgument("variable ", node.name(), " has no shape attribute");
      }
      const auto& shape = shape_attr->second.shape();
      std::vector<std::pair<int64_t, int64_t>> extents(shape.dim_size(),
                                                       {0, TensorSlice::kFullExtent});
      if (extents.empty()) return InvalidArgument("variable ", node.name(), " is a scalar part");
      extents[0] = {offset, shape.dim(0).size()};
      return checkpoint->ReadSlice(base, TensorSlice(extents));
    }
    return NotFound("variable '", node.name(), "' has no tensor '", key, "' in checkpoint ",
                    checkpoint->prefix());
  };
  auto check = [&](const NodeDef& node, const Tensor& value, DataType want) -> Status {
    if (value.dtype() != want) {
      return InvalidArgument("variable '", node.name(), "' is ", DataTypeString(want),
                             " but its checkpoint tensor is ", DataTypeString(value.dtype()),
                             " (migrate with --cast)");
    }
    auto it = node.attr().find("shape");
    if (it != node.attr().end()) {
      const PartialTensorShape shape = PartialTensorShape::FromProto(it->second.shape());
      if (!shape.IsCompatibleWith(value.shape())) {
        return InvalidArgument("variable '", node.name(), "' has shape ", shape.DebugString(),
                               " but its checkpoint tensor has ", value.shape().DebugString());
      }
    }
    return Status::OK();
  };

  *frozen_variables = 0;
  std::map<std::string, Tensor> handles;  // VarHandleOp name -> value
  std::set<std::string> frozen_values;    // constants made for ResourceGather
  std::vector<NodeDef> added;
  for (const NodeDef& node : graph->node()) {
    if (node.op() != "VarHandleOp") continue;
    std::string key = node.name();
    auto it = node.attr().find("shared_name");
    if (it != node.attr().end() && !it->second.s().empty()) key = it->second.s();
    GRT_ASSIGN_OR_RETURN(Tensor value, value_of(node, key));
    GRT_RETURN_IF_ERROR(check(node, value, TypeAttr(node, "dtype")));
    handles.emplace(node.name(), std::move(value));
    ++*frozen_variables;
  }
  for (NodeDef& node : *graph->mutable_node()) {
    if (node.op() == "VariableV2" || node.op() == "Variable") {
      GRT_ASSIGN_OR_RETURN(Tensor value, value_of(node, node.name()));
      GRT_RETURN_IF_ERROR(check(node, value, TypeAttr(node, "dtype")));
      const std::string device = node.device();
      MakeConst(&node, value);
      node.set_device(device);
      ++*frozen_variables;
    } else if (node.op() == "ReadVariableOp" && node.input_size() > 0 &&
               handles.count(NodeOf(node.input(0))) != 0) {
      const Tensor& value = handles.at(NodeOf(node.input(0)));
      std::vector<std::string> control;
      for (const std::string& input : node.input()) {
        if (IsControl(input)) control.push_back(input);
      }
      MakeConst(&node, value);
      for (const auto& c : control) node.add_input(c);
    } else if (node.op() == "ResourceGather" && node.input_size() >= 2 &&
               handles.count(NodeOf(node.input(0))) != 0) {
      // An embedding lookup on a resource variable: a GatherV2 on the frozen value.
      const std::string handle = NodeOf(node.input(0));
      const std::string value_name = handle + "/frozen_value";
      if (frozen_values.insert(value_name).second) {
        NodeDef value;
        value.set_name(value_name);
        value.set_device(node.device());
        MakeConst(&value, handles.at(handle));
        added.push_back(std::move(value));
      }
      NodeDef axis;
      axis.set_name(node.name() + "/axis");
      axis.set_device(node.device());
      MakeConst(&axis, Tensor::Scalar<int32_t>(0));
      std::vector<std::string> inputs(node.input().begin(), node.input().end());
      node.clear_input();
      node.add_input(value_name);
      node.add_input(inputs[1]);
      node.add_input(axis.name());
      for (size_t i = 2; i < inputs.size(); ++i) {
        if (IsControl(inputs[i])) node.add_input(inputs[i]);
      }
      added.push_back(std::move(axis));
      node.set_op("GatherV2");
      auto& attrs = *node.mutable_attr();
      SetNodeAttr(&node, "Tparams", handles.at(handle).dtype());
      SetNodeAttr(&node, "Taxis", ::tensorflow::DT_INT32);
      if (attrs.count("Tindices") == 0) SetNodeAttr(&node, "Tindices", ::tensorflow::DT_INT32);
      if (attrs.count("batch_dims") == 0) SetNodeAttr(&node, "batch_dims", 0);
      attrs.erase("dtype");
      attrs.erase("validate_indices");
    }
  }
  for (NodeDef& n : added) graph->add_node()->Swap(&n);
  // Identity readers of reference variables carry the ref-less type already; prune what is left.
  return PruneToOutputs(outputs, graph);
}

Status AddRestoreSubgraph(GraphDef* graph, ::tensorflow::SaverDef* saver) {
  struct Variable {
    std::string node, key, op;
    DataType dtype;
    ::tensorflow::TensorShapeProto shape;
  };
  std::vector<Variable> variables;
  std::map<std::string, std::map<int, int64_t>> part_rows;  // base -> part -> rows
  for (const NodeDef& node : graph->node()) {
    if (StartsWith(node.name(), "save/")) {
      return InvalidArgument("the graph already has a node '", node.name(), "' under save/");
    }
    if (node.op() != "VariableV2" && node.op() != "Variable" && node.op() != "VarHandleOp") {
      continue;
    }
    auto shape = node.attr().find("shape");
    if (shape == node.attr().end() || shape->second.shape().unknown_rank()) {
      return InvalidArgument("variable '", node.name(), "' has no static shape to restore");
    }
    std::string key = node.name();
    auto shared = node.attr().find("shared_name");
    if (node.op() == "VarHandleOp" && shared != node.attr().end() && !shared->second.s().empty()) {
      key = shared->second.s();
    }
    variables.push_back(
        {node.name(), key, node.op(), TypeAttr(node, "dtype"), shape->second.shape()});
    std::string base;
    int part = 0;
    if (SplitPartKey(key, &base, &part) && shape->second.shape().dim_size() > 0) {
      part_rows[base][part] = shape->second.shape().dim(0).size();
    }
  }
  Tensor names(::tensorflow::DT_STRING, TensorShape({static_cast<int64_t>(variables.size())}));
  Tensor specs(::tensorflow::DT_STRING, TensorShape({static_cast<int64_t>(variables.size())}));
  AttrValue dtypes;
  for (size_t i = 0; i < variables.size(); ++i) {
    const Variable& v = variables[i];
    std::string key = v.key, spec;
    std::string base;
    int part = 0;
    if (SplitPartKey(v.key, &base, &part) && part_rows.count(base) != 0) {
      // A slice of the full tensor: "full_shape start,length:0,d1:...".
      const auto& rows = part_rows[base];
      int64_t offset = 0, total = 0;
      for (const auto& [k, n] : rows) {
        if (k < part) offset += n;
        total += n;
      }
      if (static_cast<int>(rows.size()) != rows.rbegin()->first + 1) {
        return InvalidArgument("partitioned variable '", base, "' is missing parts");
      }
      key = base;
      std::vector<std::string> full = {StrCat(total)};
      std::vector<std::string> extents = {StrCat(offset, ",", v.shape.dim(0).size())};
      for (int d = 1; d < v.shape.dim_size(); ++d) {
        full.push_back(StrCat(v.shape.dim(d).size()));
        extents.push_back(StrCat("0,", v.shape.dim(d).size()));
      }
      spec = StrCat(StrJoin(full, " "), " ", StrJoin(extents, ":"));
    }
    names.data<std::string>()[i] = key;
    specs.data<std::string>()[i] = spec;
    dtypes.mutable_list()->add_type(v.dtype);
  }
  auto add_const = [&](const std::string& name, const Tensor& value) {
    NodeDef* node = graph->add_node();
    node->set_name(name);
    MakeConst(node, value);
  };
  Tensor filename(::tensorflow::DT_STRING, TensorShape({}));
  *filename.data<std::string>() = "model";
  add_const("save/Const", filename);
  add_const("save/RestoreV2/tensor_names", names);
  add_const("save/RestoreV2/shape_and_slices", specs);
  NodeDef* restore = graph->add_node();
  restore->set_name("save/RestoreV2");
  restore->set_op("RestoreV2");
  restore->set_device("/device:CPU:0");
  restore->add_input("save/Const");
  restore->add_input("save/RestoreV2/tensor_names");
  restore->add_input("save/RestoreV2/shape_and_slices");
  (*restore->mutable_attr())["dtypes"] = dtypes;
  NodeDef all;
  all.set_name("save/restore_all");
  all.set_op("NoOp");
  for (size_t i = 0; i < variables.size(); ++i) {
    const Variable& v = variables[i];
    NodeDef* assign = graph->add_node();
    const bool resource = v.op == "VarHandleOp";
    assign->set_name(StrCat(resource ? "save/AssignVariableOp_" : "save/Assign_", i));
    assign->set_op(resource ? "AssignVariableOp" : "Assign");
    assign->add_input(v.node);
    assign->add_input(InputFor("save/RestoreV2", static_cast<int>(i)));
    if (resource) {
      SetNodeAttr(assign, "dtype", v.dtype);
    } else {
      SetNodeAttr(assign, "T", v.dtype);
      SetNodeAttr(assign, "validate_shape", true);
      SetNodeAttr(assign, "use_locking", true);
    }
    all.add_input("^" + assign->name());
  }
  graph->add_node()->Swap(&all);
  saver->set_filename_tensor_name("save/Const:0");
  saver->set_save_tensor_name("save/Const:0");
  saver->set_restore_op_name("save/restore_all");
  saver->set_max_to_keep(5);
  saver->set_keep_checkpoint_every_n_hours(10000);
  saver->set_version(::tensorflow::SaverDef::V2);
  return Status::OK();
}

}  // namespace migrate
}  // namespace graphrt
