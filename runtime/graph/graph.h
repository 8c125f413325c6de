// The graph IR: nodes (a NodeDef each, with attr defaults filled and input/output dtypes
// resolved from the op registry) and the edges between them. Built from a GraphDef, rewritten
// per Session plan (feeds, fetches, pruning, placement), and written back as a GraphDef.
#ifndef GRAPHRT_RUNTIME_GRAPH_GRAPH_H_
#define GRAPHRT_RUNTIME_GRAPH_GRAPH_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph.pb.h"
#include "node_def.pb.h"
#include "op_def.pb.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/core/tensor_shape.h"
#include "runtime/core/types.h"

namespace graphrt {

class Node;

inline constexpr int kControlSlot = -1;

struct Edge {
  Node* src;
  int src_output;  // kControlSlot for a control edge
  Node* dst;
  int dst_input;  // kControlSlot for a control edge
  bool IsControl() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& op() const { return def_.op(); }
  const ::tensorflow::NodeDef& def() const { return def_; }
  ::tensorflow::NodeDef* mutable_def() { return &def_; }
  // Null for an op graphrt does not know.
  const ::tensorflow::OpDef* op_def() const { return op_def_; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int i) const { return output_types_[i]; }

  const std::vector<Edge*>& in_edges() const { return in_edges_; }
  const std::vector<Edge*>& out_edges() const { return out_edges_; }
  // The data edge into input slot i, or null.
  const Edge* input_edge(int i) const;

  // A Const node's value when it is held here instead of in the NodeDef, which then has no
  // "value" attr (see SeparateConstValues); uninitialized otherwise. Copies of it share the
  // buffer, so nothing may write into it.
  const Tensor& const_value() const { return const_value_; }
  void set_const_value(Tensor value) { const_value_ = std::move(value); }

  const std::string& requested_device() const { return def_.device(); }
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string device) { assigned_device_ = std::move(device); }

  bool IsSwitch() const { return op() == "Switch" || op() == "RefSwitch"; }
  bool IsMerge() const { return op() == "Merge" || op() == "RefMerge"; }
  bool IsEnter() const { return op() == "Enter" || op() == "RefEnter"; }
  bool IsExit() const { return op() == "Exit" || op() == "RefExit"; }
  bool IsNextIteration() const { return op() == "NextIteration" || op() == "RefNextIteration"; }
  bool IsLoopCond() const { return op() == "LoopCond"; }
  bool IsControlTrigger() const { return op() == "ControlTrigger"; }
  bool IsArg() const { return op() == "_Arg"; }
  bool IsRetval() const { return op() == "_Retval"; }

 private:
  friend class Graph;
  int id_ = -1;
  ::tensorflow::NodeDef def_;
  const ::tensorflow::OpDef* op_def_ = nullptr;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  std::vector<Edge*> in_edges_;
  std::vector<Edge*> out_edges_;
  std::string assigned_device_;
  Tensor const_value_;
};

// A tensor named as in TensorFlow: "node:index" ("node" means index 0).
struct TensorId {
  std::string node;
  int index = 0;
  std::string ToString() const;
};
// Parses "node", "node:1"; "^node" gives index kControlSlot.
StatusOr<TensorId> ParseTensorName(const std::string& name);

// Until GraphDef producer version 21, TensorFlow wrote a Placeholder of unknown shape with an
// empty `shape {}`, and it still reads that attr as "any shape" in graphs that old (its
// Placeholder shape function checks the version), where newer graphs mean a scalar.
constexpr int kLastLegacyPlaceholderProducer = 21;
// Rewrites such an attr to `unknown_rank: true` when `producer` is that old; else leaves it.
void UpgradeLegacyPlaceholderShape(int producer, ::tensorflow::NodeDef* def);
// The `shape` attr of a placeholder node as TensorFlow reads it in a graph of `producer`.
Status PlaceholderShape(const ::tensorflow::NodeDef& def, int producer, PartialTensorShape* shape);

// Large Const values decoded once and held beside a GraphDef, by node name. A Session keeps its
// graph so: each plan's graph, Const kernels included, then shares one buffer per weight instead
// of copying a frozen graph's tensor_content into every NodeDef and kernel along the way.
using ConstValues = std::unordered_map<std::string, Tensor>;

// Whether a Const value is held beside its NodeDef: plain-old-data elements, at least 1 KiB.
bool HoldsConstValueBeside(const Tensor& value);

// Copies `def` into `*out`, leaving out the "value" attr of each Const node whose value
// HoldsConstValueBeside; those values go into `*values`, decoded. A value that does not decode
// stays in its attr, so that its error shows where it did before.
void SeparateConstValues(const ::tensorflow::GraphDef& def, ::tensorflow::GraphDef* out,
                         ConstValues* values);

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Builds the graph. Ops the registry does not know are accepted (their output count is taken
  // from the largest output index any consumer names; dtypes unknown). Errors name the node.
  // A Const node without a "value" attr takes its value from `values` (see SeparateConstValues).
  static StatusOr<std::unique_ptr<Graph>> FromGraphDef(const ::tensorflow::GraphDef& def,
                                                       const ConstValues* values = nullptr);

  // Adds a node (attr defaults filled, dtypes resolved); no edges.
  StatusOr<Node*> AddNode(::tensorflow::NodeDef def);
  // Connects src:src_output to dst:dst_input (kControlSlot for both: a control edge). Keeps the
  // NodeDef inputs of dst in step.
  void AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  void AddControlEdge(Node* src, Node* dst) { AddEdge(src, kControlSlot, dst, kControlSlot); }
  void RemoveEdge(Edge* edge);
  void RemoveNode(Node* node);

  Node* FindNode(const std::string& name) const;
  // Live nodes, in the order they were added.
  std::vector<Node*> nodes() const;
  int num_nodes() const { return static_cast<int>(by_name_.size()); }
  // One past the largest node id ever given (ids are not reused).
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  Node* node(int id) const { return nodes_[id].get(); }

  const ::tensorflow::FunctionDefLibrary& library() const { return library_; }
  ::tensorflow::FunctionDefLibrary* mutable_library() { return &library_; }
  const ::tensorflow::VersionDef& versions() const { return versions_; }

  // The graph as a GraphDef (node inputs rebuilt from the edges; Const values held beside their
  // NodeDefs written back into the "value" attrs).
  void ToGraphDef(::tensorflow::GraphDef* def) const;

 private:
  std::vector<std::unique_ptr<Node>> nodes_;  // indexed by id; null once removed
  std::vector<std::unique_ptr<Edge>> edges_;
  std::unordered_map<std::string, Node*> by_name_;
  ::tensorflow::FunctionDefLibrary library_;
  ::tensorflow::VersionDef versions_;
};

// Removes every node that none of `roots` depends on (through data or control edges).
void PruneForRoots(Graph* graph, const std::vector<Node*>& roots);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_GRAPH_GRAPH_H_
