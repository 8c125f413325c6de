// The public API as a user sees it: this file includes <graphrt/graphrt.h> and nothing else of
// graphrt, so it fails to build when a public header needs an internal one or when a type a
// user needs is not public. (The library's exports are checked by the samples, which link the
// library built with hidden visibility.) PublicHeadersTest checks every header's #include lines
// against what an installed header may include.
#include <graphrt/graphrt.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

::tensorflow::NodeDef* AddNode(::tensorflow::GraphDef* graph, const std::string& name,
                               const std::string& op, const std::vector<std::string>& inputs) {
  ::tensorflow::NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  for (const std::string& input : inputs) node->add_input(input);
  (*node->mutable_attr())[op == "Placeholder" || op == "Const" ? "dtype" : "T"].set_type(
      ::tensorflow::DT_FLOAT);
  return node;
}

// y = x * 2 + 1, x float[?].
::tensorflow::GraphDef AffineGraph() {
  ::tensorflow::GraphDef graph;
  AddNode(&graph, "x", "Placeholder", {});
  graphrt::Tensor::Scalar<float>(2.0f).AsProtoTensorContent(
      (*AddNode(&graph, "two", "Const", {})->mutable_attr())["value"].mutable_tensor());
  graphrt::Tensor::Scalar<float>(1.0f).AsProtoTensorContent(
      (*AddNode(&graph, "one", "Const", {})->mutable_attr())["value"].mutable_tensor());
  AddNode(&graph, "scaled", "Mul", {"x", "two"});
  AddNode(&graph, "y", "AddV2", {"scaled", "one"});
  return graph;
}

std::string ScratchPath(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / "public_api_test";
  fs::create_directories(dir);
  return (dir / name).string();
}

TEST(PublicApiTest, NewSessionRunsAGraphBuiltByHand) {
  graphrt::SessionOptions options;
  options.config.intra_op_parallelism_threads = 1;
  std::unique_ptr<graphrt::Session> session(graphrt::NewSession(options));
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Create(AffineGraph()).ok());

  std::vector<graphrt::Tensor> outputs;
  graphrt::Status s = session->Run({{"x:0", graphrt::Tensor::Vector<float>({0.0f, 1.5f, -3.0f})}},
                                   {"y:0"}, {}, &outputs);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].dtype(), ::tensorflow::DT_FLOAT);
  ASSERT_EQ(outputs[0].shape(), graphrt::TensorShape({3}));
  EXPECT_EQ(outputs[0].data<float>()[0], 1.0f);
  EXPECT_EQ(outputs[0].data<float>()[1], 4.0f);
  EXPECT_EQ(outputs[0].data<float>()[2], -5.0f);

  std::vector<graphrt::DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0].device_type, "CPU");
  const graphrt::PlacementReport report = session->GetPlacementReport();
  const graphrt::PlacementDecision* y = report.Find("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->op, "AddV2");
  EXPECT_EQ(y->assigned, "/job:localhost/replica:0/task:0/device:CPU:0");

  // An unknown feed is a Status naming it, not a crash.
  s = session->Run({{"nope:0", graphrt::Tensor::Scalar<float>(1.0f)}}, {"y:0"}, {}, &outputs);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("nope"), std::string::npos) << s;
  EXPECT_TRUE(session->Close().ok());
}

TEST(PublicApiTest, VersionIsTheCMakeProjectVersion) {
  EXPECT_STREQ(graphrt::Version(), GRAPHRT_CMAKE_VERSION);
  EXPECT_STREQ(graphrt::Version(), GRAPHRT_VERSION_STRING);
  EXPECT_EQ(std::to_string(GRAPHRT_VERSION_MAJOR) + "." + std::to_string(GRAPHRT_VERSION_MINOR) +
                "." + std::to_string(GRAPHRT_VERSION_PATCH),
            GRAPHRT_CMAKE_VERSION);
}

TEST(PublicApiTest, StatusHelpersAndMacros) {
  auto half = [](int v) -> graphrt::StatusOr<int> {
    if (v % 2 != 0) return graphrt::InvalidArgument("odd value ", v);
    return v / 2;
  };
  auto quarter = [&](int v) -> graphrt::StatusOr<int> {
    GRT_ASSIGN_OR_RETURN(int h, half(v));
    return half(h);
  };
  ASSERT_TRUE(quarter(8).ok());
  EXPECT_EQ(*quarter(8), 2);
  graphrt::StatusOr<int> bad = quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), graphrt::Code::kInvalidArgument);
  EXPECT_EQ(bad.status().ToString(), "INVALID_ARGUMENT: odd value 3");
}

TEST(PublicApiTest, CheckpointWriterAndReaderRoundTrip) {
  const std::string prefix = ScratchPath("round_trip/model.ckpt");
  fs::remove_all(fs::path(prefix).parent_path());
  {
    graphrt::CheckpointWriter writer(prefix);
    graphrt::Tensor kernel(::tensorflow::DT_FLOAT, graphrt::TensorShape({2, 3}));
    for (int i = 0; i < 6; ++i) kernel.data<float>()[i] = 0.5f * i;
    ASSERT_TRUE(writer.Add("dense/kernel", kernel).ok());
    ASSERT_TRUE(writer.Add("global_step", graphrt::Tensor::Scalar<int64_t>(42)).ok());
    EXPECT_FALSE(writer.Add("global_step", graphrt::Tensor::Scalar<int64_t>(1)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  graphrt::StatusOr<std::unique_ptr<graphrt::CheckpointReader>> reader =
      graphrt::CheckpointReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->Keys(), (std::vector<std::string>{"dense/kernel", "global_step"}));
  graphrt::StatusOr<std::vector<graphrt::CheckpointTensorInfo>> list = (*reader)->List();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "dense/kernel");
  EXPECT_EQ((*list)[0].dtype, ::tensorflow::DT_FLOAT);
  EXPECT_EQ((*list)[0].shape, graphrt::TensorShape({2, 3}));
  EXPECT_EQ((*list)[1].dtype, ::tensorflow::DT_INT64);
  EXPECT_EQ((*list)[1].shape, graphrt::TensorShape());
  graphrt::StatusOr<graphrt::Tensor> kernel = (*reader)->Read("dense/kernel");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(kernel->data<float>()[5], 2.5f);
  graphrt::StatusOr<graphrt::Tensor> missing = (*reader)->Read("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), graphrt::Code::kNotFound);

  // The same checkpoint through the migration API: a rename and a dropped global_step.
  graphrt::migrate::MigrationRules rules;
  rules.renames.push_back({"dense/", "head/"});
  rules.drop_global_step = true;
  graphrt::StatusOr<graphrt::migrate::MigrationPlan> plan =
      graphrt::migrate::PlanCheckpointMigration(prefix, rules);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string migrated = ScratchPath("round_trip/migrated.ckpt");
  graphrt::StatusOr<graphrt::migrate::MigrationResult> result =
      graphrt::migrate::RunCheckpointMigration(*plan, migrated, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tensors_written, 1);
  reader = graphrt::CheckpointReader::Open(migrated);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->Keys(), (std::vector<std::string>{"head/kernel"}));
}

// The public entry points on bad input: a Status naming the file, never a crash.
TEST(PublicApiTest, BadFilesGiveErrorsNamingThem) {
  const std::string missing = ScratchPath("bad_input/none/model.ckpt");
  graphrt::StatusOr<std::unique_ptr<graphrt::CheckpointReader>> reader =
      graphrt::CheckpointReader::Open(missing);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), graphrt::Code::kNotFound) << reader.status();
  EXPECT_NE(reader.status().message().find(missing), std::string::npos) << reader.status();

  // An .index that is not a table: the reader refuses it.
  const std::string corrupt = ScratchPath("bad_input/corrupt/model.ckpt");
  fs::create_directories(fs::path(corrupt).parent_path());
  std::ofstream(corrupt + ".index") << "not a checkpoint index, just some bytes";
  reader = graphrt::CheckpointReader::Open(corrupt);
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find(corrupt), std::string::npos) << reader.status();

  ::tensorflow::GraphDef graph;
  graphrt::Status s = graphrt::ReadGraphDef(missing + ".pb", &graph);
  EXPECT_EQ(s.code(), graphrt::Code::kNotFound) << s;
  graphrt::StatusOr<graphrt::PlacementLog> log = graphrt::ReadPlacementLog(missing + ".log");
  EXPECT_EQ(log.status().code(), graphrt::Code::kNotFound) << log.status();
}

TEST(PublicApiTest, ReplayPlacementLogMakesItsOwnDevices) {
  const fs::path fixtures = fs::path(GRAPHRT_SOURCE_DIR) / "tests/fixtures";
  graphrt::StatusOr<graphrt::PlacementLog> log =
      graphrt::ReadPlacementLog((fixtures / "placement/mlp.gpu.log").string());
  ASSERT_TRUE(log.ok()) << log.status();
  ::tensorflow::GraphDef graph;
  ASSERT_TRUE(graphrt::ReadGraphDef((fixtures / "models/mlp.pb").string(), &graph).ok());

  graphrt::SessionConfig config;
  config.device_count["GPU"] = 0;
  graphrt::StatusOr<graphrt::ReplayResult> hard = graphrt::ReplayPlacementLog(*log, graph, config);
  ASSERT_FALSE(hard.ok());
  EXPECT_NE(hard.status().message().find("Cannot assign a device"), std::string::npos);

  config.allow_soft_placement = true;
  graphrt::StatusOr<graphrt::ReplayResult> soft = graphrt::ReplayPlacementLog(*log, graph, config);
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_FALSE(soft->faithful);
  ASSERT_EQ(soft->lines.size(), static_cast<size_t>(graph.node_size()));
  for (const graphrt::ReplayLine& line : soft->lines) {
    EXPECT_EQ(line.kind, graphrt::ReplayLine::kMoved) << line.node;
    EXPECT_EQ(line.assigned, "/job:localhost/replica:0/task:0/device:CPU:0");
  }
}

TEST(PublicApiTest, NpyRoundTrip) {
  graphrt::Tensor t = graphrt::Tensor::Vector<int32_t>({3, -1, 7});
  graphrt::StatusOr<std::string> bytes = graphrt::SerializeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  graphrt::StatusOr<graphrt::Tensor> back = graphrt::ParseNpy(*bytes, "inline");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype(), ::tensorflow::DT_INT32);
  EXPECT_EQ(back->DebugString(), t.DebugString());
}

// What an installed header may include: its siblings, the standard library, the generated
// protobuf headers, protobuf and Eigen. Anything else (runtime/..., formats/...) would not be
// found on a user's machine.
TEST(PublicHeadersTest, IncludeOnlyWhatIsInstalled) {
  const fs::path dir = fs::path(GRAPHRT_SOURCE_DIR) / "include/graphrt";
  const std::regex include_line(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  const std::regex allowed_quoted(R"([a-z_0-9]+\.pb\.h)");
  const std::regex allowed_angled(R"((graphrt/[a-z_0-9]+\.h)|([a-z_0-9]+)|(google/protobuf/.+)|)"
                                  R"((Eigen/Core))");
  int headers = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 2 || (name.substr(name.size() - 2) != ".h" && name != "version.h.in")) {
      continue;
    }
    ++headers;
    std::ifstream in(entry.path());
    std::string line;
    int line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      const std::string target = m[2];
      const bool ok = m[1] == "\"" ? std::regex_match(target, allowed_quoted)
                                   : std::regex_match(target, allowed_angled);
      EXPECT_TRUE(ok) << name << ":" << line_number << " includes " << target;
      if (m[1] == "<" && target.rfind("graphrt/", 0) == 0 && target != "graphrt/version.h") {
        EXPECT_TRUE(fs::exists(dir.parent_path() / target))
            << name << ":" << line_number << " includes a missing " << target;
      }
    }
  }
  EXPECT_GE(headers, 15);
}

// The umbrella header names every public header, so that including it is including them all.
TEST(PublicHeadersTest, UmbrellaIncludesEveryHeader) {
  const fs::path dir = fs::path(GRAPHRT_SOURCE_DIR) / "include/graphrt";
  std::ifstream in(dir / "graphrt.h");
  std::string umbrella((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name == "graphrt.h") continue;
    if (name == "version.h.in") name = "version.h";
    if (name.size() < 2 || name.substr(name.size() - 2) != ".h") continue;
    EXPECT_NE(umbrella.find("#include <graphrt/" + name + ">"), std::string::npos) << name;
  }
}

}  // namespace
