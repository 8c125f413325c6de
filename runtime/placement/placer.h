// The placer: one device per node, decided by asking the kernel registry whether a device can
// run the node, and recorded with the reason in a PlacementReport.
#ifndef GRAPHRT_RUNTIME_PLACEMENT_PLACER_H_
#define GRAPHRT_RUNTIME_PLACEMENT_PLACER_H_

#include <string>
#include <vector>

#include <graphrt/placement.h>

#include "runtime/core/status.h"
#include "runtime/devices/device.h"
#include "runtime/graph/graph.h"

namespace graphrt {

// PlacementDecision::precision for a node assigned to `device`.
std::string PrecisionOn(const Device& device, bool reduced_precision_requested);

struct PlacerOptions {
  bool allow_soft_placement = false;
  bool reduced_precision_requested = false;  // SessionConfig's; shown in the report
};

// Assigns every node of `graph` a device of `devices` (set_assigned_device) and returns its
// index per node id in `assignment`.
Status PlaceGraph(Graph* graph, const std::vector<Device*>& devices, const PlacerOptions& options,
                  std::vector<int>* assignment, PlacementReport* report);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_PLACEMENT_PLACER_H_
