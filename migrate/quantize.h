// Reduced-precision rewrites of a frozen float32 graph (`graphrt quantize`), written in
// TensorFlow's own vocabulary so that TensorFlow loads the result:
//
//   fp16-weights   a float weight W becomes Const(half) -> Cast(float) named W; graphrt folds the
//                  Cast at load, TensorFlow runs it.
//   int8-dynamic   the weight of a MatMul, Conv2D or DepthwiseConv2dNative becomes
//                  Const(qint8) -> Dequantize(SCALED, narrow_range, per output channel: `axis`)
//                  named W, symmetric (min = -max); graphrt's optimizer runs the consumer as an
//                  int8 product with the activation quantized per run, TensorFlow in float.
//   int8-static    as int8-dynamic, and each such op's float input x goes through
//                  QuantizeV2 -> Dequantize (quint8, MIN_FIRST) with the range calibrated on the
//                  user's inputs, nudged so that 0 is exact (ONNX's QDQ form).
//
// Weights are the float Consts (directly, or through Identity) feeding a weight input; every other
// node is left as it was. Batch norm and constant scales should be folded into the weights first
// (FoldForQuantization), so that the quantized weights are the ones that run.
#ifndef GRAPHRT_MIGRATE_QUANTIZE_H_
#define GRAPHRT_MIGRATE_QUANTIZE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/graph_def.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace graphrt {
namespace migrate {

enum class QuantizeMode { kFp16Weights, kInt8Dynamic, kInt8Static };
// "fp16-weights", "int8-dynamic", "int8-static".
const char* QuantizeModeName(QuantizeMode mode);
bool ParseQuantizeMode(const std::string& name, QuantizeMode* mode);

// How an activation's range is chosen from the values seen in calibration.
enum class CalibrationMethod {
  kMinMax,      // the smallest and largest value seen
  kPercentile,  // the `percentile`-th and (100 - percentile)-th percentiles of |x| by histogram
  kEntropy,     // the clipping threshold that minimizes the KL divergence of the 8-bit histogram
};
const char* CalibrationMethodName(CalibrationMethod method);
bool ParseCalibrationMethod(const std::string& name, CalibrationMethod* method);

struct QuantizeOptions {
  QuantizeMode mode = QuantizeMode::kInt8Dynamic;
  // Nodes whose full name matches (std::regex, ECMAScript, whole name) stay float32.
  std::string exclude;
  // Per output channel weight scales (false: one scale per weight tensor).
  bool per_channel = true;
  // Conv2D over at most kShallowConvDepth input channels whose patches hold at most
  // kShallowConvPatch values (window height x width x input depth: a 3x3 or 5x5 stem over an
  // image's channels) stays float32 unless this is set: its products
  // are too shallow for int8 to pay (the float kernel of small_depth_conv.h reads the image's
  // windows in place; the int8 one quantizes the image and packs it), and the raw image's range
  // costs the most accuracy. ResNet50's 7x7 stem (147 values) is faster in int8 and stays so.
  bool quantize_shallow_convs = false;
  CalibrationMethod method = CalibrationMethod::kMinMax;
  double percentile = 99.99;
};

constexpr int64_t kShallowConvDepth = 4;
constexpr int64_t kShallowConvPatch = 36;

// The float range of an activation tensor ("node:0") after calibration.
struct TensorRange {
  float min = 0, max = 0;
};

// A quantizable op: a MatMul, Conv2D or DepthwiseConv2dNative whose weight is a float Const.
struct QuantizableOp {
  std::string node;
  std::string op;
  std::string weight;      // the Const node
  std::string activation;  // the float input tensor, "node:index"
};

// The ops `options` would quantize (exclude applied), in graph order. `skipped` (optional) gets
// "name (Op): reason" for each candidate left float.
StatusOr<std::vector<QuantizableOp>> FindQuantizableOps(const GraphDef& graph,
                                                        const QuantizeOptions& options,
                                                        std::vector<std::string>* skipped);

// OK when QuantizeGraph in `options.mode` would find something to rewrite in `graph`, else the
// INVALID_ARGUMENT it would return: checked before calibration data is read or made.
Status CheckQuantizable(const GraphDef& graph, const QuantizeOptions& options);

// What QuantizeGraph did.
struct QuantizeSummary {
  std::vector<std::string> quantized;   // "name (Op)"
  std::vector<std::string> kept_float;  // "name (Op): reason", the ops without an int8 path
  int64_t weight_bytes_before = 0;      // the float weights rewritten
  int64_t weight_bytes_after = 0;       // what replaced them (values and ranges)
};

// Rewrites `graph` in place. int8-static needs `ranges` for every QuantizableOp's activation.
// INVALID_ARGUMENT naming the problem when the graph has nothing to quantize; `graph` is left
// unchanged on any error.
Status QuantizeGraph(const QuantizeOptions& options,
                     const std::map<std::string, TensorRange>& ranges, GraphDef* graph,
                     QuantizeSummary* summary);

// Folds batch norm and constant scales into weights and constants into Consts (graphrt's own
// optimizer passes, without fusions), keeping the nodes named in `keep` (inputs and outputs).
Status FoldForQuantization(const std::vector<std::string>& keep, GraphDef* graph);

// Collects the values an activation takes over calibration runs.
class RangeCollector {
 public:
  explicit RangeCollector(CalibrationMethod method, double percentile = 99.99);
  // INVALID_ARGUMENT for a non-float tensor.
  Status Add(const Tensor& value);
  // The calibrated range, containing 0. REQUIRES: Add succeeded at least once.
  TensorRange Range() const;
  int64_t count() const { return count_; }

 private:
  static constexpr int kBins = 2048;
  void Rebin(float new_limit);
  CalibrationMethod method_;
  double percentile_;
  int64_t count_ = 0;
  float min_ = 0, max_ = 0;
  float limit_ = 0;  // histogram of |x| over [0, limit_)
  std::vector<double> histogram_;
};

}  // namespace migrate
}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_QUANTIZE_H_
