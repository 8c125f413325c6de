// The Session API: feeds of any tensor, plan caching, callables, concurrency, devices, and the
// bad inputs the foundation must turn into clear errors.
#include "runtime/session/session.h"

#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include <thread>

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "runtime/core/attr_util.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

constexpr char kAffine[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 1 } }
                                             float_val: 2 float_val: 3 } } } }
node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "z" op: "Neg" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "unknown" op: "SomeCustomOpGraphrtLacks" input: "y" }
)";

std::unique_ptr<Session> AffineSession(SessionConfig config = SessionConfig()) {
  GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kAffine, &g));
  SessionOptions options;
  options.config = config;
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(options, &session).ok());
  Status s = session->Create(g);
  EXPECT_TRUE(s.ok()) << s;
  return session;
}

Tensor Matrix(std::vector<float> values, int64_t rows, int64_t cols) {
  return Tensor::Vector<float>(values).Reshaped(TensorShape({rows, cols}));
}

TEST(SessionTest, RunsAndFeedsAnyTensor) {
  std::unique_ptr<Session> session = AffineSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x:0", Matrix({1, 1, 2, 0}, 2, 2)}}, {"y", "z:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 5.0f);
  EXPECT_EQ(out[0].data<float>()[1], 4.0f);
  EXPECT_EQ(out[1].data<float>()[1], -4.0f);
  // Feeding y skips the MatMul (and x need not be fed).
  ASSERT_TRUE(session->Run({{"y", Matrix({7}, 1, 1)}}, {"z"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], -7.0f);
  // Fetching a fed tensor returns the fed value.
  ASSERT_TRUE(session->Run({{"y", Matrix({7}, 1, 1)}}, {"y"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 7.0f);
}

TEST(SessionTest, UnknownOpOnlyFailsWhenNeeded) {
  std::unique_ptr<Session> session = AffineSession();
  std::vector<Tensor> out;
  EXPECT_TRUE(session->Run({{"x", Matrix({1, 2}, 1, 2)}}, {"z"}, {}, &out).ok());
  Status s = session->Run({{"x", Matrix({1, 2}, 1, 2)}}, {"unknown"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("SomeCustomOpGraphrtLacks"), std::string::npos) << s;
  EXPECT_NE(s.message().find("unknown"), std::string::npos) << s;
}

TEST(SessionTest, WrongFeedDtypeOrShapeIsInvalidArgument) {
  std::unique_ptr<Session> session = AffineSession();
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Vector<int32_t>({1, 2}).Reshaped(TensorShape({1, 2}))}},
                          {"y"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("x:0"), std::string::npos) << s;
  s = session->Run({{"x", Matrix({1, 2, 3}, 1, 3)}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("[?,2]"), std::string::npos) << s;
}

TEST(SessionTest, MissingFetchFeedOrTargetIsNotFound) {
  std::unique_ptr<Session> session = AffineSession();
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Matrix({1, 2}, 1, 2)}}, {"nope:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("nope"), std::string::npos) << s;
  s = session->Run({{"x", Matrix({1, 2}, 1, 2)}}, {"y:3"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
  s = session->Run({{"ghost", Matrix({1, 2}, 1, 2)}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
  s = session->Run({}, {}, {"no_such_target"}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
}

TEST(SessionTest, UnfedPlaceholderNamesIt) {
  std::unique_ptr<Session> session = AffineSession();
  std::vector<Tensor> out;
  Status s = session->Run({}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("You must feed a value for placeholder tensor 'x'"), std::string::npos)
      << s;
}

TEST(SessionTest, CallablesRunWithFeedsInTheirOrder) {
  std::unique_ptr<Session> session = AffineSession();
  CallableOptions options;
  options.add_feed("x:0");
  options.add_fetch("z:0");
  options.add_fetch("y:0");
  Session::CallableHandle handle;
  ASSERT_TRUE(session->MakeCallable(options, &handle).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->RunCallable(handle, {Matrix({1, 1}, 1, 2)}, &out, nullptr).ok());
  EXPECT_EQ(out[0].data<float>()[0], -5.0f);
  EXPECT_EQ(out[1].data<float>()[0], 5.0f);
  EXPECT_TRUE(session->ReleaseCallable(handle).ok());
  EXPECT_FALSE(session->RunCallable(handle, {Matrix({1, 1}, 1, 2)}, &out, nullptr).ok());
}

TEST(SessionTest, ConcurrentRunsAgree) {
  std::unique_ptr<Session> session = AffineSession();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t]() {
      for (int i = 0; i < 200; ++i) {
        std::vector<Tensor> out;
        float v = static_cast<float>(t * 1000 + i);
        Status s = session->Run({{"x", Matrix({v, 0}, 1, 2)}}, {"z"}, {}, &out);
        if (!s.ok() || out[0].data<float>()[0] != -2 * v) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(SessionTest, ListDevicesHonoursDeviceCount) {
  SessionConfig config;
  config.device_count["CPU"] = 2;
  std::unique_ptr<Session> session = AffineSession(config);
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].name, "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(devices[1].device_type, "CPU");
}

TEST(SessionTest, CreateTwiceAndRunAfterCloseFail) {
  std::unique_ptr<Session> session = AffineSession();
  EXPECT_EQ(session->Create(GraphDef()).code(), Code::kAlreadyExists);
  ASSERT_TRUE(session->Close().ok());
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run({}, {"y"}, {}, &out).code(), Code::kCancelled);
}

TEST(SessionTest, ExtendAddsNodes) {
  std::unique_ptr<Session> session = AffineSession();
  GraphDef more;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"(node { name: "zz" op: "Neg" input: "z" attr { key: "T" value { type: DT_FLOAT } } })",
      &more));
  ASSERT_TRUE(session->Extend(more).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Matrix({1, 0}, 1, 2)}}, {"zz"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 2.0f);
}

// A frozen graph's weights are held once: the plans of different requests, and a graph added by
// Extend, hand out the same buffer for a large Const, after the caller's GraphDef is gone.
TEST(SessionTest, LargeConstValuesAreSharedByEveryPlan) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(SessionOptions(), &session).ok());
  {
    GraphDef g;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Add" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
)",
                                                              &g));
    ::tensorflow::NodeDef* w = g.add_node();
    w->set_name("w");
    w->set_op("Const");
    SetNodeAttr(w, "dtype", ::tensorflow::DT_FLOAT);
    std::vector<float> values(512);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
    SetNodeAttr(w, "value", Tensor::Vector<float>(values));
    ASSERT_TRUE(session->Create(g).ok());
  }
  std::vector<Tensor> first, second, third;
  ASSERT_TRUE(session->Run({}, {"w:0"}, {}, &first).ok());
  Status s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"y:0", "w:0"}, {}, &second);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(second[0].data<float>()[511], 512.0f);
  EXPECT_EQ(first[0].data<float>()[511], 511.0f);
  EXPECT_TRUE(first[0].SharesBufferWith(second[1]));

  GraphDef more;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"(node { name: "v" op: "Neg" input: "w" attr { key: "T" value { type: DT_FLOAT } } })",
      &more));
  ASSERT_TRUE(session->Extend(more).ok());
  ASSERT_TRUE(session->Run({}, {"w:0", "v:0"}, {}, &third).ok());
  EXPECT_TRUE(first[0].SharesBufferWith(third[0]));
  EXPECT_EQ(third[1].data<float>()[3], -3.0f);
}

TEST(SessionTest, BadGraphsAreRejectedAtCreate) {
  for (
      const char* text : {
          R"(node { name: "a" op: "Neg" input: "missing" attr { key: "T" value { type: DT_FLOAT } } })",
          R"(node { name: "a" op: "NoOp" } node { name: "a" op: "NoOp" })",
          R"(node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                     attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
              node { name: "b" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } })",
      }) {
    GraphDef g;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g));
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSession(SessionOptions(), &session).ok());
    Status s = session->Create(g);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << text;
  }
}

TEST(GraphFileTest, MissingTruncatedAndGarbageFiles) {
  GraphDef g;
  Status s = ReadGraphDef("/nonexistent/graph.pb", &g);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/graph.pb"), std::string::npos);

  std::string good_path = testing::SourceDir() + "/tests/fixtures/models/mlp.pb";
  StatusOr<std::string> bytes = ReadFileToString(good_path);
  ASSERT_TRUE(bytes.ok());
  std::string dir = ::testing::TempDir();
  std::string truncated = dir + "/truncated.pb";
  ASSERT_TRUE(WriteStringToFile(truncated, bytes->substr(0, bytes->size() / 2)).ok());
  s = ReadGraphDef(truncated, &g);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s;
  EXPECT_NE(s.message().find("truncated.pb"), std::string::npos);

  std::string garbage = dir + "/garbage.pb";
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise.push_back(static_cast<char>((i * 7919 + 13) % 251));
  ASSERT_TRUE(WriteStringToFile(garbage, noise).ok());
  s = ReadGraphDef(garbage, &g);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace graphrt

namespace graphrt {
namespace {

TEST(SessionTest, CallableOnDeviceOverridesRequestedDevices) {
  SessionConfig config;
  config.device_count["CPU"] = 2;
  std::unique_ptr<Session> session = AffineSession(config);
  CallableOptions options;
  options.add_feed("x:0");
  options.add_fetch("z:0");
  Session::CallableHandle on_cpu1;
  PlacementReport report;
  ASSERT_TRUE(session->MakeCallableOnDevice(options, "/device:CPU:1", &on_cpu1, &report).ok());
  ASSERT_NE(report.Find("y"), nullptr);
  EXPECT_EQ(report.Find("y")->assigned, "/job:localhost/replica:0/task:0/device:CPU:1");
  // A GPU this session lacks: soft placement keeps the nodes on a CPU, saying why.
  Session::CallableHandle on_gpu;
  PlacementReport gpu_report;
  ASSERT_TRUE(session->MakeCallableOnDevice(options, "/device:GPU:0", &on_gpu, &gpu_report).ok());
  EXPECT_NE(gpu_report.Find("y")->reason.find("soft placement"), std::string::npos);
  std::vector<Tensor> out;
  for (auto handle : {on_cpu1, on_gpu}) {
    RunMetadata metadata;
    ASSERT_TRUE(session->RunCallable(handle, {Matrix({1, 1}, 1, 2)}, &out, nullptr).ok());
    EXPECT_EQ(out[0].data<float>()[0], -5.0f);
  }
  EXPECT_EQ(session->MakeCallableOnDevice(options, "not a device", &on_gpu, nullptr).code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace graphrt
