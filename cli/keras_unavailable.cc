// The Keras subcommands of a graphrt built without HDF5 (GRAPHRT_WITH_HDF5=OFF): each one says
// so, and exits 2 as any other error does (CLI.md).
#include "cli/cli_util.h"
#include "cli/commands.h"

namespace graphrt {
namespace cli {

int ConvertCommand(int argc, char** argv) {
  return ReportError(KerasUnavailable(argc > 1 ? argv[1] : "convert"));
}

int LoadWeightsCommand(int argc, char** argv) {
  return ReportError(KerasUnavailable(argc > 2 ? argv[2] : "load-weights"));
}

int InspectKeras(const std::string& path, const std::string& config, bool json) {
  return ReportError(KerasUnavailable(path));
}

}  // namespace cli
}  // namespace graphrt
