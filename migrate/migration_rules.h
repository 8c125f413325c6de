// What `graphrt migrate` and `migrate-graph` change, as flags or a --rules JSON file spell it
// (../shared/CLI.md): renames, which tensors to keep, dtype casts, partitioning, shards, and the
// graph-only rules. One MigrationRules drives both the checkpoint and the graph so that their
// names agree.
//
// A name goes through the renames in this order: the assignment map (an exact entry first, else
// the longest matching scope; an entry for a variable also moves the names under it, its
// partitions, slots and shadows), then the first matching --rename prefix, then every
// --rename-regex in turn. keep/drop patterns, slot and global_step detection look at the name
// as stored in the source.
#ifndef GRAPHRT_MIGRATE_MIGRATION_RULES_H_
#define GRAPHRT_MIGRATE_MIGRATION_RULES_H_

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <graphrt/migrate.h>

#include "migrate/rule_pattern.h"
#include "runtime/core/status.h"
#include "runtime/core/types.h"

namespace graphrt {
namespace migrate {

// How a rule is spelled: on the command line (Boost.Program_options in cli/rule_flags.cc) and as
// the value of its key in a --rules JSON document.
enum class RuleKind {
  kSwitch,         // --use-ema; JSON true or false
  kStrings,        // --keep REGEX, repeatable; JSON "REGEX" or a list of them
  kPairs,          // --rename FROM=TO, repeatable; JSON "FROM=TO", a list of them or {"FROM": "TO"}
  kCasts,          // --cast FROM=TO with dtype names; JSON as kPairs
  kPartitions,     // --partition NAME=N; JSON as kPairs
  kPositiveInt,    // --shards N; JSON N
  kAssignmentMap,  // --assignment-map FILE; JSON the FILE, or the map itself as kPairs
};

// One rule: its flag and JSON key, how it is spelled, its help text and the MigrationRules field
// it fills. The table of them (RuleDescriptors) is the one place a rule is named, so the JSON
// reader and the command's flags cannot disagree; a new rule is one more entry there.
struct RuleDescriptor {
  using StringPairs = std::vector<std::pair<std::string, std::string>>;
  using Field =
      std::variant<bool MigrationRules::*, int MigrationRules::*,
                   std::vector<std::string> MigrationRules::*, StringPairs MigrationRules::*,
                   std::vector<std::pair<DataType, DataType>> MigrationRules::*,
                   std::vector<std::pair<std::string, int>> MigrationRules::*>;

  const char* name;  // the flag without "--", and the JSON key
  RuleKind kind;
  bool graph_only;  // a flag of migrate-graph only; rules files take it everywhere
  const char* help;
  Field field;  // the alternative that `kind` fills
};

// Every rule, in the order --help lists them.
const std::vector<RuleDescriptor>& RuleDescriptors();

// What one command-line flag of `rule` gave: true for a switch that is set, the number for
// kPositiveInt, and for the other kinds one value (called once per repeat). A switch only ever
// turns a rule on, so that it adds to what a --rules file set.
using RuleFlagValue = std::variant<bool, int, std::string>;
Status AddRuleFlag(const RuleDescriptor& rule, const RuleFlagValue& value, MigrationRules* rules);

// "bfloat16=float32" -> the pair; INVALID_ARGUMENT for an unknown dtype name.
Status ParseCast(const std::string& text, std::pair<DataType, DataType>* cast);
// "NAME=N" -> the pair; INVALID_ARGUMENT unless N is a positive integer.
Status ParsePartition(const std::string& text, std::pair<std::string, int>* partition);

// Optimizer state a CPU/GPU model does not need: Adam's <var>/Adam, <var>/Adam_1, beta1_power
// and beta2_power; BERT's adam_m/adam_v; Momentum, RMSProp, Adagrad, Adadelta, Ftrl, LAMB
// slots; TPU embedding <table>/Adam/m; Adafactor's <var>_slot_vc / _slot_vr / _slot_v.
bool IsOptimizerSlot(const std::string& name);
bool IsGlobalStep(const std::string& name);
// "<var>/ExponentialMovingAverage" -> "<var>"; false for other names.
bool EmaShadowOf(const std::string& name, std::string* variable);

// Applies the renames of a MigrationRules and counts how often each rule matched, so that rules
// that matched nothing can be reported (a warning, an error under --strict).
class Renamer {
 public:
  // INVALID_ARGUMENT for a bad regular expression or assignment-map entry.
  static StatusOr<Renamer> Create(const MigrationRules& rules);

  std::string Rename(const std::string& name);
  // One line per rename rule that has not matched any name passed to Rename.
  std::vector<std::string> UnusedRules() const;

 private:
  Renamer() = default;
  struct Regex {
    std::string replacement;  // as given, for UnusedRules
    RulePattern pattern;
  };
  std::vector<std::pair<std::string, std::string>> prefixes_;
  std::vector<std::pair<std::string, std::string>> assignment_map_;
  std::vector<Regex> regexes_;
  std::vector<int> prefix_hits_, assignment_hits_, regex_hits_;
};

}  // namespace migrate
}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_MIGRATION_RULES_H_
