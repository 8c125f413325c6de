// `--example` JSON -> ExampleFromJson (and the base64 decoder behind its {"b64": ...} items).
#include <cstdint>
#include <string>

#include "example.pb.h"
#include "formats/example_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  graphrt::StatusOr<::tensorflow::Example> example = graphrt::ExampleFromJson(text, "--example 1");
  if (example.ok()) example.value().SerializeAsString();
  graphrt::Base64Decode(text).status().IgnoreError();
  return 0;
}
