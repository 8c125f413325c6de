// StrCat: concatenates anything that has an operator<<. Public because the Status helpers
// (InvalidArgument("bad ", name)) build their messages with it.
#ifndef GRAPHRT_STR_CAT_H_
#define GRAPHRT_STR_CAT_H_

#include <sstream>
#include <string>

namespace graphrt {

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

}  // namespace graphrt

#endif  // GRAPHRT_STR_CAT_H_
