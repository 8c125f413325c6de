// Runs a Keras .h5 model straight from the file: no Python, no conversion step.
//
//   run_keras_model MODEL.h5
//
// Feeds every input with ones (a batch of 1; unknown time lengths become 4 steps) and prints
// every output. The bundled model (tests/fixtures/keras/small_cnn.h5) is a small CNN.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <graphrt/graphrt.h>

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "tests/fixtures/keras/small_cnn.h5";

  graphrt::KerasModelOptions options;
  options.session.config.intra_op_parallelism_threads = 2;
  graphrt::StatusOr<graphrt::KerasModel> model = graphrt::LoadKerasModel(path, options);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }

  // Inputs and outputs are named after the model's input and output layers.
  std::vector<std::pair<std::string, graphrt::Tensor>> feeds;
  for (const graphrt::keras::KerasTensorInfo& input : model->graph.inputs) {
    std::vector<int64_t> dims;
    for (size_t i = 0; i < input.shape.size(); ++i) {
      dims.push_back(input.shape[i] >= 0 ? input.shape[i] : (i == 0 ? 1 : 4));
    }
    graphrt::Tensor x(input.dtype, graphrt::TensorShape(dims));
    if (input.dtype != ::tensorflow::DT_FLOAT) {
      std::fprintf(stderr, "input %s is not float32; this sample feeds floats only\n",
                   input.name.c_str());
      return 1;
    }
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = 1.0f;
    feeds.emplace_back(input.tensor, x);
  }
  std::vector<std::string> fetches;
  for (const graphrt::keras::KerasTensorInfo& output : model->graph.outputs) {
    fetches.push_back(output.tensor);
  }
  std::vector<graphrt::Tensor> outputs;
  graphrt::Status s = model->session->Run(feeds, fetches, {}, &outputs);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::printf("%s: %s\n", model->graph.outputs[i].name.c_str(), outputs[i].DebugString().c_str());
  }
  return 0;
}
