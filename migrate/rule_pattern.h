// The regular expressions of migration rules (--rename-regex, --keep, --drop) and the fixed
// patterns the rules match checkpoint keys with. ECMAScript syntax as ../shared/CLI.md says, run by
// RE2, whose matching is linear in the key: a pattern such as "(.?*)" cannot backtrack for
// minutes, and a key of any length cannot overflow the stack (both std::regex failures). What RE2
// does not run (backreferences in the pattern, lookaround) is refused when the rule is read,
// naming the flag and the pattern.
#ifndef GRAPHRT_MIGRATE_RULE_PATTERN_H_
#define GRAPHRT_MIGRATE_RULE_PATTERN_H_

#include <memory>
#include <string>

#include "runtime/core/status.h"

namespace re2 {
class RE2;
}

namespace graphrt {
namespace migrate {

class RulePattern {
 public:
  // `flag` names the rule in errors ("--drop").
  static StatusOr<RulePattern> Compile(const std::string& pattern, const std::string& flag);
  // As Compile, with an ECMAScript replacement ($1..$9, $& for the match, $$ for '$') checked
  // against the pattern's groups, for ReplaceAll.
  static StatusOr<RulePattern> CompileWithReplacement(const std::string& pattern,
                                                      const std::string& replacement,
                                                      const std::string& flag);

  const std::string& pattern() const { return pattern_; }
  // Whether the pattern matches somewhere in `text` (std::regex_search).
  bool Search(const std::string& text) const;
  // Every non-overlapping match replaced (std::regex_replace); REQUIRES CompileWithReplacement.
  std::string ReplaceAll(const std::string& text) const;

 private:
  std::string pattern_;
  std::string rewrite_;                 // the replacement in RE2's \N spelling
  std::shared_ptr<const re2::RE2> re_;  // shared: copies of a pattern match concurrently
};

}  // namespace migrate
}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_RULE_PATTERN_H_
