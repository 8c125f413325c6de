// Small string helpers shared by every layer.
#ifndef GRAPHRT_RUNTIME_CORE_STR_UTIL_H_
#define GRAPHRT_RUNTIME_CORE_STR_UTIL_H_

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <graphrt/str_cat.h>

namespace graphrt {

template <typename Container>
std::string StrJoin(const Container& items, std::string_view sep) {
  std::ostringstream os;
  bool first = true;
  for (const auto& item : items) {
    if (!first) os << sep;
    os << item;
    first = false;
  }
  return os.str();
}

std::vector<std::string> StrSplit(std::string_view text, char sep, bool skip_empty = false);
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);
// Removes leading and trailing ASCII whitespace.
std::string_view StripWhitespace(std::string_view text);
// Strict decimal integer parse of the whole string.
bool ParseInt64(std::string_view text, long long* out);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_CORE_STR_UTIL_H_
