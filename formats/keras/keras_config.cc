#include "formats/keras/keras_config.h"

#include <algorithm>

namespace graphrt {
namespace keras {
namespace internal {

std::vector<int64_t> GetInts(const Json& config, const char* key, int n, int64_t fallback) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::vector<int64_t>(n, fallback);
  if (it->is_number()) return std::vector<int64_t>(n, JsonInt(*it));
  if (!it->is_array()) throw ConfigError(StrCat("'", key, "' is not a number or a list"));
  std::vector<int64_t> out;
  for (const Json& v : *it) out.push_back(v.is_null() ? -1 : JsonInt(v));
  if (n > 0 && out.size() != static_cast<size_t>(n)) {
    throw ConfigError(StrCat("'", key, "' holds ", out.size(), " numbers, not ", n));
  }
  return out;
}

std::vector<int64_t> GetWindow(const Json& config, const char* key, int n, int64_t fallback) {
  constexpr int64_t kMaxWindow = int64_t{1} << 20;
  std::vector<int64_t> values = GetInts(config, key, n, fallback);
  for (int64_t v : values) {
    if (v < 1 || v > kMaxWindow) {
      throw ConfigError(StrCat("'", key, "' holds ", v, ": each must be from 1 to ", kMaxWindow));
    }
  }
  return values;
}

StatusOr<const Json*> Member(const Json& object, const char* key, const std::string& layer) {
  if (!object.is_object()) {
    return InvalidArgument("layer '", layer, "': expected a JSON object with '", key, "', got ",
                           object.type_name());
  }
  auto it = object.find(key);
  if (it == object.end()) return InvalidArgument("layer '", layer, "': no '", key, "' in its JSON");
  return &*it;
}

int JsonDepth(const Json& root) {
  int depth = 0;
  std::vector<std::pair<const Json*, int>> stack = {{&root, 1}};
  while (!stack.empty()) {
    auto [v, d] = stack.back();
    stack.pop_back();
    depth = std::max(depth, d);
    if (d > kMaxConfigDepth) break;
    if (v->is_structured()) {
      for (const Json& child : *v) stack.emplace_back(&child, d + 1);
    }
  }
  return depth;
}

std::string ActivationName(const Json& config, const char* key, const std::string& fallback) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("class_name") && (*it)["class_name"].is_string() &&
      it->contains("config") && (*it)["config"].is_object()) {
    // An activation layer passed as the activation (Dense(activation=LeakyReLU(0.1))): its
    // whole serialization, for Activate to build.
    static const char* const kLayers[] = {"ReLU",    "LeakyReLU", "ELU", "ThresholdedReLU",
                                          "Softmax", "Activation"};
    for (const char* cls : kLayers) {
      if ((*it)["class_name"] == cls) return kActivationLayerPrefix + it->dump();
    }
  }
  if (it->is_object() && it->contains("config") && (*it)["config"].contains("name")) {
    return (*it)["config"]["name"].get<std::string>();
  }
  return it->dump();
}

std::vector<std::pair<int64_t, int64_t>> PairsFromConfig(const Json& v, int n, const char* key) {
  auto pair = [key](const Json& p) {
    if (p.is_number()) return std::make_pair(JsonInt(p), JsonInt(p));
    if (!p.is_array() || p.size() != 2) {
      throw ConfigError(StrCat("'", key, "' holds ", p.dump(), ", not a pair of numbers"));
    }
    return std::make_pair(JsonInt(p[0]), JsonInt(p[1]));
  };
  std::vector<std::pair<int64_t, int64_t>> out;
  if (v.is_number() || n == 1) {
    out.assign(n, pair(v));
    return out;
  }
  if (!v.is_array() || v.size() != static_cast<size_t>(n)) {
    throw ConfigError(StrCat("'", key, "' holds ", v.dump(), ", not ", n, " pairs"));
  }
  for (const Json& e : v) out.push_back(pair(e));
  return out;
}

StatusOr<int> NormAxis(int64_t axis, int rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) return InvalidArgument("axis ", axis, " is out of range for rank ", rank);
  return static_cast<int>(a);
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
