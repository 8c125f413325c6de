#include "migrate/migration_rules.h"

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace migrate {

namespace {

Status SplitPair(const std::string& text, const std::string& what,
                 std::pair<std::string, std::string>* pair) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return InvalidArgument(what, " needs FROM=TO, got '", text, "'");
  *pair = {text.substr(0, eq), text.substr(eq + 1)};
  return Status::OK();
}

// A JSON value that is a list of "A=B" strings or an object {"A": "B"}.
Status ReadPairs(const nlohmann::json& value, const std::string& key, const std::string& what,
                 std::vector<std::pair<std::string, std::string>>* out) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!it.value().is_string()) {
        return InvalidArgument("rule '", key, "' in ", what, ": the value of '", it.key(),
                               "' is not a string");
      }
      out->emplace_back(it.key(), it.value().get<std::string>());
    }
    return Status::OK();
  }
  std::vector<nlohmann::json> items = value.is_array() ? value.get<std::vector<nlohmann::json>>()
                                                       : std::vector<nlohmann::json>{value};
  for (const auto& item : items) {
    if (!item.is_string()) {
      return InvalidArgument("rule '", key, "' in ", what, " takes \"FROM=TO\" strings");
    }
    std::pair<std::string, std::string> pair;
    GRT_RETURN_IF_ERROR(SplitPair(item.get<std::string>(), key, &pair));
    out->push_back(pair);
  }
  return Status::OK();
}

Status ReadStrings(const nlohmann::json& value, const std::string& key, const std::string& what,
                   std::vector<std::string>* out) {
  std::vector<nlohmann::json> items = value.is_array() ? value.get<std::vector<nlohmann::json>>()
                                                       : std::vector<nlohmann::json>{value};
  for (const auto& item : items) {
    if (!item.is_string()) return InvalidArgument("rule '", key, "' in ", what, " takes strings");
    out->push_back(item.get<std::string>());
  }
  return Status::OK();
}

Status ReadBool(const nlohmann::json& value, const std::string& key, const std::string& what,
                bool* out) {
  if (!value.is_boolean())
    return InvalidArgument("rule '", key, "' in ", what, " takes true/false");
  *out = value.get<bool>();
  return Status::OK();
}

Status AddAssignmentEntry(const std::string& from, const std::string& to, const std::string& what,
                          MigrationRules* rules) {
  const bool from_scope = EndsWith(from, "/");
  const bool to_scope = EndsWith(to, "/");
  if (from.empty() || to.empty()) {
    return InvalidArgument("assignment map ", what, ": empty name in '", from, "': '", to, "'");
  }
  if (from_scope != to_scope) {
    return InvalidArgument("assignment map ", what, ": '", from, "': '", to,
                           "' maps a scope to a variable; write 'scope/': 'other_scope/' or "
                           "'scope/var': 'other_scope/var'");
  }
  rules->assignment_map.emplace_back(from, to);
  return Status::OK();
}

}  // namespace

Status ParseCast(const std::string& text, std::pair<DataType, DataType>* cast) {
  std::pair<std::string, std::string> names;
  GRT_RETURN_IF_ERROR(SplitPair(text, "--cast", &names));
  if (!DataTypeFromString(names.first, &cast->first)) {
    return InvalidArgument("--cast: unknown dtype '", names.first, "'");
  }
  if (!DataTypeFromString(names.second, &cast->second)) {
    return InvalidArgument("--cast: unknown dtype '", names.second, "'");
  }
  return Status::OK();
}

Status ParsePartition(const std::string& text, std::pair<std::string, int>* partition) {
  std::pair<std::string, std::string> parts;
  GRT_RETURN_IF_ERROR(SplitPair(text, "--partition", &parts));
  long long n = 0;
  if (!ParseInt64(parts.second, &n) || n < 1 || n > (1 << 30)) {
    return InvalidArgument("--partition ", text, ": N must be a positive integer");
  }
  *partition = {parts.first, static_cast<int>(n)};
  return Status::OK();
}

Status ReadAssignmentMap(const std::string& path, MigrationRules* rules) {
  GRT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return InvalidArgument("assignment map ", path, " is not a JSON object of names");
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it.value().is_string()) {
      return InvalidArgument("assignment map ", path, ": the value of '", it.key(),
                             "' is not a string");
    }
    GRT_RETURN_IF_ERROR(AddAssignmentEntry(it.key(), it.value().get<std::string>(), path, rules));
  }
  return Status::OK();
}

namespace {

using StringPairs = RuleDescriptor::StringPairs;

template <typename T>
RuleDescriptor Rule(const char* name, RuleKind kind, T MigrationRules::*field, const char* help,
                    bool graph_only = false) {
  return {name, kind, graph_only, help, field};
}

template <typename T>
T& FieldOf(const RuleDescriptor& rule, MigrationRules* rules) {
  return rules->*std::get<T MigrationRules::*>(rule.field);
}

// Adds one FROM=TO of a pair-spelled rule; `what` names where it came from in errors.
Status AddPair(const RuleDescriptor& rule, const std::string& from, const std::string& to,
               const std::string& what, MigrationRules* rules) {
  switch (rule.kind) {
    case RuleKind::kPairs:
      FieldOf<StringPairs>(rule, rules).emplace_back(from, to);
      return Status::OK();
    case RuleKind::kAssignmentMap:
      return AddAssignmentEntry(from, to, what, rules);
    case RuleKind::kCasts: {
      std::pair<DataType, DataType> cast;
      GRT_RETURN_IF_ERROR(ParseCast(from + "=" + to, &cast));
      FieldOf<std::vector<std::pair<DataType, DataType>>>(rule, rules).push_back(cast);
      return Status::OK();
    }
    case RuleKind::kPartitions: {
      std::pair<std::string, int> partition;
      GRT_RETURN_IF_ERROR(ParsePartition(from + "=" + to, &partition));
      FieldOf<std::vector<std::pair<std::string, int>>>(rule, rules).push_back(partition);
      return Status::OK();
    }
    default:
      return Internal("rule '", rule.name, "' is not spelled FROM=TO");
  }
}

Status ReadJsonRule(const RuleDescriptor& rule, const nlohmann::json& value,
                    const std::string& what, MigrationRules* rules) {
  const std::string key = rule.name;
  switch (rule.kind) {
    case RuleKind::kSwitch:
      return ReadBool(value, key, what, &FieldOf<bool>(rule, rules));
    case RuleKind::kStrings:
      return ReadStrings(value, key, what, &FieldOf<std::vector<std::string>>(rule, rules));
    case RuleKind::kPositiveInt:
      if (!value.is_number_integer() || value.get<int>() < 1) {
        return InvalidArgument("rule '", key, "' in ", what, " takes a positive integer");
      }
      FieldOf<int>(rule, rules) = value.get<int>();
      return Status::OK();
    case RuleKind::kAssignmentMap:
      if (value.is_string()) return ReadAssignmentMap(value.get<std::string>(), rules);
      [[fallthrough]];
    case RuleKind::kPairs:
    case RuleKind::kCasts:
    case RuleKind::kPartitions: {
      StringPairs pairs;
      GRT_RETURN_IF_ERROR(ReadPairs(value, key, what, &pairs));
      for (const auto& [from, to] : pairs) {
        GRT_RETURN_IF_ERROR(AddPair(rule, from, to, what, rules));
      }
      return Status::OK();
    }
  }
  return Internal("rule '", key, "' has an unknown kind");
}

Status ParseRulesJsonUnguarded(const std::string& text, const std::string& what,
                               MigrationRules* rules) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return InvalidArgument("rules file ", what, " is not a JSON object");
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const RuleDescriptor* rule = nullptr;
    for (const RuleDescriptor& r : RuleDescriptors()) {
      if (it.key() == r.name) rule = &r;
    }
    if (rule == nullptr) return InvalidArgument("unknown rule '", it.key(), "' in ", what);
    GRT_RETURN_IF_ERROR(ReadJsonRule(*rule, it.value(), what, rules));
  }
  return Status::OK();
}

}  // namespace

const std::vector<RuleDescriptor>& RuleDescriptors() {
  using K = RuleKind;
  using R = MigrationRules;
  static const std::vector<RuleDescriptor>* const kRules = new std::vector<RuleDescriptor>{
      Rule("rename", K::kPairs, &R::renames, "FROM=TO: replace the name prefix FROM"),
      Rule("rename-regex", K::kPairs, &R::regex_renames,
           "PATTERN=REPLACEMENT: ECMAScript regex, $1 for groups"),
      Rule("assignment-map", K::kAssignmentMap, &R::assignment_map,
           "JSON {\"old_scope/\": \"new_scope/\", \"old/var\": \"new/var\"} "
           "(init_from_checkpoint)"),
      Rule("keep", K::kStrings, &R::keep, "keep only names matching REGEX"),
      Rule("drop", K::kStrings, &R::drop, "drop names matching REGEX"),
      Rule("drop-optimizer-slots", K::kSwitch, &R::drop_optimizer_slots,
           "drop Adam/Momentum/RMSProp/... slots"),
      Rule("drop-global-step", K::kSwitch, &R::drop_global_step, "drop global_step"),
      Rule("use-ema", K::kSwitch, &R::use_ema,
           "use ExponentialMovingAverage shadows as the values"),
      Rule("cast", K::kCasts, &R::casts, "FROM=TO dtypes, e.g. bfloat16=float32"),
      Rule("merge-partitions", K::kSwitch, &R::merge_partitions, "reassemble partitioned tensors"),
      Rule("partition", K::kPartitions, &R::partitions, "NAME=N: split NAME into N slices"),
      Rule("shards", K::kPositiveInt, &R::num_shards,
           "number of data shards written (default: as the input)"),
      Rule("strict", K::kSwitch, &R::strict, "a rule that matches nothing is an error"),
      Rule("strip-tpu", K::kSwitch, &R::strip_tpu, "remove the TPU rewrite", /*graph_only=*/true),
      Rule("device-map", K::kPairs, &R::device_map, "FROM=TO device types (TPU=CPU)",
           /*graph_only=*/true),
      Rule("clear-devices", K::kSwitch, &R::clear_devices, "clear every device string",
           /*graph_only=*/true),
      Rule("strip-training", K::kSwitch, &R::strip_training,
           "keep only what --outputs need; the input pipeline becomes placeholders",
           /*graph_only=*/true),
      Rule("outputs", K::kStrings, &R::outputs, "an inference output (repeatable)",
           /*graph_only=*/true),
  };
  return *kRules;
}

Status AddRuleFlag(const RuleDescriptor& rule, const RuleFlagValue& value, MigrationRules* rules) {
  const std::string flag = StrCat("--", rule.name);
  switch (rule.kind) {
    case RuleKind::kSwitch:
      if (std::get<bool>(value)) FieldOf<bool>(rule, rules) = true;
      return Status::OK();
    case RuleKind::kPositiveInt:
      if (std::get<int>(value) < 1) return InvalidArgument(flag, " must be at least 1");
      FieldOf<int>(rule, rules) = std::get<int>(value);
      return Status::OK();
    case RuleKind::kStrings:
      FieldOf<std::vector<std::string>>(rule, rules).push_back(std::get<std::string>(value));
      return Status::OK();
    case RuleKind::kAssignmentMap:
      return ReadAssignmentMap(std::get<std::string>(value), rules);
    case RuleKind::kCasts:
    case RuleKind::kPartitions: {
      // ParseCast and ParsePartition name the flag in their errors.
      std::pair<std::string, std::string> pair;
      GRT_RETURN_IF_ERROR(SplitPair(std::get<std::string>(value), flag, &pair));
      return AddPair(rule, pair.first, pair.second, flag, rules);
    }
    case RuleKind::kPairs: {
      // As every NAME=VALUE flag of the command (cli_util's SplitAssignment): a name is required.
      const std::string& text = std::get<std::string>(value);
      const size_t eq = text.find('=');
      if (eq == std::string::npos || eq == 0) {
        return InvalidArgument(flag, " needs NAME=VALUE, got '", text, "'");
      }
      return AddPair(rule, text.substr(0, eq), text.substr(eq + 1), flag, rules);
    }
  }
  return Internal("rule '", rule.name, "' has an unknown kind");
}

Status ParseRulesJson(const std::string& text, const std::string& what, MigrationRules* rules) {
  return StatusFromExceptions("reading migration rules",
                              [&] { return ParseRulesJsonUnguarded(text, what, rules); });
}

bool IsOptimizerSlot(const std::string& name) {
  static const RulePattern* const kSlot = new RulePattern(
      *RulePattern::Compile("(^|/)(beta1_power|beta2_power)(_[0-9]+)?$"
                            "|/(Adam|Adam_[0-9]+|adam_m|adam_v|Momentum|RMSProp|RMSProp_[0-9]+|"
                            "Adagrad|AdagradDA|Adadelta|Adadelta_[0-9]+|Ftrl|Ftrl_[0-9]+|lamb_m|"
                            "lamb_v|LAMB|LAMB_[0-9]+|Adam/m|Adam/v|Adafactor|Adafactor_[0-9]+)$"
                            "|_slot_(v|vc|vr|m)$",
                            "optimizer slots"));
  return kSlot->Search(name);
}

bool IsGlobalStep(const std::string& name) {
  return name == "global_step" || EndsWith(name, "/global_step");
}

bool EmaShadowOf(const std::string& name, std::string* variable) {
  static const std::string kSuffix = "/ExponentialMovingAverage";
  if (!EndsWith(name, kSuffix) || name.size() == kSuffix.size()) return false;
  *variable = name.substr(0, name.size() - kSuffix.size());
  return true;
}

StatusOr<Renamer> Renamer::Create(const MigrationRules& rules) {
  Renamer r;
  r.prefixes_ = rules.renames;
  r.assignment_map_ = rules.assignment_map;
  for (const auto& [pattern, replacement] : rules.regex_renames) {
    GRT_ASSIGN_OR_RETURN(RulePattern compiled, RulePattern::CompileWithReplacement(
                                                   pattern, replacement, "--rename-regex"));
    r.regexes_.push_back({replacement, std::move(compiled)});
  }
  r.prefix_hits_.assign(r.prefixes_.size(), 0);
  r.assignment_hits_.assign(r.assignment_map_.size(), 0);
  r.regex_hits_.assign(r.regexes_.size(), 0);
  return r;
}

std::string Renamer::Rename(const std::string& original) {
  std::string name = original;
  // Assignment map: an exact entry wins, else the longest scope.
  int best = -1;
  size_t best_len = 0;
  for (size_t i = 0; i < assignment_map_.size(); ++i) {
    const auto& [from, to] = assignment_map_[i];
    if (!EndsWith(from, "/")) {
      if (name == from) {
        best = static_cast<int>(i);
        break;
      }
      // What lives under a variable (its parts, slots, shadows, /read) moves with it.
      if (StartsWith(name, from + "/") && (best < 0 || from.size() + 1 > best_len)) {
        best = static_cast<int>(i);
        best_len = from.size() + 1;
      }
    } else if ((from == "/" || StartsWith(name, from)) && (best < 0 || from.size() > best_len)) {
      best = static_cast<int>(i);
      best_len = from.size();
    }
  }
  if (best >= 0) {
    const auto& [from, to] = assignment_map_[best];
    ++assignment_hits_[best];
    if (!EndsWith(from, "/")) {
      name = to + name.substr(from.size());
    } else {
      const std::string rest = from == "/" ? name : name.substr(from.size());
      name = (to == "/" ? "" : to) + rest;
    }
  }
  for (size_t i = 0; i < prefixes_.size(); ++i) {
    if (StartsWith(name, prefixes_[i].first)) {
      ++prefix_hits_[i];
      name = prefixes_[i].second + name.substr(prefixes_[i].first.size());
      break;
    }
  }
  for (size_t i = 0; i < regexes_.size(); ++i) {
    if (regexes_[i].pattern.Search(name)) {
      ++regex_hits_[i];
      name = regexes_[i].pattern.ReplaceAll(name);
    }
  }
  return name;
}

std::vector<std::string> Renamer::UnusedRules() const {
  std::vector<std::string> unused;
  for (size_t i = 0; i < prefixes_.size(); ++i) {
    if (prefix_hits_[i] == 0) {
      unused.push_back(StrCat("--rename ", prefixes_[i].first, "=", prefixes_[i].second));
    }
  }
  for (size_t i = 0; i < assignment_map_.size(); ++i) {
    if (assignment_hits_[i] == 0) {
      unused.push_back(StrCat("--assignment-map entry '", assignment_map_[i].first, "': '",
                              assignment_map_[i].second, "'"));
    }
  }
  for (size_t i = 0; i < regexes_.size(); ++i) {
    if (regex_hits_[i] == 0) {
      unused.push_back(
          StrCat("--rename-regex ", regexes_[i].pattern.pattern(), "=", regexes_[i].replacement));
    }
  }
  return unused;
}

}  // namespace migrate
}  // namespace graphrt
