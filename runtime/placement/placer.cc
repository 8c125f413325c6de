#include "runtime/placement/placer.h"

#include "runtime/devices/device_name.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

const PlacementDecision* PlacementReport::Find(const std::string& node) const {
  for (const PlacementDecision& d : decisions_) {
    if (d.node == node) return &d;
  }
  return nullptr;
}

std::string PlacementReport::LogLines() const {
  std::string out;
  for (const PlacementDecision& d : decisions_) {
    out += StrCat(d.node, ": (", d.op, "): ", d.assigned, "\n");
  }
  return out;
}

namespace {

// TensorFlow prefers a GPU to the CPU for nodes without a request.
int TypePriority(const std::string& type) { return type == kDeviceGpu ? 2 : 1; }

int DefaultDevice(const Node& node, const std::vector<Device*>& devices,
                  const std::vector<ParsedDeviceName>& parsed) {
  int best = -1;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!KernelRegistry::Global()->Supports(devices[i]->device_type(), node.def())) continue;
    if (best < 0 || TypePriority(devices[i]->device_type()) >
                        TypePriority(devices[best]->device_type())) {
      best = static_cast<int>(i);
    }
  }
  (void)parsed;
  return best;
}

}  // namespace

Status PlaceGraph(Graph* graph, const std::vector<Device*>& devices, const PlacerOptions& options,
                  std::vector<int>* assignment, PlacementReport* report) {
  assignment->assign(static_cast<size_t>(graph->num_node_ids()), -1);
  std::vector<ParsedDeviceName> parsed;
  for (Device* d : devices) {
    GRT_ASSIGN_OR_RETURN(ParsedDeviceName p, ParseDeviceName(d->name()));
    parsed.push_back(p);
  }
  for (Node* node : graph->nodes()) {
    const std::string& requested = node->requested_device();
    StatusOr<ParsedDeviceName> spec = ParseDeviceName(requested);
    if (!spec.ok()) {
      Status s = spec.status();
      return s.Prepend(StrCat("node '", node->name(), "'"));
    }
    int chosen = -1;
    std::string reason;
    if (!requested.empty()) {
      bool any_match = false;
      for (size_t i = 0; i < devices.size(); ++i) {
        if (!DeviceMatchesSpec(parsed[i], *spec)) continue;
        any_match = true;
        if (KernelRegistry::Global()->Supports(devices[i]->device_type(), node->def())) {
          chosen = static_cast<int>(i);
          reason = "explicit";
          break;
        }
      }
      if (chosen < 0) {
        std::string why =
            any_match ? StrCat("no kernel for ", node->op(), " on ", spec->ToString())
                      : StrCat(spec->ToString(), " is not a device of this session");
        if (!options.allow_soft_placement) {
          std::vector<std::string> names;
          for (Device* d : devices) names.push_back(d->name());
          if (any_match) {
            return InvalidArgument("Cannot assign a device for operation ", node->name(),
                                   ": Could not satisfy explicit device specification '",
                                   requested, "' because no supported kernel for ",
                                   spec->has_type ? spec->type : "its", " devices is available.");
          }
          return InvalidArgument("Cannot assign a device for operation ", node->name(),
                                 ": Operation was explicitly assigned to ", requested,
                                 " but available devices are [ ", StrJoin(names, ", "),
                                 " ]. Make sure the device specification refers to a valid "
                                 "device.");
        }
        chosen = DefaultDevice(*node, devices, parsed);
        reason = StrCat("soft placement: ", why);
      }
    } else {
      chosen = DefaultDevice(*node, devices, parsed);
      reason = "default";
    }
    if (chosen < 0) {
      // No device has a kernel: keep the CPU so the error names the op when a run needs it.
      chosen = 0;
      reason = "no device has a kernel for this node";
    }
    (*assignment)[node->id()] = chosen;
    node->set_assigned_device(devices[chosen]->name());
    report->Add(PlacementDecision{node->name(), node->op(), requested, devices[chosen]->name(),
                                  reason});
  }
  return Status::OK();
}

}  // namespace graphrt
