// The public entry points of graphrt/migrate.h that take checkpoint prefixes: they open the
// BundleReader that the internal PlanMigration, RunMigration and FreezeGraph take.
#include <graphrt/migrate.h>

#include <memory>

#include "formats/tensor_bundle/bundle_reader.h"
#include "migrate/checkpoint_migration.h"
#include "migrate/graph_migration.h"

namespace graphrt {
namespace migrate {

StatusOr<MigrationPlan> PlanCheckpointMigration(const std::string& source_prefix,
                                                const MigrationRules& rules) {
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(source_prefix));
  return PlanMigration(reader.get(), rules);
}

StatusOr<MigrationResult> RunCheckpointMigration(const MigrationPlan& plan,
                                                 const std::string& dst_prefix,
                                                 const MigrationOptions& options) {
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                       BundleReader::Open(plan.source_prefix));
  return RunMigration(reader.get(), plan, dst_prefix, options);
}

Status FreezeGraph(const std::string& checkpoint_prefix, const std::vector<std::string>& outputs,
                   ::tensorflow::GraphDef* graph, int* frozen_variables) {
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> checkpoint,
                       BundleReader::Open(checkpoint_prefix));
  return FreezeGraph(checkpoint.get(), outputs, graph, frozen_variables);
}

}  // namespace migrate
}  // namespace graphrt
