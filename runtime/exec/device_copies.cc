#include "runtime/exec/device_copies.h"

#include <map>
#include <tuple>

namespace graphrt {

namespace {

// The device whose memory holds the tensor, or null for host memory.
Device* MemoryOf(Device* device, DataType dtype) {
  return device->HoldsInDeviceMemory(dtype) ? device : nullptr;
}

StatusOr<Node*> AddCopy(Graph* graph, std::vector<Device*>* devices, const char* op, Node* src,
                        int src_output, Device* device, DataType dtype) {
  ::tensorflow::NodeDef def;
  std::string short_device = device->name().substr(device->name().rfind("/device:") + 8);
  for (char& c : short_device) {
    if (c == ':') c = '_';
  }
  def.set_name(StrCat("_copy_", src->name(), "_", src_output, op[5] == 'H' ? "_to_" : "_from_",
                      short_device));
  def.set_op(op);
  def.set_device(device->name());
  (*def.mutable_attr())["T"].set_type(dtype);
  GRT_ASSIGN_OR_RETURN(Node * copy, graph->AddNode(def));
  copy->set_assigned_device(device->name());
  if (static_cast<int>(devices->size()) <= copy->id()) devices->resize(copy->id() + 1, nullptr);
  (*devices)[copy->id()] = device;
  graph->AddEdge(src, src_output, copy, 0);
  return copy;
}

}  // namespace

Status InsertDeviceCopies(Graph* graph, std::vector<Device*>* devices, int* num_copies) {
  struct Rewire {
    Edge* edge;
    Device* from;  // memory the producer leaves the tensor in (null: host)
    Device* to;    // memory the consumer reads
  };
  std::vector<Rewire> rewires;
  for (Node* dst : graph->nodes()) {
    for (Edge* e : dst->in_edges()) {
      if (e->IsControl()) continue;
      Node* src = e->src;
      Device* from = MemoryOf((*devices)[src->id()], src->output_type(e->src_output));
      Device* to = MemoryOf((*devices)[dst->id()], dst->input_types()[e->dst_input]);
      if (from == to) continue;
      if (IsRefType(dst->input_types()[e->dst_input])) {
        return InvalidArgument("node '", dst->name(), "' (", dst->op(), ") on ",
                               (*devices)[dst->id()]->name(), " takes a reference to '",
                               src->name(), "' on ", (*devices)[src->id()]->name(),
                               ", whose memory it cannot reach");
      }
      rewires.push_back(Rewire{e, from, to});
    }
  }
  // (producer, output, destination memory) -> the node whose output is the copy there.
  std::map<std::tuple<Node*, int, Device*>, Node*> copies;
  std::map<Node*, std::vector<std::string>> readers;  // copy node -> the nodes reading it
  int added = 0;
  for (const Rewire& r : rewires) {
    Node* src = r.edge->src;
    int src_output = r.edge->src_output;
    Node* dst = r.edge->dst;
    int dst_input = r.edge->dst_input;
    DataType dtype = BaseType(src->output_type(src_output));
    auto key = std::make_tuple(src, src_output, r.to);
    auto it = copies.find(key);
    Node* copy = nullptr;
    if (it != copies.end()) {
      copy = it->second;
    } else {
      Node* host_side = src;
      int host_output = src_output;
      if (r.from != nullptr) {
        auto to_host = copies.find(std::make_tuple(src, src_output, nullptr));
        if (to_host != copies.end()) {
          host_side = to_host->second;
        } else {
          GRT_ASSIGN_OR_RETURN(host_side, AddCopy(graph, devices, "_CopyDeviceToHost", src,
                                                  src_output, r.from, dtype));
          copies[std::make_tuple(src, src_output, nullptr)] = host_side;
          ++added;
        }
        host_output = 0;
      }
      copy = host_side;
      if (r.to != nullptr) {
        GRT_ASSIGN_OR_RETURN(copy, AddCopy(graph, devices, "_CopyHostToDevice", host_side,
                                           host_output, r.to, dtype));
        ++added;
      }
      copies[key] = copy;
    }
    graph->RemoveEdge(r.edge);
    graph->AddEdge(copy, 0, dst, dst_input);
    readers[copy].push_back(dst->name());
  }
  // Each copy names the nodes it serves, so that its errors can name them too.
  for (auto& [copy, names] : readers) {
    ::tensorflow::AttrValue list;
    for (const std::string& name : names) list.mutable_list()->add_s(name);
    (*copy->mutable_def()->mutable_attr())["_readers"] = list;
  }
  if (num_copies != nullptr) *num_copies = added;
  return Status::OK();
}

}  // namespace graphrt
