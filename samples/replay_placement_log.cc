// Replaying a placement log (TensorFlow's or graphrt's) on a graph: each logged node is pinned
// to its logged device, the graph is placed with this machine's devices, and every node that
// could not stay where the log put it is listed with the reason.
//
//   replay_placement_log LOG GRAPH.pb   (defaults: a GPU log of the fixture MLP)
#include <cstdio>

#include <graphrt/graphrt.h>

int main(int argc, char** argv) {
  const char* log_path = argc > 1 ? argv[1] : "tests/fixtures/placement/mlp.gpu.log";
  const char* graph_path = argc > 2 ? argv[2] : "tests/fixtures/models/mlp.pb";
  graphrt::StatusOr<graphrt::PlacementLog> log = graphrt::ReadPlacementLog(log_path);
  if (!log.ok()) return std::fprintf(stderr, "%s\n", log.status().ToString().c_str()), 1;
  graphrt::GraphDef graph;
  graphrt::Status s = graphrt::ReadGraphDef(graph_path, &graph);
  if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;

  graphrt::SessionConfig config;  // this machine's devices
  config.allow_soft_placement = true;
  graphrt::StatusOr<graphrt::ReplayResult> result =
      graphrt::ReplayPlacementLog(*log, graph, config);
  if (!result.ok()) return std::fprintf(stderr, "%s\n", result.status().ToString().c_str()), 1;
  for (const auto& line : result->lines) {
    if (line.kind == graphrt::ReplayLine::kMoved) {
      std::printf("%s: moved %s -> %s (%s)\n", line.node.c_str(), line.logged.c_str(),
                  line.assigned.c_str(), line.reason.c_str());
    }
  }
  std::printf("%s\n", result->faithful ? "faithful" : "not faithful");
  return 0;
}
