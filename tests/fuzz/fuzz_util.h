// Helpers shared by the libFuzzer targets in this folder (header-only: each target is one .cc).
//
// Several targets take more than one file. Their input packs the files as parts:
//
//   input = part* last
//   part  = size: fixed32 little-endian | bytes[size]     (size clamped to what is left)
//   last  = the remaining bytes
//
// so a mutation that changes one part's length does not shift the others' meaning more than it
// must, and `fuzz_pack.py` (beside this file) packs real files into seeds.
#ifndef GRAPHRT_TESTS_FUZZ_FUZZ_UTIL_H_
#define GRAPHRT_TESTS_FUZZ_FUZZ_UTIL_H_

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "runtime/session/session_options.h"

namespace graphrt {
namespace fuzzing {

// The first `n - 1` parts of `data` as above, and the rest as the last one; missing parts are
// empty.
inline std::vector<std::string> SplitParts(const uint8_t* data, size_t size, int n) {
  std::vector<std::string> parts;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i + 1 < n; ++i) {
    uint32_t len = 0;
    if (in.size() >= 4) {
      len = static_cast<uint32_t>(static_cast<uint8_t>(in[0])) |
            static_cast<uint32_t>(static_cast<uint8_t>(in[1])) << 8 |
            static_cast<uint32_t>(static_cast<uint8_t>(in[2])) << 16 |
            static_cast<uint32_t>(static_cast<uint8_t>(in[3])) << 24;
      in.remove_prefix(4);
    } else {
      in = {};
    }
    const size_t take = std::min<size_t>(len, in.size());
    parts.emplace_back(in.substr(0, take));
    in.remove_prefix(take);
  }
  parts.emplace_back(in);
  return parts;
}

// A fresh directory under $TMPDIR (or /tmp), removed with its contents at destruction, so that a
// long fuzzing run leaves nothing behind.
class TempDir {
 public:
  TempDir() {
    std::error_code error;
    std::string pattern =
        (std::filesystem::temp_directory_path(error) / "graphrt_fuzz.XXXXXX").string();
    if (!error && ::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code error;
    if (!path_.empty()) std::filesystem::remove_all(path_, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A session that is cheap to make and runs every node on the caller's thread: one CPU device,
// no OpenCL discovery, a deadline so that a graph that loops cannot outlast libFuzzer's -timeout.
inline SessionOptions FuzzSessionOptions() {
  SessionOptions options;
  options.config.device_count["CPU"] = 1;
  options.config.device_count["GPU"] = 0;
  options.config.opencl_devices = "none";
  options.config.intra_op_parallelism_threads = 1;
  options.config.inter_op_parallelism_threads = -1;
  options.config.operation_timeout_in_ms = 2000;
  return options;
}

// Text-format parsing without protobuf's log line for every syntax error.
inline bool ParseTextProto(const std::string& text, google::protobuf::Message* message) {
  class Silent : public google::protobuf::io::ErrorCollector {
   public:
    void AddError(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
  };
  Silent silent;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&silent);
  return parser.ParseFromString(text, message);
}

// The directory of the running fuzz binary's sources, for fixed fixtures (set by CMake).
inline std::string SourceDir() { return GRAPHRT_SOURCE_DIR; }

}  // namespace fuzzing
}  // namespace graphrt

#endif  // GRAPHRT_TESTS_FUZZ_FUZZ_UTIL_H_
