#include "migrate/rule_pattern.h"

#include <re2/re2.h>

#include "runtime/core/str_util.h"

namespace graphrt {
namespace migrate {

namespace {

// ECMAScript's replacement spelling to RE2's: $N -> \N, $& -> \0, $$ -> $, a backslash stays a
// literal backslash.
StatusOr<std::string> RewriteFromEcmaScript(const std::string& replacement,
                                            const std::string& flag) {
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    const char next = i + 1 < replacement.size() ? replacement[i + 1] : '\0';
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '$' && next >= '0' && next <= '9') {
      if (i + 2 < replacement.size() && replacement[i + 2] >= '0' && replacement[i + 2] <= '9') {
        return InvalidArgument(flag, ": replacement '", replacement,
                               "' refers to a group past $9, which graphrt does not support");
      }
      out += '\\';
      out += next;
      ++i;
    } else if (c == '$' && next == '&') {
      out += "\\0";
      ++i;
    } else if (c == '$' && next == '$') {
      out += '$';
      ++i;
    } else if (c == '$' && (next == '`' || next == '\'')) {
      return InvalidArgument(flag, ": replacement '", replacement, "' uses $", next,
                             ", which graphrt does not support");
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

StatusOr<RulePattern> RulePattern::Compile(const std::string& pattern, const std::string& flag) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok()) {
    return InvalidArgument(flag, ": bad regular expression '", pattern, "': ", re->error(),
                           " (backreferences and lookaround are not supported)");
  }
  RulePattern p;
  p.pattern_ = pattern;
  p.re_ = std::move(re);
  return p;
}

StatusOr<RulePattern> RulePattern::CompileWithReplacement(const std::string& pattern,
                                                          const std::string& replacement,
                                                          const std::string& flag) {
  GRT_ASSIGN_OR_RETURN(RulePattern p, Compile(pattern, flag));
  GRT_ASSIGN_OR_RETURN(p.rewrite_, RewriteFromEcmaScript(replacement, flag));
  std::string error;
  if (!p.re_->CheckRewriteString(p.rewrite_, &error)) {
    return InvalidArgument(flag, ": replacement '", replacement, "' does not fit '", pattern,
                           "': ", error);
  }
  return p;
}

bool RulePattern::Search(const std::string& text) const { return RE2::PartialMatch(text, *re_); }

std::string RulePattern::ReplaceAll(const std::string& text) const {
  std::string out = text;
  RE2::GlobalReplace(&out, *re_, rewrite_);
  return out;
}

}  // namespace migrate
}  // namespace graphrt
