// A program written as a user of the *installed* graphrt writes one: only <graphrt/...> headers,
// linked against graphrt::graphrt (CMake) or `pkg-config --libs graphrt`. scripts/check_install.sh
// and scripts/check_deb.sh build and run it; it fails (exit 1) on any difference from TensorFlow.
//
//   graphrt_consumer SAVED_MODEL_DIR [KERAS_H5]
//
// SAVED_MODEL_DIR is tests/fixtures/saved_models/tf2_control_flow, KERAS_H5 is
// tests/fixtures/keras/dense.h5 (needed when built with GRAPHRT_CONSUMER_WITH_KERAS). The expected
// values are TensorFlow 2.15.1's, copied from the fixtures' .npy files (tf2_collatz.*,
// tf2_piecewise_{true,false}.*, dense.{in0,out0}): gen_saved_models.py and gen_keras.py made them.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <graphrt/graphrt.h>

namespace {

int failures = 0;

void Fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  ++failures;
}

// The fixtures' tolerance policy (tests/fixtures/README.md).
bool Near(float actual, float expected, float rtol, float atol) {
  return actual == expected || std::fabs(actual - expected) <= atol + rtol * std::fabs(expected);
}

void CheckFloat(const std::string& what, float actual, float expected, float rtol, float atol) {
  if (!Near(actual, expected, rtol, atol)) {
    char message[64];
    std::snprintf(message, sizeof(message), " = %.9g, TensorFlow gave %.9g", actual, expected);
    Fail(what + message);
  }
}

// Runs signature `key` of the bundle: feeds and fetches by the signature's input and output keys,
// as TensorFlow Serving does, so the tensor names come from the installed proto headers.
bool RunSignature(const graphrt::SavedModelBundle& bundle, const std::string& key,
                  const std::vector<std::pair<std::string, graphrt::Tensor>>& feeds_by_key,
                  const std::vector<std::string>& fetch_keys,
                  std::vector<graphrt::Tensor>* outputs) {
  graphrt::StatusOr<const graphrt::SignatureDef*> signature = bundle.GetSignature(key);
  if (!signature.ok()) {
    Fail(signature.status().ToString());
    return false;
  }
  std::vector<std::pair<std::string, graphrt::Tensor>> feeds;
  for (const auto& [input_key, tensor] : feeds_by_key) {
    auto it = (*signature)->inputs().find(input_key);
    if (it == (*signature)->inputs().end()) {
      Fail("signature " + key + " has no input " + input_key);
      return false;
    }
    feeds.emplace_back(it->second.name(), tensor);
  }
  std::vector<std::string> fetches;
  for (const std::string& output_key : fetch_keys) {
    auto it = (*signature)->outputs().find(output_key);
    if (it == (*signature)->outputs().end()) {
      Fail("signature " + key + " has no output " + output_key);
      return false;
    }
    fetches.push_back(it->second.name());
  }
  graphrt::Status s = bundle.session->Run(feeds, fetches, {}, outputs);
  if (!s.ok()) {
    Fail("running signature " + key + ": " + s.ToString());
    return false;
  }
  if (outputs->size() != fetches.size()) {
    Fail("signature " + key + " returned " + std::to_string(outputs->size()) + " outputs");
    return false;
  }
  return true;
}

bool IsScalar(const std::string& what, const graphrt::Tensor& t, graphrt::DataType dtype,
              const char* dtype_name) {
  if (t.dtype() != dtype || t.dims() != 0) {
    Fail(what + " is " + t.DebugString(0) + ", TensorFlow gave a scalar " + dtype_name);
    return false;
  }
  return true;
}

// tf2_control_flow: a tf.Module whose functions hold a Python while loop (collatz) and an if
// (piecewise), exported as functional While/If.
void CheckSavedModel(const std::string& dir) {
  graphrt::SessionOptions options;
  graphrt::SavedModelBundle bundle;
  graphrt::Status s =
      graphrt::LoadSavedModel(options, graphrt::RunOptions(), dir, {"serve"}, &bundle);
  if (!s.ok()) return Fail("loading " + dir + ": " + s.ToString());

  std::vector<graphrt::Tensor> outputs;
  if (RunSignature(bundle, "collatz", {{"n", graphrt::Tensor::Scalar<int32_t>(27)}}, {"steps"},
                   &outputs) &&
      IsScalar("collatz(27).steps", outputs[0], graphrt::DataType::DT_INT32, "int32") &&
      outputs[0].scalar<int32_t>() != 111) {
    Fail("collatz(27).steps = " + std::to_string(outputs[0].scalar<int32_t>()) +
         ", TensorFlow gave 111");
  }

  const std::vector<float> x_values = {0.345584184f, 0.82161814f,  0.330437064f,
                                       -1.30315721f, 0.905355871f, 0.446374565f};
  graphrt::Tensor x(graphrt::DataType::DT_FLOAT,
                    graphrt::TensorShape({static_cast<int64_t>(x_values.size())}));
  float* x_flat = x.data<float>();
  for (size_t i = 0; i < x_values.size(); ++i) x_flat[i] = x_values[i];
  // flag true: sum(sin(x)); flag false: mean(x * x).
  const std::pair<bool, float> cases[] = {{true, 1.64939678f}, {false, 0.603468597f}};
  for (const auto& [flag, expected] : cases) {
    const std::string what = std::string("piecewise(flag=") + (flag ? "true" : "false") + ").y";
    if (RunSignature(bundle, "piecewise", {{"x", x}, {"flag", graphrt::Tensor::Scalar<bool>(flag)}},
                     {"y"}, &outputs) &&
        IsScalar(what, outputs[0], graphrt::DataType::DT_FLOAT, "float")) {
      CheckFloat(what, outputs[0].scalar<float>(), expected, 1e-5f, 1e-6f);
    }
  }
}

#ifdef GRAPHRT_CONSUMER_WITH_KERAS
// dense.h5: Sequential([Input((5,)), Dense(4, relu), Dense(3)]), predict_on_batch on 2 rows.
void CheckKeras(const std::string& path) {
  graphrt::StatusOr<graphrt::KerasModel> model = graphrt::LoadKerasModel(path);
  if (!model.ok()) return Fail("loading " + path + ": " + model.status().ToString());
  if (model->graph.inputs.size() != 1 || model->graph.outputs.size() != 1) {
    return Fail(path + ": expected one input and one output");
  }
  const float in[2][5] = {{-0.692457676f, 1.16506279f, -0.341445893f, 1.26480007f, -0.572303653f},
                          {0.33488366f, 0.427677721f, 0.478379875f, -0.922652125f, -3.18319559f}};
  const float expected[2][3] = {{0.313331246f, -0.785387099f, -0.443906754f},
                                {0.219835415f, -0.613964319f, -0.470371425f}};
  graphrt::Tensor x(graphrt::DataType::DT_FLOAT, graphrt::TensorShape({2, 5}));
  float* x_flat = x.data<float>();
  for (int i = 0; i < 10; ++i) x_flat[i] = in[i / 5][i % 5];
  std::vector<graphrt::Tensor> outputs;
  graphrt::Status s = model->session->Run({{model->graph.inputs[0].tensor, x}},
                                          {model->graph.outputs[0].tensor}, {}, &outputs);
  if (!s.ok()) return Fail("running " + path + ": " + s.ToString());
  const graphrt::Tensor& y = outputs[0];
  if (y.dtype() != graphrt::DataType::DT_FLOAT || y.dims() != 2 || y.dim_size(0) != 2 ||
      y.dim_size(1) != 3) {
    return Fail(path + " output is " + y.DebugString(0) + ", Keras gave float[2,3]");
  }
  const float* y_flat = y.data<float>();
  for (int i = 0; i < 6; ++i) {
    CheckFloat(path + " output[" + std::to_string(i / 3) + "," + std::to_string(i % 3) + "]",
               y_flat[i], expected[i / 3][i % 3], 1e-5f, 1e-5f);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef GRAPHRT_CONSUMER_WITH_KERAS
  constexpr int kArgs = 3;
  const char* usage = "usage: graphrt_consumer SAVED_MODEL_DIR KERAS_H5\n";
#else
  constexpr int kArgs = 2;
  const char* usage = "usage: graphrt_consumer SAVED_MODEL_DIR\n";
#endif
  if (argc != kArgs) {
    std::fputs(usage, stderr);
    return 2;
  }
  const std::string version = graphrt::Version();
  std::printf("graphrt %s\n", version.c_str());
#ifdef GRAPHRT_CONSUMER_EXPECTED_VERSION
  // The version the package files (graphrtConfigVersion.cmake, graphrt.pc) announced: a consumer
  // that found one install's headers and linked another's library fails here.
  if (version != GRAPHRT_CONSUMER_EXPECTED_VERSION) {
    Fail(std::string("graphrt::Version() is ") + version + ", the package files say " +
         GRAPHRT_CONSUMER_EXPECTED_VERSION);
  }
#endif
  CheckSavedModel(argv[1]);
#ifdef GRAPHRT_CONSUMER_WITH_KERAS
  CheckKeras(argv[2]);
#endif
  if (failures != 0) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("all checks passed\n");
  return 0;
}
