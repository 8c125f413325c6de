#include "migrate/rule_pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace graphrt {
namespace migrate {
namespace {

std::string Replace(const std::string& pattern, const std::string& replacement,
                    const std::string& text) {
  StatusOr<RulePattern> p = RulePattern::CompileWithReplacement(pattern, replacement, "--test");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? p->ReplaceAll(text) : "";
}

TEST(RulePatternTest, ReplacesAsEcmaScriptDoes) {
  EXPECT_EQ(Replace("^layer_([0-9]+)/weights$", "layer$1/kernel", "layer_12/weights"),
            "layer12/kernel");
  EXPECT_EQ(Replace("/Adam_1$", "/Adam", "w/Adam_1"), "w/Adam");
  EXPECT_EQ(Replace("a", "[$&]", "banana"), "b[a]n[a]n[a]");  // every match
  EXPECT_EQ(Replace("(x)", "$$1\\", "x"), "$1\\");            // $$ and a backslash are literal
  EXPECT_EQ(Replace("q", "z", "abc"), "abc");
}

TEST(RulePatternTest, SearchFindsAMatchAnywhere) {
  StatusOr<RulePattern> p = RulePattern::Compile("/Adam(_[0-9]+)?$", "--drop");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->Search("dense/kernel/Adam_1"));
  EXPECT_FALSE(p->Search("dense/kernel/Adam_1/x"));
  EXPECT_EQ(p->pattern(), "/Adam(_[0-9]+)?$");
}

TEST(RulePatternTest, BadPatternsAndReplacementsNameTheFlag) {
  struct Case {
    std::string pattern, replacement, says;
  };
  for (const Case& c : {Case{"(unclosed", "x", "--rename-regex: bad regular expression"},
                        Case{"(a)\\1", "x", "backreferences"}, Case{"a(?=b)", "x", "lookaround"},
                        Case{"(a)", "$2", "does not fit '(a)'"}, Case{"(a)", "$10", "past $9"},
                        Case{"(a)", "$`", "does not support"}}) {
    SCOPED_TRACE(c.pattern + " = " + c.replacement);
    StatusOr<RulePattern> p =
        RulePattern::CompileWithReplacement(c.pattern, c.replacement, "--rename-regex");
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), Code::kInvalidArgument);
    EXPECT_NE(p.status().message().find(c.says), std::string::npos) << p.status();
  }
}

// Found by the migration_rules fuzzer: std::regex accepted "(.?*)" and backtracked for minutes,
// and recursed once per character of a long key. RE2 refuses that pattern by name, and runs the
// classic exponential one in linear time.
TEST(RulePatternTest, NestedQuantifiersAndLongKeysRunInLinearTime) {
  StatusOr<RulePattern> refused = RulePattern::Compile("(.?*)", "--rename-regex");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("'(.?*)'"), std::string::npos) << refused.status();
  StatusOr<RulePattern> p = RulePattern::CompileWithReplacement("(a*)*b", "<$1>", "--rename-regex");
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string key(1 << 20, 'a');
  EXPECT_FALSE(p->Search(key));
  EXPECT_EQ(p->ReplaceAll("aab"), "<aa>");
  StatusOr<RulePattern> slot = RulePattern::Compile("(^|/)(x|y)*z$", "--keep");
  ASSERT_TRUE(slot.ok());
  EXPECT_FALSE(slot->Search(std::string(1 << 20, 'x')));
}

}  // namespace
}  // namespace migrate
}  // namespace graphrt
