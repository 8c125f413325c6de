// graphrt migrate / migrate-graph / freeze on real checkpoints and graphs: the TPU-style fixture
// from tests/fixtures/gen_tpu.py (TensorFlow restored the migrated checkpoint and checked the
// predictions when it was generated), the tensor2tensor and T5 checkpoints in ../shared, and
// faults (a killed process, a full disk, a failed write, colliding renames, rules that match
// nothing): no output prefix is left half-written and the input is never changed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "migrate/dtype_cast.h"
#include "runtime/core/str_util.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

std::string TpuDir() { return testing::SourceDir() + "/tests/fixtures/tpu"; }
std::string T2tPrefix() {
  return testing::SharedDir() +
         "/testdata/real/tensorflow__tensor2tensor/tensor2tensor/test_data/transformer_test_ckpt/"
         "model.ckpt-1";
}
std::string T5Prefix() {
  return testing::SharedDir() +
         "/testdata/real/google-research__text-to-text-transfer-transformer/t5/models/test_data/"
         "model.ckpt-0";
}

std::string FreshDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/migrate_" + name;
  const std::string cmd = StrCat("rm -rf ", dir, " && mkdir -p ", dir);
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

// Every file in `dir` (hidden ones included) -> its bytes.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  FILE* pipe = popen(StrCat("ls -A ", dir).c_str(), "r");
  std::array<char, 4096> buf;
  std::string names;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) names.append(buf.data(), n);
  pclose(pipe);
  for (const std::string& name : StrSplit(names, '\n', /*skip_empty=*/true)) {
    StatusOr<std::string> bytes = ReadFileToString(dir + "/" + name);
    files[name] = bytes.ok() ? *bytes : "<directory>";
  }
  return files;
}

nlohmann::json Expected() {
  StatusOr<std::string> text = ReadFileToString(TpuDir() + "/expected.json");
  EXPECT_TRUE(text.ok()) << text.status();
  return nlohmann::json::parse(text.ok() ? *text : "{}");
}

std::string Flags(const nlohmann::json& list) {
  std::string out;
  for (const auto& f : list) out += " " + f.get<std::string>();
  return out;
}

// "[[a,b,c,d],[...]]" for --input, rows of `row` values.
std::string InlineMatrix(const std::vector<float>& values, size_t row) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    char number[32];
    std::snprintf(number, sizeof(number), "%.9g", values[i]);  // reads back exactly
    text += (i % row == 0 ? (i ? "],[" : "[") : ",") + std::string(number);
  }
  return text + "]]";
}

// A copy of the TPU fixture's source checkpoint in a writable folder.
std::string CopyTpuCheckpoint(const std::string& dir) {
  const std::string cmd =
      StrCat("cp ", TpuDir(), "/tpu_model.ckpt-1234.* ", TpuDir(), "/assignment_map.json ", dir);
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir + "/tpu_model.ckpt-1234";
}

TEST(MigrateTpuFixture, CheckpointMatchesWhatTensorFlowRestored) {
  const nlohmann::json expected = Expected();
  const std::string out = FreshDir("tpu_ckpt");
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("migrate ", expected["source"].get<std::string>(), " ", out,
                                 "/model.ckpt", Flags(expected["migrate_flags"])),
                          "", TpuDir());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // Byte for byte what TensorFlow restored at generation time.
  for (const char* file : {"model.ckpt.index", "model.ckpt.data-00000-of-00001"}) {
    StatusOr<std::string> got = ReadFileToString(out + "/" + file);
    StatusOr<std::string> want = ReadFileToString(TpuDir() + "/migrated/" + file);
    ASSERT_TRUE(got.ok() && want.ok()) << file;
    EXPECT_TRUE(*got == *want) << file << " differs from the committed migration";
  }
  // And the values TensorFlow's CPU model held after Saver.restore.
  StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(out + "/model.ckpt");
  ASSERT_TRUE(reader.ok()) << reader.status();
  const auto& variables = expected["cpu_variables"];
  EXPECT_EQ(variables.size(), 5u);  // what gen_tpu.py recorded
  EXPECT_EQ((*reader)->Keys().size(), variables.size());
  for (auto it = variables.begin(); it != variables.end(); ++it) {
    StatusOr<Tensor> t = (*reader)->Read(it.key());
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_EQ(t->dtype(), ::tensorflow::DT_FLOAT) << it.key();
    const std::vector<float> want = it.value().get<std::vector<float>>();
    ASSERT_EQ(t->NumElements(), static_cast<int64_t>(want.size())) << it.key();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t->data<float>()[i], want[i]) << it.key();
  }
  // The report lists every change: slots, global_step and replaced variables dropped.
  EXPECT_NE(r.out.find("(optimizer slot)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(global_step)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replaced by its EMA shadow"), std::string::npos) << r.out;
}

TEST(MigrateTpuFixture, MigratedGraphRunsWithTheOriginalPredictions) {
  const nlohmann::json expected = Expected();
  const std::string out = FreshDir("tpu_graph");
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("migrate ", expected["source"].get<std::string>(), " ", out,
                                 "/model.ckpt", Flags(expected["migrate_flags"])),
                          "", TpuDir());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string pred = expected["tpu_prediction_tensor"].get<std::string>();
  r = testing::RunGraphrt(
      StrCat("migrate-graph ", expected["source"].get<std::string>(), ".meta ", out,
             "/graph.pbtxt --json", Flags(expected["migrate_graph_flags"])),
      "", TpuDir());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json report = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  const auto placeholders = report["placeholders"].get<std::vector<std::string>>();
  ASSERT_EQ(placeholders.size(), 2u) << r.out;

  GraphDef graph;
  ASSERT_TRUE(ReadGraphDef(out + "/graph.pbtxt", &graph).ok());
  for (const auto& node : graph.node()) {
    EXPECT_EQ(node.op().rfind("TPU", 0), std::string::npos) << node.name();
    EXPECT_EQ(node.op().find("Iterator"), std::string::npos) << node.name();
    EXPECT_EQ(node.op().find("Adam"), std::string::npos) << node.name();
    EXPECT_EQ(node.device().find("TPU"), std::string::npos) << node.name();
    EXPECT_EQ(node.attr().count("_tpu_replicate"), 0u) << node.name();
    EXPECT_NE(node.name().rfind("tpu_cluster/", 0), 0u) << node.name();
  }

  r = testing::RunGraphrt(StrCat("freeze ", out, "/graph.pbtxt --checkpoint ", out,
                                 "/model.ckpt --output ", pred, " -o ", out, "/frozen.pb"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string x_text = InlineMatrix(expected["x"].get<std::vector<float>>(), 4);
  std::string ids_text = "[";
  for (int id : expected["ids"]) ids_text += StrCat(ids_text.size() > 1 ? "," : "", id);
  ids_text += "]";
  r = testing::RunGraphrt(StrCat("run ", out, "/frozen.pb --input ", placeholders[0], "='", x_text,
                                 "' --input ", placeholders[1], "='", ids_text, "' --output ", pred,
                                 " --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto want = expected["original_predictions"].get<std::vector<float>>();
  auto check = [&](const std::string& json, const std::string& what) {
    const nlohmann::json run = nlohmann::json::parse(json);
    const auto got = run["outputs"][0]["values"].get<std::vector<float>>();
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-5 * std::fabs(want[i])) << what << " " << i;
    }
  };
  check(r.out, "frozen graph");

  // The same graph as a .meta with a Saver, run with the migrated checkpoint restored into it
  // (its variables sit on the 8 hosts' CPU devices: soft placement brings them to CPU:0).
  r = testing::RunGraphrt(StrCat("migrate-graph ", expected["source"].get<std::string>(), ".meta ",
                                 out, "/cpu.meta", Flags(expected["migrate_graph_flags"])),
                          "", TpuDir());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = testing::RunGraphrt(StrCat("run ", out, "/cpu.meta --checkpoint ", out,
                                 "/model.ckpt --soft-placement --input ", placeholders[0], "='",
                                 x_text, "' --input ", placeholders[1], "='", ids_text,
                                 "' --output ", pred, " --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  check(r.out, ".meta and checkpoint");
}

TEST(MigrateTpuFixture, InfeedOutfeedAndPartitionedCallAreStripped) {
  const nlohmann::json expected = Expected();
  const nlohmann::json& inference = expected["inference"];
  const std::string out = FreshDir("tpu_inference");
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("migrate-graph ", inference["graph"].get<std::string>(), " ", out,
                                 "/cpu.pb", Flags(inference["flags"])),
                          "", TpuDir());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("InfeedDequeueTuple InfeedDequeueTuple -> 1 placeholders"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("TPUPartitionedCall TPUPartitionedCall -> PartitionedCall"),
            std::string::npos)
      << r.out;
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDef(out + "/cpu.pb", &graph).ok());
  for (const auto& node : graph.node()) {
    EXPECT_EQ(node.op().find("TPU"), std::string::npos) << node.name();
    EXPECT_EQ(node.op().find("feed"), std::string::npos) << node.name();
    EXPECT_EQ(node.device().find("tpu_worker"), std::string::npos) << node.name();
  }
  // The TPU rewrite inside the called function is stripped too.
  ASSERT_EQ(graph.library().function_size(), 1);
  for (const auto& node : graph.library().function(0).node_def()) {
    EXPECT_EQ(node.op().find("TPU"), std::string::npos) << node.name();
    EXPECT_EQ(node.attr().count("_tpu_replicate"), 0u) << node.name();
  }
  const std::string x = InlineMatrix(expected["x"].get<std::vector<float>>(), 4);
  r = testing::RunGraphrt(
      StrCat("run ", out, "/cpu.pb --input ", inference["placeholders"][0].get<std::string>(), "='",
             x, "' --input host_x='", x, "' --output result --output call_result --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json run = nlohmann::json::parse(r.out);
  for (int k = 0; k < 2; ++k) {
    const std::string name = k == 0 ? "result" : "call_result";
    const auto got = run["outputs"][k]["values"].get<std::vector<float>>();
    const auto want = inference[name].get<std::vector<float>>();
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-5 * std::fabs(want[i]) + 1e-6) << name << " " << i;
    }
  }
}

TEST(MigrateTpuFixture, FrozenResourceLookupGivesTensorFlowsValues) {
  const nlohmann::json expected = Expected();
  const nlohmann::json& lookup = expected["lookup"];
  const std::string out = FreshDir("lookup");
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("freeze ", lookup["graph"].get<std::string>(), " --checkpoint ",
                                 lookup["checkpoint"].get<std::string>(), " --output ",
                                 lookup["output"].get<std::string>(), " -o ", out, "/frozen.pb"),
                          "", TpuDir());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string ids = "[";
  for (int id : expected["ids"]) ids += StrCat(ids.size() > 1 ? "," : "", id);
  r = testing::RunGraphrt(StrCat("run ", out, "/frozen.pb --input lookup_ids='", ids,
                                 "]' --output ", lookup["output"].get<std::string>(), " --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto got = nlohmann::json::parse(r.out)["outputs"][0]["values"].get<std::vector<float>>();
  EXPECT_EQ(got, lookup["values"].get<std::vector<float>>());
}

TEST(MigrateCasts, MatchTensorFlowBitForBit) {
  const nlohmann::json expected = Expected();
  const nlohmann::json& casts = expected["casts"];
  const auto bits = casts["float32_bits"].get<std::vector<uint32_t>>();
  Tensor f32(::tensorflow::DT_FLOAT, TensorShape({static_cast<int64_t>(bits.size())}));
  std::memcpy(f32.raw_data(), bits.data(), 4 * bits.size());
  for (const auto& [dtype, key, back_key] :
       {std::tuple{::tensorflow::DT_BFLOAT16, "bfloat16_bits", "bfloat16_to_float32_bits"},
        std::tuple{::tensorflow::DT_HALF, "float16_bits", "float16_to_float32_bits"}}) {
    StatusOr<Tensor> narrow = migrate::CastTensor(f32, dtype);
    ASSERT_TRUE(narrow.ok()) << narrow.status();
    const auto want = casts[key].get<std::vector<uint16_t>>();
    ASSERT_EQ(want.size(), bits.size());
    const uint16_t* got = static_cast<const uint16_t*>(narrow->raw_data());
    for (size_t i = 0; i < bits.size(); ++i) {
      // NaN payloads may differ; NaN must stay NaN.
      if ((bits[i] & 0x7fffffff) > 0x7f800000) {
        const uint16_t inf = dtype == ::tensorflow::DT_BFLOAT16 ? 0x7f80 : 0x7c00;
        EXPECT_GT(got[i] & 0x7fff, inf) << key << ": NaN must stay NaN";
        continue;
      }
      EXPECT_EQ(got[i], want[i]) << key << " of float bits 0x" << std::hex << bits[i];
    }
    StatusOr<Tensor> wide = migrate::CastTensor(*narrow, ::tensorflow::DT_FLOAT);
    ASSERT_TRUE(wide.ok());
    const auto want_back = casts[back_key].get<std::vector<uint32_t>>();
    const uint32_t* back = static_cast<const uint32_t*>(wide->raw_data());
    for (size_t i = 0; i < bits.size(); ++i) {
      if ((bits[i] & 0x7fffffff) > 0x7f800000) continue;
      EXPECT_EQ(back[i], want_back[i]) << back_key << " 0x" << std::hex << want[i];
    }
  }
}

TEST(MigrateRealCheckpoints, Tensor2TensorMergedToOneShardAndSplitIntoThree) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  const std::string out = FreshDir("t2t");
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("migrate ", T2tPrefix(), " ", out, "/one --shards 1"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = testing::RunGraphrt(StrCat("migrate ", out, "/one ", out, "/three --shards 3 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(FileExists(out + "/one.data-00000-of-00001"));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(FileExists(StrCat(out, "/three.data-0000", i, "-of-00003"))) << i;
  }
  auto src = BundleReader::Open(T2tPrefix());
  auto one = BundleReader::Open(out + "/one");
  auto three = BundleReader::Open(out + "/three");
  ASSERT_TRUE(src.ok() && one.ok() && three.ok());
  EXPECT_EQ((*three)->num_shards(), 3);
  const std::vector<std::string> keys = (*src)->Keys();
  ASSERT_GT(keys.size(), 10u);
  EXPECT_EQ((*one)->Keys(), keys);
  EXPECT_EQ((*three)->Keys(), keys);
  std::set<int> shards_used;
  for (const std::string& key : keys) {
    StatusOr<Tensor> a = (*src)->Read(key);
    StatusOr<Tensor> b = (*one)->Read(key);
    StatusOr<Tensor> c = (*three)->Read(key);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << key;
    ASSERT_EQ(a->dtype(), c->dtype()) << key;
    ASSERT_EQ(a->shape(), c->shape()) << key;
    EXPECT_EQ(std::memcmp(a->raw_data(), b->raw_data(), a->TotalBytes()), 0) << key;
    EXPECT_EQ(std::memcmp(a->raw_data(), c->raw_data(), a->TotalBytes()), 0) << key;
    shards_used.insert((*three)->Entry(key)->shard_id());
  }
  EXPECT_EQ(shards_used.size(), 3u);
}

TEST(MigrateRealCheckpoints, OptimizerStateFoundInRealCheckpoints) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  // tensor2tensor: Adam under "training/", beta powers; T5 (Mesh TF): Adafactor *_slot_v*.
  for (const std::string& prefix : {T2tPrefix(), T5Prefix()}) {
    testing::CommandResult r = testing::RunGraphrt(
        StrCat("migrate ", prefix, " --dry-run --drop-optimizer-slots --drop-global-step --json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    int kept = 0, dropped = 0;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    for (const auto& t : report["plan"]["tensors"]) {
      const std::string name = t["source"];
      const bool state = name == "global_step" || name.find("/Adam") != std::string::npos ||
                         name.find("_power") != std::string::npos ||
                         name.find("_slot_") != std::string::npos;
      EXPECT_EQ(t["action"] == "drop", state) << name;
      (state ? dropped : kept)++;
    }
    EXPECT_GT(kept, 40) << prefix;
    EXPECT_GT(dropped, 40) << prefix;
  }
}

TEST(MigrateRealCheckpoints, T5DryRunPrintsThePlanAndARealRunNamesTheMissingShard) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  const std::string out = FreshDir("t5");
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("migrate ", T5Prefix(), " ", out, "/t5 --dry-run --cast bfloat16=float32 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json plan = nlohmann::json::parse(r.out)["plan"];
  int cast = 0;
  for (const auto& t : plan["tensors"]) {
    if (t["source_dtype"] == "bfloat16") {
      EXPECT_EQ(t["dtype"], "float") << t.dump();  // TensorFlow's dtype names
      EXPECT_NE(t["action"].get<std::string>().find("cast"), std::string::npos) << t.dump();
      int64_t elements = 1;
      for (int64_t d : t["shape"]) elements *= d;
      EXPECT_EQ(t["bytes"].get<int64_t>(), 4 * elements);
      ++cast;
    }
  }
  EXPECT_GT(cast, 10);
  EXPECT_TRUE(Snapshot(out).empty());

  r = testing::RunGraphrt(StrCat("migrate ", T5Prefix(), " --dry-run --cast bfloat16=float32"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("cast     decoder/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bfloat16->float"), std::string::npos) << r.out;

  r = testing::RunGraphrt(StrCat("migrate ", T5Prefix(), " ", out, "/t5 --cast bfloat16=float32"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("graphrt: error: NOT_FOUND: missing data file "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("model.ckpt-0.data-00001-of-00002"), std::string::npos) << r.out;
  EXPECT_TRUE(Snapshot(out).empty());
}

TEST(MigrateFaults, KilledPartWayLeavesNoOutputAndTheNextRunCleansUp) {
  const std::string dir = FreshDir("kill");
  const std::string src = CopyTpuCheckpoint(dir);
  const auto before = Snapshot(dir);
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("migrate ", src, " ", dir, "/out/model.ckpt --shards 2"),
                          "GRAPHRT_MIGRATE_FAULT=kill-after=5");
  EXPECT_EQ(r.exit_code, 128 + 9) << r.out;
  auto after = Snapshot(dir);
  after.erase("out");
  EXPECT_EQ(after, before);  // input untouched
  const auto left = Snapshot(dir + "/out");
  ASSERT_EQ(left.size(), 1u);  // only the hidden work folder
  EXPECT_EQ(left.begin()->first.rfind(".model.ckpt.migrate-", 0), 0u) << left.begin()->first;
  EXPECT_FALSE(FileExists(dir + "/out/model.ckpt.index"));

  r = testing::RunGraphrt(StrCat("migrate ", src, " ", dir, "/out/model.ckpt --shards 2"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto done = Snapshot(dir + "/out");
  EXPECT_EQ(done.size(), 3u);  // index + 2 data files; the stale folder is gone
  for (const auto& [name, bytes] : done) EXPECT_NE(name[0], '.') << name;
}

TEST(MigrateFaults, FullDiskAndFailedWriteLeaveNothing) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  const std::string dir = FreshDir("full");
  // A 64 KiB file size limit: the 1.6 MB data file cannot be written (EFBIG, not a signal).
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("migrate ", T2tPrefix(), " ", dir, "/out --shards 1"), "ulimit -f 128 &&");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("graphrt: error: UNKNOWN: cannot write"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("too large"), std::string::npos) << r.out;
  EXPECT_TRUE(Snapshot(dir).empty());

  const std::string src = CopyTpuCheckpoint(dir);
  const auto before = Snapshot(dir);
  r = testing::RunGraphrt(StrCat("migrate ", src, " ", dir, "/model.ckpt"),
                          "GRAPHRT_MIGRATE_FAULT=fail-after=3");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("injected write failure after 3 tensors"), std::string::npos) << r.out;
  EXPECT_EQ(Snapshot(dir), before);
}

TEST(MigrateFaults, CollidingRenamesAreFoundBeforeWriting) {
  const std::string dir = FreshDir("collide");
  const std::string src = CopyTpuCheckpoint(dir);
  const auto before = Snapshot(dir);
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("migrate ", src, " ", dir, "/model.ckpt --rename-regex '/Adam_1$=/Adam'"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("graphrt: error: INVALID_ARGUMENT: renames collide: tensors '"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("/Adam_1' both become '"), std::string::npos) << r.out;
  EXPECT_EQ(Snapshot(dir), before);
}

TEST(MigrateFaults, RuleMatchingNothingWarnsOrFailsUnderStrict) {
  const std::string dir = FreshDir("strict");
  const std::string src = CopyTpuCheckpoint(dir);
  const auto before = Snapshot(dir);
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("migrate ", src, " ", dir, "/a --rename nosuchscope/=x/ --strict"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("graphrt: error: INVALID_ARGUMENT: rule matches nothing: --rename "
                       "nosuchscope/=x/ (--strict)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Snapshot(dir), before);

  r = testing::RunGraphrt(
      StrCat("migrate ", src, " ", dir, "/a --rename nosuchscope/=x/ --drop '^zzz'"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("graphrt: warning: rule matches nothing: --rename nosuchscope/=x/"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("graphrt: warning: rule matches nothing: --drop ^zzz"), std::string::npos);
  EXPECT_TRUE(FileExists(dir + "/a.index"));

  // An existing output needs --force; the input can never be the output.
  r = testing::RunGraphrt(StrCat("migrate ", src, " ", dir, "/a"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("output checkpoint exists"), std::string::npos) << r.out;
  r = testing::RunGraphrt(StrCat("migrate ", src, " ", dir, "/a --force --shards 1"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_FALSE(FileExists(dir + "/a.data-00000-of-00008"));
  r = testing::RunGraphrt(StrCat("migrate ", src, " ", src, " --force"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is the input checkpoint"), std::string::npos) << r.out;
  auto after = Snapshot(dir);
  for (const auto& [name, bytes] : before) EXPECT_EQ(after[name], bytes) << name;
}

TEST(MigrateTpuFixture, RepartitionedTableAsTensorFlowRestoredIt) {
  const nlohmann::json expected = Expected();
  const std::string out = FreshDir("tpu_partition");
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("migrate ", expected["source"].get<std::string>(), " ", out, "/model.ckpt",
             Flags(expected["migrate_flags"]), Flags(expected["partition_flags"])),
      "", TpuDir());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto reader = BundleReader::Open(out + "/model.ckpt");
  ASSERT_TRUE(reader.ok()) << reader.status();
  const auto entry = (*reader)->Entry("model/embedding/tokens");
  ASSERT_TRUE(entry.ok()) << entry.status();
  ASSERT_EQ(entry->slices_size(), 2);
  EXPECT_EQ(entry->slices(0).extent(0).length(), 5);
  EXPECT_EQ(entry->slices(1).extent(0).start(), 5);
  StatusOr<Tensor> table = (*reader)->Read("model/embedding/tokens");
  ASSERT_TRUE(table.ok());
  const auto want = expected["cpu_variables"]["model/embedding/tokens"].get<std::vector<float>>();
  ASSERT_EQ(table->NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(table->data<float>()[i], want[i]) << i;
}

TEST(MigrateCheckpoint, RepartitionAndKeepSlices) {
  const std::string dir = FreshDir("partition");
  const std::string src = CopyTpuCheckpoint(dir);
  // Kept as stored: 4 slices; re-partitioned: 3 slices of 4, 3, 3 rows.
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("migrate ", src, " ", dir, "/kept --keep '^tpu_embedding/tbl_tokens$'"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = testing::RunGraphrt(
      StrCat("migrate ", src, " ", dir,
             "/three --keep '^tpu_embedding/tbl_tokens$' --partition tpu_embedding/tbl_tokens=3"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto orig = BundleReader::Open(src);
  auto kept = BundleReader::Open(dir + "/kept");
  auto three = BundleReader::Open(dir + "/three");
  ASSERT_TRUE(orig.ok() && kept.ok() && three.ok());
  EXPECT_EQ((*kept)->Keys(), std::vector<std::string>{"tpu_embedding/tbl_tokens"});
  EXPECT_EQ((*kept)->Entry("tpu_embedding/tbl_tokens")->slices_size(), 4);
  const auto entry = (*three)->Entry("tpu_embedding/tbl_tokens");
  ASSERT_EQ(entry->slices_size(), 3);
  EXPECT_EQ(entry->slices(0).extent(0).length(), 4);
  EXPECT_EQ(entry->slices(2).extent(0).start(), 7);
  StatusOr<Tensor> a = (*orig)->Read("tpu_embedding/tbl_tokens");
  StatusOr<Tensor> b = (*three)->Read("tpu_embedding/tbl_tokens");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(std::memcmp(a->raw_data(), b->raw_data(), a->TotalBytes()), 0);
}

}  // namespace
}  // namespace graphrt
