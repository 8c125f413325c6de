// `graphrt migrate --rules` JSON -> ParseRulesJson -> a migration plan (PlanMigration, PlanText,
// PlanJson) for two fixture checkpoints (tests/fixtures/checkpoints/written: one shard, and
// three), then the migration itself into a temporary directory.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "formats/tensor_bundle/bundle_reader.h"
#include "migrate/checkpoint_migration.h"
#include "migrate/migration_rules.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

std::vector<std::unique_ptr<graphrt::BundleReader>>& Readers() {
  static auto* readers = [] {
    auto* r = new std::vector<std::unique_ptr<graphrt::BundleReader>>;
    for (const char* name : {"single", "multi"}) {
      auto reader = graphrt::BundleReader::Open(
          graphrt::fuzzing::SourceDir() + "/tests/fixtures/checkpoints/written/" + name + "/ckpt");
      if (!reader.ok()) std::abort();  // the fixtures are part of the source tree
      r->push_back(std::move(reader.value()));
    }
    return r;
  }();
  return *readers;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphrt;  // NOLINT: a fuzz target's body, not a header
  const std::string text(reinterpret_cast<const char*>(data), size);
  migrate::MigrationRules rules;
  if (!migrate::ParseRulesJson(text, "rules.json", &rules).ok()) return 0;
  for (auto& reader : Readers()) {
    StatusOr<migrate::Renamer> renamer = migrate::Renamer::Create(rules);
    if (renamer.ok()) {
      for (const std::string& key : reader->Keys()) renamer.value().Rename(key);
      renamer.value().UnusedRules();
    }
    StatusOr<migrate::MigrationPlan> plan = migrate::PlanMigration(reader.get(), rules);
    if (!plan.ok()) continue;
    migrate::PlanText(plan.value());
    migrate::PlanJson(plan.value());
    // The fixtures hold a few KB; a plan that says more (a partition into many pieces) is only
    // planned, not written, to keep each input fast.
    if (plan.value().output_bytes > (64 << 10) || plan.value().output_shards > 16) continue;
    fuzzing::TempDir dir;
    if (!dir.ok()) continue;
    migrate::RunMigration(reader.get(), plan.value(), dir.path() + "/out",
                          migrate::MigrationOptions())
        .status()
        .IgnoreError();
  }
  return 0;
}
