// The Keras subcommands of a graphrt built without HDF5 (GRAPHRT_WITH_HDF5=OFF): each one says
// so and exits 2, as any other error does (CLI.md); --help says so and exits 0.
#include <cstring>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/commands.h"

namespace graphrt {
namespace cli {

namespace {

int Unavailable(int argc, char** argv, const char* what) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << "usage: graphrt " << argv[0] << " ...\n\n"
                << "Not available: this graphrt was built without Keras HDF5 support "
                   "(GRAPHRT_WITH_HDF5=OFF).\n";
      return kExitOk;
    }
  }
  return ReportError(KerasUnavailable(what));
}

}  // namespace

int ConvertCommand(int argc, char** argv) {
  return Unavailable(argc, argv, argc > 1 ? argv[1] : "convert");
}

int LoadWeightsCommand(int argc, char** argv) {
  return Unavailable(argc, argv, argc > 2 ? argv[2] : "load-weights");
}

int InspectKeras(const std::string& path, const std::string& config, bool json) {
  return ReportError(KerasUnavailable(path));
}

}  // namespace cli
}  // namespace graphrt
