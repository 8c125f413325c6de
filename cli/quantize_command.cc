// `graphrt quantize MODEL OUT --mode fp16-weights|int8-dynamic|int8-static` (../shared/CLI.md):
// the model frozen (variables become constants), folded, rewritten by migrate/quantize.h,
// compared with float32 on the user's inputs, and written only when all of that succeeded.
#include <filesystem>
#include <iostream>
#include <set>

#include <boost/program_options.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/model.h"
#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "formats/saved_model.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/checkpoint_state.h"
#include "meta_graph.pb.h"
#include "migrate/graph_migration.h"
#include "migrate/quantize_model.h"
#include "runtime/core/str_util.h"
#include "saved_model.pb.h"

namespace graphrt {
namespace cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

using StringList = std::vector<std::string>;

StringList Strings(const po::variables_map& vm, const std::string& name) {
  return vm.count(name) ? vm[name].as<StringList>() : StringList();
}

bool HasFunctionCalls(const GraphDef& graph) {
  for (const auto& node : graph.node()) {
    if (node.op() == "StatefulPartitionedCall" || node.op() == "PartitionedCall") return true;
  }
  return false;
}

bool HasVariables(const GraphDef& graph) {
  for (const auto& node : graph.node()) {
    if (node.op() == "VariableV2" || node.op() == "Variable" || node.op() == "VarHandleOp") {
      return true;
    }
  }
  return false;
}

std::string NodeOf(const std::string& tensor) { return tensor.substr(0, tensor.find(':')); }

// The loaded model's graph with its variables replaced by their checkpoint values.
StatusOr<GraphDef> FrozenGraph(const LoadedModel& model, ModelKind kind, const ModelFlags& flags,
                               const std::vector<std::string>& output_tensors) {
  GraphDef graph = model.graph;
  if (!HasVariables(graph)) return graph;
  if (HasFunctionCalls(graph)) {
    return Unimplemented(model.path,
                         " is a TensorFlow 2 SavedModel whose graph calls functions over "
                         "variables; quantize takes frozen graphs, TF1 SavedModels, .meta + "
                         "checkpoint and Keras files (freeze it first, e.g. with TensorFlow's "
                         "convert_variables_to_constants_v2)");
  }
  std::string prefix;
  if (kind == ModelKind::kSavedModel) {
    prefix = model.path + "/variables/variables";
  } else if (!flags.checkpoint.empty()) {
    prefix = IsDirectory(flags.checkpoint) ? "" : flags.checkpoint;
    if (prefix.empty()) {
      GRT_ASSIGN_OR_RETURN(prefix, LatestCheckpoint(flags.checkpoint));
    }
  } else {
    return InvalidArgument(model.path, " has variables: give --checkpoint");
  }
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(prefix));
  std::vector<std::string> outputs;
  for (const std::string& t : output_tensors) outputs.push_back(NodeOf(t));
  int frozen = 0;
  GRT_RETURN_IF_ERROR(migrate::FreezeGraph(reader.get(), outputs, &graph, &frozen));
  return graph;
}

void SetTensorInfo(const migrate::QuantizeInput& in, ::tensorflow::TensorInfo* info) {
  info->set_name(in.tensor);
  info->set_dtype(in.dtype);
  in.shape.AsProto(info->mutable_tensor_shape());
}

// A SavedModel (tag serve, signature serving_default) holding `graph`, written beside `dir`
// and renamed into place.
Status WriteFrozenSavedModel(const GraphDef& graph,
                             const std::vector<migrate::QuantizeInput>& inputs,
                             const std::vector<std::pair<std::string, std::string>>& outputs,
                             const std::vector<DataType>& output_dtypes, const std::string& dir,
                             bool force) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !force) {
    return AlreadyExists(dir, " already exists (--force replaces it)");
  }
  ::tensorflow::SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  ::tensorflow::MetaGraphDef* meta = saved_model.add_meta_graphs();
  meta->mutable_meta_info_def()->add_tags("serve");
  *meta->mutable_graph_def() = graph;
  ::tensorflow::SignatureDef& sig = (*meta->mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  for (const migrate::QuantizeInput& in : inputs) {
    SetTensorInfo(in, &(*sig.mutable_inputs())[in.key]);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    ::tensorflow::TensorInfo& info = (*sig.mutable_outputs())[outputs[i].first];
    info.set_name(outputs[i].second);
    info.set_dtype(output_dtypes[i]);
    info.mutable_tensor_shape()->set_unknown_rank(true);
  }
  const std::string tmp = dir + ".tmp-graphrt";
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp + "/variables", ec)) {
    return Internal("cannot create ", tmp, "/variables: ", ec.message());
  }
  Status s = WriteBinaryOrTextProto(tmp + "/saved_model.pb", saved_model);
  if (!s.ok()) {
    fs::remove_all(tmp, ec);
    return s;
  }
  const std::string old = dir + ".old-graphrt";
  fs::remove_all(old, ec);
  if (fs::exists(dir, ec)) fs::rename(dir, old, ec);
  fs::rename(tmp, dir, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    return Internal("cannot rename ", tmp, " to ", dir, ": ", ec.message());
  }
  fs::remove_all(old, ec);
  return Status::OK();
}

bool SamePath(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

}  // namespace

int QuantizeCommand(int argc, char** argv) {
  po::options_description desc(
      "graphrt quantize MODEL OUT --mode fp16-weights|int8-dynamic|int8-static "
      "[--calibration DIR|FILE.jsonl] [--exclude REGEX] [--per-channel] [--eval-split F] "
      "[--report FILE.json] [--json]");
  desc.add_options()("help,h", "describe this command")(
      "model", po::value<std::string>(), "a frozen GraphDef, SavedModel, .meta or Keras file")(
      "out", po::value<std::string>(),
      "the quantized model: a GraphDef when MODEL is one, else a SavedModel folder")(
      "mode", po::value<std::string>(), "fp16-weights, int8-dynamic or int8-static")(
      "calibration", po::value<std::string>(),
      "a folder of INPUT.npy (first axis: examples) or INPUT/*.npy, or a JSON Lines file of "
      "{\"INPUT\": [...]} per example (int8-static needs it; otherwise random inputs are used "
      "for the report)")("exclude", po::value<std::string>()->default_value(""),
                         "nodes whose name matches this regular expression stay float32")(
      "quantize-shallow-convs", po::bool_switch(),
      "also quantize convolutions over at most 4 channels whose patches hold at most 36 values "
      "(a 3x3 stem over an image), which stay float32 by default: faster, and more accurate")(
      "per-channel", po::bool_switch(), "one weight scale per output channel (the default)")(
      "per-tensor", po::bool_switch(), "one weight scale per weight tensor")(
      "method", po::value<std::string>()->default_value("minmax"),
      "int8-static calibration: minmax, percentile or entropy")(
      "percentile", po::value<double>()->default_value(99.99), "for --method percentile")(
      "eval-split", po::value<double>()->default_value(0.0),
      "the share of examples kept out of calibration and reported apart")(
      "report", po::value<std::string>(), "also write the report as JSON to this file")(
      "json", po::bool_switch(), "print the report as JSON")(
      "output", po::value<StringList>()->composing(),
      "an output to compare (repeatable; a GraphDef's default: every node nothing reads)")(
      "random-examples", po::value<int>()->default_value(16),
      "how many random inputs to report on when there is no --calibration")(
      "timing-rounds", po::value<int>()->default_value(5),
      "interleaved rounds timing float32 against the result (0: no timing)")(
      "tag", po::value<StringList>()->composing(), "SavedModel tag (default serve)")(
      "signature", po::value<std::string>()->default_value(""), "SavedModel signature")(
      "checkpoint", po::value<std::string>()->default_value(""), "checkpoint of a .meta")(
      "keras-config", po::value<std::string>()->default_value(""),
      "architecture JSON of a weights-only Keras file")("force", po::bool_switch(),
                                                        "replace an existing OUT");
  po::positional_options_description positional;
  positional.add("model", 1).add("out", 1);
  po::variables_map vm;
  if (std::optional<int> done = ParseCommandLine(
          argc, argv, desc, positional, {"model", "out", "mode"},
          "quantize needs MODEL, OUT and --mode (see graphrt quantize --help)", &vm)) {
    return *done;
  }
  const std::string path = vm["model"].as<std::string>();
  const std::string out = vm["out"].as<std::string>();
  migrate::QuantizeJob job;
  if (!migrate::ParseQuantizeMode(vm["mode"].as<std::string>(), &job.options.mode)) {
    return ReportError(InvalidArgument("--mode ", vm["mode"].as<std::string>(),
                                       ": expected fp16-weights, int8-dynamic or int8-static"));
  }
  if (!migrate::ParseCalibrationMethod(vm["method"].as<std::string>(), &job.options.method)) {
    return ReportError(InvalidArgument("--method ", vm["method"].as<std::string>(),
                                       ": expected minmax, percentile or entropy"));
  }
  if (vm["per-channel"].as<bool>() && vm["per-tensor"].as<bool>()) {
    return ReportError("--per-channel and --per-tensor exclude each other");
  }
  job.options.per_channel = !vm["per-tensor"].as<bool>();
  job.options.exclude = vm["exclude"].as<std::string>();
  job.options.quantize_shallow_convs = vm["quantize-shallow-convs"].as<bool>();
  job.options.percentile = vm["percentile"].as<double>();
  job.eval_split = vm["eval-split"].as<double>();
  job.timing_rounds = std::max(0, vm["timing-rounds"].as<int>());
  if (job.eval_split < 0 || job.eval_split >= 1) {
    return ReportError("--eval-split must be at least 0 and below 1");
  }
  if (SamePath(path, out)) return ReportError("OUT is MODEL: quantize never overwrites its input");
  if (job.options.mode == migrate::QuantizeMode::kInt8Static && !vm.count("calibration")) {
    return ReportError("--mode int8-static needs --calibration (the inputs to take ranges from)");
  }

  StatusOr<ModelKind> kind = ClassifyModelPath(path);
  if (!kind.ok()) return ReportError(kind.status());
  ModelFlags flags;
  if (vm.count("tag")) flags.tags = Strings(vm, "tag");
  flags.signature = vm["signature"].as<std::string>();
  flags.checkpoint = vm["checkpoint"].as<std::string>();
  flags.keras_config = vm["keras-config"].as<std::string>();
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 1;
  options.config.opencl_devices = "none";
  StatusOr<LoadedModel> model = LoadModel(path, options, flags);
  if (!model.ok()) return ReportError(model.status());
  model->session.reset();  // the float32 reference is made again from the frozen graph

  for (const ModelInput& in : model->inputs) {
    job.inputs.push_back(migrate::QuantizeInput{in.key, in.tensor, in.dtype, in.shape});
  }
  StringList wanted = Strings(vm, "output");
  if (wanted.empty()) wanted = model->default_outputs;
  if (wanted.empty()) {
    // A GraphDef names no outputs: every node that nothing reads, but for constants and no-ops.
    std::set<std::string> read;
    for (const auto& node : model->graph.node()) {
      for (const std::string& in : node.input())
        read.insert(NodeOf(in[0] == '^' ? in.substr(1) : in));
    }
    for (const auto& node : model->graph.node()) {
      if (read.count(node.name()) == 0 && node.op() != "Const" && node.op() != "NoOp" &&
          node.op() != "Placeholder") {
        wanted.push_back(node.name());
      }
    }
  }
  if (wanted.empty()) return ReportError(InvalidArgument(path, " has no output: give --output"));
  std::vector<std::string> output_tensors;
  for (const std::string& name : wanted) {
    std::string tensor = OutputTensor(*model, name);
    if (tensor.find(':') == std::string::npos) tensor += ":0";
    job.outputs.emplace_back(name, tensor);
    output_tensors.push_back(tensor);
  }

  StatusOr<GraphDef> frozen = FrozenGraph(*model, *kind, flags, output_tensors);
  if (!frozen.ok()) return ReportError(frozen.status());
  GraphDef graph = std::move(*frozen);
  std::vector<std::string> keep = output_tensors;
  for (const auto& in : job.inputs) keep.push_back(in.tensor);
  GraphDef folded = graph;
  Status fold = migrate::FoldForQuantization(keep, &folded);
  if (fold.ok()) {
    graph = std::move(folded);
  } else {
    std::cerr << "graphrt quantize: weights not folded (" << fold.ToString()
              << "); quantizing the graph as it is\n";
  }

  Status quantizable = migrate::CheckQuantizable(graph, job.options);
  if (!quantizable.ok()) return ReportError(quantizable.Prepend(path));

  if (vm.count("calibration")) {
    StatusOr<std::vector<migrate::CalibrationExample>> examples =
        migrate::ReadCalibrationData(vm["calibration"].as<std::string>(), job.inputs);
    if (!examples.ok()) return ReportError(examples.status());
    job.examples = std::move(*examples);
  } else {
    StatusOr<std::vector<migrate::CalibrationExample>> examples =
        migrate::RandomExamples(job.inputs, std::max(1, vm["random-examples"].as<int>()), 2026);
    if (!examples.ok()) return ReportError(examples.status());
    job.examples = std::move(*examples);
    job.random_examples = true;
  }

  migrate::QuantizeReport report;
  Status s = migrate::RunQuantizeJob(job, &graph, &report);
  if (!s.ok()) return ReportError(s);

  const bool force = vm["force"].as<bool>();
  if (*kind == ModelKind::kGraphDef) {
    WriteProtoOptions write;
    write.overwrite = force;
    s = WriteBinaryOrTextProto(out, graph, write);
    if (s.code() == Code::kAlreadyExists) s = AlreadyExists(s.message(), " (--force replaces it)");
  } else {
    std::vector<DataType> dtypes;
    StatusOr<std::unique_ptr<Graph>> ir = Graph::FromGraphDef(graph);
    if (!ir.ok()) return ReportError(ir.status());
    for (const auto& [key, tensor] : job.outputs) {
      StatusOr<TensorId> id = ParseTensorName(tensor);
      Node* node = id.ok() ? (*ir)->FindNode(id->node) : nullptr;
      dtypes.push_back(node != nullptr && id->index < node->num_outputs()
                           ? node->output_type(id->index)
                           : ::tensorflow::DT_FLOAT);
    }
    s = WriteFrozenSavedModel(graph, job.inputs, job.outputs, dtypes, out, force);
  }
  if (!s.ok()) return ReportError(s);
  if (vm.count("report")) {
    s = WriteStringToFile(vm["report"].as<std::string>(), report.ToJson() + "\n");
    if (!s.ok()) return ReportError(s);
  }
  if (vm["json"].as<bool>()) {
    std::cout << report.ToJson() << std::endl;
  } else {
    std::cout << "wrote " << out << "\n" << report.ToText();
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace graphrt
