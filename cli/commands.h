// The subcommands; each takes the arguments after its name and returns the exit status.
#ifndef GRAPHRT_CLI_COMMANDS_H_
#define GRAPHRT_CLI_COMMANDS_H_

#include <string>

namespace graphrt {
namespace cli {

int RunCommand(int argc, char** argv);
int InspectCommand(int argc, char** argv);
int PlacementCommand(int argc, char** argv);
int MigrateCommand(int argc, char** argv);
int MigrateGraphCommand(int argc, char** argv);
int FreezeCommand(int argc, char** argv);
int ConvertCommand(int argc, char** argv);
int LoadWeightsCommand(int argc, char** argv);
int OpsCommand(int argc, char** argv);
int QuantizeCommand(int argc, char** argv);
// `graphrt inspect` on a Keras .h5 (config: --keras-config for a weights-only file).
int InspectKeras(const std::string& path, const std::string& config, bool json);

}  // namespace cli
}  // namespace graphrt

#endif  // GRAPHRT_CLI_COMMANDS_H_
