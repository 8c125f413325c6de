// Where a session put each node, and why; and placement logs replayed or compared.
//
// A replay pins every logged node of a graph to the device its log line names, places the graph
// under a session configuration, and says per node whether it stayed where the log put it:
//
//   GRT_ASSIGN_OR_RETURN(graphrt::PlacementLog log, graphrt::ReadPlacementLog("tf.log"));
//   GRT_ASSIGN_OR_RETURN(graphrt::ReplayResult r,
//                        graphrt::ReplayPlacementLog(log, graph, graphrt::SessionConfig()));
#ifndef GRAPHRT_PLACEMENT_H_
#define GRAPHRT_PLACEMENT_H_

#include <string>
#include <utility>
#include <vector>

#include <graphrt/config.h>
#include <graphrt/export.h>
#include <graphrt/placement_log.h>
#include <graphrt/status.h>

#include "graph.pb.h"

namespace graphrt {

struct PlacementDecision {
  std::string node;
  std::string op;
  std::string requested;  // the NodeDef's device field
  std::string assigned;   // a full device name
  std::string reason;     // "explicit", "default", "soft placement: ..."
  // The precision floating-point math runs at on the assigned device: "float32" on graphrt's
  // OpenCL GPUs, which have no reduced-precision path (with a note when reduced precision was
  // requested); on the CPU "float16" / "bfloat16" for a node that auto_mixed_precision moved to
  // that type, else empty (each dtype its own).
  std::string precision;
};

class GRAPHRT_EXPORT PlacementReport {
 public:
  void Add(PlacementDecision decision) { decisions_.push_back(std::move(decision)); }
  const std::vector<PlacementDecision>& decisions() const& { return decisions_; }
  // On a temporary (session->GetPlacementReport().decisions()), a copy that outlives it.
  std::vector<PlacementDecision> decisions() && { return std::move(decisions_); }
  // Null when the node was not placed.
  const PlacementDecision* Find(const std::string& node) const;
  // TensorFlow 1.15's log lines: "name: (Op): /job:localhost/replica:0/task:0/device:CPU:0".
  std::string LogLines() const;

 private:
  std::vector<PlacementDecision> decisions_;
};

struct ReplayLine {
  enum Kind { kSame, kMoved, kAbsentFromGraph, kAbsentFromLog };
  std::string node;
  Kind kind = kSame;
  std::string logged;    // the device in the log
  std::string assigned;  // where graphrt placed it
  std::string reason;    // for kMoved
};

struct ReplayResult {
  std::vector<ReplayLine> lines;
  // Faithful: every logged node of the graph is where the log put it, and every logged node
  // exists in the graph.
  bool faithful = true;
};

// Device names compare equal when they parse to the same parts ("/device:CPU:0" written in any
// of TensorFlow's spellings).
GRAPHRT_EXPORT std::string NormalizeDeviceName(const std::string& name);

// Replays `log` on `graph` with the devices `config` gives this machine (device_count,
// visible GPUs, opencl_devices), with soft placement when config.allow_soft_placement. Errors: a
// log that names none of the graph's nodes (a log of another graph), and -- without soft
// placement -- TensorFlow's "Cannot assign a device" for the first node that cannot go where
// the log says.
GRAPHRT_EXPORT StatusOr<ReplayResult> ReplayPlacementLog(const PlacementLog& log,
                                                         const ::tensorflow::GraphDef& graph,
                                                         const SessionConfig& config);

struct DiffLine {
  enum Kind { kDiffers, kOnlyInA, kOnlyInB };
  std::string node;
  Kind kind;
  std::string a, b;  // devices
};

// Nodes whose devices differ, and nodes present in one log only. Eager lines are compared as
// per-op counts of devices.
GRAPHRT_EXPORT std::vector<DiffLine> DiffPlacementLogs(const PlacementLog& a,
                                                       const PlacementLog& b);

}  // namespace graphrt

#endif  // GRAPHRT_PLACEMENT_H_
