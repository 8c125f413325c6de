// Restores a frozen TensorFlow GraphDef and runs it through a graphrt Session -- the same calls
// a libtensorflow_cc program makes, in namespace graphrt.
//
//   run_frozen_graph GRAPH.pb
//
// The bundled graph (tests/fixtures/models/mlp.pb) is a small MLP: "x" float32[?,784] -> "probs".
#include <cstdio>
#include <memory>
#include <vector>

#include <graphrt/graphrt.h>

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "tests/fixtures/models/mlp.pb";

  graphrt::GraphDef graph_def;
  graphrt::Status s = graphrt::ReadGraphDef(path, &graph_def);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }

  graphrt::SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  std::unique_ptr<graphrt::Session> session(graphrt::NewSession(options));
  s = session->Create(graph_def);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }

  // One image of 784 pixels, a gentle ramp.
  graphrt::Tensor x(graphrt::DataType::DT_FLOAT, graphrt::TensorShape({1, 784}));
  for (int i = 0; i < 784; ++i) x.data<float>()[i] = static_cast<float>(i % 28) / 28.0f;

  std::vector<graphrt::Tensor> outputs;
  s = session->Run({{"x:0", x}}, {"probs:0"}, {}, &outputs);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const graphrt::Tensor& probs = outputs[0];
  int best = 0;
  for (int i = 1; i < probs.dim_size(1); ++i) {
    if (probs.data<float>()[i] > probs.data<float>()[best]) best = i;
  }
  std::printf("%s: probs %s\n", path, probs.DebugString(10).c_str());
  std::printf("most likely class: %d (p = %.4f)\n", best, probs.data<float>()[best]);
  return session->Close().ok() ? 0 : 1;
}
