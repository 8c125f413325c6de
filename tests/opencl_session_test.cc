// OpenCL GPU devices end to end, on PoCL's CPU-type device (opencl_devices = "all"): discovery,
// transfers as plan steps, the fixture MLP and CNN on GPU:0 against TensorFlow's outputs, the
// GPU-pinned half_plus_two SavedModel under soft placement, the program cache across processes,
// and the failure paths (a program that does not build, a tiny memory fraction, an OpenCL
// error mid-run).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "formats/graph_def.h"
#include "formats/npy.h"
#include "runtime/core/str_util.h"
#include "runtime/devices/opencl/opencl_runtime.h"
#include "runtime/devices/opencl/opencl_stats.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/session/saved_model.h"
#include "runtime/session/session.h"
#include "tests/fixture_util.h"

extern char** environ;

namespace graphrt {
namespace {

constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";

SessionConfig GpuConfig() {
  SessionConfig config;
  config.opencl_devices = "all";
  config.inter_op_parallelism_threads = 1;
  config.intra_op_parallelism_threads = 1;
  return config;
}

bool HaveOpenClDevice() {
  std::string note;
  return !DiscoverOpenClDevices(/*include_cpu=*/true, &note).empty();
}

#define SKIP_WITHOUT_OPENCL() \
  GRT_REQUIRE_OR_SKIP(HaveOpenClDevice() ? "" : "no OpenCL device (PoCL) on this machine")

std::unique_ptr<Session> NewSessionWithGraph(const SessionConfig& config, const std::string& path) {
  GraphDef graph;
  Status s = ReadGraphDef(path, &graph);
  EXPECT_TRUE(s.ok()) << s;
  SessionOptions options;
  options.config = config;
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(options, &session).ok());
  s = session->Create(graph);
  EXPECT_TRUE(s.ok()) << s;
  return session;
}

TEST(OpenClDevicesTest, DiscoveryListsPoclOnlyWhenAsked) {
  SKIP_WITHOUT_OPENCL();
  const char* env = std::getenv("GRAPHRT_OPENCL_DEVICES");
  if (env == nullptr) {
    SessionOptions plain;
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSession(plain, &session).ok());
    std::vector<DeviceAttributes> devices;
    ASSERT_TRUE(session->ListDevices(&devices).ok());
    for (const DeviceAttributes& d : devices) {
      std::string note;
      bool has_real_gpu = !DiscoverOpenClDevices(false, &note).empty();
      if (!has_real_gpu) {
        EXPECT_NE(d.device_type, kDeviceGpu) << d.name;
      }
    }
  }
  SessionOptions options;
  options.config = GpuConfig();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].name, kGpu0);
  EXPECT_EQ(devices[1].device_type, "GPU");
  EXPECT_GT(devices[1].memory_limit, 0);
  EXPECT_NE(devices[1].physical_device_desc.find("name: "), std::string::npos);
  EXPECT_NE(devices[1].physical_device_desc.find("driver version: "), std::string::npos);

  options.config.gpu_options.visible_device_list = "7";  // no such device
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  EXPECT_EQ(devices.size(), 1u);
  options.config.gpu_options.visible_device_list = "0";
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  EXPECT_EQ(devices.size(), 2u);

  options.config.device_count["GPU"] = 0;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  EXPECT_EQ(devices.size(), 1u);

  options.config = SessionConfig();
  options.config.opencl_devices = "none";
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  EXPECT_EQ(devices.size(), 1u);
}

// The fixture models on GPU:0 match TensorFlow's outputs; every MatMul/Conv2D runs there, and
// the only copies are the feed going up and the fetches coming back.
TEST(OpenClModelsTest, MlpAndCnnOnGpuMatchTensorFlow) {
  SKIP_WITHOUT_OPENCL();
  StatusOr<std::vector<testing::FixtureCase>> cases =
      testing::LoadManifest(testing::SourceDir() + "/tests/fixtures/models");
  ASSERT_TRUE(cases.ok()) << cases.status();
  int ran = 0;
  for (const testing::FixtureCase& c : *cases) {
    EXPECT_EQ(testing::RunFixtureCase(c, GpuConfig()), "") << c.name;
    ++ran;
  }
  EXPECT_EQ(ran, 4);  // mlp and cnn, batch 1 and 32
  std::unique_ptr<Session> session =
      NewSessionWithGraph(GpuConfig(), testing::SourceDir() + "/tests/fixtures/models/cnn.pb");
  Tensor images(::tensorflow::DT_FLOAT, TensorShape({1, 28, 28, 1}));
  for (int i = 0; i < 28 * 28; ++i) images.data<float>()[i] = 0.001f * i;
  std::vector<Tensor> out;
  // The first run builds the plan, which uploads the weights (Const) once.
  ASSERT_TRUE(session->Run({{"images:0", images}}, {"probs:0", "logits:0"}, {}, &out).ok());
  OpenClStats before = GetOpenClStats();
  ASSERT_TRUE(session->Run({{"images:0", images}}, {"probs:0", "logits:0"}, {}, &out).ok());
  OpenClStats after = GetOpenClStats();
  EXPECT_EQ(after.host_to_device_copies - before.host_to_device_copies, 1);
  EXPECT_EQ(after.device_to_host_copies - before.device_to_host_copies, 2);
  PlacementReport report = session->GetPlacementReport();
  int on_gpu = 0;
  for (const PlacementDecision& d : report.decisions()) {
    if (d.op == "Conv2D" || d.op == "MatMul" || d.op == "Softmax" || d.op == "MaxPool") {
      EXPECT_EQ(d.assigned, kGpu0) << d.node;
      ++on_gpu;
    }
  }
  EXPECT_GE(on_gpu, 6);
}

// The per-call device choice: a callable on GPU:0 for a graph that asks for no device.
TEST(OpenClModelsTest, CallableOnGpuDevice) {
  SKIP_WITHOUT_OPENCL();
  SessionConfig config = GpuConfig();
  config.device_count["GPU"] = 1;
  std::unique_ptr<Session> session =
      NewSessionWithGraph(config, testing::SourceDir() + "/tests/fixtures/models/mlp.pb");
  CallableOptions callable;
  callable.add_feed("x:0");
  callable.add_fetch("probs:0");
  Session::CallableHandle handle;
  PlacementReport report;
  Status s = session->MakeCallableOnDevice(callable, "/device:GPU:0", &handle, &report);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(report.Find("dense1/MatMul")->assigned, kGpu0);
  StatusOr<Tensor> x = ReadNpy(testing::SourceDir() + "/tests/fixtures/models/mlp_batch32.in0.npy");
  StatusOr<Tensor> want =
      ReadNpy(testing::SourceDir() + "/tests/fixtures/models/mlp_batch32.out0.npy");
  ASSERT_TRUE(x.ok() && want.ok());
  std::vector<Tensor> out;
  s = session->RunCallable(handle, {*x}, &out, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(testing::CompareTensors(out[0], *want, 1e-5, 1.3e-5), "");
}

// Concurrent runs share kernels (and their cl_kernel arguments) and the device queue.
TEST(OpenClModelsTest, ConcurrentRunsOnGpuAgree) {
  SKIP_WITHOUT_OPENCL();
  std::unique_ptr<Session> session =
      NewSessionWithGraph(GpuConfig(), testing::SourceDir() + "/tests/fixtures/models/cnn.pb");
  StatusOr<Tensor> x = ReadNpy(testing::SourceDir() + "/tests/fixtures/models/cnn_batch1.in0.npy");
  StatusOr<Tensor> want =
      ReadNpy(testing::SourceDir() + "/tests/fixtures/models/cnn_batch1.out0.npy");
  ASSERT_TRUE(x.ok() && want.ok());
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t]() {
      for (int i = 0; i < 5; ++i) {
        std::vector<Tensor> out;
        Status s = session->Run({{"images:0", *x}}, {"probs:0"}, {}, &out);
        if (!s.ok()) {
          failures[t] = s.ToString();
          return;
        }
        std::string diff = testing::CompareTensors(out[0], *want, 1e-5, 2.1e-5);  // the manifest's
        if (!diff.empty()) {
          failures[t] = diff;
          return;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
}

// A fetch of a fed tensor and of a host-only value need no copies; a tensor read by two GPU
// consumers is copied up once.
TEST(OpenClTransfersTest, EachEdgeCrossingIsCopiedOnce) {
  SKIP_WITHOUT_OPENCL();
  GraphDef graph;
  for (
      const char* text : {
          R"(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } })",
          R"(name: "a" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } })",
          R"(name: "b" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } })",
          R"(name: "c" op: "Mul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } })",
      }) {
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, graph.add_node()));
  }
  SessionOptions options;
  options.config = GpuConfig();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(graph).ok());
  Tensor x = Tensor::Vector<float>({-1.5f, 2.0f, 3.0f});
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", x}}, {"c", "a", "x"}, {}, &out).ok());
  OpenClStats before = GetOpenClStats();
  Status s = session->Run({{"x", x}}, {"c", "a", "x"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  OpenClStats after = GetOpenClStats();
  EXPECT_EQ(after.host_to_device_copies - before.host_to_device_copies, 1);
  EXPECT_EQ(after.device_to_host_copies - before.device_to_host_copies, 2);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_FALSE(out[0].in_device_memory());
  EXPECT_FLOAT_EQ(out[0].data<float>()[0], 0.0f);
  EXPECT_FLOAT_EQ(out[0].data<float>()[1], -4.0f);
  EXPECT_FLOAT_EQ(out[1].data<float>()[2], 3.0f);
  EXPECT_FLOAT_EQ(out[2].data<float>()[0], -1.5f);
  EXPECT_EQ(session->GetPlacementReport().Find("c")->assigned, kGpu0);
}

// Reshape, Squeeze, ExpandDims and Identity pass device tensors on without copies; resource
// variables pinned to the GPU keep their value in device memory across runs.
TEST(OpenClTransfersTest, ReshapesDoNotCopyAndVariablesLiveOnTheDevice) {
  SKIP_WITHOUT_OPENCL();
  GraphDef graph;
  for (const char* text : {
           R"(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } })",
           R"(name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
              attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } }
                                                   int_val: 1 int_val: 4 int_val: 1 } } })",
           R"(name: "r" op: "Reshape" input: "x" input: "shape"
              attr { key: "T" value { type: DT_FLOAT } })",
           R"(name: "sq" op: "Squeeze" input: "r" attr { key: "T" value { type: DT_FLOAT } })",
           R"(name: "dim" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
              attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } })",
           R"(name: "ex" op: "ExpandDims" input: "sq" input: "dim"
              attr { key: "T" value { type: DT_FLOAT } })",
           R"(name: "id" op: "Identity" input: "ex" attr { key: "T" value { type: DT_FLOAT } })",
           R"(name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
              attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } })",
           R"(name: "assign" op: "AssignVariableOp" input: "v" input: "id"
              attr { key: "dtype" value { type: DT_FLOAT } })",
           R"(name: "read" op: "ReadVariableOp" input: "v"
              attr { key: "dtype" value { type: DT_FLOAT } })",
           R"(name: "twice" op: "AddV2" input: "read" input: "read"
              attr { key: "T" value { type: DT_FLOAT } })",
       }) {
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, graph.add_node()));
  }
  SessionOptions options;
  options.config = GpuConfig();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(graph).ok());
  std::vector<Tensor> out;
  Tensor x = Tensor::Vector<float>({1.0f, -2.0f, 3.5f, 4.0f});
  ASSERT_TRUE(session->Run({{"x", x}}, {}, {"assign"}, &out).ok());
  OpenClStats before = GetOpenClStats();
  Status s = session->Run({}, {"twice"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  OpenClStats after = GetOpenClStats();
  EXPECT_EQ(after.host_to_device_copies - before.host_to_device_copies, 0);
  EXPECT_EQ(after.device_to_host_copies - before.device_to_host_copies, 1);
  EXPECT_EQ(out[0].DebugString(), "float[1,4] [2, -4, 7, 8]");
  PlacementReport report = session->GetPlacementReport();
  for (const char* node : {"r", "sq", "ex", "id", "v", "assign", "read", "twice"}) {
    EXPECT_EQ(report.Find(node)->assigned, kGpu0) << node;
  }
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(GetOpenClStats().live_bytes, 0);
}

// Without an OpenCL platform (an empty vendors directory, or an ICD whose library is missing)
// there are no GPU devices: the model runs on the CPU and one note says why.
TEST(OpenClDevicesTest, NoPlatformOrBrokenIcdMeansCpuOnlyAndANote) {
  char dir_template[] = "/tmp/graphrt_icd_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string dir = dir_template;
  std::ofstream(dir + "/broken.icd") << "/nonexistent/libgraphrt_broken_opencl.so\n";
  std::string command =
      StrCat("GRAPHRT_OPENCL_DEVICES=all OCL_ICD_VENDORS=", dir, " ", GRAPHRT_CLI_BINARY, " run ",
             testing::SourceDir(), "/tests/fixtures/models/mlp.pb --input x=", testing::SourceDir(),
             "/tests/fixtures/models/mlp_batch1.in0.npy --output probs --log-placement 2>&1");
  testing::CommandResult result = testing::RunShell(command);
  std::string output = result.out;
  EXPECT_EQ(result.exit_code, 0) << output;
  EXPECT_NE(output.find("graphrt: note: no OpenCL GPU devices"), std::string::npos) << output;
  EXPECT_NE(output.find("probs: float32[1,10]"), std::string::npos) << output;
  EXPECT_EQ(output.find("device:GPU"), std::string::npos) << output;
  EXPECT_EQ(std::system(("rm -rf '" + dir + "'").c_str()), 0);

  // With the ICDs of this machine, the same command places the model on GPU:0 (PoCL).
  if (!HaveOpenClDevice()) return;
  command = StrCat("GRAPHRT_OPENCL_DEVICES=all ", GRAPHRT_CLI_BINARY, " run ", testing::SourceDir(),
                   "/tests/fixtures/models/mlp.pb --input x=", testing::SourceDir(),
                   "/tests/fixtures/models/mlp_batch1.in0.npy --output probs --log-placement 2>&1");
  result = testing::RunShell(command);
  output = result.out;
  EXPECT_EQ(result.exit_code, 0) << output;
  EXPECT_NE(output.find("dense1/MatMul: (MatMul): " + std::string(kGpu0)), std::string::npos)
      << output;
  EXPECT_EQ(output.find("graphrt: note"), std::string::npos) << output;
}

std::string HalfPlusTwoGpu() {
  return testing::SharedDir() +
         "/testdata/real/tensorflow__serving/tensorflow_serving/servables/tensorflow/testdata/"
         "saved_model_half_plus_two_gpu/00000123";
}

TEST(OpenClSavedModelTest, HalfPlusTwoGpuRunsOnTheOpenClDevice) {
  SKIP_WITHOUT_OPENCL();
  GRT_REQUIRE_SHARED_OR_SKIP();
  SessionOptions options;
  options.config = GpuConfig();
  options.config.allow_soft_placement = true;
  SavedModelBundle bundle;
  Status s = LoadSavedModel(options, RunOptions(), HalfPlusTwoGpu(), {"serve"}, &bundle);
  ASSERT_TRUE(s.ok()) << s;
  Tensor x = Tensor::Vector<float>({1.0f, 2.0f, 5.0f, -3.0f}).Reshaped(TensorShape({4, 1}));
  std::vector<Tensor> out;
  s = bundle.session->Run({{"x:0", x}}, {"y:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out[0].NumElements(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(out[0].data<float>()[i], 0.5f * x.data<float>()[i] + 2.0f);
  }
  PlacementReport report = bundle.session->GetPlacementReport();
  for (const char* node :
       {"a", "b", "c", "a/Assign", "a/read", "Mul", "y", "x", "a/initial_value", "save/Assign"}) {
    const PlacementDecision* d = report.Find(node);
    ASSERT_NE(d, nullptr) << node;
    EXPECT_EQ(d->assigned, kGpu0) << node << ": " << d->reason;
  }
  // The string Placeholder asked for the GPU and stayed on the CPU, saying why.
  const PlacementDecision* example = report.Find("tf_example");
  ASSERT_NE(example, nullptr);
  EXPECT_NE(example->assigned, kGpu0);
  EXPECT_NE(example->reason.find("soft placement"), std::string::npos) << example->reason;
  EXPECT_NE(example->reason.find("no GPU (OpenCL) kernel for Placeholder"), std::string::npos)
      << example->reason;
  EXPECT_NE(example->reason.find("dtype=string"), std::string::npos) << example->reason;
  ASSERT_TRUE(bundle.session->Close().ok());
  EXPECT_EQ(GetOpenClStats().live_bytes, 0);
}

// ---- Program cache across processes ----

// Runs this binary again with one test selected and the environment given; returns its exit
// status.
int RunChild(const std::string& test, const std::vector<std::string>& env) {
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len <= 0) return -1;
  exe[len] = '\0';
  std::string filter = "--gtest_filter=" + test;
  std::vector<std::string> env_strings = env;
  for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  char* argv[] = {exe, filter.data(), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, exe, nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// In a child process (GRAPHRT_TEST_STATS_OUT set): runs the CNN on GPU:0 and writes the
// program cache counters and the first-run time.
TEST(OpenClCacheChild, RunCnnAndReportStats) {
  const char* out_path = std::getenv("GRAPHRT_TEST_STATS_OUT");
  if (out_path == nullptr) GTEST_SKIP() << "only runs as the child of OpenClCacheTest";
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Session> session =
      NewSessionWithGraph(GpuConfig(), testing::SourceDir() + "/tests/fixtures/models/cnn.pb");
  Tensor images(::tensorflow::DT_FLOAT, TensorShape({1, 28, 28, 1}));
  for (int i = 0; i < 28 * 28; ++i) images.data<float>()[i] = 0.5f;
  std::vector<Tensor> out;
  RunOptions traced;
  traced.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  Status s = session->Run(traced, {{"images:0", images}}, {"probs:0"}, {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  OpenClStats stats = GetOpenClStats();
  // The process's counters, then the first Run's own (its RunMetadata).
  std::ofstream(out_path) << stats.program_cache_hits << " " << stats.program_cache_misses << " "
                          << seconds << " " << metadata.graphrt_opencl_stats().program_cache_hits()
                          << " " << metadata.graphrt_opencl_stats().program_cache_misses() << "\n";
}

TEST(OpenClCacheTest, SecondProcessDoesNotRecompile) {
  SKIP_WITHOUT_OPENCL();
  char dir_template[] = "/tmp/graphrt_cache_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string dir = dir_template;
  std::string stats_path = dir + "/stats.txt";
  std::vector<std::string> env = {"GRAPHRT_CACHE_DIR=" + dir,
                                  "GRAPHRT_TEST_STATS_OUT=" + stats_path};
  int64_t hits[2], misses[2], run_hits[2], run_misses[2];
  double seconds[2];
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(RunChild("OpenClCacheChild.RunCnnAndReportStats", env), 0) << "run " << run;
    std::ifstream in(stats_path);
    ASSERT_TRUE(in >> hits[run] >> misses[run] >> seconds[run] >> run_hits[run] >> run_misses[run])
        << "run " << run;
  }
  EXPECT_GT(misses[0], 0);  // a cold cache compiles
  EXPECT_EQ(misses[1], 0);  // the second process loads every program
  EXPECT_EQ(hits[1], misses[0]);
  // The first Run built every program, and its RunMetadata says so.
  EXPECT_EQ(run_misses[0], misses[0]);
  EXPECT_EQ(run_hits[0], hits[0]);
  EXPECT_EQ(run_misses[1], 0);
  EXPECT_EQ(run_hits[1], hits[1]);
  std::printf("[ cache    ] cold first run %.3f s (%lld programs compiled), warm %.3f s\n",
              seconds[0], static_cast<long long>(misses[0]), seconds[1]);
  // Corrupt binaries are compiled again from source and replaced, never a failure.
  ASSERT_EQ(
      std::system(("for f in '" + dir + "'/opencl/*.bin; do echo garbage > \"$f\"; done").c_str()),
      0);
  ASSERT_EQ(RunChild("OpenClCacheChild.RunCnnAndReportStats", env), 0) << "corrupt cache";
  std::ifstream in(stats_path);
  int64_t hits_after = -1, misses_after = -1;
  double unused;
  int64_t unused_hits, unused_misses;
  ASSERT_TRUE(in >> hits_after >> misses_after >> unused >> unused_hits >> unused_misses);
  EXPECT_EQ(hits_after, 0);
  EXPECT_EQ(misses_after, misses[0]);
  EXPECT_EQ(std::system(("rm -rf '" + dir + "'").c_str()), 0);
}

// ---- RunMetadata, attr-dependent placement, precision, shared constants ----

GraphDef ParseNodes(const std::vector<std::string>& texts) {
  GraphDef graph;
  for (const std::string& text : texts) {
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, graph.add_node())) << text;
  }
  return graph;
}

GraphDef ReluNegMulGraph() {
  return ParseNodes({
      R"(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } })",
      R"(name: "a" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } })",
      R"(name: "b" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } })",
      R"(name: "c" op: "Mul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } })",
  });
}

// A traced Run carries the OpenCL counters of the call in RunMetadata (graphrt_opencl_stats):
// the copies and launches of this run; an untraced run and a CPU-only session carry none.
TEST(OpenClRunMetadataTest, TracedRunCarriesCopiesLaunchesAndProgramCounts) {
  SKIP_WITHOUT_OPENCL();
  SessionOptions options;
  options.config = GpuConfig();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(ReluNegMulGraph()).ok());
  RunOptions traced;
  traced.set_trace_level(RunOptions::FULL_TRACE);
  Tensor x = Tensor::Vector<float>({-1.5f, 2.0f, 3.0f});
  std::vector<Tensor> out;
  // The first call builds the plan: its program counts are the process's over the call.
  RunMetadata first;
  OpenClStats before = GetOpenClStats();
  Status s = session->Run(traced, {{"x", x}}, {"c"}, {}, &out, &first);
  ASSERT_TRUE(s.ok()) << s;
  OpenClStats after = GetOpenClStats();
  ASSERT_TRUE(first.has_graphrt_opencl_stats());
  EXPECT_EQ(first.graphrt_opencl_stats().program_cache_hits(),
            after.program_cache_hits - before.program_cache_hits);
  EXPECT_EQ(first.graphrt_opencl_stats().program_cache_misses(),
            after.program_cache_misses - before.program_cache_misses);

  RunMetadata second;
  s = session->Run(traced, {{"x", x}}, {"c"}, {}, &out, &second);
  ASSERT_TRUE(s.ok()) << s;
  const ::tensorflow::GraphrtOpenClRunStats& stats = second.graphrt_opencl_stats();
  EXPECT_EQ(stats.host_to_device_copies(), 1);  // x, once for both consumers
  EXPECT_EQ(stats.device_to_host_copies(), 1);  // c
  EXPECT_EQ(stats.kernel_launches(), 3);        // Relu, Neg, Mul
  EXPECT_EQ(stats.program_cache_hits(), 0);     // the plan exists: nothing loaded or built
  EXPECT_EQ(stats.program_cache_misses(), 0);
  EXPECT_FLOAT_EQ(out[0].data<float>()[1], -4.0f);
  bool gpu_stats = false;
  for (const auto& dev : second.step_stats().dev_stats()) gpu_stats |= dev.device() == kGpu0;
  EXPECT_TRUE(gpu_stats);
  // The field survives the wire: TensorFlow's parsers see field 1000 as unknown.
  RunMetadata parsed;
  ASSERT_TRUE(parsed.ParseFromString(second.SerializeAsString()));
  EXPECT_EQ(parsed.graphrt_opencl_stats().kernel_launches(), 3);

  RunMetadata untraced;
  ASSERT_TRUE(session->Run(RunOptions(), {{"x", x}}, {"c"}, {}, &out, &untraced).ok());
  EXPECT_FALSE(untraced.has_graphrt_opencl_stats());

  options.config.opencl_devices = "none";
  std::unique_ptr<Session> cpu_only;
  ASSERT_TRUE(NewSession(options, &cpu_only).ok());
  ASSERT_TRUE(cpu_only->Create(ReluNegMulGraph()).ok());
  RunMetadata on_cpu;
  ASSERT_TRUE(cpu_only->Run(traced, {{"x", x}}, {"c"}, {}, &out, &on_cpu).ok());
  EXPECT_FALSE(on_cpu.has_graphrt_opencl_stats());
}

// Nodes on the GPU state their precision in the placement report: float32, as graphrt has no
// reduced-precision path (noted when auto_mixed_precision asks for one); CPU nodes leave it
// empty.
TEST(OpenClPlacementTest, ReportStatesFloat32ForGpuNodes) {
  SKIP_WITHOUT_OPENCL();
  GraphDef graph = ReluNegMulGraph();
  graph.mutable_node(3)->set_device("/device:CPU:0");
  SessionOptions options;
  options.config = GpuConfig();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(graph).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({1.0f})}}, {"c"}, {}, &out).ok());
  PlacementReport report = session->GetPlacementReport();
  ASSERT_EQ(report.Find("a")->assigned, kGpu0);
  EXPECT_EQ(report.Find("a")->precision, "float32");
  EXPECT_EQ(report.Find("b")->precision, "float32");
  ASSERT_NE(report.Find("c")->assigned, kGpu0);
  EXPECT_EQ(report.Find("c")->precision, "");

  // Mixed precision asked for in the ConfigProto: still float32, and the report says so.
  StatusOr<SessionConfig> asked = SessionConfig::FromText(
      "graph_options { rewrite_options { auto_mixed_precision: ON } } allow_soft_placement: true");
  ASSERT_TRUE(asked.ok()) << asked.status();
  EXPECT_TRUE(asked->reduced_precision_requested);
  EXPECT_TRUE(SessionConfig::FromProto(asked->ToProto()).reduced_precision_requested);
  options.config = *asked;
  options.config.opencl_devices = "all";
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(graph).ok());
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({1.0f})}}, {"c"}, {}, &out).ok());
  EXPECT_EQ(session->GetPlacementReport().Find("a")->precision,
            "float32 (auto_mixed_precision was requested; graphrt's OpenCL kernels are float32 "
            "only)");
  EXPECT_EQ(session->GetPlacementReport().Find("c")->precision, "");
}

// The command's placement report (run --json --log-placement) carries the precision of the
// nodes on the GPU.
TEST(OpenClPlacementTest, CliJsonPlacementCarriesPrecision) {
  SKIP_WITHOUT_OPENCL();
  std::string fixtures = testing::SourceDir() + "/tests/fixtures/models/";
  std::string log = ::testing::TempDir() + "/opencl_precision_placement.log";
  std::string command =
      StrCat("env GRAPHRT_OPENCL_DEVICES=all ", GRAPHRT_CLI_BINARY, " run ", fixtures,
             "mlp.pb --input x=", fixtures,
             "mlp_batch1.in0.npy --output probs --json --log-placement=", log, " 2>&1");
  testing::CommandResult result = testing::RunShell(command);
  const std::string& out = result.out;
  ASSERT_EQ(result.exit_code, 0) << out;
  EXPECT_NE(out.find(StrCat("\"node\": \"dense1/MatMul\", \"op\": \"MatMul\", \"requested\": \"\", "
                            "\"assigned\": \"",
                            kGpu0)),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"precision\": \"float32\"}"), std::string::npos) << out;
  std::remove(log.c_str());
}

// FusedBatchNormV3 with is_training=true, pinned to the GPU. The OpenCL kernel computes
// inference only: the placer knows it from the attrs, so soft placement moves the node to the
// CPU with the reason, and without soft placement the error names the node before any kernel
// is built. The same for Conv2D with EXPLICIT padding.
GraphDef TrainingBatchNormAndExplicitConvGraph() {
  return ParseNodes({
      R"(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } })",
      R"(name: "scale" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                              float_val: 1.5 float_val: 0.5 } } })",
      R"(name: "offset" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                              float_val: 0.25 float_val: -1 } } })",
      R"(name: "empty" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 0 } } } } })",
      R"(name: "bn" op: "FusedBatchNormV3" device: "/device:GPU:0"
         input: "x" input: "scale" input: "offset" input: "empty" input: "empty"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "U" value { type: DT_FLOAT } }
         attr { key: "epsilon" value { f: 0.001 } } attr { key: "is_training" value { b: true } }
         attr { key: "data_format" value { s: "NHWC" } })",
      R"(name: "filter" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
             tensor_shape { dim { size: 1 } dim { size: 1 } dim { size: 2 } dim { size: 1 } }
             float_val: 1 float_val: 2 } } })",
      R"(name: "conv" op: "Conv2D" device: "/device:GPU:0" input: "x" input: "filter"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
         attr { key: "padding" value { s: "EXPLICIT" } }
         attr { key: "explicit_paddings" value { list { i: 0 i: 0 i: 1 i: 0 i: 0 i: 0 i: 0 i: 0 } } })",
  });
}

TEST(OpenClPlacementTest, TrainingBatchNormAndExplicitPaddingFallBackToCpuWithReason) {
  SKIP_WITHOUT_OPENCL();
  SessionOptions options;
  options.config = GpuConfig();
  options.config.allow_soft_placement = true;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(TrainingBatchNormAndExplicitConvGraph()).ok());
  // x: [1, 2, 2, 2] (NHWC); channel 0 holds 1, 2, 3, 4 and channel 1 holds 0, 0, 4, 8.
  Tensor x(::tensorflow::DT_FLOAT, TensorShape({1, 2, 2, 2}));
  const float values[] = {1, 0, 2, 0, 3, 4, 4, 8};
  std::copy(values, values + 8, x.data<float>());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}}, {"bn:0", "bn:1", "conv"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  PlacementReport report = session->GetPlacementReport();
  const PlacementDecision* bn = report.Find("bn");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->assigned, "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_NE(bn->reason.find("soft placement"), std::string::npos) << bn->reason;
  EXPECT_NE(bn->reason.find("is_training=true"), std::string::npos) << bn->reason;
  const PlacementDecision* conv = report.Find("conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->assigned, "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_NE(conv->reason.find("padding=EXPLICIT"), std::string::npos) << conv->reason;
  // Batch statistics: channel 0 mean 2.5, variance 1.25; channel 1 mean 3, variance 11.
  const double mean[] = {2.5, 3.0}, var[] = {1.25, 11.0}, scale[] = {1.5, 0.5},
               offset[] = {0.25, -1.0};
  for (int i = 0; i < 8; ++i) {
    int c = i % 2;
    double want = (values[i] - mean[c]) / std::sqrt(var[c] + 0.001) * scale[c] + offset[c];
    EXPECT_NEAR(out[0].data<float>()[i], want, 1e-5 * std::max(1.0, std::abs(want))) << i;
  }
  EXPECT_FLOAT_EQ(out[1].data<float>()[0], 2.5f);
  EXPECT_FLOAT_EQ(out[1].data<float>()[1], 3.0f);
  // conv: one row of zeros above (explicit top padding 1), then x . [1, 2] per pixel.
  ASSERT_EQ(out[2].shape().DebugString(), "[1,3,2,1]");
  const float conv_want[] = {0, 0, 1, 2, 11, 20};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(out[2].data<float>()[i], conv_want[i]) << i;

  // Without soft placement: INVALID_ARGUMENT naming the node and the attr, at placement.
  options.config.allow_soft_placement = false;
  ASSERT_TRUE(NewSession(options, &session).ok());
  s = session->Create(TrainingBatchNormAndExplicitConvGraph());
  if (s.ok()) s = session->Run({{"x", x}}, {"bn:0"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("bn"), std::string::npos) << s;
  EXPECT_NE(s.message().find("is_training=true"), std::string::npos) << s;
}

// The registry says which attrs the GPU kernels refuse, so the placer can move such nodes.
TEST(OpenClPlacementTest, RegistryNamesAttrsTheGpuKernelsRefuse) {
  auto node = [](const std::string& text) {
    ::tensorflow::NodeDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    return def;
  };
  const KernelRegistry* registry = KernelRegistry::Global();
  ::tensorflow::NodeDef depth_pool = node(R"(name: "p" op: "MaxPool"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "padding" value { s: "VALID" } }
      attr { key: "ksize" value { list { i: 1 i: 1 i: 1 i: 2 } } }
      attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 2 } } })");
  EXPECT_EQ(registry->AttrLimitation(kDeviceGpu, depth_pool),
            "ksize other than 1 in the batch or depth dimension");
  EXPECT_FALSE(registry->Supports(kDeviceGpu, depth_pool));
  EXPECT_TRUE(registry->Supports(kDeviceCpu, depth_pool));
  ::tensorflow::NodeDef spatial_pool = depth_pool;
  (*spatial_pool.mutable_attr())["ksize"].mutable_list()->set_i(3, 1);
  (*spatial_pool.mutable_attr())["strides"].mutable_list()->set_i(3, 1);
  EXPECT_EQ(registry->AttrLimitation(kDeviceGpu, spatial_pool), "");
  EXPECT_TRUE(registry->Supports(kDeviceGpu, spatial_pool));
  ::tensorflow::NodeDef inference_bn = node(R"(name: "bn" op: "FusedBatchNorm"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "is_training" value { b: false } })");
  EXPECT_TRUE(registry->Supports(kDeviceGpu, inference_bn));
  (*inference_bn.mutable_attr())["is_training"].set_b(true);
  StatusOr<const KernelRegistration*> found = registry->Find(kDeviceGpu, inference_bn);
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("is_training=true"), std::string::npos) << found.status();
}

// A second plan (other fetches) of the same session does not upload the Const weights again:
// the device shares them between plans; variables already live in the session's resources.
// Close gives the shared constants back.
TEST(OpenClTransfersTest, SecondPlanReusesUploadedConstantsAndVariables) {
  SKIP_WITHOUT_OPENCL();
  GraphDef graph = ParseNodes({
      R"(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } })",
      R"(name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                              float_val: 3 float_val: -2 } } })",
      R"(name: "mul" op: "Mul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } })",
      R"(name: "add" op: "AddV2" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } })",
      R"(name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } } } })",
      R"(name: "init" op: "AssignVariableOp" input: "v" input: "w"
         attr { key: "dtype" value { type: DT_FLOAT } })",
      R"(name: "read" op: "ReadVariableOp" input: "v" attr { key: "dtype" value { type: DT_FLOAT } })",
      R"(name: "scaled" op: "Mul" input: "x" input: "read" attr { key: "T" value { type: DT_FLOAT } })",
  });
  SessionOptions options;
  options.config = GpuConfig();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(graph).ok());
  Tensor x = Tensor::Vector<float>({1.0f, 4.0f});
  std::vector<Tensor> out;
  auto uploads = [&](const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets) -> int64_t {
    OpenClStats before = GetOpenClStats();
    Status s = session->Run({{"x", x}}, fetches, targets, &out);
    EXPECT_TRUE(s.ok()) << s;
    return GetOpenClStats().host_to_device_copies - before.host_to_device_copies;
  };
  EXPECT_EQ(uploads({"mul"}, {}), 2);  // x and w
  EXPECT_EQ(out[0].DebugString(), "float[2] [3, -8]");
  EXPECT_EQ(uploads({"add"}, {}), 1);  // a new plan: x only, w is shared
  EXPECT_EQ(out[0].DebugString(), "float[2] [4, 2]");
  EXPECT_EQ(uploads({}, {"init"}), 0);    // w is shared; x has no consumer in this plan
  EXPECT_EQ(uploads({"scaled"}, {}), 1);  // x only: the variable is in device memory
  EXPECT_EQ(out[0].DebugString(), "float[2] [3, -8]");
  EXPECT_EQ(session->GetPlacementReport().Find("read")->assigned, kGpu0);
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(GetOpenClStats().live_bytes, 0);
}

// ---- Faults ----

std::unique_ptr<Session> ReluSession(const SessionConfig& config) {
  GraphDef graph;
  for (const char* text : {
           R"(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } })",
           R"(name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } })",
           R"(name: "s" op: "Softmax" input: "r" attr { key: "T" value { type: DT_FLOAT } })",
       }) {
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, graph.add_node()));
  }
  SessionOptions options;
  options.config = config;
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(options, &session).ok());
  EXPECT_TRUE(session->Create(graph).ok());
  return session;
}

TEST(OpenClFaultsTest, ProgramThatFailsToBuildNamesTheNode) {
  SKIP_WITHOUT_OPENCL();
  OpenClFaults faults;
  faults.break_program = "graphrt_nn";
  SetOpenClFaultsForTesting(faults);
  std::unique_ptr<Session> session = ReluSession(GpuConfig());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Vector<float>({1, 2})}}, {"s"}, {}, &out);
  SetOpenClFaultsForTesting(OpenClFaults());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node s (Softmax)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("failed to build"), std::string::npos) << s;
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(GetOpenClStats().live_bytes, 0);
}

TEST(OpenClFaultsTest, TinyMemoryFractionIsResourceExhaustedNamingNodeAndBytes) {
  SKIP_WITHOUT_OPENCL();
  SessionConfig config = GpuConfig();
  config.gpu_options.per_process_gpu_memory_fraction = 1e-9;  // a few bytes of any device
  std::unique_ptr<Session> session = ReluSession(config);
  Tensor x(::tensorflow::DT_FLOAT, TensorShape({1000, 100}));
  for (int i = 0; i < 100000; ++i) x.data<float>()[i] = 1.0f;
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}}, {"s"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kResourceExhausted) << s;
  EXPECT_NE(s.message().find("400000 bytes"), std::string::npos) << s;
  // The feed's copy to the device fails; the error names the node it was for.
  EXPECT_NE(s.message().find("copying a tensor to " + std::string(kGpu0) + " for node r"),
            std::string::npos)
      << s;
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(GetOpenClStats().live_bytes, 0);
}

TEST(OpenClFaultsTest, OpenClErrorMidRunNamesTheNode) {
  SKIP_WITHOUT_OPENCL();
  std::unique_ptr<Session> session = ReluSession(GpuConfig());
  std::vector<Tensor> out;
  Tensor x = Tensor::Vector<float>({1, -2, 3});
  ASSERT_TRUE(session->Run({{"x", x}}, {"s"}, {}, &out).ok());
  OpenClFaults faults;
  faults.fail_kernel = "softmax_rows";
  faults.fail_after = 1;  // the second launch fails
  SetOpenClFaultsForTesting(faults);
  Status first = session->Run({{"x", x}}, {"s"}, {}, &out);
  Status second = session->Run({{"x", x}}, {"s"}, {}, &out);
  SetOpenClFaultsForTesting(OpenClFaults());
  EXPECT_TRUE(first.ok()) << first;
  EXPECT_EQ(second.code(), Code::kResourceExhausted) << second;
  EXPECT_NE(second.message().find("node s (Softmax)"), std::string::npos) << second;
  EXPECT_NE(second.message().find("CL_OUT_OF_RESOURCES"), std::string::npos) << second;
  // The session still works afterwards.
  ASSERT_TRUE(session->Run({{"x", x}}, {"s"}, {}, &out).ok());
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(GetOpenClStats().live_bytes, 0);
}

}  // namespace
}  // namespace graphrt
