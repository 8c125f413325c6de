// Pieces every subcommand shares: errors and exit codes (CLI.md), session flags, reading
// --input values, printing tensors.
#ifndef GRAPHRT_CLI_CLI_UTIL_H_
#define GRAPHRT_CLI_CLI_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/session/session_options.h"

namespace graphrt {
namespace cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDifference = 1;
inline constexpr int kExitError = 2;

// Prints "graphrt: error: <message>" on stderr and returns kExitError.
int ReportError(const std::string& message);
int ReportError(const Status& status);

// The error for a Keras file given to a graphrt built without HDF5 (GRAPHRT_WITH_HDF5=OFF).
std::string KerasUnavailable(const std::string& path);

// --config, --device-count, --soft-placement, --log-placement[=FILE], --intra-threads,
// --inter-threads.
void AddSessionFlags(boost::program_options::options_description* desc);
struct SessionFlags {
  SessionConfig config;
  bool log_placement = false;
  std::string log_placement_file;  // empty: stderr
};
StatusOr<SessionFlags> ReadSessionFlags(const boost::program_options::variables_map& vm);

// Parses argv with `desc` (and positional names); unknown flags are errors. Returns the exit code
// when the subcommand is done already: a parse error, --help (printed), or a name in `required`
// missing (`usage_error` is reported). Returns nullopt when the subcommand should go on.
std::optional<int> ParseCommandLine(
    int argc, char** argv, const boost::program_options::options_description& desc,
    const boost::program_options::positional_options_description& positional,
    const std::vector<std::string>& required, const std::string& usage_error,
    boost::program_options::variables_map* vm);

// "NAME=VALUE" split at the first '='.
Status SplitAssignment(const std::string& text, const std::string& flag, std::string* name,
                       std::string* value);

// An --input VALUE: inline (JSON-style nested lists, numbers, "strings", true/false) when it
// starts with '[', a digit, '-', '.', '"', "true" or "false"; else a .npy path. The tensor gets
// `dtype` (from the placeholder or signature); values that do not fit are errors naming `name`.
StatusOr<Tensor> ParseInputValue(const std::string& name, const std::string& value, DataType dtype);

// numpy-style names for output: "float32", "float64", "float16", "int32", "bool", "string".
std::string CliDtypeName(DataType dtype);

// "y: float32[3] [2.5, 3, 4.5]"; at most `summarize` values when summarize >= 0.
std::string FormatTensorLine(const std::string& name, const Tensor& t, int64_t summarize);
// {"name": ..., "dtype": ..., "shape": [...], "values": [...]}
std::string TensorJson(const std::string& name, const Tensor& t, int64_t summarize);
std::string JsonString(const std::string& s);

// The file name for an output in --out-dir: ':' and '/' become '_'.
std::string OutputFileName(const std::string& name);

}  // namespace cli
}  // namespace graphrt

#endif  // GRAPHRT_CLI_CLI_UTIL_H_
