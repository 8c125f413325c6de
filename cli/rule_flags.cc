#include "cli/rule_flags.h"

#include <string>
#include <vector>

#include "formats/file_util.h"

namespace graphrt {
namespace cli {

namespace po = boost::program_options;
using migrate::RuleDescriptor;
using migrate::RuleKind;

void AddRuleFlags(po::options_description* desc, bool graph) {
  desc->add_options()("rules", po::value<std::string>(), "a JSON file of rules (the flag names)");
  for (const RuleDescriptor& rule : migrate::RuleDescriptors()) {
    if (rule.graph_only && !graph) continue;
    switch (rule.kind) {
      case RuleKind::kSwitch:
        desc->add_options()(rule.name, po::bool_switch(), rule.help);
        break;
      case RuleKind::kPositiveInt:
        desc->add_options()(rule.name, po::value<int>(), rule.help);
        break;
      case RuleKind::kAssignmentMap:
        desc->add_options()(rule.name, po::value<std::string>(), rule.help);
        break;
      case RuleKind::kStrings:
      case RuleKind::kPairs:
      case RuleKind::kCasts:
      case RuleKind::kPartitions:
        desc->add_options()(rule.name, po::value<std::vector<std::string>>()->composing(),
                            rule.help);
        break;
    }
  }
}

Status ReadRuleFlags(const po::variables_map& vm, bool graph, migrate::MigrationRules* rules) {
  if (vm.count("rules")) {
    const std::string path = vm["rules"].as<std::string>();
    GRT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    GRT_RETURN_IF_ERROR(migrate::ParseRulesJson(text, path, rules));
  }
  for (const RuleDescriptor& rule : migrate::RuleDescriptors()) {
    if ((rule.graph_only && !graph) || !vm.count(rule.name)) continue;
    const po::variable_value& value = vm[rule.name];
    switch (rule.kind) {
      case RuleKind::kSwitch:
        GRT_RETURN_IF_ERROR(migrate::AddRuleFlag(rule, value.as<bool>(), rules));
        break;
      case RuleKind::kPositiveInt:
        GRT_RETURN_IF_ERROR(migrate::AddRuleFlag(rule, value.as<int>(), rules));
        break;
      case RuleKind::kAssignmentMap:
        GRT_RETURN_IF_ERROR(migrate::AddRuleFlag(rule, value.as<std::string>(), rules));
        break;
      case RuleKind::kStrings:
      case RuleKind::kPairs:
      case RuleKind::kCasts:
      case RuleKind::kPartitions:
        for (const std::string& item : value.as<std::vector<std::string>>()) {
          GRT_RETURN_IF_ERROR(migrate::AddRuleFlag(rule, item, rules));
        }
        break;
    }
  }
  return Status::OK();
}

}  // namespace cli
}  // namespace graphrt
