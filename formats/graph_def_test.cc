#include "formats/graph_def.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/tensor_bundle/bundle_test_util.h"

namespace graphrt {
namespace {

using bundle_testing::ListDir;
using bundle_testing::ReadAll;
using bundle_testing::TempDir;
using bundle_testing::WriteAll;

// A graph of `nodes` Const nodes, big enough to need several write() calls when `nodes` is large.
GraphDef ConstGraph(int nodes) {
  GraphDef graph;
  for (int i = 0; i < nodes; ++i) {
    ::tensorflow::NodeDef* node = graph.add_node();
    node->set_name(StrCat("const_", i));
    node->set_op("Const");
    node->set_device("/device:CPU:0");
  }
  return graph;
}

TEST(WriteBinaryOrTextProtoTest, WritesBinaryOrTextByExtensionAndReadsBack) {
  TempDir tmp;
  const GraphDef graph = ConstGraph(3);
  ASSERT_TRUE(WriteGraphDef(tmp.Join("g.pb"), graph).ok());
  ASSERT_TRUE(WriteGraphDef(tmp.Join("g.pbtxt"), graph).ok());
  WriteProtoOptions text;
  text.text = true;
  ASSERT_TRUE(WriteBinaryOrTextProto(tmp.Join("g.txt"), graph, text).ok());

  EXPECT_EQ(ReadAll(tmp.Join("g.pb")), graph.SerializeAsString());
  EXPECT_NE(ReadAll(tmp.Join("g.pbtxt")).find("name: \"const_2\""), std::string::npos);
  EXPECT_EQ(ReadAll(tmp.Join("g.txt")), ReadAll(tmp.Join("g.pbtxt")));
  for (const char* name : {"g.pb", "g.pbtxt", "g.txt"}) {
    GraphDef back;
    ASSERT_TRUE(ReadGraphDef(tmp.Join(name), &back).ok()) << name;
    EXPECT_EQ(back.SerializeAsString(), graph.SerializeAsString()) << name;
  }
  EXPECT_EQ(ListDir(tmp.path()), (std::vector<std::string>{"g.pb", "g.pbtxt", "g.txt"}));
}

TEST(WriteBinaryOrTextProtoTest, ReplacesAnExistingFileOnlyWhenAllowed) {
  TempDir tmp;
  const std::string path = tmp.Join("g.pb");
  ASSERT_TRUE(WriteAll(path, "old"));
  WriteProtoOptions keep;
  keep.overwrite = false;
  Status s = WriteBinaryOrTextProto(path, ConstGraph(1), keep);
  EXPECT_EQ(s.code(), Code::kAlreadyExists) << s;
  EXPECT_EQ(s.message(), StrCat("output exists: ", path));
  EXPECT_EQ(ReadAll(path), "old");

  ASSERT_TRUE(WriteBinaryOrTextProto(path, ConstGraph(1)).ok());
  EXPECT_EQ(ReadAll(path), ConstGraph(1).SerializeAsString());
  EXPECT_EQ(ListDir(tmp.path()), std::vector<std::string>{"g.pb"});
}

// A write that fails part-way (here: the file size limit, as on a full disk) leaves the old file
// and no temporary file. The limit is set in a child process so that it cannot touch other tests.
TEST(WriteBinaryOrTextProtoTest, FailedWriteLeavesTheOldFileAndNoTemporary) {
  TempDir tmp;
  const std::string path = tmp.Join("g.pb");
  const GraphDef graph = ConstGraph(10000);
  ASSERT_GT(graph.ByteSizeLong(), 100000u);
  ASSERT_TRUE(WriteAll(path, "old"));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {65536, 65536};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(3);
    const Status s = WriteBinaryOrTextProto(path, graph);
    const bool named = s.message().find("cannot write " + path) != std::string::npos;
    ::_exit(s.code() == Code::kResourceExhausted && named ? 0 : s.ok() ? 1 : 2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the write succeeded, 2: another error, 3: no limit";
  EXPECT_EQ(ReadAll(path), "old");
  EXPECT_EQ(ListDir(tmp.path()), std::vector<std::string>{"g.pb"});
}

TEST(WriteBinaryOrTextProtoTest, MissingFolderIsAnErrorNamingThePath) {
  TempDir tmp;
  const std::string path = tmp.Join("no/such/folder/g.pb");
  Status s = WriteGraphDef(path, ConstGraph(1));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(path), std::string::npos) << s;
  EXPECT_TRUE(ListDir(tmp.path()).empty());
}

// A binary graph is parsed as it is read, through a 1 MiB buffer: values larger than the buffer
// and values that straddle its edges read back whole, and a truncated file is still DATA_LOSS.
TEST(ReadGraphDefTest, BinaryGraphLargerThanTheReadBufferReadsBack) {
  TempDir tmp;
  GraphDef graph = ConstGraph(3);
  for (int i = 0; i < 3; ++i) {
    std::string bytes(static_cast<size_t>(700000 * (i + 1)), '\0');
    for (size_t j = 0; j < bytes.size(); ++j) bytes[j] = static_cast<char>(j * 7 + i);
    (*graph.mutable_node(i)->mutable_attr())["value"].mutable_tensor()->set_tensor_content(bytes);
  }
  const std::string serialized = graph.SerializeAsString();
  ASSERT_TRUE(WriteGraphDef(tmp.Join("g.pb"), graph).ok());
  GraphDef back;
  Status s = ReadGraphDef(tmp.Join("g.pb"), &back);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(back.SerializeAsString(), serialized);

  ASSERT_TRUE(WriteAll(tmp.Join("cut.pb"), serialized.substr(0, serialized.size() - 1000)));
  s = ReadGraphDef(tmp.Join("cut.pb"), &back);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s;
  EXPECT_EQ(back.node_size(), 0);
}

}  // namespace
}  // namespace graphrt
