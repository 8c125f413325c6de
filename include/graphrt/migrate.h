// Checkpoint and graph migration as a library: what `graphrt migrate`, `migrate-graph` and
// `freeze` do (../shared/CLI.md). One MigrationRules drives both the checkpoint and the graph so
// that their names agree.
//
//   graphrt::migrate::MigrationRules rules;
//   rules.renames.push_back({"tpu/", ""});
//   rules.casts.push_back({::tensorflow::DT_BFLOAT16, ::tensorflow::DT_FLOAT});
//   GRT_ASSIGN_OR_RETURN(graphrt::migrate::MigrationPlan plan,
//                        graphrt::migrate::PlanCheckpointMigration("in/model.ckpt", rules));
//   GRT_ASSIGN_OR_RETURN(graphrt::migrate::MigrationResult result,
//                        graphrt::migrate::RunCheckpointMigration(plan, "out/model.ckpt", {}));
//
// The checkpoint migration streams (memory is bounded by the largest tensor), writes under a
// temporary name, verifies what it wrote and renames at the end; the source is only read.
#ifndef GRAPHRT_MIGRATE_H_
#define GRAPHRT_MIGRATE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <graphrt/export.h>
#include <graphrt/status.h>
#include <graphrt/tensor_shape.h>
#include <graphrt/types.h>

#include "graph.pb.h"
#include "saver.pb.h"

namespace graphrt {
namespace migrate {

struct GRAPHRT_EXPORT MigrationRules {
  std::vector<std::pair<std::string, std::string>> renames;        // --rename FROM=TO (prefixes)
  std::vector<std::pair<std::string, std::string>> regex_renames;  // --rename-regex P=R
  // --assignment-map: init_from_checkpoint's assignment_map, checkpoint name -> new name.
  std::vector<std::pair<std::string, std::string>> assignment_map;
  std::vector<std::string> keep;  // --keep REGEX: when any is given, only matching names stay
  std::vector<std::string> drop;  // --drop REGEX
  bool drop_optimizer_slots = false;
  bool drop_global_step = false;
  bool use_ema = false;
  std::vector<std::pair<DataType, DataType>> casts;  // --cast FROM=TO
  bool merge_partitions = false;
  std::vector<std::pair<std::string, int>> partitions;  // --partition NAME=N
  int num_shards = 0;                                   // --shards N; 0: as many as the input
  bool strict = false;

  // Graph only.
  bool strip_tpu = false;
  bool strip_training = false;
  bool clear_devices = false;
  std::vector<std::pair<std::string, std::string>> device_map;  // --device-map TPU=CPU
  std::vector<std::string> outputs;                             // --outputs NAME
};

// Adds the rules in a --rules JSON document (the flag names without "--" as keys:
// {"rename": {"tpu/": ""}, "cast": ["bfloat16=float32"], "drop-optimizer-slots": true, ...}).
// `what` names the file in errors.
GRAPHRT_EXPORT Status ParseRulesJson(const std::string& text, const std::string& what,
                                     MigrationRules* rules);
// Adds the entries of an --assignment-map JSON object file.
GRAPHRT_EXPORT Status ReadAssignmentMap(const std::string& path, MigrationRules* rules);
// Checkpoints.

struct PlannedTensor {
  std::string source;  // key in the source checkpoint
  std::string name;    // key in the output; empty when dropped
  DataType source_dtype = ::tensorflow::DT_INVALID;
  DataType dtype = ::tensorflow::DT_INVALID;
  TensorShape shape;
  int64_t bytes = 0;      // in the output (0 when dropped)
  int source_slices = 0;  // 0: stored whole
  int output_slices = 0;  // 0: written whole
  // "copy", "rename", "cast", "merge", "partition", "ema", "drop"; joined by "+" when several.
  std::string action;
  std::string reason;  // why a tensor is dropped or takes another's value
  bool dropped() const { return name.empty(); }
};

struct MigrationPlan {
  std::string source_prefix;
  int source_shards = 0;
  int output_shards = 0;
  std::vector<PlannedTensor> tensors;  // sorted by source name
  std::vector<std::string> warnings;   // rules that matched nothing
  int64_t output_bytes = 0;
};

// INVALID_ARGUMENT for colliding names, bad rules, impossible casts or partitions, and
// (rules.strict) rules that match nothing; errors of opening the checkpoint at `source_prefix`.
GRAPHRT_EXPORT StatusOr<MigrationPlan> PlanCheckpointMigration(const std::string& source_prefix,
                                                               const MigrationRules& rules);

GRAPHRT_EXPORT std::string PlanText(const MigrationPlan& plan);
// {"source": ..., "source_shards": N, "output_shards": N, "output_bytes": N,
//  "tensors": [{"source", "name", "source_dtype", "dtype", "shape", "bytes", "action",
//  "reason", "slices"}], "warnings": [...]}
GRAPHRT_EXPORT std::string PlanJson(const MigrationPlan& plan);

struct MigrationOptions {
  bool force = false;  // replace an existing DST
  // Called after each tensor is written: bytes written so far, of plan.output_bytes.
  std::function<void(int64_t done, int64_t total, const std::string& name)> progress;
  // Fault injection for tests: after this many tensors, kill the process with SIGKILL, or fail
  // as a failed write would. -1: never. The command reads them from GRAPHRT_MIGRATE_FAULT
  // ("kill-after=N" or "fail-after=N").
  int kill_after_tensors = -1;
  int fail_after_tensors = -1;
};

struct MigrationResult {
  int64_t bytes_written = 0;  // tensor bytes
  int tensors_written = 0;
  double seconds = 0;
  std::vector<std::string> files;  // the output's files
};

// Executes `plan` (from PlanCheckpointMigration; reads plan.source_prefix) into `dst_prefix`.
// Fails with ALREADY_EXISTS when DST exists and !options.force, INVALID_ARGUMENT when DST is the
// source, NOT_FOUND naming a missing data file.
GRAPHRT_EXPORT StatusOr<MigrationResult> RunCheckpointMigration(const MigrationPlan& plan,
                                                                const std::string& dst_prefix,
                                                                const MigrationOptions& options);

// Graphs.

struct GraphMigrationReport {
  std::vector<std::string> changes;       // one line per change, "removed TPUReplicateMetadata"
  std::vector<std::string> warnings;      // rules that matched nothing
  std::vector<std::string> placeholders;  // feeds that replaced the input pipeline
  int nodes_before = 0;
  int nodes_after = 0;
};

// INVALID_ARGUMENT when strip_training has no outputs, an output is not in the graph, renamed
// nodes collide, or (rules.strict) a rule matches nothing.
GRAPHRT_EXPORT Status MigrateGraph(const MigrationRules& rules, ::tensorflow::GraphDef* graph,
                                   GraphMigrationReport* report);

// Keeps only the nodes `outputs` (tensor or node names) need, through data and control edges.
GRAPHRT_EXPORT Status PruneToOutputs(const std::vector<std::string>& outputs,
                                     ::tensorflow::GraphDef* graph);

// Replaces every variable the outputs need by a constant holding its checkpoint value
// (VariableV2 nodes by name, resource variables' ReadVariableOp readers by the handle's name;
// "<name>/part_<k>" parts by their slice of "<name>"), then prunes to `outputs`. NOT_FOUND
// naming the variable when the checkpoint lacks it; INVALID_ARGUMENT on a dtype or shape that
// differs.
GRAPHRT_EXPORT Status FreezeGraph(const std::string& checkpoint_prefix,
                                  const std::vector<std::string>& outputs,
                                  ::tensorflow::GraphDef* graph, int* frozen_variables);

// Adds a restore subgraph for every variable in `graph` (VariableV2 by node name, VarHandleOp by
// shared_name; "<name>/part_<k>" parts restore their slice of "<name>", laid out along dimension
// 0 in part order) and describes it in `saver`, as tf.compat.v1.train.Saver would: feed the
// checkpoint prefix to save/Const:0 and run save/restore_all. INVALID_ARGUMENT when a variable
// has no static shape or the names already exist.
GRAPHRT_EXPORT Status AddRestoreSubgraph(::tensorflow::GraphDef* graph,
                                         ::tensorflow::SaverDef* saver);

}  // namespace migrate
}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_H_
