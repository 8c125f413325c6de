// End-to-end latency of the fixture MLP and CNN (tests/fixtures/models) through a Session, at
// batch 1 and 32, with 1 and 2 threads. bench/compare_tf.py runs this beside TensorFlow and
// prints the ratios; run it alone with --benchmark_repetitions=N for medians.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "formats/graph_def.h"
#include "formats/npy.h"
#include "runtime/session/session.h"

namespace graphrt {
namespace {

struct Model {
  const char* name;
  const char* input;
};
constexpr Model kModels[] = {{"mlp", "x:0"}, {"cnn", "images:0"}};

void BM_Model(benchmark::State& state) {
  const Model& model = kModels[state.range(0)];
  int batch = static_cast<int>(state.range(1));
  int threads = static_cast<int>(state.range(2));
  std::string dir = std::string(GRAPHRT_SOURCE_DIR) + "/tests/fixtures/models/";
  GraphDef graph;
  Status s = ReadGraphDef(dir + model.name + ".pb", &graph);
  StatusOr<Tensor> input = ReadNpy(dir + model.name + "_batch" + std::to_string(batch) + ".in0.npy");
  if (!s.ok() || !input.ok()) {
    state.SkipWithError("fixture missing");
    return;
  }
  SessionOptions options;
  options.config.intra_op_parallelism_threads = threads;
  options.config.inter_op_parallelism_threads = 1;
  std::unique_ptr<Session> session(NewSession(options));
  if (!session->Create(graph).ok()) {
    state.SkipWithError("Create failed");
    return;
  }
  CallableOptions callable;
  callable.add_feed(model.input);
  callable.add_fetch("probs:0");
  Session::CallableHandle handle;
  if (!session->MakeCallable(callable, &handle).ok()) {
    state.SkipWithError("MakeCallable failed");
    return;
  }
  std::vector<Tensor> outputs;
  for (auto _ : state) {
    Status run = session->RunCallable(handle, {*input}, &outputs, nullptr);
    if (!run.ok()) {
      state.SkipWithError(run.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(outputs);
  }
  state.SetLabel(std::string(model.name) + "/batch:" + std::to_string(batch) +
                 "/threads:" + std::to_string(threads));
}

BENCHMARK(BM_Model)
    ->ArgNames({"model", "batch", "threads"})
    ->ArgsProduct({{0, 1}, {1, 32}, {1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
