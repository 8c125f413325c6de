// Control flow through the Session: v1 conditionals and while loops built by hand as TensorFlow
// lays them out (tf.cond / tf.while_loop), deadlines, and malformed frame structures.
#include "runtime/exec/executor.h"

#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include "runtime/session/session.h"

namespace graphrt {
namespace {

GraphDef ParseGraph(const std::string& text) {
  GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g));
  return g;
}

std::unique_ptr<Session> MakeSession(const GraphDef& g, SessionConfig config = SessionConfig()) {
  SessionOptions options;
  options.config = config;
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(options, &session).ok());
  Status s = session->Create(g);
  EXPECT_TRUE(s.ok()) << s;
  return session;
}

constexpr char kCond[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "sw" op: "Switch" input: "x" input: "p" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "t_id" op: "Identity" input: "sw:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "two" op: "Const" input: "^t_id"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "t" op: "Mul" input: "t_id" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "f" op: "Neg" input: "sw:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m" op: "Merge" input: "f" input: "t"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
)";

TEST(ExecutorTest, CondTakesEachBranch) {
  std::unique_ptr<Session> session = MakeSession(ParseGraph(kCond));
  for (bool pred : {true, false}) {
    std::vector<Tensor> out;
    Status s = session->Run({{"x", Tensor::Scalar<float>(3.0f)}, {"p", Tensor::Scalar<bool>(pred)}},
                            {"m:0", "m:1"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].scalar<float>(), pred ? 6.0f : -3.0f);
    EXPECT_EQ(out[1].scalar<int32_t>(), pred ? 1 : 0);
  }
}

TEST(ExecutorTest, FetchOnUntakenBranchIsAnError) {
  std::unique_ptr<Session> session = MakeSession(ParseGraph(kCond));
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Scalar<float>(3.0f)}, {"p", Tensor::Scalar<bool>(false)}},
                          {"t:0"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("t:0"), std::string::npos) << s;
}

// i = 0; while i < n: i += 1 (+ acc += i), with loop invariants n and step entered as constants.
std::string WhileLoop(int parallel_iterations, const std::string& frame = "w") {
  return R"(
node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "enter_i" op: "Enter" input: "zero" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: ")" +
         frame + R"(" } }
       attr { key: "parallel_iterations" value { i: )" +
         std::to_string(parallel_iterations) + R"( } } }
node { name: "enter_acc" op: "Enter" input: "zero" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: ")" +
         frame + R"(" } }
       attr { key: "parallel_iterations" value { i: )" +
         std::to_string(parallel_iterations) + R"( } } }
node { name: "enter_n" op: "Enter" input: "n" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: ")" +
         frame + R"(" } }
       attr { key: "is_constant" value { b: true } } }
node { name: "enter_one" op: "Enter" input: "one" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: ")" +
         frame + R"(" } }
       attr { key: "is_constant" value { b: true } } }
node { name: "merge_i" op: "Merge" input: "enter_i" input: "next_i"
       attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
node { name: "merge_acc" op: "Merge" input: "enter_acc" input: "next_acc"
       attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
node { name: "less" op: "Less" input: "merge_i" input: "enter_n" attr { key: "T" value { type: DT_INT32 } } }
node { name: "cond" op: "LoopCond" input: "less" }
node { name: "sw_i" op: "Switch" input: "merge_i" input: "cond" attr { key: "T" value { type: DT_INT32 } } }
node { name: "sw_acc" op: "Switch" input: "merge_acc" input: "cond" attr { key: "T" value { type: DT_INT32 } } }
node { name: "body_i" op: "Identity" input: "sw_i:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "body_acc" op: "Identity" input: "sw_acc:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "inc" op: "AddV2" input: "body_i" input: "enter_one" attr { key: "T" value { type: DT_INT32 } } }
node { name: "add_acc" op: "AddV2" input: "body_acc" input: "inc" attr { key: "T" value { type: DT_INT32 } } }
node { name: "next_i" op: "NextIteration" input: "inc" attr { key: "T" value { type: DT_INT32 } } }
node { name: "next_acc" op: "NextIteration" input: "add_acc" attr { key: "T" value { type: DT_INT32 } } }
node { name: "exit_i" op: "Exit" input: "sw_i" attr { key: "T" value { type: DT_INT32 } } }
node { name: "exit_acc" op: "Exit" input: "sw_acc" attr { key: "T" value { type: DT_INT32 } } }
)";
}

TEST(ExecutorTest, WhileLoopCountsAndAccumulates) {
  for (int parallel : {1, 10}) {
    for (int inter : {1, 2}) {
      SessionConfig config;
      config.inter_op_parallelism_threads = inter;
      std::unique_ptr<Session> session = MakeSession(ParseGraph(WhileLoop(parallel)), config);
      for (int n : {0, 1, 10, 1000}) {
        std::vector<Tensor> out;
        Status s =
            session->Run({{"n", Tensor::Scalar<int32_t>(n)}}, {"exit_i", "exit_acc"}, {}, &out);
        ASSERT_TRUE(s.ok()) << s;
        EXPECT_EQ(out[0].scalar<int32_t>(), n);
        EXPECT_EQ(out[1].scalar<int32_t>(), n * (n + 1) / 2) << "n=" << n;
      }
    }
  }
}

TEST(ExecutorTest, OperationTimeoutStopsEndlessLoop) {
  // Two billion iterations: far longer than the deadline.
  SessionConfig config;
  config.operation_timeout_in_ms = 200;
  std::unique_ptr<Session> session = MakeSession(ParseGraph(WhileLoop(10)), config);
  std::vector<Tensor> out;
  Status s = session->Run({{"n", Tensor::Scalar<int32_t>(2000000000)}}, {"exit_i"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
}

TEST(ExecutorTest, RunOptionsTimeoutStopsEndlessLoop) {
  std::unique_ptr<Session> session = MakeSession(ParseGraph(WhileLoop(1)));
  RunOptions options;
  options.set_timeout_in_ms(100);
  std::vector<Tensor> out;
  Status s = session->Run(options, {{"n", Tensor::Scalar<int32_t>(2000000000)}}, {"exit_i"}, {},
                          &out, nullptr);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
}

TEST(ExecutorTest, ExitWithoutEnterIsInvalid) {
  GraphDef g = ParseGraph(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "bad_exit" op: "Exit" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)");
  std::unique_ptr<Session> session = MakeSession(g);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"bad_exit"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("bad_exit"), std::string::npos) << s;
}

TEST(ExecutorTest, MismatchedFramesAreInvalid) {
  // `mix` takes one input from inside frame "a" and one from the root frame.
  GraphDef g = ParseGraph(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "e" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "frame_name" value { s: "a" } } }
node { name: "mix" op: "AddV2" input: "e" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Exit" input: "mix" attr { key: "T" value { type: DT_FLOAT } } }
)");
  std::unique_ptr<Session> session = MakeSession(g);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"out"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("mix"), std::string::npos) << s;
}

TEST(ExecutorTest, CycleWithoutNextIterationIsInvalid) {
  GraphDef g = ParseGraph(R"(
node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
)");
  std::unique_ptr<Session> session = MakeSession(g);
  std::vector<Tensor> out;
  Status s = session->Run({}, {"a"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
}

TEST(ExecutorTest, TraceRecordsStepStats) {
  std::unique_ptr<Session> session = MakeSession(ParseGraph(kCond));
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  Status s =
      session->Run(options, {{"x", Tensor::Scalar<float>(3.0f)}, {"p", Tensor::Scalar<bool>(true)}},
                   {"m:0"}, {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(metadata.step_stats().dev_stats_size(), 1);
  bool saw_mul = false;
  for (const auto& ns : metadata.step_stats().dev_stats(0).node_stats()) {
    saw_mul |= ns.node_name() == "t";
  }
  EXPECT_TRUE(saw_mul);
}

}  // namespace
}  // namespace graphrt
