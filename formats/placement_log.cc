#include "formats/placement_log.h"

#include <regex>

#include "formats/file_util.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"

namespace graphrt {

namespace {

constexpr size_t kMaxPlacementLineBytes = 2048;

// "2019-10-10 12:34:56.789012: I tensorflow/core/common_runtime/placer.cc:54] " or the classic
// glog "I1010 12:34:56.789012 12345 placer.cc:54] ".
const std::regex& GlogPrefix() {
  static const std::regex re(
      R"(^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?: [IWEF] \S+:\d+\] |[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ \S+:\d+\] ))");
  return re;
}

const std::regex& GraphLine() {
  static const std::regex re(R"(^(\S+): \(([A-Za-z0-9_>.]+)\):? ?(/\S+)\s*$)");
  return re;
}

const std::regex& EagerLine() {
  static const std::regex re(R"(^Executing op (\S+) in device (/\S+)\s*$)");
  return re;
}

}  // namespace

static StatusOr<PlacementLog> ParsePlacementLogUnguarded(const std::string& text,
                                                         const std::string& name);

StatusOr<PlacementLog> ParsePlacementLog(const std::string& text, const std::string& name) {
  return StatusFromExceptions("reading a placement log",
                              [&] { return ParsePlacementLogUnguarded(text, name); });
}

static StatusOr<PlacementLog> ParsePlacementLogUnguarded(const std::string& text,
                                                         const std::string& name) {
  size_t probe = std::min<size_t>(text.size(), 8192);
  for (size_t i = 0; i < probe; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0 || (c < 0x09) || (c > 0x0d && c < 0x20 && c != 0x1b)) {
      return InvalidArgument("not a text placement log (binary data at byte ", i, "): ", name);
    }
  }
  PlacementLog log;
  int line_no = 0;
  for (std::string line : StrSplit(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // libstdc++'s regex recurses once per character: a long line would overflow the stack.
    // Placement lines are a node name and a device name, far shorter than this.
    if (line.size() > kMaxPlacementLineBytes) continue;
    std::smatch m;
    if (std::regex_search(line, m, GlogPrefix())) line = m.suffix();
    if (std::regex_match(line, m, GraphLine())) {
      log.entries.push_back({m[1], m[2], m[3], line_no});
    } else if (std::regex_match(line, m, EagerLine())) {
      log.eager.push_back({"", m[1], m[2], line_no});
    }
  }
  if (log.entries.empty() && log.eager.empty()) {
    return InvalidArgument("no placement lines found (\"name: (Op): /job:...\" or \"Executing op ",
                           "Op in device /job:...\"): ", name);
  }
  return log;
}

StatusOr<PlacementLog> ReadPlacementLog(const std::string& path) {
  GRT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParsePlacementLog(text, path);
}

}  // namespace graphrt
