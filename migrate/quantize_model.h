// The job behind `graphrt quantize`: calibration examples read from the user's files, the
// rewrite of migrate/quantize.h applied to a frozen float graph, and the report of what it cost
// (accuracy against float32 on the user's inputs, size, speed measured on the spot).
#ifndef GRAPHRT_MIGRATE_QUANTIZE_MODEL_H_
#define GRAPHRT_MIGRATE_QUANTIZE_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "migrate/quantize.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/core/tensor_shape.h"

namespace graphrt {
namespace migrate {

// A model input as the user names it (`key`, the .npy file or JSON field) and as the graph does.
struct QuantizeInput {
  std::string key;
  std::string tensor;  // "x:0"
  DataType dtype = ::tensorflow::DT_FLOAT;
  PartialTensorShape shape;
};

// One Run's feeds, in the order of the inputs.
using CalibrationExample = std::vector<Tensor>;

// Reads calibration examples for `inputs`:
//  - a folder with KEY.npy per input, whose first axis counts the examples (each example keeps
//    a batch axis of 1 when the input's rank equals the array's, or is arr[i] when the array
//    has one axis more), or a folder KEY/ per input holding one .npy per example (sorted by
//    name; each file as it is, a missing batch axis added);
//  - a JSON Lines file, one object per example mapping each KEY to a nested list (a missing
//    batch axis added).
// ('/' and ':' in a key read as '_' in file names.) Every input needs the same number of
// examples; a wrong dtype or a shape the input does not take is an error naming the file.
StatusOr<std::vector<CalibrationExample>> ReadCalibrationData(
    const std::string& path, const std::vector<QuantizeInput>& inputs);

// `count` examples of uniform random values in [0, 1) (float) for inputs whose shapes are known
// but for a leading batch axis (taken as 1); an error naming an input it cannot make.
StatusOr<std::vector<CalibrationExample>> RandomExamples(const std::vector<QuantizeInput>& inputs,
                                                         int count, uint64_t seed);

struct QuantizeJob {
  QuantizeOptions options;
  std::vector<QuantizeInput> inputs;
  // Output key -> graph tensor, as the report names them.
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<CalibrationExample> examples;
  // The last round(eval_split * examples) examples are kept out of calibration and reported
  // apart (at least one when eval_split > 0).
  double eval_split = 0.0;
  bool random_examples = false;  // the examples are RandomExamples (for the report)
  // Interleaved timing rounds of float32 and the result; 0 skips the speed measurement.
  int timing_rounds = 5;
};

// Accuracy of one output over a set of examples.
struct OutputAgreement {
  std::string output;
  int64_t examples = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;  // max |q - f| / max |f| over the output
  // Rows (all axes but the last) whose argmax agrees; -1 when the output has no class axis.
  double top1_agreement = -1;
  int64_t distinct_top1 = 0;  // distinct float32 argmax classes seen
};

struct QuantizeReport {
  std::string mode;
  std::string calibration_method;
  int64_t calibration_examples = 0, eval_examples = 0;
  bool random_examples = false;
  std::vector<std::string> quantized, kept_float;
  // Of the int8 ops in the written graph: those graphrt runs with an int8 kernel ("name (op)") and
  // those it runs in float32 through Dequantize, for want of one.
  std::vector<std::string> runs_int8, runs_float;
  int64_t weight_bytes_before = 0, weight_bytes_after = 0;
  int64_t graph_bytes_before = 0, graph_bytes_after = 0;  // the serialized GraphDefs
  std::vector<OutputAgreement> calibration, eval;
  double float_ms = 0, quantized_ms = 0;  // median per Run, 1 thread; 0: not measured
  // std::string rather than nlohmann in this header: the command and tests print it.
  std::string ToJson() const;
  std::string ToText() const;
};

// Quantizes `graph` (frozen, float32; folded with FoldForQuantization first) and evaluates the
// result against it. On error nothing in `graph` changes.
Status RunQuantizeJob(const QuantizeJob& job, GraphDef* graph, QuantizeReport* report);

}  // namespace migrate
}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_QUANTIZE_MODEL_H_
