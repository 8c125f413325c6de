// Placement against TensorFlow's own logs (tests/fixtures/placement, captured by
// gen_placement.py): graphrt's log lines, replays, diffs, and bad logs.
#include <gtest/gtest.h>

#include <set>

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "formats/placement_log.h"
#include "runtime/session/session_devices.h"
#include "runtime/placement/replay.h"
#include "runtime/session/session.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

std::string Fixture(const std::string& rel) {
  return testing::SourceDir() + "/tests/fixtures/" + rel;
}

const std::vector<std::pair<std::string, std::string>> kModels = {
    {"mlp", "models/mlp.pb"},
    {"cnn", "models/cnn.pb"},
    {"while_count", "control_flow/while_count_n7.pb"},
};

std::set<std::string> Lines(const PlacementLog& log) {
  std::set<std::string> out;
  for (const auto& e : log.entries) out.insert(StrCat(e.node, ": (", e.op, "): ", e.device));
  return out;
}

TEST(PlacementTest, LogLinesMatchTensorFlow) {
  for (const auto& [name, graph_path] : kModels) {
    StatusOr<PlacementLog> tf_log = ReadPlacementLog(Fixture("placement/" + name + ".tf.log"));
    ASSERT_TRUE(tf_log.ok()) << tf_log.status();
    GraphDef graph;
    ASSERT_TRUE(ReadGraphDef(Fixture(graph_path), &graph).ok());
    std::unique_ptr<Session> session(NewSession(SessionOptions()));
    ASSERT_TRUE(session->Create(graph).ok());
    StatusOr<PlacementLog> ours = ParsePlacementLog(session->GetPlacementReport().LogLines(), name);
    ASSERT_TRUE(ours.ok()) << ours.status();
    EXPECT_EQ(Lines(*ours), Lines(*tf_log)) << name;
  }
}

std::vector<Device*> Raw(const std::vector<std::unique_ptr<Device>>& owned) {
  std::vector<Device*> out;
  for (const auto& d : owned) out.push_back(d.get());
  return out;
}

TEST(PlacementTest, ReplayOfTensorFlowLogIsFaithful) {
  auto devices = CreateDevices(SessionConfig());
  for (const auto& [name, graph_path] : kModels) {
    StatusOr<PlacementLog> log = ReadPlacementLog(Fixture("placement/" + name + ".tf.log"));
    ASSERT_TRUE(log.ok());
    GraphDef graph;
    ASSERT_TRUE(ReadGraphDef(Fixture(graph_path), &graph).ok());
    StatusOr<ReplayResult> r = ReplayPlacement(*log, graph, Raw(devices), PlacerOptions());
    ASSERT_TRUE(r.ok()) << name << ": " << r.status();
    EXPECT_TRUE(r->faithful) << name;
    for (const ReplayLine& l : r->lines) EXPECT_EQ(l.kind, ReplayLine::kSame) << l.node;
  }
}

TEST(PlacementTest, ReplayOfGpuLogOnCpuMovesEveryNodeWithSoftPlacement) {
  auto devices = CreateDevices(SessionConfig());
  StatusOr<PlacementLog> log = ReadPlacementLog(Fixture("placement/mlp.gpu.log"));
  ASSERT_TRUE(log.ok());
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDef(Fixture("models/mlp.pb"), &graph).ok());
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  StatusOr<ReplayResult> r = ReplayPlacement(*log, graph, Raw(devices), soft);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->faithful);
  ASSERT_EQ(r->lines.size(), static_cast<size_t>(graph.node_size()));
  for (const ReplayLine& l : r->lines) {
    EXPECT_EQ(l.kind, ReplayLine::kMoved) << l.node;
    EXPECT_EQ(l.assigned, "/job:localhost/replica:0/task:0/device:CPU:0");
    EXPECT_NE(l.reason.find("soft placement"), std::string::npos) << l.reason;
  }
  // Without soft placement the first GPU-pinned node cannot be placed.
  StatusOr<ReplayResult> hard = ReplayPlacement(*log, graph, Raw(devices), PlacerOptions());
  ASSERT_FALSE(hard.ok());
  EXPECT_NE(hard.status().message().find("Cannot assign a device for operation"),
            std::string::npos);
  EXPECT_NE(hard.status().message().find(
                "was explicitly assigned to /job:localhost/replica:0/task:0/device:GPU:0"),
            std::string::npos)
      << hard.status();
}

TEST(PlacementTest, GpuPinnedGraphFailsWithoutSoftPlacement) {
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDef(Fixture("models/mlp.pb"), &graph).ok());
  for (auto& node : *graph.mutable_node()) node.set_device("/device:GPU:0");
  std::unique_ptr<Session> session(NewSession(SessionOptions()));
  Status s = session->Create(graph);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Cannot assign a device for operation"), std::string::npos) << s;
  SessionOptions soft;
  soft.config.allow_soft_placement = true;
  session.reset(NewSession(soft));
  ASSERT_TRUE(session->Create(graph).ok());
  PlacementReport report = session->GetPlacementReport();
  ASSERT_EQ(report.decisions().size(), static_cast<size_t>(graph.node_size()));
  for (const PlacementDecision& d : report.decisions()) {
    EXPECT_EQ(d.assigned, "/job:localhost/replica:0/task:0/device:CPU:0");
    EXPECT_EQ(d.requested, "/device:GPU:0");
    EXPECT_NE(d.reason.find("soft placement"), std::string::npos) << d.node << ": " << d.reason;
  }
}

TEST(PlacementTest, ColocationFollowsClassAttr) {
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDef(Fixture("models/mlp.pb"), &graph).ok());
  SessionConfig config;
  config.device_count["CPU"] = 2;
  for (auto& node : *graph.mutable_node()) {
    if (node.name() == "dense1/MatMul") node.set_device("/device:CPU:1");
    if (node.name() == "Relu")
      (*node.mutable_attr())["_class"].mutable_list()->add_s("loc:@dense1/MatMul");
  }
  SessionOptions options;
  options.config = config;
  std::unique_ptr<Session> session(NewSession(options));
  ASSERT_TRUE(session->Create(graph).ok());
  PlacementReport report = session->GetPlacementReport();
  EXPECT_EQ(report.Find("dense1/MatMul")->assigned, "/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_EQ(report.Find("Relu")->assigned, "/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_EQ(report.Find("dense1/MatMul")->reason, "explicit");
  EXPECT_NE(report.Find("Relu")->reason.find("colocated with dense1/MatMul"), std::string::npos);
  EXPECT_EQ(report.Find("dense2/MatMul")->assigned, "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST(PlacementTest, DiffOfLogs) {
  StatusOr<PlacementLog> cpu = ReadPlacementLog(Fixture("placement/mlp.tf.log"));
  StatusOr<PlacementLog> gpu = ReadPlacementLog(Fixture("placement/mlp.gpu.log"));
  ASSERT_TRUE(cpu.ok() && gpu.ok());
  EXPECT_TRUE(DiffPlacementLogs(*cpu, *cpu).empty());
  std::vector<DiffLine> diff = DiffPlacementLogs(*cpu, *gpu);
  EXPECT_EQ(diff.size(), 22u);
  for (const DiffLine& d : diff) EXPECT_EQ(d.kind, DiffLine::kDiffers);
  StatusOr<PlacementLog> eager = ReadPlacementLog(Fixture("placement/eager.tf.log"));
  ASSERT_TRUE(eager.ok()) << eager.status();
  EXPECT_GE(eager->eager.size(), 3u);
}

TEST(PlacementTest, BadLogsAreErrors) {
  GraphDef mlp, cnn;
  ASSERT_TRUE(ReadGraphDef(Fixture("models/mlp.pb"), &mlp).ok());
  ASSERT_TRUE(ReadGraphDef(Fixture("models/cnn.pb"), &cnn).ok());
  auto devices = CreateDevices(SessionConfig());
  EXPECT_EQ(ParsePlacementLog("", "empty.log").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParsePlacementLog(std::string("\x00\x01\x02garbage", 10), "bin.log").status().code(),
            Code::kInvalidArgument);
  StatusOr<PlacementLog> mlp_log = ReadPlacementLog(Fixture("placement/mlp.tf.log"));
  ASSERT_TRUE(mlp_log.ok());
  StatusOr<ReplayResult> other = ReplayPlacement(*mlp_log, cnn, Raw(devices), PlacerOptions());
  EXPECT_EQ(other.status().code(), Code::kInvalidArgument);
  EXPECT_NE(other.status().message().find("another graph"), std::string::npos);
  StatusOr<PlacementLog> malformed =
      ParsePlacementLog("dense1/MatMul: (MatMul): /job:localhost/device:GPU:x\n", "m.log");
  ASSERT_TRUE(malformed.ok());
  StatusOr<ReplayResult> r = ReplayPlacement(*malformed, mlp, Raw(devices), PlacerOptions());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("malformed device"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace graphrt
