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
  StatusOr<Tensor> input =
      ReadNpy(dir + model.name + "_batch" + std::to_string(batch) + ".in0.npy");
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

// tf.nn.dynamic_rnn (LSTM, 32 units) over 100 steps at batch 8: a v1 while loop with
// TensorArrays (tests/fixtures/control_flow/dynamic_rnn_lstm_100_steps).
void BM_DynamicRnn100Steps(benchmark::State& state) {
  std::string dir = std::string(GRAPHRT_SOURCE_DIR) + "/tests/fixtures/control_flow/";
  GraphDef graph;
  Status s = ReadGraphDef(dir + "dynamic_rnn_lstm_100_steps.pb", &graph);
  StatusOr<Tensor> input = ReadNpy(dir + "dynamic_rnn_lstm_100_steps.in0.npy");
  if (!s.ok() || !input.ok()) {
    state.SkipWithError("fixture missing");
    return;
  }
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 1;
  options.config.inter_op_parallelism_threads = 1;
  std::unique_ptr<Session> session(NewSession(options));
  if (!session->Create(graph).ok()) {
    state.SkipWithError("Create failed");
    return;
  }
  std::vector<Tensor> outputs;
  for (auto _ : state) {
    if (!session->Run({{"x:0", *input}}, {"state:0"}, {}, &outputs).ok()) {
      state.SkipWithError("Run failed");
      break;
    }
  }
  state.SetLabel("dynamic_rnn_100");
}
BENCHMARK(BM_DynamicRnn100Steps)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The executor's cost per while-loop iteration: a loop whose body is one add, run 10000 times
// (tests/fixtures/control_flow/while_count_n7 fed n = 10000); time / 10000 is the overhead.
void BM_WhileLoopIteration(benchmark::State& state) {
  std::string dir = std::string(GRAPHRT_SOURCE_DIR) + "/tests/fixtures/control_flow/";
  GraphDef graph;
  if (!ReadGraphDef(dir + "while_count_n7.pb", &graph).ok()) {
    state.SkipWithError("fixture missing");
    return;
  }
  SessionOptions options;
  options.config.inter_op_parallelism_threads = 1;
  std::unique_ptr<Session> session(NewSession(options));
  if (!session->Create(graph).ok()) {
    state.SkipWithError("Create failed");
    return;
  }
  constexpr int kIterations = 10000;
  std::vector<Tensor> outputs;
  for (auto _ : state) {
    if (!session->Run({{"n:0", Tensor::Scalar<int32_t>(kIterations)}}, {"acc_out:0"}, {}, &outputs)
             .ok()) {
      state.SkipWithError("Run failed");
      break;
    }
  }
  state.counters["us_per_iteration"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kIterations,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel("while_10000");
}
BENCHMARK(BM_WhileLoopIteration)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
