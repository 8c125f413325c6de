// Keras model_config JSON -> BuildKerasGraph with the weights of a fixed, valid fixture .h5 ->
// Session::Create on the graph it builds.
//
// Input: selector byte | model_config JSON. The selector picks the fixture (kFixtures) and bit 7
// builds weights as variables. The .h5 files themselves are not fuzzed here: libhdf5 1.10.8 has
// memory bugs on crafted files that graphrt cannot fix (README.md).
//
// GRAPHRT_FUZZ_WRITE_SEEDS=DIR writes one seed per fixture (its own model_config) to DIR.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "formats/file_util.h"
#include "formats/keras/keras_graph_builder.h"
#include "formats/keras/keras_h5_file.h"
#include "runtime/session/session.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// Full-model fixtures (tests/fixtures/keras) that between them hold most layer families.
constexpr const char* kFixtures[] = {
    "dense",
    "small_cnn",
    "lstm",
    "gru_reset_after",
    "bidirectional",
    "embedding",
    "multi_input_functional",
    "nested_models",
    "resnet_block",
    "merge_layers",
    "time_distributed",
    "batchnorm",
    "conv2d_transpose",
    "separable_conv2d",
    "lstm_stateful",
    "padding_cropping",
};
constexpr int kNumFixtures = sizeof(kFixtures) / sizeof(kFixtures[0]);

const std::vector<graphrt::keras::KerasH5File>& Files() {
  static auto* files = [] {
    auto* f = new std::vector<graphrt::keras::KerasH5File>;
    for (const char* name : kFixtures) {
      auto file = graphrt::keras::ReadKerasH5File(graphrt::fuzzing::SourceDir() +
                                                  "/tests/fixtures/keras/" + name + ".h5");
      if (!file.ok()) std::abort();  // the fixtures are part of the source tree
      f->push_back(std::move(file.value()));
    }
    return f;
  }();
  return *files;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const auto& files = Files();
  if (const char* dir = std::getenv("GRAPHRT_FUZZ_WRITE_SEEDS")) {
    for (int i = 0; i < kNumFixtures; ++i) {
      const std::string seed = std::string(1, static_cast<char>(i)) + files[i].model_config;
      if (!graphrt::WriteStringToFile(std::string(dir) + "/" + kFixtures[i] + ".seed", seed).ok()) {
        std::abort();
      }
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphrt;  // NOLINT: a fuzz target's body, not a header
  if (size < 1) return 0;
  const keras::KerasH5File& file = Files()[(data[0] & 127) % kNumFixtures];
  keras::KerasGraphOptions options;
  options.weights_as_variables = (data[0] & 128) != 0;
  const std::string config(reinterpret_cast<const char*>(data) + 1, size - 1);
  StatusOr<keras::KerasGraph> graph = keras::BuildKerasGraph(config, file, options);
  if (!graph.ok()) return 0;
  std::unique_ptr<Session> session;
  if (!NewSession(fuzzing::FuzzSessionOptions(), &session).ok()) return 0;
  session->Create(graph.value().graph).IgnoreError();
  session->Close().IgnoreError();
  return 0;
}
