// Forcing the CPU: a GPU count of 0 (ConfigProto.device_count {"GPU": 0}) keeps every node off
// the GPUs, as in TensorFlow; soft placement moves GPU-pinned nodes to the CPU.
//
//   force_cpu GRAPH.pb INPUT_TENSOR OUTPUT_TENSOR   (defaults: the fixture MLP)
#include <cstdio>
#include <memory>
#include <vector>

#include <graphrt/graphrt.h>

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "tests/fixtures/models/mlp.pb";
  const char* input = argc > 2 ? argv[2] : "x:0";
  const char* output = argc > 3 ? argv[3] : "probs:0";

  graphrt::GraphDef graph_def;
  graphrt::Status s = graphrt::ReadGraphDef(path, &graph_def);
  if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
  // Pretend the graph came from a GPU box: every node asks for GPU:0.
  for (auto& node : *graph_def.mutable_node()) node.set_device("/device:GPU:0");

  graphrt::SessionOptions options;
  options.config.device_count["GPU"] = 0;
  options.config.allow_soft_placement = true;
  std::unique_ptr<graphrt::Session> session(graphrt::NewSession(options));
  s = session->Create(graph_def);
  if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;

  std::vector<graphrt::DeviceAttributes> devices;
  if (session->ListDevices(&devices).ok()) {
    for (const auto& d : devices) std::printf("device: %s\n", d.name.c_str());
  }
  graphrt::Tensor x(graphrt::DataType::DT_FLOAT, graphrt::TensorShape({1, 784}));
  for (int i = 0; i < 784; ++i) x.data<float>()[i] = 0.5f;
  std::vector<graphrt::Tensor> outputs;
  s = session->Run({{input, x}}, {output}, {}, &outputs);
  if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
  std::printf("%s = %s\n", output, outputs[0].DebugString(4).c_str());
  const graphrt::PlacementReport report = session->GetPlacementReport();
  std::printf("first node: %s -> %s (%s)\n", report.decisions()[0].node.c_str(),
              report.decisions()[0].assigned.c_str(), report.decisions()[0].reason.c_str());
  return 0;
}
