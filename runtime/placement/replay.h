// Replaying and comparing placement logs. A replay pins every logged node of a graph to the
// device its log line names, places the graph under a session configuration, and says per node
// whether it stayed where the log put it.
#ifndef GRAPHRT_RUNTIME_PLACEMENT_REPLAY_H_
#define GRAPHRT_RUNTIME_PLACEMENT_REPLAY_H_

#include <string>
#include <vector>

#include "formats/placement_log.h"
#include "graph.pb.h"
#include "runtime/core/status.h"
#include "runtime/devices/device.h"
#include "runtime/placement/placer.h"

namespace graphrt {

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
std::string NormalizeDeviceName(const std::string& name);

// Errors: a log that names none of the graph's nodes (a log of another graph), and -- without
// soft placement -- TensorFlow's "Cannot assign a device" for the first node that cannot go
// where the log says.
StatusOr<ReplayResult> ReplayPlacement(const PlacementLog& log, const ::tensorflow::GraphDef& graph,
                                       const std::vector<Device*>& devices,
                                       const PlacerOptions& options);

struct DiffLine {
  enum Kind { kDiffers, kOnlyInA, kOnlyInB };
  std::string node;
  Kind kind;
  std::string a, b;  // devices
};

// Nodes whose devices differ, and nodes present in one log only. Eager lines are compared as
// per-op counts of devices.
std::vector<DiffLine> DiffPlacementLogs(const PlacementLog& a, const PlacementLog& b);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_PLACEMENT_REPLAY_H_
