// Checkpoints other people's TensorFlow wrote (../shared/testdata/real), read by BundleReader and
// compared with what TensorFlow 2.15 read from them (tests/fixtures/gen_checkpoints.py).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "formats/npy.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/bundle_test_util.h"
#include "formats/tensor_bundle/checkpoint_state.h"
#include "formats/tensor_bundle/crc32c.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

using bundle_testing::DiffTensors;
using testing::SharedDir;

std::string FixtureDir() {
  return std::string(GRAPHRT_SOURCE_DIR) + "/tests/fixtures/checkpoints/real";
}

nlohmann::json LoadManifest() {
  std::ifstream in(FixtureDir() + "/manifest.json");
  EXPECT_TRUE(in.good()) << FixtureDir() << "/manifest.json";
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

std::string SharedPath(const std::string& spec) {
  EXPECT_EQ(spec.rfind("shared:", 0), 0u) << spec;
  return SharedDir() + "/" + spec.substr(7);
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

#define SKIP_WITHOUT_SHARED() GRT_REQUIRE_SHARED_OR_SKIP()

TEST(RealCheckpointsTest, EveryTensorMatchesTensorFlow) {
  SKIP_WITHOUT_SHARED();
  const nlohmann::json manifest = LoadManifest();
  ASSERT_FALSE(manifest.is_discarded());
  int checked = 0, checkpoints = 0;
  for (const auto& ckpt : manifest["checkpoints"]) {
    SCOPED_TRACE(ckpt["name"].get<std::string>());
    const std::string prefix = SharedPath(ckpt["prefix"]);
    for (bool mmap : {true, false}) {
      auto reader = BundleReader::Open(prefix, {mmap});
      ASSERT_TRUE(reader.ok()) << reader.status();
      std::vector<std::string> keys;
      bool any_missing = false;
      for (const auto& t : ckpt["tensors"]) {
        const std::string key = t["key"];
        keys.push_back(key);
        SCOPED_TRACE(key);
        StatusOr<::tensorflow::BundleEntryProto> entry = (*reader)->Entry(key);
        ASSERT_TRUE(entry.ok()) << entry.status();
        DataType dtype;
        ASSERT_TRUE(DataTypeFromString(t["dtype"], &dtype)) << t["dtype"];
        EXPECT_EQ(entry->dtype(), dtype);
        const std::vector<int64_t> shape = t["shape"];
        EXPECT_EQ(*TensorShape::FromProto(entry->shape()), TensorShape(shape));

        StatusOr<Tensor> got = (*reader)->Read(key);
        if (t.contains("error")) {
          any_missing = true;
          EXPECT_EQ(got.status().code(), Code::kNotFound) << got.status();
          EXPECT_NE(got.status().message().find(t["missing_file"].get<std::string>()),
                    std::string::npos)
              << got.status();
          continue;
        }
        ASSERT_TRUE(got.ok()) << got.status();
        ++checked;
        if (t.contains("npy")) {
          const std::string npy = FixtureDir() + "/" + t["npy"].get<std::string>();
          StatusOr<Tensor> want =
              t.value("bf16", false) ? ReadNpy(npy, ::tensorflow::DT_BFLOAT16) : ReadNpy(npy);
          ASSERT_TRUE(want.ok()) << want.status();
          EXPECT_EQ(DiffTensors(*got, *want), "");
        } else if (t.contains("hex")) {
          ASSERT_EQ(got->dtype(), ::tensorflow::DT_STRING);
          ASSERT_EQ(static_cast<size_t>(got->NumElements()), t["hex"].size());
          for (size_t i = 0; i < t["hex"].size(); ++i) {
            EXPECT_EQ(got->data<std::string>()[i], Unhex(t["hex"][i])) << "element " << i;
          }
        } else {
          ASSERT_TRUE(t.contains("crc32c"));
          EXPECT_EQ(crc32c::Value(static_cast<const char*>(got->raw_data()), got->TotalBytes()),
                    t["crc32c"].get<uint32_t>());
          double sum = 0;
          for (int64_t i = 0; i < got->NumElements(); ++i) sum += std::stod(got->ElementString(i));
          EXPECT_NEAR(sum, t["sum"].get<double>(), 1e-6 * t["sum_abs"].get<double>());
        }
      }
      EXPECT_EQ((*reader)->Keys(), keys);
      std::string failing;
      Status verify = (*reader)->VerifyAll(&failing);
      if (any_missing) {
        EXPECT_EQ(verify.code(), Code::kNotFound) << verify;
      } else {
        EXPECT_TRUE(verify.ok()) << verify << " (" << failing << ")";
      }
    }
    ++checkpoints;
  }
  EXPECT_EQ(checkpoints, 21);
  EXPECT_EQ(checked, 728);  // each of the 364 readable tensors, mapped and with pread
}

TEST(RealCheckpointsTest, SnappyCompressedIndex) {
  SKIP_WITHOUT_SHARED();
  const std::string prefix = SharedDir() +
                             "/testdata/real/tensorflow__serving/tensorflow_serving/servables/"
                             "tensorflow/testdata/saved_model_half_plus_two_cpu/00000123/"
                             "variables/variables";
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->index().num_compressed_blocks(), 1);
  StatusOr<Tensor> a = (*reader)->Read("a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->scalar<float>(), 0.5f);
}

TEST(RealCheckpointsTest, TwoShardTensor2TensorCheckpoint) {
  SKIP_WITHOUT_SHARED();
  const std::string dir = SharedDir() +
                          "/testdata/real/tensorflow__tensor2tensor/tensor2tensor/test_data/"
                          "transformer_test_ckpt";
  StatusOr<std::string> latest = LatestCheckpoint(dir);
  ASSERT_TRUE(latest.ok()) << latest.status();
  auto reader = BundleReader::Open(*latest);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->num_shards(), 2);
  std::set<int> shards;
  for (const std::string& key : (*reader)->Keys()) {
    shards.insert((*reader)->Entry(key)->shard_id());
  }
  EXPECT_EQ(shards, (std::set<int>{0, 1}));
  StatusOr<Tensor> step = (*reader)->Read("global_step");
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_EQ(step->scalar<int64_t>(), 1);
}

TEST(RealCheckpointsTest, T5CheckpointNamesItsMissingShard) {
  SKIP_WITHOUT_SHARED();
  const std::string prefix = SharedDir() +
                             "/testdata/real/google-research__text-to-text-transfer-transformer/"
                             "t5/models/test_data/model.ckpt-0";
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  StatusOr<Tensor> k = (*reader)->Read("decoder/block_000/layer_000/SelfAttention/k");
  EXPECT_EQ(k.status().code(), Code::kNotFound);
  EXPECT_NE(k.status().message().find(prefix + ".data-00001-of-00002"), std::string::npos)
      << k.status();
  EXPECT_EQ((*reader)->Entry("decoder/block_000/layer_000/SelfAttention/k")->dtype(),
            ::tensorflow::DT_BFLOAT16);
  std::string failing;
  EXPECT_EQ((*reader)->VerifyAll(&failing).code(), Code::kNotFound);
  EXPECT_FALSE(failing.empty());
}

TEST(RealCheckpointsTest, V1CheckpointIsUnimplemented) {
  SKIP_WITHOUT_SHARED();
  const nlohmann::json manifest = LoadManifest();
  int checked = 0;
  for (const auto& v1 : manifest["v1"]) {
    ++checked;
    const std::string prefix = SharedPath(v1["prefix"]);
    StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
    EXPECT_EQ(reader.status().code(), Code::kUnimplemented) << reader.status();
    EXPECT_NE(reader.status().message().find("V1 checkpoint (SavedTensorSlices)"),
              std::string::npos);
    EXPECT_NE(reader.status().message().find(prefix), std::string::npos);
    // The directory's `checkpoint` file names the same V1 checkpoint (by an absolute path
    // from the machine that saved it).
    const std::string dir = prefix.substr(0, prefix.rfind('/'));
    StatusOr<std::string> latest = LatestCheckpoint(dir);
    ASSERT_TRUE(latest.ok()) << latest.status();
    EXPECT_EQ(BundleReader::Open(*latest).status().code(), Code::kUnimplemented);
  }
  EXPECT_EQ(checked, 1);
}

}  // namespace
}  // namespace graphrt
