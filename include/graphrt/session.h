// The Session: TensorFlow 1.x's interface for running a graph, so that porting from
// libtensorflow_cc is a search and replace.
//
//   graphrt::SessionOptions options;
//   std::unique_ptr<graphrt::Session> session(graphrt::NewSession(options));
//   GRT_RETURN_IF_ERROR(session->Create(graph_def));
//   std::vector<graphrt::Tensor> outputs;
//   GRT_RETURN_IF_ERROR(session->Run({{"x:0", x}}, {"y:0"}, {}, &outputs));
//
// Each distinct (feeds, fetches, targets) request is compiled once into a plan -- pruned,
// placed, with kernels built -- and cached; Run is safe to call from several threads at once.
#ifndef GRAPHRT_SESSION_H_
#define GRAPHRT_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <graphrt/config.h>
#include <graphrt/device_attributes.h>
#include <graphrt/export.h>
#include <graphrt/placement.h>
#include <graphrt/status.h>
#include <graphrt/tensor.h>

#include "config.pb.h"
#include "graph.pb.h"

namespace graphrt {

using GraphDef = ::tensorflow::GraphDef;
using RunOptions = ::tensorflow::RunOptions;
using RunMetadata = ::tensorflow::RunMetadata;
using CallableOptions = ::tensorflow::CallableOptions;

class GRAPHRT_EXPORT Session {
 public:
  using CallableHandle = int64_t;

  virtual ~Session() = default;

  // Installs the graph. Fails if the session already has one.
  virtual Status Create(const GraphDef& graph) = 0;
  // Adds nodes (and functions) to the session's graph.
  virtual Status Extend(const GraphDef& graph) = 0;

  // Feeds may name any tensor ("node:index", ":0" optional), not only placeholders.
  virtual Status Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
                     const std::vector<std::string>& output_tensor_names,
                     const std::vector<std::string>& target_node_names,
                     std::vector<Tensor>* outputs) = 0;
  // With RunOptions (timeout_in_ms, trace_level) and RunMetadata (step_stats when traced).
  virtual Status Run(const RunOptions& run_options,
                     const std::vector<std::pair<std::string, Tensor>>& inputs,
                     const std::vector<std::string>& output_tensor_names,
                     const std::vector<std::string>& target_node_names,
                     std::vector<Tensor>* outputs, RunMetadata* run_metadata) = 0;

  virtual Status ListDevices(std::vector<DeviceAttributes>* devices) = 0;

  // Callables: a request compiled once; RunCallable takes the feeds in CallableOptions.feed
  // order and returns the fetches in CallableOptions.fetch order.
  virtual Status MakeCallable(const CallableOptions& options, CallableHandle* handle) = 0;
  virtual Status RunCallable(CallableHandle handle, const std::vector<Tensor>& feed_tensors,
                             std::vector<Tensor>* fetch_tensors, RunMetadata* run_metadata) = 0;
  virtual Status ReleaseCallable(CallableHandle handle) = 0;

  // graphrt extension: a callable whose nodes run on `device` ("/device:CPU:1",
  // "/device:GPU:0", ...) whatever devices the graph requests -- the per-call device choice
  // that wrapping sess.run in tf.device() never gave. Nodes that device cannot run fall back
  // as soft placement does; `report`, when given, receives every decision with its reason.
  virtual Status MakeCallableOnDevice(const CallableOptions& options, const std::string& device,
                                      CallableHandle* handle, PlacementReport* report) = 0;

  // Where every node of every plan compiled so far was placed, and why.
  virtual PlacementReport GetPlacementReport() = 0;

  // Frees devices and resources; later calls fail with CANCELLED.
  virtual Status Close() = 0;
};

// A new in-process session; null (with the reason on stderr) if the options are invalid.
GRAPHRT_EXPORT Session* NewSession(const SessionOptions& options);
GRAPHRT_EXPORT Status NewSession(const SessionOptions& options, Session** out_session);
GRAPHRT_EXPORT Status NewSession(const SessionOptions& options,
                                 std::unique_ptr<Session>* out_session);

}  // namespace graphrt

#endif  // GRAPHRT_SESSION_H_
