// The streaming checkpoint migration behind `graphrt migrate SRC DST`.
//
// PlanMigration reads only the source's index and decides, per stored tensor, its new name,
// dtype, shape, size and what happens to it; renames that collide and (under --strict) rules
// that match nothing are errors before anything is written. RunMigration then reads one tensor
// (or one slice) at a time, transforms it and appends it to the output, so memory is bounded by
// the largest tensor, not the checkpoint:
//
//   1. every data file the plan reads is checked to exist (a missing shard is named);
//   2. the output is written under a temporary prefix in a hidden folder beside DST;
//   3. the temporary bundle is reopened and every checksum read back, and its tensors checked
//      against the plan;
//   4. the data files, then the index, are renamed to DST (the old DST is removed first when
//      forced) and the hidden folder removed.
//
// The source is only read. A failure anywhere removes what was written; a process killed
// part-way leaves only the hidden folder, which the next run for the same DST removes.
#ifndef GRAPHRT_MIGRATE_CHECKPOINT_MIGRATION_H_
#define GRAPHRT_MIGRATE_CHECKPOINT_MIGRATION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <graphrt/migrate.h>

#include "formats/tensor_bundle/bundle_reader.h"
#include "migrate/migration_rules.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor_shape.h"

namespace graphrt {
namespace migrate {

// REQUIRES: `reader` is open. INVALID_ARGUMENT for colliding names, bad rules, impossible casts
// or partitions, and (rules.strict) rules that match nothing.
StatusOr<MigrationPlan> PlanMigration(BundleReader* reader, const MigrationRules& rules);

// Executes `plan` (made from `src_reader`) into `dst_prefix`. Fails with ALREADY_EXISTS when DST
// exists and !options.force, INVALID_ARGUMENT when DST is the source, NOT_FOUND naming a missing
// data file.
StatusOr<MigrationResult> RunMigration(BundleReader* src_reader, const MigrationPlan& plan,
                                       const std::string& dst_prefix,
                                       const MigrationOptions& options);

// The row ranges fixed_size_partitioner gives `rows` rows in `parts` parts: the first
// rows % parts parts get one row more.
std::vector<std::pair<int64_t, int64_t>> FixedSizePartitions(int64_t rows, int parts);

}  // namespace migrate
}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_CHECKPOINT_MIGRATION_H_
