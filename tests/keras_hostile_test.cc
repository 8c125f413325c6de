// Hostile Keras input: the fuzz reproducers in ../shared/reliability (a .h5 that crashes libhdf5
// itself, a gzip decompression bomb) through the library and the command, and model configs
// missing keys or holding values of the wrong type or range, which must each give a Status
// naming the layer.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "formats/file_util.h"
#include "formats/keras/keras_h5_file.h"
#include "formats/keras/keras_h5_internal.h"
#include "runtime/core/str_util.h"
#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

// What ends the reader of h5crash.h5: libhdf5's SIGSEGV, or under AddressSanitizer its report
// of the overlapping memcpy in H5HG_read, which comes first (the sanitizer exits with status 1).
const char* Crashed() {
  return keras::internal::kAddressSanitizer
             ? "the HDF5 reader process exited with status 1 reading it"
             : "the HDF5 library crashed (signal 11, ";
}

std::string KerasDir() { return testing::SourceDir() + "/tests/fixtures/keras"; }

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The command's output is one "graphrt: error:" line naming the file, and nothing else.
void ExpectOneErrorLine(const testing::CommandResult& r, const std::string& path) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  std::vector<std::string> lines = StrSplit(r.out, '\n', true);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_TRUE(StartsWith(lines[0], "graphrt: error: ")) << r.out;
  EXPECT_TRUE(Contains(lines[0], path)) << r.out;
}

TEST(KerasHostile, FileThatCrashesHdf5IsDataLossWhenIsolated) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  const std::string path = testing::ReliabilityInput("h5crash.h5");
  StatusOr<keras::KerasH5File> f = keras::ReadKerasH5FileIsolated(path);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kDataLoss);
  EXPECT_TRUE(StartsWith(f.status().message(), StrCat(path, ": ", Crashed()))) << f.status();
  // The same through LoadKerasModel with the option.
  KerasModelOptions options;
  options.read_hdf5_in_subprocess = true;
  StatusOr<KerasModel> m = LoadKerasModel(path, options);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status(), f.status());
}

TEST(KerasHostile, FileThatCrashesHdf5FailsCleanlyInTheCommand) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  const std::string path = testing::ReliabilityInput("h5crash.h5");
  testing::CommandResult r = testing::RunGraphrt("inspect " + path);
  ExpectOneErrorLine(r, path);
  EXPECT_TRUE(Contains(r.out, path + ": the HDF5 ")) << r.out;

  const std::string out = ::testing::TempDir() + "/h5crash_saved_model";
  std::filesystem::remove_all(out);
  r = testing::RunGraphrt(StrCat("convert ", path, " ", out));
  ExpectOneErrorLine(r, path);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp-graphrt"));

  r = testing::RunGraphrt(StrCat("run ", path, " --input x=1 --output y"));
  ExpectOneErrorLine(r, path);

  // load-weights into a SavedModel made from a good file.
  const std::string model = ::testing::TempDir() + "/h5crash_base_model";
  std::filesystem::remove_all(model);
  r = testing::RunGraphrt(StrCat("convert ", KerasDir(), "/weights_only_weights.h5 ", model,
                                 " --keras-config ", KerasDir(), "/weights_only.json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = testing::RunGraphrt(StrCat("load-weights ", model, " ", path, " -o ", out));
  ExpectOneErrorLine(r, path);
  EXPECT_TRUE(Contains(r.out, path + ": the HDF5 ")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(KerasHostile, DecompressionBombIsRefusedBeforeAllocating) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  const std::string path = testing::ReliabilityInput("bomb1.h5");
  const std::string expected =
      StrCat("' in ", path, ":/dense_0 decompresses to ", int64_t{4} << 30, " bytes from ");
  // In-process: the checks alone stop it.
  StatusOr<keras::KerasH5File> f = keras::ReadKerasH5File(path);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(f.status().message(), expected)) << f.status();
  EXPECT_TRUE(Contains(f.status().message(), "100:1 KerasH5ReadOptions::max_compression_ratio"))
      << f.status();
  StatusOr<keras::KerasH5File> isolated = keras::ReadKerasH5FileIsolated(path);
  ASSERT_FALSE(isolated.ok());
  EXPECT_EQ(isolated.status(), f.status());
  // The cap stops it too, whatever the ratio.
  keras::KerasH5ReadOptions options;
  options.max_compression_ratio = int64_t{1} << 40;
  options.max_weight_bytes = int64_t{1} << 30;
  f = keras::ReadKerasH5File(path, options);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kResourceExhausted);
  EXPECT_TRUE(Contains(f.status().message(), "max_weight_bytes")) << f.status();

  // The command, in an address space of 2 GiB: an attempt to allocate the 4 GiB would fail
  // with a different message (or abort). A sanitizer's shadow memory needs terabytes of address
  // space, so there the command runs unlimited and the message alone shows the refusal.
#ifdef GRAPHRT_KERAS_SANITIZED
  const std::string limit = "";
#else
  const std::string limit = "ulimit -v 2097152 && ";
#endif
  testing::CommandResult r =
      testing::RunShell(StrCat(limit, GRAPHRT_CLI_BINARY, " inspect ", path, " --keras-config ",
                               testing::ReliabilityInput("cfg.json"), " 2>&1"));
  ExpectOneErrorLine(r, path);
  EXPECT_TRUE(Contains(r.out, expected)) << r.out;
}

TEST(KerasHostile, IsolatedReadOfRealFilesMatchesInProcess) {
  std::vector<std::string> paths = {KerasDir() + "/small_cnn.h5", KerasDir() + "/dense.h5"};
  if (testing::SharedDirAvailable()) {
    paths.push_back(testing::SharedDir() +
                    "/testdata/real/fastmachinelearning__hls4ml/example-models/keras/"
                    "KERAS_lstm_model_weights.h5");
  }
  for (const std::string& path : paths) {
    StatusOr<keras::KerasH5File> a = keras::ReadKerasH5File(path);
    StatusOr<keras::KerasH5File> b = keras::ReadKerasH5FileIsolated(path);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(a->keras_version, b->keras_version);
    EXPECT_EQ(a->model_config, b->model_config);
    EXPECT_EQ(a->training_config, b->training_config);
    EXPECT_EQ(a->has_optimizer_weights, b->has_optimizer_weights);
    ASSERT_EQ(a->layers.size(), b->layers.size());
    int weights = 0;
    for (size_t i = 0; i < a->layers.size(); ++i) {
      ASSERT_EQ(a->layers[i].weights.size(), b->layers[i].weights.size());
      for (size_t j = 0; j < a->layers[i].weights.size(); ++j) {
        const Tensor& x = a->layers[i].weights[j].value;
        const Tensor& y = b->layers[i].weights[j].value;
        EXPECT_EQ(a->layers[i].weights[j].name, b->layers[i].weights[j].name);
        ASSERT_EQ(x.shape(), y.shape());
        EXPECT_EQ(std::string(static_cast<const char*>(x.raw_data()), x.TotalBytes()),
                  std::string(static_cast<const char*>(y.raw_data()), y.TotalBytes()));
        ++weights;
      }
    }
    EXPECT_GT(weights, 0) << path;
  }
}

TEST(KerasHostile, MalformedConfigsNameTheLayer) {
  // A model of an input "x" (of an image shape, or a sequence shape with `rank3`) and a layer "y".
  auto functional = [](const std::string& layer, bool rank3 = false) {
    return StrCat(R"({"class_name": "Functional", "config": {"name": "m", "layers": [)",
                  R"({"class_name": "InputLayer", "name": "x", "inbound_nodes": [], )",
                  R"("config": {"name": "x", "batch_input_shape": )",
                  rank3 ? "[null, 6, 2]" : "[null, 6, 6, 2]", "}}, ", layer,
                  R"(], "input_layers": [["x", 0, 0]], "output_layers": [["y", 0, 0]]}})");
  };
  auto layer = [](const std::string& cls, const std::string& config,
                  const std::string& inbound = R"([[["x", 0, 0, {}]]])") {
    return StrCat(R"({"class_name": ")", cls, R"(", "name": "y", "config": {"name": "y")",
                  config.empty() ? "" : ", ", config, R"(}, "inbound_nodes": )", inbound, "}");
  };
  // config -> what the error must say
  const std::vector<std::pair<std::string, std::string>> cases = {
      // Keys whose absence const operator[] read out of bounds.
      {R"({"class_name": "Sequential", "config": {"layers": [{"class_name": "InputLayer"}]}})",
       "layer 'InputLayer': no 'config' in its JSON"},
      {R"({"class_name": "Sequential", "config": {"layers": [{"class_name": "Dense",
          "name": "d"}]}})",
       "layer 'd': no 'config' in its JSON"},
      {R"({"class_name": "Functional", "config": {"layers": [{"class_name": "InputLayer",
          "name": "x"}], "input_layers": [["x", 0, 0]], "output_layers": [["x", 0, 0]]}})",
       "layer 'x': no 'config' in its JSON"},
      {functional(R"({"class_name": "Dense", "name": "y", "inbound_nodes": [[["x", 0, 0, {}]]]})"),
       "layer 'y': no 'config' in its JSON"},
      {functional(layer("ZeroPadding2D", "")), "layer 'y': no 'padding' in its JSON"},
      {functional(layer("Cropping2D", "")), "layer 'y': no 'cropping' in its JSON"},
      {functional(layer("TimeDistributed", "")), "layer 'y': no 'layer' in its JSON"},
      {functional(layer("Bidirectional", ""), true), "layer 'y': no 'layer' in its JSON"},
      {functional(layer("Bidirectional", R"("layer": {"class_name": "LSTM"})"), true),
       "layer 'y': no 'config' in its JSON"},
      {functional(R"({"class_name": "Dense", "name": "y", "config": 5,
                      "inbound_nodes": [[["x", 0, 0, {}]]]})"),
       "layer 'y' (Dense): its config is not a JSON object"},
      // Values of the wrong length, type or range.
      {functional(layer("ZeroPadding2D", R"("padding": [[1, 1]])")),
       "layer 'y' (ZeroPadding2D): malformed config: 'padding' holds [[1,1]], not 2 pairs"},
      {functional(layer("ZeroPadding2D", R"("padding": [[1], [1, 2]])")),
       "'padding' holds [1], not a pair of numbers"},
      {functional(layer("Conv2D", R"("filters": 2, "kernel_size": [3])")),
       "layer 'y' (Conv2D): malformed config: 'kernel_size' holds 1 numbers, not 2"},
      {functional(layer("Conv2D", R"("filters": 2, "kernel_size": 1e300)")),
       "layer 'y' (Conv2D): malformed config: the number 1e+300 is out of range"},
      // Found by the keras fuzzer: a zero stride divided by zero in the output shape.
      {functional(layer("Conv2D", R"("filters": 2, "kernel_size": 3, "strides": [1, 0])")),
       "layer 'y' (Conv2D): malformed config: 'strides' holds 0: each must be from 1 to 1048576"},
      {functional(layer("MaxPooling2D", R"("pool_size": [2, 2], "strides": -3)")),
       "'strides' holds -3: each must be from 1 to 1048576"},
      {functional(layer("UpSampling2D", R"("size": [2, 4000000])")),
       "'size' holds 4000000: each must be from 1 to 1048576"},
      {StrCat(R"({"class_name": "Functional", "config": {"name": "m", "layers": [)",
              R"({"class_name": "InputLayer", "name": "x", "inbound_nodes": [], )",
              R"("config": {"name": "x", "batch_input_shape": [null, -7]}}], )",
              R"("input_layers": [["x", 0, 0]], "output_layers": [["x", 0, 0]]}})"),
       "input layer 'x' has a dimension of -7"},
      {functional(layer("Dense", R"("units": "three")")), "layer 'y' (Dense): malformed config: "},
      {functional(layer("Softmax", R"("axis": 1e19)")),
       "layer 'y' (Softmax): malformed config: the number"},
      {functional(layer("Flatten", "", R"([[["x", -1, 0, {}]]])")),
       "layer 'y': malformed inbound node entry [\"x\",-1,0,{}]"},
      {functional(layer("Flatten", "", R"([[["x", 0, 1e300, {}]]])")),
       "malformed inbound node entry"},
      {functional(layer("Flatten", "", R"({"a": 1})")), "layer 'y': inbound_nodes is not a list"},
      // Found by the keras fuzzer: a Sequential model read the first output of a layer that
      // gave none (here a nested model without output layers).
      {R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
          {"class_name": "InputLayer", "config": {"name": "x", "batch_input_shape": [null, 3]}},
          {"class_name": "Functional", "config": {"name": "f", "layers": [
              {"class_name": "InputLayer", "name": "i", "inbound_nodes": [],
               "config": {"name": "i", "batch_input_shape": [null, 3]}}],
           "input_layers": [["i", 0, 0]], "output_layers": []}}]}})",
       "layer 'f' in "},
      {R"({"class_name": "Functional", "config": {"layers": 7}})", "are not a list"},
      // Nesting deep enough to overflow the builder's recursion.
      {StrCat(R"({"class_name": "Sequential", "config": )", std::string(100000, '['),
              std::string(100000, ']'), "}"),
       "nests more than 256 levels deep"},
  };
  const std::string path = ::testing::TempDir() + "/keras_hostile_config.json";
  for (const auto& [config, error] : cases) {
    ASSERT_TRUE(WriteStringToFile(path, config).ok());
    KerasModelOptions options;
    options.config_path = path;
    StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/softmax_axis1.h5", options);
    ASSERT_FALSE(m.ok()) << config;
    EXPECT_TRUE(Contains(m.status().message(), error))
        << config.substr(0, 300) << "\n  gave: " << m.status();
  }
}

}  // namespace
}  // namespace graphrt
