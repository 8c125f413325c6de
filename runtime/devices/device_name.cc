#include "runtime/devices/device_name.h"

#include <algorithm>
#include <cctype>

#include "runtime/core/str_util.h"

namespace graphrt {

namespace {

bool ParseId(const std::string& text, int* out) {
  long long v;
  if (!ParseInt64(text, &v) || v < 0 || v > (1 << 30)) return false;
  *out = static_cast<int>(v);
  return true;
}

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

}  // namespace

StatusOr<ParsedDeviceName> ParseDeviceName(const std::string& name) {
  ParsedDeviceName p;
  if (name.empty()) return p;
  auto bad = [&]() { return InvalidArgument("Malformed device specification '", name, "'"); };
  if (name[0] != '/') return bad();
  std::vector<std::string> parts = StrSplit(std::string_view(name).substr(1), '/');
  for (const std::string& part : parts) {
    if (part.empty()) return bad();
    std::vector<std::string> fields = StrSplit(part, ':');
    const std::string key = fields[0];
    if (key == "job" && fields.size() == 2 && !fields[1].empty()) {
      p.has_job = true;
      p.job = fields[1];
    } else if (key == "replica" && fields.size() == 2) {
      if (fields[1] == "*") continue;
      if (!ParseId(fields[1], &p.replica)) return bad();
      p.has_replica = true;
    } else if (key == "task" && fields.size() == 2) {
      if (fields[1] == "*") continue;
      if (!ParseId(fields[1], &p.task)) return bad();
      p.has_task = true;
    } else if (key == "device" && (fields.size() == 2 || fields.size() == 3)) {
      if (fields[1].empty()) return bad();
      if (fields[1] != "*") {
        p.has_type = true;
        std::string upper = Upper(fields[1]);
        p.type = upper == "CPU" || upper == "GPU" ? upper : fields[1];
      }
      if (fields.size() == 3 && fields[2] != "*") {
        if (!ParseId(fields[2], &p.id)) return bad();
        p.has_id = true;
      }
    } else if ((Upper(key) == "CPU" || Upper(key) == "GPU") && fields.size() == 2) {
      // Legacy "/cpu:0", "/gpu:1".
      p.has_type = true;
      p.type = Upper(key);
      if (fields[1] != "*") {
        if (!ParseId(fields[1], &p.id)) return bad();
        p.has_id = true;
      }
    } else {
      return bad();
    }
  }
  return p;
}

std::string ParsedDeviceName::ToString() const {
  std::string out;
  if (has_job) out += "/job:" + job;
  if (has_replica) out += StrCat("/replica:", replica);
  if (has_task) out += StrCat("/task:", task);
  if (has_type) out += "/device:" + type + ":" + (has_id ? std::to_string(id) : "*");
  return out;
}

bool DeviceMatchesSpec(const ParsedDeviceName& device, const ParsedDeviceName& spec) {
  if (spec.has_job && (!device.has_job || device.job != spec.job)) return false;
  if (spec.has_replica && (!device.has_replica || device.replica != spec.replica)) return false;
  if (spec.has_task && (!device.has_task || device.task != spec.task)) return false;
  if (spec.has_type && (!device.has_type || device.type != spec.type)) return false;
  if (spec.has_id && (!device.has_id || device.id != spec.id)) return false;
  return true;
}

}  // namespace graphrt
