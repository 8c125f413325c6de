// Placement logs: what TensorFlow (1.x and 2.x) and graphrt print when log_device_placement is
// on, read back from a captured stdout/stderr with anything else mixed in.
//
//   name: (Op): /job:localhost/replica:0/task:0/device:CPU:0     TF 1.15+, TF 2 graphs, graphrt
//   name: (Op)/job:localhost/replica:0/task:0/device:CPU:0       TF <= 1.14 glog lines
//   Executing op Op in device /job:localhost/replica:0/task:0/device:GPU:0     TF 2 eager
//
// Lines may carry a glog prefix ("2019-10-10 12:34:56.789012: I tensorflow/.../placer.cc:54] ");
// every other line (device mappings, warnings, program output) is ignored.
#ifndef GRAPHRT_PLACEMENT_LOG_H_
#define GRAPHRT_PLACEMENT_LOG_H_

#include <string>
#include <vector>

#include <graphrt/export.h>
#include <graphrt/status.h>

namespace graphrt {

struct PlacementLogEntry {
  std::string node;  // empty for eager lines, which name only the op
  std::string op;
  std::string device;  // as printed
  int line = 0;        // 1-based line number in the log
};

struct PlacementLog {
  std::vector<PlacementLogEntry> entries;  // graph-mode lines, in log order
  std::vector<PlacementLogEntry> eager;    // "Executing op" lines
};

// INVALID_ARGUMENT for binary data and for a log without any placement line (naming `name`).
GRAPHRT_EXPORT StatusOr<PlacementLog> ParsePlacementLog(const std::string& text,
                                                        const std::string& name);
GRAPHRT_EXPORT StatusOr<PlacementLog> ReadPlacementLog(const std::string& path);

}  // namespace graphrt

#endif  // GRAPHRT_PLACEMENT_LOG_H_
