// What the command runs or inspects: a path classified as CLI.md's table says, loaded into a
// Session with its named inputs and outputs.
#ifndef GRAPHRT_CLI_MODEL_H_
#define GRAPHRT_CLI_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor_shape.h"
#include "runtime/graph/graph.h"
#include "runtime/session/session.h"

namespace graphrt {
namespace cli {

enum class ModelKind { kGraphDef, kSavedModel, kKeras, kMetaGraph, kCheckpoint };

// Which kind of artefact `path` is (CLI.md, "Models: how a path is read").
StatusOr<ModelKind> ClassifyModelPath(const std::string& path);

struct ModelInput {
  std::string key;     // what --input NAME matches
  std::string tensor;  // graph tensor name, "x:0"
  DataType dtype;
  PartialTensorShape shape;
};

struct LoadedModel {
  std::unique_ptr<Session> session;
  GraphDef graph;
  std::vector<ModelInput> inputs;
  std::vector<std::string> default_outputs;  // empty: --output is required
  std::shared_ptr<Graph> ir;  // for the dtype of any tensor a GraphDef's user feeds
};

StatusOr<LoadedModel> LoadModel(const std::string& path, const SessionOptions& options);

// "x" or "x:0" -> the model input it names; for a GraphDef, any tensor of the graph.
StatusOr<ModelInput> FindInput(const LoadedModel& model, const std::string& name);

}  // namespace cli
}  // namespace graphrt

#endif  // GRAPHRT_CLI_MODEL_H_
