#include "formats/tensor_bundle/checkpoint_state.h"

#include <gtest/gtest.h>

#include "formats/tensor_bundle/bundle_test_util.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

using bundle_testing::TempDir;
using bundle_testing::WriteAll;

TEST(CheckpointStateTest, ReadsTensorFlowsTextAndWritesItBack) {
  TempDir tmp;
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"),
                       "model_checkpoint_path: \"model.ckpt-2000\"\n"
                       "all_model_checkpoint_paths: \"model.ckpt-1000\"\n"
                       "all_model_checkpoint_paths: \"model.ckpt-2000\"\n"
                       "all_model_checkpoint_timestamps: 1572390485.04\n"
                       "all_model_checkpoint_timestamps: 1572390561.77\n"
                       "last_preserved_timestamp: 1572390420.11\n"));
  StatusOr<::tensorflow::CheckpointState> state = ReadCheckpointState(tmp.path());
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->model_checkpoint_path(), "model.ckpt-2000");
  ASSERT_EQ(state->all_model_checkpoint_paths_size(), 2);
  EXPECT_DOUBLE_EQ(state->all_model_checkpoint_timestamps(1), 1572390561.77);

  ASSERT_TRUE(WriteCheckpointState(tmp.path(), *state, "copy").ok());
  StatusOr<::tensorflow::CheckpointState> back = ReadCheckpointState(tmp.path(), "copy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->SerializeAsString(), state->SerializeAsString());
  EXPECT_EQ(bundle_testing::ReadAll(tmp.Join("copy")).substr(0, 40),
            "model_checkpoint_path: \"model.ckpt-2000\"");
}

TEST(CheckpointStateTest, Errors) {
  TempDir tmp;
  EXPECT_EQ(ReadCheckpointState(tmp.path()).status().code(), Code::kNotFound);
  EXPECT_EQ(LatestCheckpoint(tmp.path()).status().code(), Code::kNotFound);
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"), "model_checkpoint_path: 12 {"));
  StatusOr<::tensorflow::CheckpointState> bad = ReadCheckpointState(tmp.path());
  EXPECT_EQ(bad.status().code(), Code::kDataLoss);
  EXPECT_NE(bad.status().message().find(tmp.Join("checkpoint")), std::string::npos);
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"), "all_model_checkpoint_paths: \"x\"\n"));
  EXPECT_EQ(LatestCheckpoint(tmp.path()).status().code(), Code::kNotFound);
}

TEST(CheckpointStateTest, LatestCheckpointResolvesPaths) {
  TempDir tmp;
  ASSERT_TRUE(WriteAll(tmp.Join("model.ckpt-7.index"), "x"));
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"), "model_checkpoint_path: \"model.ckpt-7\"\n"));
  EXPECT_EQ(*LatestCheckpoint(tmp.path()), tmp.Join("model.ckpt-7"));
  EXPECT_EQ(*LatestCheckpoint(tmp.path() + "/"), tmp.Join("model.ckpt-7"));
  // Absolute paths are used as they are...
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"),
                       "model_checkpoint_path: \"" + tmp.Join("model.ckpt-7") + "\"\n"));
  EXPECT_EQ(*LatestCheckpoint(tmp.path()), tmp.Join("model.ckpt-7"));
  // ...or, when the directory has moved, found by base name inside it.
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"),
                       "model_checkpoint_path: \"/gone/elsewhere/model.ckpt-7\"\n"));
  EXPECT_EQ(*LatestCheckpoint(tmp.path()), tmp.Join("model.ckpt-7"));
  // A checkpoint whose files are gone.
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"), "model_checkpoint_path: \"model.ckpt-8\"\n"));
  StatusOr<std::string> gone = LatestCheckpoint(tmp.path());
  EXPECT_EQ(gone.status().code(), Code::kNotFound);
  EXPECT_NE(gone.status().message().find(tmp.Join("model.ckpt-8.index")), std::string::npos);
  // A V1 checkpoint is a single file at the prefix.
  ASSERT_TRUE(WriteAll(tmp.Join("v1"), "x"));
  ASSERT_TRUE(WriteAll(tmp.Join("checkpoint"), "model_checkpoint_path: \"v1\"\n"));
  EXPECT_EQ(*LatestCheckpoint(tmp.path()), tmp.Join("v1"));
}

TEST(CheckpointStateTest, RealCheckpointFiles) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  const std::string shared = testing::SharedDir() + "/testdata/real";
  const std::string t2t =
      shared + "/tensorflow__tensor2tensor/tensor2tensor/test_data/transformer_test_ckpt";
  EXPECT_EQ(*LatestCheckpoint(t2t), t2t + "/model.ckpt-1");
  const std::string t5 =
      shared + "/google-research__text-to-text-transfer-transformer/t5/models/test_data";
  EXPECT_EQ(*LatestCheckpoint(t5), t5 + "/model.ckpt-0");
  // Saved as /tmp/bad_half_plus_two/00000123/export: found by base name.
  const std::string v1 = shared +
                         "/tensorflow__serving/tensorflow_serving/servables/tensorflow/testdata/"
                         "bad_half_plus_two/00000123";
  EXPECT_EQ(*LatestCheckpoint(v1), v1 + "/export");
  StatusOr<::tensorflow::CheckpointState> state = ReadCheckpointState(v1);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->all_model_checkpoint_paths(0), "/tmp/bad_half_plus_two/00000123/export");
}

}  // namespace
}  // namespace graphrt
