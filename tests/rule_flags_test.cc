// Every migration rule is reachable both from a --rules JSON file and from the command's flags,
// and the two fill the same MigrationRules field with the same value (migrate::RuleDescriptors is
// the one table both read).
#include "cli/rule_flags.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "migrate/migration_rules.h"

namespace graphrt {
namespace {

namespace po = boost::program_options;
using migrate::MigrationRules;
using migrate::RuleDescriptor;
using migrate::RuleKind;

// One rule's value as the command line spells it and as a rules file does.
struct Spelling {
  std::vector<std::string> args;
  nlohmann::json json;
};

Spelling SpellingFor(const RuleDescriptor& rule, const std::string& assignment_map_file) {
  const std::string flag = StrCat("--", rule.name);
  switch (rule.kind) {
    case RuleKind::kSwitch:
      return {{flag}, true};
    case RuleKind::kStrings:
      return {{flag, "^a/", flag, "b$"}, nlohmann::json::array({"^a/", "b$"})};
    case RuleKind::kPairs:
      return {{flag, "a/=b/", flag, "c=d=e"}, nlohmann::json::array({"a/=b/", "c=d=e"})};
    case RuleKind::kCasts:
      return {{flag, "bfloat16=float32", flag, "float16=float32"},
              nlohmann::json{{"bfloat16", "float32"}, {"float16", "float32"}}};
    case RuleKind::kPartitions:
      return {{flag, "emb=2", flag, "softmax=4"}, nlohmann::json{{"emb", "2"}, {"softmax", "4"}}};
    case RuleKind::kPositiveInt:
      return {{flag, "3"}, 3};
    case RuleKind::kAssignmentMap:
      return {{flag, assignment_map_file},
              nlohmann::json{{"old_scope/", "new_scope/"}, {"tbl/tokens", "emb/tokens"}}};
  }
  return {};
}

// The command line of migrate-graph (every rule) or migrate (no graph-only rule), read as the
// command reads it.
Status ReadFlags(const std::vector<std::string>& args, bool graph, MigrationRules* rules) {
  po::options_description desc;
  cli::AddRuleFlags(&desc, graph);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  return cli::ReadRuleFlags(vm, graph, rules);
}

TEST(RuleDescriptorsTest, NameEveryRuleOfTheCliContract) {
  // ../shared/CLI.md, `graphrt migrate` and `migrate-graph`.
  const std::set<std::string> contract = {"rename",
                                          "rename-regex",
                                          "assignment-map",
                                          "keep",
                                          "drop",
                                          "drop-optimizer-slots",
                                          "drop-global-step",
                                          "use-ema",
                                          "cast",
                                          "merge-partitions",
                                          "partition",
                                          "shards",
                                          "strict",
                                          "strip-tpu",
                                          "device-map",
                                          "clear-devices",
                                          "strip-training",
                                          "outputs"};
  std::set<std::string> names;
  for (const RuleDescriptor& rule : migrate::RuleDescriptors()) {
    EXPECT_TRUE(names.insert(rule.name).second) << "twice: " << rule.name;
    EXPECT_NE(std::string(rule.help), "") << rule.name;
  }
  EXPECT_EQ(names, contract);
  // Each rule fills its own field.
  const auto& rules = migrate::RuleDescriptors();
  for (size_t i = 0; i < rules.size(); ++i) {
    for (size_t j = i + 1; j < rules.size(); ++j) {
      EXPECT_FALSE(rules[i].field == rules[j].field) << rules[i].name << " and " << rules[j].name;
    }
  }
}

TEST(RuleDescriptorsTest, EveryRuleReadsTheSameFromJsonAndFromFlags) {
  const std::string dir = ::testing::TempDir();
  const std::string map_file = dir + "/rule_flags_assignment_map.json";
  ASSERT_TRUE(
      WriteStringToFile(map_file, R"({"old_scope/": "new_scope/", "tbl/tokens": "emb/tokens"})")
          .ok());
  nlohmann::json doc = nlohmann::json::object();
  std::vector<std::string> args;
  for (const RuleDescriptor& rule : migrate::RuleDescriptors()) {
    Spelling spelling = SpellingFor(rule, map_file);
    doc[rule.name] = spelling.json;
    args.insert(args.end(), spelling.args.begin(), spelling.args.end());
  }
  MigrationRules from_json;
  Status s = migrate::ParseRulesJson(doc.dump(), "rules.json", &from_json);
  ASSERT_TRUE(s.ok()) << s;
  MigrationRules from_flags;
  s = ReadFlags(args, /*graph=*/true, &from_flags);
  ASSERT_TRUE(s.ok()) << s;

  const MigrationRules defaults;
  for (const RuleDescriptor& rule : migrate::RuleDescriptors()) {
    std::visit(
        [&](auto field) {
          EXPECT_EQ(from_json.*field, from_flags.*field) << rule.name;
          EXPECT_NE(from_json.*field, defaults.*field) << rule.name << " set nothing";
        },
        rule.field);
  }
  // Spot checks that the values are the intended ones, not merely equal.
  EXPECT_EQ(from_flags.renames, (RuleDescriptor::StringPairs{{"a/", "b/"}, {"c", "d=e"}}));
  EXPECT_EQ(from_flags.assignment_map, (RuleDescriptor::StringPairs{{"old_scope/", "new_scope/"},
                                                                    {"tbl/tokens", "emb/tokens"}}));
  EXPECT_EQ(from_flags.partitions,
            (std::vector<std::pair<std::string, int>>{{"emb", 2}, {"softmax", 4}}));
  EXPECT_EQ(from_flags.num_shards, 3);
  EXPECT_TRUE(from_flags.clear_devices);

  // A --rules file and flags add up.
  const std::string rules_file = dir + "/rule_flags_rules.json";
  ASSERT_TRUE(WriteStringToFile(rules_file, R"({"keep": "x", "strict": true})").ok());
  MigrationRules both;
  s = ReadFlags({"--rules", rules_file, "--keep", "y", "--use-ema"}, /*graph=*/false, &both);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(both.keep, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(both.strict && both.use_ema);
}

TEST(RuleDescriptorsTest, GraphOnlyRulesAreFlagsOfMigrateGraphOnly) {
  po::options_description checkpoint, graph;
  cli::AddRuleFlags(&checkpoint, /*graph=*/false);
  cli::AddRuleFlags(&graph, /*graph=*/true);
  for (const RuleDescriptor& rule : migrate::RuleDescriptors()) {
    EXPECT_NE(graph.find_nothrow(rule.name, false), nullptr) << rule.name;
    EXPECT_EQ(checkpoint.find_nothrow(rule.name, false) != nullptr, !rule.graph_only) << rule.name;
  }
}

TEST(RuleDescriptorsTest, BadFlagValuesNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--rename", "noequals"}, "--rename needs NAME=VALUE, got 'noequals'"},
      {{"--cast", "bfloat16"}, "--cast needs FROM=TO, got 'bfloat16'"},
      {{"--cast", "bfloat16=float99"}, "--cast: unknown dtype 'float99'"},
      {{"--partition", "emb=0"}, "--partition emb=0: N must be a positive integer"},
      {{"--shards", "0"}, "--shards must be at least 1"},
      {{"--assignment-map", "/nonexistent/map.json"}, "/nonexistent/map.json"},
  };
  for (const Case& c : cases) {
    MigrationRules rules;
    Status s = ReadFlags(c.args, /*graph=*/true, &rules);
    EXPECT_FALSE(s.ok()) << c.args[0];
    EXPECT_NE(s.message().find(c.message), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace graphrt
