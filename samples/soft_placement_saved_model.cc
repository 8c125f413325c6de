// A SavedModel whose nodes are pinned to /device:GPU:0 (TensorFlow Serving's
// saved_model_half_plus_two_gpu), loaded on a machine without a GPU: soft placement puts them
// on the CPU, the log prints TensorFlow's placement lines, and the report says why each moved.
//
//   soft_placement_saved_model [EXPORT_DIR]
#include <cstdio>
#include <string>
#include <vector>

#include <graphrt/graphrt.h>

int main(int argc, char** argv) {
  std::string dir = argc > 1
                        ? argv[1]
                        : "../shared/testdata/real/tensorflow__serving/tensorflow_serving/"
                          "servables/tensorflow/testdata/saved_model_half_plus_two_gpu/00000123";
  graphrt::SessionOptions options;
  options.config.allow_soft_placement = true;
  options.config.log_device_placement = true;  // "name: (Op): device" lines on stderr
  graphrt::SavedModelBundle bundle;
  graphrt::Status s =
      graphrt::LoadSavedModel(options, graphrt::RunOptions(), dir, {"serve"}, &bundle);
  if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;

  graphrt::Tensor x =
      graphrt::Tensor::Vector<float>({1, 2, 5}).Reshaped(graphrt::TensorShape({3, 1}));
  std::vector<graphrt::Tensor> y;
  s = bundle.session->Run({{"x:0", x}}, {"y:0"}, {}, &y);
  if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
  std::printf("y = %s\n", y[0].DebugString().c_str());
  for (const auto& d : bundle.session->GetPlacementReport().decisions()) {
    if (!d.requested.empty())
      std::printf("%s: %s -> %s: %s\n", d.node.c_str(), d.requested.c_str(), d.assigned.c_str(),
                  d.reason.c_str());
  }
  return 0;
}
