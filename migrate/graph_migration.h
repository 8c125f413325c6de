// Graph side of a migration: turns a TPU-era training graph into one a CPU or GPU runs, with node
// names that agree with the migrated checkpoint; and freezing (variables become constants read
// from a checkpoint).
//
// MigrateGraph, in order:
//   strip_tpu:  TPUReplicateMetadata and TPUConfiguration ops removed; TPUCompilationResult
//               becomes a "" constant when something reads it; TPUReplicatedInput forwards its
//               replica-0 input and TPUReplicatedOutput its input; TPUOrdinalSelector becomes
//               the constant [0] and TPUPartitionedCall a PartitionedCall of its function;
//               InfeedDequeue(Tuple) become placeholders and OutfeedEnqueue(Tuple) an IdentityN
//               that OutfeedDequeue(Tuple) readers read; CrossReplicaSum becomes Identity (one
//               replica); _tpu_* and _xla_* attributes and their XLA markers removed.
//   devices:    device_map (TPU=CPU: every device whose type starts with TPU, the replicated
//               cores and TPU_SYSTEM included, becomes /device:CPU:0, and tpu_worker jobs are
//               dropped) or clear_devices.
//   casts:      with a bfloat16=float32 cast, bfloat16 variables become float32; the Casts to
//               float32 that read them are bypassed, other readers get a Cast back to bfloat16.
//   training:   strip_training replaces iterator and queue outputs (the input pipeline) by
//               placeholders and keeps only what the outputs need: gradients, optimizer updates,
//               summaries and savers go.
//   renames:    the checkpoint's rename rules applied to every node name (inputs, colocation
//               attributes follow), so that variable nodes carry their new checkpoint names.
#ifndef GRAPHRT_MIGRATE_GRAPH_MIGRATION_H_
#define GRAPHRT_MIGRATE_GRAPH_MIGRATION_H_

#include <string>
#include <vector>

#include <graphrt/migrate.h>

#include "formats/graph_def.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "migrate/migration_rules.h"
#include "saver.pb.h"
#include "runtime/core/status.h"

namespace graphrt {
namespace migrate {

// As the public FreezeGraph, from an open checkpoint.
Status FreezeGraph(BundleReader* checkpoint, const std::vector<std::string>& outputs,
                   GraphDef* graph, int* frozen_variables);

}  // namespace migrate
}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_GRAPH_MIGRATION_H_
