// Placement log text -> ParsePlacementLog; a log that parses is diffed against itself and a
// real TensorFlow log, and replayed onto a fixture graph (tests/fixtures/models/mlp.pb) with and
// without soft placement, as `graphrt placement diff/replay` do.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "formats/graph_def.h"
#include "formats/placement_log.h"
#include "runtime/session/session_devices.h"
#include "runtime/placement/replay.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

struct Fixtures {
  ::tensorflow::GraphDef graph;
  graphrt::PlacementLog tf_log;
  std::vector<std::unique_ptr<graphrt::Device>> owned;
  std::vector<graphrt::Device*> devices;
};

const Fixtures& GetFixtures() {
  static const Fixtures* fixtures = [] {
    auto* f = new Fixtures;
    const std::string dir = graphrt::fuzzing::SourceDir() + "/tests/fixtures/";
    graphrt::StatusOr<graphrt::PlacementLog> log =
        graphrt::ReadPlacementLog(dir + "placement/mlp.tf.log");
    if (!log.ok() || !graphrt::ReadGraphDef(dir + "models/mlp.pb", &f->graph).ok()) {
      std::abort();  // the fixtures are part of the source tree
    }
    f->tf_log = std::move(log.value());
    f->owned = graphrt::CreateDevices(graphrt::fuzzing::FuzzSessionOptions().config);
    for (auto& d : f->owned) f->devices.push_back(d.get());
    return f;
  }();
  return *fixtures;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Fixtures& fixtures = GetFixtures();
  const std::string text(reinterpret_cast<const char*>(data), size);
  graphrt::StatusOr<graphrt::PlacementLog> log = graphrt::ParsePlacementLog(text, "fuzz.log");
  if (!log.ok()) return 0;
  graphrt::DiffPlacementLogs(log.value(), log.value());
  graphrt::DiffPlacementLogs(log.value(), fixtures.tf_log);
  for (const auto& entry : log.value().entries) graphrt::NormalizeDeviceName(entry.device);
  for (bool soft : {false, true}) {
    graphrt::PlacerOptions options;
    options.allow_soft_placement = soft;
    graphrt::ReplayPlacement(log.value(), fixtures.graph, fixtures.devices, options)
        .status()
        .IgnoreError();
  }
  return 0;
}
