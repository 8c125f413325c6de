// Replaying and comparing placement logs. A replay pins every logged node of a graph to the
// device its log line names, places the graph under a session configuration, and says per node
// whether it stayed where the log put it.
#ifndef GRAPHRT_RUNTIME_PLACEMENT_REPLAY_H_
#define GRAPHRT_RUNTIME_PLACEMENT_REPLAY_H_

#include <string>
#include <vector>

#include <graphrt/placement.h>

#include "formats/placement_log.h"
#include "graph.pb.h"
#include "runtime/core/status.h"
#include "runtime/devices/device.h"
#include "runtime/placement/placer.h"

namespace graphrt {

// Errors: a log that names none of the graph's nodes (a log of another graph), and -- without
// soft placement -- TensorFlow's "Cannot assign a device" for the first node that cannot go
// where the log says.
StatusOr<ReplayResult> ReplayPlacement(const PlacementLog& log, const ::tensorflow::GraphDef& graph,
                                       const std::vector<Device*>& devices,
                                       const PlacerOptions& options);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_PLACEMENT_REPLAY_H_
