// Transfers between host and device memory as explicit plan steps.
//
// After placement, every data edge whose producer leaves its tensor in one memory (host, or a
// GPU's device memory: Device::HoldsInDeviceMemory) and whose
// consumer reads another gets a copy node between them: _CopyDeviceToHost on the producer's
// device, _CopyHostToDevice on the consumer's (both, one after the other, between two GPUs).
// Feeds (_Arg) and fetches (_Retval) sit on the CPU, so a fed tensor goes to its consumers'
// device and a fetched one comes back to the host through the same rule. Each producer output
// is copied at most once per destination memory, however many consumers read it there. A copy
// node's "_readers" attr lists the nodes it serves (for its error messages).
#ifndef GRAPHRT_RUNTIME_EXEC_DEVICE_COPIES_H_
#define GRAPHRT_RUNTIME_EXEC_DEVICE_COPIES_H_

#include <vector>

#include "runtime/core/status.h"
#include "runtime/devices/device.h"
#include "runtime/graph/graph.h"

namespace graphrt {

// `devices` is indexed by node id and grows with the copy nodes added. Returns the number of
// copy nodes in `num_copies` when given.
Status InsertDeviceCopies(Graph* graph, std::vector<Device*>* devices, int* num_copies = nullptr);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_EXEC_DEVICE_COPIES_H_
