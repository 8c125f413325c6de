// ReplayPlacementLog: the replay of replay.h with the devices a SessionConfig gives, so that a
// program replays a log through the public API without creating devices itself.
#include <memory>
#include <vector>

#include <graphrt/placement.h>

#include "runtime/session/session_devices.h"
#include "runtime/placement/replay.h"

namespace graphrt {

StatusOr<ReplayResult> ReplayPlacementLog(const PlacementLog& log,
                                          const ::tensorflow::GraphDef& graph,
                                          const SessionConfig& config) {
  std::vector<std::unique_ptr<Device>> owned = CreateDevices(config);
  std::vector<Device*> devices;
  for (auto& d : owned) devices.push_back(d.get());
  PlacerOptions options;
  options.allow_soft_placement = config.allow_soft_placement;
  options.reduced_precision_requested = config.reduced_precision_requested;
  return ReplayPlacement(log, graph, devices, options);
}

}  // namespace graphrt
