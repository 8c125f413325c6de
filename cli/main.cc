// graphrt: run and inspect TensorFlow models without TensorFlow. The contract (flags, formats,
// exit codes) is ../shared/CLI.md.
#include <cstring>
#include <iostream>
#include <string>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "runtime/core/exception_barrier.h"

namespace {

constexpr char kUsage[] =
    "usage: graphrt <command> [args]\n"
    "\n"
    "commands:\n"
    "  run MODEL      run a model (GraphDef, SavedModel, .meta with --checkpoint, Keras .h5)\n"
    "                 with --input NAME=VALUE and --output NAME\n"
    "  inspect PATH   describe a model or checkpoint (ops, inputs, signatures, tensors)\n"
    "  convert MODEL.h5 OUT_DIR\n"
    "                 write a Keras .h5 model as a SavedModel\n"
    "  load-weights MODEL WEIGHTS.h5 -o OUT\n"
    "                 put Keras weights into a SavedModel's or .meta graph's variables\n"
    "  placement replay LOG MODEL | placement diff A B\n"
    "                 replay a placement log on a graph, or compare two logs\n"
    "  migrate SRC DST  migrate a checkpoint (rename, drop slots, cast, reshard)\n"
    "  migrate-graph IN OUT  strip TPU ops and training from a graph, rename nodes\n"
    "  freeze MODEL --checkpoint PREFIX --output NAME -o OUT.pb\n"
    "  quantize MODEL OUT --mode MODE\n"
    "                 write a float16 or int8 model (MODE: fp16-weights, int8-dynamic or\n"
    "                 int8-static) and report its accuracy, size and speed\n"
    "  ops [--device TYPE] [--json]\n"
    "                 every op with a kernel, per device, with its dtypes\n"
    "\n"
    "graphrt <command> --help describes a command.\n";

int Dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return graphrt::cli::kExitError;
  }
  std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return graphrt::cli::kExitOk;
  }
  // Each subcommand sees its own name as argv[0].
  if (command == "run") return graphrt::cli::RunCommand(argc - 1, argv + 1);
  if (command == "inspect") return graphrt::cli::InspectCommand(argc - 1, argv + 1);
  if (command == "placement") return graphrt::cli::PlacementCommand(argc - 1, argv + 1);
  if (command == "migrate") return graphrt::cli::MigrateCommand(argc - 1, argv + 1);
  if (command == "migrate-graph") return graphrt::cli::MigrateGraphCommand(argc - 1, argv + 1);
  if (command == "freeze") return graphrt::cli::FreezeCommand(argc - 1, argv + 1);
  if (command == "convert") return graphrt::cli::ConvertCommand(argc - 1, argv + 1);
  if (command == "load-weights") return graphrt::cli::LoadWeightsCommand(argc - 1, argv + 1);
  if (command == "quantize") return graphrt::cli::QuantizeCommand(argc - 1, argv + 1);
  if (command == "ops") return graphrt::cli::OpsCommand(argc - 1, argv + 1);
  return graphrt::cli::ReportError("unknown command '" + command + "' (see graphrt --help)");
}

}  // namespace

// An exception that a command lets through still ends as one error line and exit 2 (CLI.md),
// not as an abort.
int main(int argc, char** argv) {
  int exit_code = graphrt::cli::kExitError;
  graphrt::Status status = graphrt::StatusFromExceptions("graphrt", [&] {
    exit_code = Dispatch(argc, argv);
    return graphrt::Status::OK();
  });
  if (!status.ok()) return graphrt::cli::ReportError(status);
  return exit_code;
}
