#include "migrate/quantize_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/npy.h"
#include "runtime/core/str_util.h"
#include "runtime/session/session.h"

namespace graphrt {
namespace migrate {

namespace {

namespace fs = std::filesystem;

std::string FileKey(const std::string& key) {
  std::string name = key;
  std::replace(name.begin(), name.end(), '/', '_');
  std::replace(name.begin(), name.end(), ':', '_');
  return name;
}

// `t` as one example of `input`: a batch axis of 1 added when `t` has one axis fewer; then the
// dtype and every known dimension must match. `what` names the source in errors.
StatusOr<Tensor> FitExample(const Tensor& t, const QuantizeInput& input, const std::string& what) {
  if (t.dtype() != input.dtype) {
    return InvalidArgument(what, " holds ", DataTypeString(t.dtype()), " but input ", input.key,
                           " is ", DataTypeString(input.dtype));
  }
  Tensor value = t;
  if (!input.shape.unknown_rank() && t.dims() + 1 == input.shape.dims()) {
    std::vector<int64_t> dims = {1};
    for (int d = 0; d < t.dims(); ++d) dims.push_back(t.dim_size(d));
    value = t.Reshaped(TensorShape(dims));
  }
  if (!input.shape.IsCompatibleWith(value.shape())) {
    return InvalidArgument(what, " has shape ", value.shape().DebugString(), " but input ",
                           input.key, " takes ", input.shape.DebugString());
  }
  return value;
}

// Examples from KEY.npy (first axis: examples) or KEY/*.npy (one per file).
StatusOr<std::vector<Tensor>> ReadNpyExamples(const std::string& dir, const QuantizeInput& input) {
  const std::string stem = dir + "/" + FileKey(input.key);
  std::vector<Tensor> examples;
  if (IsDirectory(stem)) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(stem, ec)) {
      if (entry.path().extension() == ".npy") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      GRT_ASSIGN_OR_RETURN(Tensor t, ReadNpy(file, input.dtype));
      GRT_ASSIGN_OR_RETURN(Tensor e, FitExample(t, input, file));
      examples.push_back(e);
    }
    if (examples.empty())
      return InvalidArgument("no .npy file in ", stem, " for input ", input.key);
    return examples;
  }
  const std::string file = stem + ".npy";
  if (!FileExists(file)) {
    return NotFound("no calibration data for input ", input.key, ": neither ", file, " nor ", stem,
                    "/ exists");
  }
  GRT_ASSIGN_OR_RETURN(Tensor all, ReadNpy(file, input.dtype));
  if (all.dims() < 1 || all.dim_size(0) < 1) {
    return InvalidArgument(file, " holds no example (shape ", all.shape().DebugString(), ")");
  }
  const bool each_batched = !input.shape.unknown_rank() && all.dims() == input.shape.dims() + 1;
  for (int64_t i = 0; i < all.dim_size(0); ++i) {
    Tensor slice = all.Slice(i, i + 1);
    if (each_batched) {
      std::vector<int64_t> dims;
      for (int d = 1; d < all.dims(); ++d) dims.push_back(all.dim_size(d));
      slice = slice.Reshaped(TensorShape(dims));
    }
    GRT_ASSIGN_OR_RETURN(Tensor e, FitExample(slice.DeepCopy(), input, file));
    examples.push_back(e);
  }
  return examples;
}

Status CollectDims(const nlohmann::json& j, size_t depth, std::vector<int64_t>* dims) {
  if (!j.is_array()) return Status::OK();
  if (depth == dims->size()) dims->push_back(static_cast<int64_t>(j.size()));
  if (static_cast<int64_t>(j.size()) != (*dims)[depth]) {
    return InvalidArgument("ragged nested list at depth ", depth);
  }
  for (const auto& item : j) GRT_RETURN_IF_ERROR(CollectDims(item, depth + 1, dims));
  return Status::OK();
}

Status FlattenNumbers(const nlohmann::json& j, std::vector<double>* values) {
  if (j.is_array()) {
    for (const auto& item : j) GRT_RETURN_IF_ERROR(FlattenNumbers(item, values));
    return Status::OK();
  }
  if (j.is_boolean()) {
    values->push_back(j.get<bool>() ? 1.0 : 0.0);
    return Status::OK();
  }
  if (!j.is_number()) return InvalidArgument("a non-number value ", j.dump());
  values->push_back(j.get<double>());
  return Status::OK();
}

StatusOr<Tensor> JsonTensor(const nlohmann::json& j, DataType dtype) {
  std::vector<int64_t> dims;
  GRT_RETURN_IF_ERROR(CollectDims(j, 0, &dims));
  std::vector<double> values;
  GRT_RETURN_IF_ERROR(FlattenNumbers(j, &values));
  GRT_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
  if (shape.num_elements() != static_cast<int64_t>(values.size())) {
    return InvalidArgument("ragged nested list");
  }
  GRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  Status s = VisitNumericType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  });
  if (!s.ok())
    return InvalidArgument("a JSON value cannot feed a ", DataTypeString(dtype), " input");
  return t;
}

StatusOr<std::vector<CalibrationExample>> ReadJsonLines(const std::string& path,
                                                        const std::vector<QuantizeInput>& inputs) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open calibration file ", path);
  std::vector<CalibrationExample> examples;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = StrCat(path, " line ", number);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      return InvalidArgument(where, ": not a JSON object");
    }
    CalibrationExample example;
    for (const QuantizeInput& input : inputs) {
      auto it = j.find(input.key);
      if (it == j.end()) return InvalidArgument(where, ": no value for input ", input.key);
      StatusOr<Tensor> t = JsonTensor(*it, input.dtype);
      if (!t.ok()) return Status(t.status()).Prepend(StrCat(where, ", input ", input.key));
      GRT_ASSIGN_OR_RETURN(Tensor e, FitExample(*t, input, where));
      example.push_back(e);
    }
    examples.push_back(std::move(example));
  }
  if (examples.empty()) return InvalidArgument("calibration file ", path, " holds no example");
  return examples;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

StatusOr<std::unique_ptr<Session>> OneThreadSession(const GraphDef& graph,
                                                    const std::string& what) {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 1;
  options.config.inter_op_parallelism_threads = -1;
  options.config.opencl_devices = "none";
  options.config.device_count["GPU"] = 0;
  std::unique_ptr<Session> session;
  {
    Session* raw = nullptr;
    GRT_RETURN_IF_ERROR(NewSession(options, &raw));
    session.reset(raw);
  }
  Status s = session->Create(graph);
  if (!s.ok()) return s.Prepend(what);
  return session;
}

std::vector<std::pair<std::string, Tensor>> Feeds(const std::vector<QuantizeInput>& inputs,
                                                  const CalibrationExample& example) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(inputs[i].tensor, example[i]);
  return feeds;
}

// Accumulates OutputAgreement over examples.
class AgreementCounter {
 public:
  explicit AgreementCounter(std::string output) { result_.output = std::move(output); }
  Status Add(const Tensor& expected, const Tensor& actual) {
    if (expected.dtype() != ::tensorflow::DT_FLOAT || actual.dtype() != ::tensorflow::DT_FLOAT ||
        expected.shape() != actual.shape()) {
      return InvalidArgument("output ", result_.output, ": float32 gives ",
                             DataTypeString(expected.dtype()), expected.shape().DebugString(),
                             ", the quantized model ", DataTypeString(actual.dtype()),
                             actual.shape().DebugString());
    }
    ++result_.examples;
    const float* f = expected.data<float>();
    const float* q = actual.data<float>();
    const int64_t n = expected.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      max_abs_error_ = std::max(max_abs_error_, std::fabs(static_cast<double>(q[i]) - f[i]));
      max_abs_value_ = std::max(max_abs_value_, std::fabs(static_cast<double>(f[i])));
    }
    const int64_t classes = expected.dims() >= 1 ? expected.dim_size(expected.dims() - 1) : 0;
    if (classes >= 2) {
      for (int64_t row = 0; row < n / classes; ++row) {
        const float* fr = f + row * classes;
        const float* qr = q + row * classes;
        const int64_t fa = std::max_element(fr, fr + classes) - fr;
        const int64_t qa = std::max_element(qr, qr + classes) - qr;
        ++rows_;
        agree_ += fa == qa ? 1 : 0;
        classes_seen_.insert(fa);
      }
    }
    return Status::OK();
  }
  OutputAgreement Result() const {
    OutputAgreement r = result_;
    r.max_abs_error = max_abs_error_;
    r.max_rel_error = max_abs_value_ > 0 ? max_abs_error_ / max_abs_value_ : max_abs_error_;
    r.top1_agreement = rows_ > 0 ? static_cast<double>(agree_) / rows_ : -1;
    r.distinct_top1 = static_cast<int64_t>(classes_seen_.size());
    return r;
  }

 private:
  OutputAgreement result_;
  double max_abs_error_ = 0, max_abs_value_ = 0;
  int64_t rows_ = 0, agree_ = 0;
  std::set<int64_t> classes_seen_;
};

Status Compare(Session* expected, Session* actual, const QuantizeJob& job, size_t begin, size_t end,
               std::vector<OutputAgreement>* out) {
  std::vector<std::string> fetches;
  std::vector<AgreementCounter> counters;
  for (const auto& [key, tensor] : job.outputs) {
    fetches.push_back(tensor);
    counters.emplace_back(key);
  }
  for (size_t e = begin; e < end; ++e) {
    std::vector<Tensor> want, got;
    GRT_RETURN_IF_ERROR(expected->Run(Feeds(job.inputs, job.examples[e]), fetches, {}, &want));
    Status s = actual->Run(Feeds(job.inputs, job.examples[e]), fetches, {}, &got);
    if (!s.ok()) return s.Prepend("the quantized model");
    for (size_t o = 0; o < fetches.size(); ++o)
      GRT_RETURN_IF_ERROR(counters[o].Add(want[o], got[o]));
  }
  out->clear();
  for (const AgreementCounter& c : counters) out->push_back(c.Result());
  return Status::OK();
}

// Median milliseconds per Run of each session on the first example, interleaved rounds.
Status TimeSessions(Session* a, Session* b, const QuantizeJob& job, double* a_ms, double* b_ms) {
  std::vector<std::string> fetches;
  for (const auto& [key, tensor] : job.outputs) fetches.push_back(tensor);
  const auto feeds = Feeds(job.inputs, job.examples.front());
  std::vector<Tensor> outputs;
  // Warm-up: plans, packed weights, buffers.
  GRT_RETURN_IF_ERROR(a->Run(feeds, fetches, {}, &outputs));
  GRT_RETURN_IF_ERROR(b->Run(feeds, fetches, {}, &outputs));
  std::vector<double> ta, tb;
  for (int round = 0; round < job.timing_rounds; ++round) {
    for (int which = 0; which < 2; ++which) {
      Session* s = which == 0 ? a : b;
      int runs = 0;
      const auto start = std::chrono::steady_clock::now();
      double elapsed = 0;
      do {
        GRT_RETURN_IF_ERROR(s->Run(feeds, fetches, {}, &outputs));
        ++runs;
        elapsed =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
      } while (elapsed < 100.0 && runs < 1000);
      (which == 0 ? ta : tb).push_back(elapsed / runs);
    }
  }
  *a_ms = Median(ta);
  *b_ms = Median(tb);
  return Status::OK();
}

// The int8 node that `node` ended in after graphrt's rewrites (the placement report says, for
// each fused node, into which node it was folded), or null when it runs in float32.
const PlacementDecision* Int8NodeFor(const PlacementReport& report, std::string node) {
  constexpr char kFolded[] = "folded into ";
  for (int hops = 0; hops < 8; ++hops) {
    const PlacementDecision* d = report.Find(node);
    if (d == nullptr) return nullptr;
    if (StartsWith(d->op, "_GraphrtQuantized")) return d;
    const size_t at = d->reason.rfind(kFolded);
    if (at == std::string::npos) return nullptr;
    const size_t begin = at + sizeof(kFolded) - 1;
    node = d->reason.substr(begin, d->reason.find(" (", begin) - begin);
  }
  return nullptr;
}

nlohmann::json AgreementJson(const std::vector<OutputAgreement>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const OutputAgreement& a : list) {
    nlohmann::json j = {{"output", a.output},
                        {"examples", a.examples},
                        {"max_abs_error", a.max_abs_error},
                        {"max_rel_error", a.max_rel_error}};
    if (a.top1_agreement >= 0) {
      j["top1_agreement"] = a.top1_agreement;
      j["distinct_top1"] = a.distinct_top1;
    }
    out.push_back(j);
  }
  return out;
}

}  // namespace

StatusOr<std::vector<CalibrationExample>> ReadCalibrationData(
    const std::string& path, const std::vector<QuantizeInput>& inputs) {
  if (inputs.empty()) return InvalidArgument("the model has no input to calibrate");
  if (!IsDirectory(path)) {
    if (!FileExists(path)) return NotFound("calibration data ", path, " does not exist");
    return ReadJsonLines(path, inputs);
  }
  std::vector<std::vector<Tensor>> per_input;
  for (const QuantizeInput& input : inputs) {
    GRT_ASSIGN_OR_RETURN(std::vector<Tensor> examples, ReadNpyExamples(path, input));
    if (!per_input.empty() && examples.size() != per_input.front().size()) {
      return InvalidArgument("calibration data in ", path, ": input ", input.key, " has ",
                             examples.size(), " examples but ", inputs.front().key, " has ",
                             per_input.front().size());
    }
    per_input.push_back(std::move(examples));
  }
  std::vector<CalibrationExample> examples(per_input.front().size());
  for (size_t e = 0; e < examples.size(); ++e) {
    for (const auto& list : per_input) examples[e].push_back(list[e]);
  }
  return examples;
}

StatusOr<std::vector<CalibrationExample>> RandomExamples(const std::vector<QuantizeInput>& inputs,
                                                         int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<CalibrationExample> examples(count);
  for (const QuantizeInput& input : inputs) {
    if (input.dtype != ::tensorflow::DT_FLOAT || input.shape.unknown_rank()) {
      return InvalidArgument("cannot make random examples for input ", input.key, " (",
                             DataTypeString(input.dtype), input.shape.DebugString(),
                             "): give --calibration");
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < input.shape.dims(); ++d) {
      int64_t size = input.shape.dim_size(d);
      if (size < 0 && d == 0) size = 1;
      if (size < 0) {
        return InvalidArgument("cannot make random examples for input ", input.key, ": dimension ",
                               d, " is unknown; give --calibration");
      }
      dims.push_back(size);
    }
    for (CalibrationExample& example : examples) {
      GRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(input.dtype, TensorShape(dims)));
      float* v = t.data<float>();
      for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = uniform(rng);
      example.push_back(t);
    }
  }
  return examples;
}

Status RunQuantizeJob(const QuantizeJob& job, GraphDef* graph, QuantizeReport* report) {
  if (job.examples.empty()) return InvalidArgument("the calibration set is empty");
  if (job.outputs.empty()) return InvalidArgument("the model names no output to compare");
  for (const CalibrationExample& e : job.examples) {
    if (e.size() != job.inputs.size()) return Internal("an example does not feed every input");
  }
  const size_t total = job.examples.size();
  size_t held_out = 0;
  if (job.eval_split > 0) {
    if (job.eval_split >= 1) return InvalidArgument("--eval-split must be in [0, 1)");
    held_out = std::max<size_t>(1, static_cast<size_t>(std::llround(job.eval_split * total)));
    if (held_out >= total) {
      return InvalidArgument("--eval-split ", job.eval_split, " leaves no calibration example of ",
                             total);
    }
  }
  const size_t calibration_end = total - held_out;

  GRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> reference,
                       OneThreadSession(*graph, "the float32 model: "));
  std::map<std::string, TensorRange> ranges;
  if (job.options.mode == QuantizeMode::kInt8Static) {
    GRT_ASSIGN_OR_RETURN(std::vector<QuantizableOp> ops,
                         FindQuantizableOps(*graph, job.options, nullptr));
    std::vector<std::string> activations;
    for (const QuantizableOp& op : ops) {
      if (std::find(activations.begin(), activations.end(), op.activation) == activations.end()) {
        activations.push_back(op.activation);
      }
    }
    std::vector<RangeCollector> collectors(
        activations.size(), RangeCollector(job.options.method, job.options.percentile));
    for (size_t e = 0; e < calibration_end && !activations.empty(); ++e) {
      std::vector<Tensor> values;
      GRT_RETURN_IF_ERROR(
          reference->Run(Feeds(job.inputs, job.examples[e]), activations, {}, &values));
      for (size_t a = 0; a < activations.size(); ++a) {
        Status s = collectors[a].Add(values[a]);
        if (!s.ok()) return s.Prepend(activations[a]);
      }
    }
    for (size_t a = 0; a < activations.size(); ++a) ranges[activations[a]] = collectors[a].Range();
  }
  GraphDef quantized = *graph;
  QuantizeSummary summary;
  GRT_RETURN_IF_ERROR(QuantizeGraph(job.options, ranges, &quantized, &summary));
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> result,
                       OneThreadSession(quantized, "the quantized model: "));

  QuantizeReport r;
  r.mode = QuantizeModeName(job.options.mode);
  if (job.options.mode == QuantizeMode::kInt8Static) {
    r.calibration_method = CalibrationMethodName(job.options.method);
  }
  r.calibration_examples = static_cast<int64_t>(calibration_end);
  r.eval_examples = static_cast<int64_t>(held_out);
  r.random_examples = job.random_examples;
  r.quantized = summary.quantized;
  r.kept_float = summary.kept_float;
  r.weight_bytes_before = summary.weight_bytes_before;
  r.weight_bytes_after = summary.weight_bytes_after;
  r.graph_bytes_before = static_cast<int64_t>(graph->ByteSizeLong());
  r.graph_bytes_after = static_cast<int64_t>(quantized.ByteSizeLong());
  GRT_RETURN_IF_ERROR(
      Compare(reference.get(), result.get(), job, 0, calibration_end, &r.calibration));
  if (held_out > 0) {
    GRT_RETURN_IF_ERROR(
        Compare(reference.get(), result.get(), job, calibration_end, total, &r.eval));
  }
  if (job.options.mode != QuantizeMode::kFp16Weights) {
    const PlacementReport placement = result->GetPlacementReport();
    for (const std::string& entry : r.quantized) {
      const PlacementDecision* d = Int8NodeFor(placement, entry.substr(0, entry.rfind(" (")));
      if (d != nullptr) {
        r.runs_int8.push_back(StrCat(entry, " as ", d->node, " (", d->op, ")"));
      } else {
        r.runs_float.push_back(entry);
      }
    }
  }
  if (job.timing_rounds > 0) {
    GRT_RETURN_IF_ERROR(
        TimeSessions(reference.get(), result.get(), job, &r.float_ms, &r.quantized_ms));
  }
  *graph = std::move(quantized);
  *report = std::move(r);
  return Status::OK();
}

std::string QuantizeReport::ToJson() const {
  nlohmann::json j = {{"mode", mode},
                      {"calibration_examples", calibration_examples},
                      {"eval_examples", eval_examples},
                      {"random_examples", random_examples},
                      {"quantized", quantized},
                      {"kept_float", kept_float},
                      {"runs_int8", runs_int8},
                      {"runs_float", runs_float},
                      {"weight_bytes_before", weight_bytes_before},
                      {"weight_bytes_after", weight_bytes_after},
                      {"graph_bytes_before", graph_bytes_before},
                      {"graph_bytes_after", graph_bytes_after},
                      {"calibration", AgreementJson(calibration)},
                      {"eval", AgreementJson(eval)}};
  if (!calibration_method.empty()) j["calibration_method"] = calibration_method;
  if (float_ms > 0 && quantized_ms > 0) {
    j["float_ms"] = float_ms;
    j["quantized_ms"] = quantized_ms;
    j["speedup"] = float_ms / quantized_ms;
  }
  return j.dump(1);
}

std::string QuantizeReport::ToText() const {
  std::string out = StrCat("mode ", mode, ": ", quantized.size(), " ops/constants quantized, ",
                           kept_float.size(), " kept float32\n");
  for (const std::string& k : kept_float) out += StrCat("  float32: ", k, "\n");
  if (!runs_int8.empty() || !runs_float.empty()) {
    out += StrCat("graphrt runs ", runs_int8.size(), " of them with int8 kernels",
                  runs_float.empty() ? "" : "; in float32 (no int8 kernel yet):", "\n");
    for (const std::string& k : runs_float) out += StrCat("  float32 kernel: ", k, "\n");
  }
  auto ratio = [](int64_t after, int64_t before) {
    return before > 0
               ? StrCat(FormatShortest(std::round(1000.0 * after / before) / 1000.0, false), "x")
               : std::string("-");
  };
  out += StrCat("weights: ", weight_bytes_before, " -> ", weight_bytes_after, " bytes (",
                ratio(weight_bytes_after, weight_bytes_before), "); graph: ", graph_bytes_before,
                " -> ", graph_bytes_after, " bytes (", ratio(graph_bytes_after, graph_bytes_before),
                ")\n");
  auto lines = [&](const char* what, int64_t examples, const std::vector<OutputAgreement>& list) {
    for (const OutputAgreement& a : list) {
      out += StrCat(what, " (", examples, " examples", random_examples ? ", random" : "", ") ",
                    a.output, ": max abs error ", FormatShortest(a.max_abs_error, true),
                    ", max rel error ", FormatShortest(a.max_rel_error, true));
      if (a.top1_agreement >= 0) {
        out += StrCat(", top-1 agreement ",
                      FormatShortest(std::round(a.top1_agreement * 10000.0) / 100.0, false), "% (",
                      a.distinct_top1, a.distinct_top1 == 1 ? " class)" : " classes)");
      }
      out += "\n";
    }
  };
  lines("calibration", calibration_examples, calibration);
  lines("eval", eval_examples, eval);
  if (float_ms > 0 && quantized_ms > 0) {
    auto ms = [](double v) { return FormatShortest(std::round(v * 1000.0) / 1000.0, false); };
    out += StrCat(
        "speed (1 thread, median): float32 ", ms(float_ms), " ms, quantized ", ms(quantized_ms),
        " ms, ", FormatShortest(std::round(100.0 * float_ms / quantized_ms) / 100.0, false), "x\n");
  }
  return out;
}

}  // namespace migrate
}  // namespace graphrt
