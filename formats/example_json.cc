#include "formats/example_json.h"

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"

namespace graphrt {

namespace {

using Json = nlohmann::json;

Status FeatureFromJson(const Json& value, const std::string& key, const std::string& what,
                       ::tensorflow::Feature* feature) {
  std::vector<const Json*> items;
  if (value.is_array()) {
    for (const Json& v : value) items.push_back(&v);
  } else {
    items.push_back(&value);
  }
  auto bad = [&](const std::string& why) {
    return InvalidArgument(what, ", feature ", key, ": ", why);
  };
  bool all_int = true, all_number = true, all_bytes = true;
  for (const Json* v : items) {
    bool is_int = v->is_number_integer();
    bool is_bytes = v->is_string() || (v->is_object() && v->size() == 1 && v->contains("b64") &&
                                       (*v)["b64"].is_string());
    all_int = all_int && is_int;
    all_number = all_number && v->is_number();
    all_bytes = all_bytes && is_bytes;
  }
  if (items.empty()) {
    return bad("an empty list has no type; leave the feature out instead");
  }
  if (all_int) {
    for (const Json* v : items) {
      if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return bad("integer out of int64 range");
      }
      feature->mutable_int64_list()->add_value(v->get<int64_t>());
    }
  } else if (all_number) {
    for (const Json* v : items) feature->mutable_float_list()->add_value(v->get<float>());
  } else if (all_bytes) {
    for (const Json* v : items) {
      if (v->is_string()) {
        feature->mutable_bytes_list()->add_value(v->get<std::string>());
      } else {
        StatusOr<std::string> raw = Base64Decode((*v)["b64"].get<std::string>());
        if (!raw.ok()) return bad(raw.status().message());
        feature->mutable_bytes_list()->add_value(*raw);
      }
    }
  } else {
    return bad("values must be all numbers or all strings (or {\"b64\": ...})");
  }
  return Status::OK();
}

}  // namespace

static StatusOr<::tensorflow::Example> ExampleFromJsonUnguarded(const std::string& json,
                                                                const std::string& what);

StatusOr<::tensorflow::Example> ExampleFromJson(const std::string& json, const std::string& what) {
  return StatusFromExceptions("reading an Example from JSON",
                              [&] { return ExampleFromJsonUnguarded(json, what); });
}

static StatusOr<::tensorflow::Example> ExampleFromJsonUnguarded(const std::string& json,
                                                                const std::string& what) {
  Json doc = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument(what, ": not valid JSON: ", json);
  if (!doc.is_object()) return InvalidArgument(what, ": expected a JSON object of features");
  ::tensorflow::Example example;
  auto* features = example.mutable_features()->mutable_feature();
  for (const auto& [key, value] : doc.items()) {
    GRT_RETURN_IF_ERROR(FeatureFromJson(value, key, what, &(*features)[key]));
  }
  return example;
}

StatusOr<std::vector<std::string>> SerializedExamplesFromJsonLines(const std::string& path) {
  GRT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  std::vector<std::string> out;
  std::vector<std::string> lines = StrSplit(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    if (StripWhitespace(lines[i]).empty()) continue;
    GRT_ASSIGN_OR_RETURN(::tensorflow::Example e,
                         ExampleFromJson(lines[i], StrCat(path, " line ", i + 1)));
    out.push_back(e.SerializeAsString());
  }
  return out;
}

StatusOr<std::string> Base64Decode(const std::string& text) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+' || c == '-') {
      v = 62;
    } else if (c == '/' || c == '_') {
      v = 63;
    } else if (c == '=') {
      break;
    } else {
      return InvalidArgument("bad base64 character '", std::string(1, c), "'");
    }
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<char>((bits >> 16) & 0xff));
      out.push_back(static_cast<char>((bits >> 8) & 0xff));
      out.push_back(static_cast<char>(bits & 0xff));
      bits = 0;
      count = 0;
    }
  }
  if (count == 1) return InvalidArgument("truncated base64");
  if (count == 2) out.push_back(static_cast<char>((bits >> 4) & 0xff));
  if (count == 3) {
    out.push_back(static_cast<char>((bits >> 10) & 0xff));
    out.push_back(static_cast<char>((bits >> 2) & 0xff));
  }
  return out;
}

}  // namespace graphrt
